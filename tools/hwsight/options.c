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

int tool_help_or_try_help(int c, const struct hws__cli_command *cmd)
{
	if (c == 'h') {
		hws__cli_usage(stdout, cmd);
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
