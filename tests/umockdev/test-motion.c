/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The motion sensor against umockdev testbeds that follow the drivers:
 *  - ams (drivers/macintosh/ams): ams.umockdev, the platform device "ams"
 *    with "current" ("%d %d %d\n" of s8, ams-core.c) and "joystick"
 *    ("%d\n", ams-input.c); with the joystick on, the input device
 *    "Apple Motion Sensor" below it (ABS_X/Y/Z in -50..50, fuzz 3, and
 *    BTN_TOUCH, reporting (s8)(value - calibration), ams-input.c), its
 *    ioctls answered from a tree written here and its events written into
 *    the node by the test;
 *  - applesmc (drivers/hwmon/applesmc.c): the platform device
 *    "applesmc.768" with "position" ("(%d,%d,%d)\n" of s16), "calibrate"
 *    ("(%d,%d)\n", rest x negated) and "name".
 * Each case changes the attributes live and reads them through the
 * library, as hwsightd would.
 */
#include <fcntl.h>
#include <linux/input.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <hwsight/motion.h>

#include "evdev-tree.h"
#include "testbed.h"

#define AMS "/sys/devices/platform/ams"
#define SMC "/sys/devices/platform/applesmc.768"
#define EVENT_NODE "/dev/input/event5"

static void add_ams(UMockdevTestbed *tb)
{
	const char *dir = getenv("TESTBEDS");
	GError *error = NULL;
	char path[4096];

	/* Without TESTBEDS (run by hand), the file sits beside this source. */
	if (dir)
		snprintf(path, sizeof(path), "%s/ams.umockdev", dir);
	else
		snprintf(path, sizeof(path), "%.*s/ams.umockdev",
			 (int)(strrchr(__FILE__, '/') ? strrchr(__FILE__, '/') - __FILE__ : 1),
			 strrchr(__FILE__, '/') ? __FILE__ : ".");
	if (!umockdev_testbed_add_from_file(tb, path, &error))
		FAIL("%s: %s", path, error->message);
}

static void add_applesmc(UMockdevTestbed *tb, const char *position, const char *calibrate)
{
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "P: /devices/platform/applesmc.768\n"
		 "E: DRIVER=applesmc\n"
		 "E: MODALIAS=platform:applesmc\n"
		 "E: SUBSYSTEM=platform\n"
		 "A: modalias=platform:applesmc\\n\n"
		 "A: name=applesmc\\n\n"
		 "A: position=%s\n"
		 "A: calibrate=%s\n",
		 position, calibrate);
	add(tb, buf);
}

/* Messages of the log hook, kept to check what the user would be told. */
static char last_log[1024];

static void keep_log(void *userdata, const char *message)
{
	(void)userdata;
	snprintf(last_log, sizeof(last_log), "%s", message);
}

static struct hws_motion *open_motion(unsigned interval_ms, unsigned flags)
{
	struct hws_motion_options o = { .interval_ms = interval_ms, .flags = flags, .log = keep_log };
	struct hws_motion *m = NULL;

	ASSERT_EQ(hws_motion_open(&o, &m), 0);
	ASSERT_NOT_NULL(m);
	return m;
}

/* What hws_motion_get_info() says of the driver found. */
static void expect_info(const struct hws_motion *m, enum hws_motion_driver driver, const char *name,
			const char *format, struct hws_motion_info *info)
{
	ASSERT_EQ(hws_motion_get_info(m, info), 0);
	ASSERT_EQ(info->driver, driver);
	ASSERT_STR_EQ(info->driver_name, name);
	ASSERT_STR_EQ(info->format, format);
}

static void set_ams(UMockdevTestbed *tb, int x, int y, int z)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%d %d %d\n", x, y, z);
	umockdev_testbed_set_attribute(tb, AMS, "current", buf);
}

static void set_smc(UMockdevTestbed *tb, int x, int y, int z)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "(%d,%d,%d)\n", x, y, z);
	umockdev_testbed_set_attribute(tb, SMC, "position", buf);
}

/* ---- finding and reading ---------------------------------------------- */

TEST(no_sensor)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion *m = NULL;

	/* Another platform device is not a motion sensor. */
	add(tb, "P: /devices/platform/coretemp.0\nE: SUBSYSTEM=platform\nA: name=coretemp\\n\n");
	ASSERT_EQ(hws_motion_open(NULL, &m), -ENODEV);
	ASSERT_NULL(m);
	/* Nor is an "ams" without its attribute. */
	add(tb, "P: /devices/platform/ams\nE: SUBSYSTEM=platform\nA: joystick=0\\n\n");
	ASSERT_EQ(hws_motion_open(NULL, &m), -ENODEV);
	g_object_unref(tb);
}

