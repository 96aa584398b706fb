/*
 * fake-logind - the part of systemd-logind a sleep-aware daemon talks to
 *
 * Owns org.freedesktop.login1 on the bus in $DBUS_SYSTEM_BUS_ADDRESS (a
 * private dbus-daemon started by the test) and serves, on
 * /org/freedesktop/login1, interface org.freedesktop.login1.Manager:
 *
 *   Inhibit(s what, s who, s why, s mode) -> h   as logind: the lock is
 *       held until every copy of the returned descriptor is closed.
 *   signal PrepareForSleep(b start)
 *   property PreparingForSleep (b), InhibitDelayMaxUSec (t)
 *
 * The test drives it on stdin, one command a line, and reads what happened
 * on stdout, one flushed line per event:
 *
 *   (start)  -> "ready"  once the name is owned
 *   Inhibit  -> "inhibit WHAT WHO WHY MODE"
 *   (a lock's last descriptor closed) -> "released WHAT WHO WHY MODE"
 *   sleep    -> PrepareForSleep(true); then, as logind does before it
 *               suspends, waits until no delay lock on "sleep" is left or
 *               the inhibit delay has passed, and prints
 *               "slept locks-released=N locks-unreleased=M wait-ms=T":
 *               N delay locks released while it waited, M still held
 *               when it gave up (0 unless it timed out), T the wait.
 *               Commands after "sleep" wait for that line.
 *   resume   -> PrepareForSleep(false), "resumed"
 *   quit, or end of input -> exit 0
 *
 * WHO and WHY are printed as given (control characters as \xHH), so they
 * may contain spaces; WHAT is the first word and MODE the last.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#define LOGIN1_PATH "/org/freedesktop/login1"
#define LOGIN1_MANAGER "org.freedesktop.login1.Manager"

static const char *prog = "fake-logind";

struct manager;

struct inhibitor {
	struct manager *m;
	struct inhibitor *next, *prev;
	char *what, *who, *why, *mode;
	bool delays_sleep;
	int fd; /* our end of the pipe: POLLERR once the client's end is gone */
	sd_event_source *source;
};

struct manager {
	sd_event *event;
	sd_bus *bus;
	sd_event_source *stdin_source;
	sd_event_source *delay_timer;
	struct inhibitor *inhibitors;
	uint64_t delay_max_usec;

	bool preparing;       /* between "sleep" and "resume" */
	bool waiting;         /* "sleep" waits for delay locks */
	uint64_t wait_start;  /* CLOCK_MONOTONIC, usec */
	unsigned n_released; /* delay locks released while waiting */

	char line[4096];      /* stdin read but not yet run */
	size_t line_len;
	bool stdin_eof;
	bool done;            /* quit, end of input or an error */
};

static void quit(struct manager *m, int code);

/* Say one line on stdout. A test that stopped reading is fatal. */
static void say(struct manager *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct manager *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: stdout: %m\n", prog);
		quit(m, -EIO);
	}
}

/* A copy of s fit for a one-line record. */
static char *printable(const char *s)
{
	char *out = malloc(strlen(s) * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			o += sprintf(o, "\\x%02x", c);
		else
			*o++ = (char)c;
	}
	*o = '\0';
	return out;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ":");

		if (k == n && strncmp(p, word, n) == 0)
			return true;
		p += k;
		if (*p == ':')
			p++;
	}
	return false;
}

/* The checks logind makes on what and mode, with its error. */
static int check_inhibit_args(const char *what, const char *mode, sd_bus_error *error)
{
	static const char *const known[] = {
		"shutdown", "sleep", "idle", "handle-power-key", "handle-suspend-key",
		"handle-hibernate-key", "handle-lid-switch", "handle-reboot-key",
	};
	bool delay;

	if (strcmp(mode, "block") == 0)
		delay = false;
	else if (strcmp(mode, "delay") == 0)
		delay = true;
	else
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Invalid mode specification %s", mode);
	if (!*what)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Invalid what specification %s", what);
	for (const char *p = what; *p;) {
		size_t k = strcspn(p, ":");
		bool ok = false;

		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (strlen(known[i]) == k && strncmp(p, known[i], k) == 0)
				ok = true;
		if (!ok || k == 0)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "Invalid what specification %s", what);
		if (delay && !(k == 5 && strncmp(p, "sleep", 5) == 0) &&
		    !(k == 8 && strncmp(p, "shutdown", 8) == 0))
			return sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED,
						 "Delay inhibitors only supported for shutdown and sleep");
		p += k;
		if (*p == ':')
			p++;
	}
	return 0;
}

