/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_SENSORS_H
#define HWSIGHT_SENSORS_H

/*
 * Hardware monitor chips (/sys/class/hwmon), read the way lm-sensors reads
 * them and as often as a daemon needs.
 *
 * A struct hws_sensors context finds every hwmon chip, classifies its
 * attributes by the kernel's hwmon sysfs ABI and names chips as libsensors
 * does ("w83793-i2c-0-2f"), so that sensors3.conf and /etc/sensors.d keep
 * working: labels, ignore and compute statements come from libsensors
 * itself, never from a parser of ours.
 *
 * The readers fill in the values and agree on them:
 *  - HWS_READER_LIBSENSORS calls sensors_get_value() for every value, which
 *    opens, reads and closes its file each time;
 *  - HWS_READER_PREAD opens every attribute once and re-reads it with one
 *    pread() at offset 0; compute statements are applied as libsensors
 *    would (see hws_sensors_read());
 *  - HWS_READER_FAST does the same reads as one io_uring submission per
 *    poll (one system call), and is HWS_READER_PREAD where io_uring is
 *    not available.
 *
 * libsensors keeps its state in process globals, so only one context may
 * exist at a time (a second hws_sensors_new() fails with -EBUSY). A context
 * is not thread-safe: use it from one thread, or one work item, at a time.
 */

#include <stdbool.h>
#include <stddef.h>

#include <hwsight/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The channel types of the hwmon sysfs ABI. */
enum hws_sensor_kind {
	HWS_SENSOR_IN,          /* voltage, V */
	HWS_SENSOR_FAN,         /* RPM */
	HWS_SENSOR_TEMP,        /* degrees Celsius */
	HWS_SENSOR_POWER,       /* W */
	HWS_SENSOR_ENERGY,      /* J */
	HWS_SENSOR_CURR,        /* A */
	HWS_SENSOR_HUMIDITY,    /* %RH */
	HWS_SENSOR_VID,         /* cpuN_vid, V */
	HWS_SENSOR_INTRUSION,   /* chassis intrusion */
	HWS_SENSOR_BEEP_ENABLE, /* the chip's global beep switch */
	HWS_SENSOR_PWM,         /* fan control output, 0..255 */
	HWS_SENSOR_LIGHT,       /* ambient light (applesmc's "light"), raw */
	HWS_SENSOR_KIND_MAX
};

/* What one attribute of a channel is: "temp1_max_hyst" is MAX_HYST. */
enum hws_sensor_item {
	HWS_ITEM_INPUT,
	HWS_ITEM_MIN,
	HWS_ITEM_MAX,
	HWS_ITEM_LCRIT,
	HWS_ITEM_CRIT,
	HWS_ITEM_EMERGENCY,
	HWS_ITEM_MIN_HYST,
	HWS_ITEM_MAX_HYST,
	HWS_ITEM_LCRIT_HYST,
	HWS_ITEM_CRIT_HYST,
	HWS_ITEM_EMERGENCY_HYST,
	HWS_ITEM_AVERAGE,
	HWS_ITEM_LOWEST,
	HWS_ITEM_HIGHEST,
	HWS_ITEM_ALARM,
	HWS_ITEM_MIN_ALARM,
	HWS_ITEM_MAX_ALARM,
	HWS_ITEM_LCRIT_ALARM,
	HWS_ITEM_CRIT_ALARM,
	HWS_ITEM_EMERGENCY_ALARM,
	HWS_ITEM_FAULT,
	HWS_ITEM_BEEP,
	HWS_ITEM_TYPE,
	HWS_ITEM_ENABLE,
	HWS_ITEM_OFFSET,
	HWS_ITEM_DIV,
	HWS_ITEM_MODE,
	HWS_ITEM_TARGET,
	HWS_ITEM_OTHER,
	HWS_ITEM_MAX_ITEM
};

/* hws_subfeature.flags */
enum {
	/* Changes on its own (inputs, alarms, faults): read on every poll.
	 * The rest are settings (limits, beep masks, types), which drivers
	 * cache and which change only when someone writes them. */
	HWS_SUB_LIVE = 1u << 0,
	/* Not known to libsensors (pwm, applesmc's fanN_safe ...): shown by
	 * hwsight, left out of the "sensors -j" shaped output. */
	HWS_SUB_EXTRA = 1u << 1,
	/* A compute statement of the configuration applies to it. */
	HWS_SUB_COMPUTED = 1u << 2,
};

