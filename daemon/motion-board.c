/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The motion guard's published state (motion-board.h). A sample changes
 * a few numbers under the lock; only a new disk allocates.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "time-util.h"

#include "motion-board.h"

void hwsd_motion_board_init(struct hwsd_motion_board *b)
{
	*b = (struct hwsd_motion_board){ .st.g = { NAN, NAN, NAN }, .st.threshold = NAN, .st.score = NAN };
	pthread_mutex_init(&b->lock, NULL);
}

void hwsd_motion_board_done(struct hwsd_motion_board *b)
{
	free(b->st.disks);
	pthread_mutex_destroy(&b->lock);
}

/* L: the park of @d ends now. */
static void disk_released(struct hwsd_disk_status *d, uint64_t now)
{
	if (!d->parked)
		return;
	d->parked = false;
	d->parked_ms += now - d->since_ms;
}

/* L: every park ends now. */
static void all_released(struct hwsd_motion_status *st)
{
	uint64_t now = hws__now_ms();

	for (size_t i = 0; i < st->n_disks; i++)
		disk_released(&st->disks[i], now);
	if (st->last_park_ongoing) {
		st->last_park_ongoing = false;
		st->last_park_ms = now - st->last_park_since_ms;
	}
}

void hwsd_motion_board_watch(struct hwsd_motion_board *b, const struct hws_motion_info *info,
			     unsigned threshold_base, bool dry_run)
{
	struct hwsd_motion_status *st = &b->st;

	pthread_mutex_lock(&b->lock);
	all_released(st);
	for (size_t i = 0; i < st->n_disks; i++)
		st->disks[i].protected = false;
	st->watched = info != NULL;
	st->sampling = false;
	st->moving = st->falling = false;
	st->threshold = st->score = NAN;
	st->g[0] = st->g[1] = st->g[2] = NAN;
	if (info) {
		snprintf(st->driver, sizeof(st->driver), "%s", info->driver_name);
		st->input = info->input_node != NULL;
		st->threshold_base = threshold_base;
		st->threshold = threshold_base;
		st->dry_run = dry_run;
	}
	pthread_mutex_unlock(&b->lock);
}

static struct hwsd_disk_status *disk_find(struct hwsd_motion_status *st, const char *name)
{
	for (size_t i = 0; i < st->n_disks; i++)
		if (!strcmp(st->disks[i].name, name))
			return &st->disks[i];
	return NULL;
}

int hwsd_motion_board_disks(struct hwsd_motion_board *b, char (*names)[HWSD_DISK_NAME_MAX + 1], size_t n)
{
	struct hwsd_motion_status *st = &b->st;
	uint64_t now;
	int r = 0;

	pthread_mutex_lock(&b->lock);
	now = hws__now_ms();
	for (size_t i = 0; i < st->n_disks; i++)
		st->disks[i].protected = false;
	for (size_t i = 0; i < n; i++) {
		struct hwsd_disk_status *d = disk_find(st, names[i]), *disks;

		if (!d) {
			disks = realloc(st->disks, (st->n_disks + 1) * sizeof(*disks));
			if (!disks) {
				r = -ENOMEM;
				continue;
			}
			st->disks = disks;
			d = &disks[st->n_disks++];
			*d = (struct hwsd_disk_status){ 0 };
			snprintf(d->name, sizeof(d->name), "%s", names[i]);
		}
		d->protected = true;
	}
	/* A disk gone is parked no longer. */
	for (size_t i = 0; i < st->n_disks; i++)
		if (!st->disks[i].protected)
			disk_released(&st->disks[i], now);
	pthread_mutex_unlock(&b->lock);
	return r;
}

void hwsd_motion_board_sampling(struct hwsd_motion_board *b, bool sampling)
{
	pthread_mutex_lock(&b->lock);
	b->st.sampling = sampling;
	pthread_mutex_unlock(&b->lock);
}

void hwsd_motion_board_sample(struct hwsd_motion_board *b, const struct hws_motion_sample *sample,
			      const struct hws_motion_detector_state *state)
{
	struct hwsd_motion_status *st = &b->st;

	pthread_mutex_lock(&b->lock);
	st->samples++;
	if (sample) {
		for (int i = 0; i < 3; i++)
			st->g[i] = sample->mg[i] / 1000.0;
		st->threshold = state->threshold;
		st->score = state->score;
		st->moving = state->moving;
		st->falling = state->falling;
	}
	pthread_mutex_unlock(&b->lock);
}

void hwsd_motion_board_park(struct hwsd_motion_board *b, bool free_fall)
{
	struct hwsd_motion_status *st = &b->st;

	pthread_mutex_lock(&b->lock);
	st->last_park_time_ms = hws__realtime_ms();
	st->last_park_since_ms = hws__now_ms();
	st->last_park_free_fall = free_fall;
	st->last_park_ongoing = true;
	st->last_park_ms = 0;
	pthread_mutex_unlock(&b->lock);
}

void hwsd_motion_board_parked(struct hwsd_motion_board *b, const char *disk)
{
	struct hwsd_disk_status *d;

	pthread_mutex_lock(&b->lock);
	d = disk_find(&b->st, disk);
	if (d && !d->parked) {
		d->parked = true;
		d->parks++;
		d->since_ms = hws__now_ms();
	}
	pthread_mutex_unlock(&b->lock);
}

void hwsd_motion_board_released(struct hwsd_motion_board *b)
{
	pthread_mutex_lock(&b->lock);
	all_released(&b->st);
	pthread_mutex_unlock(&b->lock);
}

int hwsd_motion_board_copy(struct hwsd_motion_board *b, struct hwsd_motion_status *ret)
{
	struct hwsd_motion_status copy;
	uint64_t now;

	if (!b)
		return 0;
	pthread_mutex_lock(&b->lock);
	/* Under the lock: no park begins after it. */
	now = hws__now_ms();
	copy = b->st;
	if (!copy.watched) {
		pthread_mutex_unlock(&b->lock);
		return 0;
	}
	copy.disks = copy.n_disks ? malloc(copy.n_disks * sizeof(*copy.disks)) : NULL;
	if (copy.disks)
		memcpy(copy.disks, b->st.disks, copy.n_disks * sizeof(*copy.disks));
	pthread_mutex_unlock(&b->lock);
	if (copy.n_disks && !copy.disks)
		return -ENOMEM;
	for (size_t i = 0; i < copy.n_disks; i++)
		if (copy.disks[i].parked)
			copy.disks[i].parked_ms += now - copy.disks[i].since_ms;
	if (copy.last_park_ongoing)
		copy.last_park_ms = now - copy.last_park_since_ms;
	*ret = copy;
	return 1;
}

void hwsd_motion_board_free_copy(struct hwsd_motion_status *st)
{
	free(st->disks);
	st->disks = NULL;
	st->n_disks = 0;
}
