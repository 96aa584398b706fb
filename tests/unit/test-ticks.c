/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for the 300 Hz grid in <hwsight/camera.h>: whole-tick
 * intervals, the friendly neighbours of one that is not, and frame rates
 * as users write them.
 */

#include <limits.h>
#include <math.h>

#include <hwsight/camera.h>

#include "task.h"

#define FRACT(n, d) ((struct hws_fract){ (n), (d) })

#define ASSERT_FRACT_EQ(a, n, d)                                              \
	do {                                                                  \
		struct hws_fract hws_f_ = (a);                                \
		if (hws_f_.num != (uint32_t)(n) || hws_f_.den != (uint32_t)(d)) \
			FAIL("%s is %" PRIu32 "/%" PRIu32 ", not %s/%s", #a,  \
			     hws_f_.num, hws_f_.den, #n, #d);                 \
	} while (0)

/* -1, 0, 1 as a/b is below, equal to, above c/d (exact, 64-bit). */
static int fract_cmp(struct hws_fract a, struct hws_fract b)
{
	uint64_t l = (uint64_t)a.num * b.den, r = (uint64_t)b.num * a.den;

	return (l > r) - (l < r);
}

TEST(design_rates_are_whole_ticks)
{
	/* DESIGN.md's list, with the ticks each one is. */
	static const struct {
		uint32_t den;
		long ticks;
	} rates[] = {
		{ 300, 1 }, { 150, 2 }, { 100, 3 }, { 75, 4 }, { 60, 5 }, { 50, 6 },
		{ 30, 10 }, { 25, 12 }, { 20, 15 }, { 15, 20 }, { 12, 25 }, { 10, 30 },
		{ 1, 300 },
	};

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		ASSERT_EQ(hws_interval_ticks(FRACT(1, rates[i].den)), rates[i].ticks);
		ASSERT_TRUE(hws_interval_is_friendly(FRACT(1, rates[i].den)));
	}
	/* Any N/300, reduced or not, and any whole number of seconds. */
	for (uint32_t n = 1; n <= 3000; n++) {
		ASSERT_EQ(hws_interval_ticks(FRACT(n, 300)), n);
		ASSERT_EQ(hws_interval_ticks(FRACT(2 * n, 600)), n);
	}
	ASSERT_EQ(hws_interval_ticks(FRACT(2, 50)), 12);
	ASSERT_EQ(hws_interval_ticks(FRACT(7, 300)), 7);
	ASSERT_EQ(hws_interval_ticks(FRACT(10, 1)), 3000);
	ASSERT_EQ(hws_interval_ticks(FRACT(UINT32_MAX, UINT32_MAX)), 300);
}

TEST(other_rates_are_not)
{
	static const struct hws_fract not_whole[] = {
		{ 1, 40 },         /* 7.5 ticks */
		{ 1, 24 },         /* 12.5 */
		{ 1001, 30000 },   /* NTSC */
		{ 1001, 24000 },   /* film on NTSC */
		{ 1, 29 },
		{ 1, 600 },        /* half a tick */
		{ 1, 301 },
		{ 299, 90000 },
		{ 1, UINT32_MAX },
		{ UINT32_MAX, 7 },
	};

	for (size_t i = 0; i < sizeof(not_whole) / sizeof(not_whole[0]); i++) {
		ASSERT_EQ(hws_interval_ticks(not_whole[i]), -EDOM);
		ASSERT_FALSE(hws_interval_is_friendly(not_whole[i]));
	}
}

TEST(malformed_intervals)
{
	ASSERT_EQ(hws_interval_ticks(FRACT(0, 1)), -EINVAL);
	ASSERT_EQ(hws_interval_ticks(FRACT(1, 0)), -EINVAL);
	ASSERT_EQ(hws_interval_ticks(FRACT(0, 0)), -EINVAL);
	ASSERT_FALSE(hws_interval_is_friendly(FRACT(0, 1)));
	ASSERT_FALSE(hws_interval_is_friendly(FRACT(1, 0)));
	ASSERT_FALSE(hws_interval_is_friendly(FRACT(0, 0)));
}

/* The longest interval V4L2 can express still counts in 64 bits. */
TEST(largest_interval)
{
	if (sizeof(long) < 8)
		return;
	ASSERT_EQ(hws_interval_ticks(FRACT(UINT32_MAX, 1)), 300 * (int64_t)UINT32_MAX);
	ASSERT_EQ(hws_interval_ticks(FRACT(UINT32_MAX, 3)), 100 * (int64_t)UINT32_MAX);
}

/*
 * Against an independent judge: for small terms a double holds 300*num/den
 * closely enough that "is it a whole number" has one answer.
 */
