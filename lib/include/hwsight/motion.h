/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_MOTION_H
#define HWSIGHT_MOTION_H

/*
 * Laptop accelerometers: the Apple Motion Sensor of PowerPC PowerBooks and
 * iBooks (the "ams" driver) and of Intel Macs (the SMC, "applesmc"), the
 * ST LIS3LV02DL family of HP laptops ("lis3lv02d") and the two-axis
 * sensor of IBM and Lenovo ThinkPads ("hdaps").
 *
 * A struct hws_motion context finds the sensor without udev and reads it:
 *  - ams: "/sys/devices/.../ams/current" holds "X Y Z" (signed 8-bit);
 *    when the driver's joystick is on, the "Apple Motion Sensor" input
 *    device delivers the same values as events (the driver polls at 40 Hz
 *    and stays silent while nothing changes), and is used when it exists;
 *  - applesmc: "/sys/devices/platform/applesmc.768/position" holds
 *    "(X,Y,Z)" (signed 16-bit) and "calibrate" the rest position "(X,Y)"
 *    that the driver took when it loaded. Its input device has no Z axis,
 *    so applesmc is always polled;
 *  - lis3lv02d, HP's "3D DriveGuard" (hp_accel): ".../lis3lv02d/position"
 *    holds "(X,Y,Z)" already in mg; its input device "ST LIS3LV02DL
 *    Accelerometer" reports the same values (the driver polls it at
 *    20 Hz) and is used when it exists;
 *  - hdaps: "/sys/devices/platform/hdaps/position" holds "(X,Y)", the
 *    embedded controller's raw counts (about 500 at rest), and
 *    "calibrate" the rest position the driver took. There is no z axis:
 *    samples read z 0 and struct hws_motion_info says axes 2. Its input
 *    device, "hdaps" (mainline: the counts less the rest position, 20 Hz)
 *    or tp_smapi's "ThinkPad HDAPS accelerometer data" (the counts as
 *    they are), is used when it exists.
 * Samples come out calibrated in milli-g (struct hws_motion_calibration).
 *
 * The rest is pure logic that works on any sample: the orientation of the
 * machine, with hysteresis, and a detector of sudden motion and free fall
 * in the manner of hdapsd (velocity, acceleration, a decaying average of
 * the velocity, and a threshold that adapts to steady vibration).
 *
 * Axes are the driver's: x, y and z as the attribute lists them. The
 * orientation names take z to read +1 g with the machine lying flat, face
 * up, and y to rise as its back edge is lifted; the drivers do not
 * document their axes, so that is to be checked on real machines.
 *
 * Contexts and detectors are not thread-safe: use each from one thread, or
 * one work item, at a time. Different ones are independent.
 */

#include <stdbool.h>
#include <stdint.h>

#include <hwsight/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hws_motion_driver {
	HWS_MOTION_AMS,
	HWS_MOTION_APPLESMC,
	HWS_MOTION_LIS3LV02D,
	HWS_MOTION_HDAPS,
};

/* The text formats of the drivers' attributes, for hws_motion_parse(). */
enum hws_motion_format {
	HWS_MOTION_FORMAT_AMS_CURRENT,         /* "X Y Z\n", each -128..127 */
	HWS_MOTION_FORMAT_APPLESMC_POSITION,   /* "(X,Y,Z)\n", each -32768..32767 */
	HWS_MOTION_FORMAT_APPLESMC_CALIBRATE,  /* "(X,Y)\n", each -32768..32767 */
	HWS_MOTION_FORMAT_HDAPS_POSITION,      /* "(X,Y)\n", each -65535..65535 */
};

/* Which edge of the machine points up; the names are iio-sensor-proxy's. */
enum hws_motion_orientation {
	HWS_MOTION_UNDEFINED,
	HWS_MOTION_NORMAL,      /* +y up */
	HWS_MOTION_BOTTOM_UP,   /* -y up */
	HWS_MOTION_LEFT_UP,     /* -x up */
	HWS_MOTION_RIGHT_UP,    /* +x up */
	HWS_MOTION_FACE_UP,     /* +z up: lying on a table */
	HWS_MOTION_FACE_DOWN,   /* -z up */
};

