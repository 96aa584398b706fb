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
 *
 * A burst writes every chip's file through one child, "rrdtool -"
 * (rrdtool's remote mode), started in the history directory: each
 * command is a line on its stdin, and its answer, on stdout, ends with a
 * line "OK ..." or "ERROR: why". One child for all the chips, rather than
 * one per chip and command, because under emulation (the lab) or on a
 * slow machine starting rrdtool takes a second or more, and a burst's
 * writes would spread over many seconds instead of one spin-up of the
 * disk. A command's failure ends that command only; a child that dies,
 * hangs or floods is killed, and the next command starts another.
 */
#include <assert.h>
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

#include "io-util.h"
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

static void close_pair(int fd[2])
{
	fd[0] = hws__safe_close(fd[0]);
	fd[1] = hws__safe_close(fd[1]);
}

/*
 * Start h->rrdtool with @argv: @in_fd as its stdin (-1: /dev/null), in
 * @cwd (NULL: ours), the read ends of its stdout and stderr pipes in
 * @out[0] and @err[0] (all -1 on failure). Return: 0, -ENOMEM or -EIO,
 * with o->why saying why.
 */
static int child_start(const struct hwsd_history *h, char **argv, int in_fd, const char *cwd,
		       pid_t *ret_pid, int out[2], int err[2], struct history_output *o)
{
	char *envp[N_PASSED_ENV + 2];
	posix_spawn_file_actions_t fa;
	int r;

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(o->why, sizeof(o->why), "cannot make a pipe: %s", strerror(-r));
		close_pair(out);
		close_pair(err);
		return r;
	}
	child_env(envp);
	posix_spawn_file_actions_init(&fa);
	if (in_fd >= 0)
		r = posix_spawn_file_actions_adddup2(&fa, in_fd, STDIN_FILENO);
	else
		r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (!r)
		r = posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	if (!r)
		r = posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
	if (!r && cwd)
		r = posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (!r)
		r = hwsd_spawn(ret_pid, h->rrdtool, &fa, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	out[1] = err[1] = -1;
	if (r) {
		snprintf(o->why, sizeof(o->why), "cannot run %s: %s", h->rrdtool, strerror(r));
		close_pair(out);
		close_pair(err);
		return r == ENOMEM ? -ENOMEM : -EIO;
	}
	return 0;
}

/* The first line of what rrdtool said, as the reason of a failure: -EBUSY
 * if it found a file locked, -EIO otherwise. */
static int rrdtool_refused(struct history_output *o)
{
	char *nl = strchr(o->err, '\n');

	if (nl)
		*nl = '\0';
	return strstr(o->err, "could not lock RRD") ? -EBUSY : -EIO;
}

/* One command, one child: its answer is all of its stdout. */
static int run_once(const struct hwsd_history *h, char **argv, uint64_t deadline, size_t max,
		    struct history_output *o)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, status = 0, r, w;
	pid_t pid;

	r = child_start(h, argv, -1, NULL, &pid, out, err, o);
	if (r < 0)
		return r;
	r = child_read(out[0], err[0], deadline, max, o);
	close_pair(out);
	close_pair(err);
	w = child_wait(pid, r < 0, deadline, &status);
	if (r >= 0)
		r = w;
	if (r == -ETIMEDOUT)
		snprintf(o->why, sizeof(o->why), "rrdtool %s took too long; killed it", argv[1]);
	else if (r == -EFBIG)
		snprintf(o->why, sizeof(o->why), "rrdtool wrote over %zu bytes; killed it", max);
	else if (r < 0)
		snprintf(o->why, sizeof(o->why), "reading rrdtool: %s", strerror(-r));
	else if (WIFSIGNALED(status) || WEXITSTATUS(status)) {
		r = rrdtool_refused(o);
		if (WIFSIGNALED(status))
			snprintf(o->why, sizeof(o->why), "rrdtool killed by signal %d", WTERMSIG(status));
		else
			snprintf(o->why, sizeof(o->why), "rrdtool %s failed (status %d): %s", argv[1],
				 WEXITSTATUS(status), *o->err ? o->err : "no reason given");
	}
	if (r >= 0 && *o->err)
		log_debug("history: rrdtool said: %s", o->err);
	return r;
}

