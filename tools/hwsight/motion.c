/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight motion: the Apple Motion Sensor's readings, the machine's
 * orientation and its motion events, live.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsight/motion.h>

#include "commands.h"
#include "interrupt.h"
#include "options.h"

#define PREFIX "hwsight motion: "

struct motion_args {
	bool once, json, verbose, calibrate;
	long count;                 /* samples; 0 means until interrupted */
	struct hws_motion_options opts;
	struct hws_motion_detector_params params;
};

enum { OPT_FIXED = 256, OPT_POLL, OPT_CALIBRATE, OPT_SYSFS };

static const struct hws__cli_command command = {
	.name = "motion",
	.head = "Usage: hwsight motion [OPTION...]\n"
		"Show the motion sensor's readings (ams, applesmc or lis3lv02d), in thousandths\n"
		"of g, the machine's orientation, and sudden motion and free fall.\n"
		"\n",
	.options = TOOL_OPTIONS(
		{ "once", '1', NULL, "print one sample and exit" },
		{ "count", 'n', "N", "stop after N samples" },
		{ "interval", 'i', "MS",
		  "a sample at least every MS ms (1-10000; default\n"
		  "20 when polling sysfs, 100 from the input device;\n"
		  "the detector is tuned for 20-50 ms)" },
		{ "json", 'j', NULL, "one JSON object per line" },
		{ "sensitivity", 's', "N",
		  "detector threshold, larger is less sensitive\n"
		  "(1-1000, default 15, as hdapsd's)" },
		{ "fixed-threshold", OPT_FIXED, NULL, "do not raise the threshold under steady vibration" },
		{ "poll", OPT_POLL, NULL, "poll sysfs even if the ams input device exists" },
		{ "calibrate", OPT_CALIBRATE, NULL,
		  "first measure the rest position (one second; the\n"
		  "machine must lie still, flat and face up)" },
		{ "sysfs", OPT_SYSFS, "DIR", "look for the sensor under DIR, not /sys" },
		{ "verbose", 'v', NULL, "say which device is read, and how" }),
	.column = 26,
	.arg_sep = '=',
	.tail = "\n"
		"Exit status: 0 on success, 1 if the sensor is missing or cannot be read,\n"
		"2 for bad options.\n",
	.own_errors = true,
};

/* The value of -n, -i or -s: a whole number from @min to @max, or a
 * message that names the option (@what) and what it takes. */
static int number_arg(const char *arg, long min, long max, const char *what, const char *expected, long *ret)
{
	if (tool_parse_long(arg, min, max, ret) < 0) {
		fprintf(stderr, PREFIX "invalid %s '%s' (expected %s)\n", what, arg, expected);
		return -EINVAL;
	}
	return 0;
}

/* number_arg() for -i and -s, which the library takes as unsigned. */
static int unsigned_arg(const char *arg, long max, const char *what, const char *expected, unsigned *ret)
{
	long v;
	int r = number_arg(arg, 1, max, what, expected, &v);

	if (r == 0)
		*ret = (unsigned)v;
	return r;
}

