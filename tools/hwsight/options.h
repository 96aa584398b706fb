/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_TOOL_OPTIONS_H
#define HWSIGHT_TOOL_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include <hwsight/sensors.h>

#include "cli-util.h"

/* Option parsing helpers the subcommands share. */

/*
 * A command's option list: its own options, then --help, which every
 * command has, worded alike, and the end of the list.
 */
#define TOOL_OPTIONS(...)                                                     \
	((const struct hws__cli_option[]){ __VA_ARGS__, { "help", 'h', NULL, "show this help" }, { .name = NULL } })

/*
 * A whole decimal number from min to max, nothing before or after it.
 * Returns 0, or -EINVAL with *ret untouched.
 */
int tool_parse_long(const char *s, long min, long max, long *ret);

/*
 * The end of a getopt loop for the subcommands that answer an unknown
 * option with a pointer to their help (hws__cli_help_or_usage_error() shows
 * the whole help): returns -1 after -h (the command then exits 0),
 * else says "Try 'hwsight CMD --help'." and returns 2 (a usage error).
 */
int tool_help_or_try_help(int c, const struct hws__cli_command *cmd);

/*
 * Chip name patterns given on the command line (w83793-*, *-isa-*):
 * tool_check_chip_patterns() says which one does not parse, prefixed
 * "hwsight CMD", and returns -EINVAL; tool_chip_selected() is true when
 * @chip matches one, or when there is none.
 */
int tool_check_chip_patterns(const struct hws_sensors *s, const char *cmd, char **patterns, int n);
bool tool_chip_selected(const struct hws_sensors *s, const struct hws_chip *chip, char **patterns, int n);

#endif
