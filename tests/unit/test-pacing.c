/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for the pacer (lib/camera/pacing.c): which driver frames are
 * kept on the 300 Hz grid, and the statistics of what happened, fed with
 * synthetic timestamp sequences: exact, jittered (a fixed-seed PRNG), with
 * drops, with sequence wraps and restarts, with stalls, and with clocks
 * that stand still or run backwards.
 */

#include <math.h>

#include "camera/pacing.h"

#include "task.h"

#define NS_PER_SEC 1000000000ull
#define NS_PER_MS 1000000ull
/* Timestamps start well above 0, as CLOCK_MONOTONIC does after boot. */
#define BASE_NS (1000 * NS_PER_SEC)
#define MAX_FRAMES 40000

#define ASSERT_NEAR(a, b, tol)                                                \
	do {                                                                  \
		double hws_a_ = (a), hws_b_ = (b), hws_t_ = (tol);            \
		if (!(fabs(hws_a_ - hws_b_) <= hws_t_))                       \
			FAIL("ASSERT_NEAR(%s, %s, %s): left %.6f, right %.6f", \
			     #a, #b, #tol, hws_a_, hws_b_);                   \
	} while (0)

static const struct hws_fract fps_none = { 0, 0 };
static const struct hws_fract fps5 = { 1, 5 };
static const struct hws_fract fps10 = { 1, 10 };
static const struct hws_fract fps15 = { 1, 15 };
static const struct hws_fract fps25 = { 1, 25 };
static const struct hws_fract fps30 = { 1, 30 };
static const struct hws_fract fps50 = { 1, 50 };
static const struct hws_fract fps60 = { 1, 60 };
static const struct hws_fract fps_ntsc = { 1001, 30000 };

/* A pacer and the frames it kept. */
struct trace {
	struct hws__pacer p;
	size_t n;
	uint32_t seq[MAX_FRAMES];
	uint64_t ts[MAX_FRAMES];
};

static struct trace *trace_new(struct hws_fract target, struct hws_fract source)
{
	struct trace *tr = calloc(1, sizeof(*tr));

	ASSERT_NOT_NULL(tr);
	hws__pacer_init(&tr->p, target, source);
	return tr;
}

static bool offer(struct trace *tr, uint64_t ts, uint32_t seq)
{
	bool kept = hws__pacer_offer(&tr->p, ts, seq);

	if (kept) {
		ASSERT_LT(tr->n, MAX_FRAMES);
		tr->seq[tr->n] = seq;
		tr->ts[tr->n] = ts;
		tr->n++;
	}
	return kept;
}

static struct hws_capture_stats stats(const struct trace *tr)
{
	struct hws_capture_stats st;

	hws__pacer_stats(&tr->p, &st);
	return st;
}

/* Frame @i of a perfect source, to the nearest nanosecond. */
static uint64_t ideal_ns(struct hws_fract interval, uint64_t i)
{
	return BASE_NS + (i * interval.num * NS_PER_SEC + interval.den / 2) / interval.den;
}

/* splitmix64: a fixed seed gives the same "random" jitter on every run. */
static uint64_t prng(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [-amp, +amp] nanoseconds. */
static int64_t jitter(uint64_t *state, uint64_t amp)
{
	return (int64_t)(prng(state) % (2 * amp + 1)) - (int64_t)amp;
}

/* Feed @n frames of a source, jittered by up to @jitter_ns, sequence from 0. */
static void feed(struct trace *tr, struct hws_fract source, size_t n, uint64_t jitter_ns,
		 uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t ts = ideal_ns(source, i);

		if (jitter_ns)
			ts += (uint64_t)jitter(&seed, jitter_ns);
		offer(tr, ts, (uint32_t)i);
	}
}

static void assert_counters_add_up(const struct trace *tr)
{
	struct hws_capture_stats st = stats(tr);

	ASSERT_EQ(st.kept, tr->n);
	ASSERT_EQ(st.kept + st.decimated, st.delivered);
}

/* Every kept frame is @every source frames after the one before. */
static void assert_kept_every(const struct trace *tr, uint32_t every)
{
	for (size_t k = 0; k < tr->n; k++)
		if (tr->seq[k] != k * every)
			FAIL("kept frame %zu is sequence %u, not %zu", k, tr->seq[k], k * every);
}

TEST(first_frame_is_kept_and_stats_start_empty)
{
	struct trace *tr = trace_new(fps25, fps50);
	struct hws_capture_stats st = stats(tr);

	ASSERT_EQ(st.delivered, 0);
	ASSERT_EQ(st.kept, 0);
	ASSERT_NEAR(st.mean_interval_ms, 0, 0);
	ASSERT_NEAR(st.jitter_ms, 0, 0);
	/* The intervals asked for are reported as given. */
	ASSERT_EQ(st.target_interval.num, 1);
	ASSERT_EQ(st.target_interval.den, 25);
	ASSERT_EQ(st.driver_interval.num, 1);
	ASSERT_EQ(st.driver_interval.den, 50);

	ASSERT_TRUE(offer(tr, BASE_NS, 7));
	st = stats(tr);
	ASSERT_EQ(st.delivered, 1);
	ASSERT_EQ(st.kept, 1);
	ASSERT_EQ(st.dropped, 0);
	/* One frame has no interval yet. */
	ASSERT_NEAR(st.mean_interval_ms, 0, 0);
	free(tr);
}

TEST(pal_50_to_25_keeps_every_other_frame)
{
	struct trace *tr = trace_new(fps25, fps50);
	struct hws_capture_stats st;

	feed(tr, fps50, 1000, 0, 0);
	assert_kept_every(tr, 2);
	assert_counters_add_up(tr);
	st = stats(tr);
	ASSERT_EQ(st.delivered, 1000);
	ASSERT_EQ(st.kept, 500);
	ASSERT_EQ(st.decimated, 500);
	ASSERT_EQ(st.dropped, 0);
	ASSERT_NEAR(st.mean_interval_ms, 40.0, 1e-6);
	ASSERT_NEAR(st.jitter_ms, 0.0, 1e-6);
	ASSERT_NEAR(st.mean_interval_ticks, 12.0, 1e-6);
	ASSERT_NEAR(st.jitter_ticks, 0.0, 1e-6);
	free(tr);
}

TEST(integer_ratios_from_30fps)
{
	static const struct {
		struct hws_fract target;
		uint32_t every;
		double ticks;
	} cases[] = {
		{ { 1, 15 }, 2, 20 },
		{ { 1, 10 }, 3, 30 },
		{ { 1, 5 }, 6, 60 },
		{ { 1, 30 }, 1, 10 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct trace *tr = trace_new(cases[c].target, fps30);
		struct hws_capture_stats st;

		feed(tr, fps30, 3000, 0, 0);
		assert_kept_every(tr, cases[c].every);
		assert_counters_add_up(tr);
		st = stats(tr);
		ASSERT_EQ(st.kept, 3000 / cases[c].every);
		ASSERT_NEAR(st.mean_interval_ticks, cases[c].ticks, 1e-4);
		ASSERT_NEAR(st.mean_interval_ms, cases[c].ticks * 10.0 / 3.0, 1e-4);
		free(tr);
	}
}

/*
 * 60 -> 25 fps is 2.4 source frames per kept frame: the kept frames are 2
 * or 3 apart, each the nearest to its grid point, and the rate is 25 fps.
 */
TEST(non_integer_ratio_60_to_25)
{
	const size_t n = 6000;
	struct trace *tr = trace_new(fps25, fps60);
	const double half_source = NS_PER_SEC / 60.0 / 2;
	struct hws_capture_stats st;

	feed(tr, fps60, n, 0, 0);
	assert_counters_add_up(tr);
	for (size_t k = 1; k < tr->n; k++) {
		uint32_t gap = tr->seq[k] - tr->seq[k - 1];

		if (gap != 2 && gap != 3)
			FAIL("kept frames %u and %u are %u apart", tr->seq[k - 1], tr->seq[k], gap);
	}
	/* Every kept frame is the nearest to its own grid point, in turn. */
	for (size_t k = 0; k < tr->n; k++) {
		double grid = (double)BASE_NS + (double)k * NS_PER_SEC / 25.0;

		if (fabs((double)tr->ts[k] - grid) > half_source)
			FAIL("kept frame %zu is %.0f ns off its grid point", k,
			     (double)tr->ts[k] - grid);
	}
	st = stats(tr);
	ASSERT_NEAR((double)st.kept, n * 25.0 / 60.0, n * 25.0 / 60.0 * 0.01);
	ASSERT_NEAR(st.mean_interval_ms, 40.0, 0.4);
	ASSERT_NEAR(st.mean_interval_ticks, 12.0, 0.12);
	/* Alternating 33.3 and 50 ms intervals: jitter, honestly reported. */
	ASSERT_GT(st.jitter_ms, 5.0);
	free(tr);
}

TEST(non_integer_ratio_60_to_25_jittered)
{
	const size_t n = 30000;
	struct hws_capture_stats st;

	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct trace *tr = trace_new(fps25, fps60);

		feed(tr, fps60, n, 2 * NS_PER_MS, seed);
		assert_counters_add_up(tr);
		for (size_t k = 1; k < tr->n; k++) {
			uint32_t gap = tr->seq[k] - tr->seq[k - 1];

			if (gap != 2 && gap != 3)
				FAIL("seed %" PRIu64 ": kept frames %u and %u are %u apart", seed,
				     tr->seq[k - 1], tr->seq[k], gap);
		}
		st = stats(tr);
		ASSERT_NEAR((double)st.kept, n * 25.0 / 60.0, n * 25.0 / 60.0 * 0.01);
		ASSERT_NEAR(st.mean_interval_ms, 40.0, 0.4);
		free(tr);
	}
}

/*
 * 60 -> 50 fps: 1.2 source frames per kept one, so five frames of six are
 * kept, never two in a row skipped.
 */
TEST(non_integer_ratio_60_to_50)
{
	const size_t n = 6000;
	struct trace *tr = trace_new((struct hws_fract){ 1, 50 }, fps60);
	struct hws_capture_stats st;

	feed(tr, fps60, n, 0, 0);
	for (size_t k = 1; k < tr->n; k++) {
		uint32_t gap = tr->seq[k] - tr->seq[k - 1];

		ASSERT_TRUE(gap == 1 || gap == 2);
	}
	st = stats(tr);
	ASSERT_NEAR((double)st.kept, n * 5.0 / 6.0, n * 5.0 / 6.0 * 0.01);
	ASSERT_NEAR(st.mean_interval_ms, 20.0, 0.2);
	free(tr);
}

/*
 * NTSC 30000/1001 to 15 fps (20 ticks): every second frame gives 14.985
 * fps. Staying on the grid would take two frames in a row every eight
 * seconds; the pacer keeps every second frame instead, and says so: the
 * mean interval is 66.73 ms, not the 66.67 ms that was asked for.
 */
TEST(ntsc_to_15_keeps_every_second_frame_and_reports_the_truth)
{
	const size_t n = 20000; /* 11 minutes: the grid slides more than once */
	struct trace *tr = trace_new(fps15, fps_ntsc);
	struct hws_capture_stats st;

	feed(tr, fps_ntsc, n, 0, 0);
	assert_kept_every(tr, 2);
	assert_counters_add_up(tr);
	st = stats(tr);
	ASSERT_EQ(st.kept, n / 2);
	ASSERT_NEAR(st.mean_interval_ms, 2 * 1001 / 30.0, 1e-4);
	ASSERT_TRUE(fabs(st.mean_interval_ms - 1000.0 / 15) > 0.05);
	ASSERT_NEAR(st.mean_interval_ticks, 2 * 1001 / 30.0 * 0.3, 1e-4);
	ASSERT_NEAR(st.jitter_ms, 0.0, 1e-3);
	free(tr);
}

TEST(ntsc_to_15_jittered_keeps_every_second_frame)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct trace *tr = trace_new(fps15, fps_ntsc);

		feed(tr, fps_ntsc, 20000, 2 * NS_PER_MS, seed);
		assert_kept_every(tr, 2);
		free(tr);
	}
}

