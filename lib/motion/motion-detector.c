/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pure logic of the motion sensor: parsing the drivers' text,
 * calibration, orientation and the sudden-motion / free-fall detector.
 * Nothing here touches a file or a clock, so every decision can be tested
 * with samples made up on the spot.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include <hwsight/motion.h>

#define ORIENTATIONS(X)                        \
	X(HWS_MOTION_UNDEFINED, "undefined", 0, 0) \
	X(HWS_MOTION_NORMAL, "normal", 1, 1)       \
	X(HWS_MOTION_BOTTOM_UP, "bottom-up", 1, -1) \
	X(HWS_MOTION_LEFT_UP, "left-up", 0, -1)    \
	X(HWS_MOTION_RIGHT_UP, "right-up", 0, 1)   \
	X(HWS_MOTION_FACE_UP, "face-up", 2, 1)     \
	X(HWS_MOTION_FACE_DOWN, "face-down", 2, -1)

/* Which axis points up, and with which sign, for each orientation. */
static const struct {
	const char *name;
	int axis;
	int sign;
} orientations[] = {
#define X(id, name, axis, sign) [id] = { name, axis, sign },
	ORIENTATIONS(X)
#undef X
};

#define N_ORIENTATIONS ((int)(sizeof(orientations) / sizeof(orientations[0])))

#define EVENTS(X)                                         \
	X(HWS_MOTION_EVENT_SUDDEN_MOTION, "sudden-motion")   \
	X(HWS_MOTION_EVENT_MOTION_STOPPED, "motion-stopped") \
	X(HWS_MOTION_EVENT_FREE_FALL, "free-fall")           \
	X(HWS_MOTION_EVENT_FREE_FALL_END, "free-fall-end")

const char *hws_motion_orientation_name(enum hws_motion_orientation orientation)
{
	if ((int)orientation < 0 || (int)orientation >= N_ORIENTATIONS)
		return NULL;
	return orientations[orientation].name;
}

const char *hws_motion_event_name(unsigned event)
{
	switch (event) {
#define X(bit, name) case bit: return name;
		EVENTS(X)
#undef X
	}
	return NULL;
}

/* ---- parsing ---------------------------------------------------------- */

static const struct {
	char open, sep, close; /* sep ' ' means one or more blanks */
	int n;
	long min, max;
} formats[] = {
	/* ams-core.c prints s8 values with "%d %d %d\n". */
	[HWS_MOTION_FORMAT_AMS_CURRENT] = { 0, ' ', 0, 3, -128, 127 },
	/* applesmc.c prints s16 values with "(%d,%d,%d)\n" and "(%d,%d)\n". */
	[HWS_MOTION_FORMAT_APPLESMC_POSITION] = { '(', ',', ')', 3, -32768, 32767 },
	[HWS_MOTION_FORMAT_APPLESMC_CALIBRATE] = { '(', ',', ')', 2, -32768, 32767 },
	/* hdaps.c prints "(%d,%d)\n" of a 16-bit port read, negated when
	 * the driver's "invert" says so. */
	[HWS_MOTION_FORMAT_HDAPS_POSITION] = { '(', ',', ')', 2, -65535, 65535 },
};

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * A decimal number, range-checked. Digits are consumed even past an
 * overflow so that the caller can still tell "too big" from "not a number
 * at all": the shape of the text is judged first.
 */
static const char *parse_number(const char *p, long min, long max, int *ret, bool *out_of_range)
{
	bool neg = false, overflow = false;
	long v = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return NULL;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (LONG_MAX - 9) / 10)
			overflow = true;
		else
			v = v * 10 + (*p - '0');
	}
	if (neg)
		v = -v;
	if (overflow || v < min || v > max)
		*out_of_range = true;
	else
		*ret = (int)v;
	return p;
}

int hws_motion_parse(enum hws_motion_format format, const char *text, int ret_values[3])
{
	bool out_of_range = false;
	int v[3] = { 0, 0, 0 };
	const char *p;

	if (!text || !ret_values || (unsigned)format >= sizeof(formats) / sizeof(formats[0]))
		return -EINVAL;

	p = text;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p)
		return -ENODATA;
	if (formats[format].open && *p++ != formats[format].open)
		return -EBADMSG;
	for (int i = 0; i < formats[format].n; i++) {
		if (i > 0) {
			const char *q = skip_blanks(p);

			if (formats[format].sep == ' ') {
				if (q == p)
					return -EBADMSG;
			} else if (*q++ != formats[format].sep) {
				return -EBADMSG;
			}
			p = q;
		}
		p = parse_number(skip_blanks(p), formats[format].min, formats[format].max,
				 &v[i], &out_of_range);
		if (!p)
			return -EBADMSG;
	}
	p = skip_blanks(p);
	if (formats[format].close && *p++ != formats[format].close)
		return -EBADMSG;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p)
		return -EBADMSG;
	if (out_of_range)
		return -ERANGE;
	for (int i = 0; i < formats[format].n; i++)
		ret_values[i] = v[i];
	return formats[format].n;
}