TEST(ams_sysfs)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion_info info;
	struct hws_motion *m;

	add_ams(tb);
	m = open_motion(0, 0);
	expect_info(m, HWS_MOTION_AMS, "ams", "X Y Z", &info);
	ASSERT_STR_EQ(info.device_path, AMS);
	ASSERT_STR_EQ(info.position_path, AMS "/current");
	ASSERT_NULL(info.calibrate_path);
	ASSERT_NULL(info.input_node);       /* the joystick is off ... */
	ASSERT_NOT_NULL(strstr(last_log, "joystick is off")); /* ... and -v says so */
	ASSERT_EQ(info.interval_ms, 20);
	ASSERT_EQ(hws_motion_load_driver_calibration(m), -EOPNOTSUPP);

	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[0], 2);
	ASSERT_EQ(s.raw[1], -1);
	ASSERT_EQ(s.raw[2], 49);
	ASSERT_EQ(s.mg[0], 40);              /* nominal 50 counts per g */
	ASSERT_EQ(s.mg[1], -20);
	ASSERT_EQ(s.mg[2], 980);
	ASSERT_EQ(hws_motion_orientation(HWS_MOTION_UNDEFINED, &s), HWS_MOTION_FACE_UP);

	/* The next read sees the new value: nothing is cached. */
	set_ams(tb, -50, 0, 1);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[0], -50);
	ASSERT_EQ(hws_motion_orientation(HWS_MOTION_FACE_UP, &s), HWS_MOTION_LEFT_UP);
	hws_motion_close(m);
	g_object_unref(tb);
}

TEST(applesmc_sysfs)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_calibration cal;
	struct hws_motion_sample s;
	struct hws_motion_info info;
	struct hws_motion *m;

	/* Loaded while lying flat with x reading -5, y 3: calibrate holds
	 * (-x, y), as applesmc_calibrate() keeps it. */
	add_applesmc(tb, "(-5,3,251)\\n", "(5,3)\\n");
	m = open_motion(0, 0);
	expect_info(m, HWS_MOTION_APPLESMC, "applesmc", "(X,Y,Z)", &info);
	ASSERT_STR_EQ(info.device_path, SMC);
	ASSERT_STR_EQ(info.position_path, SMC "/position");
	ASSERT_STR_EQ(info.calibrate_path, SMC "/calibrate");
	ASSERT_NULL(info.input_node);

	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[0], -5);
	ASSERT_EQ(s.mg[0], -20);             /* nominal 256 counts per g */
	ASSERT_EQ(s.mg[2], 980);

	ASSERT_EQ(hws_motion_load_driver_calibration(m), 0);
	ASSERT_EQ(hws_motion_get_calibration(m, &cal), 0);
	ASSERT_EQ(cal.offset[0], -5);
	ASSERT_EQ(cal.offset[1], 3);
	ASSERT_EQ(cal.offset[2], 0);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.mg[0], 0);
	ASSERT_EQ(s.mg[1], 0);
	ASSERT_EQ(s.mg[2], 980);

	/* Measuring the rest position also learns the scale from z. */
	ASSERT_EQ(hws_motion_calibrate(m, 5, &cal), 0);
	ASSERT_EQ(cal.counts_per_g, 251);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.mg[2], 1000);
	/* ... and refuses a machine standing on its edge. */
	set_smc(tb, 0, 250, 10);
	ASSERT_EQ(hws_motion_calibrate(m, 3, NULL), -EDOM);
	ASSERT_EQ(hws_motion_get_calibration(m, &cal), 0);
	ASSERT_EQ(cal.counts_per_g, 251);
	hws_motion_close(m);
	g_object_unref(tb);
}

/*
 * HP's lis3lv02d (drivers/misc/lis3lv02d, hp_accel.c): "position" is
 * "(%d,%d,%d)\n" already scaled to mg, under the platform device, or a
 * faux device in recent kernels (Documentation/misc-devices/lis3lv02d.rst).
 */
