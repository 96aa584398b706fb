/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_TOOL_INTERRUPT_H
#define HWSIGHT_TOOL_INTERRUPT_H

#include <stdbool.h>

/*
 * How a subcommand that loops (sensors --watch, motion, capture) stops on
 * Ctrl-C or SIGTERM: the signal only sets a flag, and the loop ends at its
 * next check, so that the last output line is whole and the exit status
 * says what happened.
 */

/*
 * Catches SIGINT and SIGTERM from now on. Without SA_RESTART: a blocking
 * call (poll, nanosleep, the motion wait) returns EINTR at once instead of
 * finishing its wait.
 */
void tool_catch_interrupts(void);

/* Whether SIGINT or SIGTERM came since tool_catch_interrupts(). */
bool tool_interrupted(void);

#endif
