/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /api/v1/sensors, /api/v1/alarms, /api/v1/cameras, /api/v1/fans and
 * /api/v1/motion: the latest readings, the cameras', the fan control's and
 * the motion guard's states as JSON, built with json-c. Numbers that are
 * unknown (an unreadable value, a limit the chip lacks) or infinite are
 * null.
 *
 * /api/v1/sensors carries "sensors -j" itself under "sensors" (a program
 * written for lm-sensors' JSON reads it unchanged) and what hwsight adds
 * (polls, kinds, alarms, chips libsensors does not list) under "hwsight".
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "../events.h"
#include "../fan-board.h"
#include "../live.h"
#include "../log.h"
#include "../motion-board.h"
#include "../readings.h"
#include "../view.h"
#include "pages.h"

static json_object *number(double v)
{
	/* JSON has no infinity (a sensors.conf compute line can make one). */
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* A member of an object: a NULL value is JSON's null. */
struct member {
	const char *key;
	json_object *value;
};

static json_object *object_of(const struct member *members)
{
	json_object *o = json_object_new_object();

	for (const struct member *m = members; m->key; m++)
		json_object_object_add(o, m->key, m->value);
	return o;
}

/* OBJECT({ "key", value }, ...): an object of those members, in order, so
 * that each document below reads as the list of its keys. */
#define OBJECT(...) object_of((const struct member[]){ __VA_ARGS__, { NULL, NULL } })

static json_object *iso_time(int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	char buf[40];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03dZ", (int)(ms % 1000));
	return json_object_new_string(buf);
}

static json_object *feature(const struct hwsd_feature_reading *fr)
{
	return OBJECT(
		{ "name", json_object_new_string(fr->name) }, { "label", json_object_new_string(fr->label) },
		{ "kind", json_object_new_string(hws_sensor_kind_name(fr->kind) ?: "") },
		{ "unit", json_object_new_string(hws_sensor_unit(fr->kind)) },
		{ "value", number(fr->input) },
		{ "min", number(fr->min) }, { "max", number(fr->max) }, { "crit", number(fr->crit) },
		{ "alarm", json_object_new_boolean(fr->alarm) }, { "fault", json_object_new_boolean(fr->fault) });
}

/* "min,max(configured)" as ["min", "max(configured)"] */
static json_object *conditions(const char *list)
{
	json_object *a = json_object_new_array();
	char buf[sizeof(((struct hwsd_feature_reading *)0)->alarms)], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_object_array_add(a, json_object_new_string(t));
	return a;
}

static int emit(json_object *root, FILE *f)
{
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);

	fputs(text, f);
	fputc('\n', f);
	json_object_put(root);
	return ferror(f) ? -EIO : 0;
}

/* The document { "KEY": VALUE }. */
static int emit_member(const char *key, json_object *value, FILE *f)
{
	return emit(OBJECT({ key, value }), f);
}

/* A value as sensors -j prints it, "%.3f": the same JSON number. */
static json_object *sensors_j_number(double v)
{
	char buf[64];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.3f", v);
	return json_object_new_double_s(v, buf);
}

/* One chip as "sensors -j" shows it, or NULL if it does not. */
static json_object *sensors_j_chip(const struct hwsd_chip_reading *chip)
{
	json_object *o;

	if (!chip->listed || !chip->present)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "Adapter", json_object_new_string(chip->adapter));
	for (size_t i = 0; i < chip->n_features; i++) {
		const struct hwsd_feature_reading *fr = &chip->features[i];
		json_object *subs;

		if (!fr->sensors_label)
			continue;
		subs = json_object_new_object();
		for (size_t k = 0; k < fr->n_subs; k++)
			json_object_object_add(subs, fr->subs[k].name, sensors_j_number(fr->subs[k].value));
		json_object_object_add(o, fr->sensors_label, subs);
	}
	return o;
}

/* One chip as hwsight shows it. */
static json_object *chip_object(const struct hwsd_chip_reading *chip)
{
	json_object *features = json_object_new_array();

	for (size_t i = 0; i < chip->n_features; i++)
		json_object_array_add(features, feature(&chip->features[i]));
	return OBJECT(
		{ "name", json_object_new_string(chip->name) }, { "prefix", json_object_new_string(chip->prefix) },
		{ "adapter", json_object_new_string(chip->adapter) },
		{ "present", json_object_new_boolean(chip->present) },
		{ "polls", json_object_new_uint64(chip->polls) },
		{ "updated", iso_time(chip->updated_ms) },
		{ "features", features });
}