static void check_lis3lv02d(const char *dir)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion_info info;
	struct hws_motion *m;
	char desc[512], path[256];

	snprintf(desc, sizeof(desc),
		 "P: %s\n"
		 "E: DRIVER=lis3lv02d\n"
		 "E: SUBSYSTEM=platform\n"
		 "A: position=(-12,31,1004)\\n\n"
		 "A: rate=40\\n\n",
		 dir);
	add(tb, desc);
	m = open_motion(0, 0);
	expect_info(m, HWS_MOTION_LIS3LV02D, "lis3lv02d", "(X,Y,Z)", &info);
	snprintf(path, sizeof(path), "/sys%s", dir);
	ASSERT_STR_EQ(info.device_path, path);
	ASSERT_NULL(info.calibrate_path);
	ASSERT_NULL(info.input_node);
	ASSERT_EQ(info.interval_ms, 20);

	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[0], -12);
	ASSERT_EQ(s.mg[0], -12);             /* the driver's mg, as they are */
	ASSERT_EQ(s.mg[1], 31);
	ASSERT_EQ(s.mg[2], 1004);
	ASSERT_EQ(hws_motion_orientation(HWS_MOTION_UNDEFINED, &s), HWS_MOTION_FACE_UP);
	/* It keeps no rest position of its own. */
	ASSERT_EQ(hws_motion_load_driver_calibration(m), -EOPNOTSUPP);

	umockdev_testbed_set_attribute(tb, path, "position", "(3,-998,40)\n");
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.mg[1], -998);
	ASSERT_EQ(hws_motion_orientation(HWS_MOTION_FACE_UP, &s), HWS_MOTION_BOTTOM_UP);
	umockdev_testbed_set_attribute(tb, path, "position", "(3 -998 40)\n");
	ASSERT_EQ(hws_motion_read(m, &s), -EBADMSG);
	hws_motion_close(m);
	g_object_unref(tb);
}

TEST(lis3lv02d_platform)
{
	check_lis3lv02d("/devices/platform/lis3lv02d");
}

TEST(lis3lv02d_faux)
{
	check_lis3lv02d("/devices/faux/lis3lv02d");
}

/* ---- sequences through sysfs polling ---------------------------------- */

struct run {
	UMockdevTestbed *tb;
	void (*set)(UMockdevTestbed *tb, int x, int y, int z); /* set_ams or set_smc */
	struct hws_motion *m;
	struct hws_motion_detector *d;
	int orientation;
	int sudden, stopped, fell, landed, turns;
};

static void step(struct run *r)
{
	struct hws_motion_sample s;
	int ev, o;

	ASSERT_EQ(hws_motion_wait(r->m, &s), 0);
	o = hws_motion_orientation((enum hws_motion_orientation)r->orientation, &s);
	if (o != r->orientation && r->orientation != HWS_MOTION_UNDEFINED)
		r->turns++;
	r->orientation = o;
	ev = hws_motion_detector_feed(r->d, &s);
	ASSERT_GE(ev, 0);
	r->sudden += !!(ev & HWS_MOTION_EVENT_SUDDEN_MOTION);
	r->stopped += !!(ev & HWS_MOTION_EVENT_MOTION_STOPPED);
	r->fell += !!(ev & HWS_MOTION_EVENT_FREE_FALL);
	r->landed += !!(ev & HWS_MOTION_EVENT_FREE_FALL_END);
}

static struct run start(UMockdevTestbed *tb, void (*set)(UMockdevTestbed *tb, int x, int y, int z))
{
	struct run r = { .tb = tb, .set = set, .m = open_motion(20, 0) };

	ASSERT_EQ(hws_motion_detector_new(NULL, &r.d), 0);
	return r;
}

/* One sample at raw position (x, y, z). */
static void sample(struct run *r, int x, int y, int z)
{
	r->set(r->tb, x, y, z);
	step(r);
}

/* n samples at the same raw position. */
static void hold(struct run *r, int n, int x, int y, int z)
{
	for (int k = 0; k < n; k++)
		sample(r, x, y, z);
}

/* A run on an ams polled through sysfs. */
static struct run start_ams(void)
{
	UMockdevTestbed *tb = testbed();

	add_ams(tb);
	return start(tb, set_ams);
}

/* Ends the run and frees its testbed. */
static void finish(struct run *r)
{
	hws_motion_detector_free(r->d);
	hws_motion_close(r->m);
	g_object_unref(r->tb);
}

TEST(ams_tilt)
{
	struct run r = start_ams();

	/* Lying flat, then the back edge lifted a count (1.15 degrees at 50
	 * counts per g) per sample to standing, then turned onto its left
	 * edge, the same way. */
	hold(&r, 10, 0, 0, 50);
	ASSERT_EQ(r.orientation, HWS_MOTION_FACE_UP);
	for (int y = 0; y <= 50; y++) {
		sample(&r, 0, y, 50 - y);
		if (y == 24)
			ASSERT_EQ(r.orientation, HWS_MOTION_FACE_UP);
	}
	ASSERT_EQ(r.orientation, HWS_MOTION_NORMAL);
	for (int x = 0; x <= 50; x++)
		sample(&r, -x, 50 - x, 0);
	ASSERT_EQ(r.orientation, HWS_MOTION_LEFT_UP);
	ASSERT_EQ(r.turns, 2);
	ASSERT_EQ(r.sudden, 0);             /* a slow tilt is not sudden */
	finish(&r);
}

