/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pure logic of the motion sensor, fed made-up samples: parsing the
 * drivers' text, calibration, orientation and the detector. Sequences are
 * sampled as the drivers deliver them (ams polls at 40 Hz, hdapsd reads
 * applesmc at 50 Hz) with the sensors' own quantisation noise.
 */
#include <hwsight/motion.h>

#include "task.h"

#define G 1000 /* mg */
#define PI 3.14159265358979323846

/* The test links no libm: sine by its series, fine on [-pi, pi]. */
static double t_sin(double x)
{
	double term = x, sum = x;

	for (int n = 1; n < 12; n++) {
		term *= -x * x / ((2 * n) * (2 * n + 1));
		sum += term;
	}
	return sum;
}

static double t_cos(double x)
{
	return t_sin(PI / 2 - x);
}

static int t_round(double v)
{
	return (int)(v >= 0 ? v + 0.5 : v - 0.5);
}

/* A triangle wave of amplitude amp and frequency hz. */
static int triangle(uint64_t usec, int hz, int amp)
{
	uint64_t period = 1000000 / (uint64_t)hz, ph = usec % period;
	long long quarter = (long long)period / 4, p = (long long)ph;

	if (p < quarter)
		return (int)(amp * p / quarter);
	if (p < 3 * quarter)
		return (int)(amp - amp * (p - quarter) / quarter);
	return (int)(-amp + amp * (p - 3 * quarter) / quarter);
}

static struct hws_motion_sample mk(uint64_t usec, int x, int y, int z)
{
	return (struct hws_motion_sample){ .time_usec = usec, .mg = { x, y, z } };
}

/* What happened over a sequence, and when. */
struct tally {
	int count[4];          /* per event bit */
	uint64_t first[4], last[4];
};

static int bit_index(unsigned bit)
{
	return __builtin_ctz(bit);
}

static void feed(struct hws_motion_detector *d, struct tally *t, struct hws_motion_sample s)
{
	int ev = hws_motion_detector_feed(d, &s);

	ASSERT_GE(ev, 0);
	for (unsigned bit = 1; bit <= HWS_MOTION_EVENT_FREE_FALL_END; bit <<= 1) {
		int i = bit_index(bit);

		if (!(ev & (int)bit))
			continue;
		if (!t->count[i]++)
			t->first[i] = s.time_usec;
		t->last[i] = s.time_usec;
	}
}

#define N_SUDDEN(t)  ((t)->count[bit_index(HWS_MOTION_EVENT_SUDDEN_MOTION)])
#define N_STOPPED(t) ((t)->count[bit_index(HWS_MOTION_EVENT_MOTION_STOPPED)])
#define N_FALL(t)    ((t)->count[bit_index(HWS_MOTION_EVENT_FREE_FALL)])
#define N_LANDED(t)  ((t)->count[bit_index(HWS_MOTION_EVENT_FREE_FALL_END)])

/* Lying still, face up, with one count of noise on x and y. */
static uint64_t still(struct hws_motion_detector *d, struct tally *t, uint64_t from,
		      uint64_t usec, uint64_t step, int count_mg)
{
	uint64_t now;
	int k = 0;

	for (now = from; now < from + usec; now += step, k++)
		feed(d, t, mk(now, (k & 1) ? count_mg : -count_mg, (k & 2) ? count_mg : 0, G));
	return now;
}

static struct hws_motion_detector *detector(bool fixed)
{
	struct hws_motion_detector_params p = { .fixed_threshold = fixed };
	struct hws_motion_detector *d = NULL;

	ASSERT_EQ(hws_motion_detector_new(&p, &d), 0);
	ASSERT_NOT_NULL(d);
	return d;
}

static double threshold_of(const struct hws_motion_detector *d)
{
	struct hws_motion_detector_state st;

	ASSERT_EQ(hws_motion_detector_get_state(d, &st), 0);
	return st.threshold;
}

/* ---- parsers ---------------------------------------------------------- */

