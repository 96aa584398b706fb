/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stream of motion sensor readings into the sudden-motion and free-fall
 * detector, as hwsightd's disk protection feeds it: detector parameters
 * and a calibration (any the API takes, some it refuses), then samples of
 * raw s16 axes as applesmc reports them, with gaps, repeats and time going
 * back. The events must follow the state they report, and the state must
 * stay within what hws_motion_detector_feed() documents.
 *
 * Input: threshold:2 fixed:1 freefall_mg:2 freefall_ms:2 hold_ms:2
 * counts_per_g:3 offset:3x3, then per sample dt:2 x:2 y:2 z:2 (dt below
 * 0x8000 is microseconds, above it (dt & 0x7fff) milliseconds; 0xffff is
 * time going back a second).
 */
#include <errno.h>
#include <math.h>

#include <hwsight/motion.h>

#include "fuzz.h"

#define ALL_EVENTS (HWS_MOTION_EVENT_SUDDEN_MOTION | HWS_MOTION_EVENT_MOTION_STOPPED | \
		    HWS_MOTION_EVENT_FREE_FALL | HWS_MOTION_EVENT_FREE_FALL_END)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct hws_motion_detector_params params;
	struct hws_motion_calibration cal;
	struct hws_motion_detector *d = NULL;
	struct hws_motion_detector_state st;
	bool params_ok, cal_ok, moving = false, falling = false;
	int orientation = HWS_MOTION_UNDEFINED, r;
	uint64_t now = 1000000;
	double base;

	params = (struct hws_motion_detector_params){
		.threshold = (unsigned)fuzz_take(&in, 2) % 1100,
		.fixed_threshold = fuzz_take(&in, 1) & 1,
		.freefall_mg = (unsigned)fuzz_take(&in, 2) % 1100,
		.freefall_ms = (unsigned)fuzz_take(&in, 2) * 2,
		.hold_ms = (unsigned)fuzz_take(&in, 2) * 2,
	};
	params_ok = params.threshold <= 1000 && params.freefall_mg <= 1000 &&
		    params.freefall_ms <= 60000 && params.hold_ms <= 60000;
	r = hws_motion_detector_new(&params, &d);
	if (!params_ok) {
		FUZZ_CHECK(r == -EINVAL, "parameters out of range taken: %d", r);
		return 0;
	}
	FUZZ_CHECK(r == 0 && d, "parameters refused: %d", r);
	base = params.threshold ? params.threshold : 15;

	/* Mostly in range, and a little beyond: counts per g from -50000 to
	 * 1050000, offsets within +-2^20. */
	cal.counts_per_g = (int)(fuzz_take(&in, 3) % 1100000) - 50000;
	for (int i = 0; i < 3; i++)
		cal.offset[i] = (int)(fuzz_take(&in, 3) % (1u << 21)) - (1 << 20);
	cal_ok = cal.counts_per_g > 0 && cal.counts_per_g <= 1000000;
	for (int i = 0; i < 3; i++)
		cal_ok = cal_ok && cal.offset[i] >= -1000000 && cal.offset[i] <= 1000000;

	while (fuzz_more(&in)) {
		unsigned dt = (unsigned)fuzz_take(&in, 2);
		int raw[3];
		struct hws_motion_sample s;
		int events;

		for (int i = 0; i < 3; i++)
			raw[i] = (int16_t)fuzz_take(&in, 2);
		if (dt == 0xffff)
			now -= 1000000;
		else if (dt & 0x8000)
			now += (uint64_t)(dt & 0x7fff) * 1000;
		else
			now += dt;

		r = hws_motion_sample_from_raw(&cal, now, raw, &s);
		if (!cal_ok) {
			FUZZ_CHECK(r == -EINVAL, "a calibration out of range taken: %d", r);
			break;
		}
		FUZZ_CHECK(r == 0, "(%d,%d,%d): %d", raw[0], raw[1], raw[2], r);

		events = hws_motion_detector_feed(d, &s);
		FUZZ_CHECK(events >= 0 && !(events & ~ALL_EVENTS), "events %#x", (unsigned)events);
		FUZZ_CHECK(!((events & HWS_MOTION_EVENT_SUDDEN_MOTION) && (events & HWS_MOTION_EVENT_MOTION_STOPPED)),
			   "motion began and stopped in one sample");
		FUZZ_CHECK(!((events & HWS_MOTION_EVENT_FREE_FALL) && (events & HWS_MOTION_EVENT_FREE_FALL_END)),
			   "a fall began and ended in one sample");
		if (events & HWS_MOTION_EVENT_SUDDEN_MOTION) {
			FUZZ_CHECK(!moving, "sudden motion while moving");
			moving = true;
		}
		if (events & HWS_MOTION_EVENT_MOTION_STOPPED) {
			FUZZ_CHECK(moving, "motion stopped while still");
			moving = false;
		}
		if (events & HWS_MOTION_EVENT_FREE_FALL) {
			FUZZ_CHECK(!falling, "a fall while falling");
			falling = true;
		}
		if (events & HWS_MOTION_EVENT_FREE_FALL_END) {
			FUZZ_CHECK(falling, "a landing without a fall");
			falling = false;
		}
		FUZZ_CHECK(hws_motion_detector_get_state(d, &st) == 0, "no state");
		FUZZ_CHECK(st.moving == moving && st.falling == falling,
			   "state moving %d falling %d, events said %d %d", st.moving, st.falling, moving, falling);
		FUZZ_CHECK(isfinite(st.threshold) && st.threshold >= base && st.threshold <= 4 * base + 1e-9,
			   "threshold %g for a base of %g", st.threshold, base);
		FUZZ_CHECK(isfinite(st.score) && st.score >= 0, "score %g", st.score);

		orientation = hws_motion_orientation(orientation, &s);
		FUZZ_CHECK(orientation >= HWS_MOTION_UNDEFINED && orientation <= HWS_MOTION_FACE_DOWN,
			   "orientation %d", orientation);
	}
	hws_motion_detector_free(d);
	return 0;
}
