/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_FAN_LAW_H
#define HWSD_FAN_LAW_H

/*
 * The control law of one fan (fan-law.c), apart from any hardware so that
 * a table of temperatures can test it: from a temperature, the value to
 * write, in the output's own unit (duty 0..255 or RPM).
 *
 *   - the curve: linear between its points, or steps; flat beyond them;
 *   - hysteresis: on the way up the curve follows the temperature, on the
 *     way down it follows it HYST degrees late, so a temperature wavering
 *     by less than that moves nothing;
 *   - min and max output bound what the curve says;
 *   - a fan that would start from standstill (the last value 0, or the
 *     tach reading 0 while driven and the output not falling) gets the
 *     start level for start_ms first, as fancontrol does with MINSTART;
 *   - a stop waits spin_down_ms of the curve asking for 0;
 *   - a change is at most max_step per step (not for a kick or failsafe);
 *   - no temperature (the sources failed): full output.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct hwsd_fan_law_point {
	double temp;
	double value;
};

struct hwsd_fan_law {
	struct hwsd_fan_law_point *points;
	size_t n_points;
	bool steps;
	double hysteresis;
	double min, max;        /* min_output, max_output */
	double full;            /* the output's own maximum */
	double start;           /* the kick's level */
	unsigned start_ms;      /* 0: no kick */
	unsigned spin_down_ms;
	double max_step;        /* 0: unlimited */
};

/* What the law remembers from one step to the next. */
struct hwsd_fan_run {
	long value;             /* the last value decided; -1: unknown */
	double temp;            /* the temperature the curve follows */
	bool have_temp;
	bool kicked;            /* the last step was a kick */
	bool stopping;          /* the curve asks for 0, since stop_ms */
	uint64_t stop_ms;
};

struct hwsd_fan_step {
	long value;             /* what to write */
	double target;          /* the curve at the temperature it follows, within
				 * min and max output; NaN in failsafe */
	unsigned next_ms;       /* when to step again; 0: the fan's interval */
	bool kick;
};

/*
 * hwsd_fan_law_make - the law of a [fan] section for an output whose
 * values go from @lo to @hi (percentages are of that range)
 *
 * Return: 0 or -ENOMEM.
 */
int hwsd_fan_law_make(const struct hwsd_fan_conf *conf, double lo, double hi,
		      struct hwsd_fan_law *ret);
void hwsd_fan_law_done(struct hwsd_fan_law *law);

/* The curve alone at @temp. */
double hwsd_fan_law_curve(const struct hwsd_fan_law *law, double temp);

/* A run starting on an output that holds @value now (-1: unknown). */
void hwsd_fan_run_init(struct hwsd_fan_run *run, long value);

/*
 * hwsd_fan_law_step - one step
 * @temp: the sources combined; NaN when they failed (failsafe)
 * @stalled: the tach reads 0 although the output drives the fan
 * @now_ms: a monotonic clock
 */
void hwsd_fan_law_step(const struct hwsd_fan_law *law, struct hwsd_fan_run *run, double temp,
		       bool stalled, uint64_t now_ms, struct hwsd_fan_step *ret);

#endif
