/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HTTP_H
#define HWSD_HTTP_H

/* The pages of the HTTP side; each writes its body to @f. */

#include <stdio.h>

struct hwsd;

/* metrics.c: the Prometheus text exposition format, version 0.0.4. */
int hwsd_http_metrics(struct hwsd *d, FILE *f);

/* api.c: JSON. */
int hwsd_http_api_sensors(struct hwsd *d, FILE *f);
int hwsd_http_api_alarms(struct hwsd *d, FILE *f);

#endif
