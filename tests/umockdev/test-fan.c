/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <hwsight/fan.h> against the PC87427 and applesmc testbeds and a chip
 * with the plain hwmon pwm ABI: what taking, driving, checking and giving
 * back an output writes, file by file. umockdev's sysfs files are plain
 * files (a write is stored as written, with no driver behind it), so a
 * case that needs a driver's answer (the PC87427's OFF mode reading the
 * old duty) writes that answer itself, as "another writer" would.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include <hwsight/fan.h>
#include <hwsight/sensors.h>

#include "testbed.h"

#define PC87427 "/sys/devices/platform/pc87427.2304"
#define SMC "/sys/devices/platform/applesmc.768"
#define IT87 "/sys/devices/platform/it87.656/hwmon/hwmon2"

struct bed {
	UMockdevTestbed *tb;
	struct hws_sensors *s;
};

static void add_file(UMockdevTestbed *tb, const char *name)
{
	const char *dir = getenv("TESTBEDS");
	char path[512];
	GError *error = NULL;

	ASSERT_NOT_NULL(dir);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!umockdev_testbed_add_from_file(tb, path, &error))
		FAIL("testbed %s: %s", path, error->message);
}

/* A chip with the hwmon ABI's pwm files: pwm1 automatic, pwm2 with no
 * pwmN_enable, pwm3 read-only (the driver exports it 0444). */
static void add_it87(UMockdevTestbed *tb)
{
	add(tb, "P: /devices/platform/it87.656\n"
		"E: SUBSYSTEM=platform\n"
		"E: DRIVER=it87\n"
		"A: modalias=platform:it87\\n\n"
		"\n"
		"P: /devices/platform/it87.656/hwmon/hwmon2\n"
		"E: SUBSYSTEM=hwmon\n"
		"L: device=../../../it87.656\n"
		"A: name=it8728\\n\n"
		"A: fan1_input=1200\\n\n"
		"A: fan2_input=800\\n\n"
		"A: pwm1=100\\n\n"
		"A: pwm1_enable=2\\n\n"
		"A: pwm2=50\\n\n"
		"A: pwm3=70\\n\n"
		"A: pwm3_enable=1\\n\n"
		"A: temp1_input=40000\\n\n");
}

static struct bed bed_new(void (*fill)(UMockdevTestbed *tb))
{
	struct bed b = { .tb = testbed() };

	fill(b.tb);
	ASSERT_EQ(hws_sensors_new(&(struct hws_sensors_options){ .reader = HWS_READER_PREAD }, &b.s), 0);
	return b;
}

static void bed_free(struct bed *b)
{
	hws_sensors_free(b->s);
	g_object_unref(b->tb);
}

static void fill_pc87427(UMockdevTestbed *tb) { add_file(tb, "pc87427.umockdev"); }
static void fill_applesmc(UMockdevTestbed *tb) { add_file(tb, "applesmc.umockdev"); }

static const struct hws_chip *chip(const struct bed *b, const char *prefix)
{
	for (size_t i = 0; i < hws_sensors_chip_count(b->s); i++)
		if (!strcmp(hws_sensors_chip(b->s, i)->prefix, prefix))
			return hws_sensors_chip(b->s, i);
	FAIL("no %s chip in the testbed", prefix);
	return NULL;
}

static struct hws_fan *open_fan(const struct bed *b, const char *prefix, const char *output, enum hws_fan_hold hold)
{
	struct hws_fan_options o = { .hold = hold };
	struct hws_fan *f = NULL;

	ASSERT_EQ(hws_fan_open(chip(b, prefix), output, &o, &f), 0);
	ASSERT_NOT_NULL(f);
	return f;
}

