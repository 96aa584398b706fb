/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for <hwsight/jiffies.h>: the jiffies clock, the conversions,
 * the wrap-safe comparisons and round_jiffies() with the 2.6.20 rule.
 */

#include <hwsight/jiffies.h>

#include "task.h"
#include "wq-util.h"

TEST(hz_is_300)
{
	/* Read like the kernel's variable, and of the kernel's type. */
	unsigned long j = jiffies;

	ASSERT_EQ(HZ, 300);
	ASSERT_TRUE(_Generic(jiffies, unsigned long: 1, default: 0));
	ASSERT_TRUE(time_after_eq(jiffies, j));
	ASSERT_UL_EQ(msecs_to_jiffies(1000), HZ);
	ASSERT_EQ(jiffies_to_msecs(HZ), 1000);
}

TEST(jiffies_is_monotonic)
{
	unsigned long prev = jiffies, start = prev;
	uint64_t end = now_ns() + 200 * 1000000ull;

	while (now_ns() < end) {
		unsigned long cur = jiffies;

		ASSERT_TRUE(time_after_eq(cur, prev));
		prev = cur;
	}
	/* 200 ms went by (the last read in the loop may predate that, if the
	 * test was preempted there): it must have moved by at least 59 ticks. */
	ASSERT_TRUE(time_after_eq(jiffies, prev));
	ASSERT_TRUE(time_after_eq(jiffies, start + 59));
}

/* jiffy j is the interval [to_ns(j), to_ns(j + 1)) of CLOCK_MONOTONIC. */
TEST(jiffies_follow_clock_monotonic)
{
	for (int i = 0; i < 2000; i++) {
		uint64_t before = now_ns();
		unsigned long j = jiffies;
		uint64_t after = now_ns();

		ASSERT_LE(hws_jiffies_to_monotonic_ns(j), after);
		ASSERT_GT(hws_jiffies_to_monotonic_ns(j + 1), before);
		ASSERT_EQ(hws_jiffies_to_monotonic_ns(j + HZ) - hws_jiffies_to_monotonic_ns(j),
			  1000000000);
		if (i % 100 == 0)
			sleep_ms(1);
	}
}

/*
 * Over a 100 ms sleep, jiffies advances by the elapsed time times HZ. The
 * elapsed time is bracketed by clock readings outside and inside the two
 * jiffies readings, so a slow machine widens the bounds instead of failing.
 */
TEST(jiffies_advance_at_hz)
{
	uint64_t t0 = now_ns();
	unsigned long j0 = jiffies;
	uint64_t t0_in = now_ns();
	unsigned long d;
	uint64_t t1_in, t1;
	unsigned long j1;

	sleep_ms(100);
	t1_in = now_ns();
	j1 = jiffies;
	t1 = now_ns();
	d = j1 - j0;

	ASSERT_UL_GE(d, 29); /* 100 ms is 30 ticks, less one for the phase */
	ASSERT_GE((double)d, (double)(t1_in - t0_in) * HZ / 1e9 - 1.01);
	ASSERT_LE((double)d, (double)(t1 - t0) * HZ / 1e9 + 1.01);
}

/*
 * jiffies starts at INITIAL_JIFFIES at boot (CLOCK_MONOTONIC 0), so its low
 * 32 bits wrap five minutes after boot, as the kernel's do.
 */
TEST(jiffies_start_near_32bit_wrap)
{
	ASSERT_EQ(hws_jiffies_to_monotonic_ns(INITIAL_JIFFIES), 0);
	ASSERT_EQ(hws_jiffies_to_monotonic_ns(INITIAL_JIFFIES + 300ul * HZ), 300000000000ull);
	ASSERT_EQ((unsigned int)(INITIAL_JIFFIES + 300ul * HZ), 0);
	ASSERT_TRUE(time_after_eq(jiffies, INITIAL_JIFFIES));
}

