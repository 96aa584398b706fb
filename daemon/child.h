/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_CHILD_H
#define HWSD_CHILD_H

#include <spawn.h>
#include <sys/types.h>

/*
 * hwsd_spawn - posix_spawn() a child of the daemon
 * The child gets the default signal mask and SIGPIPE (the daemon's
 * threads block the signals it handles and ignore SIGPIPE) and no
 * descriptor beyond stderr: a library may open a file without O_CLOEXEC,
 * and a command must not hold an RRD file, a socket or a device open. @fa,
 * which may be NULL, is what the child's stdin, stdout and stderr become.
 * Return: 0 or a positive errno, as posix_spawn().
 */
int hwsd_spawn(pid_t *pid, const char *path, posix_spawn_file_actions_t *fa, char *const argv[],
	       char *const envp[]);

#endif
