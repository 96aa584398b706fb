/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_TOOL_OPTIONS_H
#define HWSIGHT_TOOL_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include <hwsight/sensors.h>

/* Option parsing helpers the subcommands share. */

/*
 * A subcommand's options, one list from which both its getopt tables and
 * the option lines of its --help are made, so that the two cannot differ.
 */
struct tool_option {
	const char *name; /* the long name */
	int val;          /* its short letter, or a value from 256 when it has none */
	const char *arg;  /* the value's name in the help ("N", "FILE"); NULL: no value */
	const char *help; /* a '\n' starts a line, indented as the first is */
};

/*
 * A command's option list: its own options, then --help, which every
 * command has, worded alike, and the end of the list.
 */
#define TOOL_OPTIONS(...)                                                     \
	((const struct tool_option[]){ __VA_ARGS__, { "help", 'h', NULL, "show this help" }, { .name = NULL } })

struct tool_command {
	const char *name;                  /* "fans", as in "Try 'hwsight fans --help'." */
	const char *head;                  /* the help above the option lines */
	const struct tool_option *options; /* TOOL_OPTIONS(...) */
	int column;                        /* where an option's help starts */
	char arg_sep;                      /* '=' for "--count=N"; 0 for "--bus N" */
	const char *tail;                  /* the help below them, or NULL */
	bool own_errors;                   /* getopt stays quiet and returns ':' for a
					      missing value: the command says it */
};

/* The command's help: head, one line per option, tail. */
void tool_usage(FILE *f, const struct tool_command *cmd);

/*
 * getopt_long() over @cmd's options: the first call for a command makes
 * its tables and starts the parse (optind 1; opterr off with own_errors).
 */
int tool_next_option(const struct tool_command *cmd, int argc, char **argv);

/*
 * A whole decimal number from min to max, nothing before or after it.
 * Returns 0, or -EINVAL with *ret untouched.
 */
int tool_parse_long(const char *s, long min, long max, long *ret);

/*
 * The end of a getopt loop that answers -h with the help on stdout and exit
 * status 0, and an option it does not know with the help on stderr. Returns
 * -EINVAL (a usage error) when it does not exit.
 */
int tool_help_or_usage_error(int c, const struct tool_command *cmd);

/*
 * The same for the subcommands that answer an unknown option with a
 * pointer to their help: returns -1 after -h (the command then exits 0),
 * else says "Try 'hwsight CMD --help'." and returns 2 (a usage error).
 */
int tool_help_or_try_help(int c, const struct tool_command *cmd);

/*
 * Chip name patterns given on the command line (w83793-*, *-isa-*):
 * tool_check_chip_patterns() says which one does not parse, prefixed
 * "hwsight CMD", and returns -EINVAL; tool_chip_selected() is true when
 * @chip matches one, or when there is none.
 */
int tool_check_chip_patterns(const struct hws_sensors *s, const char *cmd, char **patterns, int n);
bool tool_chip_selected(const struct hws_sensors *s, const struct hws_chip *chip, char **patterns, int n);

#endif