/* Events of the detector, as bits: one sample can bring several. */
enum {
	HWS_MOTION_EVENT_SUDDEN_MOTION  = 1u << 0, /* a movement began */
	HWS_MOTION_EVENT_MOTION_STOPPED = 1u << 1, /* calm again for hold_ms */
	HWS_MOTION_EVENT_FREE_FALL      = 1u << 2, /* weightless for freefall_ms */
	HWS_MOTION_EVENT_FREE_FALL_END  = 1u << 3, /* weight is back (landed) */
};

/*
 * mg = (raw - offset) * 1000 / counts_per_g. The defaults are no offsets
 * and a nominal scale taken from the drivers' input devices, whose ranges
 * their authors set to about one g either way (ams +-50, applesmc +-256).
 */
struct hws_motion_calibration {
	int offset[3];
	int counts_per_g; /* > 0 */
};

struct hws_motion_sample {
	uint64_t time_usec; /* CLOCK_MONOTONIC */
	int raw[3];         /* as the driver reported x, y, z */
	int mg[3];          /* calibrated, in thousandths of g */
};

/* hws_motion_options.flags */
enum {
	/* Poll sysfs even if the sensor's input device exists (hdapsd's -y). */
	HWS_MOTION_POLL_SYSFS = 1u << 0,
};

struct hws_motion_options {
	/* Where sysfs is mounted; NULL means "/sys". With another root the
	 * input device is not looked for, since /dev cannot be guessed. */
	const char *sysfs_root;
	unsigned flags; /* HWS_MOTION_* above */
	/* hws_motion_wait() delivers a sample at least this often: the poll
	 * period in sysfs mode (0 means 20 ms, hdapsd's 50 Hz), the longest
	 * silence in input mode (0 means 100 ms; the input core sends
	 * nothing while the values do not change). 1..10000. */
	unsigned interval_ms;
	/* Debug detail: which device was chosen and why, the text of a value
	 * that did not parse. May be NULL. */
	void (*log)(void *userdata, const char *message);
	void *log_userdata;
};

struct hws_motion_info {
	enum hws_motion_driver driver;
	const char *driver_name;     /* "ams", "applesmc", "lis3lv02d", "hdaps" */
	const char *device_path;     /* the sysfs directory of the device */
	const char *position_path;   /* ".../current" or ".../position" */
	const char *calibrate_path;  /* ".../calibrate" of applesmc and hdaps, else NULL */
	const char *format;          /* what position_path holds: "X Y Z" ... */
	const char *input_node;      /* "/dev/input/event7", NULL when polling */
	unsigned interval_ms;
	unsigned axes;               /* 3, or 2 (x and y; z reads 0): hdaps */
};

struct hws_motion;

/**
 * hws_motion_open - find the motion sensor and get ready to read it
 * @opts: options, or NULL for the defaults
 * @ret_motion: the new context
 *
 * Looks for a device named "ams" with a "current" attribute, then one
 * named "applesmc.*", "lis3lv02d" or "hdaps" with a "position" attribute,
 * in sysfs' platform, faux and top-level device directories. Except for
 * applesmc (whose input device has no z), it then looks for the driver's
 * input device (for ams unless the driver's "joystick" attribute says
 * there is none): below the device in sysfs, else by name among
 * /dev/input/event*. When there is none or it cannot be used (no
 * permission), the context polls sysfs, and the log hook says why.
 * The context starts with the nominal calibration: see
 * hws_motion_load_driver_calibration().
 *
 * Return: 0, -ENODEV if there is no motion sensor, -EINVAL for bad
 * options, or another negative errno.
 */
HWS_EXPORT int hws_motion_open(const struct hws_motion_options *opts,
			       struct hws_motion **ret_motion);

/**
 * hws_motion_close - close the device and free the context
 * @m: context, or NULL
 *
 * Return: NULL.
 */
HWS_EXPORT struct hws_motion *hws_motion_close(struct hws_motion *m);

/**
 * hws_motion_get_info - what was found and how it is read
 * @m: context
 * @ret_info: filled in; its strings live as long as the context
 *
 * Return: 0 or -EINVAL.
 */
HWS_EXPORT int hws_motion_get_info(const struct hws_motion *m, struct hws_motion_info *ret_info);

/**
 * hws_motion_read - one sample, now
 * @m: context
 * @ret_sample: the sample
 *
 * In sysfs mode this reads the position attribute. In input mode it takes
 * every event already queued and returns the latest state, stamped now.
 *
 * Return: 0, -ENODEV if the device vanished, -ENODATA if the attribute
 * was empty, -EBADMSG if it did not hold the driver's format, -ERANGE if a
 * value was out of the driver's range, or another negative errno.
 */
