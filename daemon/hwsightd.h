/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HWSIGHTD_H
#define HWSD_HWSIGHTD_H

/*
 * The daemon's state and the seams between its files. Threads: the main
 * thread runs the sd-event loop (signals, the bus, udev, the watchdog)
 * and is the only one that starts, stops and reloads; every poll, capture
 * and motion sample runs as a work item on a single-threaded freezeable
 * workqueue (one for the pollers, one for motion, one per camera), which
 * is what serialises access to the sensors context, the alarm table and
 * each camera. The HTTP side has a thread per connection and sees only
 * what is published for it (readings.h, live.h).
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include <hwsight/image.h>
#include <hwsight/sensors.h>
#include <hwsight/workqueue.h>

#include "config.h"
#include "events.h"
#include "live.h"
#include "log.h"
#include "readings.h"

struct hwsd_alarms;
struct hwsd_guard;
struct hwsd_http;

/* exec= commands running at once: a flapping sensor must not fork-bomb. */
#define HWSD_EXEC_MAX 8

/* One per chip name ever seen; a poller whose chip vanished stops
 * re-arming until a rescan finds the chip again. */
struct hwsd_poller {
	struct delayed_work dwork;
	struct hwsd *d;
	char *chip_name;
	const struct hwsd_chip_conf *conf; /* may be NULL */
	unsigned interval_ms;
	bool active;                       /* P: poll queue (or stopped) */
	uint64_t polls;
	struct hwsd_poller *next;
};

enum {
	HWSD_SNAP_PERIODIC = 1u << 0,
	HWSD_SNAP_ALARM    = 1u << 1,
	HWSD_SNAP_MOTION   = 1u << 2,
};

/* A camera has its own queue, so that one that stalls stalls nobody else.
 * The device is open only while something wants frames: a snapshot, or a
 * viewer of the live stream (live.h). */
struct hwsd_camera {
	struct delayed_work periodic;
	struct delayed_work capture;       /* one frame a run, re-queued while wanted */
	struct workqueue_struct *wq;
	struct hwsd *d;
	const struct hwsd_camera_conf *conf;
	char *directory;
	struct hwsd_live *live;
	struct hws_image_encoder *enc;     /* C: the camera's queue */
	struct hws_camera *dev;            /* C: open while streaming */
	struct hws_capture_setup setup;    /* C */
	unsigned skip;                     /* C: frames to let go by before one is used */
	atomic_uint reasons;               /* HWSD_SNAP_* waiting for @capture */
	atomic_bool present;               /* its device node exists */
	int capture_error;                 /* C: logged once */
	int save_error;                    /* C: logged once */
};

struct hwsd {
	struct hwsd_config *config;
	struct hws_sensors *sensors;       /* P: poll queue while running */
	struct workqueue_struct *poll_wq;
	struct workqueue_struct *motion_wq;

	pthread_mutex_t pollers_lock;      /* the list, not the pollers */
	struct hwsd_poller *pollers;
	struct work_struct rescan_work;
	struct work_struct heartbeat_work;
	atomic_ullong heartbeat_ns;        /* when heartbeat_work last ran */

	struct hwsd_camera *cameras;
	size_t n_cameras;
	struct hwsd_live_set live;         /* the cameras, as HTTP sees them */
	struct hwsd_alarms *alarms;        /* P: poll queue */
	struct hwsd_guard *guard;          /* NULL without disk protection */
	struct hwsd_readings readings;     /* what the pollers publish */
	struct hwsd_history *history;      /* NULL: no usable state directory */
	struct hwsd_http *http;            /* NULL when not listening */

	struct hwsd_events *events;        /* the sink, subscribed to at the start */
	struct hwsd_counters counters;     /* what the events add up to */
	atomic_uint chips_active;
	atomic_bool frozen;
	/* exec.c: the exec= commands running, by pid; 0 is a free slot,
	 * -1 one being filled or looked at (exec.c says why). */
	_Atomic(pid_t) exec_pids[HWSD_EXEC_MAX];
	atomic_bool motion_watched;        /* the guard runs (for HTTP) */
};