TEST(ams_shake)
{
	struct run r = start_ams();

	hold(&r, 25, 0, 0, 50);
	/* Shaken sideways for half a second, +-0.6 g at 5 Hz. */
	for (int k = 0; k < 25; k++) {
		static const int wave[10] = { 0, 15, 30, 15, 0, -15, -30, -15, 0, 0 };

		sample(&r, wave[k % 10], 0, 50);
	}
	ASSERT_EQ(r.sudden, 1);
	ASSERT_EQ(r.stopped, 0);
	hold(&r, 75, 0, 0, 50);
	ASSERT_EQ(r.sudden, 1);
	ASSERT_EQ(r.stopped, 1);
	ASSERT_EQ(r.fell, 0);
	ASSERT_EQ(r.orientation, HWS_MOTION_FACE_UP);
	finish(&r);
}

TEST(applesmc_drop)
{
	UMockdevTestbed *tb = testbed();
	struct run r;

	add_applesmc(tb, "(0,0,256)\\n", "(0,0)\\n");
	r = start(tb, set_smc);
	for (int k = 0; k < 25; k++)
		sample(&r, k & 1, 0, 256);
	/* Falling for 0.3 s: a few counts on each axis. */
	for (int k = 0; k < 15; k++)
		sample(&r, 2, -3, 4 + (k & 1));
	ASSERT_EQ(r.fell, 1);
	ASSERT_EQ(r.sudden, 1);
	ASSERT_EQ(r.landed, 0);
	ASSERT_EQ(r.orientation, HWS_MOTION_FACE_UP);
	sample(&r, 90, -40, 900);          /* the landing */
	ASSERT_EQ(r.landed, 1);
	hold(&r, 75, 0, 0, 256);
	ASSERT_EQ(r.fell, 1);
	ASSERT_EQ(r.stopped, 1);
	finish(&r);
}

/* ---- bad contents, vanished devices ----------------------------------- */

static void expect_read_error(UMockdevTestbed *tb, const char *dev, const char *attr,
			      const char *value, int expect)
{
	struct hws_motion_sample s = { .raw = { 7, 7, 7 } };
	struct hws_motion *m = open_motion(0, 0);

	umockdev_testbed_set_attribute(tb, dev, attr, value);
	last_log[0] = '\0';
	if (hws_motion_read(m, &s) != expect)
		FAIL("%s/%s = \"%s\": expected %d", dev, attr, value, expect);
	ASSERT_EQ(s.raw[0], 7);             /* untouched */
	/* The log says which file and what was in it. */
	if (value[0] && value[0] != '\n' && !strstr(last_log, attr))
		FAIL("log \"%s\" does not name %s", last_log, attr);
	hws_motion_close(m);
}

/* What a sensor file may hold that cannot be read, and the error it gives. */
struct bad_read {
	const char *value;
	int err;
};

static void expect_read_errors(UMockdevTestbed *tb, const char *dev, const char *attr,
			       const struct bad_read *bad, size_t n)
{
	for (size_t i = 0; i < n; i++)
		expect_read_error(tb, dev, attr, bad[i].value, bad[i].err);
}

#define EXPECT_READ_ERRORS(tb, dev, attr, bad) \
	expect_read_errors((tb), (dev), (attr), (bad), sizeof(bad) / sizeof((bad)[0]))

TEST(ams_malformed)
{
	static const struct bad_read bad[] = {
		{ "", -ENODATA },
		{ "\n", -ENODATA },
		{ "abc\n", -EBADMSG },
		{ "1 2\n", -EBADMSG },
		{ "1 2 3 4\n", -EBADMSG },
		{ "(1,2,3)\n", -EBADMSG },
		{ "200 0 0\n", -ERANGE },
		{ "0 0 99999999999999999999999999\n", -ERANGE },
		/* Longer than any line the driver prints. */
		{ "1 2 3                                                       "
		  "                                                            "
		  "                                                         4\n", -EBADMSG },
	};
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion *m;

	add_ams(tb);
	EXPECT_READ_ERRORS(tb, AMS, "current", bad);

	/* Missing newline is fine; and a good value after a bad one reads. */
	umockdev_testbed_set_attribute(tb, AMS, "current", "1 2 3");
	m = open_motion(0, 0);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[2], 3);
	hws_motion_close(m);
	g_object_unref(tb);
}

