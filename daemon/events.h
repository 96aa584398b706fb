/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_EVENTS_H
#define HWSD_EVENTS_H

/*
 * The event sink. A producer (the alarms, the motion guard) publishes
 * what happened once; the consumers (the journal, exec=, camera
 * snapshots, the metrics counters) subscribe at the start, in main.c, so
 * that a new consumer touches no producer.
 *
 * Subscribers run on the producer's thread, inside hwsd_events_publish(),
 * as the direct calls they replace did: an event costs no extra wake-up
 * and no extra latency (an alarm's snapshot is asked for as soon as it is
 * logged). A subscriber must therefore be quick and never wait for
 * another queue. The list is fixed before any producer starts and never
 * changes while one runs, so publishing takes no lock.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * What happened, for the journal's structured fields and the environment
 * of the exec= command. Unset strings are left out; so is a value or limit
 * that is NaN. @priority and @message are the journal line, as the
 * producer words it; they are not part of the environment.
 */
struct hwsd_event {
	const char *event;     /* "alarm", "alarm-end", "motion", "motion-end", "fan-take" ... */
	const char *chip;
	const char *sensor;    /* the feature: "fan1" */
	const char *label;
	const char *condition; /* "min", "max", "crit", "alarm", "fault" ... */
	const char *unit;
	double value;
	double limit;
	const char *camera;
	const char *path;      /* a snapshot */
	const char *disks;
	const char *fan;       /* a [fan NAME] */
	bool dry_run;          /* --dry-run: what would have been done, not done */
	int priority;          /* LOG_* of the journal line */
	const char *message;
};

#define HWSD_EVENT_INIT(name) { .event = (name), .value = __builtin_nan(""), .limit = __builtin_nan("") }

/*
 * A subscriber. @event sees each event of a publication in turn; @moment,
 * when set, then sees them all at once, for a consumer that acts once
 * per moment (one snapshot however many alarms one poll begins). @wants,
 * when set, says whether the subscriber acts on events named @event (a
 * command to run, a snapshot to take), so that a producer may skip the
 * work of making them when nobody but the record keepers (the journal,
 * the counters) would hear of them.
 */
struct hwsd_subscriber {
	void (*event)(void *userdata, const struct hwsd_event *ev);
	void (*moment)(void *userdata, const struct hwsd_event *evs, size_t n);
	bool (*wants)(void *userdata, const char *event);
};

struct hwsd_events;

int hwsd_events_new(struct hwsd_events **ret);
struct hwsd_events *hwsd_events_free(struct hwsd_events *s);

/* Before any producer starts; @sub is not copied. Return: 0 or -ENOMEM. */
int hwsd_events_subscribe(struct hwsd_events *s, const struct hwsd_subscriber *sub, void *userdata);

/*
 * hwsd_events_publish - the events of one moment
 * @s: the sink; NULL publishes to nobody
 * @evs: what happened (one poll of a chip, one motion), in order
 * @n: how many
 *
 * Every subscriber's @event sees each event in order, subscriber after
 * subscriber, then every @moment sees the lot.
 */
void hwsd_events_publish(struct hwsd_events *s, const struct hwsd_event *evs, size_t n);

/* Does a subscriber act on events named @event (its @wants says so)? For
 * the main thread, with the producers stopped or about to start. */
bool hwsd_events_wanted(const struct hwsd_events *s, const char *event);

/*
 * What the events add up to, for /metrics, the status page and STATUS=:
 * kept by hwsd_counters_subscriber (userdata: the counters), read from
 * any thread.
 */
struct hwsd_counters {
	atomic_uint alarms_active;         /* begun and not yet ended */
	atomic_ullong motion_events;       /* motion begun since the start */
	atomic_bool in_motion;
};

extern const struct hwsd_subscriber hwsd_counters_subscriber;

#endif
