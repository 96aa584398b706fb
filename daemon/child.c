/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's children (exec= commands, rrdtool) are started with
 * posix_spawn(), never fork(): a child forked from a process with threads
 * may run only async-signal-safe code until it execs.
 */
#include <signal.h>
#include <unistd.h>

#include "child.h"

int hwsd_spawn(pid_t *pid, const char *path, posix_spawn_file_actions_t *fa, char *const argv[],
	       char *const envp[])
{
	posix_spawn_file_actions_t own;
	posix_spawnattr_t attr;
	sigset_t none, defaults;
	int r;

	if (!fa) {
		posix_spawn_file_actions_init(&own);
		fa = &own;
	}
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	posix_spawnattr_init(&attr);
	r = posix_spawn_file_actions_addclosefrom_np(fa, STDERR_FILENO + 1);
	if (!r)
		r = posix_spawnattr_setsigmask(&attr, &none);
	if (!r)
		r = posix_spawnattr_setsigdefault(&attr, &defaults);
	if (!r)
		r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (!r)
		r = posix_spawn(pid, path, fa, &attr, argv, envp);
	posix_spawnattr_destroy(&attr);
	if (fa == &own)
		posix_spawn_file_actions_destroy(&own);
	return r;
}
