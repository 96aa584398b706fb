/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

int tool_parse_long(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

void tool_usage(FILE *f, const struct tool_command *cmd)
{
	fputs(cmd->head, f);
	for (const struct tool_option *o = cmd->options; o->name; o++) {
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

#define TOOL_MAX_OPTIONS 16

/* getopt_long()'s tables, made from a struct tool_command. */
struct tool_getopt {
	struct option longopts[TOOL_MAX_OPTIONS + 1];
	char shortopts[2 * TOOL_MAX_OPTIONS + 2];
};

static void getopt_tables(struct tool_getopt *g, const struct tool_command *cmd)
{
	char *s = g->shortopts;
	size_t n = 0;

	if (cmd->own_errors)
		*s++ = ':';
	for (const struct tool_option *o = cmd->options; o->name; o++) {
		/* A table longer than the arrays is a bug in this program. */
		if (n == TOOL_MAX_OPTIONS)
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

int tool_next_option(const struct tool_command *cmd, int argc, char **argv)
{
	/* getopt's own state is global too: one parse at a time. */
	static const struct tool_command *parsing;
	static struct tool_getopt g;

	if (parsing != cmd) {
		getopt_tables(&g, cmd);
		parsing = cmd;
		opterr = !cmd->own_errors;
		optind = 1;
	}
	return getopt_long(argc, argv, g.shortopts, g.longopts, NULL);
}

int tool_help_or_usage_error(int c, const struct tool_command *cmd)
{
	if (c == 'h') {
		tool_usage(stdout, cmd);
		exit(0);
	}
	tool_usage(stderr, cmd);
	return -EINVAL;
}

int tool_help_or_try_help(int c, const struct tool_command *cmd)
{
	if (c == 'h') {
		tool_usage(stdout, cmd);
		return -1;
	}
	fprintf(stderr, "Try 'hwsight %s --help'.\n", cmd->name);
	return 2;
}

int tool_check_chip_patterns(const struct hws_sensors *s, const char *cmd, char **patterns, int n)
{
	for (int i = 0; i < n; i++) {
		if (hws_sensors_chip_match(s, NULL, patterns[i]) < 0) {
			fprintf(stderr, "hwsight %s: '%s' is not a chip name (try w83793-* or *-isa-*)\n", cmd,
				patterns[i]);
			return -EINVAL;
		}
	}
	return 0;
}

bool tool_chip_selected(const struct hws_sensors *s, const struct hws_chip *chip, char **patterns, int n)
{
	if (!n)
		return true;
	for (int i = 0; i < n; i++)
		if (hws_sensors_chip_match(s, chip, patterns[i]) > 0)
			return true;
	return false;
}