/* pollers.c */
void hwsd_pollers_init(struct hwsd *d);
int hwsd_pollers_start(struct hwsd *d);
void hwsd_pollers_stop(struct hwsd *d);
void hwsd_pollers_kick(struct hwsd *d);         /* poll everything now */
void hwsd_pollers_rescan(struct hwsd *d);        /* from the hotplug monitor */
void hwsd_pollers_heartbeat(struct hwsd *d);     /* for the watchdog */
int hwsd_pollers_once(struct hwsd *d, FILE *out);

/* alarms.c */
int hwsd_alarms_new(struct hwsd_alarms **ret);
struct hwsd_alarms *hwsd_alarms_free(struct hwsd_alarms *a);
/* After a read of @chip: publish what began and ended. */
void hwsd_alarms_check(struct hwsd *d, const struct hws_chip *chip, const struct hwsd_chip_conf *conf);
/* @chip vanished: its alarms end. */
void hwsd_alarms_forget_chip(struct hwsd *d, const char *chip);
/* The alarms of a feature in the table now: "min,max(configured)". */
void hwsd_alarms_active(struct hwsd *d, const char *chip, const char *sensor, char *buf, size_t size);
/* The conditions of a feature active now, "max,alarm" (stateless). */
void hwsd_alarms_describe(const struct hws_feature *f, const struct hwsd_chip_conf *conf,
			  char *buf, size_t size);

/* capture-jobs.c; prepare makes what a camera of @c needs before any
 * stops (its snapshot directory), @why says what failed. */
int hwsd_cameras_prepare(const struct hwsd_config *c, char *why, size_t size);
int hwsd_cameras_start(struct hwsd *d);
void hwsd_cameras_stop(struct hwsd *d);
/* Snapshots on alarms and motions; userdata: the struct hwsd. */
extern const struct hwsd_subscriber hwsd_cameras_subscriber;
void hwsd_cameras_hotplug(struct hwsd *d);

/* disk-protect.c: the guard is made (the sensor opened and read once)
 * before anything running stops, so that a reload can refuse. *ret is
 * NULL when disk protection is off (not enabled, or no sensor). On
 * failure @why says what. */
int hwsd_guard_new(struct hwsd *d, const struct hwsd_motion_conf *m, struct hwsd_guard **ret,
		   char *why, size_t size);
struct hwsd_guard *hwsd_guard_free(struct hwsd_guard *g);
void hwsd_guard_start(struct hwsd *d, struct hwsd_guard *g);   /* it is d's now */
void hwsd_guard_stop(struct hwsd *d);

/* exec.c: run [daemon] exec= for an event; never waits. */
void hwsd_exec(struct hwsd *d, const struct hwsd_event *ev);
/* hwsd_exec() as a subscriber; userdata: the struct hwsd. */
extern const struct hwsd_subscriber hwsd_exec_subscriber;
void hwsd_exec_reap(struct hwsd *d);

/* sleep.c: logind's PrepareForSleep freezes the queues. */
struct hwsd_sleep;
int hwsd_sleep_new(struct hwsd *d, sd_event *e, struct hwsd_sleep **ret);
struct hwsd_sleep *hwsd_sleep_free(struct hwsd_sleep *s);
/* Freeze (before sleep) or thaw and poll at once (after). */
void hwsd_sleep_prepare(struct hwsd *d, bool start);

/* hotplug.c: hwmon chips and cameras that come and go. */
struct hwsd_hotplug;
int hwsd_hotplug_new(struct hwsd *d, sd_event *e, struct hwsd_hotplug **ret);
struct hwsd_hotplug *hwsd_hotplug_free(struct hwsd_hotplug *h);

/* http/server.c: the HTTP side, on its own thread. */
int hwsd_http_start(struct hwsd *d, const char *listen, struct hwsd_http **ret);
struct hwsd_http *hwsd_http_stop(struct hwsd_http *h);

/* main.c */
void hwsd_status(struct hwsd *d);

#endif
