/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The motion sensor context: finding ams, applesmc, lis3lv02d or hdaps in
 * sysfs without udev, and reading it either by polling its sysfs
 * attribute or from the driver's input device. The two ways sit behind
 * struct source_ops; everything that is not I/O lives in
 * motion-detector.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libevdev/libevdev.h>
#include <linux/input.h>

#include <hwsight/motion.h>

#include "io-util.h"
#include "sysfs-util.h"
#include "time-util.h"

/*
 * What an input device's values are, against the sysfs attribute's: the
 * same, or less the rest position the driver took when the device was
 * made (learnt here as the difference of the two, read together), with
 * ams' arithmetic in s8.
 */
enum input_values {
	INPUT_AS_SYSFS,
	INPUT_LESS_REST,
	INPUT_LESS_REST_S8,
};

struct input_desc {
	const char *name;
	enum input_values values;
};

/* What hwsight knows of each driver, from its source: a line for the
 * driver, one for each attribute read and how it reads, one for the scale. */
static const struct driver_desc {
	enum hws_motion_driver driver;
	const char *name;
	const char *dirname;     /* the device directory's name ... */
	bool prefix;             /* ... or the start of it ("applesmc.768") */
	const char *position;    /* attribute with the current reading */
	const char *calibrate;   /* attribute with the driver's rest position */
	enum hws_motion_format format;
	enum hws_motion_format calibrate_format;
	const char *format_text;
	bool calibrate_negates_x; /* applesmc keeps rest x negated */
	int counts_per_g;        /* nominal, see struct hws_motion_calibration */
	int axes;
	struct input_desc inputs[2]; /* input devices with the driver's axes, best first */
	const char *input_switch; /* attribute that is "0" while there is none */
	const char *invert_param; /* module parameter that negates x and y of the input */
} drivers[] = {
	{
		/* ams-core.c: of_platform_device_create(np, "ams", NULL) and
		 * DEVICE_ATTR(current); ams-input.c names the input device. */
		.driver = HWS_MOTION_AMS, .name = "ams", .dirname = "ams",
		.position = "current", .format = HWS_MOTION_FORMAT_AMS_CURRENT, .format_text = "X Y Z",
		.counts_per_g = 50, .axes = 3,
		.inputs = { { "Apple Motion Sensor", INPUT_LESS_REST_S8 } },
		.input_switch = "joystick", .invert_param = "module/ams/parameters/invert",
	},
	{
		/* applesmc.c: platform_device_register_simple("applesmc",
		 * APPLESMC_DATA_PORT = 0x300, ...) makes "applesmc.768". Its
		 * input device reports x and y only, so it is not used. */
		.driver = HWS_MOTION_APPLESMC, .name = "applesmc", .dirname = "applesmc.", .prefix = true,
		.position = "position", .format = HWS_MOTION_FORMAT_APPLESMC_POSITION, .format_text = "(X,Y,Z)",
		.calibrate = "calibrate", .calibrate_format = HWS_MOTION_FORMAT_APPLESMC_CALIBRATE,
		.calibrate_negates_x = true,
		.counts_per_g = 256, .axes = 3,
	},
	{
		/* lis3lv02d.c (HP's "3D DriveGuard", hp_accel.c): "position"
		 * prints "(%d,%d,%d)\n" already scaled to mg, and the
		 * joystick poll reports the same lis3lv02d_get_xyz(). */
		.driver = HWS_MOTION_LIS3LV02D, .name = "lis3lv02d", .dirname = "lis3lv02d",
		.position = "position", .format = HWS_MOTION_FORMAT_APPLESMC_POSITION, .format_text = "(X,Y,Z)",
		.counts_per_g = 1000, .axes = 3,
		.inputs = { { "ST LIS3LV02DL Accelerometer", INPUT_AS_SYSFS } },
	},
	{
		/* drivers/platform/x86/hdaps.c: platform device "hdaps",
		 * "position" and "calibrate" print "(%d,%d)\n"; its polled
		 * input device "hdaps" reports x - rest_x, y - rest_y.
		 * tp_smapi's hdaps, which hdapsd prefers, adds "ThinkPad
		 * HDAPS accelerometer data" with the counts as they are.
		 * The scale is an estimate: the ADXL320 gives 174 mV a g,
		 * read by a 10-bit converter over 3.3 V. */
		.driver = HWS_MOTION_HDAPS, .name = "hdaps", .dirname = "hdaps",
		.position = "position", .format = HWS_MOTION_FORMAT_HDAPS_POSITION, .format_text = "(X,Y)",
		.calibrate = "calibrate", .calibrate_format = HWS_MOTION_FORMAT_HDAPS_POSITION,
		.counts_per_g = 54, .axes = 2,
		.inputs = { { "ThinkPad HDAPS accelerometer data", INPUT_AS_SYSFS },
			    { "hdaps", INPUT_LESS_REST } },
	},
};