/* NTSC asked for 30 fps (10 ticks): a little slower, so every frame. */
TEST(ntsc_to_30_keeps_every_frame)
{
	struct trace *tr = trace_new(fps30, fps_ntsc);

	feed(tr, fps_ntsc, 3000, 0, 0);
	assert_kept_every(tr, 1);
	ASSERT_NEAR(stats(tr).mean_interval_ms, 1001 / 30.0, 1e-4);
	free(tr);
}

/*
 * The driver set to the very rate asked for: every frame is kept, even when
 * its thread stamps one 12 ms late and the next on time (4.7 ms apart, less
 * than half a period), as vivid's does under an emulated, busy guest.
 */
TEST(source_at_the_target_keeps_every_frame_however_late)
{
	struct trace *tr = trace_new(fps60, fps60);
	struct hws_capture_stats st;

	for (uint32_t i = 0; i < 120; i++)
		offer(tr, ideal_ns(fps60, i) + (i % 10 == 5 ? 12 * NS_PER_MS : 0), i);
	st = stats(tr);
	assert_kept_every(tr, 1);
	ASSERT_EQ(st.kept, 120);
	ASSERT_EQ(st.decimated, 0);
	ASSERT_EQ(st.target_interval.den, 60);
	ASSERT_NEAR(st.mean_interval_ms, 1000 / 60.0, 1e-3);
	free(tr);
}

