/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_GUARD_H
#define HWSD_GUARD_H

/*
 * The motion guard (disk-protect.c): motion events and hdapsd-style head
 * parking, sampled on the motion queue, and shown on a motion board
 * (motion-board.h).
 */

#include <stddef.h>

#include <hwsight/workqueue.h>

#include "config.h"

struct hwsd_events;
struct hwsd_guard;
struct hwsd_motion_board;

/* The guard is made (the sensor opened and read once) before anything
 * running stops, so that a reload can refuse. *ret is NULL when disk
 * protection is off (not enabled, or no sensor). On failure @why says
 * what. It follows @c's [motion] and dry_run, samples on @wq, publishes
 * motions to @sink and shows what it does on @board. */
int hwsd_guard_new(const struct hwsd_config *c, struct workqueue_struct *wq, struct hwsd_events *sink,
		   struct hwsd_motion_board *board, struct hwsd_guard **ret, char *why, size_t size);
struct hwsd_guard *hwsd_guard_free(struct hwsd_guard *g);

/* Looks for the disks to protect, and samples if there is one, or if a
 * subscriber of @sink wants motion events (ask it once they are all in
 * place: the cameras started, exec= set). */
void hwsd_guard_start(struct hwsd_guard *g);

/* A block device came or went: the disks are looked for again, on the
 * motion queue, and the sampling starts or stops with them. */
void hwsd_guard_disks_changed(struct hwsd_guard *g);

/* Waits for the sample running, and releases parked heads. */
void hwsd_guard_stop(struct hwsd_guard *g);

#endif
