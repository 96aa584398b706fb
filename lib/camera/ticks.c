/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The 300 Hz grid: which frame intervals are whole 1/300 s ticks, the
 * friendly intervals nearest to one that is not, and frame rates as users
 * write them. Everything is exact integer arithmetic: an interval is
 * num/den seconds with 32-bit terms, so 300 * num fits in 64 bits and no
 * rounding ever decides whether an interval is friendly.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>

#include <hwsight/camera.h>

#define TICKS_PER_SEC 300u

/* Longest decimal fraction hws_fps_parse() takes: "29.970029" is plenty. */
#define FPS_MAX_DECIMALS 6

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* num/den in lowest terms, if both fit a struct hws_fract. */
static int fract_reduce(uint64_t num, uint64_t den, struct hws_fract *ret)
{
	uint64_t g = gcd64(num, den);

	if (num == 0 || den == 0)
		return -EINVAL;
	num /= g;
	den /= g;
	if (num > UINT32_MAX || den > UINT32_MAX)
		return -EINVAL;
	*ret = (struct hws_fract){ (uint32_t)num, (uint32_t)den };
	return 0;
}

long hws_interval_ticks(struct hws_fract interval)
{
	uint64_t scaled = (uint64_t)interval.num * TICKS_PER_SEC;
	uint64_t ticks;

	if (interval.num == 0 || interval.den == 0)
		return -EINVAL;
	if (scaled % interval.den != 0)
		return -EDOM;
	ticks = scaled / interval.den;
	/*
	 * Only where long is 32 bits: an interval of more than 82 days is
	 * not a frame interval anyone means.
	 */
	if (ticks > (uint64_t)LONG_MAX)
		return -EINVAL;
	return (long)ticks;
}

bool hws_interval_is_friendly(struct hws_fract interval)
{
	return hws_interval_ticks(interval) > 0;
}

/*
 * Digits only, no sign, no blanks. At most @max_digits digits when that is
 * not 0; -EINVAL when there are none or the value does not fit 64 bits.
 * *ret_digits says how many were read.
 */
static int parse_digits(const char **p, unsigned max_digits, uint64_t *ret_value,
			unsigned *ret_digits)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned n = 0;

	for (; *s >= '0' && *s <= '9'; s++, n++) {
		unsigned d = (unsigned)(*s - '0');

		if (max_digits != 0 && n == max_digits)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (n == 0)
		return -EINVAL;
	*p = s;
	*ret_value = v;
	*ret_digits = n;
	return 0;
}

/*
 * Three forms: "25" and "7.5" (up to six decimals), and "30000/1001" as
 * V4L2 and ffmpeg write NTSC. The rate must be above zero and its inverse
 * must fit a struct hws_fract in lowest terms; that is the only upper (and
 * lower) bound, so a rate the kernel could not be told is "too huge".
 */
int hws_fps_parse(const char *text, struct hws_fract *ret_interval)
{
	const char *p = text;
	uint64_t whole, frac = 0, denom = 1, scale = 1;
	unsigned digits;
	int r;

	if (!text || !ret_interval)
		return -EINVAL;

	r = parse_digits(&p, 0, &whole, &digits);
	if (r < 0)
		return r;

	if (*p == '/') {
		p++;
		r = parse_digits(&p, 0, &denom, &digits);
		if (r < 0)
			return r;
	} else if (*p == '.') {
		p++;
		r = parse_digits(&p, FPS_MAX_DECIMALS, &frac, &digits);
		if (r < 0)
			return r;
		for (unsigned i = 0; i < digits; i++)
			scale *= 10;
		/* A rate of 2^32 fps or more has no interval we can hold. */
		if (whole > UINT32_MAX)
			return -EINVAL;
		whole = whole * scale + frac;
		denom = scale;
	}
	if (*p != '\0')
		return -EINVAL;

	/* The rate is whole/denom frames per second; the interval its inverse. */
	return fract_reduce(denom, whole, ret_interval);
}

/* k ticks as a reduced fraction of a second, if a struct hws_fract holds it. */
static bool ticks_to_fract(uint64_t k, struct hws_fract *ret)
{
	return k > 0 && fract_reduce(k, TICKS_PER_SEC, ret) == 0;
}

/*
 * The nearest friendly intervals are floor() and ceil() of the interval in
 * ticks. Past 2^32 ticks (166 days) k/300 may not reduce to 32-bit terms;
 * then the nearest k that does is taken, and a multiple of 300 (whole
 * seconds, at most the interval's num) always does, so the search is short.
 * An interval with den 0 is not an interval: neither side exists.
 */
void hws_friendly_neighbours(struct hws_fract interval, struct hws_fract *ret_slower,
			     struct hws_fract *ret_faster)
{
	struct hws_fract slower = { 0, 0 }, faster = { 0, 0 };

	if (interval.den != 0) {
		uint64_t scaled = (uint64_t)interval.num * TICKS_PER_SEC;
		uint64_t lo = scaled / interval.den;
		uint64_t hi = lo + (scaled % interval.den != 0);

		if (hi == 0)
			hi = 1;
		while (!ticks_to_fract(hi, &slower))
			hi++;
		while (lo > 0 && !ticks_to_fract(lo, &faster))
			lo--;
	}
	if (ret_slower)
		*ret_slower = slower;
	if (ret_faster)
		*ret_faster = faster;
}
