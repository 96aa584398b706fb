/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Winbond W83793 (drivers/hwmon/w83793.c). There is no pwmN_enable: pwmN
 * obeys the chip's Smart Fan while any of the six tempM_auto_channels_pwm
 * bitmaps holds its bit (bit N-1), and is manual otherwise. Taking it
 * clears that bit in every map that has it, saving which maps did;
 * release writes the duty back and sets the bit again in those maps only,
 * one read-modify-write each, so that two outputs of one chip can be
 * taken and released in any order. The duty has six bits: the driver
 * keeps value >> 2 and reads back a multiple of 4.
 */
#include <errno.h>

#include "fan/fan-internal.h"

#define N_TEMPS 6
#define MAP "temp%u_auto_channels_pwm"

/* Which maps (bit M-1 for tempM) hold pwm @nr's bit now. A temperature
 * channel the chip does not have has no map. */
static int maps_holding(const char *dir, unsigned nr, long *ret)
{
	long mask = 0, v;

	for (unsigned m = 1; m <= N_TEMPS; m++) {
		int r = hws__fan_read(dir, MAP, m, &v);

		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		if (v & (1L << (nr - 1)))
			mask |= 1L << (m - 1);
	}
	*ret = mask;
	return 0;
}

/* Sets (@on) or clears pwm @nr's bit in the maps of @mask; stops at the
 * first error and says in *@done which maps it changed. */
static int maps_update(const char *dir, unsigned nr, long mask, bool on, long *done)
{
	long bit = 1L << (nr - 1), v;
	int r = 0;

	*done = 0;
	for (unsigned m = 1; m <= N_TEMPS && r >= 0; m++) {
		if (!(mask & (1L << (m - 1))))
			continue;
		r = hws__fan_read(dir, MAP, m, &v);
		if (r >= 0 && !!(v & bit) != on)
			r = hws__fan_write(dir, MAP, m, on ? v | bit : v & ~bit);
		if (r >= 0)
			*done |= 1L << (m - 1);
	}
	return r;
}

static int info(struct hws_fan *f, struct hws_fan_info *i)
{
	long mask;
	int r;

	r = maps_holding(f->saved.dir, f->saved.nr, &mask);
	if (r == -ENODEV)
		return r;
	i->mode = r < 0 ? "unknown" : mask ? "smart fan" : "manual";
	return hws__fan_pwm_info_duty(f, i);
}

static int save(struct hws_fan *f, struct hws__fan_saved *s)
{
	int r;

	(void)f;
	r = hws__fan_read(s->dir, "pwm%u", s->nr, &s->v[HWS__FAN_DUTY]);
	if (r < 0)
		return r;
	r = maps_holding(s->dir, s->nr, &s->v[HWS__FAN_MAPS]);
	if (r < 0)
		return r;
	s->keys |= HWS__FAN_KEY(DUTY) | HWS__FAN_KEY(MAPS);
	return 0;
}

static int take(struct hws_fan *f)
{
	long mask, done, undone;
	int r;

	/* Now, not as saved: a re-take after a resume finds what the
	 * firmware put back. */
	r = maps_holding(f->saved.dir, f->saved.nr, &mask);
	if (r < 0)
		return r;
	r = maps_update(f->saved.dir, f->saved.nr, mask, false, &done);
	if (r >= 0)
		r = hws__fan_read(f->saved.dir, "pwm%u", f->saved.nr, &f->left);
	if (r < 0)
		(void)maps_update(f->saved.dir, f->saved.nr, done, true, &undone);
	return r;
}

static int check(struct hws_fan *f)
{
	long mask, duty;
	int r;

	r = maps_holding(f->saved.dir, f->saved.nr, &mask);
	if (r < 0)
		return r;
	if (mask)
		return 0;
	r = hws__fan_pwm_check_read(f, &duty);
	return r <= 0 ? r : duty == f->left;
}

static int restore(const struct hws__fan_saved *s)
{
	long done;
	int r;

	/* The duty first: once mapped again, the chip owns the output. */
	r = hws__fan_write(s->dir, "pwm%u", s->nr, s->v[HWS__FAN_DUTY]);
	return hws__fan_first_error(r, maps_update(s->dir, s->nr, s->v[HWS__FAN_MAPS], true, &done));
}

const struct hws__fan_ops hws__fan_w83793_ops = {
	.driver = "w83793", HWS__FAN_PWM_OUTPUT,
	.keys = HWS__FAN_KEY(DUTY) | HWS__FAN_KEY(MAPS), .key_max = { [HWS__FAN_DUTY] = 252 },
	.save = save, .restore = restore,
	.info = info, .take = take, .set = hws__fan_pwm_set, .check = check,
};
