/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rrdtool, RRD's own program, run as a child for everything the history
 * does to its files: create, info and update (history.c), fetch and graph
 * (history-graph.c). The daemon does not link librrd: librrd brings
 * cairo, pango, glib and their fonts into every process that maps it
 * (some 12 MiB of a daemon that otherwise needs 3), though an update
 * needs none of them; a child that draws or writes for some milliseconds
 * and exits holds them only while it runs.
 *
 * The child. It is started with posix_spawn() (child.c), gets /dev/null
 * for stdin, a pipe for stdout and one for stderr (the first line says
 * why it failed), no other descriptor, the default signal mask and
 * SIGPIPE, and an environment of its own (child_env()). It has until the
 * deadline to end and may write @max bytes; past either it is killed. It
 * is waited for by its pid, as exec.c waits for its commands by theirs,
 * so neither takes the other's exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "time-util.h"

#include "child.h"
#include "history-internal.h"
#include "log.h"

extern char **environ;

void hwsd_history__nap_ms(unsigned ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 }, NULL);
}

/*
 * What the child sees of our environment: the C locale the daemon has
 * always drawn in (figures with a '.', dates in English), with text in
 * UTF-8; and where the time zone and the fonts are, nothing else (no
 * LD_PRELOAD, no RRDCACHED_ADDRESS). @envp has room for
 * N_PASSED_ENV + 2 entries.
 */
static const char *const passed_env[] = {
	"TZ", "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS",
	"FONTCONFIG_FILE", "FONTCONFIG_PATH",
};

#define N_PASSED_ENV (sizeof(passed_env) / sizeof(passed_env[0]))

static void child_env(char **envp)
{
	size_t n = 0;

	envp[n++] = "LC_ALL=C.UTF-8";
	for (size_t i = 0; i < N_PASSED_ENV; i++) {
		size_t len = strlen(passed_env[i]);

		for (char **e = environ; *e; e++)
			if (!strncmp(*e, passed_env[i], len) && (*e)[len] == '=') {
				envp[n++] = *e;
				break;
			}
	}
	envp[n] = NULL;
}

/* Room for a read of stdout, and for one byte over @max to be seen. */
static int output_grow(struct history_output *o, size_t max)
{
	size_t size = o->size ? 2 * o->size : 64 * 1024;
	char *data;

	if (size > max + 1)
		size = max + 1;
	data = realloc(o->data, size + 1);
	if (!data)
		return -ENOMEM;
	o->data = data;
	o->size = size;
	return 0;
}

/*
 * Read the child's stdout and stderr until both are closed. Return: 0,
 * -ETIMEDOUT at @deadline, -EFBIG past @max bytes of stdout, -ENOMEM or
 * another negative errno.
 */
static int child_read(int out_fd, int err_fd, uint64_t deadline, size_t max, struct history_output *o)
{
	struct pollfd p[2] = { { .fd = out_fd, .events = POLLIN }, { .fd = err_fd, .events = POLLIN } };

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		uint64_t now = hws__now_ms();
		char buf[1024];
		ssize_t n;
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(p, 2, deadline - now > INT_MAX ? INT_MAX : (int)(deadline - now));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		if (p[0].revents) {
			if (o->len == o->size && output_grow(o, max) < 0)
				return -ENOMEM;
			n = read(p[0].fd, o->data + o->len, o->size - o->len);
			if (n < 0 && errno != EINTR)
				return -errno;
			if (n == 0)
				p[0].fd = -1;   /* poll() passes over it */
			o->len += n > 0 ? (size_t)n : 0;
			if (o->len > max)
				return -EFBIG;
		}
		if (p[1].revents) {
			n = read(p[1].fd, buf, sizeof(buf));
			if (n < 0 && errno != EINTR)
				return -errno;
			if (n == 0)
				p[1].fd = -1;
			for (ssize_t i = 0; i < n && o->err_len < sizeof(o->err) - 1; i++)
				o->err[o->err_len++] = buf[i];
			o->err[o->err_len] = '\0';
		}
	}
	if (o->data)
		o->data[o->len] = '\0';     /* output_grow() leaves room */
	return 0;
}

