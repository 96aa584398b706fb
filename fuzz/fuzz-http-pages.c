/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What outside bytes become on the daemon's pages: a chip's name, prefix
 * and adapter, its feature labels (sysfs label files, sensors.conf labels)
 * and values, and the alarm conditions, published as the pollers publish
 * them (readings.c) and written out as /metrics (Prometheus text format
 * 0.0.4) and /api/v1/sensors and /api/v1/alarms (JSON). A reader must get
 * back exactly what went in: every sample line parses, with its label
 * values unescaped to the originals, and the JSON is strict JSON holding
 * the same strings and numbers.
 *
 * Input: flags:1 n_features:1, per feature kind:1 bits:1 input:8 min:8
 * (doubles), then NUL-separated strings: name, prefix, adapter, alarms,
 * and a label per feature.
 */
#include <errno.h>
#include <math.h>

#include <json-c/json.h>

#include "events.h"
#include "http/pages.h"
#include "live.h"
#include "readings.h"
#include "view.h"

#include "fuzz.h"

#define MAX_FEATURES 6

struct input {
	struct hws_chip chip;
	struct hws_feature features[MAX_FEATURES];
	struct hws_subfeature subs[MAX_FEATURES][4];
	char names[MAX_FEATURES][32];
	const char *alarms;
	bool gone;
};

/* Units of the input series (metrics.c); NULL: none. */
static const char *const units[HWS_SENSOR_KIND_MAX] = {
	[HWS_SENSOR_IN] = "volts", [HWS_SENSOR_FAN] = "rpm", [HWS_SENSOR_TEMP] = "celsius",
	[HWS_SENSOR_POWER] = "watts", [HWS_SENSOR_ENERGY] = "joules", [HWS_SENSOR_CURR] = "amperes",
	[HWS_SENSOR_HUMIDITY] = "percent", [HWS_SENSOR_VID] = "volts", [HWS_SENSOR_PWM] = "raw",
	[HWS_SENSOR_LIGHT] = "raw",
};

/*
 * The next string, made valid UTF-8: Prometheus and JSON readers refuse
 * anything else, and the pages pass bytes through as they are (see the
 * report of issue 8: a non-UTF-8 label breaks both formats).
 */
static char *next_string(struct fuzz_in *in)
{
	size_t len = strnlen((const char *)in->p, in->n);
	char *s = fuzz_string(in->p, len);
	size_t i = 0;

	in->p += len + (len < in->n);
	in->n -= len + (len < in->n);
	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = n > 0 && (n == 1 || c >= 0xc2) && (c <= 0xf4);

		for (size_t k = 1; ok && k < n; k++)
			ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
		if (ok && n == 3)
			ok = !(c == 0xe0 && (unsigned char)s[i + 1] < 0xa0) && !(c == 0xed && (unsigned char)s[i + 1] >= 0xa0);
		if (ok && n == 4)
			ok = !(c == 0xf0 && (unsigned char)s[i + 1] < 0x90) && !(c == 0xf4 && (unsigned char)s[i + 1] >= 0x90);
		if (!ok) {
			s[i++] = '?';
			continue;
		}
		i += n;
	}
	return s;
}

/* A value as a poller has it: a number, or NaN when unreadable. */
static double take_value(struct fuzz_in *in)
{
	uint64_t bits = fuzz_take(in, 8);
	double v;

	memcpy(&v, &bits, sizeof(v));
	return isfinite(v) ? v : NAN;
}

static void alarms_cb(void *userdata, size_t f, char *buf, size_t size)
{
	const struct input *in = userdata;

	(void)f;
	snprintf(buf, size, "%s", in->alarms);
}

/* ---- /metrics ------------------------------------------------------------ */

static const char *metric_name_end(const char *p)
{
	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == ':'))
		return NULL;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '_' || *p == ':')
		p++;
	return p;
}

/* A quoted label value at @p, unescaped into @out. Return: after it, or NULL. */
static const char *label_value(const char *p, char *out, size_t size)
{
	size_t n = 0;

	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		char c = *p;

		if (c == '\0' || c == '\n')
			return NULL;
		if (c == '\\') {
			p++;
			if (*p == 'n')
				c = '\n';
			else if (*p == '\\' || *p == '"')
				c = *p;
			else
				return NULL;
		}
		if (n + 1 < size)
			out[n++] = c;
	}
	out[n] = '\0';
	return p + 1;
}