TEST(msecs_to_jiffies_rounds_up)
{
	ASSERT_UL_EQ(msecs_to_jiffies(0), 0);
	ASSERT_UL_EQ(msecs_to_jiffies(1), 1);
	ASSERT_UL_EQ(msecs_to_jiffies(3), 1);
	ASSERT_UL_EQ(msecs_to_jiffies(4), 2);
	ASSERT_UL_EQ(msecs_to_jiffies(10), 3);
	ASSERT_UL_EQ(msecs_to_jiffies(11), 4);
	ASSERT_UL_EQ(msecs_to_jiffies(40), 12);  /* a PAL frame */
	ASSERT_UL_EQ(msecs_to_jiffies(1000), 300);
	ASSERT_UL_EQ(msecs_to_jiffies(86400000u), 86400ul * HZ);
	for (unsigned int m = 0; m <= 200000; m++) {
		unsigned long j = msecs_to_jiffies(m);

		/* The smallest whole number of ticks not shorter than m ms. */
		ASSERT_UL_GE(j * 1000, (unsigned long)m * HZ);
		if (j > 0)
			ASSERT_TRUE((j - 1) * 1000 < (unsigned long)m * HZ);
		/* Round trip: never shorter than asked. */
		ASSERT_GE(jiffies_to_msecs(j), m);
	}
}

TEST(jiffies_to_msecs_rounds_down)
{
	ASSERT_EQ(jiffies_to_msecs(0), 0);
	ASSERT_EQ(jiffies_to_msecs(1), 3);
	ASSERT_EQ(jiffies_to_msecs(3), 10);
	ASSERT_EQ(jiffies_to_msecs(10), 33);   /* an NTSC frame */
	ASSERT_EQ(jiffies_to_msecs(12), 40);   /* a PAL frame */
	ASSERT_EQ(jiffies_to_msecs(300), 1000);
	for (unsigned long j = 0; j <= 200000; j++) {
		unsigned int m = jiffies_to_msecs(j);

		ASSERT_UL_LE((unsigned long)m * HZ, j * 1000);
		ASSERT_TRUE(((unsigned long)m + 1) * HZ > j * 1000);
		ASSERT_UL_EQ(msecs_to_jiffies(m), j);
	}
}

TEST(usecs_conversions)
{
	ASSERT_UL_EQ(usecs_to_jiffies(0), 0);
	ASSERT_UL_EQ(usecs_to_jiffies(1), 1);
	ASSERT_UL_EQ(usecs_to_jiffies(3333), 1);
	ASSERT_UL_EQ(usecs_to_jiffies(3334), 2);
	ASSERT_UL_EQ(usecs_to_jiffies(1000000), 300);
	ASSERT_EQ(jiffies_to_usecs(1), 3333);
	ASSERT_EQ(jiffies_to_usecs(3), 10000);
	ASSERT_EQ(jiffies_to_usecs(300), 1000000);
	for (unsigned int u = 0; u <= 2000000; u += 7) {
		unsigned long j = usecs_to_jiffies(u);

		ASSERT_UL_GE(j * 1000000, (unsigned long)u * HZ);
		if (j > 0)
			ASSERT_TRUE((j - 1) * 1000000 < (unsigned long)u * HZ);
	}
}

static void check_ordered(unsigned long a, unsigned long d)
{
	unsigned long b = a + d; /* later than a by d, perhaps across a wrap */

	ASSERT_TRUE(time_after(b, a));
	ASSERT_FALSE(time_after(a, b));
	ASSERT_TRUE(time_before(a, b));
	ASSERT_FALSE(time_before(b, a));
	ASSERT_TRUE(time_after_eq(b, a));
	ASSERT_FALSE(time_after_eq(a, b));
	ASSERT_TRUE(time_before_eq(a, b));
	ASSERT_FALSE(time_before_eq(b, a));
	ASSERT_TRUE(time_after_eq(a, a));
	ASSERT_TRUE(time_before_eq(a, a));
	ASSERT_FALSE(time_after(a, a));
	ASSERT_FALSE(time_before(a, a));
	ASSERT_TRUE(time_in_range(a, a, b));
	ASSERT_TRUE(time_in_range(b, a, b));
	ASSERT_FALSE(time_in_range(b + 1, a, b));
	ASSERT_FALSE(time_in_range(a - 1, a, b));
}

