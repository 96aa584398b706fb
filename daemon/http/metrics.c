/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /metrics, named after node_exporter's hwmon collector so that the
 * dashboards people have need only a new prefix: hwsight_temp_celsius,
 * hwsight_fan_rpm, hwsight_in_volts ..., their limits, alarm and fault
 * flags, one info series per chip, and the daemon's own counters: the
 * cameras' pacing, the motion guard (its sensor, the detector's last
 * inputs, each disk's parks) and fan control.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../events.h"
#include "../fan-board.h"
#include "../live.h"
#include "../log.h"
#include "../motion-board.h"
#include "../readings.h"
#include "../view.h"
#include "pages.h"

/* The unit suffix of each kind's input; NULL: no value series. */
static const char *const units[HWS_SENSOR_KIND_MAX] = {
	[HWS_SENSOR_IN] = "volts",
	[HWS_SENSOR_FAN] = "rpm",
	[HWS_SENSOR_TEMP] = "celsius",
	[HWS_SENSOR_POWER] = "watts",
	[HWS_SENSOR_ENERGY] = "joules",
	[HWS_SENSOR_CURR] = "amperes",
	[HWS_SENSOR_HUMIDITY] = "percent",
	[HWS_SENSOR_VID] = "volts",
	[HWS_SENSOR_PWM] = "raw",
	[HWS_SENSOR_LIGHT] = "raw",
};

/* A label value with the escapes of the exposition format. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* " VALUE\n" as the exposition format spells it: +Inf, not inf. */
static void sample_value(FILE *f, double v)
{
	if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
	else
		fprintf(f, " %.17g\n", v);
}

static void header(FILE *f, const char *name, const char *help, bool counter)
{
	fprintf(f, "# HELP %s %s.\n# TYPE %s %s\n", name, help, name, counter ? "counter" : "gauge");
}

/* A label of a series: its name and its value. */
struct label {
	const char *key;
	const char *value;
};

static void labels_of(FILE *f, const struct label *labels)
{
	for (const struct label *l = labels; l->key; l++) {
		fprintf(f, "%c%s=\"", l == labels ? '{' : ',', l->key);
		label_value(f, l->value);
		fputc('"', f);
	}
	fputc('}', f);
}

/* LABELS(f, { "key", value }, ...): {key="value",...}, in order. */
#define LABELS(f, ...) labels_of(f, (const struct label[]){ __VA_ARGS__, { NULL, NULL } })

/* NAME{KEY="WHO"} V, of a camera or a fan; nothing for an unknown V. */
static void series(FILE *f, const char *name, const char *key, const char *who, double v)
{
	if (isnan(v))
		return;
	fputs(name, f);
	LABELS(f, { key, who });
	sample_value(f, v);
}

enum field { INPUT, MIN, MAX, CRIT, ALARM, FAULT };

static const struct {
	enum field field;
	bool unit;               /* the name ends with the kind's unit */
	const char *infix;       /* between the kind and the unit */
	const char *help;
} fields[] = {
	{ INPUT, true, "", "The sensor's reading" },
	{ MIN, true, "_min", "The chip's low limit" },
	{ MAX, true, "_max", "The chip's high limit" },
	{ CRIT, true, "_crit", "The chip's critical limit" },
	{ ALARM, false, "_alarm", "1 while one of the chip's alarm bits for the sensor is set" },
	{ FAULT, false, "_fault", "1 while the chip reports the sensor faulty" },
};

static bool value(const struct hwsd_feature_reading *fr, enum field field, double *ret)
{
	switch (field) {
	case INPUT: *ret = fr->input; break;
	case MIN: *ret = fr->min; break;
	case MAX: *ret = fr->max; break;
	case CRIT: *ret = fr->crit; break;
	case ALARM: *ret = fr->alarm; return fr->has_alarm;
	case FAULT: *ret = fr->fault; return fr->has_fault;
	}
	return !isnan(*ret);
}