/* ---- calibration and orientation -------------------------------------- */

/* Far beyond any real sensor, near enough to zero that nothing overflows. */
#define CAL_LIMIT 1000000

int hws_motion_sample_from_raw(const struct hws_motion_calibration *cal, uint64_t time_usec,
			       const int raw[3], struct hws_motion_sample *ret_sample)
{
	struct hws_motion_sample s = { .time_usec = time_usec };

	if (!cal || !raw || !ret_sample)
		return -EINVAL;
	if (cal->counts_per_g <= 0 || cal->counts_per_g > CAL_LIMIT)
		return -EINVAL;
	for (int i = 0; i < 3; i++) {
		long long num;

		if (cal->offset[i] < -CAL_LIMIT || cal->offset[i] > CAL_LIMIT)
			return -EINVAL;
		num = ((long long)raw[i] - cal->offset[i]) * 1000;
		/* Round half away from zero, the same on both sides of rest. */
		if (num >= 0)
			s.mg[i] = (int)((num + cal->counts_per_g / 2) / cal->counts_per_g);
		else
			s.mg[i] = (int)-((-num + cal->counts_per_g / 2) / cal->counts_per_g);
		s.raw[i] = raw[i];
	}
	*ret_sample = s;
	return 0;
}

static long long magnitude2(const int v[3])
{
	return (long long)v[0] * v[0] + (long long)v[1] * v[1] + (long long)v[2] * v[2];
}

static long long up_component(int o, const int mg[3])
{
	return (long long)orientations[o].sign * mg[orientations[o].axis];
}

int hws_motion_orientation(enum hws_motion_orientation prev, const struct hws_motion_sample *sample)
{
	long long m2, diff;
	int best = HWS_MOTION_NORMAL;

	if (!sample || (int)prev < 0 || (int)prev >= N_ORIENTATIONS)
		return -EINVAL;
	m2 = magnitude2(sample->mg);
	if (m2 < 500LL * 500 || m2 > 1500LL * 1500)
		return (int)prev;
	for (int o = HWS_MOTION_NORMAL + 1; o < N_ORIENTATIONS; o++)
		if (up_component(o, sample->mg) > up_component(best, sample->mg))
			best = o;
	if (prev == HWS_MOTION_UNDEFINED || best == (int)prev)
		return best;
	/* Switch only when the new axis leads the old one by |a| / 8, compared
	 * squared to stay in integers: 64 * diff^2 >= |a|^2. */
	diff = up_component(best, sample->mg) - up_component((int)prev, sample->mg);
	return 64 * diff * diff >= m2 ? best : (int)prev;
}

/* ---- the detector ----------------------------------------------------- */

/*
 * Scales that turn each measure into "threshold units", chosen so that the
 * default threshold of 15 ignores the sensors' own noise (one count is 20
 * mg on ams, 4 mg on applesmc, flipping at 40-50 Hz) and a tilt of a
 * quarter turn over a second or more, and catches a knock, a shake of half
 * a g, or the start of a fall. Acceleration weighs 60 times velocity, as
 * in hdapsd: a poll that comes a little early or late (or a 40 Hz sensor
 * polled at 50 Hz, which repeats every fourth value) makes a steady sway
 * look jerky, and a lighter scale parked while walking
 * (tests/traces/motion, side by side with hdapsd in tests/motion).
 */
#define VEL_SCALE 300.0     /* mg/s */
#define ACC_SCALE 18000.0   /* mg/s^2 */
#define AVG_SCALE 100.0     /* mg/s, of the decaying average */
#define AVG_TAU 0.3         /* s, depth of the average */
#define GAP_USEC 1000000    /* a longer silence starts the history again */
#define NEAR_FACTOR 0.8     /* "near the threshold" */
#define MOVING_FACTOR 0.8   /* once moving, stay moving down to this */
#define ADAPT_USEC 1000000  /* the threshold changes at most this often */
#define VIBRATION_PERIODS 3 /* periods near the threshold in a row that make vibration */
#define RISE_FACTOR 1.1
#define FALL_FACTOR 0.97
#define MAX_FACTOR 4.0
#define FREEFALL_END_FACTOR 2 /* weight is back above twice freefall_mg */
#define STEP_MAX_MG 50      /* a coarser "step" is movement, not resolution */

