/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight capture: frames from a V4L2 camera, paced on the 300 Hz grid,
 * to image files or to stdout as a raw stream.
 */
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hwsight/camera.h>
#include <hwsight/image.h>

#include "time-util.h"

#include "commands.h"
#include "interrupt.h"
#include "options.h"
#include "output.h"

struct options {
	const char *device;
	uint32_t width, height, fourcc;
	struct hws_fract interval;
	const char *fps_text;
	long count;              /* -1: until interrupted */
	long skip;
	const char *output;      /* NULL: none, "-": raw to stdout */
	const char *stats;       /* NULL, "-" or a file */
	int quality;
	int timeout_ms;
	bool convert;
};

enum { OPT_FPS = 256, OPT_SKIP, OPT_STATS, OPT_CONVERT, OPT_TIMEOUT };

static const struct hws__cli_command command = {
	.name = "capture",
	.head = "Usage: hwsight capture [OPTION...]\n"
		"Capture frames from a V4L2 camera, paced on the 300 Hz grid.\n\n",
	.options = TOOL_OPTIONS(
		{ "device", 'd', "DEV", "the camera (default: the first one)" },
		{ "size", 's', "WxH", "frame size, e.g. 640x480" },
		{ "format", 'f', "FOURCC", "pixel format, e.g. YUYV, MJPG, RGB3, XR15-BE" },
		{ "fps", OPT_FPS, "RATE",
		  "frame rate: 25, 30, 12.5 or 75/2; it must be 300 Hz-friendly\n"
		  "(a whole number of 1/300 s ticks per frame)" },
		{ "count", 'n', "N", "frames to keep (default 1 with an image -o,\nelse until interrupted)" },
		{ "skip", OPT_SKIP, "N", "discard the first N frames (sensor warm-up)" },
		{ "output", 'o', "PATTERN",
		  "frame-%04d.jpg, .ppm, .png, .jpg or .raw; - for a raw\n"
		  "stream on stdout (or to a FIFO or device: /dev/null)" },
		{ "stats", OPT_STATS, "FILE", "write the pacing statistics as JSON at the end (- for stdout)" },
		{ "quality", 'q', "Q", "JPEG quality 1-100 (default 85)" },
		{ "convert", OPT_CONVERT, NULL, "let libv4lconvert make a format the camera lacks" },
		{ "timeout", OPT_TIMEOUT, "MS", "give up when no frame comes for MS ms (default 2000)" }),
	.column = 24,
};

/* "YUYV", "Y16", or "XR15-BE" for the big-endian variant, as v4l2-ctl
 * and `hwsight cameras` write them. */
static int parse_fourcc(const char *s, uint32_t *ret)
{
	char c[4] = { ' ', ' ', ' ', ' ' };
	size_t n = strlen(s);
	bool be = n > 3 && !strcmp(s + n - 3, "-BE");

	if (be)
		n -= 3;
	if (n < 1 || n > 4)
		return -1;
	memcpy(c, s, n);
	*ret = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
	if (be)
		*ret |= 1u << 31; /* as v4l2_fourcc_be() */
	return 0;
}

/* An output pattern may hold at most one integer conversion (%d, %04d,
 * %u ...) for the frame number; %% is a percent sign. */
static int check_pattern(const char *p, bool *ret_numbered)
{
	int conversions = 0;

	for (; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		p++;
		while (*p == '0' || *p == '-' || *p == ' ' || *p == '+')
			p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p != 'd' && *p != 'i' && *p != 'u')
			return -1;
		conversions++;
	}
	if (conversions > 1)
		return -1;
	*ret_numbered = conversions == 1;
	return 0;
}

