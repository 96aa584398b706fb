/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * [daemon] exec=: a command run through /bin/sh on every event, with the
 * event in its environment, as sensord and fswebcam run theirs. It is
 * started and never waited for here; the main loop reaps it on SIGCHLD.
 *
 * Reaping. The commands are not the daemon's only children: rrdtool writes
 * the history and draws its graphs (history-rrdtool.c) and is waited for
 * by its pid on the thread that ran it (the poll queue, an HTTP thread,
 * the main thread). A command is therefore waited for by its pid too, never with
 * waitpid(-1), which would take rrdtool's exit status from under the
 * graph (and leave it ECHILD). The pids are kept in x->pids, a slot
 * per command that may run. Commands are started on the poll and motion
 * queues while the main thread reaps, so a slot changes hands by
 * compare-and-swap alone: whoever turns it to SLOT_BUSY owns it until it
 * stores a value back. Only a slot's owner waits for its pid, and a pid
 * leaves its slot only once reaped, so no pid is waited for twice, nor
 * after it may have been given to another process. A command may end,
 * and the main loop handle its SIGCHLD, before its pid is in its slot:
 * the thread that started it looks once more after storing the pid.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "child.h"
#include "events.h"
#include "exec.h"
#include "log.h"

extern char **environ;

enum { SLOT_FREE = 0, SLOT_BUSY = -1 };

/* Reap the command in @slot if it has ended; any thread. */
static void reap_slot(_Atomic(pid_t) *slot)
{
	pid_t pid = atomic_load(slot), w;
	int status = 0;

	if (pid <= 0 || !atomic_compare_exchange_strong(slot, &pid, SLOT_BUSY))
		return;
	do
		w = waitpid(pid, &status, WNOHANG);
	while (w < 0 && errno == EINTR);
	if (w == 0) {
		atomic_store(slot, pid);        /* still running */
		return;
	}
	if (w < 0)
		log_error("exec: cannot wait for command %d: %s", (int)pid, strerror(errno));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		log_warning("exec: command %d exited with status %d", (int)pid, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		log_warning("exec: command %d killed by signal %d", (int)pid, WTERMSIG(status));
	atomic_store(slot, SLOT_FREE);
}

/* A free slot, now SLOT_BUSY, or NULL if HWSD_EXEC_MAX commands run. */
static _Atomic(pid_t) *slot_claim(struct hwsd_exec *x)
{
	for (size_t i = 0; i < HWSD_EXEC_MAX; i++) {
		pid_t expected = SLOT_FREE;

		if (atomic_compare_exchange_strong(&x->pids[i], &expected, SLOT_BUSY))
			return &x->pids[i];
	}
	return NULL;
}

static void exec_event(void *userdata, const struct hwsd_event *ev)
{
	enum { MAX_VARS = 16 };
	char buf[2048], *vars[MAX_VARS], **envp;
	struct hwsd_exec *x = userdata;
	const char *cmd = x->command;
	_Atomic(pid_t) *slot;
	size_t n_env = 0;
	pid_t pid;
	int n, r;

	if (!cmd)
		return;
	slot = slot_claim(x);
	if (!slot) {
		log_warning("exec: %d commands still running; not running it for this %s event",
			    HWSD_EXEC_MAX, ev->event);
		return;
	}
	n = hwsd_event_env(ev, buf, sizeof(buf), vars, MAX_VARS);
	while (environ[n_env])
		n_env++;
	envp = calloc(n_env + (size_t)n + 1, sizeof(*envp));
	if (!envp) {
		atomic_store(slot, SLOT_FREE);
		log_error("exec: out of memory");
		return;
	}
	/* Ours first: getenv() takes the first of two same names. */
	memcpy(envp, vars, (size_t)n * sizeof(*envp));
	memcpy(envp + n, environ, n_env * sizeof(*envp));

	r = hwsd_spawn(&pid, "/bin/sh", NULL, (char *[]){ "sh", "-c", (char *)cmd, NULL }, envp);
	free(envp);
	if (r) {
		atomic_store(slot, SLOT_FREE);
		log_error("exec: cannot run /bin/sh: %s", strerror(r));
		return;
	}
	log_debug("exec: started %d for %s", (int)pid, ev->event);
	atomic_store(slot, pid);
	reap_slot(slot);
}

/* The command runs for every event. */
static bool exec_wants(void *userdata, const char *event)
{
	const struct hwsd_exec *x = userdata;

	(void)event;
	return x->command != NULL;
}

const struct hwsd_subscriber hwsd_exec_subscriber = { .event = exec_event, .wants = exec_wants };

void hwsd_exec_reap(struct hwsd_exec *x)
{
	for (size_t i = 0; i < HWSD_EXEC_MAX; i++)
		reap_slot(&x->pids[i]);
}