struct hws_motion_detector {
	double base;
	bool adaptive;
	bool no_z;        /* two axes: no free fall can be told */
	long long freefall_mg2, landed_mg2;
	uint64_t freefall_usec, hold_usec;

	bool have_last;
	unsigned history; /* velocities computed since the history began */
	uint64_t last_time;
	int last_mg[3];   /* after the backlash */
	int prev_mg[3];   /* the one before, and its time */
	uint64_t prev_time;
	int last_seen[3]; /* as given */
	int step_mg;      /* the sensor's resolution, as learnt; 0: not yet */
	double last_vel[3], avg_vel[3];

	bool moving, falling, weightless;
	uint64_t last_above, weightless_since;
	double threshold, score;

	uint64_t period_start;
	bool near_in_period;
	unsigned near_periods;
};

/* Newton's method from above: libm is not among the library's links. */
static double root(double v)
{
	double r;

	if (!(v > 0))
		return 0;
	r = v > 1 ? v : 1;
	for (int i = 0; i < 200; i++) {
		double next = 0.5 * (r + v / r);

		if (next >= r)
			break;
		r = next;
	}
	return r;
}

int hws_motion_detector_new(const struct hws_motion_detector_params *params,
			    struct hws_motion_detector **ret_detector)
{
	struct hws_motion_detector_params p = { 0 };
	struct hws_motion_detector *d;

	if (!ret_detector)
		return -EINVAL;
	if (params)
		p = *params;
	if (p.threshold > 1000 || p.freefall_mg > 1000 || p.freefall_ms > 60000 || p.hold_ms > 60000 ||
	    p.axes == 1 || p.axes > 3)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->base = p.threshold ? p.threshold : 15;
	d->adaptive = !p.fixed_threshold;
	d->no_z = p.axes == 2;
	d->freefall_mg2 = (long long)(p.freefall_mg ? p.freefall_mg : 350) * (p.freefall_mg ? p.freefall_mg : 350);
	d->landed_mg2 = d->freefall_mg2 * FREEFALL_END_FACTOR * FREEFALL_END_FACTOR;
	d->freefall_usec = (uint64_t)(p.freefall_ms ? p.freefall_ms : 100) * 1000;
	d->hold_usec = (uint64_t)(p.hold_ms ? p.hold_ms : 1000) * 1000;
	d->threshold = d->base;
	*ret_detector = d;
	return 0;
}

struct hws_motion_detector *hws_motion_detector_free(struct hws_motion_detector *d)
{
	free(d);
	return NULL;
}

/*
 * A knock or a drop is over in well under a second; movement that stays
 * near the threshold for several seconds is a train, a car or a fan, and
 * should not keep the disk parked. hdapsd raises its threshold when the
 * user types while it is near; there is no keyboard to ask here, so
 * persistence is the sign.
 */
static void adapt(struct hws_motion_detector *d, uint64_t now, bool near)
{
	if (!d->adaptive)
		return;
	if (near)
		d->near_in_period = true;
	if (now - d->period_start < ADAPT_USEC)
		return;
	if (d->near_in_period) {
		if (++d->near_periods >= VIBRATION_PERIODS) {
			d->threshold *= RISE_FACTOR;
			if (d->threshold > d->base * MAX_FACTOR)
				d->threshold = d->base * MAX_FACTOR;
		}
	} else {
		d->near_periods = 0;
		d->threshold *= FALL_FACTOR;
		if (d->threshold < d->base)
			d->threshold = d->base;
	}
	d->period_start = now;
	d->near_in_period = false;
}

/*
 * A sensor's last bit flickers at rest: one count is 20 mg on ams, and its
 * three axes flip independently, so that a poll a few ms early makes a
 * flicker look like a knock. So each axis goes through a backlash of one
 * count: the value the detector uses moves only as far as the sensor's
 * value has gone beyond one count from it. Unlike the input core's fuzz
 * filter, which holds small changes and then lets them through at once
 * (a steady sway becomes a train of jumps), this never makes a change
 * larger than the sensor's. The count is learnt as the smallest change
 * seen on any axis, so that the filter fits ams, applesmc and any scale
 * the caller calibrated.
 */
static void learn_step(struct hws_motion_detector *d, const struct hws_motion_sample *s)
{
	for (int i = 0; i < 3; i++) {
		int diff = abs(s->mg[i] - d->last_seen[i]);

		if (diff > 0 && diff <= STEP_MAX_MG && (d->step_mg == 0 || diff < d->step_mg))
			d->step_mg = diff;
		d->last_seen[i] = s->mg[i];
	}
}