TEST(agrees_with_floating_point_on_small_terms)
{
	for (uint32_t den = 1; den <= 700; den++)
		for (uint32_t num = 1; num <= 60; num++) {
			double ticks = 300.0 * num / den;
			bool whole = fabs(ticks - round(ticks)) < 1e-9;
			long got = hws_interval_ticks(FRACT(num, den));

			if (whole)
				ASSERT_EQ(got, lround(ticks));
			else
				ASSERT_EQ(got, -EDOM);
			ASSERT_EQ(hws_interval_is_friendly(FRACT(num, den)), whole);
		}
}

TEST(fps_parse_accepts)
{
	static const struct {
		const char *text;
		uint32_t num, den;
	} ok[] = {
		{ "25", 1, 25 },
		{ "30", 1, 30 },
		{ "300", 1, 300 },
		{ "1", 1, 1 },
		{ "29.97", 100, 2997 },
		{ "30000/1001", 1001, 30000 },
		{ "24000/1001", 1001, 24000 },
		{ "7.5", 2, 15 },
		{ "12.5", 2, 25 },
		{ "12.500000", 2, 25 },
		{ "0.5", 2, 1 },
		{ "0.000001", 1000000, 1 },
		{ "025", 1, 25 },
		{ "60/2", 1, 30 },          /* reduced */
		{ "1/10", 10, 1 },          /* one frame every ten seconds */
		{ "4294967295", 1, 4294967295u },
		{ "8589934590/2", 1, 4294967295u }, /* fits once reduced */
		{ "42.857142", 500000, 21428571 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct hws_fract f = { 77, 88 };
		int r = hws_fps_parse(ok[i].text, &f);

		if (r != 0)
			FAIL("\"%s\": %d", ok[i].text, r);
		if (f.num != ok[i].num || f.den != ok[i].den)
			FAIL("\"%s\" is %" PRIu32 "/%" PRIu32 ", not %" PRIu32 "/%" PRIu32,
			     ok[i].text, f.num, f.den, ok[i].num, ok[i].den);
	}
}

TEST(fps_parse_rejects)
{
	static const char *const bad[] = {
		"", "0", "00", "0.0", "0.000000", "-5", "+5", "abc", "25fps", "25 ", " 25",
		"2 5", "25\n", ".5", "5.", ".", "/", "1/", "/1", "0/1001", "30000/0",
		"1/2/3", "1.5/2", "1/2.5", "2.5.1", "1e3", "0x1e", "25,5", "1.0000001",
		"29.9700000", "4294967296", "4294967295.5", "99999999999999999999",
		"18446744073709551616", "1/4294967296", "0.0000001",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hws_fract f = { 77, 88 };
		int r = hws_fps_parse(bad[i], &f);

		if (r != -EINVAL)
			FAIL("\"%s\": %d, not -EINVAL", bad[i], r);
		/* Out-parameters are left alone on failure. */
		ASSERT_FRACT_EQ(f, 77, 88);
	}
	ASSERT_EQ(hws_fps_parse(NULL, &(struct hws_fract){ 0, 0 }), -EINVAL);
	ASSERT_EQ(hws_fps_parse("25", NULL), -EINVAL);
}

/* What a user types, and whether it lands on the grid. */
TEST(fps_parse_then_ticks)
{
	static const struct {
		const char *text;
		long ticks;
	} cases[] = {
		{ "25", 12 }, { "30", 10 }, { "15", 20 }, { "7.5", 40 }, { "0.5", 600 },
		{ "42.857142", -EDOM }, { "29.97", -EDOM }, { "30000/1001", -EDOM },
		{ "40", -EDOM }, { "600", -EDOM },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hws_fract f;

		ASSERT_EQ(hws_fps_parse(cases[i].text, &f), 0);
		ASSERT_EQ(hws_interval_ticks(f), cases[i].ticks);
	}
}

TEST(neighbours_of_40fps)
{
	struct hws_fract slower, faster;

	/* 7.5 ticks: 7 (42.86 fps) and 8 (37.5 fps). */
	hws_friendly_neighbours(FRACT(1, 40), &slower, &faster);
	ASSERT_FRACT_EQ(slower, 2, 75);
	ASSERT_FRACT_EQ(faster, 7, 300);
	ASSERT_EQ(hws_interval_ticks(slower), 8);
	ASSERT_EQ(hws_interval_ticks(faster), 7);
}

/* An interval and the friendly neighbours hws_friendly_neighbours() gives. */
struct neighbours_case {
	struct hws_fract iv, slower, faster;
};

static void check_neighbours(const struct neighbours_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct neighbours_case *c = &cases[i];
		struct hws_fract slower, faster;

		hws_friendly_neighbours(c->iv, &slower, &faster);
		if (slower.num != c->slower.num || slower.den != c->slower.den ||
		    faster.num != c->faster.num || faster.den != c->faster.den)
			FAIL("the neighbours of %" PRIu32 "/%" PRIu32 " are %" PRIu32 "/%" PRIu32
			     " and %" PRIu32 "/%" PRIu32 ", not %" PRIu32 "/%" PRIu32
			     " and %" PRIu32 "/%" PRIu32,
			     c->iv.num, c->iv.den, slower.num, slower.den, faster.num, faster.den,
			     c->slower.num, c->slower.den, c->faster.num, c->faster.den);
	}
}