static void assert_parse(enum hws_motion_format f, const char *text, int expect_r, int x, int y, int z)
{
	int v[3] = { 7777, 7777, 7777 };
	int r = hws_motion_parse(f, text, v);

	if (r != expect_r)
		FAIL("parse(%d, \"%s\") returned %d, expected %d", (int)f, text, r, expect_r);
	if (r < 0) {
		/* Out-parameters stay untouched on failure. */
		ASSERT_EQ(v[0], 7777);
		ASSERT_EQ(v[1], 7777);
		ASSERT_EQ(v[2], 7777);
		return;
	}
	ASSERT_EQ(v[0], x);
	ASSERT_EQ(v[1], y);
	ASSERT_EQ(v[2], z);
}

TEST(parse_ams_current)
{
	const enum hws_motion_format f = HWS_MOTION_FORMAT_AMS_CURRENT;

	assert_parse(f, "12 -3 50\n", 3, 12, -3, 50);
	assert_parse(f, "12 -3 50", 3, 12, -3, 50);       /* missing newline */
	assert_parse(f, "-128 127 0\n", 3, -128, 127, 0);  /* the s8 limits */
	assert_parse(f, " 1\t2  3 \n", 3, 1, 2, 3);
	assert_parse(f, "+4 0 -0", 3, 4, 0, 0);
}

TEST(parse_ams_current_malformed)
{
	const enum hws_motion_format f = HWS_MOTION_FORMAT_AMS_CURRENT;

	assert_parse(f, "", -ENODATA, 0, 0, 0);
	assert_parse(f, "\n", -ENODATA, 0, 0, 0);
	assert_parse(f, "abc", -EBADMSG, 0, 0, 0);
	assert_parse(f, "1 2", -EBADMSG, 0, 0, 0);
	assert_parse(f, "1 2 3 4", -EBADMSG, 0, 0, 0);     /* extra field */
	assert_parse(f, "1,2,3", -EBADMSG, 0, 0, 0);
	assert_parse(f, "(1,2,3)", -EBADMSG, 0, 0, 0);     /* applesmc's format */
	assert_parse(f, "1 2 3x", -EBADMSG, 0, 0, 0);
	assert_parse(f, "1.5 2 3", -EBADMSG, 0, 0, 0);
	assert_parse(f, "0x10 2 3", -EBADMSG, 0, 0, 0);
	assert_parse(f, "- 1 2 3", -EBADMSG, 0, 0, 0);
	assert_parse(f, "1-2 3", -EBADMSG, 0, 0, 0);      /* numbers run together */
	assert_parse(f, "1 2 3\n4", -EBADMSG, 0, 0, 0);
}

TEST(parse_ams_current_range)
{
	const enum hws_motion_format f = HWS_MOTION_FORMAT_AMS_CURRENT;

	assert_parse(f, "128 0 0", -ERANGE, 0, 0, 0);
	assert_parse(f, "0 -129 0", -ERANGE, 0, 0, 0);
	assert_parse(f, "0 0 99999999999999999999999999", -ERANGE, 0, 0, 0);
	assert_parse(f, "-99999999999999999999999999 0 0", -ERANGE, 0, 0, 0);
	/* A huge number in garbage is garbage first. */
	assert_parse(f, "99999999999999999999999999 0 zz", -EBADMSG, 0, 0, 0);
}

TEST(parse_applesmc_position)
{
	const enum hws_motion_format f = HWS_MOTION_FORMAT_APPLESMC_POSITION;

	assert_parse(f, "(12,-3,250)\n", 3, 12, -3, 250);
	assert_parse(f, "(12,-3,250)", 3, 12, -3, 250);
	assert_parse(f, "( 12 , -3 , 250 )\n", 3, 12, -3, 250);
	assert_parse(f, "(-32768,32767,0)\n", 3, -32768, 32767, 0);
}

