/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_ALARMS_H
#define HWSD_ALARMS_H

/*
 * The table of active alarms (alarms.c): what began and ended is
 * published to the event sink. Everything but new/free runs on the poll
 * queue.
 */

#include <stddef.h>

#include <hwsight/sensors.h>

#include "config.h"

struct hwsd_alarms;
struct hwsd_events;

/* @sink: where the alarms and their ends are published. */
int hwsd_alarms_new(struct hwsd_events *sink, struct hwsd_alarms **ret);
struct hwsd_alarms *hwsd_alarms_free(struct hwsd_alarms *a);
/* After a read of @chip: publish what began and ended. */
void hwsd_alarms_check(struct hwsd_alarms *a, const struct hws_chip *chip, const struct hwsd_chip_conf *conf);
/* @chip vanished: its alarms end. */
void hwsd_alarms_forget_chip(struct hwsd_alarms *a, const char *chip);
/* The alarms of a feature in the table now: "min,max(configured)". */
void hwsd_alarms_active(struct hwsd_alarms *a, const char *chip, const char *sensor, char *buf, size_t size);
/* The conditions of a feature active now, "max,alarm" (stateless). */
void hwsd_alarms_describe(const struct hws_feature *f, const struct hwsd_chip_conf *conf,
			  char *buf, size_t size);

#endif
