/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * run: one command and what it cost.
 *
 * The CPU time is the child's user + system time from wait4(), which
 * covers every thread it ran (ffmpeg's included). Linux scales it from the
 * scheduler's nanosecond run time, so the sum is exact to the microsecond,
 * where /usr/bin/time's %U and %S are rounded to 10 ms: too coarse for a
 * short run under emulation. Only the split between user and system is
 * sampled on the tick; it is printed, not judged.
 *
 * With --slice S, the child's CPU clock (clock_getcpuclockid(): all its
 * threads, to the nanosecond) is also read every S seconds from --skip T
 * seconds after the start until it exits, and each complete slice is
 * printed as CPU:WALL microseconds. A capture tool streaming at a steady
 * frame rate spends in a slice what its frames cost, with its start-up
 * (skipped) and its teardown (after the last complete slice) left out;
 * and a median over many slices shrugs off a burst of load on the host,
 * which a difference between two whole runs cannot.
 *
 * Prints one line:
 *   cpu_us=N user_us=N sys_us=N wall_us=N [slices=CPU:WALL,...] status=N
 * status is the exit status, 128 + the signal for a killed child, 127 when
 * the command could not be started. The exit status of run itself is 0
 * whenever that line was printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

struct sample {
	long long wall_us;
	long long cpu_us;
};

static long long us_of(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

static long long clock_us(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return -1;
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int parse_seconds_us(const char *s, long long *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || v > 3600)
		return -1;
	*ret = (long long)(v * 1e6);
	return 0;
}

/*
 * Wait for @pid, reading its CPU clock on the slice grid meanwhile. A
 * pidfd wakes us when the child exits, so that the wait costs the child
 * nothing between samples; without one (a kernel before 5.3), naps of
 * 50 ms.
 */
static int wait_sampling(pid_t pid, long long t0, long long skip_us, long long slice_us, struct sample *samples,
			 size_t max_samples, size_t *ret_n, int *ret_status, struct rusage *ret_ru)
{
	int pidfd = slice_us ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	long long next = t0 + skip_us;
	clockid_t cpu_clock;
	bool can_sample = slice_us && clock_getcpuclockid(pid, &cpu_clock) == 0;
	size_t n = 0;

	for (;;) {
		pid_t r = wait4(pid, ret_status, can_sample ? WNOHANG : 0, ret_ru);
		long long now;

		if (r == pid)
			break;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (pidfd >= 0)
				close(pidfd);
			return -errno;
		}
		now = clock_us(CLOCK_MONOTONIC);
		if (now >= next) {
			long long cpu = clock_us(cpu_clock);

			if (cpu >= 0 && n < max_samples)
				samples[n++] = (struct sample){ now, cpu };
			while (next <= now)
				next += slice_us;
		}
		if (pidfd >= 0) {
			struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
			long long ms = (next - now + 999) / 1000;

			poll(&pfd, 1, ms > 60000 ? 60000 : (int)ms);
		} else {
			struct timespec nap = { 0, 50 * 1000 * 1000 };

			if (next - now < 50000)
				nap.tv_nsec = (long)(next - now) * 1000;
			nanosleep(&nap, NULL);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	*ret_n = n;
	return 0;
}

int bench_run(int argc, char **argv)
{
	enum { OPT_SLICE = 256, OPT_SKIP };
	static const struct option longopts[] = {
		{ "stdin", required_argument, NULL, 'i' },
		{ "stdout", required_argument, NULL, 'o' },
		{ "stderr", required_argument, NULL, 'e' },
		{ "slice", required_argument, NULL, OPT_SLICE },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{}
	};
	const char *in = "/dev/null", *out = "/dev/null", *err = "/dev/null";
	long long t0, wall, slice_us = 0, skip_us = 0;
	struct sample samples[4096];
	posix_spawn_file_actions_t fa;
	size_t n_samples = 0;
	struct rusage ru;
	int c, r, status;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'e': err = optarg; break;
		case OPT_SLICE:
		case OPT_SKIP:
			if (parse_seconds_us(optarg, c == OPT_SLICE ? &slice_us : &skip_us) < 0 ||
			    (c == OPT_SLICE && slice_us < 10000)) {
				fprintf(stderr, PROG " run: --%s takes seconds%s, not '%s'\n",
					c == OPT_SLICE ? "slice" : "skip", c == OPT_SLICE ? " (at least 0.01)" : "", optarg);
				return 2;
			}
			break;
		default:
			fputs("Usage: " PROG " run [--stdin F] [--stdout F] [--stderr F] [--slice S [--skip S]]"
			      " -- CMD [ARG...]\n", stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(PROG " run: no command given (run -- CMD [ARG...])\n", stderr);
		return 2;
	}

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, in, O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	t0 = clock_us(CLOCK_MONOTONIC);
	r = posix_spawnp(&pid, argv[optind], &fa, NULL, argv + optind, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r) {
		fprintf(stderr, PROG " run: cannot start %s: %s\n", argv[optind], strerror(r));
		printf("cpu_us=0 user_us=0 sys_us=0 wall_us=0 status=127\n");
		return 0;
	}
	r = wait_sampling(pid, t0, skip_us, slice_us, samples, sizeof(samples) / sizeof(samples[0]), &n_samples,
			  &status, &ru);
	if (r < 0) {
		fprintf(stderr, PROG " run: waiting for %s: %s\n", argv[optind], strerror(-r));
		return 1;
	}
	wall = clock_us(CLOCK_MONOTONIC) - t0;
	printf("cpu_us=%lld user_us=%lld sys_us=%lld wall_us=%lld", us_of(ru.ru_utime) + us_of(ru.ru_stime),
	       us_of(ru.ru_utime), us_of(ru.ru_stime), wall);
	if (slice_us) {
		printf(" slices=");
		for (size_t i = 1; i < n_samples; i++)
			printf("%s%lld:%lld", i > 1 ? "," : "", samples[i].cpu_us - samples[i - 1].cpu_us,
			       samples[i].wall_us - samples[i - 1].wall_us);
		if (n_samples < 2)
			putchar('-');
	}
	printf(" status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
