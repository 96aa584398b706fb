/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwmon attributes as sysfs hands them over, each input taken both as the
 * bytes of an attribute file and as an attribute's file name:
 *  - the strict value parsers (lib/sensors/hwmon.c, lib/util/sysfs-util.c),
 *    checked against each other: whatever has the shape of a driver's
 *    "%ld\n" is a number to both, nothing else is to hws__parse_long();
 *  - one read as the readers do it (reader.c): at most HWS_RAW_READ bytes
 *    into the value's buffer, parsed, scaled, and applesmc's "(l,r)";
 *  - hws__pread_attr() on a file holding the bytes (sysfs-util.c);
 *  - the classification of a file name into channel and item (hwmon.c).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sensors/sensors-internal.h"
#include "util/sysfs-util.h"

#include "fuzz.h"

static int attr_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	attr_fd = memfd_create("hwmon-attr", MFD_CLOEXEC);
	if (attr_fd < 0) {
		perror("memfd_create");
		abort();
	}
	return 0;
}

/* What a driver's "%d\n" can look like, give or take blanks. */
static bool decimal_shape(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '+' || *s == '-')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return !*s;
}

static void check_values(const char *text)
{
	double v = 0, x;
	long l = 0;
	int rl, rv, r0, r1;

	rl = hws__parse_long(text, &l);
	rv = hws__parse_value(text, &v);
	if (decimal_shape(text))
		FUZZ_CHECK(rl == 0 || rl == -ERANGE, "\"%s\": %d", text, rl);
	else
		FUZZ_CHECK(rl == -EINVAL, "\"%s\" is no decimal, yet %d (%ld)", text, rl, l);
	if (rl == 0) {
		FUZZ_CHECK(rv == 0, "\"%s\": a long (%ld) but not a value (%d)", text, l, rv);
		FUZZ_CHECK(v == (double)l, "\"%s\": %ld and %.17g", text, l, v);
	}
	if (rv == 0)
		FUZZ_CHECK(isfinite(v) && fabs(v) <= 9223372036854775808.0, "\"%s\": %g", text, v);
	else
		FUZZ_CHECK(rv == -EINVAL || rv == -ERANGE, "\"%s\": %d", text, rv);

	r0 = hws__parse_tuple(text, 0, &x);
	r1 = hws__parse_tuple(text, 1, &x);
	FUZZ_CHECK((r0 == 0) == (r1 == 0), "\"%s\": %d and %d", text, r0, r1);
	FUZZ_CHECK(hws__parse_tuple(text, 2, &x) < 0, "\"%s\": a third element", text);
	FUZZ_CHECK(hws__parse_tuple(text, -1, &x) < 0, "\"%s\": element -1", text);
}

/* One chip, one feature: temp1_input (millidegrees) and light_right. */
static void check_read(const uint8_t *data, size_t size)
{
	struct hws_subfeature subs[2] = {
		{ .name = "temp1_input", .item = HWS_ITEM_INPUT },
		{ .name = "light_right", .item = HWS_ITEM_INPUT },
	};
	struct hws__sub_priv priv[2] = {
		{ .fd = -1, .tuple = -1, .sensors_nr = -1, .scale = 1000 },
		{ .fd = -1, .tuple = 1, .sensors_nr = -1, .scale = 1 },
	};
	struct hws_feature feature = { .name = "temp1", .n_subfeatures = 2, .subfeatures = subs };
	struct hws__feature_priv fpriv = { .subs = priv };
	struct hws__chip chip = { .pub = { .n_features = 1, .features = &feature }, .features = &fpriv };
	/* One pread() asks for HWS_RAW_READ bytes. */
	size_t n = size < HWS_RAW_READ ? size : HWS_RAW_READ;

	for (size_t i = 0; i < 2; i++) {
		double got = NAN, want = NAN;
		char *text;
		int r, expect;

		memcpy(priv[i].raw, data, n);
		r = hws__finish_value(&chip, 0, i, n, &got);
		if (n >= HWS_RAW_READ) {
			FUZZ_CHECK(r == -EFBIG, "%zu bytes read: %d", n, r);
			continue;
		}
		text = fuzz_string(data, n);
		expect = i == 0 ? hws__parse_value(text, &want) : hws__parse_tuple(text, 1, &want);
		FUZZ_CHECK(r == expect, "\"%s\": read %d, parsed %d", text, r, expect);
		if (r == 0)
			FUZZ_CHECK(got == want / priv[i].scale, "\"%s\": %g, not %g", text, got, want / priv[i].scale);
		free(text);
	}
}

static void check_pread(const uint8_t *data, size_t size)
{
	char buf[128];
	size_t end = size;
	int r;

	if (ftruncate(attr_fd, 0) < 0 || (size && pwrite(attr_fd, data, size, 0) != (ssize_t)size))
		abort();
	r = hws__pread_attr(attr_fd, buf, sizeof(buf));
	if (size >= sizeof(buf)) {
		FUZZ_CHECK(r == -EFBIG, "%zu bytes: %d", size, r);
		return;
	}
	while (end > 0 && data[end - 1] == '\n')
		end--;
	FUZZ_CHECK(r == (int)end, "%zu bytes, %zu before the newlines: %d", size, end, r);
	FUZZ_CHECK(buf[r] == '\0' && !memcmp(buf, data, end), "the bytes changed");
}

static void check_name(const char *name)
{
	struct hws__attr_class c;
	const char *kind;

	if (hws__attr_classify(name, &c) < 0)
		return;
	FUZZ_CHECK(memchr(c.feature, '\0', sizeof(c.feature)), "\"%s\": the feature is not terminated", name);
	FUZZ_CHECK((unsigned)c.kind < HWS_SENSOR_KIND_MAX, "\"%s\": kind %d", name, c.kind);
	FUZZ_CHECK((unsigned)c.item < HWS_ITEM_MAX_ITEM, "\"%s\": item %d", name, c.item);
	FUZZ_CHECK(c.scale >= 1 && isfinite(c.scale), "\"%s\": scale %g", name, c.scale);
	FUZZ_CHECK(c.feature[0], "\"%s\": no feature name", name);
	kind = hws_sensor_kind_name(c.kind);
	if (c.kind != HWS_SENSOR_VID)
		FUZZ_CHECK(!strncmp(c.feature, kind, strlen(kind)), "\"%s\": feature %s of kind %s",
			   name, c.feature, kind);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);

	check_values(text);
	check_read(data, size);
	check_pread(data, size);
	check_name(text);
	free(text);
	return 0;
}