/*
 * A source a hair too fast (30.03 fps) for 15 fps keeps the grid: every
 * second frame, and now and then a third, for exactly 15 fps in the long
 * run; never two frames in a row.
 */
TEST(source_a_little_fast_keeps_the_grid_rate)
{
	const struct hws_fract fast = { 1000, 30030 };
	const size_t n = 30000;
	struct trace *tr = trace_new(fps15, fast);
	struct hws_capture_stats st;
	size_t threes = 0;

	feed(tr, fast, n, 0, 0);
	for (size_t k = 1; k < tr->n; k++) {
		uint32_t gap = tr->seq[k] - tr->seq[k - 1];

		ASSERT_TRUE(gap == 2 || gap == 3);
		threes += gap == 3;
	}
	ASSERT_GT(threes, 0);
	st = stats(tr);
	ASSERT_NEAR(st.mean_interval_ms, 1000.0 / 15, 1000.0 / 15 * 0.0002);
	free(tr);
}

/* Timestamp jitter of +-2 ms does not change which frames 50 -> 25 keeps. */
TEST(jitter_does_not_change_the_choice)
{
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct trace *tr = trace_new(fps25, fps50);
		struct hws_capture_stats st;

		feed(tr, fps50, 10000, 2 * NS_PER_MS, seed);
		assert_kept_every(tr, 2);
		st = stats(tr);
		ASSERT_EQ(st.kept, 5000);
		ASSERT_NEAR(st.mean_interval_ms, 40.0, 0.01);
		/*
		 * Each interval is 40 ms plus the difference of two uniform
		 * +-2 ms errors: a standard deviation of 2/sqrt(1.5) ms.
		 */
		ASSERT_NEAR(st.jitter_ms, 2 / sqrt(1.5), 0.1);
		ASSERT_NEAR(st.jitter_ticks, st.jitter_ms * 0.3, 1e-9);
		free(tr);
	}
}

