/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight: the command-line face of libhwsight. This file only picks the
 * subcommand; each one lives in its own file.
 */
#include <stdio.h>
#include <string.h>

#include <hwsight/version.h>

#include "commands.h"

#define HWSIGHT_COMMANDS(X) \
	X(sensors, "read every hardware monitor chip, like sensors(1)") \
	X(detect, "identify monitor chips on I2C buses, read-only") \
	X(motion, "accelerometer readings, orientation and motion events") \
	X(cameras, "list V4L2 cameras and their 300 Hz-friendly modes") \
	X(capture, "capture frames, paced on the 300 Hz grid") \
	X(fans, "list fan outputs; --calibrate finds a fan's stop and start duty")

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
#define X(name, help) { #name, hws_cmd_##name, help },
	HWSIGHT_COMMANDS(X)
#undef X
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: hwsight COMMAND [OPTION...]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nRun 'hwsight COMMAND --help' for a command's options, 'hwsight --version' for\n"
		"the version; see hwsight(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hwsight %s (libhwsight %s)\n", HWS_VERSION_STRING, hws_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "hwsight: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
