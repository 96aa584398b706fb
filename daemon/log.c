/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Logging for hwsightd: the journal with structured fields when systemd
 * runs us, "<N>message" lines on stderr otherwise (which journald also
 * understands, see sd-daemon(3)), syslog once detached.
 *
 * Every function here may be called from any thread: the journal's
 * sendmsg() and one fprintf() per line are atomic enough.
 */
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "events.h"
#include "log.h"

static atomic_int log_level = LOG_INFO;
static atomic_int log_target = HWSD_LOG_STDERR;
static atomic_bool stderr_tty;

int hwsd_log_target_from_string(const char *s)
{
	static const char *const names[] = {
		[HWSD_LOG_AUTO] = "auto",
		[HWSD_LOG_JOURNAL] = "journal",
		[HWSD_LOG_STDERR] = "stderr",
		[HWSD_LOG_SYSLOG] = "syslog",
	};

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

int hwsd_log_level_from_string(const char *s)
{
	static const struct { const char *name; int level; } levels[] = {
		{ "debug", LOG_DEBUG }, { "info", LOG_INFO }, { "notice", LOG_NOTICE },
		{ "warning", LOG_WARNING }, { "err", LOG_ERR }, { "error", LOG_ERR },
		{ "crit", LOG_CRIT },
	};

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (!strcmp(s, levels[i].name))
			return levels[i].level;
	return -1;
}

/* Is stderr the stream systemd connected to the journal (JOURNAL_STREAM)? */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void hwsd_log_setup(enum hwsd_log_target target, int level)
{
	if (target == HWSD_LOG_AUTO)
		target = stderr_is_journal() ? HWSD_LOG_JOURNAL : HWSD_LOG_STDERR;
	atomic_store(&stderr_tty, isatty(STDERR_FILENO));
	if (target == HWSD_LOG_SYSLOG)
		openlog("hwsightd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	atomic_store(&log_target, target);
	atomic_store(&log_level, level);
}

bool hwsd_log_enabled(int priority)
{
	return priority <= atomic_load(&log_level);
}

static void format_number(char *buf, size_t size, double v)
{
	snprintf(buf, size, "%.3f", v);
}

int hwsd_event_env(const struct hwsd_event *ev, char *buf, size_t size, char **vars, int max)
{
	const struct { const char *name; const char *value; } fields[] = {
		{ "HWSIGHT_EVENT", ev->event },
		{ "HWSIGHT_CHIP", ev->chip },
		{ "HWSIGHT_SENSOR", ev->sensor },
		{ "HWSIGHT_LABEL", ev->label },
		{ "HWSIGHT_CONDITION", ev->condition },
		{ "HWSIGHT_UNIT", ev->unit },
		{ "HWSIGHT_CAMERA", ev->camera },
		{ "HWSIGHT_PATH", ev->path },
		{ "HWSIGHT_DISKS", ev->disks },
		{ "HWSIGHT_FAN", ev->fan },
		{ "HWSIGHT_DRY_RUN", ev->dry_run ? "1" : NULL },
	};
	char value[32], limit[32];
	size_t used = 0;
	int n = 0;

	format_number(value, sizeof(value), ev->value);
	format_number(limit, sizeof(limit), ev->limit);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) + 2 && n < max; i++) {
		const char *name, *v;
		int len;

		if (i < sizeof(fields) / sizeof(fields[0])) {
			name = fields[i].name;
			v = fields[i].value;
		} else if (i == sizeof(fields) / sizeof(fields[0])) {
			name = "HWSIGHT_VALUE";
			v = isnan(ev->value) ? NULL : value;
		} else {
			name = "HWSIGHT_LIMIT";
			v = isnan(ev->limit) ? NULL : limit;
		}
		if (!v)
			continue;
		len = snprintf(buf + used, size - used, "%s=%s", name, v);
		if (len < 0 || (size_t)len >= size - used)
			break;
		vars[n++] = buf + used;
		used += (size_t)len + 1;
	}
	return n;
}

static void emit(int priority, const struct hwsd_event *ev, const char *message)
{
	enum { MAX_FIELDS = 16 };
	char buf[4096], prio[16], *vars[MAX_FIELDS];
	struct iovec iov[MAX_FIELDS + 2];
	char *msg;
	int n = 0;

	switch (atomic_load(&log_target)) {
	case HWSD_LOG_JOURNAL:
		if (asprintf(&msg, "MESSAGE=%s", message) < 0)
			return;
		snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
		iov[0] = (struct iovec){ msg, strlen(msg) };
		iov[1] = (struct iovec){ prio, strlen(prio) };
		if (ev)
			n = hwsd_event_env(ev, buf, sizeof(buf), vars, MAX_FIELDS);
		for (int i = 0; i < n; i++)
			iov[2 + i] = (struct iovec){ vars[i], strlen(vars[i]) };
		sd_journal_sendv(iov, 2 + n);
		free(msg);
		break;
	case HWSD_LOG_SYSLOG:
		syslog(priority, "%s", message);
		break;
	default:
		/* A person reads a terminal; journald and scripts read <N>. */
		if (atomic_load(&stderr_tty))
			fprintf(stderr, "hwsightd: %s\n", message);
		else
			fprintf(stderr, "<%d>%s\n", priority, message);
		break;
	}
}

static void vlog(int priority, const struct hwsd_event *ev, const char *fmt, va_list ap)
{
	char message[1024];

	if (!hwsd_log_enabled(priority))
		return;
	vsnprintf(message, sizeof(message), fmt, ap);
	emit(priority, ev, message);
}

void hwsd_log(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, NULL, fmt, ap);
	va_end(ap);
}

void hwsd_log_event(int priority, const struct hwsd_event *ev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, ev, fmt, ap);
	va_end(ap);
}

static void log_event(void *userdata, const struct hwsd_event *ev)
{
	(void)userdata;
	hwsd_log_event(ev->priority, ev, "%s", ev->message);
}

const struct hwsd_subscriber hwsd_log_subscriber = { .event = log_event };
