/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_FAN_H
#define HWSIGHT_FAN_H

/*
 * Fan outputs: taking a fan from its chip's own control, driving it, and
 * handing it back exactly as it was found.
 *
 * An output is a chip plus "pwmN" (a duty cycle, 0..255) or, on applesmc,
 * "fanN" (a speed in RPM). How an output is taken depends on its driver:
 *
 * - w83793 has no pwmN_enable: a pwm obeys the chip's Smart Fan while any
 *   tempM_auto_channels_pwm holds its bit, so taking it clears that bit in
 *   all six maps; the bits and the duty are put back on release.
 * - pc87427: pwmN_enable 1 (manual); 0 is full speed, 2 automatic (only
 *   if the output was automatic when the driver loaded).
 * - applesmc, HWS_FAN_HOLD_MANUAL: fanN_manual=1, the target in fanN_output;
 *   HWS_FAN_HOLD_FLOOR: only fanN_min is raised and the SMC stays in
 *   charge, so a dead daemon leaves at worst a faster fan.
 * - any other chip with the standard pwm ABI: pwmN_enable 1, pwmN.
 *
 * What an output was before it was taken is kept in the handle and can be
 * written out as one line of text (hws_fan_saved()), so that a process that
 * died holding it can be undone by another (hws_fan_restore_saved()).
 *
 * A handle is not thread-safe: one thread at a time.
 *
 * Errors common to every call that reads the chip: -ENODEV once the chip
 * is gone, -EACCES for a write without the right (not root), -EBADMSG for
 * a file that holds no number (empty, text: a broken driver).
 */

#include <stdbool.h>
#include <stddef.h>

#include <hwsight/common.h>
#include <hwsight/sensors.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What hws_fan_set() takes. */
enum hws_fan_unit {
	HWS_FAN_UNIT_DUTY, /* pwmN: 0..255, 255 = full */
	HWS_FAN_UNIT_RPM,  /* applesmc fanN: a speed */
};

/* How an output is held. */
enum hws_fan_hold {
	HWS_FAN_HOLD_MANUAL, /* the output obeys only the holder */
	HWS_FAN_HOLD_FLOOR,  /* applesmc: fanN_min raised, the SMC in charge */
};

struct hws_fan_options {
	enum hws_fan_hold hold;
	/* The fanN whose fanN_input measures this output ("fan3"); NULL:
	 * the output's own number (pwm2 -> fan2, applesmc fan1 -> fan1). */
	const char *tach;
};

struct hws_fan_info {
	const char *driver;    /* "w83793", "pc87427", "applesmc", "hwmon" */
	enum hws_fan_unit unit;
	long min, max;         /* what hws_fan_set() takes: 0..255, or fanN_min..fanN_max RPM */
	/* The mode now: "manual", "smart fan" (w83793, mapped), "automatic",
	 * "full", "off", "floor" (applesmc held by a raised minimum). */
	const char *mode;
	long value;            /* duty or target RPM now; -1 if unreadable */
	long rpm;              /* what the tach reads now; -1 if none or unreadable */
	bool held;             /* taken by this handle, and as it left it */
};

struct hws_fan;

/**
 * hws_fan_outputs - the controllable outputs of a chip
 * @chip: a chip of a hws_sensors context
 * @names: filled with up to @max output names ("pwm1", "fan2"), pointing
 *         into @chip (valid while it is)
 * @max: room in @names
 *
 * An output is controllable when its files exist and are writable by
 * someone (root); whether the caller may write them is found at take.
 *
 * Return: the number of outputs the chip has (may exceed @max), or a
 * negative errno.
 */
HWS_EXPORT int hws_fan_outputs(const struct hws_chip *chip, const char **names, size_t max);

/**
 * hws_fan_open - a handle on one output; touches nothing
 * @chip: the chip
 * @output: "pwmN", or "fanN" on applesmc
 * @opts: NULL for HWS_FAN_HOLD_MANUAL and the output's own tach
 * @ret: the handle
 *
 * Return: 0; -ENOENT if the chip has no such output; -EINVAL for a hold
 * the driver does not have (FLOOR on a pwm); -ENOMEM.
 */
HWS_EXPORT int hws_fan_open(const struct hws_chip *chip, const char *output,
			    const struct hws_fan_options *opts, struct hws_fan **ret);

/** hws_fan_free - free a handle without touching the output; returns NULL */
HWS_EXPORT struct hws_fan *hws_fan_free(struct hws_fan *f);

/**
 * hws_fan_info - what the output is doing now (reads the chip)
 *
 * Return: 0 or a negative errno (-ENODEV once the chip is gone).
 */
HWS_EXPORT int hws_fan_info(struct hws_fan *f, struct hws_fan_info *info);

/**
 * hws_fan_save - read and keep what the output is now, touching nothing
 *
 * What hws_fan_take() keeps at the first take, for a caller that must
 * record it (hws_fan_saved()) before anything is written. Does nothing
 * once saved; hws_fan_release() puts the saved state back even if no
 * take followed.
 *
 * Return: 0 or a negative errno.
 */
HWS_EXPORT int hws_fan_save(struct hws_fan *f);

/**
 * hws_fan_take - take the output
 *
 * The first take saves the output's mode and value in the handle; a later
 * take (after a resume, or to take back what another program changed)
 * re-takes it and keeps the first save. The value is left as it was until
 * hws_fan_set().
 *
 * Return: 0 or a negative errno (-EACCES, -ENODEV, or what the driver
 * answers); on error the output is as it was.
 */
HWS_EXPORT int hws_fan_take(struct hws_fan *f);

/**
 * hws_fan_set - drive a taken output
 * @value: duty 0..255 or RPM; clamped to the info's min..max
 *
 * Return: 0; -EPERM if the output is not taken; or a negative errno.
 */
HWS_EXPORT int hws_fan_set(struct hws_fan *f, long value);

/**
 * hws_fan_check - is the output still as this handle left it?
 *
 * Return: 1 if so; 0 if another program changed its mode or value (or
 * firmware did, across a suspend); -EPERM if not taken; a negative errno
 * if it cannot be read.
 */
HWS_EXPORT int hws_fan_check(struct hws_fan *f);

/**
 * hws_fan_release - give the output back as it was saved at the first take
 *
 * Restores the value first, then the mode. Nothing to do if never taken.
 *
 * Return: 0 or a negative errno; the handle no longer holds the output
 * either way.
 */
HWS_EXPORT int hws_fan_release(struct hws_fan *f);

/**
 * hws_fan_saved - the saved original as one line of text
 * @buf: room for the line and its NUL; it holds no newline
 *
 * The line names the device by its sysfs path, so that
 * hws_fan_restore_saved() needs no chip context.
 *
 * Return: the line's length; -ENODATA if never taken; -ENOSPC.
 */
HWS_EXPORT int hws_fan_saved(const struct hws_fan *f, char *buf, size_t size);

/**
 * hws_fan_restore_saved - restore an output from a hws_fan_saved() line
 *
 * For a process whose holder died: what hws_fan_release() would have done.
 *
 * Return: 0; -EINVAL if the line does not parse, or names a directory
 * outside /sys (or outside the umockdev testbed that stands for it);
 * -ENODEV if the device is gone; or what the driver answers.
 */
HWS_EXPORT int hws_fan_restore_saved(const char *line);

#ifdef __cplusplus
}
#endif

#endif