/*
 * Drops at 50 -> 25: a frame that would have been kept (100), one that
 * would not (302), and a run of seven (501..507). They are counted; the
 * frame after each loss of a kept frame is kept, no two kept frames are
 * closer than the target interval, and every other frame is kept again
 * right after.
 */
TEST(drops_are_counted_and_the_grid_stays_sane)
{
	struct trace *tr = trace_new(fps25, fps50);
	struct hws_capture_stats st;
	uint64_t seed = 42;
	size_t offered = 0;
	int seen = 0;

	for (uint32_t i = 0; i < 1000; i++) {
		if (i == 100 || i == 302 || (i >= 501 && i <= 507))
			continue;
		offer(tr, ideal_ns(fps50, i) + (uint64_t)jitter(&seed, NS_PER_MS), i);
		offered++;
	}
	assert_counters_add_up(tr);
	st = stats(tr);
	ASSERT_EQ(st.dropped, 9);
	ASSERT_EQ(st.delivered, offered);
	for (size_t k = 1; k < tr->n; k++) {
		uint64_t gap = tr->ts[k] - tr->ts[k - 1];

		if (gap < 38 * NS_PER_MS)
			FAIL("kept frames %u and %u only %.1f ms apart", tr->seq[k - 1], tr->seq[k],
			     (double)gap / NS_PER_MS);
		/* Away from the long run of drops, every other frame. */
		if (tr->seq[k] > 110 && (tr->seq[k] < 500 || tr->seq[k] > 508))
			ASSERT_EQ(tr->seq[k] - tr->seq[k - 1], 2);
		/* The first frames after the losses are not held back. */
		seen += tr->seq[k] == 101 || tr->seq[k] == 508;
		/* Losing a frame it would have skipped changes nothing. */
		if (tr->seq[k] == 303)
			ASSERT_EQ(tr->seq[k - 1], 301);
	}
	ASSERT_EQ(seen, 2);
	free(tr);
}