TEST(parse_applesmc_position_malformed)
{
	const enum hws_motion_format f = HWS_MOTION_FORMAT_APPLESMC_POSITION;

	assert_parse(f, "", -ENODATA, 0, 0, 0);
	assert_parse(f, "abc", -EBADMSG, 0, 0, 0);
	assert_parse(f, "(1,2)", -EBADMSG, 0, 0, 0);
	assert_parse(f, "(1,2,3,4)", -EBADMSG, 0, 0, 0);   /* extra field */
	assert_parse(f, "1,2,3", -EBADMSG, 0, 0, 0);
	assert_parse(f, "1 2 3", -EBADMSG, 0, 0, 0);       /* ams' format */
	assert_parse(f, "(1,2,3", -EBADMSG, 0, 0, 0);
	assert_parse(f, "(1 2 3)", -EBADMSG, 0, 0, 0);
	assert_parse(f, "(1,,3)", -EBADMSG, 0, 0, 0);
	assert_parse(f, "(1,2,3)x", -EBADMSG, 0, 0, 0);
	assert_parse(f, "((1,2,3))", -EBADMSG, 0, 0, 0);
	assert_parse(f, "(a,b,c)", -EBADMSG, 0, 0, 0);
}

TEST(parse_applesmc_position_range)
{
	const enum hws_motion_format f = HWS_MOTION_FORMAT_APPLESMC_POSITION;

	assert_parse(f, "(32768,0,0)", -ERANGE, 0, 0, 0);
	assert_parse(f, "(0,-32769,0)", -ERANGE, 0, 0, 0);
	assert_parse(f, "(0,0,184467440737095516160000)\n", -ERANGE, 0, 0, 0);
}

TEST(parse_applesmc_calibrate)
{
	int v[3] = { 1, 2, 3 };

	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_APPLESMC_CALIBRATE, "(5,-7)\n", v), 2);
	ASSERT_EQ(v[0], 5);
	ASSERT_EQ(v[1], -7);
	ASSERT_EQ(v[2], 3); /* only two values in this format */
	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_APPLESMC_CALIBRATE, "(5,-7,1)", v), -EBADMSG);
	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_APPLESMC_CALIBRATE, "", v), -ENODATA);
}

/* hdaps.c prints "(%d,%d)\n" of a 16-bit port read, negated by "invert". */
TEST(parse_hdaps_position)
{
	int v[3] = { 1, 2, 3 };

	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_HDAPS_POSITION, "(503,485)\n", v), 2);
	ASSERT_EQ(v[0], 503);
	ASSERT_EQ(v[1], 485);
	ASSERT_EQ(v[2], 3);
	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_HDAPS_POSITION, "(-65535,65535)", v), 2);
	ASSERT_EQ(v[0], -65535);
	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_HDAPS_POSITION, "(65536,0)", v), -ERANGE);
	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_HDAPS_POSITION, "(503,485,0)", v), -EBADMSG);
	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_HDAPS_POSITION, "503 485", v), -EBADMSG);
}

TEST(parse_bad_arguments)
{
	int v[3];

	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_AMS_CURRENT, NULL, v), -EINVAL);
	ASSERT_EQ(hws_motion_parse(HWS_MOTION_FORMAT_AMS_CURRENT, "1 2 3", NULL), -EINVAL);
	ASSERT_EQ(hws_motion_parse((enum hws_motion_format)42, "1 2 3", v), -EINVAL);
}

/* ---- calibration ------------------------------------------------------ */

TEST(calibration_to_mg)
{
	struct hws_motion_calibration cal = { { 4, -6, 0 }, 256 };
	struct hws_motion_sample s;
	const int raw[3] = { 4 + 128, -6 - 128, 256 };
	const int odd[3] = { 3, -3, -1 }; /* 11.7 and -11.7 mg, -3.9 mg */

	ASSERT_EQ(hws_motion_sample_from_raw(&cal, 42, raw, &s), 0);
	ASSERT_UL_EQ(s.time_usec, 42);
	ASSERT_EQ(s.raw[0], 132);
	ASSERT_EQ(s.mg[0], 500);
	ASSERT_EQ(s.mg[1], -500);
	ASSERT_EQ(s.mg[2], 1000);

	cal = (struct hws_motion_calibration){ { 0, 0, 0 }, 256 };
	ASSERT_EQ(hws_motion_sample_from_raw(&cal, 0, odd, &s), 0);
	ASSERT_EQ(s.mg[0], 12);  /* rounded the same way on both sides */
	ASSERT_EQ(s.mg[1], -12);
	ASSERT_EQ(s.mg[2], -4);

	cal.counts_per_g = 0;
	ASSERT_EQ(hws_motion_sample_from_raw(&cal, 0, raw, &s), -EINVAL);
	cal.counts_per_g = -50;
	ASSERT_EQ(hws_motion_sample_from_raw(&cal, 0, raw, &s), -EINVAL);
	cal = (struct hws_motion_calibration){ { 2000000000, 0, 0 }, 50 };
	ASSERT_EQ(hws_motion_sample_from_raw(&cal, 0, raw, &s), -EINVAL);
}

