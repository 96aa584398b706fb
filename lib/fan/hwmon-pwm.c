/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Any chip with the hwmon sysfs ABI's pwm files (Documentation/hwmon/
 * sysfs-interface.rst): pwmN 0..255 and, where the driver has it,
 * pwmN_enable (0 full speed, 1 manual, 2 and up automatic). Taking one
 * writes enable 1; release writes the duty first and then the enable, so
 * that a driver that refuses duty writes outside manual mode still gets
 * its duty back. The pc87427 and w83793 backends use the pwmN part too.
 */
#include <errno.h>

#include "fan/fan-internal.h"

int hws__fan_pwm_probe(const char *dir, unsigned nr)
{
	int r = hws__fan_writable(dir, "pwm%u", nr);

	if (r < 0)
		return r;
	/* A read-only pwmN is still there; whether it can be taken is for
	 * take to find out, as for any file of a chip. */
	return hws__fan_read(dir, "pwm%u", nr, &(long){ 0 }) == -ENOENT ? -ENOENT : 0;
}

int hws__fan_pwm_controllable(const char *dir, unsigned nr)
{
	return hws__fan_writable(dir, "pwm%u", nr);
}

int hws__fan_pwm_set(struct hws_fan *f, long value)
{
	long back;
	int r;

	r = hws__fan_write(f->saved.dir, "pwm%u", f->saved.nr, value);
	if (r < 0)
		return r;
	/* Drivers quantise (w83793 keeps 6 bits): what the handle left is
	 * what reads back now, not what it asked for. */
	r = hws__fan_read(f->saved.dir, "pwm%u", f->saved.nr, &back);
	if (r < 0)
		return r;
	f->left = back;
	return 0;
}

int hws__fan_pwm_save(struct hws_fan *f, struct hws__fan_saved *s)
{
	int r;

	r = hws__fan_read(s->dir, "pwm%u", s->nr, &s->v[HWS__FAN_DUTY]);
	if (r < 0)
		return r;
	s->keys |= HWS__FAN_KEY(DUTY);
	r = hws__fan_read(s->dir, "pwm%u_enable", s->nr, &s->v[HWS__FAN_ENABLE]);
	if (r == -ENOENT && (f->ops->optional_keys & HWS__FAN_KEY(ENABLE)))
		return 0;
	if (r < 0)
		return r;
	s->keys |= HWS__FAN_KEY(ENABLE);
	return 0;
}

int hws__fan_pwm_take(struct hws_fan *f)
{
	const char *dir = f->saved.dir;
	unsigned nr = f->saved.nr;
	long enable = 1;
	int r;

	if (f->saved.keys & HWS__FAN_KEY(ENABLE)) {
		r = hws__fan_read(dir, "pwm%u_enable", nr, &enable);
		if (r < 0)
			return r;
		if (enable != 1) {
			r = hws__fan_write(dir, "pwm%u_enable", nr, 1);
			if (r < 0)
				return r;
		}
	}
	/* From full speed, manual mode would drop to whatever duty the
	 * register held: keep the fan at full until the holder sets it. */
	if (enable == 0) {
		r = hws__fan_write(dir, "pwm%u", nr, 255);
		if (r < 0) {
			(void)hws__fan_write(dir, "pwm%u_enable", nr, enable);
			return r;
		}
	}
	r = hws__fan_read(dir, "pwm%u", nr, &f->left);
	if (r < 0 && enable != 1)
		(void)hws__fan_write(dir, "pwm%u_enable", nr, enable);
	return r;
}

int hws__fan_pwm_restore(const struct hws__fan_saved *s)
{
	int r;

	r = hws__fan_write(s->dir, "pwm%u", s->nr, s->v[HWS__FAN_DUTY]);
	if (s->keys & HWS__FAN_KEY(ENABLE))
		r = hws__fan_first_error(r, hws__fan_write(s->dir, "pwm%u_enable", s->nr, s->v[HWS__FAN_ENABLE]));
	/* A chip gone is gone, whatever the first write said. */
	return r;
}

int hws__fan_pwm_info_duty(struct hws_fan *f, struct hws_fan_info *i)
{
	int r = hws__fan_read(f->saved.dir, "pwm%u", f->saved.nr, &i->value);

	if (r == -ENODEV)
		return r;
	if (r < 0)
		i->value = -1;
	i->min = 0;
	i->max = 255;
	return 0;
}

int hws__fan_pwm_check_read(struct hws_fan *f, long *ret_duty)
{
	long enable;
	int r;

	if (f->saved.keys & HWS__FAN_KEY(ENABLE)) {
		r = hws__fan_read(f->saved.dir, "pwm%u_enable", f->saved.nr, &enable);
		if (r < 0)
			return r;
		if (enable != 1)
			return 0;
	}
	r = hws__fan_read(f->saved.dir, "pwm%u", f->saved.nr, ret_duty);
	return r < 0 ? r : 1;
}

static const char *enable_mode(long enable)
{
	return enable == 0 ? "full" : enable == 1 ? "manual" : enable > 1 ? "automatic" : "unknown";
}

static int info(struct hws_fan *f, struct hws_fan_info *i)
{
	long enable = 1;
	int r;

	r = hws__fan_read(f->saved.dir, "pwm%u_enable", f->saved.nr, &enable);
	if (r == -ENODEV)
		return r;
	i->mode = r == -ENOENT ? "manual" : r < 0 ? "unknown" : enable_mode(enable);
	return hws__fan_pwm_info_duty(f, i);
}

static int check(struct hws_fan *f)
{
	long duty;
	int r = hws__fan_pwm_check_read(f, &duty);

	return r <= 0 ? r : duty == f->left;
}

const struct hws__fan_ops hws__fan_hwmon_ops = {
	.driver = "hwmon", HWS__FAN_PWM_OUTPUT,
	.keys = HWS__FAN_KEY(DUTY), .optional_keys = HWS__FAN_KEY(ENABLE),
	.save = hws__fan_pwm_save, .restore = hws__fan_pwm_restore,
	.info = info, .take = hws__fan_pwm_take, .set = hws__fan_pwm_set, .check = check,
};
