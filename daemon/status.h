/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_STATUS_H
#define HWSD_STATUS_H

/*
 * STATUS= belongs to the main loop. A job that changes what it counts
 * (chips polled, cameras present, alarms, a freeze) only says so here,
 * from any thread, without waiting: an eventfd that the main loop
 * watches, reads, and then formats the line from the counters itself.
 */

#include <stdbool.h>

struct hwsd_subscriber;

struct hwsd_status {
	int fd;   /* eventfd; -1 before init or when it failed */
};

int hwsd_status_init(struct hwsd_status *s);
void hwsd_status_done(struct hwsd_status *s);
/* Something STATUS= shows changed; any thread, never blocks. */
void hwsd_status_changed(struct hwsd_status *s);
/* In the main loop, when the fd is readable: true if a change was said. */
bool hwsd_status_take(struct hwsd_status *s);

/* Alarms and motions change the counts too. Userdata: the struct hwsd_status. */
extern const struct hwsd_subscriber hwsd_status_subscriber;

#endif