/* ---- orientation ------------------------------------------------------ */

static int orient(int prev, int x, int y, int z)
{
	struct hws_motion_sample s = mk(0, x, y, z);
	int r = hws_motion_orientation((enum hws_motion_orientation)prev, &s);

	ASSERT_GE(r, 0);
	return r;
}

TEST(orientation_six)
{
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, 0, 0, G), HWS_MOTION_FACE_UP);
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, 0, 0, -G), HWS_MOTION_FACE_DOWN);
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, 0, G, 0), HWS_MOTION_NORMAL);
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, 0, -G, 0), HWS_MOTION_BOTTOM_UP);
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, -G, 0, 0), HWS_MOTION_LEFT_UP);
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, G, 0, 0), HWS_MOTION_RIGHT_UP);
	/* Tilted, but clearly one of them. */
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, 200, -300, 900), HWS_MOTION_FACE_UP);
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, -800, 300, -200), HWS_MOTION_LEFT_UP);
	/* A big, certain change needs no second look. */
	ASSERT_EQ(orient(HWS_MOTION_FACE_UP, 0, 0, -G), HWS_MOTION_FACE_DOWN);
	ASSERT_EQ(orient(HWS_MOTION_NORMAL, G, 0, 0), HWS_MOTION_RIGHT_UP);
}

TEST(orientation_names)
{
	ASSERT_STR_EQ(hws_motion_orientation_name(HWS_MOTION_UNDEFINED), "undefined");
	ASSERT_STR_EQ(hws_motion_orientation_name(HWS_MOTION_NORMAL), "normal");
	ASSERT_STR_EQ(hws_motion_orientation_name(HWS_MOTION_BOTTOM_UP), "bottom-up");
	ASSERT_STR_EQ(hws_motion_orientation_name(HWS_MOTION_LEFT_UP), "left-up");
	ASSERT_STR_EQ(hws_motion_orientation_name(HWS_MOTION_RIGHT_UP), "right-up");
	ASSERT_STR_EQ(hws_motion_orientation_name(HWS_MOTION_FACE_UP), "face-up");
	ASSERT_STR_EQ(hws_motion_orientation_name(HWS_MOTION_FACE_DOWN), "face-down");
	ASSERT_NULL(hws_motion_orientation_name((enum hws_motion_orientation)7));
	ASSERT_NULL(hws_motion_orientation_name((enum hws_motion_orientation)-1));
	ASSERT_STR_EQ(hws_motion_event_name(HWS_MOTION_EVENT_SUDDEN_MOTION), "sudden-motion");
	ASSERT_STR_EQ(hws_motion_event_name(HWS_MOTION_EVENT_FREE_FALL), "free-fall");
	ASSERT_NULL(hws_motion_event_name(HWS_MOTION_EVENT_SUDDEN_MOTION | HWS_MOTION_EVENT_FREE_FALL));
	ASSERT_NULL(hws_motion_event_name(0));
}

/* Lifting the back edge: gravity moves from z to y, angle in degrees. */
static int lifted(int prev, double deg)
{
	double a = deg * PI / 180;

	return orient(prev, 0, t_round(G * t_sin(a)), t_round(G * t_cos(a)));
}