/* The sequence wraps at 2^32: 0xfffffffe then 1 is two frames lost. */
TEST(sequence_wrap_counts_the_frames_between)
{
	struct trace *tr = trace_new(fps25, fps50);
	uint32_t seq = 0xfffffff0u;
	size_t i = 0;

	for (; seq != 0xffffffffu; seq++, i++)
		offer(tr, ideal_ns(fps50, i), seq);
	ASSERT_EQ(stats(tr).dropped, 0);
	/* 0xffffffff and 0 are lost. */
	i += 2;
	for (seq = 1; seq < 20; seq++, i++)
		offer(tr, ideal_ns(fps50, i), seq);
	ASSERT_EQ(stats(tr).dropped, 2);
	assert_counters_add_up(tr);
	free(tr);

	/* A wrap with nothing lost loses nothing. */
	tr = trace_new(fps25, fps50);
	seq = 0xfffffff0u;
	for (i = 0; i < 64; i++, seq++)
		offer(tr, ideal_ns(fps50, i), seq);
	ASSERT_EQ(stats(tr).dropped, 0);
	ASSERT_EQ(stats(tr).kept, 32);
	free(tr);
}

/*
 * After STREAMOFF/STREAMON the driver counts from 0 again: that is a
 * restart, not four billion drops. A driver that does not count at all
 * (always 0) loses nothing either.
 */
TEST(sequence_going_backwards_is_a_restart)
{
	struct trace *tr = trace_new(fps25, fps50);
	size_t i = 0;

	for (uint32_t seq = 5000; seq < 5100; seq++, i++)
		offer(tr, ideal_ns(fps50, i), seq);
	for (uint32_t seq = 0; seq < 100; seq++, i++)
		offer(tr, ideal_ns(fps50, i), seq);
	ASSERT_EQ(stats(tr).dropped, 0);
	ASSERT_EQ(stats(tr).kept, 100);
	/* And a real gap after the restart still counts. */
	offer(tr, ideal_ns(fps50, i + 3), 103);
	ASSERT_EQ(stats(tr).dropped, 3);
	free(tr);

	tr = trace_new(fps25, fps50);
	for (i = 0; i < 100; i++)
		offer(tr, ideal_ns(fps50, i), 0);
	ASSERT_EQ(stats(tr).dropped, 0);
	ASSERT_EQ(stats(tr).kept, 50);
	free(tr);
}

/*
 * The driver stalls for a second, with or without counting the frames it
 * lost. The grid re-anchors at the first frame after: no burst of frames
 * to catch up, and every other frame again at 40 ms.
 */
TEST(stall_reanchors_without_a_burst)
{
	for (int counted = 0; counted <= 1; counted++) {
		struct trace *tr = trace_new(fps25, fps50);
		struct hws_capture_stats st;
		uint32_t seq = 0;
		size_t after = 0;

		for (uint32_t i = 0; i < 400; i++) {
			/* Frames 101..150 never come. */
			if (i > 100 && i <= 150)
				continue;
			seq = counted ? i : seq + 1;
			offer(tr, ideal_ns(fps50, i), seq);
		}
		st = stats(tr);
		ASSERT_EQ(st.dropped, counted ? 50 : 0);
		for (size_t k = 1; k < tr->n; k++) {
			uint64_t gap = tr->ts[k] - tr->ts[k - 1];

			if (tr->ts[k] <= ideal_ns(fps50, 100))
				continue;
			if (tr->ts[k - 1] > ideal_ns(fps50, 100)) {
				ASSERT_EQ(gap, 40 * NS_PER_MS);
				after++;
			} else {
				/* The first frame after the stall is kept. */
				ASSERT_EQ(tr->ts[k], ideal_ns(fps50, 151));
			}
		}
		ASSERT_EQ(after, (399 - 151) / 2);
		free(tr);
	}
}