/*
 * Where platform devices appear, relative to the sysfs root: canonical
 * directories first, so that the path shown is the real one, then the
 * bus views (of_platform is where 2.6.20 put ams).
 */
static const char *const device_dirs[] = {
	"devices/platform",
	"devices/faux",      /* lis3lv02d in recent kernels (the faux bus) */
	"devices",
	"bus/platform/devices",
	"bus/of_platform/devices",
};

struct hws_motion;

struct source_ops {
	/* The state now, and the next sample of a stream. Both fill raw[]
	 * with the driver's values and *ret_time with CLOCK_MONOTONIC. */
	int (*read)(struct hws_motion *m, int raw[3], uint64_t *ret_time);
	int (*wait)(struct hws_motion *m, int raw[3], uint64_t *ret_time);
};

struct hws_motion {
	const struct driver_desc *drv;
	const struct source_ops *ops;
	void (*log)(void *userdata, const char *message);
	void *log_userdata;
	char *device_path, *position_path, *calibrate_path, *input_node;
	int dirfd;                  /* the device's sysfs directory */
	unsigned interval_ms;
	struct hws_motion_calibration cal;
	uint64_t next_tick;         /* sysfs: when the next poll is due */

	/* input mode */
	int evfd;
	struct libevdev *evdev;
	const struct input_desc *input;
	bool event_clock;           /* events carry CLOCK_MONOTONIC stamps */
	bool invert;                /* ams' "invert" module parameter */
	int driver_offset[3];       /* what the driver subtracted from each axis */
	uint64_t last_time;         /* of the last sample delivered */
};

__attribute__((format(printf, 2, 3)))
static void motion_log(const struct hws_motion *m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!m->log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	m->log(m->log_userdata, buf);
}

/* ams does its arithmetic in s8, so the input values wrap modulo 256. */
static int wrap_s8(int v)
{
	v &= 0xff;
	return v >= 128 ? v - 256 : v;
}

/*
 * Read and parse one attribute of the device. Reopened each time: sysfs
 * runs the driver's show() on every open anyway, and a device that went
 * away shows up as ENOENT here rather than as stale text.
 */
static int read_values(const struct hws_motion *m, const char *attr, enum hws_motion_format format,
		       int values[3])
{
	char buf[128];
	int r;

	values[2] = 0; /* the two-value formats leave z alone */
	r = hws__read_attr(m->dirfd, attr, buf, sizeof(buf));
	if (r == -ENOENT || r == -ENODEV) {
		motion_log(m, "%s/%s: gone (%s)", m->device_path, attr, strerror(-r));
		return -ENODEV;
	}
	if (r == -EFBIG) {
		motion_log(m, "%s/%s: longer than %zu bytes", m->device_path, attr, sizeof(buf) - 1);
		return -EBADMSG;
	}
	if (r < 0)
		return r;
	r = hws_motion_parse(format, buf, values);
	if (r < 0)
		motion_log(m, "%s/%s: cannot use \"%s\": %s", m->device_path, attr, buf, strerror(-r));
	return r < 0 ? r : 0;
}

/* ---- sysfs polling ---------------------------------------------------- */