int hwsd_http_api_sensors(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_readings *r = view->readings;
	json_object *root = json_object_new_object(), *chips = json_object_new_array();
	json_object *sensors_j = json_object_new_object(), *ours = json_object_new_object();

	pthread_mutex_lock(&r->lock);
	for (size_t c = 0; c < r->n_chips; c++) {
		const struct hwsd_chip_reading *chip = &r->chips[c];
		json_object *o;

		json_object_array_add(chips, chip_object(chip));
		o = sensors_j_chip(chip);
		if (o)
			json_object_object_add(sensors_j, chip->name, o);
	}
	pthread_mutex_unlock(&r->lock);
	json_object_object_add(root, "sensors", sensors_j);
	json_object_object_add(ours, "chips", chips);
	json_object_object_add(root, "hwsight", ours);
	return emit(root, f);
}

int hwsd_http_api_alarms(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_readings *r = view->readings;
	json_object *alarms = json_object_new_array();

	pthread_mutex_lock(&r->lock);
	for (size_t c = 0; c < r->n_chips; c++) {
		const struct hwsd_chip_reading *chip = &r->chips[c];

		for (size_t i = 0; chip->present && i < chip->n_features; i++) {
			const struct hwsd_feature_reading *fr = &chip->features[i];
			json_object *o;

			if (!fr->alarms[0])
				continue;
			o = feature(fr);
			json_object_object_add(o, "chip", json_object_new_string(chip->name));
			json_object_object_add(o, "conditions", conditions(fr->alarms));
			json_object_array_add(alarms, o);
		}
	}
	pthread_mutex_unlock(&r->lock);
	return emit_member("alarms", alarms, f);
}

static json_object *fraction_seconds(struct hws_fract f)
{
	return f.den ? json_object_new_double((double)f.num / f.den) : NULL;
}

/* A frame's width or height: null until a stream has set it. */
static json_object *size_or_null(uint32_t v)
{
	return v ? json_object_new_int64(v) : NULL;
}

static json_object *camera(const struct hwsd_live *l, const struct hwsd_camera_status *st)
{
	return OBJECT(
		{ "name", json_object_new_string(l->name) },
		{ "present", json_object_new_boolean(st->present) }, { "streaming", json_object_new_boolean(st->streaming) },
		{ "viewers", json_object_new_int64(st->viewers) },
		{ "width", size_or_null(st->width) }, { "height", size_or_null(st->height) },
		{ "target_interval_s", fraction_seconds(st->target_interval) },
		{ "frames", json_object_new_uint64(st->kept) }, { "driver_frames", json_object_new_uint64(st->delivered) },
		{ "dropped", json_object_new_uint64(st->dropped) }, { "decimated", json_object_new_uint64(st->decimated) },
		{ "mean_interval_ms", number(st->mean_interval_ms) }, { "jitter_ms", number(st->jitter_ms) },
		{ "snapshots", json_object_new_uint64(st->snapshots) },
		{ "last_snapshot", st->last_snapshot_ms ? json_object_new_string(st->last_snapshot) : NULL },
		{ "last_snapshot_time", st->last_snapshot_ms ? iso_time(st->last_snapshot_ms) : NULL },
		{ "error", st->last_error ? json_object_new_string(strerror(-st->last_error)) : NULL });
}

int hwsd_http_api_cameras(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_live **lives;
	int n = hwsd_live_set_list(view->live, &lives);
	json_object *cameras;

	if (n < 0)
		return n;
	cameras = json_object_new_array();
	for (int i = 0; i < n; i++) {
		struct hwsd_camera_status st;

		hwsd_live_status(lives[i], &st);
		json_object_array_add(cameras, camera(lives[i], &st));
	}
	hwsd_live_set_release(lives, (size_t)n);
	return emit_member("cameras", cameras, f);
}