/* The same at 60 -> 25, where catching up would have kept every 2nd frame. */
TEST(stall_reanchors_at_non_integer_ratio)
{
	struct trace *tr = trace_new(fps25, fps60);
	const uint64_t stall_end = ideal_ns(fps60, 300);
	size_t after = 0;

	for (uint32_t i = 0; i < 900; i++)
		if (i <= 100 || i >= 300)
			offer(tr, ideal_ns(fps60, i), i);
	ASSERT_EQ(stats(tr).dropped, 199);
	for (size_t k = 1; k < tr->n; k++) {
		uint32_t gap = tr->seq[k] - tr->seq[k - 1];

		if (tr->ts[k - 1] < stall_end)
			continue;
		ASSERT_TRUE(gap == 2 || gap == 3);
		after++;
	}
	/* 600 frames at 60 fps after the stall: 10 s, 250 frames at 25 fps. */
	ASSERT_NEAR((double)after, 250, 3);
	free(tr);
}

/*
 * Timestamps that stand still or run backwards: no crash, no division by
 * zero, finite statistics, and pacing resumes on the new timeline.
 */
TEST(timestamps_equal_or_backwards)
{
	struct trace *tr = trace_new(fps25, fps50);
	struct hws_capture_stats st;
	uint32_t seq = 0;

	for (uint32_t i = 0; i < 100; i++)
		offer(tr, ideal_ns(fps50, i), seq++);
	/* The same timestamp three times over. */
	for (int i = 0; i < 3; i++)
		offer(tr, ideal_ns(fps50, 99), seq++);
	/* Three seconds back in time, then on again at 50 fps. */
	for (uint32_t i = 0; i < 200; i++)
		offer(tr, ideal_ns(fps50, i) - 3 * NS_PER_SEC, seq++);

	assert_counters_add_up(tr);
	st = stats(tr);
	ASSERT_TRUE(isfinite(st.mean_interval_ms));
	ASSERT_TRUE(isfinite(st.jitter_ms));
	ASSERT_TRUE(isfinite(st.mean_interval_ticks));
	ASSERT_TRUE(isfinite(st.jitter_ticks));
	ASSERT_GT(st.mean_interval_ms, 0);
	/* The last 190 frames: every other one, 40 ms apart. */
	for (size_t k = tr->n - 95; k < tr->n; k++)
		ASSERT_EQ(tr->ts[k] - tr->ts[k - 1], 40 * NS_PER_MS);
	free(tr);

	/* A driver whose clock never runs: not stuck, every frame comes out. */
	tr = trace_new(fps25, fps50);
	for (uint32_t i = 0; i < 50; i++)
		offer(tr, 0, i);
	st = stats(tr);
	ASSERT_EQ(st.kept, 50);
	ASSERT_NEAR(st.mean_interval_ms, 0, 0);
	ASSERT_NEAR(st.jitter_ms, 0, 0);
	free(tr);
}

/* Target {0, 0}: no pacing, but the statistics still tell the truth. */
TEST(no_target_keeps_every_frame_with_stats)
{
	struct trace *tr = trace_new(fps_none, fps25);
	struct hws_capture_stats st;
	uint64_t ts = BASE_NS;

	/* Intervals of 30 and 50 ms in turn: mean 40, deviation 10. */
	for (uint32_t i = 0; i < 101; i++) {
		ASSERT_TRUE(offer(tr, ts, i));
		ts += (i % 2 ? 50 : 30) * NS_PER_MS;
	}
	st = stats(tr);
	ASSERT_EQ(st.kept, 101);
	ASSERT_EQ(st.decimated, 0);
	ASSERT_NEAR(st.mean_interval_ms, 40.0, 1e-6);
	ASSERT_NEAR(st.jitter_ms, 10.0, 1e-6);
	ASSERT_NEAR(st.mean_interval_ticks, 12.0, 1e-6);
	ASSERT_NEAR(st.jitter_ticks, 3.0, 1e-6);
	ASSERT_EQ(st.target_interval.num, 0);
	ASSERT_EQ(st.target_interval.den, 0);
	free(tr);
}