TEST(applesmc_malformed)
{
	static const struct bad_read bad[] = {
		{ "", -ENODATA },
		{ "abc", -EBADMSG },
		{ "(1,2)\n", -EBADMSG },
		{ "(1,2,3,4)\n", -EBADMSG },
		{ "1 2 3\n", -EBADMSG },
		{ "(40000,0,0)\n", -ERANGE },
		{ "(0,-99999999999999999999999,0)\n", -ERANGE },
	};
	UMockdevTestbed *tb = testbed();
	struct hws_motion_calibration cal;
	struct hws_motion *m;

	add_applesmc(tb, "(0,0,256)\\n", "(0,0)\\n");
	EXPECT_READ_ERRORS(tb, SMC, "position", bad);

	/* A bad calibrate leaves the calibration as it was. */
	umockdev_testbed_set_attribute(tb, SMC, "position", "(0,0,256)");
	umockdev_testbed_set_attribute(tb, SMC, "calibrate", "(abc)\n");
	m = open_motion(0, 0);
	ASSERT_EQ(hws_motion_load_driver_calibration(m), -EBADMSG);
	ASSERT_NOT_NULL(strstr(last_log, "calibrate"));
	ASSERT_EQ(hws_motion_get_calibration(m, &cal), 0);
	ASSERT_EQ(cal.offset[0], 0);
	ASSERT_EQ(cal.counts_per_g, 256);
	umockdev_testbed_set_attribute(tb, SMC, "calibrate", "(1,2,3)\n");
	ASSERT_EQ(hws_motion_load_driver_calibration(m), -EBADMSG);
	umockdev_testbed_set_attribute(tb, SMC, "calibrate", "(70000,0)\n");
	ASSERT_EQ(hws_motion_load_driver_calibration(m), -ERANGE);
	hws_motion_close(m);
	g_object_unref(tb);
}

TEST(device_vanishes)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion *m;

	add_applesmc(tb, "(0,0,256)\\n", "(0,0)\\n");
	m = open_motion(10, 0);
	ASSERT_EQ(hws_motion_wait(m, &s), 0);
	umockdev_testbed_remove_device(tb, SMC);  /* rmmod applesmc */
	ASSERT_EQ(hws_motion_wait(m, &s), -ENODEV);
	ASSERT_EQ(hws_motion_read(m, &s), -ENODEV);
	ASSERT_EQ(hws_motion_load_driver_calibration(m), -ENODEV);
	hws_motion_close(m);
	g_object_unref(tb);
}

TEST(bad_options)
{
	struct hws_motion_options o = { .interval_ms = 10001 };
	struct hws_motion *m = NULL;

	ASSERT_EQ(hws_motion_open(&o, &m), -EINVAL);
	o = (struct hws_motion_options){ .flags = 1u << 7 };
	ASSERT_EQ(hws_motion_open(&o, &m), -EINVAL);
	ASSERT_EQ(hws_motion_open(NULL, NULL), -EINVAL);
	ASSERT_NULL(m);
	ASSERT_NULL(hws_motion_close(NULL));
}

/* ---- the ams input device --------------------------------------------- */

/*
 * ams with its joystick on, lying flat, at raw (2, -1, 49). The driver
 * took its calibration when the joystick was switched on, at (3, -2, 50),
 * so the input device's state is (-1, 1, -1) (x and y negated if invert).
 */
/* An input device below the sensor's sysfs directory @dev ("/devices/..."),
 * its ioctls answered from @tree. */
static void add_input(UMockdevTestbed *tb, const char *dev, const struct evdev_tree *tree)
{
	char desc[1024], path[4096];
	GError *error = NULL;
	gchar *root;

	snprintf(desc, sizeof(desc),
		 "P: %s/input/input5\n"
		 "E: SUBSYSTEM=input\n"
		 "E: NAME=\"%s\"\n"
		 "A: name=%s\\n\n"
		 "\n"
		 "P: %s/input/input5/event5\n"
		 "N: input/event5\n"
		 "E: DEVNAME=/dev/input/event5\n"
		 "E: MAJOR=13\n"
		 "E: MINOR=69\n"
		 "E: SUBSYSTEM=input\n"
		 "A: dev=13:69\\n\n",
		 dev, tree->name, tree->name, dev);
	add(tb, desc);
	root = umockdev_testbed_get_root_dir(tb);
	snprintf(path, sizeof(path), "%s/event5.ioctl", root);
	g_free(root);
	ASSERT_EQ(evdev_tree_write(path, tree), 0);
	if (!umockdev_testbed_load_ioctl(tb, EVENT_NODE, path, &error))
		FAIL("load_ioctl: %s", error->message);
}

static void add_ams_input(UMockdevTestbed *tb, bool invert)
{
	const int calib[3] = { 3, -2, 50 }, raw[3] = { 2, -1, 49 };
	int value[3];
	char path[4096];

	add_ams(tb);
	umockdev_testbed_set_attribute(tb, AMS, "joystick", "1\n");
	if (invert) {
		/* module_param(invert, bool, ...) reads "Y". */
		gchar *sys = umockdev_testbed_get_sys_dir(tb);
		gchar *dir = g_build_filename(sys, "module/ams/parameters", NULL);

		ASSERT_EQ(g_mkdir_with_parents(dir, 0755), 0);
		snprintf(path, sizeof(path), "%s/invert", dir);
		ASSERT_TRUE(g_file_set_contents(path, "Y\n", -1, NULL));
		g_free(dir);
		g_free(sys);
	}
	for (int i = 0; i < 3; i++) {
		value[i] = (signed char)(raw[i] - calib[i]);
		if (invert && i < 2)
			value[i] = -value[i];
	}
	/* ams-input.c: ABS_X/Y/Z in -50..50, fuzz 3, and BTN_TOUCH. */
	add_input(tb, "/devices/platform/ams", &(struct evdev_tree){
		.name = "Apple Motion Sensor", .bustype = BUS_I2C, .btn_touch = true,
		.min = -50, .max = 50, .fuzz = 3,
		.value = { value[0], value[1], value[2] },
	});
}

