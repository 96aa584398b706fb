/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_TIME_UTIL_H
#define HWS_UTIL_TIME_UTIL_H

/*
 * CLOCK_MONOTONIC in the unit each caller keeps time in. The clock cannot
 * fail on Linux when given a valid id and pointer, so these return the
 * time itself rather than an error.
 */

#include <stdint.h>
#include <time.h>

uint64_t hws__now_ns(void);
uint64_t hws__now_us(void);
uint64_t hws__now_ms(void);

/* CLOCK_REALTIME in ms since the epoch: a time to show a user, never one
 * to measure with (it steps). */
int64_t hws__realtime_ms(void);

/* A CLOCK_MONOTONIC time in ns as the timespec that clock_nanosleep(),
 * timerfd_settime() and pthread_cond_timedwait() take. */
struct timespec hws__timespec_from_ns(uint64_t ns);

#endif