TEST(orientation_hysteresis)
{
	/* Up to the diagonal and a little past it, face-up holds ... */
	ASSERT_EQ(lifted(HWS_MOTION_FACE_UP, 45), HWS_MOTION_FACE_UP);
	ASSERT_EQ(lifted(HWS_MOTION_FACE_UP, 48), HWS_MOTION_FACE_UP);
	/* ... and so does normal coming the other way. */
	ASSERT_EQ(lifted(HWS_MOTION_NORMAL, 45), HWS_MOTION_NORMAL);
	ASSERT_EQ(lifted(HWS_MOTION_NORMAL, 42), HWS_MOTION_NORMAL);
	/* Beyond the band, each gives way. */
	ASSERT_EQ(lifted(HWS_MOTION_FACE_UP, 52), HWS_MOTION_NORMAL);
	ASSERT_EQ(lifted(HWS_MOTION_NORMAL, 38), HWS_MOTION_FACE_UP);
	/* Without a previous answer, the nearer axis wins at once. */
	ASSERT_EQ(lifted(HWS_MOTION_UNDEFINED, 46), HWS_MOTION_NORMAL);
	ASSERT_EQ(lifted(HWS_MOTION_UNDEFINED, 44), HWS_MOTION_FACE_UP);

	/* The same between two edges (portrait and landscape). */
	ASSERT_EQ(orient(HWS_MOTION_NORMAL, -743, 669, 0), HWS_MOTION_NORMAL);     /* 48 deg */
	ASSERT_EQ(orient(HWS_MOTION_NORMAL, -788, 616, 0), HWS_MOTION_LEFT_UP);    /* 52 deg */
	ASSERT_EQ(orient(HWS_MOTION_LEFT_UP, -669, 743, 0), HWS_MOTION_LEFT_UP);   /* 42 deg */
}

TEST(orientation_needs_gravity)
{
	/* Falling or shaken, the reading is not gravity: keep the answer. */
	ASSERT_EQ(orient(HWS_MOTION_FACE_UP, 10, -20, 30), HWS_MOTION_FACE_UP);
	ASSERT_EQ(orient(HWS_MOTION_FACE_UP, 0, 2500, 0), HWS_MOTION_FACE_UP);
	ASSERT_EQ(orient(HWS_MOTION_UNDEFINED, 0, 0, 100), HWS_MOTION_UNDEFINED);

	struct hws_motion_sample s = mk(0, 0, 0, G);

	ASSERT_EQ(hws_motion_orientation((enum hws_motion_orientation)9, &s), -EINVAL);
	ASSERT_EQ(hws_motion_orientation(HWS_MOTION_FACE_UP, NULL), -EINVAL);
}

/* ---- the detector ----------------------------------------------------- */

TEST(detector_still)
{
	struct hws_motion_detector *d = detector(false);
	struct tally t = { 0 };

	/* ams: one count is 20 mg, 40 Hz; applesmc: 4 mg, 50 Hz. */
	uint64_t now = still(d, &t, 1000000, 10000000, 25000, 20);

	still(d, &t, now, 10000000, 20000, 4);
	ASSERT_EQ(N_SUDDEN(&t), 0);
	ASSERT_EQ(N_STOPPED(&t), 0);
	ASSERT_EQ(N_FALL(&t), 0);
	ASSERT_EQ(N_LANDED(&t), 0);
	ASSERT_TRUE(threshold_of(d) == 15.0);
	hws_motion_detector_free(d);
}

TEST(detector_shake)
{
	struct hws_motion_detector *d = detector(false);
	struct tally t = { 0 };
	uint64_t now = still(d, &t, 1000000, 1000000, 25000, 20), start = now, end;
	int o = HWS_MOTION_FACE_UP;

	/* One second of shaking, half a g either way at 5 Hz. */
	for (; now < start + 1000000; now += 25000) {
		struct hws_motion_sample s = mk(now, triangle(now - start, 5, 500), 0, G);

		feed(d, &t, s);
		o = hws_motion_orientation((enum hws_motion_orientation)o, &s);
	}
	end = now;
	ASSERT_EQ(N_SUDDEN(&t), 1);
	ASSERT_UL_LE(t.first[0], start + 50000); /* noticed within two samples */
	ASSERT_EQ(N_STOPPED(&t), 0);
	ASSERT_EQ(o, HWS_MOTION_FACE_UP);       /* shaking is not turning */

	now = still(d, &t, now, 3000000, 25000, 20);
	ASSERT_EQ(N_SUDDEN(&t), 1);
	ASSERT_EQ(N_STOPPED(&t), 1);
	/* Stopped a hold time (1 s) after the last movement, not before. */
	ASSERT_UL_GE(t.first[1], end + 1000000 - 25000);
	ASSERT_UL_LE(t.first[1], end + 1500000);
	ASSERT_EQ(N_FALL(&t), 0);
	hws_motion_detector_free(d);
}

