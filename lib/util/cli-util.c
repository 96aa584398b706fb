/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli-util.h"

void hws__cli_usage(FILE *f, const struct hws__cli_command *cmd)
{
	fputs(cmd->head, f);
	for (const struct hws__cli_option *o = cmd->options; o->name; o++) {
		const char *line = o->help;
		int n;

		if (o->val < 256)
			n = fprintf(f, "  -%c, --%s", o->val, o->name);
		else
			n = fprintf(f, "      --%s", o->name);
		if (o->arg)
			n += fprintf(f, "%c%s", cmd->arg_sep ? cmd->arg_sep : ' ', o->arg);
		/* At least one space, should a name reach the column. */
		fprintf(f, "%*s", n < cmd->column ? cmd->column - n : 1, "");
		for (;;) {
			size_t len = strcspn(line, "\n");

			fprintf(f, "%.*s\n", (int)len, line);
			if (!line[len])
				break;
			line += len + 1;
			fprintf(f, "%*s", cmd->column, "");
		}
	}
	if (cmd->tail)
		fputs(cmd->tail, f);
}

#define HWS__CLI_MAX_OPTIONS 16

/* getopt_long()'s tables, made from a struct hws__cli_command. */
struct hws__cli_getopt {
	struct option longopts[HWS__CLI_MAX_OPTIONS + 1];
	char shortopts[2 * HWS__CLI_MAX_OPTIONS + 2];
};

static void getopt_tables(struct hws__cli_getopt *g, const struct hws__cli_command *cmd)
{
	char *s = g->shortopts;
	size_t n = 0;

	if (cmd->own_errors)
		*s++ = ':';
	for (const struct hws__cli_option *o = cmd->options; o->name; o++) {
		/* A table longer than the arrays is a bug in this program. */
		if (n == HWS__CLI_MAX_OPTIONS)
			abort();
		g->longopts[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->val };
		if (o->val < 256) {
			*s++ = (char)o->val;
			if (o->arg)
				*s++ = ':';
		}
	}
	g->longopts[n] = (struct option){ 0 };
	*s = '\0';
}

int hws__cli_next_option(const struct hws__cli_command *cmd, int argc, char **argv)
{
	/* getopt's own state is global too: one parse at a time. */
	static const struct hws__cli_command *parsing;
	static struct hws__cli_getopt g;

	if (parsing != cmd) {
		getopt_tables(&g, cmd);
		parsing = cmd;
		opterr = !cmd->own_errors;
		optind = 1;
	}
	return getopt_long(argc, argv, g.shortopts, g.longopts, NULL);
}

int hws__cli_help_or_usage_error(int c, const struct hws__cli_command *cmd)
{
	if (c == 'h') {
		hws__cli_usage(stdout, cmd);
		exit(0);
	}
	hws__cli_usage(stderr, cmd);
	return -EINVAL;
}