static unsigned count_sleep_delays(struct manager *m)
{
	unsigned n = 0;

	for (struct inhibitor *i = m->inhibitors; i; i = i->next)
		n += i->delays_sleep;
	return n;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void process_lines(struct manager *m);

/* The sleep is done: say so. The caller takes the next command. */
static void finish_wait(struct manager *m)
{
	m->waiting = false;
	m->delay_timer = sd_event_source_disable_unref(m->delay_timer);
	say(m, "slept locks-released=%u locks-unreleased=%u wait-ms=%" PRIu64,
	    m->n_released, count_sleep_delays(m), (now_usec() - m->wait_start) / 1000u);
}

static void quit(struct manager *m, int code)
{
	m->done = true;
	sd_event_exit(m->event, code);
}

static struct inhibitor *inhibitor_free(struct inhibitor *i)
{
	if (!i)
		return NULL;
	if (i->m) {
		if (i->prev)
			i->prev->next = i->next;
		else
			i->m->inhibitors = i->next;
		if (i->next)
			i->next->prev = i->prev;
	}
	sd_event_source_disable_unref(i->source);
	if (i->fd >= 0)
		close(i->fd);
	free(i->what);
	free(i->who);
	free(i->why);
	free(i->mode);
	free(i);
	return NULL;
}

static int on_inhibitor_gone(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct inhibitor *i = userdata;
	struct manager *m = i->m;
	bool delays_sleep = i->delays_sleep;

	say(m, "released %s %s %s %s", i->what, i->who, i->why, i->mode);
	inhibitor_free(i);
	if (m->waiting && delays_sleep) {
		m->n_released++;
		if (count_sleep_delays(m) == 0) {
			finish_wait(m);
			process_lines(m);
		}
	}
	return 0;
}

static int method_inhibit(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *what, *who, *why, *mode;
	struct inhibitor *i;
	int fds[2], r;

	r = sd_bus_message_read(msg, "ssss", &what, &who, &why, &mode);
	if (r < 0)
		return r;
	r = check_inhibit_args(what, mode, error);
	if (r < 0)
		return r;

	i = calloc(1, sizeof(*i));
	if (!i)
		return -ENOMEM;
	i->fd = -EBADF;
	i->what = printable(what);
	i->who = printable(who);
	i->why = printable(why);
	i->mode = printable(mode);
	if (!i->what || !i->who || !i->why || !i->mode) {
		inhibitor_free(i);
		return -ENOMEM;
	}
	i->delays_sleep = strcmp(mode, "delay") == 0 && has_word(what, "sleep");

	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = -errno;
		inhibitor_free(i);
		return r;
	}
	i->fd = fds[1];
	/* No events asked for: epoll still reports EPOLLERR when the last
	 * reader of the pipe is closed, which is the release. */
	r = sd_event_add_io(m->event, &i->source, i->fd, 0, on_inhibitor_gone, i);
	if (r < 0) {
		close(fds[0]);
		inhibitor_free(i);
		return r;
	}
	i->m = m;
	i->next = m->inhibitors;
	if (i->next)
		i->next->prev = i;
	m->inhibitors = i;

	/* The message takes its own copy of the read end. */
	r = sd_bus_reply_method_return(msg, "h", fds[0]);
	close(fds[0]);
	if (r < 0) {
		inhibitor_free(i);
		return r;
	}
	say(m, "inhibit %s %s %s %s", i->what, i->who, i->why, i->mode);
	return 1;
}