static uint64_t realtime_usec(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
}

/* One poll of the driver: @n axes and a SYN_REPORT, as the input core
 * passes them on. */
static void send_axes(UMockdevTestbed *tb, uint64_t when, const int v[3], int n)
{
	struct input_event ev[4];
	const int code[3] = { ABS_X, ABS_Y, ABS_Z };
	int fd = umockdev_testbed_get_dev_fd(tb, EVENT_NODE);

	ASSERT_GE(fd, 0);
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i <= n; i++) {
		ev[i].input_event_sec = (time_t)(when / 1000000);
		ev[i].input_event_usec = (suseconds_t)(when % 1000000);
		ev[i].type = i < n ? EV_ABS : EV_SYN;
		ev[i].code = i < n ? (unsigned short)code[i] : SYN_REPORT;
		ev[i].value = i < n ? v[i] : 0;
	}
	ASSERT_EQ(write(fd, ev, (size_t)(n + 1) * sizeof(ev[0])), (ssize_t)((size_t)(n + 1) * sizeof(ev[0])));
}

/* ams_idev_poll(): values already relative to calibration. */
static void send_frame(UMockdevTestbed *tb, uint64_t when, int x, int y, int z)
{
	send_axes(tb, when, (const int[3]){ x, y, z }, 3);
}

TEST(ams_input_device)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion_info info;
	struct hws_motion *m;
	uint64_t t0, before;

	add_ams_input(tb, false);
	m = open_motion(50, 0);
	ASSERT_EQ(hws_motion_get_info(m, &info), 0);
	if (!info.input_node)
		FAIL("input device not used: %s", last_log);
	ASSERT_STR_EQ(info.input_node, EVENT_NODE);
	ASSERT_EQ(info.interval_ms, 50);

	/* The driver's calibration is undone: the same raw as sysfs. */
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[0], 2);
	ASSERT_EQ(s.raw[1], -1);
	ASSERT_EQ(s.raw[2], 49);
	ASSERT_EQ(s.mg[2], 980);

	/* Frames come out one by one, stamped when the driver sent them. */
	t0 = realtime_usec() - 1000000;
	send_frame(tb, t0, -3, 52, -50);         /* raw (0, 50, 0): standing */
	send_frame(tb, t0 + 25000, 125, 2, -50); /* raw x -128: s8 wrapped */
	before = (uint64_t)g_get_monotonic_time();
	ASSERT_EQ(hws_motion_wait(m, &s), 0);
	ASSERT_EQ(s.raw[0], 0);
	ASSERT_EQ(s.raw[1], 50);
	ASSERT_EQ(s.raw[2], 0);
	ASSERT_EQ(hws_motion_orientation(HWS_MOTION_FACE_UP, &s), HWS_MOTION_NORMAL);
	/* About a second old (CLOCK_MONOTONIC, like g_get_monotonic_time). */
	ASSERT_UL_LE(s.time_usec, before - 900000);
	ASSERT_UL_GE(s.time_usec, before - 1200000);
	t0 = s.time_usec;
	ASSERT_EQ(hws_motion_wait(m, &s), 0);
	ASSERT_EQ(s.raw[0], -128);
	ASSERT_EQ(s.raw[1], 0);
	/* The spacing the driver gave them, give or take the clock reads. */
	ASSERT_UL_GE(s.time_usec - t0, 24000);
	ASSERT_UL_LE(s.time_usec - t0, 26000);

	/* Silence: the same state again, one interval later. */
	before = (uint64_t)g_get_monotonic_time();
	ASSERT_EQ(hws_motion_wait(m, &s), 0);
	ASSERT_EQ(s.raw[0], -128);
	ASSERT_UL_GE(s.time_usec, before);
	ASSERT_UL_LE(s.time_usec, before + 1000000);
	hws_motion_close(m);

	/* --poll (hdapsd's -y) leaves the input device alone. */
	m = open_motion(0, HWS_MOTION_POLL_SYSFS);
	ASSERT_EQ(hws_motion_get_info(m, &info), 0);
	ASSERT_NULL(info.input_node);
	hws_motion_close(m);
	g_object_unref(tb);
}

