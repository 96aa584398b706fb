/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_EXEC_H
#define HWSD_EXEC_H

/*
 * [daemon] exec=: a command for every event (exec.c says how its
 * children are reaped). It subscribes to the event sink.
 */

#include <stdatomic.h>
#include <sys/types.h>

struct hwsd_subscriber;

/* exec= commands running at once: a flapping sensor must not fork-bomb. */
#define HWSD_EXEC_MAX 8

struct hwsd_exec {
	/* The command, or NULL; changed only while no producer of events
	 * runs (at the start, and by a reload with the jobs stopped). */
	const char *command;
	/* The commands running, by pid; 0 is a free slot, -1 one being
	 * filled or looked at (exec.c says why). */
	_Atomic(pid_t) pids[HWSD_EXEC_MAX];
};

/* Run the command for an event; never waits. Userdata: the struct hwsd_exec. */
extern const struct hwsd_subscriber hwsd_exec_subscriber;
/* On SIGCHLD, in the main loop: reap the commands that ended. */
void hwsd_exec_reap(struct hwsd_exec *x);

#endif
