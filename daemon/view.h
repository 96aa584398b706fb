/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_VIEW_H
#define HWSD_VIEW_H

/*
 * What the HTTP side sees of the daemon: only what the jobs publish for
 * any thread to read, each piece with its own lock or atomics (readings.h,
 * live.h, history.h, events.h, fan-board.h, motion-board.h). main.c fills it once at the start; the
 * fuzz targets fill it with made-up readings. Nothing in it starts, stops
 * or reaches a device.
 */

struct hwsd_counters;
struct hwsd_fan_board;
struct hwsd_history;
struct hwsd_live_set;
struct hwsd_motion_board;
struct hwsd_readings;

struct hwsd_view {
	struct hwsd_readings *readings;     /* the latest reading of every chip */
	struct hwsd_live_set *live;         /* the cameras and their frames */
	struct hwsd_history *history;       /* NULL: no history kept */
	const struct hwsd_counters *counters;
	struct hwsd_motion_board *motion;   /* the motion guard's state; NULL: none */
	struct hwsd_fan_board *fans;        /* the [fan] sections' states */
};

#endif
