/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_SENSORS_INTERNAL_H
#define HWS_SENSORS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sensors/sensors.h>

#include <hwsight/sensors.h>

/*
 * The public structs are arrays a caller walks; what the readers need per
 * value lives in arrays parallel to them, so the public layout stays small.
 */

/* How a compute statement maps a value, as probed through libsensors. */
enum hws__compute {
	HWS_COMPUTE_NONE,
	HWS_COMPUTE_AFFINE, /* value = a * x + b */
	HWS_COMPUTE_OPAQUE, /* anything else: ask sensors_get_value() */
};

/* Bytes asked for per read: a value is at most 20 characters (a C long);
 * a read that fills the request is a value that does not fit. */
#define HWS_RAW_READ 31

struct hws__sub_priv {
	char raw[HWS_RAW_READ + 1]; /* the last read's bytes */
	int fd;            /* fast reader: the open attribute, or -1 */
	const char *file;  /* the attribute, when not the subfeature's name */
	int tuple;         /* the element of a "(a,b)" attribute, or -1 */
	int sensors_nr;    /* libsensors' subfeature number, -1 if unknown to it */
	double scale;      /* the file holds value * scale */
};

struct hws__feature_priv {
	struct hws__sub_priv *subs; /* parallel to hws_feature.subfeatures */
	const sensors_feature *sf;  /* libsensors' feature, or NULL */
	enum hws__compute compute;
	double a, b;
};

struct hws__chip {
	struct hws_chip pub;
	struct hws__feature_priv *features; /* parallel to pub.features */
	char *hwmon;                        /* "hwmon3", to notice it is gone */
	const sensors_chip_name *sensors;   /* libsensors' chip, or NULL */
	bool settings_read;                 /* every value read at least once */
	bool read_settings;                 /* this read includes the settings */
	uint64_t settings_due_ms;           /* CLOCK_MONOTONIC */
};

/* batch.c: one io_uring submission per poll for the fast reader. */
struct hws__batch;
int hws__batch_new(struct hws__batch **ret);
void hws__batch_free(struct hws__batch *b);
/* Like hws__read_chip() for every chip, settings where read_settings says;
 * a chip found gone is marked not present (its files still open).
 * Returns the values read or -errno. */
int hws__batch_read(struct hws__batch *b, struct hws__chip **chips, size_t n);

struct hws_sensors {
	struct hws_sensors_options opts;
	struct hws__batch *batch;           /* fast reader with io_uring, or NULL */
	char *config;                       /* owned copy of opts.config */
	char *config_text;                  /* as read at the start (sensors-conf.c) */
	size_t config_len;
	struct hws__chip **chips;
	size_t n_chips;
	bool libsensors_loaded;
	unsigned config_errors;             /* counted by the parse hooks */
};

#define hws__chip_of(c) ((struct hws__chip *)((char *)(c) - offsetof(struct hws__chip, pub)))

/* hwmon.c: discovery and classification, from sysfs alone. */
int hws__hwmon_scan(struct hws__chip ***ret_chips, size_t *ret_n);
/* The hwmonN names in /sys/class/hwmon, hwmon2 before hwmon10; the caller
 * frees them with hws__hwmon_names_free(). */
int hws__hwmon_list(char ***ret_names, size_t *ret_n);
void hws__hwmon_names_free(char **names, size_t n);
void hws__chip_free(struct hws__chip *chip);
void hws__feature_clear(struct hws_feature *f, struct hws__feature_priv *p);
bool hws__item_is_live(enum hws_sensor_item item);
int hws__parse_value(const char *text, double *ret);
int hws__parse_tuple(const char *text, int index, double *ret);
/* One attribute, split into its channel and item by its file name alone;
 * hws__attr_classify() returns 0, or -EINVAL for no channel attribute. */
struct hws__attr_class {
	enum hws_sensor_kind kind;
	char feature[32];
	enum hws_sensor_item item;
	bool is_label;
	double scale;
};
int hws__attr_classify(const char *name, struct hws__attr_class *c);

/* chips.c: what hwsight knows about particular chips. */
const char *hws__chip_default_label(const char *prefix, const char *feature);

/* libsensors.c: the bridge. */
/* The config's text now: the file at @path, or the default files. */
int hws__sensors_conf_snapshot(const char *path, char **ret_text, size_t *ret_len);
/* Load libsensors with the config: its files, or @again what they held
 * at the first load. */
int hws__libsensors_load(struct hws_sensors *s, bool again);
void hws__libsensors_unload(struct hws_sensors *s);
int hws__libsensors_merge(struct hws_sensors *s, struct hws__chip *chip);
int hws__libsensors_read(struct hws__chip *chip, size_t f, size_t i, double *ret);
double hws__compute_apply(const struct hws__chip *chip, size_t f, size_t i, double x);

/* reader.c: the readers behind one ops struct, and what they share with
 * the batch. */
int hws__attr_error(const struct hws__chip *chip, int err);
int hws__attr_fd(struct hws__chip *chip, size_t f, size_t i);
bool hws__needs_libsensors(const struct hws__chip *chip, size_t f, size_t i);
int hws__finish_value(struct hws__chip *chip, size_t f, size_t i, size_t len, double *ret);
struct hws__reader_ops {
	const char *name;
	/* One value, in the kind's units with compute applied; -ENODEV
	 * when the chip is gone, another negative errno for this value. */
	int (*read_value)(struct hws__chip *chip, size_t f, size_t i, double *ret);
	void (*close_chip)(struct hws__chip *chip);
};
extern const struct hws__reader_ops hws__reader_fast;
extern const struct hws__reader_ops hws__reader_libsensors;
/* Live values, and settings too if asked; returns how many were read,
 * or -ENODEV when the chip is gone. */
int hws__read_chip(const struct hws__reader_ops *ops, struct hws__chip *chip, bool settings);

#endif
