/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fan control law (daemon/fan-law.c), stepped through tables: each row
 * is a temperature (NAN: the sources failed), whether the tach reads 0, the
 * time, and the value and kick the law must decide.
 */
#include <math.h>
#include <string.h>

#include "fan-law.h"
#include "task.h"

struct row {
	double temp;
	bool stalled;
	uint64_t ms;
	long value;
	bool kick;
};

static struct hwsd_fan_conf conf_of(const struct hwsd_fan_point *points, size_t n)
{
	return (struct hwsd_fan_conf){
		.points = (struct hwsd_fan_point *)points, .n_points = n,
		.max_output = { 100, true }, .start_output = { 100, true },
	};
}

static void run_table(const struct hwsd_fan_conf *conf, long start_value, const struct row *rows,
		      size_t n)
{
	struct hwsd_fan_law law;
	struct hwsd_fan_run run;
	struct hwsd_fan_step step;

	ASSERT_EQ(hwsd_fan_law_make(conf, 0, 255, &law), 0);
	hwsd_fan_run_init(&run, start_value);
	for (size_t i = 0; i < n; i++) {
		hwsd_fan_law_step(&law, &run, rows[i].temp, rows[i].stalled, rows[i].ms, &step);
		if (step.value != rows[i].value || step.kick != rows[i].kick)
			FAIL("row %zu (%.2f degrees): %ld%s, want %ld%s", i, rows[i].temp, step.value,
			     step.kick ? " (kick)" : "", rows[i].value, rows[i].kick ? " (kick)" : "");
		ASSERT_EQ(step.next_ms, step.kick ? conf->start_ms : 0);
	}
	hwsd_fan_law_done(&law);
}

/* lm-sensors' fancontrol with MINTEMP=40 MAXTEMP=60 MINSTOP=100 MAXPWM=255
 * MINPWM=0 MINSTART=150 is the curve 40:0 40:100 60:255 with no hysteresis:
 * (t - 40) * 155 / 20 + 100, truncated as bash truncates. */
TEST(fancontrol_curve)
{
	static const struct hwsd_fan_point pts[] = {
		{ 40, { 0, false } }, { 40, { 100, false } }, { 60, { 255, false } },
	};
	struct hwsd_fan_conf conf = conf_of(pts, 3);
	static const struct row rows[] = {
		{ 30, false, 0, 0, false },
		{ 40, false, 1000, 0, false },          /* at MINTEMP: MINPWM */
		{ 40.001, false, 2000, 150, true },     /* from a stop: MINSTART first */
		{ 40.001, false, 3000, 100, false },
		{ 50, false, 4000, 177, false },        /* 10 * 155 / 20 + 100 = 177.5 */
		{ 59.999, false, 5000, 254, false },
		{ 60, false, 6000, 255, false },
		{ 75, false, 7000, 255, false },
		{ 45.5, false, 8000, 142, false },
		{ 45.5, true, 9000, 150, true },        /* the tach reads 0: kick */
		{ 45.5, false, 10000, 142, false },
		{ 41, true, 11000, 107, false },        /* falling: a stall is no start */
		{ 20, false, 12000, 0, false },
	};

	conf.hysteresis = 0;
	conf.start_output = (struct hwsd_fan_level){ 150, false };
	conf.start_ms = 1000;
	run_table(&conf, 255, rows, sizeof(rows) / sizeof(rows[0]));
}

TEST(hysteresis_holds_a_falling_temperature)
{
	static const struct hwsd_fan_point pts[] = { { 40, { 0, true } }, { 60, { 100, true } } };
	struct hwsd_fan_conf conf = conf_of(pts, 2);
	static const struct row rows[] = {
		{ 50, false, 0, 127, false },
		{ 49, false, 1, 127, false },           /* within 3 degrees: held */
		{ 47.5, false, 2, 127, false },
		{ 46, false, 3, 114, false },           /* followed 3 degrees late: 49 */
		{ 48, false, 4, 114, false },           /* still within: held */
		{ 50, false, 5, 127, false },           /* up at once */
	};

	conf.hysteresis = 3;
	run_table(&conf, 127, rows, sizeof(rows) / sizeof(rows[0]));
}

TEST(steps_min_max_and_the_failsafe)
{
	static const struct hwsd_fan_point pts[] = {
		{ 40, { 0, false } }, { 50, { 100, false } }, { 60, { 200, false } },
	};
	struct hwsd_fan_conf conf = conf_of(pts, 3);
	static const struct row rows[] = {
		{ 30, false, 0, 60, false },            /* min_output */
		{ 55, false, 1, 100, false },           /* the step at 50 */
		{ 65, false, 2, 180, false },           /* max_output */
		{ NAN, false, 3, 255, false },          /* failsafe: the output's full */
		{ 45, false, 4, 60, false },            /* back on the curve */
	};

	conf.steps = true;
	conf.hysteresis = 0;
	conf.min_output = (struct hwsd_fan_level){ 60, false };
	conf.max_output = (struct hwsd_fan_level){ 180, false };
	run_table(&conf, 60, rows, sizeof(rows) / sizeof(rows[0]));
}

TEST(rate_limit_and_spin_down)
{
	static const struct hwsd_fan_point pts[] = { { 40, { 0, false } }, { 60, { 200, false } } };
	struct hwsd_fan_conf conf = conf_of(pts, 2);
	static const struct row rows[] = {
		{ 60, false, 0, 130, false },           /* from 100, at most 30 up */
		{ 60, false, 1000, 160, false },
		{ 60, false, 2000, 190, false },
		{ 60, false, 3000, 200, false },
		{ 30, false, 4000, 170, false },        /* down by 30 too */
		{ 30, false, 10000, 140, false },
		{ 30, false, 11000, 110, false },
		{ 30, false, 12000, 80, false },
		{ 30, false, 13000, 50, false },
		{ 30, false, 14000, 20, false },
		{ 30, false, 15000, 20, false },        /* the curve says 0: spin-down starts */
		{ 30, false, 24999, 20, false },
		{ 30, false, 25000, 0, false },         /* 10 s of asking for 0 */
		{ 45, false, 26000, 30, false },        /* no kick: start_time = 0 */
	};

	conf.hysteresis = 0;
	conf.has_max_step = true;
	conf.max_step = (struct hwsd_fan_level){ 30, false };
	conf.spin_down_ms = 10000;
	run_table(&conf, 100, rows, sizeof(rows) / sizeof(rows[0]));
}

TEST(percentages_are_of_the_outputs_range)
{
	static const struct hwsd_fan_point pts[] = { { 50, { 0, true } }, { 70, { 100, true } } };
	struct hwsd_fan_conf conf = conf_of(pts, 2);
	struct hwsd_fan_law law;

	conf.min_output = (struct hwsd_fan_level){ 10, true };
	ASSERT_EQ(hwsd_fan_law_make(&conf, 1000, 6000, &law), 0);
	ASSERT_TRUE(hwsd_fan_law_curve(&law, 40) == 1000);
	ASSERT_TRUE(hwsd_fan_law_curve(&law, 60) == 3500);
	ASSERT_TRUE(law.min == 1500 && law.max == 6000 && law.full == 6000);
	hwsd_fan_law_done(&law);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
