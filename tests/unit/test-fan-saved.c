/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The saved line: what a process that died holding a fan leaves for
 * hwsightd --restore-fans. Whatever the line says is written to a chip, so
 * a line parses only if it is exactly what hws_fan_saved() writes for its
 * driver, every value in the range that driver takes.
 */
#include <errno.h>

#include <hwsight/fan.h>

#include "fan/fan-internal.h"
#include "task.h"

/* Format @s, check the text, parse it back and compare field by field. */
static void round_trip(const struct hws__fan_saved *s, const char *want)
{
	struct hws__fan_saved back;
	char line[PATH_MAX * 3 + 256];
	int n = hws__fan_saved_format(s, line, sizeof(line));

	ASSERT_EQ(n, (int)strlen(want));
	ASSERT_STR_EQ(line, want);
	memset(&back, 0x5a, sizeof(back));
	ASSERT_EQ(hws__fan_saved_parse(line, &back), 0);
	ASSERT_PTR_EQ(back.ops, s->ops);
	ASSERT_STR_EQ(back.dir, s->dir);
	ASSERT_EQ(back.nr, s->nr);
	ASSERT_EQ(back.hold, s->hold);
	ASSERT_EQ(back.keys, s->keys);
	for (int k = 0; k < HWS__FAN_NKEYS; k++)
		if (s->keys & (1u << k))
			ASSERT_EQ(back.v[k], s->v[k]);
}

TEST(round_trip_w83793)
{
	struct hws__fan_saved s = {
		.ops = &hws__fan_w83793_ops, .dir = "/sys/devices/pci0000:00/i2c-0/0-002f", .nr = 2,
		.keys = HWS__FAN_KEY(DUTY) | HWS__FAN_KEY(MAPS),
		.v = { [HWS__FAN_DUTY] = 160, [HWS__FAN_MAPS] = 0x22 },
	};

	round_trip(&s, "v1 w83793 /sys/devices/pci0000:00/i2c-0/0-002f pwm2 manual duty=160 maps=34");
}

TEST(round_trip_pc87427)
{
	struct hws__fan_saved s = {
		.ops = &hws__fan_pc87427_ops, .dir = "/sys/devices/platform/pc87427.2304", .nr = 1,
		.keys = HWS__FAN_KEY(DUTY) | HWS__FAN_KEY(ENABLE),
		.v = { [HWS__FAN_DUTY] = 102, [HWS__FAN_ENABLE] = 2 },
	};

	round_trip(&s, "v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102");
}

TEST(round_trip_applesmc_both_holds)
{
	struct hws__fan_saved s = {
		.ops = &hws__fan_applesmc_ops, .dir = "/sys/devices/platform/applesmc.768", .nr = 12,
		.hold = HWS_FAN_HOLD_FLOOR,
		.keys = HWS__FAN_KEY(MANUAL) | HWS__FAN_KEY(OUTPUT) | HWS__FAN_KEY(MIN),
		.v = { [HWS__FAN_MANUAL] = 0, [HWS__FAN_OUTPUT] = 16383, [HWS__FAN_MIN] = 2000 },
	};

	round_trip(&s, "v1 applesmc /sys/devices/platform/applesmc.768 fan12 floor manual=0 output=16383 min=2000");
	s.hold = HWS_FAN_HOLD_MANUAL;
	s.v[HWS__FAN_MANUAL] = 1;
	round_trip(&s, "v1 applesmc /sys/devices/platform/applesmc.768 fan12 manual manual=1 output=16383 min=2000");
}

TEST(round_trip_hwmon_with_and_without_enable)
{
	struct hws__fan_saved s = {
		.ops = &hws__fan_hwmon_ops, .dir = "/sys/devices/platform/nct6775.656", .nr = 7,
		.keys = HWS__FAN_KEY(DUTY), .v = { [HWS__FAN_DUTY] = 0 },
	};

	round_trip(&s, "v1 hwmon /sys/devices/platform/nct6775.656 pwm7 manual duty=0");
	s.keys |= HWS__FAN_KEY(ENABLE);
	s.v[HWS__FAN_ENABLE] = 5;
	round_trip(&s, "v1 hwmon /sys/devices/platform/nct6775.656 pwm7 manual enable=5 duty=0");
}

/* A directory with blanks and '%' still makes one word of the line. */
TEST(round_trip_escaped_dir)
{
	struct hws__fan_saved s = {
		.ops = &hws__fan_hwmon_ops, .dir = "/sys/devices/odd name%/x\tz", .nr = 1,
		.keys = HWS__FAN_KEY(DUTY), .v = { [HWS__FAN_DUTY] = 255 },
	};

	round_trip(&s, "v1 hwmon /sys/devices/odd%20name%25/x%09z pwm1 manual duty=255");
}

