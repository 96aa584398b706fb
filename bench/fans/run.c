/*
 * hwsight-bench-fans-run -s SETTLE -w WINDOW [-R TEXT] [-p PIDFILE] -- COMMAND [ARG...]
 *
 * Runs COMMAND, lets it settle, measures it for WINDOW seconds, stops it
 * with SIGTERM and prints one line:
 *   "cpu_ticks=... clk_tck=... task_clock_ns=... ctx=... window_us=... status=..."
 * cpu_ticks: utime + stime + cutime + cstime of COMMAND's process over the
 * window (/proc/PID/stat), so the children it ran and reaped count too;
 * task_clock_ns and ctx: the kernel's task-clock and context-switch
 * software counters, opened on COMMAND before it execs with inherit set,
 * so that every descendant counts once it has exited. A controller
 * written in bash (fancontrol) spends much of its cost in short-lived
 * children, whose context switches /proc shows only while they live.
 *
 * SETTLE counts from the start, or with -R from the first time TEXT
 * appears in the command's output (stdout and stderr, passed on to our
 * stderr), so that a start whose length depends on the host's load
 * (fancontrol's takes 7 to 35 s under TCG) stays out of the window. -p
 * writes the command's pid when the window opens. The command gets SIGKILL
 * if it is still there 10 s after SIGTERM. Exit status 0 when the command
 * ran its time and was stopped, 1 otherwise (it ended early, TEXT did not
 * come within 120 s, or the counters could not be opened).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#define READY_LIMIT_US (120 * 1000000LL)

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* A software counter on pid and, once they exit, its descendants. */
static int open_counter(pid_t pid, unsigned long long config)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
		.inherit = 1,
		.exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static long long read_counter(int fd)
{
	unsigned long long v = 0;

	return read(fd, &v, sizeof(v)) == sizeof(v) ? (long long)v : -1;
}

/* utime + stime + cutime + cstime of pid, in clock ticks. */
static long long proc_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long f[4];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* Fields after the parenthesised comm: state is field 3, utime 14. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &f[0], &f[1], &f[2], &f[3]) != 4)
		return -1;
	return (long long)(f[0] + f[1] + f[2] + f[3]);
}

static void write_pidfile(const char *path, pid_t pid)
{
	FILE *fp;

	if (!path)
		return;
	fp = fopen(path, "we");
	if (fp) {
		fprintf(fp, "%d\n", (int)pid);
		fclose(fp);
	}
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s -s SETTLE -w WINDOW [-R TEXT] [-p PIDFILE] -- COMMAND [ARG...]\n", argv0);
}

int main(int argc, char **argv)
{
	double settle = -1, window = -1;
	const char *pidfile = NULL, *ready = NULL;
	char tail[512] = "";
	struct rusage ru;
	long long t0, ready_at = 0, open_at = 0, close_at = 0, kill_at = 0;
	long long ticks0 = 0, ticks1 = 0, clock0 = 0, clock1 = 0, ctx0 = 0, ctx1 = 0;
	int opt, status = 0, fds[2], go[2], out_open = 1, early = 0, fd_clock, fd_ctx;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+s:w:R:p:")) != -1) {
		switch (opt) {
		case 's':
			settle = strtod(optarg, NULL);
			break;
		case 'w':
			window = strtod(optarg, NULL);
			break;
		case 'R':
			ready = optarg;
			break;
		case 'p':
			pidfile = optarg;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (settle < 0 || window <= 0 || optind >= argc || (ready && strlen(ready) >= sizeof(tail) / 2)) {
		usage(argv[0]);
		return 2;
	}
	if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
		perror("pipe2");
		return 1;
	}

	t0 = now_us();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		char c;

		/* Wait for the counters, then exec. Our stdout is the
		 * result line alone. */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "%s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	close(go[0]);
	fd_clock = open_counter(pid, PERF_COUNT_SW_TASK_CLOCK);
	fd_ctx = open_counter(pid, PERF_COUNT_SW_CONTEXT_SWITCHES);
	if (fd_clock < 0 || fd_ctx < 0) {
		fprintf(stderr, "perf_event_open: %s (root, or kernel.perf_event_paranoid <= 1, is needed)\n",
			strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	if (write(go[1], "g", 1) != 1)
		return 1;
	close(go[1]);
	if (!ready)
		ready_at = t0;

	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		long long now;

		if (out_open && poll(&pfd, 1, 20) > 0) {
			char buf[4096];
			ssize_t n = read(fds[0], buf, sizeof(buf));

			if (n <= 0) {
				out_open = 0;
			} else {
				size_t keep = strlen(tail), add = (size_t)n;
				ssize_t w = write(STDERR_FILENO, buf, n);

				(void)w; /* a lost copy of its output does not stop the run */
				/* Search the last bytes seen plus the new ones. */
				if (keep + add >= sizeof(tail)) {
					size_t drop = keep + add - (sizeof(tail) - 1);

					if (drop >= keep) {
						memcpy(tail, buf + add - (sizeof(tail) - 1), sizeof(tail) - 1);
						tail[sizeof(tail) - 1] = '\0';
						keep = add = 0;
					} else {
						memmove(tail, tail + drop, keep - drop + 1);
						keep -= drop;
					}
				}
				memcpy(tail + keep, buf, add);
				tail[keep + add] = '\0';
				for (size_t i = 0; i < keep + add; i++)
					if (!tail[i])
						tail[i] = ' ';
				if (ready && !ready_at && strstr(tail, ready))
					ready_at = now_us();
			}
		} else if (!out_open) {
			usleep(20000);
		}
		if (wait4(pid, &status, WNOHANG, &ru) == pid)
			break;
		now = now_us();
		if (ready_at && !open_at && now >= ready_at + (long long)(settle * 1e6)) {
			open_at = now_us();
			ticks0 = proc_ticks(pid);
			clock0 = read_counter(fd_clock);
			ctx0 = read_counter(fd_ctx);
			write_pidfile(pidfile, pid);
		}
		if (open_at && !close_at && now >= open_at + (long long)(window * 1e6)) {
			close_at = now_us();
			ticks1 = proc_ticks(pid);
			clock1 = read_counter(fd_clock);
			ctx1 = read_counter(fd_ctx);
			kill(pid, SIGTERM);
			kill_at = now + 10000000LL;
		}
		if (!ready_at && !kill_at && now - t0 > READY_LIMIT_US) {
			fprintf(stderr, "%s: no \"%s\" in its output within %lld s\n", argv[optind], ready,
				READY_LIMIT_US / 1000000);
			early = 1;
			kill(pid, SIGTERM);
			kill_at = now + 10000000LL;
		}
		if (kill_at && now >= kill_at) {
			fprintf(stderr, "%s: still there 10 s after SIGTERM; killed\n", argv[optind]);
			kill(pid, SIGKILL);
			kill_at = now + 3600 * 1000000LL;
		}
	}
	if (!close_at) {
		if (!early)
			fprintf(stderr, "%s: ended before its time (status 0x%x)\n", argv[optind], status);
		return 1;
	}
	if (ticks0 < 0 || ticks1 < 0 || clock0 < 0 || clock1 < 0 || ctx0 < 0 || ctx1 < 0) {
		fprintf(stderr, "%s: could not read its figures\n", argv[optind]);
		return 1;
	}
	printf("cpu_ticks=%lld clk_tck=%ld task_clock_ns=%lld ctx=%lld window_us=%lld status=%d\n",
	       ticks1 - ticks0, sysconf(_SC_CLK_TCK), clock1 - clock0, ctx1 - ctx0, close_at - open_at,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