static bool is_stream(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static double fps_of(struct hws_fract interval)
{
	return interval.num ? (double)interval.den / interval.num : 0;
}

static void suggest_rates(struct hws_fract want)
{
	struct hws_fract slower, faster;

	hws_friendly_neighbours(want, &slower, &faster);
	fprintf(stderr, "hwsight capture: %.3f fps is not 300 Hz-friendly (not a whole number of 1/300 s"
		" ticks); nearest: ", fps_of(want));
	if (faster.num)
		fprintf(stderr, "%.3f fps (%ld ticks) or ", fps_of(faster), hws_interval_ticks(faster));
	fprintf(stderr, "%.3f fps (%ld ticks)\n", fps_of(slower), hws_interval_ticks(slower));
}

static int parse_args(int argc, char **argv, struct options *o)
{
	long v;
	int c;

	while ((c = hws__cli_next_option(&command, argc, argv)) != -1) {
		switch (c) {
		case 'd': o->device = optarg; break;
		case 's': {
			unsigned w, h;
			char tail;
			if (sscanf(optarg, "%ux%u%c", &w, &h, &tail) != 2 || !w || !h || w > 16384 || h > 16384) {
				fprintf(stderr, "hwsight capture: -s takes WIDTHxHEIGHT, e.g. 640x480, not '%s'\n", optarg);
				return -1;
			}
			o->width = w;
			o->height = h;
			break;
		}
		case 'f':
			if (parse_fourcc(optarg, &o->fourcc) < 0) {
				fprintf(stderr, "hwsight capture: -f takes a fourcc of 1-4 characters, e.g. YUYV, not '%s'\n", optarg);
				return -1;
			}
			break;
		case OPT_FPS:
			if (hws_fps_parse(optarg, &o->interval) < 0) {
				fprintf(stderr, "hwsight capture: --fps takes a rate like 25, 29.97 or 30000/1001, not '%s'\n", optarg);
				return -1;
			}
			o->fps_text = optarg;
			break;
		case 'n':
			if (tool_parse_long(optarg, 1, LONG_MAX, &o->count) < 0) {
				fprintf(stderr, "hwsight capture: -n takes a positive count, not '%s'\n", optarg);
				return -1;
			}
			break;
		case OPT_SKIP:
			if (tool_parse_long(optarg, 0, 1000000, &o->skip) < 0) {
				fprintf(stderr, "hwsight capture: --skip takes a count of frames, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'o': o->output = optarg; break;
		case OPT_STATS: o->stats = optarg; break;
		case 'q':
			if (tool_parse_long(optarg, 1, 100, &v) < 0) {
				fprintf(stderr, "hwsight capture: -q takes a JPEG quality from 1 to 100, not '%s'\n", optarg);
				return -1;
			}
			o->quality = (int)v;
			break;
		case OPT_CONVERT: o->convert = true; break;
		case OPT_TIMEOUT:
			if (tool_parse_long(optarg, 1, 3600000, &v) < 0) {
				fprintf(stderr, "hwsight capture: --timeout takes milliseconds, not '%s'\n", optarg);
				return -1;
			}
			o->timeout_ms = (int)v;
			break;
		default: /* -h too */
			return hws__cli_help_or_usage_error(c, &command);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwsight capture: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->interval.num && !hws_interval_is_friendly(o->interval)) {
		suggest_rates(o->interval);
		return -1;
	}
	return 0;
}

/* What the camera can do, for the error that says it cannot do this. */
static void list_supported(const char *device, bool with_rates)
{
	struct hws_camera_mode *modes;
	char fcc[8];
	int n;

	n = hws_camera_modes(device, &modes);
	if (n <= 0)
		return;
	fprintf(stderr, "hwsight capture: %s supports:\n", device);
	for (int i = 0; i < n; i++) {
		tool_fourcc_str(modes[i].fourcc, fcc);
		fprintf(stderr, "  %s %ux%u", fcc, modes[i].width, modes[i].height);
		if (with_rates)
			for (size_t k = 0; k < modes[i].n_intervals; k++)
				fprintf(stderr, "%s%.3f%s", k ? ", " : "  fps: ", fps_of(modes[i].intervals[k]),
					hws_interval_is_friendly(modes[i].intervals[k]) ? "*" : "");
		fputc('\n', stderr);
	}
	if (with_rates)
		fputs("  (* 300 Hz-friendly)\n", stderr);
	hws_camera_modes_free(modes, (size_t)n);
}

static const char *open_error(int r)
{
	switch (-r) {
	case ENOENT: return "no such device";
	case EACCES: return "permission denied (join the video group, or run as root)";
	case EBUSY: return "device busy (another program is capturing); close it or pick another with -d";
	case ENODEV: return "not a video capture device";
	case ENOTTY: return "not a V4L2 device";
	case ENOBUFS: return "the driver granted fewer than the 2 buffers streaming needs";
	default: return strerror(-r);
	}
}

static int first_camera(const char **ret, char *buf, size_t size)
{
	struct hws_camera_info *list;
	int n = hws_camera_list(&list);

	if (n <= 0) {
		fprintf(stderr, "hwsight capture: no V4L2 capture device found%s\n",
			n < 0 ? " (cannot list devices)" : "");
		return -1;
	}
	snprintf(buf, size, "%s", list[0].devnode);
	free(list);
	*ret = buf;
	return 0;
}

static int write_all(int fd, const void *data, size_t size)
{
	const char *p = data;

	while (size) {
		ssize_t n = write(fd, p, size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

static void write_stats(const struct options *o, const char *device, const struct hws_capture_setup *setup,
			const struct hws_capture_stats *st, long written, const char *result)
{
	FILE *f = stdout;
	char fcc[8], dev_fcc[8];

	if (!o->stats)
		return;
	if (strcmp(o->stats, "-") && !(f = fopen(o->stats, "we"))) {
		fprintf(stderr, "hwsight capture: %s: cannot write the statistics: %s\n", o->stats, strerror(errno));
		return;
	}
	tool_fourcc_str(setup->fourcc, fcc);
	tool_fourcc_str(setup->device_fourcc, dev_fcc);
	fputs("{\n  \"device\": ", f);
	tool_json_string(f, device);
	fprintf(f, ",\n  \"width\": %u,\n  \"height\": %u,\n  \"fourcc\": \"%s\",\n",
		setup->width, setup->height, fcc);
	/* What the camera sent, and whether libv4lconvert made the frames
	 * from it: a check can tell which road a format took. */
	fprintf(f, "  \"device_fourcc\": \"%s\",\n  \"converting\": %s,\n", dev_fcc,
		setup->converting ? "true" : "false");
	fprintf(f, "  \"driver_interval\": { \"num\": %u, \"den\": %u, \"fps\": %.3f },\n",
		st->driver_interval.num, st->driver_interval.den, fps_of(st->driver_interval));
	fprintf(f, "  \"target_interval\": { \"num\": %u, \"den\": %u, \"fps\": %.3f, \"ticks\": %ld },\n",
		st->target_interval.num, st->target_interval.den, fps_of(st->target_interval),
		st->target_interval.num ? hws_interval_ticks(st->target_interval) : 0L);
	fprintf(f, "  \"decimating\": %s,\n", setup->decimating ? "true" : "false");
	fprintf(f, "  \"delivered\": %llu,\n  \"dropped\": %llu,\n  \"decimated\": %llu,\n  \"kept\": %llu,\n",
		(unsigned long long)st->delivered, (unsigned long long)st->dropped,
		(unsigned long long)st->decimated, (unsigned long long)st->kept);
	fprintf(f, "  \"written\": %ld,\n", written);
	fprintf(f, "  \"mean_interval_ms\": %.3f,\n  \"jitter_ms\": %.3f,\n", st->mean_interval_ms, st->jitter_ms);
	fprintf(f, "  \"mean_interval_ticks\": %.3f,\n  \"jitter_ticks\": %.3f,\n",
		st->mean_interval_ticks, st->jitter_ticks);
	fprintf(f, "  \"result\": \"%s\"\n}\n", result);
	if (f != stdout && fclose(f) != 0)
		fprintf(stderr, "hwsight capture: %s: cannot write the statistics: %s\n", o->stats, strerror(errno));
}

static void status_line(const struct hws_camera *cam, long written, bool final)
{
	struct hws_capture_stats st;

	hws_camera_stats(cam, &st);
	fprintf(stderr, "\r%ld frames  %.2f fps  %llu dropped  %llu decimated   %s", written,
		st.mean_interval_ms > 0 ? 1000.0 / st.mean_interval_ms : 0.0,
		(unsigned long long)st.dropped, (unsigned long long)st.decimated, final ? "\n" : "");
}

int hws_cmd_capture(int argc, char **argv)
{
	struct options o = { .count = 0, .quality = 85, .timeout_ms = 2000 };
	struct hws_image_encoder *enc = NULL;
	struct hws_camera *cam = NULL;
	struct hws_capture_setup setup = { 0 };
	struct hws_capture_request req = { 0 };
	struct hws_capture_stats st;
	enum hws_image_type type = HWS_IMAGE_RAW;
	const char *result = "ok";
	char devbuf[64], path[PATH_MAX];
	uint32_t accept[256];
	bool numbered = false, to_stdout, status, wrote_any = false;
	long written = 0, seen = 0;
	int stream_fd = STDOUT_FILENO;
	uint64_t last_status = 0;
	int r, status_code = 0;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	to_stdout = o.output && !strcmp(o.output, "-");
	if (to_stdout && o.stats && !strcmp(o.stats, "-")) {
		fprintf(stderr, "hwsight capture: -o - and --stats - would mix the statistics into the video;"
			" give --stats a file\n");
		return 2;
	}
	if (o.output && !to_stdout && is_stream(o.output)) {
		/* /dev/null, a FIFO, a terminal: the raw stream goes there. */
		stream_fd = open(o.output, O_WRONLY | O_CLOEXEC);
		if (stream_fd < 0) {
			fprintf(stderr, "hwsight capture: %s: %s\n", o.output, strerror(errno));
			return 1;
		}
		to_stdout = true;
	}
	if (o.output && !to_stdout) {
		if (check_pattern(o.output, &numbered) < 0) {
			fprintf(stderr, "hwsight capture: -o takes a file name with at most one %%d for the frame"
				" number, not '%s'\n", o.output);
			return 2;
		}
		if (hws_image_type_from_path(o.output, &type) < 0) {
			fprintf(stderr, "hwsight capture: %s: the extension must be .ppm, .png, .jpg or .raw\n", o.output);
			return 2;
		}
	}
	if (!o.count)
		o.count = o.output && !to_stdout ? 1 : -1;
	if (!o.device && first_camera(&o.device, devbuf, sizeof(devbuf)) < 0)
		return 1;

	r = hws_camera_open(o.device, &cam);
	if (r < 0) {
		fprintf(stderr, "hwsight capture: %s: %s\n", o.device, open_error(r));
		return 1;
	}
	req = (struct hws_capture_request){
		.width = o.width, .height = o.height, .fourcc = o.fourcc,
		.interval = o.interval, .convert = o.convert,
	};
	if (o.output && !to_stdout && type != HWS_IMAGE_RAW) {
		/* Images need frames the encoder takes; libv4lconvert makes
		 * them when the camera's cannot be. */
		req.accept = accept;
		req.n_accept = hws_image_formats(accept, sizeof(accept) / sizeof(accept[0]));
		if (req.n_accept > sizeof(accept) / sizeof(accept[0]))
			req.n_accept = sizeof(accept) / sizeof(accept[0]);
	}
	r = hws_camera_negotiate(cam, &req, &setup);
	if (r == -EOPNOTSUPP) {
		char fcc[8] = "these";

		if (o.fourcc)
			tool_fourcc_str(o.fourcc, fcc);
		fprintf(stderr, "hwsight capture: %s: cannot make %s images from %s frames, and libv4lconvert"
			" cannot convert them either; choose another -f, or .raw\n", o.device, o.output, fcc);
	} else if (r == -EINVAL) {
		char fcc[8];

		fprintf(stderr, "hwsight capture: %s: cannot capture", o.device);
		if (o.fourcc) {
			tool_fourcc_str(o.fourcc, fcc);
			fprintf(stderr, " %s", fcc);
		}
		if (o.width)
			fprintf(stderr, " at %ux%u", o.width, o.height);
		fputs(o.fourcc && !o.convert ? " (--convert lets libv4lconvert make formats the camera lacks)\n" : "\n",
		      stderr);
		list_supported(o.device, false);
	} else if (r == -ERANGE) {
		fprintf(stderr, "hwsight capture: %s: cannot reach %s fps, even by skipping frames\n", o.device, o.fps_text);
		list_supported(o.device, true);
	} else if (r == -EDOM) {
		suggest_rates(o.interval);
	} else if (r < 0) {
		fprintf(stderr, "hwsight capture: %s: %s\n", o.device, open_error(r));
	}
	if (r < 0)
		goto out_close;
	if (o.output && !to_stdout && (r = hws_image_encoder_new(&enc)) < 0) {
		fprintf(stderr, "hwsight capture: %s\n", strerror(-r));
		goto out_close;
	}

	tool_catch_interrupts(); /* poll() returns EINTR */
	signal(SIGPIPE, SIG_IGN);
	r = hws_camera_start(cam);
	if (r < 0) {
		fprintf(stderr, "hwsight capture: %s: cannot start streaming: %s\n", o.device, open_error(r));
		goto out_close;
	}
	status = isatty(STDERR_FILENO) && !to_stdout;
	while (!tool_interrupted() && (o.count < 0 || written < o.count)) {
		struct hws_frame frame;

		r = hws_camera_next(cam, o.timeout_ms, &frame);
		if (r == -EINTR || tool_interrupted()) {
			result = "interrupted";
			r = 0;
			break;
		}
		if (r == -ETIMEDOUT) {
			fprintf(stderr, "%shwsight capture: %s: no frame within %d ms\n", status ? "\n" : "", o.device,
				o.timeout_ms);
			result = "timeout";
			break;
		}
		if (r == -ENODEV) {
			fprintf(stderr, "%shwsight capture: %s: device disconnected; stopped after %ld frames\n",
				status ? "\n" : "", o.device, written);
			result = "disconnected";
			break;
		}
		if (r < 0) {
			fprintf(stderr, "%shwsight capture: %s: %s\n", status ? "\n" : "", o.device, strerror(-r));
			result = "error";
			break;
		}
		if (seen++ < o.skip)
			continue;
		if (to_stdout)
			r = write_all(stream_fd, frame.data, frame.size);
		else if (enc) {
			if (numbered)
				snprintf(path, sizeof(path), o.output, (int)written);
			else
				snprintf(path, sizeof(path), "%s", o.output);
			r = hws_image_save(enc, path, &frame, type, o.quality);
		}
		if (r == -EPIPE) {
			result = "output closed";
			r = 0;
			break;
		}
		if (r < 0) {
			fprintf(stderr, "%shwsight capture: %s: %s%s\n", status ? "\n" : "", to_stdout ? "stdout" : path,
				strerror(-r), written ? "; the frames before it are complete" : "");
			result = r == -ENOSPC ? "disk full" : "write error";
			break;
		}
		written++;
		wrote_any = true;
		if (status && hws__now_ms() - last_status >= 1000) {
			status_line(cam, written, false);
			last_status = hws__now_ms();
		}
	}
	if (status && wrote_any)
		status_line(cam, written, true);
	hws_camera_stop(cam);
	hws_camera_stats(cam, &st);
	write_stats(&o, o.device, &setup, &st, written, result);
	status_code = strcmp(result, "ok") && strcmp(result, "interrupted") && strcmp(result, "output closed");
	r = 0;
out_close:
	if (stream_fd != STDOUT_FILENO)
		close(stream_fd);
	hws_image_encoder_free(enc);
	hws_camera_close(cam);
	return r < 0 || status_code ? 1 : 0;
}