TEST(time_after_survives_wrap)
{
	static const unsigned long bases[] = {
		0, 1, ULONG_MAX, ULONG_MAX - 5, ULONG_MAX - HZ,
		LONG_MAX, (unsigned long)LONG_MAX - 5, (unsigned long)LONG_MAX + 1,
		0xffffffffUL, 0xffffffffUL - 5, INITIAL_JIFFIES,
	};
	static const unsigned long deltas[] = {
		1, 2, 10, HZ, 0xffffffffUL, (unsigned long)LONG_MAX - 1, LONG_MAX,
	};

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		for (size_t k = 0; k < sizeof(deltas) / sizeof(deltas[0]); k++)
			check_ordered(bases[i], deltas[k]);

	/* The explicit cases from the brief: just below and past the wrap. */
	ASSERT_TRUE(time_after(4ul, ULONG_MAX - 5));
	ASSERT_TRUE(time_before(ULONG_MAX - 5, 4ul));
	ASSERT_TRUE(time_after((unsigned long)LONG_MAX + 10, (unsigned long)LONG_MAX));

	/* And with the live clock, which starts near the 32-bit wrap. */
	unsigned long j = jiffies;
	ASSERT_TRUE(time_after(j + 1, j));
	ASSERT_TRUE(time_before(j - 1, j));
}

/* A second boundary an hour ahead, so that "never in the past" stays out. */
static unsigned long future_second(void)
{
	return (jiffies / HZ + 3600) * HZ;
}

TEST(round_jiffies_rule)
{
	unsigned long base = future_second();

	/* cpu 0: down below a quarter second past, up from there on. */
	ASSERT_UL_EQ(__round_jiffies(base, 0), base);
	ASSERT_UL_EQ(__round_jiffies(base + 1, 0), base);
	ASSERT_UL_EQ(__round_jiffies(base + HZ / 4 - 1, 0), base);
	ASSERT_UL_EQ(__round_jiffies(base + HZ / 4, 0), base + HZ);
	ASSERT_UL_EQ(__round_jiffies(base + HZ / 2, 0), base + HZ);
	ASSERT_UL_EQ(__round_jiffies(base + HZ - 1, 0), base + HZ);
	ASSERT_UL_EQ(__round_jiffies(base - 1, 0), base);

	/* cpu 1 rounds to 3 jiffies before each second. */
	ASSERT_UL_EQ(__round_jiffies(base - 3, 1), base - 3);
	ASSERT_UL_EQ(__round_jiffies(base + 71, 1), base - 3);
	ASSERT_UL_EQ(__round_jiffies(base + 72, 1), base + HZ - 3);
	ASSERT_UL_EQ(__round_jiffies(base - 4, 1), base - 3);

	/* cpu 2: 6 jiffies before. */
	ASSERT_UL_EQ(__round_jiffies(base + 68, 2), base - 6);
	ASSERT_UL_EQ(__round_jiffies(base + 69, 2), base + HZ - 6);

	/* A large cpu number: skew 297, one short of a whole second. */
	ASSERT_UL_EQ(__round_jiffies(base + 3, 99), base + 3);
	ASSERT_UL_EQ(__round_jiffies(base + 80, 99), base + 3 + HZ);

	/* Every result is a whole second, less the skew, within a second of j. */
	for (int cpu = 0; cpu < 8; cpu++)
		for (unsigned long j = base; j < base + 2 * HZ; j++) {
			unsigned long r = __round_jiffies(j, cpu);

			ASSERT_UL_EQ((r + 3ul * (unsigned long)cpu) % HZ, 0);
			ASSERT_TRUE(time_after(r, j - HZ / 4 - 1));
			ASSERT_TRUE(time_before(r, j + HZ));
		}
}

