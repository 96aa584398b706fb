/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The control law of one fan; see fan-law.h. Values are truncated to
 * whole units as fancontrol's integer arithmetic truncates them, so that
 * the same curve writes the same duty.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "fan-law.h"

static double level(const struct hwsd_fan_level *l, double lo, double hi)
{
	return l->percent ? lo + l->value / 100 * (hi - lo) : l->value;
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int hwsd_fan_law_make(const struct hwsd_fan_conf *conf, double lo, double hi,
		      struct hwsd_fan_law *ret)
{
	struct hwsd_fan_law law = {
		.steps = conf->steps,
		.hysteresis = conf->hysteresis,
		.min = clamp(level(&conf->min_output, lo, hi), lo, hi),
		.max = clamp(level(&conf->max_output, lo, hi), lo, hi),
		.full = hi,
		.start = clamp(level(&conf->start_output, lo, hi), lo, hi),
		.start_ms = conf->start_ms,
		.spin_down_ms = conf->spin_down_ms,
		.max_step = conf->has_max_step ? level(&conf->max_step, 0, hi - lo) : 0,
	};

	law.points = calloc(conf->n_points, sizeof(*law.points));
	if (!law.points)
		return -ENOMEM;
	law.n_points = conf->n_points;
	for (size_t i = 0; i < conf->n_points; i++)
		law.points[i] = (struct hwsd_fan_law_point){
			conf->points[i].temp, clamp(level(&conf->points[i].level, lo, hi), lo, hi),
		};
	*ret = law;
	return 0;
}

void hwsd_fan_law_done(struct hwsd_fan_law *law)
{
	free(law->points);
	law->points = NULL;
}

double hwsd_fan_law_curve(const struct hwsd_fan_law *law, double temp)
{
	const struct hwsd_fan_law_point *p = law->points;
	size_t i;

	/* The first point at or above @temp; at a step (two points at one
	 * temperature) the lower one holds up to and including it. */
	for (i = 0; i < law->n_points && temp > p[i].temp; i++)
		;
	if (i == 0)
		return p[0].value;
	if (i == law->n_points || law->steps)
		return p[i - 1].value;
	return p[i - 1].value + (temp - p[i - 1].temp) * (p[i].value - p[i - 1].value) /
					(p[i].temp - p[i - 1].temp);
}

void hwsd_fan_run_init(struct hwsd_fan_run *run, long value)
{
	*run = (struct hwsd_fan_run){ .value = value };
}

/* The temperature the curve follows: up at once, down HYST degrees late. */
static double follow(const struct hwsd_fan_law *law, struct hwsd_fan_run *run, double temp)
{
	if (!run->have_temp || temp > run->temp)
		run->temp = temp;
	else if (temp < run->temp - law->hysteresis)
		run->temp = temp + law->hysteresis;
	run->have_temp = true;
	return run->temp;
}

void hwsd_fan_law_step(const struct hwsd_fan_law *law, struct hwsd_fan_run *run, double temp,
		       bool stalled, uint64_t now_ms, struct hwsd_fan_step *ret)
{
	double v;
	long out;

	*ret = (struct hwsd_fan_step){ .target = NAN };
	if (isnan(temp)) {
		run->have_temp = false;
		run->stopping = false;
		run->kicked = false;
		ret->value = run->value = (long)law->full;
		return;
	}
	v = ret->target = clamp(hwsd_fan_law_curve(law, follow(law, run, temp)), law->min, law->max);
	if (law->max_step > 0 && run->value >= 0 && !run->kicked)
		v = clamp(v, (double)run->value - law->max_step, (double)run->value + law->max_step);
	out = (long)floor(v + 1e-9);
	/* A stop waits: the fan runs on at its last speed meanwhile. */
	if (out > 0 || !law->spin_down_ms || run->value <= 0)
		run->stopping = false;
	else {
		if (!run->stopping) {
			run->stopping = true;
			run->stop_ms = now_ms;
		}
		if (now_ms - run->stop_ms < law->spin_down_ms)
			out = run->value;
	}
	run->kicked = false;
	/* A stalled fan is started again unless the output is on its way
	 * down: below its stop duty a fan stops, and kicking it there would
	 * only start it to let it stop again. */
	if (out > 0 && law->start_ms && out < (long)law->start &&
	    (run->value == 0 || (stalled && out >= run->value))) {
		ret->kick = run->kicked = true;
		ret->next_ms = law->start_ms;
		out = (long)law->start;
	}
	ret->value = run->value = out;
}
