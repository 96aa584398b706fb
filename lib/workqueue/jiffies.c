/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sched.h>

#include <hwsight/jiffies.h>

#include "time-util.h"

/*
 * One jiffy is 10^7/3 ns, not a whole number of nanoseconds, so the
 * conversions multiply by 3 and divide by 10^7 (exact for 190 years of
 * uptime) instead of dividing by a rounded period.
 */
#define NS_PER_3_JIFFIES 10000000ULL

unsigned long hws_jiffies(void)
{
	return INITIAL_JIFFIES + (unsigned long)(hws__now_ns() * 3 / NS_PER_3_JIFFIES);
}

unsigned long long hws_jiffies_to_monotonic_ns(unsigned long j)
{
	unsigned long long ticks = (unsigned long long)(j - INITIAL_JIFFIES);

	/* First nanosecond at which hws_jiffies() reads @j: round up. */
	return (ticks * NS_PER_3_JIFFIES + 2) / 3;
}

unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)((unsigned long long)j * 1000 / HZ);
}

unsigned int jiffies_to_usecs(unsigned long j)
{
	return (unsigned int)((unsigned long long)j * 1000000 / HZ);
}

static unsigned long units_to_jiffies(unsigned long long v, unsigned long long per_sec)
{
	unsigned long long j = (v * HZ + per_sec - 1) / per_sec;

	return j > MAX_JIFFY_OFFSET ? MAX_JIFFY_OFFSET : (unsigned long)j;
}

unsigned long msecs_to_jiffies(unsigned int m)
{
	return units_to_jiffies(m, 1000);
}

unsigned long usecs_to_jiffies(unsigned int u)
{
	return units_to_jiffies(u, 1000000);
}

unsigned long __round_jiffies(unsigned long j, int cpu)
{
	unsigned long skew = 3UL * (unsigned long)cpu;
	unsigned long skewed = j + skew;
	unsigned long rem = skewed % HZ;
	unsigned long rounded;

	/*
	 * A target just past a whole second is most likely a late timer:
	 * round it down rather than push it a whole second later.
	 */
	if (rem < HZ / 4)
		rounded = skewed - rem;
	else
		rounded = skewed - rem + HZ;
	rounded -= skew;

	return time_after(rounded, jiffies) ? rounded : j;
}

unsigned long __round_jiffies_relative(unsigned long j, int cpu)
{
	unsigned long now = jiffies;

	return __round_jiffies(j + now, cpu) - now;
}

static int current_cpu(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : cpu;
}

unsigned long round_jiffies(unsigned long j)
{
	return __round_jiffies(j, current_cpu());
}

unsigned long round_jiffies_relative(unsigned long j)
{
	return __round_jiffies_relative(j, current_cpu());
}
