/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_GUARD_H
#define HWSD_GUARD_H

/*
 * The motion guard (disk-protect.c): motion events and hdapsd-style head
 * parking, sampled on the motion queue.
 */

#include <stddef.h>

#include <hwsight/workqueue.h>

#include "config.h"

struct hwsd_events;
struct hwsd_guard;

/* The guard is made (the sensor opened and read once) before anything
 * running stops, so that a reload can refuse. *ret is NULL when disk
 * protection is off (not enabled, or no sensor). On failure @why says
 * what. It samples on @wq and publishes motions to @sink. */
int hwsd_guard_new(const struct hwsd_motion_conf *m, struct workqueue_struct *wq, struct hwsd_events *sink,
		   struct hwsd_guard **ret, char *why, size_t size);
struct hwsd_guard *hwsd_guard_free(struct hwsd_guard *g);
void hwsd_guard_start(struct hwsd_guard *g);
/* Waits for the sample running, and releases parked heads. */
void hwsd_guard_stop(struct hwsd_guard *g);

#endif