TEST(detector_drop)
{
	struct hws_motion_detector *d = detector(false);
	struct tally t = { 0 };
	struct hws_motion_detector_state st;
	uint64_t now = still(d, &t, 1000000, 1000000, 20000, 4), start = now, impact;
	int o = HWS_MOTION_FACE_UP;

	/* A 45 cm fall (0.3 s) reads almost nothing on every axis, but for
	 * nearly half a g as it tumbles once ... */
	for (int k = 0; now < start + 300000; now += 20000, k++) {
		struct hws_motion_sample s = mk(now, (k & 1) ? 12 : -8, k == 8 ? 450 : 16, 20);

		feed(d, &t, s);
		o = hws_motion_orientation((enum hws_motion_orientation)o, &s);
	}
	ASSERT_EQ(N_FALL(&t), 1);
	ASSERT_UL_GE(t.first[2], start + 100000);
	ASSERT_UL_LE(t.first[2], start + 120000);
	ASSERT_EQ(N_SUDDEN(&t), 1);             /* losing 1 g is sudden too */
	ASSERT_EQ(hws_motion_detector_get_state(d, &st), 0);
	ASSERT_TRUE(st.falling);
	ASSERT_TRUE(st.moving);
	ASSERT_EQ(o, HWS_MOTION_FACE_UP);       /* no gravity, no new answer */

	/* ... until it lands. */
	impact = now;
	feed(d, &t, mk(now, 400, -200, 3500));
	now += 20000;
	now = still(d, &t, now, 3000000, 20000, 4);
	ASSERT_EQ(N_LANDED(&t), 1);
	ASSERT_UL_EQ(t.first[3], impact);
	ASSERT_EQ(N_FALL(&t), 1);
	ASSERT_EQ(N_SUDDEN(&t), 1);
	ASSERT_EQ(N_STOPPED(&t), 1);
	ASSERT_EQ(hws_motion_detector_get_state(d, &st), 0);
	ASSERT_FALSE(st.falling);
	ASSERT_FALSE(st.moving);
	hws_motion_detector_free(d);
}

/* Without z (hdaps), a machine lying flat reads x and y near 0: that is
 * no fall, however long it lasts; a knock is still sudden motion. */
TEST(detector_two_axes_no_free_fall)
{
	struct hws_motion_detector_params p = { .axes = 2 };
	struct hws_motion_detector *d = NULL;
	struct tally t = { 0 };
	uint64_t now = 1000000;

	ASSERT_EQ(hws_motion_detector_new(&p, &d), 0);
	for (int k = 0; k < 200; k++, now += 20000)
		feed(d, &t, mk(now, (k & 1) ? 18 : 0, 0, 0));
	ASSERT_EQ(N_FALL(&t), 0);
	ASSERT_EQ(N_SUDDEN(&t), 0);
	feed(d, &t, mk(now, 600, -300, 0));
	ASSERT_EQ(N_SUDDEN(&t), 1);
	ASSERT_EQ(N_FALL(&t), 0);
	hws_motion_detector_free(d);

	/* The same samples with three axes are a fall. */
	t = (struct tally){ 0 };
	ASSERT_EQ(hws_motion_detector_new(NULL, &d), 0);
	now = 1000000;
	for (int k = 0; k < 20; k++, now += 20000)
		feed(d, &t, mk(now, 0, 0, 0));
	ASSERT_EQ(N_FALL(&t), 1);
	hws_motion_detector_free(d);
}

TEST(detector_short_dip_is_not_a_fall)
{
	struct hws_motion_detector *d = detector(false);
	struct tally t = { 0 };
	uint64_t now = still(d, &t, 1000000, 1000000, 20000, 4);

	/* Weightless for 60 ms (a bump, a 2 cm hop) is less than freefall_ms. */
	for (int k = 0; k < 3; k++, now += 20000)
		feed(d, &t, mk(now, 0, 0, 50));
	still(d, &t, now, 2000000, 20000, 4);
	ASSERT_EQ(N_FALL(&t), 0);
	hws_motion_detector_free(d);
}

