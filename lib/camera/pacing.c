/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pacer: software decimation on the 300 Hz grid, by driver timestamps.
 *
 * Notation: T is the target interval, S the source (driver) interval, g the
 * current grid point, t a frame's timestamp. The grid is anchored at the
 * first frame (g = t0 + T) and a frame is kept when
 *
 *   1. it is the first frame at or after g - S/2: with a regular source that
 *      is the frame nearest g, and a frame that driver jitter makes a little
 *      early for its grid point is still the one kept; and
 *   2. it is at least n*S - S/2 after the last kept frame, where n is the
 *      whole number of source frames in T, rounded down, except that a
 *      source at most 0.5% too slow rounds it up.
 *
 * After a kept frame the grid advances one T from g, so the long-run rate
 * is the target's whatever the ratio (60 -> 25 fps keeps 2, 3, 2, 3, 2 ...
 * frames). If the kept frame came S or more after g (the frames near g
 * were lost, the driver stalled, or the source is slower than the grid),
 * the grid re-anchors at it (g = t + T) instead of catching up with a
 * burst of frames.
 *
 * Rule 2 keeps out the bursts the grid alone would make. Without it a
 * source a hair too slow for an integer ratio, NTSC 30000/1001 for 15 fps,
 * would keep two frames in a row once every eight seconds to stay on the
 * grid: a visible stutter to win back 0.1%. With it every second frame is
 * kept, the grid slides, and the statistics report the truth (66.73 ms,
 * not 66.67). A source a hair too fast keeps the grid and skips a frame
 * now and then instead, which costs neither rate nor a burst.
 *
 * The S/2 margins leave room for timestamp jitter of up to S/2; re-anchoring
 * only a whole S late (not S/2) keeps jitter from sliding the grid at a
 * ratio like 60 -> 25, whose kept frames sit up to S/2 either side of it.
 * Jitter can still tip the choice between two frames almost equally near a
 * grid point: one interval is then a frame longer and the next one shorter.
 *
 * A frame whose timestamp is not after the last kept one means the clock
 * restarted or does not run: no grid can place it, so it starts a new grid
 * as the first frame did. Sequence numbers only count drops; a sequence
 * going backwards (more than 2^31 "ahead") is a driver restart, not four
 * billion drops. When the driver gave no interval, S is learned from the
 * timestamps of frames that are consecutive or a known number apart.
 */
#include <assert.h>
#include <math.h>

#include "camera/pacing.h"

#define NS_PER_SEC 1000000000ull
#define TICKS_PER_SEC 300.0

/* How much slower than the grid a source may be and still fill it (rule 2). */
#define SLOW_SOURCE_SLACK 200 /* 1/200 = 0.5% */

/* Samples over which a source interval the driver did not give is learned. */
#define LEARN_WINDOW 64

static uint64_t fract_to_ns(struct hws_fract f)
{
	if (f.num == 0 || f.den == 0)
		return 0;
	return ((uint64_t)f.num * NS_PER_SEC + f.den / 2) / f.den;
}

void hws__pacer_init(struct hws__pacer *p, struct hws_fract target, struct hws_fract source)
{
	uint64_t t = fract_to_ns(target), s = fract_to_ns(source);

	assert(p);
	/*
	 * A driver set to the target rate has nothing to decimate: every frame
	 * it delivers is kept, however late its thread stamps one of them.
	 */
	*p = (struct hws__pacer){
		.target_ns = t == s ? 0 : t,
		.source_ns = s,
	};
	p->stats.target_interval = target;
	p->stats.driver_interval = source;
}

static bool source_is_nominal(const struct hws__pacer *p)
{
	return fract_to_ns(p->stats.driver_interval) != 0;
}

/*
 * One sample of the source interval, for a driver that did not say: the
 * running mean of the first LEARN_WINDOW samples, then an exponential
 * average over about as many. The samples are differences of timestamps,
 * so their jitter cancels in the mean instead of adding up. A sample is
 * clamped to half or twice the estimate so that one stall does not blow up
 * the tolerances, while a real change of rate still gets there.
 */
