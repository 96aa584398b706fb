/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsightd.conf as the daemon reads it: inih splits the bytes into
 * sections and keys, daemon/config.c gives them meaning (durations, frame
 * rates through hws_fps_parse(), chip name patterns through libsensors,
 * sizes, booleans, disk lists). Either the config is refused with
 * "NAME:LINE: reason" naming a line the file has, or every value in it is
 * one hwsightd.conf(5) allows. The same text also goes straight to the
 * value parsers the config uses, as one value.
 */
#include <errno.h>
#include <math.h>
#include <syslog.h>

#include <hwsight/camera.h>

#include "config.h"
#include "log.h"

#include "fuzz.h"

#define NAME "fuzz.conf"
#define DAY_MS (24u * 3600000u)

static bool only(const char *s, const char *allowed)
{
	return strspn(s, allowed) == strlen(s);
}

static void check_config(const struct hwsd_config *c)
{
	FUZZ_CHECK(c->path && !strcmp(c->path, NAME), "path %s", c->path ? c->path : "(null)");
	FUZZ_CHECK(c->poll_ms >= 100 && c->poll_ms <= DAY_MS, "poll_interval %u ms", c->poll_ms);
	FUZZ_CHECK(c->reader == HWS_READER_FAST || c->reader == HWS_READER_PREAD ||
		   c->reader == HWS_READER_LIBSENSORS, "reader %d", c->reader);
	FUZZ_CHECK(!c->sensors_config || *c->sensors_config, "an empty sensors_config");
	FUZZ_CHECK(!c->state_dir || c->state_dir[0] == '/', "state_directory %s", c->state_dir);
	FUZZ_CHECK(!c->exec || *c->exec, "an empty exec");
	FUZZ_CHECK(!c->listen || strchr(c->listen, ':'), "listen %s", c->listen);
	FUZZ_CHECK(!c->http.tls_cert_file == !c->http.tls_key_file, "a TLS certificate without its key");
	FUZZ_CHECK(!hwsd_config_exposed_cameras(c, c->listen), "cameras served beyond loopback on %s, no password",
		   c->listen);
	FUZZ_CHECK(c->log_target == HWSD_LOG_AUTO || c->log_target == HWSD_LOG_JOURNAL ||
		   c->log_target == HWSD_LOG_STDERR, "log_target %d", c->log_target);
	FUZZ_CHECK(c->log_level >= LOG_CRIT && c->log_level <= LOG_DEBUG, "log_level %d", c->log_level);

	for (size_t i = 0; i < c->n_chips; i++) {
		const struct hwsd_chip_conf *chip = &c->chips[i];

		FUZZ_CHECK(chip->pattern && *chip->pattern, "chip %zu has no pattern", i);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(c->chips[j].pattern, chip->pattern), "[chip %s] twice", chip->pattern);
		FUZZ_CHECK(chip->poll_ms == 0 || (chip->poll_ms >= 100 && chip->poll_ms <= DAY_MS),
			   "[chip %s] poll_interval %u ms", chip->pattern, chip->poll_ms);
		FUZZ_CHECK(isfinite(chip->hysteresis) && chip->hysteresis >= 0, "[chip %s] hysteresis %g",
			   chip->pattern, chip->hysteresis);
		for (size_t t = 0; t < chip->n_thresholds; t++)
			FUZZ_CHECK(chip->thresholds[t].feature && *chip->thresholds[t].feature &&
				   isfinite(chip->thresholds[t].limit), "[chip %s] threshold %zu",
				   chip->pattern, t);
	}
	for (size_t i = 0; i < c->n_cameras; i++) {
		const struct hwsd_camera_conf *cam = &c->cameras[i];

		FUZZ_CHECK(cam->name && *cam->name &&
			   only(cam->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"),
			   "camera name \"%s\"", cam->name);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(c->cameras[j].name, cam->name), "[camera %s] twice", cam->name);
		FUZZ_CHECK(cam->device && cam->device[0] == '/', "[camera %s] device %s", cam->name,
			   cam->device ? cam->device : "(none)");
		FUZZ_CHECK(!cam->directory || cam->directory[0] == '/', "[camera %s] directory %s", cam->name,
			   cam->directory);
		FUZZ_CHECK((cam->width == 0) == (cam->height == 0) && cam->width <= 16384 && cam->height <= 16384,
			   "[camera %s] size %ux%u", cam->name, cam->width, cam->height);
		FUZZ_CHECK((cam->interval.num == 0 && cam->interval.den == 0) ||
			   hws_interval_is_friendly(cam->interval), "[camera %s] fps %u/%u", cam->name,
			   cam->interval.den, cam->interval.num);
		FUZZ_CHECK(cam->snapshot_ms == 0 || (cam->snapshot_ms >= 1000 && cam->snapshot_ms <= DAY_MS),
			   "[camera %s] snapshot_interval %u ms", cam->name, cam->snapshot_ms);
		FUZZ_CHECK(cam->type == HWS_IMAGE_JPEG || cam->type == HWS_IMAGE_PNG || cam->type == HWS_IMAGE_PPM,
			   "[camera %s] format %d", cam->name, cam->type);
		FUZZ_CHECK(cam->quality >= 1 && cam->quality <= 100, "[camera %s] quality %d", cam->name,
			   cam->quality);
		FUZZ_CHECK(cam->stream_chroma == HWS_IMAGE_CHROMA_420 ||
			   cam->stream_chroma == HWS_IMAGE_CHROMA_SOURCE, "[camera %s] stream_chroma %d",
			   cam->name, cam->stream_chroma);
		FUZZ_CHECK(cam->skip_frames <= 100 && cam->keep <= 1000000, "[camera %s] skip %u keep %u",
			   cam->name, cam->skip_frames, cam->keep);
	}
	FUZZ_CHECK(c->motion.sensitivity >= 1 && c->motion.sensitivity <= 1000, "sensitivity %u",
		   c->motion.sensitivity);
	FUZZ_CHECK(c->motion.interval_ms >= 10 && c->motion.interval_ms <= 1000, "interval %u ms",
		   c->motion.interval_ms);
	FUZZ_CHECK(c->motion.park_ms >= 1000 && c->motion.park_ms <= 30000, "park_time %u ms",
		   c->motion.park_ms);
	for (size_t i = 0; i < c->motion.n_disks; i++)
		FUZZ_CHECK(c->motion.disks[i][0] && c->motion.disks[i][0] != '.' &&
			   only(c->motion.disks[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."),
			   "disk \"%s\"", c->motion.disks[i]);
}

/* "fuzz.conf:LINE: reason", LINE one of the file's. */
static void check_error(const char *error, const uint8_t *data, size_t size)
{
	unsigned long line;
	size_t lines = 1;
	char *end;

	FUZZ_CHECK(error, "-EINVAL without a reason");
	for (size_t i = 0; i < size; i++)
		if (data[i] == '\n' && i + 1 < size)
			lines++;
	FUZZ_CHECK(!strncmp(error, NAME ":", strlen(NAME ":")), "\"%s\"", error);
	line = strtoul(error + strlen(NAME ":"), &end, 10);
	FUZZ_CHECK(end != error + strlen(NAME ":") && !strncmp(end, ": ", 2) && end[2],
		   "\"%s\" is not NAME:LINE: reason", error);
	FUZZ_CHECK(line >= 1 && line <= lines, "\"%s\": the file has %zu lines", error, lines);
}

static void check_values(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	struct hws_fract iv;
	unsigned ms;
	int r;

	r = hwsd_parse_duration(text, &ms);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE, "duration \"%s\": %d", text, r);
	if (r == 0)
		FUZZ_CHECK(ms <= 7 * DAY_MS, "duration \"%s\": %u ms", text, ms);
	r = hws_fps_parse(text, &iv);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE, "fps \"%s\": %d", text, r);
	if (r == 0) {
		struct hws_fract slower, faster;

		FUZZ_CHECK(iv.num && iv.den, "fps \"%s\": %u/%u", text, iv.den, iv.num);
		if (!hws_interval_is_friendly(iv)) {
			/* No faster neighbour only above 300 fps. */
			bool none = (uint64_t)iv.num * 300 < iv.den;

			hws_friendly_neighbours(iv, &slower, &faster);
			FUZZ_CHECK(hws_interval_is_friendly(slower) &&
				   (none ? !faster.num && !faster.den : hws_interval_is_friendly(faster)),
				   "fps \"%s\": neighbours %u/%u and %u/%u", text, slower.den, slower.num,
				   faster.den, faster.num);
		}
	}
	free(text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	/* config.c logs nothing itself; keep whatever else would quiet. */
	hwsd_log_setup(HWSD_LOG_STDERR, LOG_CRIT);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwsd_config *c = NULL;
	char *error = NULL;
	FILE *f;
	int r;

	/* fmemopen() wants at least a byte of buffer. */
	f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "re");
	if (!f)
		abort();
	r = hwsd_config_parse(f, NAME, &c, &error);
	fclose(f);
	if (r == 0) {
		FUZZ_CHECK(c && !error, "a config and an error");
		check_config(c);
		hwsd_config_free(c);
	} else {
		FUZZ_CHECK(r == -EINVAL, "%d", r);
		check_error(error, data, size);
		free(error);
	}
	check_values(data, size);
	return 0;
}