static int feature_of(const struct input *in, const char *name)
{
	for (size_t i = 0; i < in->chip.n_features; i++)
		if (!strcmp(in->chip.features[i].name, name))
			return (int)i;
	return -1;
}

static void check_metrics(const char *text, const struct input *in)
{
	const struct hws_chip *chip = &in->chip;
	size_t info = 0, inputs = 0, want_inputs = 0;
	const char *line = text;
	/* A label value is at most as long as the page. */
	char *value = malloc(strlen(text) + 1), *label = malloc(strlen(text) + 1);

	for (size_t i = 0; i < chip->n_features; i++) {
		const struct hws_feature *f = &chip->features[i];
		double v = hwsd_feature_value(f, HWS_ITEM_INPUT);

		if (!in->gone && units[f->kind] && !isnan(v))
			want_inputs++;
	}
	while (*line) {
		const char *nl = strchr(line, '\n'), *p, *end;
		char name[128], key[64], sensor[64] = "";
		bool has_label = false, has_sensor = false;
		double v;
		char *num_end;

		FUZZ_CHECK(nl, "the last line has no newline: \"%s\"", line);
		if (line[0] == '#') {
			FUZZ_CHECK(!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7), "\"%.*s\"",
				   (int)(nl - line), line);
			line = nl + 1;
			continue;
		}
		end = metric_name_end(line);
		FUZZ_CHECK(end && (size_t)(end - line) < sizeof(name), "no metric name: \"%.*s\"", (int)(nl - line), line);
		memcpy(name, line, (size_t)(end - line));
		name[end - line] = '\0';
		p = end;
		if (*p == '{') {
			p++;
			while (*p != '}') {
				const char *k = p;

				while ((*p >= 'a' && *p <= 'z') || *p == '_')
					p++;
				FUZZ_CHECK(p > k && *p == '=' && (size_t)(p - k) < sizeof(key), "%s: a bad label name", name);
				memcpy(key, k, (size_t)(p - k));
				key[p - k] = '\0';
				p = label_value(p + 1, value, strlen(text) + 1);
				FUZZ_CHECK(p, "%s: label %s is not a quoted, escaped string", name, key);
				if (!strcmp(key, "chip"))
					FUZZ_CHECK(!strcmp(value, chip->name), "%s: chip \"%s\", not \"%s\"", name, value,
						   chip->name);
				else if (!strcmp(key, "prefix"))
					FUZZ_CHECK(!strcmp(value, chip->prefix), "%s: prefix \"%s\"", name, value);
				else if (!strcmp(key, "adapter"))
					FUZZ_CHECK(!strcmp(value, chip->adapter), "%s: adapter \"%s\"", name, value);
				else if (!strcmp(key, "sensor")) {
					snprintf(sensor, sizeof(sensor), "%s", value);
					has_sensor = true;
				} else if (!strcmp(key, "label")) {
					strcpy(label, value);
					has_label = true;
				}
				if (*p == ',')
					p++;
				else
					FUZZ_CHECK(*p == '}', "%s: '%c' after a label", name, *p);
			}
			p++;
		}
		FUZZ_CHECK(*p == ' ', "%s: no blank before the value", name);
		v = strtod(p + 1, &num_end);
		FUZZ_CHECK(num_end > p + 1 && num_end == nl && isfinite(v), "%s: value \"%.*s\"", name,
			   (int)(nl - p - 1), p + 1);
		if (has_sensor) {
			int f = feature_of(in, sensor);

			FUZZ_CHECK(f >= 0 && !in->gone, "%s: sensor \"%s\"", name, sensor);
			FUZZ_CHECK(has_label && !strcmp(label, chip->features[f].label), "%s: label \"%s\", not \"%s\"",
				   name, label, chip->features[f].label);
			if (units[chip->features[f].kind]) {
				char want[128];

				snprintf(want, sizeof(want), "hwsight_%s_%s", hws_sensor_kind_name(chip->features[f].kind),
					 units[chip->features[f].kind]);
				if (!strcmp(name, want)) {
					inputs++;
					FUZZ_CHECK(v == hwsd_feature_value(&chip->features[f], HWS_ITEM_INPUT),
						   "%s{sensor=\"%s\"} %.17g", name, sensor, v);
				}
			}
		}
		if (!strcmp(name, "hwsight_chip_info"))
			info++;
		line = nl + 1;
	}
	free(value);
	free(label);
	FUZZ_CHECK(info == 1, "%zu hwsight_chip_info lines for one chip", info);
	FUZZ_CHECK(inputs == want_inputs, "%zu input samples, %zu wanted", inputs, want_inputs);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_object *parse_json(const char *text)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;

	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)strlen(text));
	FUZZ_CHECK(o && json_tokener_get_error(tok) == json_tokener_success, "not JSON (%s): %s",
		   json_tokener_error_desc(json_tokener_get_error(tok)), text);
	json_tokener_free(tok);
	return o;
}