TEST(ams_input_inverted)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion_info info;
	struct hws_motion *m;

	add_ams_input(tb, true);
	m = open_motion(50, 0);
	ASSERT_EQ(hws_motion_get_info(m, &info), 0);
	ASSERT_NOT_NULL(info.input_node);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[0], 2);
	ASSERT_EQ(s.raw[1], -1);
	/* Left edge up, raw (-50, 0, 0): the driver reports -(x - 3) = 53. */
	send_frame(tb, realtime_usec() - 100000, 53, -2, -50);
	ASSERT_EQ(hws_motion_wait(m, &s), 0);
	ASSERT_EQ(s.raw[0], -50);
	ASSERT_EQ(s.raw[1], 0);
	ASSERT_EQ(hws_motion_orientation(HWS_MOTION_FACE_UP, &s), HWS_MOTION_LEFT_UP);
	hws_motion_close(m);
	g_object_unref(tb);
}

TEST(ams_input_shake_and_drop)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_detector *d;
	struct hws_motion *m;
	int events = 0, k = 0;
	uint64_t t;

	add_ams_input(tb, false);
	m = open_motion(1000, 0);
	ASSERT_EQ(hws_motion_detector_new(NULL, &d), 0);
	/* Three seconds at 40 Hz, as ams polls: still, shaken, still, then a
	 * drop of 0.2 s. Sent ten frames at a time (a pty splits larger
	 * writes), each batch read before the next. */
	t = realtime_usec() - 5000000;
	for (int batch = 0; batch < 16; batch++) {
		for (int i = 0; i < 10; i++, k++) {
			int x = -1, z = -1;                          /* raw (2, ., 49) */

			if (k >= 40 && k < 60)
				x += (k % 4 == 1) ? 20 : (k % 4 == 3) ? -20 : 0;
			if (k >= 140 && k < 148)
				z = -49;                             /* raw z 1: falling */
			send_frame(tb, t + (uint64_t)k * 25000, x, 1, z);
		}
		for (int i = 0; i < 10; i++) {
			struct hws_motion_sample s;
			int ev;

			ASSERT_EQ(hws_motion_wait(m, &s), 0);
			ev = hws_motion_detector_feed(d, &s);
			ASSERT_GE(ev, 0);
			if (ev & HWS_MOTION_EVENT_SUDDEN_MOTION)
				ASSERT_TRUE(events == 0 || events == 3);
			if (ev & HWS_MOTION_EVENT_MOTION_STOPPED)
				ASSERT_TRUE((events & 3) == 1);
			events |= ev & 3;
			if (ev & HWS_MOTION_EVENT_FREE_FALL)
				events |= 4;
		}
		if (batch == 12)
			ASSERT_EQ(events, 3);               /* shaken, then calm */
	}
	ASSERT_EQ(events & 4, 4);                           /* and the fall */
	hws_motion_detector_free(d);
	hws_motion_close(m);
	g_object_unref(tb);
}

TEST(ams_input_vanishes)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion *m;

	add_ams_input(tb, false);
	m = open_motion(20, 0);
	ASSERT_EQ(hws_motion_wait(m, &s), 0);
	umockdev_testbed_remove_device(tb, AMS "/input/input5/event5");
	umockdev_testbed_remove_device(tb, AMS "/input/input5");
	umockdev_testbed_remove_device(tb, AMS);
	ASSERT_EQ(hws_motion_wait(m, &s), -ENODEV);
	hws_motion_close(m);
	g_object_unref(tb);
}

/* ---- hdaps and lis3lv02d ---------------------------------------------- */

#define HDAPS "/sys/devices/platform/hdaps"

/*
 * drivers/platform/x86/hdaps.c: "position" and "calibrate" print
 * "(%d,%d)\n", the embedded controller's counts; there is no z.
 */
static void add_hdaps(UMockdevTestbed *tb)
{
	add(tb, "P: /devices/platform/hdaps\n"
		"E: DRIVER=hdaps\n"
		"E: SUBSYSTEM=platform\n"
		"A: position=(503,485)\\n\n"
		"A: calibrate=(500,480)\\n\n"
		"A: invert=0\\n\n");
}