HWS_EXPORT int hws_motion_read(struct hws_motion *m, struct hws_motion_sample *ret_sample);

/**
 * hws_motion_wait - the next sample, for a stream of them
 * @m: context
 * @ret_sample: the sample
 *
 * In sysfs mode this sleeps until the next tick of the interval, reads,
 * and stamps the sample with that tick (after a stall, the latest tick
 * passed), so that samples are evenly spaced. In input mode it returns
 * the next complete set of events, stamped when the driver sent it, or,
 * after a silence of one interval, the unchanged state stamped now, so
 * that a detector fed from it sees time pass.
 *
 * Return: as hws_motion_read(), and -EINTR if a signal handler ran.
 */
HWS_EXPORT int hws_motion_wait(struct hws_motion *m, struct hws_motion_sample *ret_sample);

/**
 * hws_motion_load_driver_calibration - take the driver's rest position
 * @m: context
 *
 * applesmc and hdaps record the x and y they read when they loaded
 * (presumably lying flat) and offer them in "calibrate"; this makes them
 * the offsets of x and y, as the drivers' own input devices do. Writing
 * "calibrate" (as root) makes the driver take them again.
 *
 * Return: 0, -EOPNOTSUPP if the driver keeps no calibration (ams,
 * lis3lv02d), or the
 * errors of hws_motion_read() for the calibrate attribute. On failure the
 * calibration is unchanged.
 */
HWS_EXPORT int hws_motion_load_driver_calibration(struct hws_motion *m);

/**
 * hws_motion_calibrate - measure the rest position
 * @m: context
 * @n_samples: how many samples to average (1..1000), from hws_motion_wait()
 * @ret_cal: the new calibration (may be NULL)
 *
 * The machine must lie still, flat and face up: x and y become the
 * offsets, and z (no offset) becomes counts_per_g. A sensor without z
 * (hdaps) keeps its nominal counts_per_g, and its flatness cannot be
 * checked.
 *
 * Return: 0 and the calibration is in use, -EAGAIN if the machine moved
 * meanwhile, -EDOM if it is not lying face up, or the errors of
 * hws_motion_wait(). On failure the calibration is unchanged.
 */
HWS_EXPORT int hws_motion_calibrate(struct hws_motion *m, unsigned n_samples,
				    struct hws_motion_calibration *ret_cal);

/** hws_motion_set_calibration - use @cal from now on; -EINVAL if invalid */
HWS_EXPORT int hws_motion_set_calibration(struct hws_motion *m,
					  const struct hws_motion_calibration *cal);

/** hws_motion_get_calibration - the calibration in use; 0 or -EINVAL */
HWS_EXPORT int hws_motion_get_calibration(const struct hws_motion *m,
					  struct hws_motion_calibration *ret_cal);

/**
 * hws_motion_parse - parse the text of a driver's attribute
 * @format: which attribute it came from
 * @text: the text, with or without its newline
 * @ret_values: x, y and z (z untouched for the two-value formats), only
 *              on success
 *
 * Blanks around the numbers are accepted; anything else beyond the
 * driver's format is not.
 *
 * Return: the number of values (3, or 2 for applesmc's calibrate and
 * hdaps' position), -ENODATA for
 * empty text, -EBADMSG for text not in the format, -ERANGE for a number
 * the driver cannot print, -EINVAL for bad arguments.
 */
HWS_EXPORT int hws_motion_parse(enum hws_motion_format format, const char *text, int ret_values[3]);

/**
 * hws_motion_sample_from_raw - build a calibrated sample
 * @cal: the calibration
 * @time_usec: when it was taken, CLOCK_MONOTONIC
 * @raw: x, y, z as the driver reported them
 * @ret_sample: the sample
 *
 * Return: 0, or -EINVAL if @cal is invalid.
 */
HWS_EXPORT int hws_motion_sample_from_raw(const struct hws_motion_calibration *cal,
					  uint64_t time_usec, const int raw[3],
					  struct hws_motion_sample *ret_sample);

