/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Syscall counts from strace -c -f: around a run of this program doing N
 * polls of one variant (minus a run doing none), or attached to a server
 * for N requests (minus the same time idle).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

static int strace_path(char *file, size_t size)
{
	const char *path = getenv("PATH");

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		snprintf(file, size, "%.*s/strace", (int)len, p);
		if (access(file, X_OK) == 0)
			return 0;
		p += len + (p[len] == ':');
	}
	return -ENOENT;
}

bool strace_available(void)
{
	char file[4096];

	return strace_path(file, sizeof(file)) == 0;
}

void strace_counts_clear(struct strace_counts *c)
{
	free(c->calls);
	*c = (struct strace_counts){ 0 };
}

/*
 * strace -c's summary, one line per call and a total:
 *  % time     seconds  usecs/call     calls    errors syscall
 *   42.00    0.000420           4       100           read
 *  100.00    0.001000           5       200        10 total
 */
static int parse(const char *file, struct strace_counts *ret)
{
	struct strace_counts c = { .total = -1 };
	bool empty = true;
	char line[512];
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		empty = false;
		char *tok[8], *save = NULL, *t;
		int n = 0;

		for (t = strtok_r(line, " \t\n", &save); t && n < 8; t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		if ((n != 5 && n != 6) || !strchr(tok[0], '.'))
			continue;
		if (!strcmp(tok[n - 1], "total")) {
			c.total = strtol(tok[3], NULL, 10);
			continue;
		}
		struct syscall_count *calls = realloc(c.calls, (c.n + 1) * sizeof(*calls));
		if (!calls) {
			fclose(f);
			strace_counts_clear(&c);
			return -ENOMEM;
		}
		c.calls = calls;
		snprintf(c.calls[c.n].name, sizeof(c.calls[c.n].name), "%s", tok[n - 1]);
		c.calls[c.n++].calls = strtod(tok[3], NULL);
	}
	fclose(f);
	/* A process that made no syscall at all (an idle server, all its
	 * threads blocked throughout) gets no summary, not even a header. */
	if (empty)
		c.total = 0;
	if (c.total < 0) {
		strace_counts_clear(&c);
		return -EPROTO;
	}
	*ret = c;
	return 0;
}

static int make_outfile(char *out, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(out, size, "%s/hwsight-bench-strace-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(out);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}

int strace_run(char *const argv[], struct strace_counts *ret)
{
	char file[4096], out[4096];
	char *args[64] = { file, "-f", "-c", "-qq", "-o", out, "--" };
	size_t n = 7;
	pid_t pid;
	int r, status;

	if (strace_path(file, sizeof(file)) < 0)
		return -ENOENT;
	for (size_t i = 0; argv[i] && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	r = make_outfile(out, sizeof(out));
	if (r < 0)
		return r;
	r = posix_spawn(&pid, file, NULL, NULL, args, environ);
	if (r) {
		unlink(out);
		return -r;
	}
	status = wait_status(pid);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		unlink(out);
		return status < 0 ? status : -EIO;
	}
	r = parse(out, ret);
	unlink(out);
	return r;
}

/* Is every thread of pid traced yet? */
static bool all_traced(pid_t pid)
{
	char path[320], line[256];
	struct dirent *de;
	bool all = true;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while (all && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue; /* a thread that just exited */
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "TracerPid:", 10)) {
				all = strtol(line + 10, NULL, 10) != 0;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return all;
}

int strace_attach(pid_t pid, pid_t *ret_tracer, char *outfile, size_t size)
{
	char file[4096], spid[32];
	char *args[] = { file, "-f", "-c", "-qq", "-o", outfile, "-p", spid, NULL };
	pid_t tracer;
	int r;

	if (strace_path(file, sizeof(file)) < 0)
		return -ENOENT;
	r = make_outfile(outfile, size);
	if (r < 0)
		return r;
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	r = posix_spawn(&tracer, file, NULL, NULL, args, environ);
	if (r) {
		unlink(outfile);
		return -r;
	}
	for (int i = 0; i < 3000 && !all_traced(pid); i++) {
		struct timespec ts = { 0, 10000000 };

		if (waitpid(tracer, NULL, WNOHANG) == tracer) {
			unlink(outfile);
			return -EPERM; /* ptrace refused */
		}
		nanosleep(&ts, NULL);
	}
	*ret_tracer = tracer;
	return 0;
}

int strace_detach(pid_t tracer, const char *outfile, struct strace_counts *ret)
{
	int r, status;

	kill(tracer, SIGINT);
	status = wait_status(tracer);
	r = status < 0 ? status : parse(outfile, ret);
	unlink(outfile);
	return r;
}

static int by_calls(const void *a, const void *b)
{
	const struct syscall_count *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->name, y->name);
}

void strace_per_poll(const struct strace_counts *run, const struct strace_counts *base,
		     unsigned long polls, struct variant_result *res)
{
	struct syscall_count *calls = calloc(run->n ? run->n : 1, sizeof(*calls));
	size_t n = 0;

	res->have_syscalls = true;
	res->syscalls = (double)(run->total - base->total) / polls;
	if (!calls)
		return;
	for (size_t i = 0; i < run->n; i++) {
		double b = 0;

		for (size_t j = 0; j < base->n; j++)
			if (!strcmp(base->calls[j].name, run->calls[i].name))
				b = base->calls[j].calls;
		/* Calls the polls do not make (start-up, exit) cancel out. */
		if (run->calls[i].calls - b <= 0)
			continue;
		calls[n] = run->calls[i];
		calls[n++].calls = (run->calls[i].calls - b) / polls;
	}
	qsort(calls, n, sizeof(*calls), by_calls);
	free(res->calls);
	res->calls = calls;
	res->n_calls = n;
}
