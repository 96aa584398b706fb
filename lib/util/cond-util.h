/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_COND_UTIL_H
#define HWS_UTIL_COND_UTIL_H

/*
 * Condition variables whose timed waits follow CLOCK_MONOTONIC, so that a
 * wall-clock step (NTP, a suspend, the user) neither cuts a wait short nor
 * stretches it.
 */

#include <pthread.h>
#include <time.h>

/* Returns 0 or a negative errno from pthread_cond_init(). */
int hws__cond_init_monotonic(pthread_cond_t *cond);

/* The deadline @ms from now, for pthread_cond_timedwait() on such a
 * condition variable. */
struct timespec hws__cond_deadline_ms(unsigned int ms);

#endif