/**
 * hws_motion_orientation - which edge is up
 * @prev: the orientation returned for the previous sample, or
 *        HWS_MOTION_UNDEFINED
 * @sample: the sample
 *
 * The answer is the direction whose axis carries the most weight. To move
 * away from @prev, the new direction must carry more than the old one by
 * an eighth of g (about 5 degrees past the diagonal), so that a machine
 * held near 45 degrees does not flap between two answers. While the
 * magnitude is outside 0.5..1.5 g (falling, shaken) gravity cannot be told
 * apart and @prev is kept.
 *
 * Return: an enum hws_motion_orientation, or -EINVAL.
 */
HWS_EXPORT int hws_motion_orientation(enum hws_motion_orientation prev,
				      const struct hws_motion_sample *sample);

/** hws_motion_orientation_name - "face-up", "left-up" ...; NULL if out of range */
HWS_EXPORT const char *hws_motion_orientation_name(enum hws_motion_orientation orientation);

/** hws_motion_event_name - "sudden-motion" ... for one HWS_MOTION_EVENT_ bit; NULL otherwise */
HWS_EXPORT const char *hws_motion_event_name(unsigned event);

/*
 * Parameters of the detector. A field left 0 takes its default, so a
 * zeroed struct (or NULL) is the default detector.
 */
struct hws_motion_detector_params {
	/* hdapsd's sensitivity: the larger, the harder to trigger.
	 * Default 15. */
	unsigned threshold;
	/* Do not raise the threshold under steady vibration. */
	bool fixed_threshold;
	/* Below this magnitude the machine is weightless; default 350 mg. */
	unsigned freefall_mg;
	/* ... for this long, to be falling; default 100 ms (5 cm of fall). */
	unsigned freefall_ms;
	/* Motion is over after this long without movement; default 1000 ms. */
	unsigned hold_ms;
	/* The sensor's axes (struct hws_motion_info): 3, or 2 when it has
	 * no z (hdaps), whose free fall cannot be told from lying flat and
	 * is not reported. 0 means 3. */
	unsigned axes;
};

struct hws_motion_detector_state {
	bool moving;         /* SUDDEN_MOTION reported, MOTION_STOPPED not yet */
	bool falling;        /* FREE_FALL reported, FREE_FALL_END not yet */
	double threshold;    /* now; rises above the base when adapting */
	double score;        /* the last sample's movement, in threshold units */
};

struct hws_motion_detector;

/**
 * hws_motion_detector_new - a detector of sudden motion and free fall
 * @params: parameters, or NULL for the defaults
 * @ret_detector: the new detector
 *
 * Return: 0, -EINVAL if a parameter is out of range (threshold over
 * 1000, freefall_mg over 1000, a time over 60000 ms, axes not 0, 2 or
 * 3), or -ENOMEM.
 */
HWS_EXPORT int hws_motion_detector_new(const struct hws_motion_detector_params *params,
				       struct hws_motion_detector **ret_detector);

/** hws_motion_detector_free - free a detector; accepts NULL; returns NULL */
HWS_EXPORT struct hws_motion_detector *hws_motion_detector_free(struct hws_motion_detector *d);

/**
 * hws_motion_detector_feed - give the detector the next sample
 * @d: detector
 * @sample: the sample; its time must advance
 *
 * Movement is measured from the change between samples: its velocity
 * (change per second, over the last two sampling intervals, so that a
 * sample taken early or late does not make a sway look like a jolt), its
 * acceleration (change of that) and a decaying average of the velocity
 * over about 0.3 s, each against the threshold.
 * Each axis first goes through a backlash of one count of the sensor
 * (learnt as the smallest change seen), so that the flicker of its last
 * bit at rest is not movement.
 * The first two catch knocks and shakes, the average slow sweeping moves.
 * After a gap of more than a second, or time that does not advance (a
 * suspend, a restarted stream), the history starts again from that
 * sample, which cannot trigger; a fall is timed afresh too. Unless the threshold is fixed, movement near it
 * that goes on for three seconds or more raises it by a tenth each second,
 * up to four times the base, and calm lowers it again.
 *
 * Return: the HWS_MOTION_EVENT_ bits of this sample (0 for none), or
 * -EINVAL.
 */
HWS_EXPORT int hws_motion_detector_feed(struct hws_motion_detector *d,
					const struct hws_motion_sample *sample);

/** hws_motion_detector_get_state - the detector's state; 0 or -EINVAL */
HWS_EXPORT int hws_motion_detector_get_state(const struct hws_motion_detector *d,
					     struct hws_motion_detector_state *ret_state);

#ifdef __cplusplus
}
#endif

#endif
