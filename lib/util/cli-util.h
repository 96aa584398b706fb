/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_CLI_UTIL_H
#define HWS_UTIL_CLI_UTIL_H

/*
 * The command lines of the programs, hwsight's subcommands and hwsightd:
 * a program's options are one list from which both its getopt tables and
 * the option lines of its --help are made, so that the two cannot differ.
 * The library never calls these: they print.
 */

#include <stdbool.h>
#include <stdio.h>

struct hws__cli_option {
	const char *name; /* the long name */
	int val;          /* its short letter, or a value from 256 when it has none */
	const char *arg;  /* the value's name in the help ("N", "FILE"); NULL: no value */
	const char *help; /* a '\n' starts a line, indented as the first is */
};

struct hws__cli_command {
	const char *name;                       /* "fans", as in "Try 'hwsight fans --help'." */
	const char *head;                       /* the help above the option lines */
	const struct hws__cli_option *options;  /* ends with { .name = NULL } */
	int column;                             /* where an option's help starts */
	char arg_sep;                           /* '=' for "--count=N"; 0 for "--bus N" */
	const char *tail;                       /* the help below them, or NULL */
	bool own_errors;                        /* getopt stays quiet and returns ':' for a
						   missing value: the command says it */
};

/* The command's help: head, one line per option, tail. */
void hws__cli_usage(FILE *f, const struct hws__cli_command *cmd);

/*
 * getopt_long() over @cmd's options: the first call for a command makes
 * its tables and starts the parse (optind 1; opterr off with own_errors).
 */
int hws__cli_next_option(const struct hws__cli_command *cmd, int argc, char **argv);

/*
 * The end of a getopt loop that answers -h with the help on stdout and exit
 * status 0, and an option it does not know with the help on stderr. Returns
 * -EINVAL (a usage error) when it does not exit.
 */
int hws__cli_help_or_usage_error(int c, const struct hws__cli_command *cmd);

#endif
