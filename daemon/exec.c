/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * [daemon] exec=: a command run through /bin/sh on every event, with the
 * event in its environment, as sensord and fswebcam run theirs. It is
 * started and never waited for here; the main loop reaps it on SIGCHLD.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "hwsightd.h"

extern char **environ;

/* A flapping sensor must not turn into a fork bomb. */
#define MAX_CHILDREN 8

void hwsd_exec(struct hwsd *d, const struct hwsd_event *ev)
{
	enum { MAX_VARS = 16 };
	char buf[2048], *vars[MAX_VARS], **envp;
	const char *cmd = d->config->exec;
	posix_spawnattr_t attr;
	sigset_t none, defaults;
	size_t n_env = 0;
	pid_t pid;
	int n, r;

	if (!cmd)
		return;
	if (atomic_fetch_add(&d->children, 1) >= MAX_CHILDREN) {
		atomic_fetch_sub(&d->children, 1);
		log_warning("exec: %d commands still running; not running it for this %s event",
			    MAX_CHILDREN, ev->event);
		return;
	}
	n = hwsd_event_env(ev, buf, sizeof(buf), vars, MAX_VARS);
	while (environ[n_env])
		n_env++;
	envp = calloc(n_env + (size_t)n + 1, sizeof(*envp));
	if (!envp) {
		atomic_fetch_sub(&d->children, 1);
		log_error("exec: out of memory");
		return;
	}
	/* Ours first: getenv() takes the first of two same names. */
	memcpy(envp, vars, (size_t)n * sizeof(*envp));
	memcpy(envp + n, environ, n_env * sizeof(*envp));

	/* Our threads block every signal we handle; the command must not
	 * inherit that, nor our ignored SIGPIPE. */
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	r = posix_spawn(&pid, "/bin/sh", NULL, &attr,
			(char *[]){ "sh", "-c", (char *)cmd, NULL }, envp);
	posix_spawnattr_destroy(&attr);
	free(envp);
	if (r) {
		atomic_fetch_sub(&d->children, 1);
		log_error("exec: cannot run /bin/sh: %s", strerror(r));
		return;
	}
	log_debug("exec: started %d for %s", (int)pid, ev->event);
}

void hwsd_exec_reap(struct hwsd *d)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		atomic_fetch_sub(&d->children, 1);
		if (WIFEXITED(status) && WEXITSTATUS(status))
			log_warning("exec: command %d exited with status %d", (int)pid, WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			log_warning("exec: command %d killed by signal %d", (int)pid, WTERMSIG(status));
	}
}