/* Steady vibration on z (a train): 8 Hz, 175 mg, sampled at 50 Hz, just
 * over the threshold (velocity is taken over two samples, which cuts the
 * corners of the triangle). */
static uint64_t vibrate(struct hws_motion_detector *d, struct tally *t, uint64_t from, uint64_t usec)
{
	uint64_t now;

	for (now = from; now < from + usec; now += 20000)
		feed(d, t, mk(now, 4, 0, G + triangle(now - from, 8, 175)));
	return now;
}

TEST(detector_adapts_to_vibration)
{
	struct hws_motion_detector *d = detector(false);
	struct tally t = { 0 };
	uint64_t now = still(d, &t, 1000000, 1000000, 20000, 4), start = now;
	double thr;

	now = vibrate(d, &t, now, 30000000);
	thr = threshold_of(d);
	ASSERT_EQ(N_SUDDEN(&t), 1);
	ASSERT_UL_LE(t.first[0], start + 100000);
	/* The threshold rose until the vibration no longer counts ... */
	ASSERT_TRUE(thr > 1.5 * 15.0);
	ASSERT_TRUE(thr <= 4 * 15.0);
	ASSERT_EQ(N_STOPPED(&t), 1);
	ASSERT_UL_GE(t.first[1], start + 4000000);
	ASSERT_UL_LE(t.first[1], start + 25000000);

	/* ... yet a real knock on top of it is still seen. */
	feed(d, &t, mk(now, 1500, -1200, 2500));
	now += 20000;
	now = vibrate(d, &t, now, 1000000);
	ASSERT_EQ(N_SUDDEN(&t), 2);

	/* Calm brings the threshold back down, slowly. */
	now = still(d, &t, now, 10000000, 20000, 4);
	ASSERT_TRUE(threshold_of(d) < thr);
	still(d, &t, now, 60000000, 20000, 4);
	ASSERT_TRUE(threshold_of(d) < 15.0 * 1.1);
	ASSERT_EQ(N_SUDDEN(&t), 2);
	hws_motion_detector_free(d);
}

TEST(detector_fixed_threshold_does_not_adapt)
{
	struct hws_motion_detector *d = detector(true);
	struct tally t = { 0 };
	uint64_t now = still(d, &t, 1000000, 1000000, 20000, 4);

	vibrate(d, &t, now, 30000000);
	ASSERT_EQ(N_SUDDEN(&t), 1);
	ASSERT_EQ(N_STOPPED(&t), 0);
	ASSERT_TRUE(threshold_of(d) == 15.0);
	hws_motion_detector_free(d);
}

TEST(detector_slow_tilt)
{
	struct hws_motion_detector *d = detector(false);
	struct tally t = { 0 };
	uint64_t now = still(d, &t, 1000000, 1000000, 25000, 20);
	int o = HWS_MOTION_FACE_UP, changes = 0;

	/* A quarter turn over three seconds, lifting the back edge, then back. */
	for (int k = 0; k <= 240; k++, now += 25000) {
		double deg = k <= 120 ? k * 0.75 : (240 - k) * 0.75;
		double a = deg * PI / 180;
		struct hws_motion_sample s = mk(now, 0, t_round(G * t_sin(a)), t_round(G * t_cos(a)));
		int n = hws_motion_orientation((enum hws_motion_orientation)o, &s);

		feed(d, &t, s);
		if (n != o) {
			changes++;
			/* The switch comes past the diagonal, each way. */
			if (n == HWS_MOTION_NORMAL)
				ASSERT_TRUE(k <= 120 && deg > 49 && deg < 53);
			else
				ASSERT_TRUE(n == HWS_MOTION_FACE_UP && k > 120 && deg > 37 && deg < 41);
		}
		o = n;
		if (k == 120)
			ASSERT_EQ(o, HWS_MOTION_NORMAL);
	}
	ASSERT_EQ(changes, 2);
	ASSERT_EQ(o, HWS_MOTION_FACE_UP);
	ASSERT_EQ(N_SUDDEN(&t), 0);
	hws_motion_detector_free(d);
}