/* One family: every chip's sensors of @kind that have @field. */
static void family(FILE *f, const struct hwsd_readings *r, enum hws_sensor_kind kind, size_t fi)
{
	bool header = false;
	char name[64];

	snprintf(name, sizeof(name), "hwsight_%s%s%s%s", hws_sensor_kind_name(kind), fields[fi].infix,
		 fields[fi].unit ? "_" : "", fields[fi].unit ? units[kind] : "");
	for (size_t c = 0; c < r->n_chips; c++) {
		const struct hwsd_chip_reading *chip = &r->chips[c];

		for (size_t i = 0; chip->present && i < chip->n_features; i++) {
			const struct hwsd_feature_reading *fr = &chip->features[i];
			double v = NAN;

			if (fr->kind != kind || !value(fr, fields[fi].field, &v))
				continue;
			if (!header) {
				fprintf(f, "# HELP %s %s.\n# TYPE %s gauge\n", name, fields[fi].help, name);
				header = true;
			}
			fputs(name, f);
			LABELS(f, { "chip", chip->name }, { "sensor", fr->name }, { "label", fr->label });
			sample_value(f, v);
		}
	}
}

/* A family with a series for each camera, or each disk. */
struct family {
	int field;        /* an enum camera_field or disk_field */
	const char *name;
	bool counter;
	const char *help;
};

enum camera_field { PRESENT, STREAMING, VIEWERS, FRAMES, DRIVER_FRAMES, DROPPED, DECIMATED,
		    TARGET_INTERVAL, MEAN_INTERVAL, JITTER, SNAPSHOTS };

static const struct family camera_families[] = {
	{ PRESENT, "hwsight_camera_present", false, "1 while the camera's device node exists" },
	{ STREAMING, "hwsight_camera_streaming", false, "1 while the camera is open and capturing" },
	{ VIEWERS, "hwsight_camera_viewers", false, "Clients of the camera's MJPEG stream" },
	{ FRAMES, "hwsight_camera_frames_total", true, "Frames kept on the camera's pacing grid" },
	{ DRIVER_FRAMES, "hwsight_camera_driver_frames_total", true, "Frames the driver delivered" },
	{ DROPPED, "hwsight_camera_dropped_frames_total", true,
	  "Frames the driver lost (gaps in its sequence numbers)" },
	{ DECIMATED, "hwsight_camera_decimated_frames_total", true,
	  "Frames skipped to stay on the 300 Hz grid" },
	{ TARGET_INTERVAL, "hwsight_camera_target_interval_seconds", false,
	  "The frame interval the camera is paced at" },
	{ MEAN_INTERVAL, "hwsight_camera_frame_interval_seconds", false,
	  "The mean interval between kept frames in the last stream, by driver timestamps" },
	{ JITTER, "hwsight_camera_frame_jitter_seconds", false,
	  "The standard deviation of those intervals" },
	{ SNAPSHOTS, "hwsight_camera_snapshots_total", true, "Snapshot files written" },
};

static double camera_value(const struct hwsd_camera_status *st, enum camera_field field)
{
	switch (field) {
	case PRESENT: return st->present;
	case STREAMING: return st->streaming;
	case VIEWERS: return st->viewers;
	case FRAMES: return (double)st->kept;
	case DRIVER_FRAMES: return (double)st->delivered;
	case DROPPED: return (double)st->dropped;
	case DECIMATED: return (double)st->decimated;
	case TARGET_INTERVAL:
		return st->target_interval.den ? (double)st->target_interval.num / st->target_interval.den : NAN;
	case MEAN_INTERVAL: return st->mean_interval_ms / 1000;
	case JITTER: return st->jitter_ms / 1000;
	case SNAPSHOTS: return (double)st->snapshots;
	}
	return NAN;
}

