/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_SLEEP_H
#define HWSD_SLEEP_H

/*
 * Suspend (sleep.c): logind's PrepareForSleep, on the main loop. The
 * system waits (a delay lock) until @prepare has returned for the way
 * down; @prepare(start=false) follows the wake-up. Without a system bus
 * nothing is said, and the daemon runs on.
 */

#include <stdbool.h>
#include <systemd/sd-event.h>

struct hwsd_sleep;

int hwsd_sleep_new(sd_event *e, void (*prepare)(void *userdata, bool start), void *userdata,
		   struct hwsd_sleep **ret);
struct hwsd_sleep *hwsd_sleep_free(struct hwsd_sleep *s);

#endif