static json_object *member(json_object *o, const char *key, json_type type)
{
	json_object *m = NULL;

	FUZZ_CHECK(json_object_object_get_ex(o, key, &m) && json_object_is_type(m, type), "no %s of type %d: %s",
		   key, type, json_object_to_json_string(o));
	return m;
}

static void check_number(json_object *o, const char *key, double want)
{
	json_object *m = NULL;

	FUZZ_CHECK(json_object_object_get_ex(o, key, &m), "no %s", key);
	if (isnan(want)) {
		FUZZ_CHECK(!m, "%s: %s for an unknown value", key, json_object_to_json_string(m));
		return;
	}
	FUZZ_CHECK(m && (json_object_is_type(m, json_type_double) || json_object_is_type(m, json_type_int)) &&
		   json_object_get_double(m) == want, "%s: %s, not %.17g", key, json_object_to_json_string(m), want);
}

static void check_feature(json_object *o, const struct hws_feature *f)
{
	FUZZ_CHECK(!strcmp(json_object_get_string(member(o, "name", json_type_string)), f->name), "name");
	FUZZ_CHECK(!strcmp(json_object_get_string(member(o, "label", json_type_string)), f->label),
		   "label \"%s\", not \"%s\"", json_object_get_string(member(o, "label", json_type_string)), f->label);
	check_number(o, "value", hwsd_feature_value(f, HWS_ITEM_INPUT));
	check_number(o, "min", hwsd_feature_value(f, HWS_ITEM_MIN));
}

static void check_sensors(const char *text, const struct input *in)
{
	json_object *root = parse_json(text), *chips, *chip, *features;

	member(root, "sensors", json_type_object);
	chips = member(member(root, "hwsight", json_type_object), "chips", json_type_array);
	FUZZ_CHECK(json_object_array_length(chips) == 1, "%zu chips", json_object_array_length(chips));
	chip = json_object_array_get_idx(chips, 0);
	FUZZ_CHECK(!strcmp(json_object_get_string(member(chip, "name", json_type_string)), in->chip.name), "name");
	FUZZ_CHECK(!strcmp(json_object_get_string(member(chip, "prefix", json_type_string)), in->chip.prefix), "prefix");
	FUZZ_CHECK(!strcmp(json_object_get_string(member(chip, "adapter", json_type_string)), in->chip.adapter),
		   "adapter");
	FUZZ_CHECK(json_object_get_boolean(member(chip, "present", json_type_boolean)) == !in->gone, "present");
	features = member(chip, "features", json_type_array);
	FUZZ_CHECK(json_object_array_length(features) == in->chip.n_features, "%zu features",
		   json_object_array_length(features));
	for (size_t i = 0; i < in->chip.n_features; i++)
		check_feature(json_object_array_get_idx(features, i), &in->chip.features[i]);
	json_object_put(root);
}