static int sysfs_read(struct hws_motion *m, int raw[3], uint64_t *ret_time)
{
	int r = read_values(m, m->drv->position, m->drv->format, raw);

	*ret_time = hws__now_us();
	return r;
}

/*
 * Polls happen on a grid of ticks, and each sample is stamped with its
 * tick rather than with the moment the read returned. The sensor steps
 * by whole counts, so a read that came late, followed by one on time,
 * would otherwise turn one count into a jolt over a sliver of time.
 */
static int sysfs_wait(struct hws_motion *m, int raw[3], uint64_t *ret_time)
{
	uint64_t interval = (uint64_t)m->interval_ms * 1000, now = hws__now_us(), tick = m->next_tick;
	int r;

	if (now < tick) {
		struct timespec ts = hws__timespec_from_ns(tick * 1000);

		r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (r)
			return -r;
	} else {
		/* After a stall, the latest tick passed: no burst of polls. */
		tick += (now - tick) / interval * interval;
	}
	m->next_tick = tick + interval;
	r = read_values(m, m->drv->position, m->drv->format, raw);
	*ret_time = tick;
	return r;
}

static const struct source_ops sysfs_ops = {
	.read = sysfs_read,
	.wait = sysfs_wait,
};

/* ---- the input device ------------------------------------------------- */

static const unsigned abs_codes[3] = { ABS_X, ABS_Y, ABS_Z };

static void evdev_state(const struct hws_motion *m, int raw[3])
{
	/* Undo the driver: ams-input.c reports (s8)(v - calib), x and y
	 * negated when "invert" is set; hdaps reports v - rest. */
	for (int i = 0; i < 3; i++) {
		int v = i < m->drv->axes ? libevdev_get_event_value(m->evdev, EV_ABS, abs_codes[i]) : 0;

		if (m->invert && i < 2)
			v = -v;
		v += m->driver_offset[i];
		raw[i] = m->input->values == INPUT_LESS_REST_S8 ? wrap_s8(v) : v;
	}
}

static uint64_t event_time(const struct hws_motion *m, const struct input_event *ev)
{
	uint64_t t = (uint64_t)ev->input_event_sec * 1000000 + (uint64_t)ev->input_event_usec;
	uint64_t now = hws__now_us(), real_now;
	struct timespec ts;

	if (m->event_clock)
		return t;
	/* The kernel stamped it on CLOCK_REALTIME: carry the event's age over
	 * to CLOCK_MONOTONIC, which keeps the spacing of events read in a
	 * burst. A stamp from the future or from long ago is not trusted. */
	clock_gettime(CLOCK_REALTIME, &ts);
	real_now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	if (t > real_now || real_now - t > 10000000 || real_now - t > now)
		return now;
	return now - (real_now - t);
}

/*
 * Take queued events up to the end of the next frame (SYN_REPORT).
 * Return: 1 with the frame's time, 0 if none is complete, or -errno.
 */
static int evdev_pump(struct hws_motion *m, uint64_t *ret_time)
{
	for (;;) {
		struct input_event ev;
		int r = libevdev_next_event(m->evdev, LIBEVDEV_READ_FLAG_NORMAL, &ev);

		if (r == -EAGAIN)
			return 0;
		if (r < 0)
			return r;
		if (r == LIBEVDEV_READ_STATUS_SYNC) {
			/* Events were lost; libevdev has asked the kernel for
			 * the state, which is a frame of its own. */
			do
				r = libevdev_next_event(m->evdev, LIBEVDEV_READ_FLAG_SYNC, &ev);
			while (r == LIBEVDEV_READ_STATUS_SYNC);
			if (r < 0 && r != -EAGAIN)
				return r;
			*ret_time = hws__now_us();
			return 1;
		}
		if (ev.type == EV_SYN && ev.code == SYN_REPORT) {
			*ret_time = event_time(m, &ev);
			return 1;
		}
	}
}