/* Start "rrdtool -" in the history directory. */
static int session_start(struct history_session *s, struct history_output *o)
{
	char *argv[] = { "rrdtool", "-", NULL };
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 }, r;

	if (pipe2(in, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(o->why, sizeof(o->why), "cannot make a pipe: %s", strerror(-r));
		return r;
	}
	r = child_start(s->h, argv, in[0], s->h->dir, &s->pid, out, err, o);
	close(in[0]);
	if (r < 0) {
		close(in[1]);
		return r;
	}
	s->in = in[1];
	s->out = out[0];
	s->err = err[0];
	/* Written between reads: a long command must not block us while
	 * rrdtool waits for us to read. */
	if (fcntl(s->in, F_SETFL, O_NONBLOCK) < 0) {
		r = -errno;
		snprintf(o->why, sizeof(o->why), "cannot make rrdtool's input non-blocking: %s", strerror(-r));
		hwsd_history__session_end(s, true);
		return r;
	}
	return 0;
}

void hwsd_history__session_end(struct history_session *s, bool kill_it)
{
	int status;

	if (s->pid <= 0)
		return;
	/* At the end of its stdin rrdtool exits. */
	close(s->in);
	child_wait(s->pid, kill_it, hws__now_ms() + HISTORY_WRITE_TIMEOUT_MS, &status);
	close(s->out);
	close(s->err);
	s->pid = 0;
	s->in = s->out = s->err = -1;
}

/*
 * "OK ..." or "ERROR: why" at the start of the line at @line in @o's
 * output: the end of the answer. Return: 1 if it is one (0 or a negative
 * errno in @ret), 0 if not.
 */
static int answer_end(struct history_output *o, size_t line, int *ret)
{
	const char *l = o->data + line;

	if (!strncmp(l, "OK", 2) && (l[2] == ' ' || l[2] == '\n')) {
		*ret = 0;
	} else if (!strncmp(l, "ERROR: ", 7)) {
		size_t n = strcspn(l + 7, "\n");

		if (n >= sizeof(o->err))
			n = sizeof(o->err) - 1;
		memcpy(o->err, l + 7, n);
		o->err[n] = '\0';
		o->err_len = n;
		*ret = rrdtool_refused(o);
		snprintf(o->why, sizeof(o->why), "rrdtool %s failed: %s", o->command, o->err);
	} else {
		return 0;
	}
	o->len = line;
	o->data[line] = '\0';
	return 1;
}

/*
 * Send @line to the session's rrdtool and read its answer into @o.
 * Return: its result; -ETIMEDOUT, -EFBIG or -EIO (the child gone) with
 * the session ended, for the next command to start another.
 */
