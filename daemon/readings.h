/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_READINGS_H
#define HWSD_READINGS_H

/*
 * The latest readings, as the HTTP side serves them. The pollers own the
 * sensors context and publish a copy of each chip after each poll; readers
 * (the HTTP thread) take the lock only to walk the copy, so a slow client
 * never holds up a poll.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <hwsight/sensors.h>

/* A subfeature as "sensors -j" shows it. */
struct hwsd_sub_reading {
	char *name;
	double value;              /* NaN: unreadable */
};

struct hwsd_feature_reading {
	char *name;
	char *label;
	char *sensors_label;       /* the key in sensors -j; NULL: not there */
	size_t n_subs;             /* what sensors -j shows of the feature */
	struct hwsd_sub_reading *subs;
	enum hws_sensor_kind kind;
	double input;              /* NaN: none, or unreadable */
	double min, max, crit;     /* NaN when the chip has none */
	bool has_alarm, has_fault; /* the chip has such bits for it */
	bool alarm;                /* one of the chip's alarm bits */
	bool fault;
	char alarms[96];           /* the active alarms, "min,max(configured)" */
};

struct hwsd_chip_reading {
	char *name;
	char *prefix;
	char *adapter;
	bool listed;               /* by libsensors, hence in sensors -j */
	bool present;
	uint64_t polls;
	int64_t updated_ms;        /* CLOCK_REALTIME of the last poll */
	size_t n_features;
	struct hwsd_feature_reading *features;
};

struct hwsd_readings {
	pthread_mutex_t lock;
	struct hwsd_chip_reading *chips;  /* L: lock */
	size_t n_chips;                   /* L: lock */
};

/* A subfeature's value, or NaN if the feature has none or it failed. */
double hwsd_feature_value(const struct hws_feature *f, enum hws_sensor_item item);

void hwsd_readings_init(struct hwsd_readings *r);
void hwsd_readings_done(struct hwsd_readings *r);
/* After a poll of @chip; @alarms(feature index) gives its active alarms. */
int hwsd_readings_update(struct hwsd_readings *r, const struct hws_chip *chip, uint64_t polls,
			 void (*alarms)(void *userdata, size_t f, char *buf, size_t size),
			 void *userdata);
void hwsd_readings_gone(struct hwsd_readings *r, const char *chip);
/* The names of the chips @r shows present, in a NULL-terminated array in
 * *@ret: the caller frees each name and the array. Return: 0 or -ENOMEM. */
int hwsd_readings_present(struct hwsd_readings *r, char ***ret);

#endif
