/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The parsing of hwmon attribute files: whatever a driver (or a broken
 * one) leaves in a file is a value or an error for that value, never a
 * crash and never a wrong number.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "sensors/sensors-internal.h"
#include "util/sysfs-util.h"
#include "task.h"

static void expect_value(const char *text, double want)
{
	double v = NAN;

	ASSERT_EQ(hws__parse_value(text, &v), 0);
	if (v != want)
		FAIL("\"%s\" parsed as %g, want %g", text, v, want);
}

static void expect_error(const char *text, int err)
{
	double v = 42;

	ASSERT_EQ(hws__parse_value(text, &v), err);
	ASSERT_TRUE(v == 42); /* left untouched on failure */
}

TEST(value_numbers)
{
	expect_value("45500\n", 45500);
	expect_value("45500", 45500); /* no newline */
	expect_value("-273150\n", -273150);
	expect_value("  12 \n", 12);
	expect_value("+7\n", 7);
	expect_value("0\n", 0);
	expect_value("1.5\n", 1.5);
}

TEST(value_garbage)
{
	expect_error("", -EINVAL);
	expect_error("\n", -EINVAL);
	expect_error("abc\n", -EINVAL);
	expect_error("12abc\n", -EINVAL);
	expect_error("12 13\n", -EINVAL);
	expect_error("nan\n", -EINVAL);
	expect_error("inf\n", -EINVAL);
	expect_error("1e999\n", -EINVAL);
}

TEST(light_tuple)
{
	double v = 42;

	ASSERT_EQ(hws__parse_tuple("(12,14)\n", 0, &v), 0);
	ASSERT_TRUE(v == 12);
	ASSERT_EQ(hws__parse_tuple("(12,14)", 1, &v), 0);
	ASSERT_TRUE(v == 14);
	ASSERT_EQ(hws__parse_tuple("(-3,0)\n", 0, &v), 0);
	ASSERT_TRUE(v == -3);
	v = 42;
	ASSERT_EQ(hws__parse_tuple("", 0, &v), -EINVAL);
	ASSERT_EQ(hws__parse_tuple("12,14", 0, &v), -EINVAL);
	ASSERT_EQ(hws__parse_tuple("(12)", 0, &v), -EINVAL);
	ASSERT_EQ(hws__parse_tuple("(12,14", 1, &v), -EINVAL);
	ASSERT_EQ(hws__parse_tuple("(12,14)x", 0, &v), -EINVAL);
	ASSERT_EQ(hws__parse_tuple("(a,14)", 0, &v), -EINVAL);
	ASSERT_EQ(hws__parse_tuple("(99999999999999999999999,1)", 0, &v), -ERANGE);
	ASSERT_EQ(hws__parse_tuple("(1,2)", 2, &v), -EINVAL);
	ASSERT_TRUE(v == 42);
}

TEST(long_numbers)
{
	long v = 0;

	ASSERT_EQ(hws__parse_long("1350000\n", &v), 0);
	ASSERT_EQ(v, 1350000);
	ASSERT_EQ(hws__parse_long("-5", &v), 0);
	ASSERT_EQ(v, -5);
	ASSERT_EQ(hws__parse_long("99999999999999999999999\n", &v), -ERANGE);
	ASSERT_EQ(v, -5);
	ASSERT_EQ(hws__parse_long("", &v), -EINVAL);
	ASSERT_EQ(hws__parse_long("-", &v), -EINVAL);
	ASSERT_EQ(hws__parse_long("0x10", &v), -EINVAL);
	ASSERT_EQ(hws__parse_long("3.5", &v), -EINVAL);
	/* Found by fuzz/fuzz-hwmon.c: garbage after an overflow is garbage. */
	ASSERT_EQ(hws__parse_long("99999999999999999999;\n", &v), -EINVAL);
}

static int write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, text, len), (ssize_t)len);
	close(fd);
	return 0;
}

TEST(read_attr)
{
	char dir[] = "/tmp/hws-parse-XXXXXX", buf[16], big[64];
	int dfd, fd;

	ASSERT_NOT_NULL(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(dfd, 0);
	write_file(dir, "ok", "1234\n", 5);
	write_file(dir, "empty", "", 0);
	memset(big, '7', sizeof(big));
	write_file(dir, "huge", big, sizeof(big));

	ASSERT_EQ(hws__read_attr(dfd, "ok", buf, sizeof(buf)), 4);
	ASSERT_STR_EQ(buf, "1234");
	ASSERT_EQ(hws__read_attr(dfd, "empty", buf, sizeof(buf)), 0);
	ASSERT_STR_EQ(buf, "");
	ASSERT_EQ(hws__read_attr(dfd, "huge", buf, sizeof(buf)), -EFBIG);
	ASSERT_EQ(hws__read_attr(dfd, "missing", buf, sizeof(buf)), -ENOENT);

	/* pread at offset 0 sees a rewrite without reopening */
	fd = openat(dfd, "ok", O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(hws__pread_attr(fd, buf, sizeof(buf)), 4);
	write_file(dir, "ok", "98\n", 3);
	ASSERT_EQ(hws__pread_attr(fd, buf, sizeof(buf)), 2);
	ASSERT_STR_EQ(buf, "98");
	close(fd);

	for (const char *n = "ok\0empty\0huge\0"; *n; n += strlen(n) + 1)
		unlinkat(dfd, n, 0);
	close(dfd);
	rmdir(dir);
}

TEST(kinds_and_units)
{
	ASSERT_STR_EQ(hws_sensor_kind_name(HWS_SENSOR_TEMP), "temp");
	ASSERT_STR_EQ(hws_sensor_unit(HWS_SENSOR_FAN), "RPM");
	ASSERT_STR_EQ(hws_sensor_unit(HWS_SENSOR_IN), "V");
	ASSERT_NULL(hws_sensor_kind_name(HWS_SENSOR_KIND_MAX));
	ASSERT_TRUE(hws__item_is_live(HWS_ITEM_INPUT));
	ASSERT_TRUE(hws__item_is_live(HWS_ITEM_CRIT_ALARM));
	ASSERT_TRUE(hws__item_is_live(HWS_ITEM_FAULT));
	ASSERT_FALSE(hws__item_is_live(HWS_ITEM_MAX));
	ASSERT_FALSE(hws__item_is_live(HWS_ITEM_BEEP));
	ASSERT_STR_EQ(hws__chip_default_label("w83793", "in2"), "Vtt");
	ASSERT_NULL(hws__chip_default_label("w83793", "in10"));
	ASSERT_NULL(hws__chip_default_label("pc87427", "in0"));
}

TEST(one_context_at_a_time)
{
	struct hws_sensors *a = NULL, *b = NULL;
	struct hws_sensors_options bad = { .reader = 7 };

	ASSERT_EQ(hws_sensors_new(&bad, &a), -EINVAL);
	ASSERT_EQ(hws_sensors_new(NULL, &a), 0);
	ASSERT_EQ(hws_sensors_new(NULL, &b), -EBUSY);
	ASSERT_NULL(b);
	ASSERT_GE(hws_sensors_read(a, 0), 0);
	ASSERT_NULL(hws_sensors_free(a));
	ASSERT_EQ(hws_sensors_new(NULL, &b), 0);
	hws_sensors_free(b);
	ASSERT_NULL(hws_sensors_free(NULL));
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