static int cameras(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_live **lives;
	struct hwsd_camera_status *st;
	int n = hwsd_live_set_list(view->live, &lives);

	if (n <= 0)
		return n;
	st = calloc((size_t)n, sizeof(*st));
	if (!st) {
		hwsd_live_set_release(lives, (size_t)n);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		hwsd_live_status(lives[i], &st[i]);
	for (size_t fi = 0; fi < sizeof(camera_families) / sizeof(camera_families[0]); fi++) {
		header(f, camera_families[fi].name, camera_families[fi].help, camera_families[fi].counter);
		for (int i = 0; i < n; i++)
			series(f, camera_families[fi].name, "camera", lives[i]->name,
			       camera_value(&st[i], camera_families[fi].field));
	}
	free(st);
	hwsd_live_set_release(lives, (size_t)n);
	return 0;
}

enum fan_field { FAN_HELD, FAN_FAILSAFE, FAN_OUTPUT, FAN_TARGET, FAN_FULL, FAN_TEMP };

static const struct {
	enum fan_field field;
	const char *name;
	const char *help;
} fan_families[] = {
	{ FAN_HELD, "hwsight_fan_control_held", "1 while hwsightd drives the output of the [fan] section" },
	{ FAN_FAILSAFE, "hwsight_fan_control_failsafe",
	  "1 while a temperature source of the [fan] cannot be read and its output is at full" },
	{ FAN_OUTPUT, "hwsight_fan_control_output",
	  "The value hwsightd last wrote (in a dry run, would have): a duty (0 to the maximum) or, on an RPM output, a speed" },
	{ FAN_TARGET, "hwsight_fan_control_target",
	  "What the curve asks for at the temperature it follows, before the kick, rate limit and spin-down" },
	{ FAN_FULL, "hwsight_fan_control_output_max", "The output's full value, for ratios" },
	{ FAN_TEMP, "hwsight_fan_control_temperature_celsius",
	  "The sources combined, as the curve follows them (hysteresis applied)" },
};

static double fan_value(const struct hwsd_fan_status *st, enum fan_field field)
{
	switch (field) {
	case FAN_HELD: return st->held && !st->dry_run;
	case FAN_FAILSAFE: return st->failsafe;
	case FAN_OUTPUT: return st->value;
	case FAN_TARGET: return st->target;
	case FAN_FULL: return st->full;
	case FAN_TEMP: return st->temp;
	}
	return NAN;
}

static void fan_info(FILE *f, const struct hwsd_fan_status *st)
{
	fputs("hwsight_fan_control_info", f);
	LABELS(f, { "fan", st->name }, { "chip", st->chip ? st->chip : "" }, { "output", st->output },
	       { "mode", st->floor ? "floor" : "manual" }, { "unit", st->rpm ? "rpm" : "duty" });
	fputs(" 1\n", f);
}

static int fans(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_fan_status *st;
	int n = view->fans ? hwsd_fan_board_copy(view->fans, &st) : 0;

	if (n <= 0)
		return n;
	header(f, "hwsight_fan_control_info", "A [fan] section of hwsightd: its output, the chip it "
	       "was found on, how it is held (manual, floor) and its unit (duty, rpm)", false);
	for (int i = 0; i < n; i++)
		fan_info(f, &st[i]);
	for (size_t fi = 0; fi < sizeof(fan_families) / sizeof(fan_families[0]); fi++) {
		header(f, fan_families[fi].name, fan_families[fi].help, false);
		for (int i = 0; i < n; i++)
			series(f, fan_families[fi].name, "fan", st[i].name,
			       fan_value(&st[i], fan_families[fi].field));
	}
	hwsd_fan_board_free_copy(st, (size_t)n);
	return 0;
}

/* NAME V, with its header; the header alone for an unknown V. */
static void single(FILE *f, const char *name, const char *help, bool counter, double v)
{
	header(f, name, help, counter);
	if (isnan(v))
		return;
	fputs(name, f);
	sample_value(f, v);
}

enum disk_field { DISK_PARKS, DISK_PARK_SECONDS, DISK_PARKED, DISK_PROTECTED };

static const struct family disk_families[] = {
	{ DISK_PARKS, "hwsight_disk_parks_total", true,
	  "Parks of the disk's heads begun on a motion (in a dry run, those it would have begun)" },
	{ DISK_PARK_SECONDS, "hwsight_disk_park_seconds_total", true,
	  "How long the disk's heads were held parked, an ongoing park counted up to now" },
	{ DISK_PARKED, "hwsight_disk_parked", false, "1 while the disk's heads are held parked" },
	{ DISK_PROTECTED, "hwsight_disk_protected", false,
	  "1 while the disk is there and hwsightd would park it on a motion" },
};

static double disk_value(const struct hwsd_disk_status *d, enum disk_field field)
{
	switch (field) {
	case DISK_PARKS: return (double)d->parks;
	case DISK_PARK_SECONDS: return (double)d->parked_ms / 1000;
	case DISK_PARKED: return d->parked;
	case DISK_PROTECTED: return d->protected;
	}
	return NAN;
}

/* The motion guard, while one runs: its events, its sensor, the
 * detector's last inputs and each disk's parks. */
static int motion(const struct hwsd_view *view, FILE *f)
{
	static const char *const axes[3] = { "x", "y", "z" };
	struct hwsd_motion_status st;
	int r;

	if ((r = hwsd_motion_board_copy(view->motion, &st)) <= 0)
		return r;
	fprintf(f, "# HELP hwsight_motion_events_total Sudden motions and free falls the motion "
		"sensor reported.\n# TYPE hwsight_motion_events_total counter\n"
		"hwsight_motion_events_total %llu\n"
		"# HELP hwsight_motion_active 1 while the machine is moving.\n"
		"# TYPE hwsight_motion_active gauge\nhwsight_motion_active %d\n",
		atomic_load(&view->counters->motion_events), atomic_load(&view->counters->in_motion));
	header(f, "hwsight_motion_sensor_info", "The motion sensor hwsightd watches: its driver, and "
	       "its method, sysfs (polled) or input (its input device's events)", false);
	fputs("hwsight_motion_sensor_info", f);
	LABELS(f, { "driver", st.driver }, { "method", st.input ? "input" : "sysfs" });
	fputs(" 1\n", f);
	single(f, "hwsight_motion_dry_run", "1 when hwsightd runs dry (--dry-run): it parks no heads", false,
	       st.dry_run);
	single(f, "hwsight_motion_sampling", "1 while the sensor is sampled; 0 while there is no disk "
	       "to protect and nothing else acts on motions", false, st.sampling);
	single(f, "hwsight_motion_samples_total", "Reads of the motion sensor, failed ones included", true,
	       (double)st.samples);
	single(f, "hwsight_motion_threshold", "The sudden-motion detector's threshold now, raised above "
	       "the base while it adapts to steady vibration", false, st.threshold);
	single(f, "hwsight_motion_threshold_base", "The configured sensitivity, the threshold at rest",
	       false, st.threshold_base);
	single(f, "hwsight_motion_score", "The last sample's movement in threshold units; "
	       "1 or more is a sudden motion", false, st.score);
	header(f, "hwsight_motion_acceleration_g", "The last sample, calibrated, in g", false);
	for (int i = 0; i < 3; i++)
		series(f, "hwsight_motion_acceleration_g", "axis", axes[i], st.g[i]);
	single(f, "hwsight_motion_falling", "1 while the machine is in free fall", false, st.falling);
	for (size_t fi = 0; st.n_disks && fi < sizeof(disk_families) / sizeof(disk_families[0]); fi++) {
		header(f, disk_families[fi].name, disk_families[fi].help, disk_families[fi].counter);
		for (size_t i = 0; i < st.n_disks; i++)
			series(f, disk_families[fi].name, "disk", st.disks[i].name,
			       disk_value(&st.disks[i], disk_families[fi].field));
	}
	hwsd_motion_board_free_copy(&st);
	return 0;
}

int hwsd_http_metrics(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_readings *r = view->readings;

	pthread_mutex_lock(&r->lock);
	fputs("# HELP hwsight_chip_info A hardware monitor chip hwsightd has seen.\n"
	      "# TYPE hwsight_chip_info gauge\n", f);
	for (size_t c = 0; c < r->n_chips; c++) {
		fputs("hwsight_chip_info", f);
		LABELS(f, { "chip", r->chips[c].name }, { "prefix", r->chips[c].prefix },
		       { "adapter", r->chips[c].adapter });
		fputs(" 1\n", f);
	}
	fputs("# HELP hwsight_chip_present 1 while the chip is there and polled.\n"
	      "# TYPE hwsight_chip_present gauge\n", f);
	for (size_t c = 0; c < r->n_chips; c++) {
		fputs("hwsight_chip_present", f);
		LABELS(f, { "chip", r->chips[c].name });
		fprintf(f, " %d\n", r->chips[c].present);
	}
	fputs("# HELP hwsight_chip_polls_total Polls of the chip since it was found.\n"
	      "# TYPE hwsight_chip_polls_total counter\n", f);
	for (size_t c = 0; c < r->n_chips; c++) {
		fputs("hwsight_chip_polls_total", f);
		LABELS(f, { "chip", r->chips[c].name });
		fprintf(f, " %llu\n", (unsigned long long)r->chips[c].polls);
	}
	for (int kind = 0; kind < HWS_SENSOR_KIND_MAX; kind++)
		for (size_t fi = 0; fi < sizeof(fields) / sizeof(fields[0]); fi++)
			if (units[kind] || (kind == HWS_SENSOR_INTRUSION && fields[fi].field == ALARM))
				family(f, r, (enum hws_sensor_kind)kind, fi);
	pthread_mutex_unlock(&r->lock);
	fprintf(f, "# HELP hwsight_alarms_active Alarms logged and not yet ended.\n"
		"# TYPE hwsight_alarms_active gauge\nhwsight_alarms_active %u\n",
		atomic_load(&view->counters->alarms_active));
	if (motion(view, f) < 0 || cameras(view, f) < 0 || fans(view, f) < 0)
		return -ENOMEM;
	return ferror(f) ? -EIO : 0;
}
