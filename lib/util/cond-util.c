/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cond-util.h"
#include "time-util.h"

int hws__cond_init_monotonic(pthread_cond_t *cond)
{
	pthread_condattr_t attr;
	int r;

	r = pthread_condattr_init(&attr);
	if (r)
		return -r;
	r = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (!r)
		r = pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
	return -r;
}

struct timespec hws__cond_deadline_ms(unsigned int ms)
{
	return hws__timespec_from_ns(hws__now_ns() + (uint64_t)ms * 1000000);
}