static int parse_args(int argc, char **argv, struct motion_args *a)
{
	int c;

	while ((c = hws__cli_next_option(&command, argc, argv)) != -1) {
		switch (c) {
		case '1': a->once = true; break;
		case 'n':
			if (number_arg(optarg, 1, LONG_MAX, "count", "a whole number from 1", &a->count) < 0)
				return 2;
			break;
		case 'i':
			if (unsigned_arg(optarg, 10000, "interval", "1 to 10000 ms", &a->opts.interval_ms) < 0)
				return 2;
			break;
		case 'j': a->json = true; break;
		case 's':
			if (unsigned_arg(optarg, 1000, "sensitivity", "1 to 1000", &a->params.threshold) < 0)
				return 2;
			break;
		case OPT_FIXED: a->params.fixed_threshold = true; break;
		case OPT_POLL: a->opts.flags |= HWS_MOTION_POLL_SYSFS; break;
		case OPT_CALIBRATE: a->calibrate = true; break;
		case OPT_SYSFS: a->opts.sysfs_root = optarg; break;
		case 'v': a->verbose = true; break;
		case 'h':
			hws__cli_usage(stdout, &command);
			return 0;
		case ':':
			fprintf(stderr, PREFIX "option '%s' needs a value; see 'hwsight motion --help'\n",
				argv[optind - 1]);
			return 2;
		default:
			if (optopt)
				fprintf(stderr, PREFIX "unknown option '-%c'; see 'hwsight motion --help'\n", optopt);
			else
				fprintf(stderr, PREFIX "unknown option '%s'; see 'hwsight motion --help'\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PREFIX "unexpected argument '%s'; see 'hwsight motion --help'\n", argv[optind]);
		return 2;
	}
	if (a->once && a->count) {
		fprintf(stderr, PREFIX "--once and --count do not go together\n");
		return 2;
	}
	return -1;
}

static void log_to_stderr(void *userdata, const char *message)
{
	(void)userdata;
	fprintf(stderr, PREFIX "%s\n", message);
}

/* One line: what failed, on what, and what to do. */
static void read_error(const char *path, const char *format, int r)
{
	switch (r) {
	case -ENODEV:
		fprintf(stderr, PREFIX "%s: the device is gone (driver unloaded or hardware removed)\n", path);
		break;
	case -ENODATA:
		fprintf(stderr, PREFIX "%s: empty value (expected \"%s\")\n", path, format);
		break;
	case -EBADMSG:
		fprintf(stderr, PREFIX "%s: malformed value (expected \"%s\"); run with -v to see it\n",
			path, format);
		break;
	case -ERANGE:
		fprintf(stderr, PREFIX "%s: value out of the driver's range (expected \"%s\")\n", path, format);
		break;
	default:
		fprintf(stderr, PREFIX "%s: %s\n", path, strerror(-r));
	}
}

static int calibrate(struct hws_motion *m, const struct hws_motion_info *info)
{
	struct hws_motion_calibration cal;
	int r;

	fprintf(stderr, PREFIX "calibrating: keep the machine still, flat and face up\n");
	r = hws_motion_calibrate(m, 1000 / info->interval_ms + 1, &cal);
	if (r == -EAGAIN)
		fprintf(stderr, PREFIX "the machine moved while calibrating; keep it still and try again\n");
	else if (r == -EDOM)
		fprintf(stderr, PREFIX "the machine is not lying flat and face up; lay it so and try again\n");
	else if (r < 0)
		read_error(info->position_path, info->format, r);
	else
		fprintf(stderr, PREFIX "calibrated: offsets %d %d %d, %d counts per g\n",
			cal.offset[0], cal.offset[1], cal.offset[2], cal.counts_per_g);
	return r;
}

/* A sensor without z (hdaps) prints "-" for it, and null in JSON. */
static void print_sample(const struct motion_args *a, const struct hws_motion_sample *s,
			 double t, int orientation, unsigned axes)
{
	const char *name = hws_motion_orientation_name((enum hws_motion_orientation)orientation);
	char raw_z[16] = "null", mg_z[16] = "null";

	if (axes > 2) {
		snprintf(raw_z, sizeof(raw_z), "%d", s->raw[2]);
		snprintf(mg_z, sizeof(mg_z), "%d", s->mg[2]);
	}
	if (a->json)
		printf("{\"time\":%.3f,\"raw\":[%d,%d,%s],\"mg\":[%d,%d,%s],\"orientation\":\"%s\"}\n",
		       t, s->raw[0], s->raw[1], raw_z, s->mg[0], s->mg[1], mg_z, name);
	else
		printf("x=%5d y=%5d z=%5s mg  %s\n", s->mg[0], s->mg[1], axes > 2 ? mg_z : "-", name);
}

static void print_events(const struct motion_args *a, unsigned events, double t)
{
	for (unsigned bit = 1; bit && bit <= events; bit <<= 1) {
		if (!(events & bit))
			continue;
		if (a->json)
			printf("{\"time\":%.3f,\"event\":\"%s\"}\n", t, hws_motion_event_name(bit));
		else
			printf("event: %s at %.3f s\n", hws_motion_event_name(bit), t);
	}
}

static int run(const struct motion_args *a, struct hws_motion *m, const struct hws_motion_info *info)
{
	struct hws_motion_detector_params params = a->params;
	struct hws_motion_detector *d = NULL;
	int orientation = HWS_MOTION_UNDEFINED, r;
	uint64_t t0 = 0;

	params.axes = info->axes;
	r = hws_motion_detector_new(&params, &d);
	if (r < 0) {
		fprintf(stderr, PREFIX "cannot set up the detector: %s\n", strerror(-r));
		return 1;
	}
	tool_catch_interrupts(); /* the wait returns -EINTR, the loop ends cleanly */
	for (long n = 0; !tool_interrupted() && (a->once ? n < 1 : !a->count || n < a->count); n++) {
		struct hws_motion_sample s;
		double t;

		r = a->once ? hws_motion_read(m, &s) : hws_motion_wait(m, &s);
		if (r == -EINTR) {
			n--;
			r = 0;
			continue;
		}
		if (r < 0) {
			read_error(info->position_path, info->format, r);
			break;
		}
		if (n == 0) {
			/* Only once something was read: an error stays alone. */
			if (!a->json && !a->once)
				printf("%s at %s, %s\n", info->driver_name, info->device_path,
				       info->input_node ? info->input_node : "polling sysfs");
			t0 = s.time_usec;
		}
		t = (double)(s.time_usec - t0) / 1e6;
		orientation = hws_motion_orientation((enum hws_motion_orientation)orientation, &s);
		print_sample(a, &s, t, orientation, info->axes);
		r = hws_motion_detector_feed(d, &s);
		if (r > 0)
			print_events(a, (unsigned)r, t);
		r = 0;
		fflush(stdout);
	}
	hws_motion_detector_free(d);
	return r < 0 ? 1 : 0;
}

int hws_cmd_motion(int argc, char **argv)
{
	struct motion_args a = { 0 };
	struct hws_motion_info info;
	struct hws_motion *m = NULL;
	int r;

	r = parse_args(argc, argv, &a);
	if (r >= 0)
		return r;
	if (a.verbose)
		a.opts.log = log_to_stderr;

	r = hws_motion_open(&a.opts, &m);
	if (r == -ENODEV) {
		fprintf(stderr, PREFIX "no motion sensor found (looked for ams, applesmc and lis3lv02d)\n");
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, PREFIX "cannot open the motion sensor: %s\n", strerror(-r));
		return 1;
	}
	hws_motion_get_info(m, &info);
	r = hws_motion_load_driver_calibration(m);
	if (r < 0 && r != -EOPNOTSUPP) {
		read_error(info.calibrate_path, "(X,Y)", r);
		hws_motion_close(m);
		return 1;
	}
	if (a.calibrate && calibrate(m, &info) < 0) {
		hws_motion_close(m);
		return 1;
	}
	r = run(&a, m, &info);
	hws_motion_close(m);
	return r;
}