TEST(hdaps_sysfs)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_detector *d = NULL;
	struct hws_motion_sample s;
	struct hws_motion_info info;
	struct hws_motion *m;

	add_hdaps(tb);
	m = open_motion(0, 0);
	expect_info(m, HWS_MOTION_HDAPS, "hdaps", "(X,Y)", &info);
	ASSERT_STR_EQ(info.calibrate_path, HDAPS "/calibrate");
	ASSERT_NULL(info.input_node);
	ASSERT_EQ(info.axes, 2);

	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[0], 503);
	ASSERT_EQ(s.raw[1], 485);
	ASSERT_EQ(s.raw[2], 0);
	ASSERT_EQ(s.mg[2], 0);
	/* The driver's rest position, as it is (not negated as applesmc's). */
	ASSERT_EQ(hws_motion_load_driver_calibration(m), 0);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.mg[0], 56);              /* 3 counts of about 54 a g */
	ASSERT_EQ(s.mg[1], 93);
	ASSERT_EQ(s.mg[2], 0);

	/* A knock is sudden motion; lying still with no z is no fall. */
	ASSERT_EQ(hws_motion_detector_new(&(struct hws_motion_detector_params){ .axes = info.axes }, &d), 0);
	for (uint64_t t = 1000000; t < 2000000; t += 20000) {
		s.time_usec = t;
		ASSERT_EQ(hws_motion_detector_feed(d, &s), 0);
	}
	umockdev_testbed_set_attribute(tb, HDAPS, "position", "(530,470)\n");
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	s.time_usec = 2000000;
	ASSERT_EQ(hws_motion_detector_feed(d, &s), HWS_MOTION_EVENT_SUDDEN_MOTION);
	hws_motion_detector_free(d);

	/* Not the driver's format. */
	umockdev_testbed_set_attribute(tb, HDAPS, "position", "(503,485,1)\n");
	ASSERT_EQ(hws_motion_read(m, &s), -EBADMSG);
	umockdev_testbed_set_attribute(tb, HDAPS, "position", "(70000,0)\n");
	ASSERT_EQ(hws_motion_read(m, &s), -ERANGE);
	hws_motion_close(m);
	g_object_unref(tb);
}

/* The kernel's hdaps input device: "hdaps", ABS_X and ABS_Y only, the
 * counts less the rest position it took at load (hdaps_mousedev_poll()). */
TEST(hdaps_input_device)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion_info info;
	struct hws_motion *m;

	add_hdaps(tb);
	add_input(tb, "/devices/platform/hdaps", &(struct evdev_tree){
		.name = "hdaps", .bustype = BUS_ISA, .min = -256, .max = 256, .fuzz = 4,
		.value = { 3, 5, 0 }, .axes = 2,
	});
	m = open_motion(50, 0);
	ASSERT_EQ(hws_motion_get_info(m, &info), 0);
	if (!info.input_node)
		FAIL("input device not used: %s", last_log);
	ASSERT_EQ(info.axes, 2);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.raw[0], 503);
	ASSERT_EQ(s.raw[1], 485);
	ASSERT_EQ(s.raw[2], 0);
	send_axes(tb, realtime_usec() - 100000, (const int[3]){ -40, 22, 0 }, 2);
	ASSERT_EQ(hws_motion_wait(m, &s), 0);
	ASSERT_EQ(s.raw[0], 460);
	ASSERT_EQ(s.raw[1], 502);
	ASSERT_EQ(s.raw[2], 0);
	hws_motion_close(m);
	g_object_unref(tb);
}

/* lis3lv02d.c's joystick reports what "position" prints, in mg: nothing
 * is learnt from the two at open, even when they differ (the machine
 * moved between the two reads). */
TEST(lis3lv02d_input_device)
{
	UMockdevTestbed *tb = testbed();
	struct hws_motion_sample s;
	struct hws_motion_info info;
	struct hws_motion *m;

	add(tb, "P: /devices/platform/lis3lv02d\n"
		"E: DRIVER=lis3lv02d\n"
		"E: SUBSYSTEM=platform\n"
		"A: position=(-12,31,1004)\\n\n");
	add_input(tb, "/devices/platform/lis3lv02d", &(struct evdev_tree){
		.name = "ST LIS3LV02DL Accelerometer", .bustype = BUS_HOST,
		.min = -2048, .max = 2048, .fuzz = 3, .value = { -10, 30, 1000 },
	});
	m = open_motion(50, 0);
	ASSERT_EQ(hws_motion_get_info(m, &info), 0);
	if (!info.input_node)
		FAIL("input device not used: %s", last_log);
	ASSERT_EQ(info.axes, 3);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.mg[0], -10);
	ASSERT_EQ(s.mg[1], 30);
	ASSERT_EQ(s.mg[2], 1000);
	send_frame(tb, realtime_usec() - 100000, 20, -990, 35);
	ASSERT_EQ(hws_motion_wait(m, &s), 0);
	ASSERT_EQ(s.mg[1], -990);
	ASSERT_EQ(hws_motion_orientation(HWS_MOTION_FACE_UP, &s), HWS_MOTION_BOTTOM_UP);
	hws_motion_close(m);

	/* --poll reads "position". */
	m = open_motion(0, HWS_MOTION_POLL_SYSFS);
	ASSERT_EQ(hws_motion_get_info(m, &info), 0);
	ASSERT_NULL(info.input_node);
	ASSERT_EQ(hws_motion_read(m, &s), 0);
	ASSERT_EQ(s.mg[0], -12);
	hws_motion_close(m);
	g_object_unref(tb);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