struct hws_subfeature {
	const char *name;          /* the sysfs attribute, "temp1_max_hyst" */
	enum hws_sensor_item item;
	unsigned flags;            /* HWS_SUB_* */
	double value;              /* in the units of the kind, compute applied */
	int error;                 /* 0, or the negative errno of the last read */
};

struct hws_feature {
	const char *name;          /* "temp1", "in0", "intrusion0", "beep_enable" */
	const char *label;         /* config label, driver label or chip default */
	enum hws_sensor_kind kind;
	size_t n_subfeatures;
	struct hws_subfeature *subfeatures;
	/* What libsensors' sensors_get_label() says (config label, driver
	 * label, else the feature's name: never hwsight's chip defaults),
	 * which is what "sensors -j" keys the feature by. NULL for a feature
	 * libsensors does not list (pwm, light, or on an unlisted chip). */
	const char *sensors_label;
};

struct hws_chip {
	const char *name;          /* as libsensors prints it: "w83793-i2c-0-2f" */
	const char *prefix;        /* the hwmon name: "w83793" */
	const char *adapter;       /* "SMBus stub driver", "ISA adapter" ... */
	const char *path;          /* the directory holding the attributes */
	bool present;              /* false once the chip vanished (unbound) */
	size_t n_features;
	struct hws_feature *features;
	/* libsensors lists the chip, so sensors(1) shows it. A chip on a bus
	 * libsensors does not know, or with no feature it knows (a lone
	 * pwm1_enable), is named by hwsight and left out of "sensors -j". */
	bool listed;
};

enum hws_sensors_reader {
	HWS_READER_FAST,           /* one io_uring submission per poll */
	HWS_READER_LIBSENSORS,     /* sensors_get_value() per value */
	HWS_READER_PREAD,          /* one pread() per value */
};

struct hws_sensors_options {
	/* A sensors.conf to use instead of /etc/sensors3.conf (libsensors
	 * still reads /etc/sensors.d only with the default). NULL: default. */
	const char *config;
	enum hws_sensors_reader reader;
	/* The fast reader re-reads settings (limits...) no more often than
	 * this; 0 means 60000. Live values are read on every poll. */
	unsigned settings_refresh_ms;
	/* Where to report what libsensors says about the config
	 * ("FILE:LINE: reason"), and other debug detail. May be NULL. */
	void (*log)(void *userdata, const char *message);
	void *log_userdata;
};

/* hws_sensors_read() flags */
enum {
	/* Re-read the settings too, whatever settings_refresh_ms says. */
	HWS_READ_SETTINGS = 1u << 0,
};

struct hws_sensors;

/**
 * hws_sensors_new - find every hwmon chip and load the sensors config
 * @opts: options, or NULL for the defaults (fast reader, default config)
 * @ret_sensors: the new context
 *
 * Return: 0, -EBUSY if another context exists, -ENOENT if the config file
 * does not exist, -EINVAL if libsensors refuses it (the reason goes to
 * the log hook), or another negative errno.
 * Finding no chip is not an error.
 */
HWS_EXPORT int hws_sensors_new(const struct hws_sensors_options *opts,
			       struct hws_sensors **ret_sensors);

/**
 * hws_sensors_free - close every attribute and release libsensors
 * Return: NULL.
 */
HWS_EXPORT struct hws_sensors *hws_sensors_free(struct hws_sensors *s);

/**
 * hws_sensors_read - read every value of every present chip
 * @s: context
 * @flags: HWS_READ_*
 *
 * A value that cannot be read (EIO, ENODATA, EAGAIN, or text that is not a
 * number) gets its own error and the others are read on. A chip whose
 * files vanish (unbound, ENODEV) is marked not present, its files closed;
 * hws_sensors_rescan() finds it again. The first read of a chip reads
 * settings too.
 *
 * Return: the number of values read successfully, or a negative errno.
 */
HWS_EXPORT int hws_sensors_read(struct hws_sensors *s, unsigned flags);

