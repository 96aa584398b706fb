/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Apple Motion Sensor's attributes (hws_motion_parse(), in
 * lib/motion/motion-detector.c): ams' "current" ("x y z\n", s8), applesmc's
 * "position" ("(x,y,z)\n", s16) and "calibrate" ("(x,y)\n"), and hdaps'
 * "position" ("(x,y)\n" of a 16-bit count, maybe negated). Each input is
 * parsed in every format; what parses is in range and goes on into a
 * calibrated sample and an orientation, as hws_motion_read() takes it. The
 * first bytes are also printed the way the drivers print and must parse
 * back to themselves.
 */
#include <errno.h>

#include <hwsight/motion.h>

#include "fuzz.h"

static const struct {
	int n;
	long min, max;
	const char *fmt;
} formats[] = {
	[HWS_MOTION_FORMAT_AMS_CURRENT] = { 3, -128, 127, "%d %d %d\n" },
	[HWS_MOTION_FORMAT_APPLESMC_POSITION] = { 3, -32768, 32767, "(%d,%d,%d)\n" },
	[HWS_MOTION_FORMAT_APPLESMC_CALIBRATE] = { 2, -32768, 32767, "(%d,%d)\n" },
	[HWS_MOTION_FORMAT_HDAPS_POSITION] = { 2, -65535, 65535, "(%d,%d)\n" },
};

#define N_FORMATS ((int)(sizeof(formats) / sizeof(formats[0])))

static bool all_blank(const char *s)
{
	return s[strspn(s, " \t\n")] == '\0';
}

static void check_sample(const int raw[3], int counts_per_g, int off_x, int off_y)
{
	struct hws_motion_calibration cal = { { off_x, off_y, 0 }, counts_per_g };
	struct hws_motion_sample s;
	int r;

	r = hws_motion_sample_from_raw(&cal, 1000, raw, &s);
	FUZZ_CHECK(r == 0, "(%d,%d,%d) with offsets %d,%d: %d", raw[0], raw[1], raw[2], off_x, off_y, r);
	for (int prev = HWS_MOTION_UNDEFINED; prev <= HWS_MOTION_FACE_DOWN; prev++) {
		r = hws_motion_orientation(prev, &s);
		FUZZ_CHECK(r >= HWS_MOTION_UNDEFINED && r <= HWS_MOTION_FACE_DOWN,
			   "(%d,%d,%d) mg after %d: %d", s.mg[0], s.mg[1], s.mg[2], prev, r);
		FUZZ_CHECK(hws_motion_orientation_name(r), "orientation %d has no name", r);
	}
}

static void check_text(const char *text, int off_x, int off_y)
{
	for (int f = 0; f < N_FORMATS; f++) {
		int v[3] = { 0, 0, 0 };
		int r = hws_motion_parse(f, text, v);

		if (r < 0) {
			FUZZ_CHECK(r == -EBADMSG || r == -ERANGE || r == -ENODATA, "format %d, \"%s\": %d",
				   f, text, r);
			FUZZ_CHECK((r == -ENODATA) == all_blank(text), "format %d, \"%s\": %d", f, text, r);
			continue;
		}
		FUZZ_CHECK(r == formats[f].n, "format %d, \"%s\": %d values", f, text, r);
		for (int i = 0; i < r; i++)
			FUZZ_CHECK(v[i] >= formats[f].min && v[i] <= formats[f].max,
				   "format %d, \"%s\": value %d is %d", f, text, i, v[i]);
		if (f == HWS_MOTION_FORMAT_AMS_CURRENT)
			check_sample(v, 50, off_x, off_y);
		else if (f == HWS_MOTION_FORMAT_APPLESMC_POSITION)
			check_sample(v, 256, off_x, off_y);
		else if (f == HWS_MOTION_FORMAT_HDAPS_POSITION)
			check_sample((int[3]){ v[0], v[1], 0 }, 54, off_x, off_y);
	}
}

/* What the drivers print parses back to what they meant. */
static void check_round_trip(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	int16_t x = (int16_t)fuzz_take(&in, 2), y = (int16_t)fuzz_take(&in, 2), z = (int16_t)fuzz_take(&in, 2);

	for (int f = 0; f < N_FORMATS; f++) {
		int want[3] = { x, y, z }, got[3] = { 0, 0, 0 };
		char text[64];
		int r;

		if (f == HWS_MOTION_FORMAT_AMS_CURRENT)
			for (int i = 0; i < 3; i++)
				want[i] = (int8_t)want[i];
		if (formats[f].n == 3)
			snprintf(text, sizeof(text), formats[f].fmt, want[0], want[1], want[2]);
		else
			snprintf(text, sizeof(text), formats[f].fmt, want[0], want[1]);
		r = hws_motion_parse(f, text, got);
		FUZZ_CHECK(r == formats[f].n, "the driver's \"%s\": %d", text, r);
		for (int i = 0; i < r; i++)
			FUZZ_CHECK(got[i] == want[i], "the driver's \"%s\": value %d is %d", text, i, got[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	char *text = fuzz_string(data, size);
	/* applesmc's calibrate offsets, from the same bytes. */
	int off_x = (int16_t)fuzz_take(&in, 2), off_y = (int16_t)fuzz_take(&in, 2);

	check_text(text, off_x, off_y);
	check_round_trip(data, size);
	free(text);
	return 0;
}