static void learn_source(struct hws__pacer *p, uint64_t sample)
{
	uint64_t s = p->source_ns;
	uint64_t w = p->stats.delivered - 1; /* about how many samples so far */

	if (s == 0 || w <= 1) {
		p->source_ns = sample;
		return;
	}
	if (w > LEARN_WINDOW)
		w = LEARN_WINDOW;
	if (sample > 2 * s)
		sample = 2 * s;
	if (sample < s / 2)
		sample = s / 2;
	if (sample >= s)
		p->source_ns = s + (sample - s) / w;
	else
		p->source_ns = s - (s - sample) / w;
}

/* Drops, from the gap between this sequence number and the one before. */
static void count_sequence(struct hws__pacer *p, uint64_t t, uint32_t sequence)
{
	uint32_t step = sequence - p->last_sequence; /* wraps at 2^32 */

	/*
	 * 0: the driver does not count, or repeated itself. Past 2^31: the
	 * count went backwards, the driver restarted streaming.
	 */
	if (step == 0 || step > UINT32_MAX / 2)
		return;
	p->stats.dropped += step - 1;
	if (!source_is_nominal(p) && t > p->last_ns)
		learn_source(p, (t - p->last_ns) / step);
}

/* Rule 2: the shortest interval allowed between kept frames. */
static uint64_t min_kept_gap(const struct hws__pacer *p)
{
	uint64_t s = p->source_ns, n;

	if (s == 0)
		return 0;
	n = (p->target_ns + p->target_ns / SLOW_SOURCE_SLACK) / s;
	return n == 0 ? 0 : n * s - s / 2;
}

static bool keep(struct hws__pacer *p, uint64_t t, uint64_t next, bool count_interval)
{
	if (count_interval) {
		double d = (double)(t - p->last_kept_ns);

		p->sum_ns += d;
		p->sum_sq_ns += d * d;
		p->n_intervals++;
	}
	p->last_kept_ns = t;
	p->next_ns = next;
	p->stats.kept++;
	return true;
}

static bool decimate(struct hws__pacer *p)
{
	p->stats.decimated++;
	return false;
}

bool hws__pacer_offer(struct hws__pacer *p, uint64_t timestamp_ns, uint32_t sequence)
{
	uint64_t t = timestamp_ns, s, g;

	assert(p);
	p->stats.delivered++;
	if (p->started)
		count_sequence(p, t, sequence);
	p->last_sequence = sequence;
	p->last_ns = t;

	if (!p->started || t <= p->last_kept_ns) {
		p->started = true;
		return keep(p, t, t + p->target_ns, false);
	}
	if (p->target_ns == 0)
		return keep(p, t, t, true);

	s = p->source_ns;
	g = p->next_ns;
	if (t + s / 2 < g)
		return decimate(p);
	if (t - p->last_kept_ns < min_kept_gap(p))
		return decimate(p);
	return keep(p, t, t >= g + s ? t + p->target_ns : g + p->target_ns, true);
}

void hws__pacer_stats(const struct hws__pacer *p, struct hws_capture_stats *ret)
{
	struct hws_capture_stats st;

	assert(p);
	assert(ret);
	st = p->stats;
	st.mean_interval_ms = st.jitter_ms = 0;
	st.mean_interval_ticks = st.jitter_ticks = 0;
	if (p->n_intervals > 0) {
		double n = (double)p->n_intervals;
		double mean = p->sum_ns / n;
		/*
		 * The population deviation: these intervals are all the user
		 * got, not a sample of them. Rounding in the sums can take a
		 * zero variance a hair below zero.
		 */
		double var = fmax(p->sum_sq_ns / n - mean * mean, 0.0);
		double sd = sqrt(var);

		st.mean_interval_ms = mean / 1e6;
		st.jitter_ms = sd / 1e6;
		st.mean_interval_ticks = mean * TICKS_PER_SEC / (double)NS_PER_SEC;
		st.jitter_ticks = sd * TICKS_PER_SEC / (double)NS_PER_SEC;
	}
	*ret = st;
}