/*
 * Wait for the child @pid, killed first if @kill_it, or if it is still
 * there at @deadline with its output closed. Return: 0, -ETIMEDOUT if it
 * was killed for the deadline, or a negative errno.
 */
static int child_wait(pid_t pid, bool kill_it, uint64_t deadline, int *ret_status)
{
	unsigned nap = 1;
	int r = 0;

	if (kill_it)
		kill(pid, SIGKILL);
	for (;;) {
		pid_t w = waitpid(pid, ret_status, kill_it ? 0 : WNOHANG);

		if (w == pid)
			return r;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (w == 0 && hws__now_ms() >= deadline) {
			kill(pid, SIGKILL);
			kill_it = true;
			r = -ETIMEDOUT;
		} else if (w == 0) {
			hwsd_history__nap_ms(nap);
			nap = nap < 32 ? 2 * nap : nap;
		}
	}
}

void hwsd_history__output_reset(struct history_output *o)
{
	o->len = o->err_len = 0;
	o->err[0] = o->why[0] = '\0';
}

int hwsd_history__rrdtool(const struct hwsd_history *h, char **argv, uint64_t deadline, size_t max,
			  struct history_output *o)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, status = 0, r, w;
	char *envp[N_PASSED_ENV + 2], *nl;
	posix_spawn_file_actions_t fa;
	pid_t pid;

	hwsd_history__output_reset(o);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(o->why, sizeof(o->why), "cannot make a pipe: %s", strerror(-r));
		goto out;
	}
	child_env(envp);
	posix_spawn_file_actions_init(&fa);
	r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (!r)
		r = posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	if (!r)
		r = posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
	if (!r)
		r = hwsd_spawn(&pid, h->rrdtool, &fa, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	out[1] = err[1] = -1;
	if (r) {
		snprintf(o->why, sizeof(o->why), "cannot run %s: %s", h->rrdtool, strerror(r));
		r = r == ENOMEM ? -ENOMEM : -EIO;
		goto out;
	}
	r = child_read(out[0], err[0], deadline, max, o);
	close(out[0]);
	close(err[0]);
	out[0] = err[0] = -1;
	w = child_wait(pid, r < 0, deadline, &status);
	if (r >= 0)
		r = w;
	nl = strchr(o->err, '\n');
	if (nl)
		*nl = '\0';
	if (r == -ETIMEDOUT)
		snprintf(o->why, sizeof(o->why), "rrdtool %s took too long; killed it", argv[1]);
	else if (r == -EFBIG)
		snprintf(o->why, sizeof(o->why), "rrdtool wrote over %zu bytes; killed it", max);
	else if (r < 0)
		snprintf(o->why, sizeof(o->why), "reading rrdtool: %s", strerror(-r));
	else if (WIFSIGNALED(status) || WEXITSTATUS(status)) {
		r = strstr(o->err, "could not lock RRD") ? -EBUSY : -EIO;
		if (WIFSIGNALED(status))
			snprintf(o->why, sizeof(o->why), "rrdtool killed by signal %d", WTERMSIG(status));
		else
			snprintf(o->why, sizeof(o->why), "rrdtool %s failed (status %d): %s", argv[1],
				 WEXITSTATUS(status), *o->err ? o->err : "no reason given");
	}
	if (r >= 0 && *o->err)
		log_debug("history: rrdtool said: %s", o->err);
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return r;
}

int hwsd_history__rrdtool_retry(const struct hwsd_history *h, char **argv, uint64_t deadline,
				size_t max, struct history_output *o)
{
	int r;

	for (unsigned i = 1;; i++) {
		unsigned wait = 10u << (i - 1);

		r = hwsd_history__rrdtool(h, argv, deadline, max, o);
		if (r != -EBUSY || i == HISTORY_LOCK_TRIES || hws__now_ms() + wait >= deadline)
			return r;
		log_debug("history: %s; again in %u ms", o->why, wait);
		hwsd_history__nap_ms(wait);
	}
}
