/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "time-util.h"

#define NSEC_PER_SEC 1000000000ULL

uint64_t hws__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t hws__now_us(void)
{
	return hws__now_ns() / 1000;
}

uint64_t hws__now_ms(void)
{
	return hws__now_ns() / 1000000;
}

int64_t hws__realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec hws__timespec_from_ns(uint64_t ns)
{
	return (struct timespec){
		.tv_sec = (time_t)(ns / NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NSEC_PER_SEC),
	};
}