#define CHECK_NEIGHBOURS(cases) check_neighbours((cases), sizeof(cases) / sizeof((cases)[0]))

TEST(neighbours_of_common_rates)
{
	static const struct neighbours_case cases[] = {
		/* NTSC, 10.01 ticks: 11 ticks (27.27 fps) and 10 (30 fps). */
		{ { 1001, 30000 }, { 11, 300 }, { 1, 30 } },
		/* 24 fps, 12.5 ticks: 13 and 12 (25 fps). */
		{ { 1, 24 }, { 13, 300 }, { 1, 25 } },
		/* 29.97 as parsed from the command line. */
		{ { 100, 2997 }, { 11, 300 }, { 1, 30 } },
	};

	CHECK_NEIGHBOURS(cases);
}

TEST(neighbours_of_a_friendly_interval_are_itself)
{
	static const struct neighbours_case cases[] = {
		{ { 1, 25 }, { 1, 25 }, { 1, 25 } },
		/* In lowest terms. */
		{ { 4, 100 }, { 1, 25 }, { 1, 25 } },
		{ { 1, 300 }, { 1, 300 }, { 1, 300 } },
	};

	CHECK_NEIGHBOURS(cases);
}

TEST(neighbours_faster_than_300fps)
{
	static const struct neighbours_case cases[] = {
		{ { 1, 1000 }, { 1, 300 }, { 0, 0 } },
		{ { 0, 1 }, { 1, 300 }, { 0, 0 } },
		/* Not an interval at all: nothing on either side. */
		{ { 1, 0 }, { 0, 0 }, { 0, 0 } },
	};
	struct hws_fract slower, faster;

	CHECK_NEIGHBOURS(cases);
	/* Either out-parameter may be NULL. */
	hws_friendly_neighbours(FRACT(1, 40), NULL, &faster);
	ASSERT_FRACT_EQ(faster, 7, 300);
	hws_friendly_neighbours(FRACT(1, 40), &slower, NULL);
	ASSERT_FRACT_EQ(slower, 2, 75);
}

/*
 * For every small interval: both neighbours are friendly, they bracket it,
 * they are one tick apart (or the same, exactly when it is friendly), so
 * no friendly interval lies between them.
 */
TEST(neighbours_bracket_and_are_adjacent)
{
	for (uint32_t den = 1; den <= 700; den++)
		for (uint32_t num = 1; num <= 40; num++) {
			struct hws_fract iv = FRACT(num, den), slower, faster;
			long ts, tf;

			hws_friendly_neighbours(iv, &slower, &faster);
			ts = hws_interval_ticks(slower);
			ASSERT_GT(ts, 0);
			ASSERT_GE(fract_cmp(slower, iv), 0);
			if (faster.num == 0) {
				ASSERT_EQ(faster.den, 0);
				ASSERT_EQ(ts, 1);
				ASSERT_LT(fract_cmp(iv, slower), 0);
				continue;
			}
			tf = hws_interval_ticks(faster);
			ASSERT_GT(tf, 0);
			ASSERT_LE(fract_cmp(faster, iv), 0);
			if (hws_interval_is_friendly(iv)) {
				ASSERT_EQ(ts, tf);
				ASSERT_EQ(fract_cmp(slower, iv), 0);
			} else {
				ASSERT_EQ(ts, tf + 1);
			}
		}
}

/*
 * Past 2^32 ticks not every k/300 has 32-bit terms: the neighbours are the
 * nearest that do, still friendly, still on the right sides.
 */
TEST(neighbours_of_huge_intervals)
{
	static const struct hws_fract huge[] = {
		{ UINT32_MAX, 7 }, { UINT32_MAX, 1 }, { UINT32_MAX - 1, 299 }, { 4000000000u, 3 },
	};

	for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		struct hws_fract slower, faster;

		hws_friendly_neighbours(huge[i], &slower, &faster);
		ASSERT_TRUE(hws_interval_is_friendly(slower));
		ASSERT_TRUE(hws_interval_is_friendly(faster));
		ASSERT_GE(fract_cmp(slower, huge[i]), 0);
		ASSERT_LE(fract_cmp(faster, huge[i]), 0);
		/* Within a second on each side. */
		ASSERT_LE((uint64_t)slower.num * huge[i].den,
			  (uint64_t)huge[i].num * slower.den + (uint64_t)slower.den * huge[i].den);
		ASSERT_LE((uint64_t)huge[i].num * faster.den,
			  (uint64_t)faster.num * huge[i].den + (uint64_t)faster.den * huge[i].den);
	}
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
