/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_SLEEP_H
#define HWSD_SLEEP_H

/* Suspend (sleep.c): logind's PrepareForSleep freezes the queues. */

#include <stdbool.h>
#include <systemd/sd-event.h>

struct hwsd;
struct hwsd_sleep;

int hwsd_sleep_new(struct hwsd *d, sd_event *e, struct hwsd_sleep **ret);
struct hwsd_sleep *hwsd_sleep_free(struct hwsd_sleep *s);
/* Freeze (before sleep) or thaw and poll at once (after); main thread. */
void hwsd_sleep_prepare(struct hwsd *d, bool start);

#endif
