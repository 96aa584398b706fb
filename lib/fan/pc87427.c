/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * National PC87427 (drivers/hwmon/pc87427.c). pwmN_enable reads 0 for
 * full speed, 1 for manual or off, 2 for automatic; 2 can be written back
 * only if the output was automatic when the driver loaded, and pwmN can
 * be written only in manual or off (EPERM otherwise). Writing pwmN = 0
 * switches to OFF without touching the duty register, so pwmN may read
 * the old duty back while the fan is off: the duty register's value is
 * kept in f->before, and check() takes either as "as left".
 */
#include <errno.h>

#include "fan/fan-internal.h"

static int info(struct hws_fan *f, struct hws_fan_info *i)
{
	long enable = -1;
	int r;

	r = hws__fan_read(f->saved.dir, "pwm%u_enable", f->saved.nr, &enable);
	if (r == -ENODEV)
		return r;
	r = hws__fan_pwm_info_duty(f, i);
	if (r < 0)
		return r;
	switch (enable) {
	case 0: i->mode = "full"; break;
	case 1:
		/* OFF reads as 1 too; it shows only as a duty of 0, or as the
		 * 0 this handle wrote. */
		i->mode = i->value == 0 || (f->taken && f->written == 0) ? "off" : "manual";
		break;
	case 2: i->mode = "automatic"; break;
	default: i->mode = "unknown"; break;
	}
	return 0;
}

static int take(struct hws_fan *f)
{
	int r = hws__fan_pwm_take(f);

	if (r >= 0)
		f->before = f->left;
	return r;
}

static int set(struct hws_fan *f, long value)
{
	int r = hws__fan_pwm_set(f, value);

	/* The duty register keeps the last non-zero duty. */
	if (r >= 0 && f->left != 0)
		f->before = f->left;
	return r;
}

static int check(struct hws_fan *f)
{
	long duty;
	int r = hws__fan_pwm_check_read(f, &duty);

	if (r <= 0)
		return r;
	if (duty == f->left)
		return 1;
	return f->set_since_take && f->written == 0 && (duty == 0 || duty == f->before);
}

const struct hws__fan_ops hws__fan_pc87427_ops = {
	.driver = "pc87427", HWS__FAN_PWM_OUTPUT,
	.keys = HWS__FAN_KEY(DUTY) | HWS__FAN_KEY(ENABLE), .key_max = { [HWS__FAN_ENABLE] = 2 },
	.save = hws__fan_pwm_save, .restore = hws__fan_pwm_restore,
	.info = info, .take = take, .set = set, .check = check,
};
