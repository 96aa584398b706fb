/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_LOG_H
#define HWSD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

enum hwsd_log_target {
	HWSD_LOG_AUTO,    /* the journal if stderr is connected to it, else stderr */
	HWSD_LOG_JOURNAL,
	HWSD_LOG_STDERR,
	HWSD_LOG_SYSLOG,  /* detached, without a journal */
};

struct hwsd_event;
struct hwsd_subscriber;

int hwsd_log_target_from_string(const char *s);
int hwsd_log_level_from_string(const char *s);

/* Resolve @target (AUTO looks at JOURNAL_STREAM) and set the threshold. */
void hwsd_log_setup(enum hwsd_log_target target, int level);
bool hwsd_log_enabled(int priority);

void hwsd_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hwsd_log_event(int priority, const struct hwsd_event *ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The event as NAME=VALUE strings (HWSIGHT_EVENT=alarm ...), written into
 * @buf; @vars gets pointers into it. Return: how many, at most @max.
 */
int hwsd_event_env(const struct hwsd_event *ev, char *buf, size_t size, char **vars, int max);

/* The journal as a subscriber of the event sink (events.h): each event's
 * line, with its fields; no userdata. */
extern const struct hwsd_subscriber hwsd_log_subscriber;

#define log_debug(...)   hwsd_log(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)    hwsd_log(LOG_INFO, __VA_ARGS__)
#define log_notice(...)  hwsd_log(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) hwsd_log(LOG_WARNING, __VA_ARGS__)
#define log_error(...)   hwsd_log(LOG_ERR, __VA_ARGS__)

#endif
