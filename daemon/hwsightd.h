/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HWSIGHTD_H
#define HWSD_HWSIGHTD_H

/*
 * The daemon's state, owned by main.c, and lent to the jobs that run on
 * its queues (pollers.h, cameras.h, guard.h) and to the main-thread
 * modules that drive them (sleep.h, hotplug.h). The other modules get
 * only their part: the alarm table, exec=, the event sink, the status
 * signal, and the HTTP side its view (view.h).
 *
 * Threads: the main thread runs the sd-event loop (signals, the bus,
 * udev, the watchdog, STATUS=) and is the only one that starts, stops
 * and reloads; every poll, capture and motion sample runs as a work item
 * on a single-threaded freezeable workqueue (one for the pollers, one for
 * motion, one per camera), which is what serialises access to the
 * sensors context, the alarm table and each camera. The HTTP side has
 * libmicrohttpd's pool of four threads (http/server.c) and sees only what
 * is published for it.
 *
 * Field tags say who may touch a field while the jobs run:
 *   P:  only work on the poll queue (hwsd_assert_on(d->poll_wq));
 *   C:  only work on the camera's own queue (hwsd_assert_on(cam->wq));
 *   Q:  only work on the queue of the structure's own @wq (the guard);
 *   M:  only the main thread (hwsd_assert_main());
 *   no tag: set before the jobs start and read-only while they run, or
 *       an atomic, or guarded by the lock its comment names.
 * A stopped job's fields belong to the main thread, which stopped it
 * (hwsd_assert_on_or_main()). The assertions are in contract.h; a debug
 * build checks them in the functions that touch tagged fields.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hwsight/sensors.h>
#include <hwsight/workqueue.h>

#include "config.h"
#include "events.h"
#include "exec.h"
#include "fan-board.h"
#include "live.h"
#include "motion-board.h"
#include "readings.h"
#include "status.h"

struct hwsd_alarms;
struct hwsd_camera;
struct hwsd_fans;
struct hwsd_guard;
struct hwsd_history;
struct hwsd_poller;

struct hwsd {
	struct hwsd_config *config;        /* swapped by a reload, with the jobs stopped */
	struct hws_sensors *sensors;       /* P */
	struct workqueue_struct *poll_wq;
	struct workqueue_struct *motion_wq;

	pthread_mutex_t pollers_lock;      /* the list, not the pollers */
	struct hwsd_poller *pollers;
	struct work_struct rescan_work;
	struct work_struct heartbeat_work;
	atomic_ullong heartbeat_ns;        /* when heartbeat_work last ran */

	/* Set by the main thread with the jobs stopped; the event
	 * subscribers read them on the producers' queues. */
	struct hwsd_camera *cameras;
	size_t n_cameras;
	struct hwsd_live_set live;         /* the cameras, as HTTP sees them */
	struct hwsd_alarms *alarms;        /* P */
	struct hwsd_guard *guard;          /* M: NULL without disk protection */
	struct hwsd_fans *fans;            /* M: NULL when not running */
	struct hwsd_readings readings;     /* what the pollers publish */
	struct hwsd_fan_board fan_board;   /* what the fans publish */
	struct hwsd_motion_board motion_board; /* what the guard publishes */
	struct hwsd_history *history;      /* NULL: no usable state directory */

	struct hwsd_events *events;        /* the sink, subscribed to at the start */
	struct hwsd_counters counters;     /* what the events add up to */
	struct hwsd_exec exec;             /* exec=, a subscriber */
	struct hwsd_status status;         /* tells the main loop to redo STATUS= */
	atomic_uint chips_active;
	atomic_bool frozen;
};

#endif
