/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_FAN_INTERNAL_H
#define HWS_FAN_INTERNAL_H

#include <limits.h>
#include <stdbool.h>

#include <hwsight/fan.h>

/*
 * What an output was before it was taken: the values a backend saves, by
 * key. Each backend says which keys it keeps (hws__fan_ops.keys); the
 * saved line carries exactly those, so that a line parses only for the
 * driver it names.
 */
#define HWS__FAN_KEYS(X)                                                        \
	X(ENABLE, "enable", 0, 255)  /* pwmN_enable */                          \
	X(DUTY, "duty", 0, 255)      /* pwmN */                                 \
	X(MAPS, "maps", 0, 0x3f)     /* w83793: the tempM maps holding the bit */ \
	X(MANUAL, "manual", 0, 1)    /* applesmc fanN_manual */                  \
	X(OUTPUT, "output", 0, 0x3fff) /* applesmc fanN_output (below 0x4000) */ \
	X(MIN, "min", 0, 0x3fff)     /* applesmc fanN_min */

enum hws__fan_key {
#define X(key, name, lo, hi) HWS__FAN_##key,
	HWS__FAN_KEYS(X)
#undef X
	HWS__FAN_NKEYS
};

#define HWS__FAN_KEY(key) (1u << HWS__FAN_##key)

/* Outputs are numbered 1..HWS__FAN_MAX_NR ("pwm1", "fan12"). */
#define HWS__FAN_MAX_NR 32

struct hws__fan_ops;

struct hws__fan_saved {
	const struct hws__fan_ops *ops;
	char dir[PATH_MAX];       /* the chip's sysfs directory */
	unsigned nr;              /* the N of pwmN / fanN */
	enum hws_fan_hold hold;
	unsigned keys;            /* HWS__FAN_KEY() bits present in v[] */
	long v[HWS__FAN_NKEYS];
};

/* The handle. The backend's part is what it left (left, before). */
struct hws_fan {
	const struct hws__fan_ops *ops;
	char output[16];          /* "pwm2", "fan1" */
	char tach[16];            /* "fan2": its fanN_input is the RPM */
	bool taken;
	bool saved_valid;
	struct hws__fan_saved saved; /* dir, nr and hold always set */
	/* What the handle left: the value it read back right after its last
	 * write (or at take), and the last value it asked for. */
	long left, written;
	/* The duty register's value, where the driver may show it instead
	 * of what was asked (pc87427 in OFF). Backends keep it. */
	long before;
	bool set_since_take;
};

/*
 * A backend: one driver's way of taking an output. All take the handle
 * or, for restore, only the saved state (no chip context is needed).
 */
struct hws__fan_ops {
	const char *driver;       /* hws_fan_info.driver and the saved line's */
	enum hws_fan_unit unit;
	const char *prefix;       /* "pwm" or "fan": the output's name */
	bool floor;               /* HWS_FAN_HOLD_FLOOR exists */
	unsigned keys;            /* the keys save() fills (all required) */
	unsigned optional_keys;   /* keys that may be absent (no pwmN_enable) */
	long key_max[HWS__FAN_NKEYS]; /* tighter upper bounds; 0: the default */
	/* The output's files exist: 0 or -ENOENT. */
	int (*probe)(const char *dir, unsigned nr);
	/* Can be written by someone: 1, 0, or a negative errno. */
	int (*controllable)(const char *dir, unsigned nr);
	/* Fills mode, value, min and max. */
	int (*info)(struct hws_fan *f, struct hws_fan_info *info);
	/* Reads what take() will change into @s (keys and v): 0 or a
	 * negative errno. */
	int (*save)(struct hws_fan *f, struct hws__fan_saved *s);
	/* Takes the output; sets f->left. On error the output is as it was. */
	int (*take)(struct hws_fan *f);
	/* Writes @value (in range) and sets f->left from a read-back. */
	int (*set)(struct hws_fan *f, long value);
	/* 1 if as the handle left it, 0 if not, or a negative errno. */
	int (*check)(struct hws_fan *f);
	/* Puts @s back: the value first, then the mode. */
	int (*restore)(const struct hws__fan_saved *s);
};

/* hwmon-pwm.c: pwmN as the hwmon ABI has it, for every pwm backend. Their
 * ops start with HWS__FAN_PWM_OUTPUT: a duty in pwmN, found and judged
 * writable the same way. */
#define HWS__FAN_PWM_OUTPUT \
	.unit = HWS_FAN_UNIT_DUTY, .prefix = "pwm", \
	.probe = hws__fan_pwm_probe, .controllable = hws__fan_pwm_controllable
int hws__fan_pwm_probe(const char *dir, unsigned nr);
int hws__fan_pwm_controllable(const char *dir, unsigned nr);
/* Writes pwmN and reads it back into f->left. */
int hws__fan_pwm_set(struct hws_fan *f, long value);
/* pwmN_enable and pwmN, where the saved state has an enable: */
int hws__fan_pwm_save(struct hws_fan *f, struct hws__fan_saved *s);
int hws__fan_pwm_take(struct hws_fan *f);
int hws__fan_pwm_restore(const struct hws__fan_saved *s);
/* info(): the duty into i->value (-1 if unreadable), min 0, max 255. */
int hws__fan_pwm_info_duty(struct hws_fan *f, struct hws_fan_info *i);
/* check(): 0 if pwmN_enable (where saved) is not manual, else 1 with
 * the duty read; or a negative errno. */
int hws__fan_pwm_check_read(struct hws_fan *f, long *ret_duty);

extern const struct hws__fan_ops hws__fan_w83793_ops;
extern const struct hws__fan_ops hws__fan_pc87427_ops;
extern const struct hws__fan_ops hws__fan_applesmc_ops;
extern const struct hws__fan_ops hws__fan_hwmon_ops;

/* fan.c: the backends' sysfs access. Attributes are "dir/NAME" where
 * NAME is printf'd from @fmt and @nr ("pwm%u_enable"). */

/* Reads a decimal attribute. -ENOENT if the chip has no such file,
 * -ENODEV if the chip's directory is gone, -EBADMSG if it holds no number
 * (empty, text, too long). */
int hws__fan_read(const char *dir, const char *fmt, unsigned nr, long *ret);
/* Writes a decimal attribute; the same errors, and the driver's. */
int hws__fan_write(const char *dir, const char *fmt, unsigned nr, long value);
/* 1 if the attribute exists and has a write bit, 0 if not, -errno. */
int hws__fan_writable(const char *dir, const char *fmt, unsigned nr);
/* The first of two errors, for paths that go on after one. */
static inline int hws__fan_first_error(int r, int next)
{
	return r < 0 ? r : next;
}

/* The saved line (fan.c). */
int hws__fan_saved_format(const struct hws__fan_saved *s, char *buf, size_t size);
int hws__fan_saved_parse(const char *line, struct hws__fan_saved *ret);
/* The backend a driver name or hwmon prefix is for; NULL if none by that
 * name (by_prefix gives the generic one for any other chip). */
const struct hws__fan_ops *hws__fan_ops_by_driver(const char *driver);
const struct hws__fan_ops *hws__fan_ops_by_prefix(const char *prefix);

#endif