/*
 * Equal intervals have no jitter, even where rounding in the sums of
 * squares would make the variance a hair negative (and its root NaN).
 */
TEST(equal_intervals_have_zero_jitter)
{
	struct trace *tr = trace_new(fps_none, fps_none);
	struct hws_capture_stats st;

	for (uint32_t i = 0; i < 7; i++)
		offer(tr, BASE_NS + i * 66733333ull, i);
	st = stats(tr);
	ASSERT_NEAR(st.mean_interval_ms, 66.733333, 1e-9);
	ASSERT_NEAR(st.jitter_ms, 0, 0);
	ASSERT_NEAR(st.jitter_ticks, 0, 0);
	free(tr);
}

/* A target faster than the source cannot be met: every frame is kept. */
TEST(target_faster_than_source_keeps_every_frame)
{
	struct trace *tr = trace_new(fps30, fps25);

	feed(tr, fps25, 1000, 2 * NS_PER_MS, 3);
	assert_kept_every(tr, 1);
	ASSERT_NEAR(stats(tr).mean_interval_ms, 40.0, 0.01);
	free(tr);
}

/*
 * A driver that gave no interval: the source interval is learned from the
 * timestamps, and 50 -> 25 keeps every other frame all the same, drops
 * and +-2 ms jitter included; 60 -> 25 still averages 25 fps.
 */
TEST(unknown_source_interval_is_learned)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct trace *tr = trace_new(fps25, fps_none);
		struct hws_capture_stats st;

		for (uint32_t i = 0; i < 10000; i++) {
			if (i % 97 == 51)
				continue; /* a frame lost now and then */
			offer(tr, ideal_ns(fps50, i) + (uint64_t)jitter(&seed, 2 * NS_PER_MS), i);
		}
		for (size_t k = 1; k < tr->n; k++) {
			uint32_t gap = tr->seq[k] - tr->seq[k - 1];

			/* 2, or 3 when the frame between was lost */
			if (gap != 2 && !(gap == 3 && (tr->seq[k] - 1) % 97 == 51))
				FAIL("kept frames %u and %u", tr->seq[k - 1], tr->seq[k]);
		}
		ASSERT_GT(tr->seq[tr->n - 1], 9990);
		st = stats(tr);
		ASSERT_EQ(st.driver_interval.den, 0);
		/* 40 ms, and 60 where a kept frame was lost. */
		ASSERT_NEAR(st.mean_interval_ms,
			    (double)(tr->ts[tr->n - 1] - tr->ts[0]) / NS_PER_MS / (double)(tr->n - 1),
			    1e-6);
		free(tr);

		tr = trace_new(fps25, fps_none);
		feed(tr, fps60, 30000, 2 * NS_PER_MS, seed);
		ASSERT_NEAR((double)stats(tr).kept, 12500, 125);
		for (size_t k = 1; k < tr->n; k++) {
			uint32_t gap = tr->seq[k] - tr->seq[k - 1];

			ASSERT_TRUE(gap == 2 || gap == 3);
		}
		free(tr);
	}
}

/*
 * 10 and 5 fps from 30 over 40000 frames: rounding 1/30 s to whole
 * nanoseconds does not drift the grid off the frames.
 */
TEST(long_run_does_not_drift)
{
	struct trace *tr = trace_new(fps10, fps30);

	feed(tr, fps30, MAX_FRAMES, 0, 0);
	assert_kept_every(tr, 3);
	free(tr);
	tr = trace_new(fps5, fps30);
	feed(tr, fps30, MAX_FRAMES, 3 * NS_PER_MS, 5);
	assert_kept_every(tr, 6);
	free(tr);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
