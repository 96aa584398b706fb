/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fans' published state (fan-board.h). A step changes a few numbers
 * under the lock; only a take copies the curve, so the control loop never
 * allocates in its steady state.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fan-board.h"

static void status_clear(struct hwsd_fan_status *st)
{
	free(st->name);
	free(st->output);
	free(st->chip);
	free(st->curve);
}

static void not_held(struct hwsd_fan_status *st)
{
	free(st->chip);
	free(st->curve);
	st->chip = NULL;
	st->curve = NULL;
	st->n_curve = 0;
	st->held = st->failsafe = false;
	st->temp = st->target = st->value = st->full = NAN;
}

void hwsd_fan_board_init(struct hwsd_fan_board *b)
{
	*b = (struct hwsd_fan_board){ 0 };
	pthread_mutex_init(&b->lock, NULL);
}

void hwsd_fan_board_free_copy(struct hwsd_fan_status *fans, size_t n)
{
	for (size_t i = 0; i < n; i++)
		status_clear(&fans[i]);
	free(fans);
}

void hwsd_fan_board_done(struct hwsd_fan_board *b)
{
	hwsd_fan_board_free_copy(b->fans, b->n);
	pthread_mutex_destroy(&b->lock);
}

int hwsd_fan_board_reset(struct hwsd_fan_board *b, const struct hwsd_fan_conf *fans, size_t n,
			 bool dry_run)
{
	struct hwsd_fan_status *st = n ? calloc(n, sizeof(*st)) : NULL;
	int r = n && !st ? -ENOMEM : 0;

	for (size_t i = 0; st && i < n; i++) {
		not_held(&st[i]);
		st[i].floor = fans[i].floor;
		st[i].dry_run = dry_run;
		st[i].name = strdup(fans[i].name);
		st[i].output = strdup(fans[i].output);
		if (!st[i].name || !st[i].output)
			r = -ENOMEM;
	}
	if (r < 0) {
		hwsd_fan_board_free_copy(st, st ? n : 0);
		st = NULL;
		n = 0;
	}
	pthread_mutex_lock(&b->lock);
	hwsd_fan_board_free_copy(b->fans, b->n);
	b->fans = st;
	b->n = n;
	pthread_mutex_unlock(&b->lock);
	return r;
}

int hwsd_fan_board_held(struct hwsd_fan_board *b, size_t i, const char *chip,
			const struct hwsd_fan_law *law, bool rpm, long value)
{
	char *name = strdup(chip);
	struct hwsd_fan_law_point *curve = malloc(law->n_points * sizeof(*curve));
	struct hwsd_fan_status *st;

	if (!name || !curve) {
		free(name);
		free(curve);
		return -ENOMEM;
	}
	memcpy(curve, law->points, law->n_points * sizeof(*curve));
	pthread_mutex_lock(&b->lock);
	st = &b->fans[i];
	not_held(st);
	st->chip = name;
	st->curve = curve;
	st->n_curve = law->n_points;
	st->steps = law->steps;
	st->rpm = rpm;
	st->held = true;
	st->yielded = false;
	st->full = law->full;
	st->value = (double)value;
	pthread_mutex_unlock(&b->lock);
	return 0;
}

void hwsd_fan_board_released(struct hwsd_fan_board *b, size_t i, bool yielded)
{
	pthread_mutex_lock(&b->lock);
	not_held(&b->fans[i]);
	b->fans[i].yielded = yielded;
	pthread_mutex_unlock(&b->lock);
}

void hwsd_fan_board_step(struct hwsd_fan_board *b, size_t i, double temp, double target,
			 long value, bool failsafe)
{
	pthread_mutex_lock(&b->lock);
	b->fans[i].temp = temp;
	b->fans[i].target = target;
	b->fans[i].value = (double)value;
	b->fans[i].failsafe = failsafe;
	pthread_mutex_unlock(&b->lock);
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *d = s ? strdup(s) : NULL;

	*failed |= s && !d;
	return d;
}

int hwsd_fan_board_copy(struct hwsd_fan_board *b, struct hwsd_fan_status **ret)
{
	struct hwsd_fan_status *copy = NULL;
	bool failed = false;
	size_t n;

	pthread_mutex_lock(&b->lock);
	n = b->n;
	if (n && !(copy = calloc(n, sizeof(*copy))))
		failed = true;
	for (size_t i = 0; copy && i < n; i++) {
		const struct hwsd_fan_status *st = &b->fans[i];

		copy[i] = *st;
		copy[i].name = dup_or_null(st->name, &failed);
		copy[i].output = dup_or_null(st->output, &failed);
		copy[i].chip = dup_or_null(st->chip, &failed);
		copy[i].curve = st->n_curve ? malloc(st->n_curve * sizeof(*st->curve)) : NULL;
		if (copy[i].curve)
			memcpy(copy[i].curve, st->curve, st->n_curve * sizeof(*st->curve));
		failed |= st->n_curve && !copy[i].curve;
	}
	pthread_mutex_unlock(&b->lock);
	if (failed) {
		hwsd_fan_board_free_copy(copy, copy ? n : 0);
		return -ENOMEM;
	}
	*ret = copy;
	return (int)n;
}