/* The input device's removal may not reach its fd: ask sysfs too. */
static int device_present(const struct hws_motion *m)
{
	if (faccessat(m->dirfd, m->drv->position, F_OK, 0) < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	return 0;
}

static int evdev_read(struct hws_motion *m, int raw[3], uint64_t *ret_time)
{
	uint64_t t;
	int r;

	while ((r = evdev_pump(m, &t)) > 0)
		;
	if (r == 0)
		r = device_present(m);
	if (r < 0)
		return r;
	evdev_state(m, raw);
	*ret_time = m->last_time = hws__now_us();
	return 0;
}

static int evdev_wait(struct hws_motion *m, int raw[3], uint64_t *ret_time)
{
	uint64_t deadline = m->last_time + (uint64_t)m->interval_ms * 1000;

	for (;;) {
		struct pollfd pfd = { .fd = m->evfd, .events = POLLIN };
		uint64_t t, now;
		int r = evdev_pump(m, &t);

		if (r < 0)
			return r;
		if (r > 0) {
			evdev_state(m, raw);
			*ret_time = m->last_time = t;
			return 0;
		}
		now = hws__now_us();
		if (now >= deadline) {
			/* Silence means unchanged values, if the device is there. */
			r = device_present(m);
			if (r < 0)
				return r;
			evdev_state(m, raw);
			*ret_time = m->last_time = now;
			return 0;
		}
		r = poll(&pfd, 1, (int)((deadline - now + 999) / 1000));
		if (r < 0)
			return -errno;
		if (r > 0 && (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) && !(pfd.revents & POLLIN))
			return -ENODEV;
	}
}

static const struct source_ops evdev_ops = {
	.read = evdev_read,
	.wait = evdev_wait,
};

/* The driver's input device @in, if it made one below its device. */
static char *find_input_node_in_sysfs(const struct hws_motion *m, const struct input_desc *in)
{
	char *node = NULL;
	struct dirent *de;
	DIR *d;
	int fd;

	fd = openat(m->dirfd, "input", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return NULL;
	}
	while (!node && (de = readdir(d))) {
		char path[300], name[128];
		struct dirent *ee;
		DIR *e;
		int efd;

		if (strncmp(de->d_name, "input", 5) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/name", de->d_name);
		if (hws__read_attr(dirfd(d), path, name, sizeof(name)) < 0 ||
		    strcmp(name, in->name) != 0)
			continue;
		efd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (efd < 0)
			continue;
		e = fdopendir(efd);
		if (!e) {
			close(efd);
			continue;
		}
		while ((ee = readdir(e)))
			if (strncmp(ee->d_name, "event", 5) == 0) {
				if (asprintf(&node, "/dev/input/%s", ee->d_name) < 0)
					node = NULL;
				break;
			}
		closedir(e);
	}
	closedir(d);
	return node;
}

/* Kernels that keep input devices elsewhere in sysfs: ask each by name. */
static char *find_input_node_by_name(const struct input_desc *in)
{
	char *node = NULL;
	struct dirent *de;
	DIR *d = opendir("/dev/input");

	if (!d)
		return NULL;
	while (!node && (de = readdir(d))) {
		struct libevdev *dev = NULL;
		char path[300];
		int fd;

		if (strncmp(de->d_name, "event", 5) != 0)
			continue;
		snprintf(path, sizeof(path), "/dev/input/%s", de->d_name);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (libevdev_new_from_fd(fd, &dev) == 0 &&
		    strcmp(libevdev_get_name(dev), in->name) == 0)
			node = strdup(path);
		libevdev_free(dev);
		close(fd);
	}
	closedir(d);
	return node;
}

static bool read_invert(const struct hws_motion *m, const char *root)
{
	char path[512], buf[16];

	if (!m->drv->invert_param)
		return false;
	/* A bool module parameter reads "Y" or "N"; old kernels print 1/0. */
	snprintf(path, sizeof(path), "%s/%s", root, m->drv->invert_param);
	if (hws__read_attr(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return false;
	return buf[0] == 'Y' || buf[0] == 'y' || buf[0] == '1';
}

/* The first of the driver's input devices that exists, and which it is. */
static char *find_input_node(struct hws_motion *m)
{
	const struct input_desc *in;
	char *node;

	for (in = m->drv->inputs; in < m->drv->inputs + 2 && in->name; in++) {
		node = find_input_node_in_sysfs(m, in);
		if (!node)
			node = find_input_node_by_name(in);
		if (node) {
			m->input = in;
			return node;
		}
	}
	return NULL;
}

/*
 * Open the input device and learn what the driver subtracted when it
 * made it (ams when the joystick was switched on, hdaps when it loaded):
 * the offset is sysfs' raw reading less the input device's, both taken
 * now. Without it, ams' z would read 0 at rest instead of 1 g, and
 * orientation and free fall could not be told.
 */
static int open_input(struct hws_motion *m, const char *root)
{
	char state[16];
	int raw[3], in[3], r;

	/* ams-input.c says whether its input device exists; believing it
	 * spares opening every /dev/input node in search of one. */
	if (m->drv->input_switch &&
	    hws__read_attr(m->dirfd, m->drv->input_switch, state, sizeof(state)) >= 0 &&
	    strcmp(state, "0") == 0) {
		motion_log(m, "%s' %s is off (write 1 to %s/%s for its input device); polling %s",
			   m->drv->name, m->drv->input_switch, m->device_path, m->drv->input_switch,
			   m->position_path);
		return -ENOENT;
	}
	m->input_node = find_input_node(m);
	if (!m->input_node) {
		motion_log(m, "no \"%s\" input device found; polling %s",
			   m->drv->inputs[0].name, m->position_path);
		return -ENOENT;
	}
	m->evfd = open(m->input_node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (m->evfd < 0) {
		r = -errno;
		goto fail;
	}
	r = libevdev_new_from_fd(m->evfd, &m->evdev);
	if (r < 0)
		goto fail;
	if (strcmp(libevdev_get_name(m->evdev), m->input->name) != 0) {
		r = -ENODEV;
		goto fail;
	}
	for (int i = 0; i < m->drv->axes; i++)
		if (!libevdev_has_event_code(m->evdev, EV_ABS, abs_codes[i])) {
			r = -ENODEV;
			goto fail;
		}
	m->event_clock = libevdev_set_clock_id(m->evdev, CLOCK_MONOTONIC) == 0;
	m->invert = read_invert(m, root);
	r = read_values(m, m->drv->position, m->drv->format, raw);
	if (r < 0)
		goto fail;
	/* With the offsets still 0, evdev_state() gives the input values
	 * with ams' inversion undone. */
	evdev_state(m, in);
	for (int i = 0; i < 3; i++) {
		int offset = m->input->values == INPUT_AS_SYSFS ? 0 : raw[i] - in[i];

		m->driver_offset[i] = m->input->values == INPUT_LESS_REST_S8 ? wrap_s8(offset) : offset;
	}
	motion_log(m, "reading %s (driver offsets %d %d %d%s%s)", m->input_node,
		   m->driver_offset[0], m->driver_offset[1], m->driver_offset[2],
		   m->invert ? ", x and y inverted" : "",
		   m->event_clock ? "" : ", realtime stamps");
	return 0;

fail:
	motion_log(m, "%s: cannot use it (%s); polling %s", m->input_node, strerror(-r),
		   m->position_path);
	libevdev_free(m->evdev);
	m->evdev = NULL;
	m->evfd = hws__safe_close(m->evfd);
	free(m->input_node);
	m->input_node = NULL;
	m->input = NULL;
	return r;
}

/* ---- the context ------------------------------------------------------ */

static bool name_matches(const struct driver_desc *drv, const char *name)
{
	if (drv->prefix)
		return strncmp(name, drv->dirname, strlen(drv->dirname)) == 0;
	return strcmp(name, drv->dirname) == 0;
}

static int find_device(struct hws_motion *m, const char *root)
{
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		for (size_t j = 0; j < sizeof(device_dirs) / sizeof(device_dirs[0]); j++) {
			char dir[512];
			struct dirent *de;
			DIR *d;

			snprintf(dir, sizeof(dir), "%s/%s", root, device_dirs[j]);
			d = opendir(dir);
			if (!d)
				continue;
			while ((de = readdir(d))) {
				char attr[300];

				if (!name_matches(&drivers[i], de->d_name))
					continue;
				snprintf(attr, sizeof(attr), "%s/%s", de->d_name, drivers[i].position);
				if (faccessat(dirfd(d), attr, F_OK, 0) < 0)
					continue;
				m->dirfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				if (m->dirfd < 0)
					continue;
				m->drv = &drivers[i];
				if (asprintf(&m->device_path, "%s/%s", dir, de->d_name) < 0)
					m->device_path = NULL;
				closedir(d);
				return m->device_path ? 0 : -ENOMEM;
			}
			closedir(d);
		}
	}
	return -ENODEV;
}

int hws_motion_open(const struct hws_motion_options *opts, struct hws_motion **ret_motion)
{
	struct hws_motion_options o = { 0 };
	struct hws_motion *m;
	const char *root;
	int r;

	if (!ret_motion)
		return -EINVAL;
	if (opts)
		o = *opts;
	if (o.flags & ~(unsigned)HWS_MOTION_POLL_SYSFS || o.interval_ms > 10000)
		return -EINVAL;
	root = o.sysfs_root ? o.sysfs_root : "/sys";

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->dirfd = m->evfd = -1;
	m->log = o.log;
	m->log_userdata = o.log_userdata;

	r = find_device(m, root);
	if (r < 0)
		goto fail;
	/* asprintf() leaves its pointer undefined on failure. */
	if (asprintf(&m->position_path, "%s/%s", m->device_path, m->drv->position) < 0) {
		m->position_path = NULL;
		r = -ENOMEM;
		goto fail;
	}
	if (m->drv->calibrate &&
	    asprintf(&m->calibrate_path, "%s/%s", m->device_path, m->drv->calibrate) < 0) {
		m->calibrate_path = NULL;
		r = -ENOMEM;
		goto fail;
	}
	motion_log(m, "found %s at %s", m->drv->name, m->device_path);
	m->cal.counts_per_g = m->drv->counts_per_g;

	if (m->drv->inputs[0].name && !(o.flags & HWS_MOTION_POLL_SYSFS) && strcmp(root, "/sys") == 0)
		open_input(m, root);
	m->ops = m->evdev ? &evdev_ops : &sysfs_ops;
	m->interval_ms = o.interval_ms ? o.interval_ms : m->evdev ? 100 : 20;
	m->next_tick = m->last_time = hws__now_us();
	*ret_motion = m;
	return 0;

fail:
	hws_motion_close(m);
	return r;
}

struct hws_motion *hws_motion_close(struct hws_motion *m)
{
	if (!m)
		return NULL;
	libevdev_free(m->evdev);
	hws__safe_close(m->evfd);
	hws__safe_close(m->dirfd);
	free(m->device_path);
	free(m->position_path);
	free(m->calibrate_path);
	free(m->input_node);
	free(m);
	return NULL;
}

int hws_motion_get_info(const struct hws_motion *m, struct hws_motion_info *ret_info)
{
	if (!m || !ret_info)
		return -EINVAL;
	*ret_info = (struct hws_motion_info){
		.driver = m->drv->driver,
		.driver_name = m->drv->name,
		.device_path = m->device_path,
		.position_path = m->position_path,
		.calibrate_path = m->calibrate_path,
		.format = m->drv->format_text,
		.input_node = m->input_node,
		.interval_ms = m->interval_ms,
		.axes = (unsigned)m->drv->axes,
	};
	return 0;
}

static int sample(struct hws_motion *m, bool wait, struct hws_motion_sample *ret_sample)
{
	uint64_t t;
	int raw[3], r;

	if (!m || !ret_sample)
		return -EINVAL;
	r = wait ? m->ops->wait(m, raw, &t) : m->ops->read(m, raw, &t);
	if (r < 0)
		return r;
	return hws_motion_sample_from_raw(&m->cal, t, raw, ret_sample);
}

int hws_motion_read(struct hws_motion *m, struct hws_motion_sample *ret_sample)
{
	return sample(m, false, ret_sample);
}

int hws_motion_wait(struct hws_motion *m, struct hws_motion_sample *ret_sample)
{
	return sample(m, true, ret_sample);
}

int hws_motion_load_driver_calibration(struct hws_motion *m)
{
	int rest[3], r;

	if (!m)
		return -EINVAL;
	if (!m->drv->calibrate)
		return -EOPNOTSUPP;
	r = read_values(m, m->drv->calibrate, m->drv->calibrate_format, rest);
	if (r < 0)
		return r;
	/* applesmc_calibrate() keeps rest_x negated, for its input device. */
	m->cal.offset[0] = m->drv->calibrate_negates_x ? -rest[0] : rest[0];
	m->cal.offset[1] = rest[1];
	motion_log(m, "driver calibration: x %d, y %d", m->cal.offset[0], m->cal.offset[1]);
	return 0;
}

int hws_motion_calibrate(struct hws_motion *m, unsigned n_samples, struct hws_motion_calibration *ret_cal)
{
	struct hws_motion_calibration cal = { { 0, 0, 0 }, 0 };
	int lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 }, tolerance, r;
	long long sum[3] = { 0, 0, 0 };

	if (!m || n_samples < 1 || n_samples > 1000)
		return -EINVAL;
	for (unsigned n = 0; n < n_samples; n++) {
		struct hws_motion_sample s;

		r = hws_motion_wait(m, &s);
		if (r < 0)
			return r;
		for (int i = 0; i < 3; i++) {
			sum[i] += s.raw[i];
			lo[i] = n == 0 || s.raw[i] < lo[i] ? s.raw[i] : lo[i];
			hi[i] = n == 0 || s.raw[i] > hi[i] ? s.raw[i] : hi[i];
		}
	}
	/* A few counts of noise, or an eighth of g, whichever is more. */
	tolerance = m->cal.counts_per_g / 8 > 3 ? m->cal.counts_per_g / 8 : 3;
	for (int i = 0; i < 3; i++)
		if (hi[i] - lo[i] > tolerance)
			return -EAGAIN;
	for (int i = 0; i < 3; i++) {
		long long v = sum[i] >= 0 ? sum[i] + n_samples / 2 : sum[i] - (long long)(n_samples / 2);

		sum[i] = v / (long long)n_samples;
	}
	cal.offset[0] = (int)sum[0];
	cal.offset[1] = (int)sum[1];
	if (m->drv->axes < 3) {
		cal.counts_per_g = m->cal.counts_per_g;
	} else {
		/* Within about 25 degrees of flat: z^2 > 4 (x^2 + y^2). */
		if (sum[2] <= 0 || sum[2] * sum[2] <= 4 * (sum[0] * sum[0] + sum[1] * sum[1]))
			return -EDOM;
		cal.counts_per_g = (int)sum[2];
	}
	r = hws_motion_set_calibration(m, &cal);
	if (r < 0)
		return r;
	if (ret_cal)
		*ret_cal = cal;
	return 0;
}

int hws_motion_set_calibration(struct hws_motion *m, const struct hws_motion_calibration *cal)
{
	static const int probe[3] = { 0, 0, 0 };
	struct hws_motion_sample s;

	if (!m || !cal)
		return -EINVAL;
	/* One rule for what a valid calibration is: the one that converts. */
	if (hws_motion_sample_from_raw(cal, 0, probe, &s) < 0)
		return -EINVAL;
	m->cal = *cal;
	return 0;
}

int hws_motion_get_calibration(const struct hws_motion *m, struct hws_motion_calibration *ret_cal)
{
	if (!m || !ret_cal)
		return -EINVAL;
	*ret_cal = m->cal;
	return 0;
}