static int property_preparing(sd_bus *bus, const char *path, const char *interface,
			      const char *property, sd_bus_message *reply, void *userdata,
			      sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "b", m->preparing);
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("PreparingForSleep", "b", property_preparing, 0, 0),
	SD_BUS_PROPERTY("InhibitDelayMaxUSec", "t", NULL,
			offsetof(struct manager, delay_max_usec), SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_METHOD_WITH_NAMES("Inhibit",
				 "ssss", SD_BUS_PARAM(what) SD_BUS_PARAM(who)
					 SD_BUS_PARAM(why) SD_BUS_PARAM(mode),
				 "h", SD_BUS_PARAM(pipe_fd),
				 method_inhibit, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL_WITH_NAMES("PrepareForSleep", "b", SD_BUS_PARAM(start), 0),
	SD_BUS_VTABLE_END
};

static int emit_prepare_for_sleep(struct manager *m, bool start)
{
	int r;

	m->preparing = start;
	r = sd_bus_emit_signal(m->bus, LOGIN1_PATH, LOGIN1_MANAGER, "PrepareForSleep", "b", start);
	if (r < 0)
		return r;
	/* On the wire before the line that says it happened. */
	return sd_bus_flush(m->bus);
}

static int on_delay_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	finish_wait(userdata);
	process_lines(userdata);
	return 0;
}

static int cmd_sleep(struct manager *m)
{
	int r;

	r = emit_prepare_for_sleep(m, true);
	if (r < 0)
		return r;
	m->wait_start = now_usec();
	m->n_released = 0;
	m->waiting = true;
	if (count_sleep_delays(m) == 0) {
		finish_wait(m);
		return 0;
	}
	/* Accuracy 1 us: the default 250 ms slack would blur wait-ms. */
	return sd_event_add_time_relative(m->event, &m->delay_timer, CLOCK_MONOTONIC,
					  m->delay_max_usec, 1, on_delay_timeout, m);
}

static int run_command(struct manager *m, const char *cmd)
{
	int r;

	if (strcmp(cmd, "sleep") == 0)
		return cmd_sleep(m);
	if (strcmp(cmd, "resume") == 0) {
		r = emit_prepare_for_sleep(m, false);
		if (r < 0)
			return r;
		say(m, "resumed");
		return 0;
	}
	if (strcmp(cmd, "quit") == 0) {
		quit(m, 0);
		return 0;
	}
	if (*cmd == '\0')
		return 0;
	fprintf(stderr, "%s: unknown command '%s' (sleep, resume or quit)\n", prog, cmd);
	return -EINVAL;
}

/* Run the complete lines read so far, stopping while a sleep waits. */
static void process_lines(struct manager *m)
{
	char *nl;

	while (!m->done && !m->waiting && (nl = memchr(m->line, '\n', m->line_len))) {
		size_t n = (size_t)(nl - m->line) + 1;
		char cmd[sizeof(m->line)];
		int r;

		memcpy(cmd, m->line, n - 1);
		cmd[n - 1] = '\0';
		memmove(m->line, m->line + n, m->line_len - n);
		m->line_len -= n;
		r = run_command(m, cmd);
		if (r < 0) {
			if (r != -EINVAL)
				fprintf(stderr, "%s: %s: %s\n", prog, cmd, strerror(-r));
			quit(m, r);
		}
	}
	if (m->done)
		return;
	if (m->waiting)
		sd_event_source_set_enabled(m->stdin_source, SD_EVENT_OFF);
	else if (m->stdin_eof)
		quit(m, 0);
	else
		sd_event_source_set_enabled(m->stdin_source, SD_EVENT_ON);
}

static int on_stdin(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	ssize_t n;

	if (m->line_len == sizeof(m->line)) {
		fprintf(stderr, "%s: stdin: command line too long\n", prog);
		quit(m, -E2BIG);
		return 0;
	}
	n = read(STDIN_FILENO, m->line + m->line_len, sizeof(m->line) - m->line_len);
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return 0;
		fprintf(stderr, "%s: stdin: %m\n", prog);
		quit(m, -errno);
		return 0;
	}
	if (n == 0) {
		/* A last command without its newline still counts. */
		if (m->line_len > 0 && m->line[m->line_len - 1] != '\n')
			m->line[m->line_len++] = '\n';
		m->stdin_eof = true;
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	}
	m->line_len += (size_t)n;
	process_lines(m);
	return 0;
}