static int session_talk(struct history_session *s, const char *line, size_t len, uint64_t deadline,
			size_t max, struct history_output *o)
{
	size_t sent = 0, scanned = 0;
	int r = 1;

	while (r > 0) {
		struct pollfd p[3] = {
			{ .fd = sent < len ? s->in : -1, .events = POLLOUT },
			{ .fd = s->out, .events = POLLIN },
			{ .fd = s->err, .events = POLLIN },
		};
		uint64_t now = hws__now_ms();
		ssize_t n;

		if (now >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		n = poll(p, 3, deadline - now > INT_MAX ? INT_MAX : (int)(deadline - now));
		if (n < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (n <= 0)
			continue;
		if (p[0].revents) {
			n = write(s->in, line + sent, len - sent);
			if (n < 0 && errno != EINTR && errno != EAGAIN) {
				r = -EIO;       /* EPIPE: it is gone */
				break;
			}
			sent += n > 0 ? (size_t)n : 0;
		}
		if (p[2].revents) {
			char buf[512];

			/* What it says there is not the answer: kept for the log. */
			n = read(s->err, buf, sizeof(buf) - 1);
			if (n > 0) {
				buf[n] = '\0';
				log_debug("history: rrdtool said: %s", buf);
			}
		}
		if (!p[1].revents)
			continue;
		if (o->len == o->size && output_grow(o, max) < 0) {
			r = -ENOMEM;
			break;
		}
		n = read(s->out, o->data + o->len, o->size - o->len);
		if (n < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (n == 0) {
			r = -EIO;
			break;
		}
		o->len += n > 0 ? (size_t)n : 0;
		o->data[o->len] = '\0';         /* output_grow() leaves room */
		for (char *nl; (nl = memchr(o->data + scanned, '\n', o->len - scanned));
		     scanned = (size_t)(nl - o->data) + 1)
			if (answer_end(o, scanned, &r))
				return r;
		if (o->len > max)
			r = -EFBIG;
	}
	if (r == -ETIMEDOUT)
		snprintf(o->why, sizeof(o->why), "rrdtool %s took too long; killed it", o->command);
	else if (r == -EFBIG)
		snprintf(o->why, sizeof(o->why), "rrdtool wrote over %zu bytes; killed it", max);
	else
		snprintf(o->why, sizeof(o->why), "rrdtool ended before it answered %s (%s)", o->command,
			 strerror(-r));
	hwsd_history__session_end(s, true);
	return r;
}

/* @argv as a command line of "rrdtool -", the file named by its base
 * name (rrdtool runs in the history directory). */
static int session_line(const struct history_session *s, char **argv, char **ret_line, size_t *ret_len)
{
	size_t dir_len = strlen(s->h->dir), len = 0;
	char *line = NULL;
	FILE *f = open_memstream(&line, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 1; argv[i]; i++) {
		const char *arg = argv[i];

		if (!strncmp(arg, s->h->dir, dir_len) && arg[dir_len] == '/')
			arg += dir_len + 1;
		/* rrdtool splits a line at spaces and takes quotes; none of
		 * ours has either. */
		assert(*arg && !strpbrk(arg, " '\"\n"));
		fprintf(f, "%s%s", i > 1 ? " " : "", arg);
	}
	fputc('\n', f);
	if (fclose(f) != 0) {
		free(line);
		return -ENOMEM;
	}
	*ret_line = line;
	*ret_len = len;
	return 0;
}

static int run_in_session(struct history_session *s, char **argv, uint64_t deadline, size_t max,
			  struct history_output *o)
{
	size_t len;
	char *line;
	int r;

	if (s->pid <= 0) {
		r = session_start(s, o);
		if (r < 0)
			return r;
	}
	r = session_line(s, argv, &line, &len);
	if (r < 0)
		return r;
	r = session_talk(s, line, len, deadline, max, o);
	free(line);
	if (r >= 0 && o->data)
		o->data[o->len] = '\0';
	return r;
}

int hwsd_history__rrdtool(const struct hwsd_history *h, struct history_session *s, char **argv,
			  uint64_t deadline, size_t max, struct history_output *o)
{
	hwsd_history__output_reset(o);
	snprintf(o->command, sizeof(o->command), "%s", argv[1]);
	return s ? run_in_session(s, argv, deadline, max, o) : run_once(h, argv, deadline, max, o);
}

int hwsd_history__rrdtool_retry(const struct hwsd_history *h, struct history_session *s, char **argv,
				uint64_t deadline, size_t max, struct history_output *o)
{
	int r;

	for (unsigned i = 1;; i++) {
		unsigned wait = 10u << (i - 1);

		r = hwsd_history__rrdtool(h, s, argv, deadline, max, o);
		if (r != -EBUSY || i == HISTORY_LOCK_TRIES || hws__now_ms() + wait >= deadline)
			return r;
		log_debug("history: %s; again in %u ms", o->why, wait);
		hwsd_history__nap_ms(wait);
	}
}
