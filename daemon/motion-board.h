/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_MOTION_BOARD_H
#define HWSD_MOTION_BOARD_H

/*
 * What the motion guard shows the HTTP side (motion-board.c): the sensor,
 * the detector's last inputs and state, and per disk its parks. The guard
 * writes it on the motion queue, the HTTP threads copy it out, both under
 * the board's lock, as fan-board.h does for the fans. main.c owns the
 * board; it outlives reloads, and so do its disks' counters: a disk, once
 * seen, keeps its entry (and its Prometheus counters) however often it or
 * the guard comes and goes.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsight/motion.h>

#include "config.h"

struct hwsd_disk_status {
	char name[HWSD_DISK_NAME_MAX + 1];
	bool protected;            /* the guard parks it now (there, rotational) */
	bool parked;
	uint64_t parks;            /* parks begun */
	uint64_t parked_ms;        /* how long the ended parks held; a copy
				    * adds the ongoing one's time so far */
	uint64_t since_ms;         /* when the ongoing park began (monotonic) */
};

struct hwsd_motion_status {
	bool watched;              /* a guard runs */
	bool sampling;             /* ... and samples (it idles without disks) */
	bool dry_run;
	char driver[16];           /* "ams", "applesmc", "lis3lv02d" */
	bool input;                /* read through its input device, not sysfs */
	unsigned threshold_base;   /* the configured sensitivity */
	uint64_t samples;          /* reads of the sensor, failed ones too */
	double threshold, score;   /* the detector's, after the last sample */
	double g[3];               /* the last sample, in g; NaN before one */
	bool moving, falling;
	/* The last park: when it began (wall clock, ms; 0: none yet), why,
	 * and how long it held (so far, if it goes on). */
	int64_t last_park_time_ms;
	bool last_park_free_fall;
	bool last_park_ongoing;
	uint64_t last_park_ms;
	uint64_t last_park_since_ms; /* monotonic */
	struct hwsd_disk_status *disks;
	size_t n_disks;
};

struct hwsd_motion_board {
	pthread_mutex_t lock;
	struct hwsd_motion_status st;  /* L: lock */
};

void hwsd_motion_board_init(struct hwsd_motion_board *b);
void hwsd_motion_board_done(struct hwsd_motion_board *b);

/* A guard starts (it is not sampling yet), on @info's sensor; or stops
 * (@info NULL), which ends an ongoing park on the board. */
void hwsd_motion_board_watch(struct hwsd_motion_board *b, const struct hws_motion_info *info,
			     unsigned threshold_base, bool dry_run);

/*
 * hwsd_motion_board_disks - the disks the guard protects now
 * @names: @n names; the others seen before are shown unprotected (and a
 *         park of theirs ended)
 *
 * Return: 0, or -ENOMEM with a name left out.
 */
int hwsd_motion_board_disks(struct hwsd_motion_board *b, char (*names)[HWSD_DISK_NAME_MAX + 1], size_t n);

void hwsd_motion_board_sampling(struct hwsd_motion_board *b, bool sampling);

/* A read of the sensor: @sample and @state, or NULL for a failed one. */
void hwsd_motion_board_sample(struct hwsd_motion_board *b, const struct hws_motion_sample *sample,
			      const struct hws_motion_detector_state *state);

/* A park begins (@free_fall: why), @disk by @disk as each is parked ... */
void hwsd_motion_board_park(struct hwsd_motion_board *b, bool free_fall);
void hwsd_motion_board_parked(struct hwsd_motion_board *b, const char *disk);
/* ... and ends, for every disk at once. */
void hwsd_motion_board_released(struct hwsd_motion_board *b);

/*
 * hwsd_motion_board_copy - the board now, for a page to read unlocked
 * @b: the board, or NULL (none)
 *
 * Ongoing parks are counted up to now. Return: 1 and the copy, to be
 * freed with hwsd_motion_board_free_copy(), while a guard runs; 0 (no
 * copy) while none does; -ENOMEM.
 */
int hwsd_motion_board_copy(struct hwsd_motion_board *b, struct hwsd_motion_status *ret);
void hwsd_motion_board_free_copy(struct hwsd_motion_status *st);

#endif
