/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Apple SMC fans (drivers/hwmon/applesmc.c): fanN is driven by speed, not
 * duty. HWS_FAN_HOLD_MANUAL sets fanN_manual (a bit of the SMC's FS! key)
 * and writes the target to fanN_output; HWS_FAN_HOLD_FLOOR writes only
 * fanN_min, which the SMC's own control never goes below, so nothing is
 * left to undo if the holder dies but a faster fan. Speeds must be below
 * 0x4000 (the driver sends them << 2 in 16 bits).
 */
#include <errno.h>

#include "fan/fan-internal.h"

#define SPEED_MAX 0x3fff

static bool floor_held(const struct hws_fan *f)
{
	return f->saved.hold == HWS_FAN_HOLD_FLOOR;
}

/* The file the hold drives: the floor, or the target. */
static const char *driven(const struct hws__fan_saved *s)
{
	return s->hold == HWS_FAN_HOLD_FLOOR ? "fan%u_min" : "fan%u_output";
}

static int probe(const char *dir, unsigned nr)
{
	static const char *const files[] = { "fan%u_output", "fan%u_manual", "fan%u_min" };
	long v;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int r = hws__fan_read(dir, files[i], nr, &v);

		if (r == -ENOENT || r == -ENODEV)
			return r;
	}
	return 0;
}

static int controllable(const char *dir, unsigned nr)
{
	int r = hws__fan_writable(dir, "fan%u_output", nr);

	return r <= 0 ? r : hws__fan_writable(dir, "fan%u_manual", nr);
}

static int info(struct hws_fan *f, struct hws_fan_info *i)
{
	const char *dir = f->saved.dir;
	unsigned nr = f->saved.nr;
	long manual = -1, max = SPEED_MAX, min = 0;
	int r;

	r = hws__fan_read(dir, "fan%u_manual", nr, &manual);
	if (r == -ENODEV)
		return r;
	r = hws__fan_read(dir, driven(&f->saved), nr, &i->value);
	if (r == -ENODEV)
		return r;
	if (r < 0)
		i->value = -1;
	r = hws__fan_read(dir, "fan%u_max", nr, &max);
	if (r == -ENODEV)
		return r;
	if (r < 0 || max < 0 || max > SPEED_MAX)
		max = SPEED_MAX;
	/* A floor goes no lower than the one the SMC had. */
	if (f->taken && floor_held(f))
		min = f->saved.v[HWS__FAN_MIN];
	else if (hws__fan_read(dir, "fan%u_min", nr, &min) < 0 || min < 0 || min > max)
		min = 0;
	i->min = min;
	i->max = max;
	if (manual > 0)
		i->mode = "manual";
	else if (manual == 0)
		i->mode = f->taken && floor_held(f) ? "floor" : "automatic";
	else
		i->mode = "unknown";
	return 0;
}

static int save(struct hws_fan *f, struct hws__fan_saved *s)
{
	static const struct { const char *file; enum hws__fan_key key; } files[] = {
		{ "fan%u_manual", HWS__FAN_MANUAL },
		{ "fan%u_output", HWS__FAN_OUTPUT },
		{ "fan%u_min", HWS__FAN_MIN },
	};

	(void)f;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		long *v = &s->v[files[i].key];
		int r = hws__fan_read(s->dir, files[i].file, s->nr, v);

		if (r < 0)
			return r;
		/* Out of what a saved line can carry: the SMC said nonsense. */
		if (*v < 0 || *v > SPEED_MAX)
			return -EBADMSG;
		if (files[i].key == HWS__FAN_MANUAL)
			*v = !!*v;
		s->keys |= 1u << files[i].key;
	}
	return 0;
}

static int take(struct hws_fan *f)
{
	const char *dir = f->saved.dir;
	unsigned nr = f->saved.nr;
	long manual;
	int r;

	if (!floor_held(f)) {
		r = hws__fan_read(dir, "fan%u_manual", nr, &manual);
		if (r >= 0 && manual != 1)
			r = hws__fan_write(dir, "fan%u_manual", nr, 1);
		if (r < 0)
			return r;
	}
	r = hws__fan_read(dir, driven(&f->saved), nr, &f->left);
	if (r < 0 && !floor_held(f) && !f->taken)
		(void)hws__fan_write(dir, "fan%u_manual", nr, f->saved.v[HWS__FAN_MANUAL]);
	return r;
}

static int set(struct hws_fan *f, long value)
{
	int r;

	r = hws__fan_write(f->saved.dir, driven(&f->saved), f->saved.nr, value);
	if (r < 0)
		return r;
	return hws__fan_read(f->saved.dir, driven(&f->saved), f->saved.nr, &f->left);
}

static int check(struct hws_fan *f)
{
	long manual, v;
	int r;

	if (!floor_held(f)) {
		r = hws__fan_read(f->saved.dir, "fan%u_manual", f->saved.nr, &manual);
		if (r < 0)
			return r;
		if (manual == 0)
			return 0;
	}
	r = hws__fan_read(f->saved.dir, driven(&f->saved), f->saved.nr, &v);
	if (r < 0)
		return r;
	return v == f->left;
}

static int restore(const struct hws__fan_saved *s)
{
	int r;

	if (s->hold == HWS_FAN_HOLD_FLOOR)
		return hws__fan_write(s->dir, "fan%u_min", s->nr, s->v[HWS__FAN_MIN]);
	r = hws__fan_write(s->dir, "fan%u_output", s->nr, s->v[HWS__FAN_OUTPUT]);
	return hws__fan_first_error(r, hws__fan_write(s->dir, "fan%u_manual", s->nr, s->v[HWS__FAN_MANUAL]));
}

const struct hws__fan_ops hws__fan_applesmc_ops = {
	.driver = "applesmc", .unit = HWS_FAN_UNIT_RPM, .prefix = "fan", .floor = true,
	.probe = probe, .controllable = controllable,
	.keys = HWS__FAN_KEY(MANUAL) | HWS__FAN_KEY(OUTPUT) | HWS__FAN_KEY(MIN),
	.save = save, .restore = restore,
	.info = info, .take = take, .set = set, .check = check,
};