TEST(format_no_space)
{
	struct hws__fan_saved s = {
		.ops = &hws__fan_hwmon_ops, .dir = "/sys/devices/a", .nr = 1,
		.keys = HWS__FAN_KEY(DUTY), .v = { [HWS__FAN_DUTY] = 255 },
	};
	char buf[64];
	const char *line = "v1 hwmon /sys/devices/a pwm1 manual duty=255";

	ASSERT_EQ(hws__fan_saved_format(&s, buf, strlen(line)), -ENOSPC);
	ASSERT_EQ(hws__fan_saved_format(&s, buf, strlen(line) + 1), (int)strlen(line));
}

TEST(parse_rejects)
{
	static const char *const bad[] = {
		"",
		"v1",
		"v2 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102",
		"V1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102",
		"v1 it87 /sys/devices/platform/it87.656 pwm1 manual enable=2 duty=102",  /* no such backend */
		"v1 pc87427 sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102", /* relative */
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm0 manual enable=2 duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm01 manual enable=2 duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm33 manual enable=2 duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm manual enable=2 duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 fan1 manual enable=2 duty=102",
		"v1 applesmc /sys/devices/platform/applesmc.768 pwm1 manual manual=0 output=2000 min=2000",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 floor enable=2 duty=102", /* no floor */
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 auto enable=2 duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2",          /* missing */
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102 duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102 maps=1",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102 speed=1",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=3 duty=102", /* > 2 */
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=256",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=-1",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=+1",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=1a",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=99999999999999999999999",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2  duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102 ",
		" v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2 duty=102\n",
		"v1 pc87427 /sys/devices/platform/pc87427.2304 pwm1 manual enable=2\tduty=102",
		"v1 w83793 /sys/bus/i2c/devices/0-002f pwm1 manual duty=253 maps=1",       /* 6-bit duty */
		"v1 w83793 /sys/bus/i2c/devices/0-002f pwm1 manual duty=192 maps=64",      /* six maps */
		"v1 applesmc /sys/devices/platform/applesmc.768 fan1 manual manual=2 output=2000 min=2000",
		"v1 applesmc /sys/devices/platform/applesmc.768 fan1 manual manual=0 output=16384 min=2000",
		"v1 applesmc /sys/devices/platform/applesmc.768 fan1 manual manual=0 output=2000",
		"v1 hwmon /sys/devices/a%2 pwm1 manual duty=1",      /* cut escape */
		"v1 hwmon /sys/devices/a%G0 pwm1 manual duty=1",     /* not hex */
		"v1 hwmon /sys/devices/a%00b pwm1 manual duty=1",    /* NUL */
		"v1 hwmon /sys/devices/caf\xc3\xa9 pwm1 manual duty=1", /* raw byte */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hws__fan_saved s = { .nr = 77 };

		if (hws__fan_saved_parse(bad[i], &s) != -EINVAL)
			FAIL("line %zu parsed: \"%s\"", i, bad[i]);
		ASSERT_EQ(s.nr, 77); /* untouched */
		ASSERT_EQ(hws_fan_restore_saved(bad[i]), -EINVAL);
	}
}

/* A good line that points outside /sys is refused before any write; one
 * for a device that is not there is -ENODEV. */
TEST(restore_saved_only_under_sys)
{
	static const char *const outside[] = {
		"v1 hwmon /tmp pwm1 manual duty=1",
		"v1 hwmon /etc/hwsight pwm1 manual duty=1",
		"v1 hwmon /sys pwm1 manual duty=1",
		"v1 hwmon /sys/ pwm1 manual duty=1",
		"v1 hwmon /sys/../tmp pwm1 manual duty=1",
		"v1 hwmon /sys/devices/../../tmp pwm1 manual duty=1",
		"v1 hwmon /sys/./devices pwm1 manual duty=1",
		"v1 hwmon /sysfoo/devices pwm1 manual duty=1",
		"v1 hwmon /sys/devices/a/.. pwm1 manual duty=1",
	};
	struct hws__fan_saved s;

	unsetenv("UMOCKDEV_DIR");
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		ASSERT_EQ(hws__fan_saved_parse(outside[i], &s), 0);
		if (hws_fan_restore_saved(outside[i]) != -EINVAL)
			FAIL("restored outside /sys: \"%s\"", outside[i]);
	}
	ASSERT_EQ(hws_fan_restore_saved("v1 hwmon /sys/devices/platform/hwsight-no-such-chip.0 pwm1 manual duty=1"),
		  -ENODEV);
	/* UMOCKDEV_DIR alone, without umockdev's preload, is not a testbed. */
	setenv("UMOCKDEV_DIR", "/tmp", 1);
	ASSERT_EQ(hws_fan_restore_saved("v1 hwmon /tmp/sys/devices/x pwm1 manual duty=1"), -EINVAL);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
