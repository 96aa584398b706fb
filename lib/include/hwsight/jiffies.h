/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_JIFFIES_H
#define HWSIGHT_JIFFIES_H

/*
 * Time in jiffies of 1/300 s, as in a Linux 2.6.20 kernel built with
 * HZ=300: the rate that divides both PAL (25 fps, 12 ticks) and NTSC
 * (30 fps, 10 ticks) frame periods. jiffies follows CLOCK_MONOTONIC and,
 * like the kernel's, starts close to a 32-bit wrap.
 */

#include <limits.h>

#include <hwsight/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HZ 300

#define INITIAL_JIFFIES ((unsigned long)(unsigned int)(-300 * HZ))
#define MAX_JIFFY_OFFSET ((LONG_MAX >> 1) - 1)

HWS_EXPORT unsigned long hws_jiffies(void);

/* Read like the kernel's variable: unsigned long j = jiffies; */
#define jiffies (hws_jiffies())

/*
 * Wrap-safe comparisons: correct as long as the two values are less than
 * LONG_MAX jiffies apart.
 */
#define time_after(a, b)     ((long)((b) - (a)) < 0)
#define time_before(a, b)    time_after(b, a)
#define time_after_eq(a, b)  ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)
#define time_in_range(a, b, c) (time_after_eq(a, b) && time_before_eq(a, c))

HWS_EXPORT unsigned int jiffies_to_msecs(unsigned long j);
HWS_EXPORT unsigned int jiffies_to_usecs(unsigned long j);
HWS_EXPORT unsigned long msecs_to_jiffies(unsigned int m);
HWS_EXPORT unsigned long usecs_to_jiffies(unsigned int u);

/**
 * round_jiffies - round an absolute time in jiffies to a whole second
 *
 * Rounds down when @j is less than a quarter second past a whole second,
 * up otherwise, skewed by 3 jiffies per CPU so that CPUs do not all wake at
 * once; never returns a time in the past (it returns @j unchanged instead).
 * Timers rounded this way fire together, so a process with many slow
 * pollers wakes about once per second.
 */
HWS_EXPORT unsigned long round_jiffies(unsigned long j);
HWS_EXPORT unsigned long round_jiffies_relative(unsigned long j);
HWS_EXPORT unsigned long __round_jiffies(unsigned long j, int cpu);
HWS_EXPORT unsigned long __round_jiffies_relative(unsigned long j, int cpu);

/* The CLOCK_MONOTONIC time in ns at which jiffy @j begins. */
HWS_EXPORT unsigned long long hws_jiffies_to_monotonic_ns(unsigned long j);

#ifdef __cplusplus
}
#endif

#endif
