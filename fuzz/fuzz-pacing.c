/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The camera pacer (camera/pacing.c) fed a driver's timestamp and sequence
 * stream: any target and driver interval (none included), timestamps that
 * jump, stand still or run back, sequence numbers that repeat, skip, wrap
 * and restart. Checked against what pacing.h promises: every frame is
 * counted once, kept or decimated; drops are exactly the sequence gaps; the
 * first frame and any frame not after the last kept one are kept (a new
 * grid); with no target every frame is kept; the statistics are numbers.
 *
 * Input: target num:2 den:2, driver num:2 den:2, first timestamp:6 (ns),
 * first sequence:4, then per frame dt:4 (signed ns) and a sequence step:1
 * (signed; -128 is a jump of 2^31).
 */
#include <math.h>

#include "camera/pacing.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct hws_fract target, source;
	struct hws_capture_stats st;
	struct hws__pacer p;
	uint64_t t, last_kept = 0, frames = 0, kept = 0, dropped = 0;
	uint32_t seq, last_seq = 0;

	target.num = (uint32_t)fuzz_take(&in, 2);
	target.den = (uint32_t)fuzz_take(&in, 2);
	source.num = (uint32_t)fuzz_take(&in, 2);
	source.den = (uint32_t)fuzz_take(&in, 2);
	t = fuzz_take(&in, 6);
	seq = (uint32_t)fuzz_take(&in, 4);
	hws__pacer_init(&p, target, source);

	while (fuzz_more(&in)) {
		int32_t dt = (int32_t)(uint32_t)fuzz_take(&in, 4);
		int8_t step = (int8_t)fuzz_take(&in, 1);
		bool keep, restart;

		if (frames > 0) {
			t = dt < 0 && (uint64_t)-(int64_t)dt > t ? 0 : t + (uint64_t)(int64_t)dt;
			seq += step == -128 ? 0x80000000u : (uint32_t)(int32_t)step;
			/* What the pacer counts as lost: a forward gap. */
			if (seq - last_seq != 0 && seq - last_seq <= UINT32_MAX / 2)
				dropped += seq - last_seq - 1;
		}
		restart = frames == 0 || t <= last_kept;
		keep = hws__pacer_offer(&p, t, seq);
		frames++;
		if (restart)
			FUZZ_CHECK(keep, "frame %llu at %llu ns, not after the last kept (%llu ns), decimated",
				   (unsigned long long)frames, (unsigned long long)t, (unsigned long long)last_kept);
		if (target.num == 0 || target.den == 0)
			FUZZ_CHECK(keep, "frame %llu decimated without a target", (unsigned long long)frames);
		if (keep) {
			kept++;
			last_kept = t;
		}
		last_seq = seq;
	}

	hws__pacer_stats(&p, &st);
	FUZZ_CHECK(st.delivered == frames, "%llu delivered of %llu", (unsigned long long)st.delivered,
		   (unsigned long long)frames);
	FUZZ_CHECK(st.kept == kept, "%llu kept, said %llu", (unsigned long long)kept, (unsigned long long)st.kept);
	FUZZ_CHECK(st.kept + st.decimated == st.delivered, "%llu kept + %llu decimated of %llu",
		   (unsigned long long)st.kept, (unsigned long long)st.decimated,
		   (unsigned long long)st.delivered);
	FUZZ_CHECK(st.dropped == dropped, "%llu dropped, sequence gaps say %llu",
		   (unsigned long long)st.dropped, (unsigned long long)dropped);
	FUZZ_CHECK(isfinite(st.mean_interval_ms) && st.mean_interval_ms >= 0, "mean %g ms", st.mean_interval_ms);
	FUZZ_CHECK(isfinite(st.jitter_ms) && st.jitter_ms >= 0, "jitter %g ms", st.jitter_ms);
	FUZZ_CHECK(isfinite(st.mean_interval_ticks) && isfinite(st.jitter_ticks), "ticks %g, %g",
		   st.mean_interval_ticks, st.jitter_ticks);
	FUZZ_CHECK(st.target_interval.num == target.num && st.target_interval.den == target.den &&
		   st.driver_interval.num == source.num && st.driver_interval.den == source.den,
		   "the intervals changed");
	return 0;
}
