/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_POLLERS_H
#define HWSD_POLLERS_H

/*
 * The sensor pollers (pollers.c): one self-rearming delayed_work per chip
 * on the freezeable poll queue. start, stop, kick and rescan are called
 * from the main thread.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <hwsight/workqueue.h>

#include "config.h"

struct hwsd;

/* One per chip name ever seen; a poller whose chip vanished stops
 * re-arming until a rescan finds the chip again. */
struct hwsd_poller {
	struct delayed_work dwork;
	struct hwsd *d;
	char *chip_name;
	const struct hwsd_chip_conf *conf; /* may be NULL */
	unsigned interval_ms;
	bool active;                       /* P: poll queue (or stopped) */
	uint64_t polls;                    /* P */
	struct hwsd_poller *next;
};

void hwsd_pollers_init(struct hwsd *d);
int hwsd_pollers_start(struct hwsd *d);
void hwsd_pollers_stop(struct hwsd *d);
void hwsd_pollers_kick(struct hwsd *d);         /* poll everything now */
void hwsd_pollers_rescan(struct hwsd *d);        /* from the hotplug monitor */
void hwsd_pollers_heartbeat(struct hwsd *d);     /* for the watchdog */
int hwsd_pollers_once(struct hwsd *d, FILE *out);

#endif