TEST(round_jiffies_never_into_the_past)
{
	unsigned long now = jiffies;
	unsigned long j = now + 5;
	/* A cpu whose skew puts j 40-42 jiffies past its boundary: round down. */
	int cpu = (int)(((40 + 3 * HZ - j % HZ) % HZ + 2) / 3);
	unsigned long rem = (j + 3ul * (unsigned long)cpu) % HZ;

	ASSERT_TRUE(rem >= 40 && rem <= 42);
	/* Rounding down would land before now: j comes back unchanged. */
	ASSERT_UL_EQ(__round_jiffies(j, cpu), j);
	/* The same phase far ahead is rounded down, as the rule says. */
	ASSERT_UL_EQ(__round_jiffies(j + 3600ul * HZ, cpu), j + 3600ul * HZ - rem);

	/* A time already past (by more than rounding up can add) likewise. */
	ASSERT_UL_EQ(__round_jiffies(now - 2 * HZ, 0), now - 2 * HZ);
	ASSERT_UL_EQ(__round_jiffies(now - 100 * HZ, 3), now - 100 * HZ);
}

/* round_jiffies() uses the caller's cpu: the result is one of theirs. */
TEST(round_jiffies_uses_a_cpu)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long base = future_second();

	ASSERT_GT(ncpu, 0);
	for (unsigned long j = base; j < base + HZ; j += 7) {
		unsigned long r = round_jiffies(j);
		bool found = false;

		for (int cpu = 0; cpu < ncpu && !found; cpu++)
			found = r == __round_jiffies(j, cpu);
		if (!found)
			FAIL("round_jiffies(%lu) = %lu, not __round_jiffies() for any of %ld cpus",
			     j, r, ncpu);
	}
}

/*
 * round_jiffies_relative(HZ) is a delay that ends on a (skewed) second
 * boundary. jiffies may tick during the call, so the "now" it used is only
 * known to lie between two readings.
 */
static void check_relative(unsigned long delay, int fixed_cpu)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long j0 = jiffies;
	unsigned long r = fixed_cpu >= 0 ? __round_jiffies_relative(delay, fixed_cpu)
					 : round_jiffies_relative(delay);
	unsigned long j1 = jiffies;
	bool found = false;

	ASSERT_GT(ncpu, 0);
	int first = fixed_cpu >= 0 ? fixed_cpu : 0;
	int last = fixed_cpu >= 0 ? fixed_cpu : (int)ncpu - 1;

	for (unsigned long t = j0; !found && time_before_eq(t, j1); t++)
		for (int cpu = first; cpu <= last && !found; cpu++)
			found = (t + r + 3ul * (unsigned long)cpu) % HZ == 0;
	if (!found)
		FAIL("round_jiffies_relative(%lu) = %lu: jiffies %lu..%lu + %lu is no "
		     "cpu's second boundary", delay, r, j0, j1, r);
	/* Within a quarter second before and a second after the asked delay. */
	ASSERT_TRUE(r + HZ / 4 + (j1 - j0) >= delay);
	ASSERT_TRUE(r < delay + HZ);
}

TEST(round_jiffies_relative_lands_on_second)
{
	for (int i = 0; i < 200; i++) {
		check_relative(HZ, -1);
		check_relative(10 * HZ + (unsigned long)i, -1);
		check_relative(HZ, i % 4);
		if (i % 20 == 0)
			sleep_ms(7);
	}
}

/*
 * What round_jiffies() is for: a thousand timers spread over ten seconds
 * end up on at most eleven distinct expiry times.
 */
TEST(round_jiffies_coalesces)
{
	unsigned long start = jiffies + 10 * HZ;
	unsigned long distinct[64];
	int ndistinct = 0;
	unsigned int seed = 12345;

	for (int i = 0; i < 1000; i++) {
		unsigned long j = start + (unsigned long)(rand_r(&seed) % (10 * HZ));
		unsigned long r = __round_jiffies(j, 0);
		int k;

		for (k = 0; k < ndistinct && distinct[k] != r; k++)
			;
		if (k == ndistinct) {
			ASSERT_LT(ndistinct, 64);
			distinct[ndistinct++] = r;
		}
	}
	ASSERT_LE(ndistinct, 11);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