static void check_alarms(const char *text, const struct input *in)
{
	json_object *root = parse_json(text), *alarms;
	char buf[96], *save = NULL;
	size_t want = 0, n_conditions = 0;

	snprintf(buf, sizeof(buf), "%s", in->alarms);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		n_conditions++;
	if (!in->gone && in->alarms[0])
		want = in->chip.n_features;
	alarms = member(root, "alarms", json_type_array);
	FUZZ_CHECK(json_object_array_length(alarms) == want, "%zu alarms, %zu wanted",
		   json_object_array_length(alarms), want);
	for (size_t i = 0; i < want; i++) {
		json_object *a = json_object_array_get_idx(alarms, i);

		check_feature(a, &in->chip.features[i]);
		FUZZ_CHECK(json_object_array_length(member(a, "conditions", json_type_array)) == n_conditions,
			   "conditions of \"%s\"", in->alarms);
	}
	json_object_put(root);
}

/* ---- the input ----------------------------------------------------------- */

static char *page(const struct hwsd_view *view, int (*write)(const struct hwsd_view *view, FILE *f))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	FUZZ_CHECK(write(view, f) == 0, "a page failed");
	fclose(f);
	FUZZ_CHECK(strlen(text) == len, "a NUL byte in the page");
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum hws_sensor_item items[4] = { HWS_ITEM_INPUT, HWS_ITEM_MIN, HWS_ITEM_ALARM, HWS_ITEM_FAULT };
	struct fuzz_in in = { data, size };
	struct input input = { 0 };
	struct hwsd_readings readings;
	struct hwsd_live_set live;
	struct hwsd_counters counters = { 0 };
	struct hwsd_view view = { .readings = &readings, .live = &live, .counters = &counters };
	struct hws_chip *chip = &input.chip;
	unsigned flags = (unsigned)fuzz_take(&in, 1);
	char *strings[4 + MAX_FEATURES] = { 0 }, *text;

	chip->n_features = fuzz_take(&in, 1) % (MAX_FEATURES + 1);
	chip->features = input.features;
	chip->present = true;
	input.gone = flags & 1;
	for (size_t i = 0; i < chip->n_features; i++) {
		struct hws_feature *f = &input.features[i];
		unsigned bits;

		f->kind = (enum hws_sensor_kind)(fuzz_take(&in, 1) % HWS_SENSOR_KIND_MAX);
		bits = (unsigned)fuzz_take(&in, 1);
		snprintf(input.names[i], sizeof(input.names[i]), "%s%zu", hws_sensor_kind_name(f->kind), i + 1);
		f->name = input.names[i];
		f->subfeatures = input.subs[i];
		for (size_t k = 0; k < 4; k++) {
			struct hws_subfeature *s = &input.subs[i][f->n_subfeatures];

			if (!(bits & (1u << k)))
				continue;
			*s = (struct hws_subfeature){ .name = "x", .item = items[k] };
			s->value = k < 2 ? take_value(&in) : (bits >> (4 + k)) & 1;
			s->error = isnan(s->value) ? -EIO : 0;
			f->n_subfeatures++;
		}
	}
	for (size_t i = 0; i < 4 + chip->n_features; i++)
		strings[i] = next_string(&in);
	chip->name = strings[0];
	chip->prefix = strings[1];
	chip->adapter = strings[2];
	input.alarms = strings[3];
	for (size_t i = 0; i < chip->n_features; i++)
		input.features[i].label = strings[4 + i];
	/* The copy keeps at most 95 bytes of the conditions, which are
	 * ASCII in the daemon; cut where a character starts. */
	if (strlen(input.alarms) > 95) {
		size_t cut = 95;

		while (cut > 0 && ((unsigned char)strings[3][cut] & 0xc0) == 0x80)
			cut--;
		strings[3][cut] = '\0';
	}

	hwsd_readings_init(&readings);
	hwsd_live_set_init(&live);
	FUZZ_CHECK(hwsd_readings_update(&readings, chip, 1, alarms_cb, &input) == 0, "no memory");
	if (input.gone)
		hwsd_readings_gone(&readings, chip->name);

	text = page(&view, hwsd_http_metrics);
	check_metrics(text, &input);
	free(text);
	text = page(&view, hwsd_http_api_sensors);
	check_sensors(text, &input);
	free(text);
	text = page(&view, hwsd_http_api_alarms);
	check_alarms(text, &input);
	free(text);

	hwsd_live_set_done(&live);
	hwsd_readings_done(&readings);
	for (size_t i = 0; i < 4 + MAX_FEATURES; i++)
		free(strings[i]);
	return 0;
}