TEST(detector_gap_restarts_history)
{
	struct hws_motion_detector *d = detector(false);
	struct tally t = { 0 };
	uint64_t now = still(d, &t, 1000000, 1000000, 20000, 4);

	/* Suspended face up, resumed five seconds later face down: not a
	 * movement the detector saw. */
	for (now += 5000000; now < 9000000; now += 20000)
		feed(d, &t, mk(now, 0, 0, -G));
	ASSERT_EQ(N_SUDDEN(&t), 0);

	/* A repeated timestamp, or time going backwards (a new stream), with
	 * other values, is a restart: no division by a zero interval. */
	feed(d, &t, mk(now - 20000, 0, 0, G));
	feed(d, &t, mk(3000000, 0, G, 0));
	feed(d, &t, mk(3020000, 0, G, 0));
	ASSERT_EQ(N_SUDDEN(&t), 0);
	hws_motion_detector_free(d);

	/* Weightless just before a suspend and just after the resume:
	 * nothing says it fell all that time. */
	d = detector(false);
	t = (struct tally){ 0 };
	feed(d, &t, mk(1000000, 0, 0, 30));
	feed(d, &t, mk(6000000, 0, 0, 30));
	feed(d, &t, mk(6020000, 0, 0, 30));
	ASSERT_EQ(N_FALL(&t), 0);
	feed(d, &t, mk(6100000, 0, 0, 30)); /* 100 ms after the resume, it is */
	ASSERT_EQ(N_FALL(&t), 1);
	hws_motion_detector_free(d);
}

TEST(detector_reluctant_to_stop)
{
	struct hws_motion_detector *d = detector(false);
	struct tally t = { 0 };
	uint64_t now = still(d, &t, 1000000, 1000000, 20000, 4), start = now, weak_end;

	/* Half a second of a strong sway (2 Hz, 500 mg), then two seconds of
	 * a weaker one (310 mg) that alone would stay just under the
	 * threshold, but above the lower one that ends a motion. */
	for (; now < start + 2500000; now += 20000) {
		double a = 2 * PI * 2 * (double)(now - start) / 1e6;
		int amp = now < start + 500000 ? 500 : 310;

		feed(d, &t, mk(now, t_round(amp * t_sin(a - 2 * PI * (int)(a / (2 * PI)) - PI)), 0, G));
	}
	weak_end = now;
	still(d, &t, now, 3000000, 20000, 4);
	ASSERT_EQ(N_SUDDEN(&t), 1);
	ASSERT_EQ(N_STOPPED(&t), 1);
	ASSERT_UL_GE(t.first[1], weak_end + 800000);
	hws_motion_detector_free(d);
}

TEST(detector_bad_arguments)
{
	struct hws_motion_detector_params p = { .threshold = 5000 };
	struct hws_motion_detector *d = NULL;
	struct hws_motion_sample s = mk(0, 0, 0, G);

	ASSERT_EQ(hws_motion_detector_new(&p, &d), -EINVAL);
	ASSERT_NULL(d);
	p = (struct hws_motion_detector_params){ .freefall_ms = 70000 };
	ASSERT_EQ(hws_motion_detector_new(&p, &d), -EINVAL);
	p = (struct hws_motion_detector_params){ .axes = 1 };
	ASSERT_EQ(hws_motion_detector_new(&p, &d), -EINVAL);
	p = (struct hws_motion_detector_params){ .axes = 4 };
	ASSERT_EQ(hws_motion_detector_new(&p, &d), -EINVAL);
	ASSERT_EQ(hws_motion_detector_new(NULL, NULL), -EINVAL);
	ASSERT_EQ(hws_motion_detector_feed(NULL, &s), -EINVAL);
	ASSERT_EQ(hws_motion_detector_new(NULL, &d), 0);
	ASSERT_EQ(hws_motion_detector_feed(d, NULL), -EINVAL);
	ASSERT_EQ(hws_motion_detector_get_state(d, NULL), -EINVAL);
	ASSERT_NULL(hws_motion_detector_free(d));
	ASSERT_NULL(hws_motion_detector_free(NULL));
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