static int backlash(int value, int used, int width)
{
	if (value > used + width)
		return value - width;
	if (value < used - width)
		return value + width;
	return used;
}

/* Velocity, acceleration and average velocity against the threshold. */
static bool movement(struct hws_motion_detector *d, const struct hws_motion_sample *s)
{
	double dt = (double)(s->time_usec - d->last_time) / 1e6;
	double w = dt / (dt + AVG_TAU);
	double vel2 = 0, acc2 = 0, avg2 = 0, score;
	bool above;

	for (int i = 0; i < 3; i++) {
		int mg = backlash(s->mg[i], d->last_mg[i], d->step_mg);
		double vel = (mg - d->last_mg[i]) / dt;
		double span_vel = d->history >= 1 ?
			(mg - d->prev_mg[i]) / ((double)(s->time_usec - d->prev_time) / 1e6) : vel;
		double acc = (span_vel - d->last_vel[i]) / dt;

		d->prev_mg[i] = d->last_mg[i];
		d->last_mg[i] = mg;
		d->avg_vel[i] += w * (vel - d->avg_vel[i]);
		vel2 += span_vel * span_vel;
		acc2 += acc * acc;
		avg2 += d->avg_vel[i] * d->avg_vel[i];
		d->last_vel[i] = span_vel;
	}
	d->prev_time = d->last_time;
	score = root(vel2) / VEL_SCALE;
	if (root(avg2) / AVG_SCALE > score)
		score = root(avg2) / AVG_SCALE;
	/* The first velocity of a history has no predecessor to differ from. */
	if (d->history >= 1 && root(acc2) / ACC_SCALE > score)
		score = root(acc2) / ACC_SCALE;
	if (d->history < 2)
		d->history++;

	d->score = score;
	above = score > d->threshold * (d->moving ? MOVING_FACTOR : 1.0);
	adapt(d, s->time_usec, score > d->threshold * NEAR_FACTOR);
	return above;
}

static unsigned free_fall(struct hws_motion_detector *d, const struct hws_motion_sample *s)
{
	long long m2 = magnitude2(s->mg);

	if (m2 < d->freefall_mg2) {
		if (!d->weightless) {
			d->weightless = true;
			d->weightless_since = s->time_usec;
		}
		if (!d->falling && s->time_usec - d->weightless_since >= d->freefall_usec) {
			d->falling = true;
			return HWS_MOTION_EVENT_FREE_FALL;
		}
		return 0;
	}
	d->weightless = false;
	/* Between the two limits a fall neither starts nor ends: a tumbling
	 * machine reads a little weight now and then. */
	if (d->falling && m2 > d->landed_mg2) {
		d->falling = false;
		return HWS_MOTION_EVENT_FREE_FALL_END;
	}
	return 0;
}

int hws_motion_detector_feed(struct hws_motion_detector *d, const struct hws_motion_sample *sample)
{
	uint64_t now;
	unsigned events = 0;
	bool above = false;

	if (!d || !sample)
		return -EINVAL;
	now = sample->time_usec;

	if (!d->have_last || now <= d->last_time || now - d->last_time > GAP_USEC) {
		d->history = 0;
		for (int i = 0; i < 3; i++)
			d->last_vel[i] = d->avg_vel[i] = 0;
		d->score = 0;
		d->period_start = now;
		d->near_in_period = false;
		d->near_periods = 0;
		/* A fall cannot be timed across the gap. */
		d->weightless = false;
	} else {
		learn_step(d, sample);
		above = movement(d, sample);
	}

	if (above) {
		d->last_above = now;
		if (!d->moving) {
			d->moving = true;
			events |= HWS_MOTION_EVENT_SUDDEN_MOTION;
		}
	} else if (d->moving && now - d->last_above >= d->hold_usec) {
		d->moving = false;
		events |= HWS_MOTION_EVENT_MOTION_STOPPED;
	}
	/* Flat at rest, x and y alone read weightless. */
	if (!d->no_z)
		events |= free_fall(d, sample);

	if (!d->have_last || !d->history) {
		/* The history starts from this sample, unfiltered. */
		for (int i = 0; i < 3; i++)
			d->last_mg[i] = d->last_seen[i] = sample->mg[i];
	}
	d->have_last = true;
	d->last_time = now;
	return (int)events;
}

int hws_motion_detector_get_state(const struct hws_motion_detector *d,
				  struct hws_motion_detector_state *ret_state)
{
	if (!d || !ret_state)
		return -EINVAL;
	*ret_state = (struct hws_motion_detector_state){
		.moving = d->moving,
		.falling = d->falling,
		.threshold = d->threshold,
		.score = d->score,
	};
	return 0;
}