static json_object *fan_curve(const struct hwsd_fan_status *st)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < st->n_curve; i++)
		json_object_array_add(a, OBJECT({ "temp", number(st->curve[i].temp) },
						{ "value", number(st->curve[i].value) }));
	return a;
}

static json_object *fan(const struct hwsd_fan_status *st)
{
	return OBJECT(
		{ "name", json_object_new_string(st->name) },
		{ "chip", st->chip ? json_object_new_string(st->chip) : NULL },
		{ "output", json_object_new_string(st->output) },
		{ "mode", json_object_new_string(st->floor ? "floor" : "manual") },
		{ "unit", st->held ? json_object_new_string(st->rpm ? "rpm" : "duty") : NULL },
		{ "held", json_object_new_boolean(st->held && !st->dry_run) }, { "dry_run", json_object_new_boolean(st->dry_run) },
		{ "yielded", json_object_new_boolean(st->yielded) }, { "failsafe", json_object_new_boolean(st->failsafe) },
		{ "temperature", number(st->temp) },
		{ "target", number(st->target) },
		{ "value", number(st->value) }, { "max", number(st->full) },
		{ "curve_type", json_object_new_string(st->steps ? "steps" : "linear") }, { "curve", fan_curve(st) });
}

int hwsd_http_api_fans(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_fan_status *st = NULL;
	int n = view->fans ? hwsd_fan_board_copy(view->fans, &st) : 0;
	json_object *fans;

	if (n < 0)
		return n;
	fans = json_object_new_array();
	for (int i = 0; i < n; i++)
		json_object_array_add(fans, fan(&st[i]));
	hwsd_fan_board_free_copy(st, (size_t)n);
	return emit_member("fans", fans, f);
}

static json_object *disk(const struct hwsd_disk_status *d)
{
	return OBJECT(
		{ "name", json_object_new_string(d->name) },
		{ "protected", json_object_new_boolean(d->protected) },
		{ "parked", json_object_new_boolean(d->parked) },
		{ "parks", json_object_new_uint64(d->parks) },
		{ "park_seconds", json_object_new_double((double)d->parked_ms / 1000) });
}

static json_object *last_park(const struct hwsd_motion_status *st)
{
	if (!st->last_park_time_ms)
		return NULL;
	return OBJECT(
		{ "time", iso_time(st->last_park_time_ms) },
		{ "why", json_object_new_string(st->last_park_free_fall ? "free fall" : "sudden motion") },
		{ "seconds", json_object_new_double((double)st->last_park_ms / 1000) },
		{ "ongoing", json_object_new_boolean(st->last_park_ongoing) });
}

static json_object *motion(const struct hwsd_view *view, const struct hwsd_motion_status *st)
{
	json_object *disks = json_object_new_array();

	for (size_t i = 0; i < st->n_disks; i++)
		json_object_array_add(disks, disk(&st->disks[i]));
	return OBJECT(
		{ "sensor", OBJECT({ "driver", json_object_new_string(st->driver) },
				   { "method", json_object_new_string(st->input ? "input" : "sysfs") }) },
		{ "dry_run", json_object_new_boolean(st->dry_run) },
		{ "sampling", json_object_new_boolean(st->sampling) }, { "samples", json_object_new_uint64(st->samples) },
		{ "events", json_object_new_uint64(atomic_load(&view->counters->motion_events)) },
		{ "active", json_object_new_boolean(atomic_load(&view->counters->in_motion)) },
		{ "moving", json_object_new_boolean(st->moving) }, { "falling", json_object_new_boolean(st->falling) },
		{ "threshold", number(st->threshold) }, { "threshold_base", json_object_new_uint64(st->threshold_base) },
		{ "score", number(st->score) },
		{ "acceleration_g", OBJECT({ "x", number(st->g[0]) }, { "y", number(st->g[1]) },
					   { "z", number(st->g[2]) }) },
		{ "disks", disks },
		{ "last_park", last_park(st) });
}

int hwsd_http_api_motion(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_motion_status st;
	json_object *o = NULL;
	int r = hwsd_motion_board_copy(view->motion, &st);

	if (r < 0)
		return r;
	if (r) {
		o = motion(view, &st);
		hwsd_motion_board_free_copy(&st);
	}
	return emit_member("motion", o, f);
}