static int on_stdin_defer(sd_event_source *s, void *userdata)
{
	return on_stdin(s, STDIN_FILENO, EPOLLIN, userdata);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [--inhibit-delay-max=SECONDS]\n"
		"Serve org.freedesktop.login1's Inhibit() and PrepareForSleep on the bus in\n"
		"$DBUS_SYSTEM_BUS_ADDRESS; commands on stdin: sleep, resume, quit.\n"
		"The inhibit delay defaults to 5 seconds, as logind's InhibitDelayMaxSec.\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "inhibit-delay-max", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct manager m = { .delay_max_usec = 5000000 };
	int c, r, ret = EXIT_FAILURE;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (c) {
		case 'd': {
			char *end;
			double s = strtod(optarg, &end);

			if (end == optarg || *end || !(s >= 0 && s < 3600)) {
				fprintf(stderr, "%s: --inhibit-delay-max: '%s' is not a number of "
					"seconds below 3600\n", prog, optarg);
				return 2;
			}
			m.delay_max_usec = (uint64_t)llround(s * 1e6);
			break;
		}
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	r = sd_event_default(&m.event);
	if (r < 0) {
		fprintf(stderr, "%s: sd_event_default: %s\n", prog, strerror(-r));
		goto out;
	}
	r = sd_bus_open_system(&m.bus);
	if (r < 0) {
		fprintf(stderr, "%s: cannot connect to the bus at DBUS_SYSTEM_BUS_ADDRESS=%s: %s\n",
			prog, getenv("DBUS_SYSTEM_BUS_ADDRESS") ? getenv("DBUS_SYSTEM_BUS_ADDRESS")
			: "(unset: the real system bus)", strerror(-r));
		goto out;
	}
	r = sd_bus_add_object_vtable(m.bus, NULL, LOGIN1_PATH, LOGIN1_MANAGER, manager_vtable, &m);
	if (r < 0) {
		fprintf(stderr, "%s: sd_bus_add_object_vtable: %s\n", prog, strerror(-r));
		goto out;
	}
	r = sd_bus_request_name(m.bus, "org.freedesktop.login1", 0);
	if (r < 0) {
		fprintf(stderr, "%s: cannot own org.freedesktop.login1: %s%s\n", prog, strerror(-r),
			r == -EEXIST ? " (another logind, real or fake, is on this bus)" : "");
		goto out;
	}
	r = sd_bus_attach_event(m.bus, m.event, SD_EVENT_PRIORITY_NORMAL);
	if (r >= 0)
		r = sd_bus_set_exit_on_disconnect(m.bus, true);
	if (r < 0) {
		fprintf(stderr, "%s: cannot attach the bus to the event loop: %s\n", prog, strerror(-r));
		goto out;
	}
	r = sd_event_add_io(m.event, &m.stdin_source, STDIN_FILENO, EPOLLIN, on_stdin, &m);
	if (r == -EPERM)
		/* A regular file (or /dev/null), which epoll refuses: it is
		 * always readable, so read it whenever the loop is idle. */
		r = sd_event_add_defer(m.event, &m.stdin_source, on_stdin_defer, &m);
	if (r < 0) {
		fprintf(stderr, "%s: stdin: %s\n", prog, strerror(-r));
		goto out;
	}

	say(&m, "ready");
	sd_event_source_set_enabled(m.stdin_source, SD_EVENT_ON);
	r = sd_event_loop(m.event);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", prog, strerror(-r));
	else if (r > 0)
		/* sd-bus exits the loop with EXIT_FAILURE when the bus goes. */
		fprintf(stderr, "%s: disconnected from the bus\n", prog);
	else
		ret = EXIT_SUCCESS;
out:
	while (m.inhibitors)
		inhibitor_free(m.inhibitors);
	sd_event_source_disable_unref(m.delay_timer);
	sd_event_source_disable_unref(m.stdin_source);
	sd_bus_flush_close_unref(m.bus);
	sd_event_unref(m.event);
	return ret;
}