/**
 * hws_sensors_read_chip - read every value of one chip
 * @s: context
 * @index: the chip, as hws_sensors_chip() numbers them
 * @flags: HWS_READ_*
 *
 * What hws_sensors_read() does, for one chip: a daemon polling chips at
 * their own intervals reads each when it is due. Settings are re-read per
 * chip, settings_refresh_ms after that chip's last.
 *
 * Return: the number of values read successfully, -ENODEV if the chip is
 * not present (or vanished during this read), -EINVAL for a bad index, or
 * another negative errno.
 */
HWS_EXPORT int hws_sensors_read_chip(struct hws_sensors *s, size_t index, unsigned flags);

/**
 * hws_sensors_rescan - pick up chips that appeared or came back
 *
 * Cheap when nothing changed (one directory listing). When the set of
 * chips changed, libsensors is reloaded and every struct hws_chip pointer
 * obtained before is invalid. The reload reads the sensors config as
 * hws_sensors_new() read it: edits made since take a new context.
 *
 * Return: 1 if the chips changed, 0 if not, or a negative errno.
 */
HWS_EXPORT int hws_sensors_rescan(struct hws_sensors *s);

/**
 * hws_sensors_reconfigure - load new options into a context, or keep the old
 * @s: context
 * @opts: what hws_sensors_new() would take
 *
 * libsensors allows one context, so a daemon told to reload cannot make
 * the new context beside the old one. This reads the new config the way
 * hws_sensors_new() reads it; if that fails, the context goes on with
 * the config and options it had. Either way the chips are scanned again
 * and every struct hws_chip pointer obtained before is invalid.
 *
 * Return: 0 when the new options are in force; -EINVAL if libsensors
 * refuses the config (the reason goes to the new log hook), -ENOENT if
 * it does not exist, or another negative errno, with the old options in
 * force (or, should even they fail now, no chip).
 */
HWS_EXPORT int hws_sensors_reconfigure(struct hws_sensors *s, const struct hws_sensors_options *opts);

/** hws_sensors_chip_count - the number of chips found */
HWS_EXPORT size_t hws_sensors_chip_count(const struct hws_sensors *s);

/** hws_sensors_chip - the chip at @index, NULL past the end */
HWS_EXPORT const struct hws_chip *hws_sensors_chip(const struct hws_sensors *s, size_t index);

/**
 * hws_sensors_chip_match - does @chip match a libsensors chip name pattern
 * @chip: a chip of @s, or NULL to only check that @pattern parses
 * @pattern: "w83793-*", "*-isa-*", "applesmc-isa-0300" ...
 *
 * Return: 1 if it matches, 0 if not (or @chip is NULL), -EINVAL if the
 * pattern does not parse.
 */
HWS_EXPORT int hws_sensors_chip_match(const struct hws_sensors *s, const struct hws_chip *chip,
				      const char *pattern);

/**
 * hws_sensors_apply_sets - write the config's "set" statements to a chip
 *
 * What "sensors -s" does, through libsensors. Needs write access to sysfs.
 *
 * Return: 0 or a negative errno.
 */
HWS_EXPORT int hws_sensors_apply_sets(struct hws_sensors *s, const struct hws_chip *chip);

/** hws_sensor_kind_name - "in", "fan", "temp" ...; NULL if out of range */
HWS_EXPORT const char *hws_sensor_kind_name(enum hws_sensor_kind kind);

/** hws_sensor_unit - "V", "RPM", "°C" ... for the input of a kind ("" if none) */
HWS_EXPORT const char *hws_sensor_unit(enum hws_sensor_kind kind);

/**
 * hws_subfeature_find - a feature's subfeature by item, NULL if it has none
 */
HWS_EXPORT const struct hws_subfeature *hws_subfeature_find(const struct hws_feature *feature,
							    enum hws_sensor_item item);

/**
 * hws_chip_pwm_mode_name - what a chip's pwmN_enable value means
 *
 * Return: "manual", "automatic", "off" ... for this chip's driver, or NULL
 * if hwsight does not know.
 */
HWS_EXPORT const char *hws_chip_pwm_mode_name(const struct hws_chip *chip, long enable);

#ifdef __cplusplus
}
#endif

#endif