/* The file as the library sees it (umockdev redirects /sys). */
static const char *attr(const char *dir, const char *name)
{
	static char buf[64];
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		FAIL("cannot open %s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

/* Another program writing a file. */
static void other_writes(const char *dir, const char *name, const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ASSERT_NOT_NULL(f);
	fputs(value, f);
	ASSERT_EQ(fclose(f), 0);
}

static void expect_attr(const char *dir, const char *name, const char *want)
{
	const char *got = attr(dir, name);

	if (strcmp(got, want))
		FAIL("%s/%s is \"%s\", want \"%s\"", dir, name, got, want);
}

/* --- PC87427 */

TEST(pc87427_take_from_automatic_and_release)
{
	struct bed b = bed_new(fill_pc87427);
	struct hws_fan *f = open_fan(&b, "pc87427", "pwm1", HWS_FAN_HOLD_MANUAL);
	struct hws_fan_info i;
	char line[512];

	ASSERT_EQ(hws_fan_saved(f, line, sizeof(line)), -ENODATA);
	ASSERT_EQ(hws_fan_set(f, 10), -EPERM);
	ASSERT_EQ(hws_fan_check(f), -EPERM);
	ASSERT_EQ(hws_fan_take(f), 0);
	expect_attr(PC87427, "pwm1_enable", "1");
	expect_attr(PC87427, "pwm1", "102"); /* left as it was */
	ASSERT_EQ(hws_fan_check(f), 1);
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	ASSERT_STR_EQ(line, "v1 pc87427 " PC87427 " pwm1 manual enable=2 duty=102");

	ASSERT_EQ(hws_fan_set(f, 150), 0);
	expect_attr(PC87427, "pwm1", "150");
	ASSERT_EQ(hws_fan_set(f, 400), 0); /* clamped */
	expect_attr(PC87427, "pwm1", "255");
	ASSERT_EQ(hws_fan_info(f, &i), 0);
	ASSERT_STR_EQ(i.driver, "pc87427");
	ASSERT_STR_EQ(i.mode, "manual");
	ASSERT_EQ(i.value, 255);
	ASSERT_EQ(i.rpm, 1406);
	ASSERT_TRUE(i.held);

	/* A second take keeps the first save. */
	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	ASSERT_STR_EQ(line, "v1 pc87427 " PC87427 " pwm1 manual enable=2 duty=102");

	ASSERT_EQ(hws_fan_release(f), 0);
	expect_attr(PC87427, "pwm1", "102");
	expect_attr(PC87427, "pwm1_enable", "2");
	ASSERT_EQ(hws_fan_check(f), -EPERM);
	ASSERT_EQ(hws_fan_release(f), 0); /* nothing held: nothing to do */
	hws_fan_free(f);
	bed_free(&b);
}

/* From full speed (enable 0), manual mode would drop to the duty
 * register: take keeps the fan at full. After set(0) the driver shows
 * OFF as enable 1 and may read the old duty back: still as left. */
TEST(pc87427_take_from_full_and_off)
{
	struct bed b = bed_new(fill_pc87427);
	struct hws_fan *f;

	other_writes(PC87427, "pwm2", "80");
	other_writes(PC87427, "pwm2_enable", "0");
	f = open_fan(&b, "pc87427", "pwm2", HWS_FAN_HOLD_MANUAL);
	ASSERT_EQ(hws_fan_take(f), 0);
	expect_attr(PC87427, "pwm2_enable", "1");
	expect_attr(PC87427, "pwm2", "255");
	ASSERT_EQ(hws_fan_check(f), 1);

	ASSERT_EQ(hws_fan_set(f, 120), 0);
	ASSERT_EQ(hws_fan_set(f, 0), 0);
	ASSERT_EQ(hws_fan_set(f, 0), 0);
	ASSERT_EQ(hws_fan_check(f), 1);
	other_writes(PC87427, "pwm2", "120"); /* the driver's next refresh */
	ASSERT_EQ(hws_fan_check(f), 1);
	other_writes(PC87427, "pwm2", "90");  /* someone else's duty */
	ASSERT_EQ(hws_fan_check(f), 0);

	ASSERT_EQ(hws_fan_release(f), 0);
	expect_attr(PC87427, "pwm2", "80");
	expect_attr(PC87427, "pwm2_enable", "0");
	hws_fan_free(f);
	bed_free(&b);
}

TEST(pc87427_check_sees_another_writer)
{
	struct bed b = bed_new(fill_pc87427);
	struct hws_fan *f = open_fan(&b, "pc87427", "pwm1", HWS_FAN_HOLD_MANUAL);

	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_EQ(hws_fan_set(f, 120), 0);
	ASSERT_EQ(hws_fan_check(f), 1);
	other_writes(PC87427, "pwm1_enable", "2");
	ASSERT_EQ(hws_fan_check(f), 0);
	other_writes(PC87427, "pwm1_enable", "1");
	ASSERT_EQ(hws_fan_check(f), 1);
	other_writes(PC87427, "pwm1", "121");
	ASSERT_EQ(hws_fan_check(f), 0);
	/* Taking it back. */
	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_EQ(hws_fan_set(f, 120), 0);
	ASSERT_EQ(hws_fan_check(f), 1);
	ASSERT_EQ(hws_fan_release(f), 0);
	expect_attr(PC87427, "pwm1", "102");
	expect_attr(PC87427, "pwm1_enable", "2");
	hws_fan_free(f);
	bed_free(&b);
}

/* A holder that died: its saved line is all another process needs. */
TEST(pc87427_restore_saved)
{
	struct bed b = bed_new(fill_pc87427);
	struct hws_fan *f = open_fan(&b, "pc87427", "pwm1", HWS_FAN_HOLD_MANUAL);
	char line[512];

	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_EQ(hws_fan_set(f, 30), 0);
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	ASSERT_EQ(hws_fan_saved(f, line, 10), -ENOSPC);
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	hws_fan_free(f); /* dies holding it */
	expect_attr(PC87427, "pwm1", "30");
	ASSERT_EQ(hws_fan_restore_saved(line), 0);
	expect_attr(PC87427, "pwm1", "102");
	expect_attr(PC87427, "pwm1_enable", "2");
	bed_free(&b);
}

TEST(pc87427_open_errors)
{
	struct bed b = bed_new(fill_pc87427);
	const struct hws_chip *c = chip(&b, "pc87427");
	struct hws_fan *f = NULL;
	const char *names[4];

	ASSERT_EQ(hws_fan_outputs(c, names, 4), 2);
	ASSERT_STR_EQ(names[0], "pwm1");
	ASSERT_STR_EQ(names[1], "pwm2");
	ASSERT_EQ(hws_fan_outputs(c, names, 1), 2);
	ASSERT_EQ(hws_fan_open(c, "pwm3", NULL, &f), -ENOENT);
	ASSERT_EQ(hws_fan_open(c, "fan1", NULL, &f), -ENOENT);
	ASSERT_EQ(hws_fan_open(c, "pwm", NULL, &f), -ENOENT);
	ASSERT_EQ(hws_fan_open(c, "pwm1", &(struct hws_fan_options){ .hold = HWS_FAN_HOLD_FLOOR }, &f), -EINVAL);
	ASSERT_EQ(hws_fan_open(c, "pwm1", &(struct hws_fan_options){ .tach = "temp1" }, &f), -EINVAL);
	ASSERT_NULL(f);
	bed_free(&b);
}

/* Whatever a broken driver leaves in a file is an error, never a crash
 * and never a write based on it. */
TEST(pc87427_malformed_values)
{
	static const char *const junk[] = { "", "\n", "abc\n", "12abc\n", "99999999999999999999999999\n" };
	struct bed b = bed_new(fill_pc87427);

	for (size_t k = 0; k < sizeof(junk) / sizeof(junk[0]); k++) {
		struct hws_fan *f = open_fan(&b, "pc87427", "pwm1", HWS_FAN_HOLD_MANUAL);
		struct hws_fan_info i;

		other_writes(PC87427, "pwm1", junk[k]);
		ASSERT_EQ(hws_fan_info(f, &i), 0);
		ASSERT_EQ(i.value, -1);
		ASSERT_EQ(hws_fan_take(f), -EBADMSG);
		expect_attr(PC87427, "pwm1_enable", "2"); /* untouched */
		ASSERT_EQ(hws_fan_check(f), -EPERM);
		other_writes(PC87427, "pwm1", "102\n");
		other_writes(PC87427, "fan1_input", junk[k]);
		ASSERT_EQ(hws_fan_info(f, &i), 0);
		ASSERT_EQ(i.rpm, -1);
		other_writes(PC87427, "fan1_input", "1406\n");
		hws_fan_free(f);
	}
	bed_free(&b);
}

TEST(pc87427_device_gone)
{
	struct bed b = bed_new(fill_pc87427);
	struct hws_fan *f = open_fan(&b, "pc87427", "pwm1", HWS_FAN_HOLD_MANUAL);
	struct hws_fan_info i;
	char line[512];

	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	umockdev_testbed_remove_device(b.tb, PC87427);
	ASSERT_EQ(hws_fan_info(f, &i), -ENODEV);
	ASSERT_EQ(hws_fan_check(f), -ENODEV);
	ASSERT_EQ(hws_fan_set(f, 10), -ENODEV);
	ASSERT_EQ(hws_fan_release(f), -ENODEV);
	ASSERT_EQ(hws_fan_restore_saved(line), -ENODEV);
	hws_fan_free(f);
	bed_free(&b);
}

/* --- applesmc */

TEST(applesmc_manual_hold)
{
	struct bed b = bed_new(fill_applesmc);
	struct hws_fan *f = open_fan(&b, "applesmc", "fan1", HWS_FAN_HOLD_MANUAL);
	struct hws_fan_info i;
	char line[512];

	ASSERT_EQ(hws_fan_info(f, &i), 0);
	ASSERT_STR_EQ(i.mode, "automatic");
	ASSERT_EQ(i.unit, HWS_FAN_UNIT_RPM);
	ASSERT_EQ(i.min, 2000);
	ASSERT_EQ(i.max, 6200);
	ASSERT_EQ(hws_fan_take(f), 0);
	expect_attr(SMC, "fan1_manual", "1");
	expect_attr(SMC, "fan1_output", "2000");
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	ASSERT_STR_EQ(line, "v1 applesmc " SMC " fan1 manual manual=0 output=2000 min=2000");
	ASSERT_EQ(hws_fan_set(f, 4000), 0);
	expect_attr(SMC, "fan1_output", "4000");
	ASSERT_EQ(hws_fan_set(f, 90000), 0);
	expect_attr(SMC, "fan1_output", "6200");
	ASSERT_EQ(hws_fan_set(f, 10), 0);
	expect_attr(SMC, "fan1_output", "2000");
	ASSERT_EQ(hws_fan_info(f, &i), 0);
	ASSERT_STR_EQ(i.mode, "manual");
	ASSERT_EQ(i.rpm, 2003);
	ASSERT_EQ(hws_fan_check(f), 1);
	other_writes(SMC, "fan1_manual", "0"); /* mbpfan exiting */
	ASSERT_EQ(hws_fan_check(f), 0);
	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_EQ(hws_fan_check(f), 1);
	other_writes(SMC, "fan1_output", "3100");
	ASSERT_EQ(hws_fan_check(f), 0);
	ASSERT_EQ(hws_fan_release(f), 0);
	expect_attr(SMC, "fan1_manual", "0");
	expect_attr(SMC, "fan1_output", "2000");
	expect_attr(SMC, "fan1_min", "2000");
	hws_fan_free(f);
	bed_free(&b);
}

/* fan2 is under manual control already: given back so. */
TEST(applesmc_manual_hold_of_a_manual_fan)
{
	struct bed b = bed_new(fill_applesmc);
	struct hws_fan *f = open_fan(&b, "applesmc", "fan2", HWS_FAN_HOLD_MANUAL);

	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_EQ(hws_fan_set(f, 5000), 0);
	ASSERT_EQ(hws_fan_release(f), 0);
	expect_attr(SMC, "fan2_manual", "1");
	expect_attr(SMC, "fan2_output", "3000");
	expect_attr(SMC, "fan2_min", "2000");
	hws_fan_free(f);
	bed_free(&b);
}

TEST(applesmc_floor_hold)
{
	struct bed b = bed_new(fill_applesmc);
	struct hws_fan *f = open_fan(&b, "applesmc", "fan1", HWS_FAN_HOLD_FLOOR);
	struct hws_fan_info i;
	char line[512];

	ASSERT_EQ(hws_fan_take(f), 0);
	expect_attr(SMC, "fan1_manual", "0"); /* the SMC stays in charge */
	expect_attr(SMC, "fan1_min", "2000");
	ASSERT_EQ(hws_fan_set(f, 3500), 0);
	expect_attr(SMC, "fan1_min", "3500");
	expect_attr(SMC, "fan1_output", "2000");
	ASSERT_EQ(hws_fan_set(f, 100), 0); /* no lower than the SMC's floor */
	expect_attr(SMC, "fan1_min", "2000");
	ASSERT_EQ(hws_fan_set(f, 2600), 0);
	ASSERT_EQ(hws_fan_info(f, &i), 0);
	ASSERT_STR_EQ(i.mode, "floor");
	ASSERT_EQ(i.value, 2600);
	ASSERT_EQ(i.min, 2000);
	ASSERT_TRUE(i.held);
	ASSERT_EQ(hws_fan_check(f), 1);
	other_writes(SMC, "fan1_min", "2100");
	ASSERT_EQ(hws_fan_check(f), 0);
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	ASSERT_STR_EQ(line, "v1 applesmc " SMC " fan1 floor manual=0 output=2000 min=2000");
	ASSERT_EQ(hws_fan_release(f), 0);
	expect_attr(SMC, "fan1_manual", "0");
	expect_attr(SMC, "fan1_output", "2000");
	expect_attr(SMC, "fan1_min", "2000");

	/* And from the line. */
	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_EQ(hws_fan_set(f, 5000), 0);
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	ASSERT_EQ(hws_fan_restore_saved(line), 0);
	expect_attr(SMC, "fan1_min", "2000");
	hws_fan_free(f);
	bed_free(&b);
}

TEST(applesmc_outputs)
{
	struct bed b = bed_new(fill_applesmc);
	const struct hws_chip *c = chip(&b, "applesmc");
	struct hws_fan *f = NULL;
	const char *names[4];

	ASSERT_EQ(hws_fan_outputs(c, names, 4), 2);
	ASSERT_STR_EQ(names[0], "fan1");
	ASSERT_STR_EQ(names[1], "fan2");
	ASSERT_EQ(hws_fan_open(c, "pwm1", NULL, &f), -ENOENT);
	ASSERT_EQ(hws_fan_open(c, "fan3", NULL, &f), -ENOENT);
	bed_free(&b);
}

/* --- the hwmon pwm ABI */

TEST(hwmon_pwm_with_enable)
{
	struct bed b = bed_new(add_it87);
	struct hws_fan *f = open_fan(&b, "it8728", "pwm1", HWS_FAN_HOLD_MANUAL);
	struct hws_fan_info i;

	ASSERT_EQ(hws_fan_info(f, &i), 0);
	ASSERT_STR_EQ(i.driver, "hwmon");
	ASSERT_STR_EQ(i.mode, "automatic");
	ASSERT_EQ(i.rpm, 1200);
	ASSERT_EQ(hws_fan_take(f), 0);
	expect_attr(IT87, "pwm1_enable", "1");
	expect_attr(IT87, "pwm1", "100");
	ASSERT_EQ(hws_fan_set(f, 200), 0);
	expect_attr(IT87, "pwm1", "200");
	ASSERT_EQ(hws_fan_check(f), 1);
	other_writes(IT87, "pwm1_enable", "2");
	ASSERT_EQ(hws_fan_check(f), 0);
	ASSERT_EQ(hws_fan_release(f), 0);
	expect_attr(IT87, "pwm1", "100");
	expect_attr(IT87, "pwm1_enable", "2");
	hws_fan_free(f);
	bed_free(&b);
}

TEST(hwmon_pwm_without_enable_and_tach_option)
{
	struct bed b = bed_new(add_it87);
	struct hws_fan_options o = { .tach = "fan1" };
	struct hws_fan *f = NULL;
	struct hws_fan_info i;
	char line[512];
	const char *names[4];

	/* pwm3 is read-only: not an output. */
	{
		gchar *sys = umockdev_testbed_get_sys_dir(b.tb);
		char p[512];

		snprintf(p, sizeof(p), "%s/devices/platform/it87.656/hwmon/hwmon2/pwm3", sys);
		g_free(sys);
		ASSERT_EQ(chmod(p, 0444), 0);
	}
	ASSERT_EQ(hws_fan_outputs(chip(&b, "it8728"), names, 4), 2);
	ASSERT_STR_EQ(names[1], "pwm2");

	ASSERT_EQ(hws_fan_open(chip(&b, "it8728"), "pwm2", &o, &f), 0);
	ASSERT_EQ(hws_fan_info(f, &i), 0);
	ASSERT_STR_EQ(i.mode, "manual");
	ASSERT_EQ(i.rpm, 1200); /* fan1, not fan2 */
	ASSERT_EQ(hws_fan_take(f), 0);
	ASSERT_GT(hws_fan_saved(f, line, sizeof(line)), 0);
	ASSERT_STR_EQ(line, "v1 hwmon " IT87 " pwm2 manual duty=50");
	ASSERT_EQ(hws_fan_set(f, 77), 0);
	expect_attr(IT87, "pwm2", "77");
	ASSERT_EQ(hws_fan_release(f), 0);
	expect_attr(IT87, "pwm2", "50");
	hws_fan_free(f);
	bed_free(&b);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
