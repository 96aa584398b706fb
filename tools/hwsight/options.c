/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

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

int tool_help_or_usage_error(int c, void (*usage)(FILE *f))
{
	if (c == 'h') {
		usage(stdout);
		exit(0);
	}
	usage(stderr);
	return -EINVAL;
}

int tool_help_or_try_help(int c, const char *cmd, void (*usage)(FILE *f))
{
	if (c == 'h') {
		usage(stdout);
		return -1;
	}
	fprintf(stderr, "Try 'hwsight %s --help'.\n", cmd);
	return 2;
}
