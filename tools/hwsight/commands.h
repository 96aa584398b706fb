/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_TOOL_COMMANDS_H
#define HWSIGHT_TOOL_COMMANDS_H

/*
 * One function per subcommand, in a file named for it. Each gets its own
 * argv (argv[0] is the subcommand's name, for getopt's messages), returns
 * the process exit status and prints its own errors, prefixed "hwsight".
 */
int hws_cmd_sensors(int argc, char **argv);
int hws_cmd_detect(int argc, char **argv);
int hws_cmd_motion(int argc, char **argv);
int hws_cmd_cameras(int argc, char **argv);
int hws_cmd_capture(int argc, char **argv);
int hws_cmd_fans(int argc, char **argv);

#endif
