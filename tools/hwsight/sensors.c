/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight sensors: every hwmon chip, as lm-sensors' sensors(1) shows it,
 * with -u for raw subfeatures and -j for JSON in sensors -j's shape.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hwsight/sensors.h>

#include "commands.h"
#include "interrupt.h"
#include "options.h"
#include "output.h"

enum output { OUT_HUMAN, OUT_RAW, OUT_JSON };

struct options {
	enum output output;
	const char *config;
	enum hws_sensors_reader reader;
	bool reader_set;
	bool no_adapter;
	bool set;
	double watch;        /* seconds; 0: read once */
	char **patterns;
	int n_patterns;
};

enum { OPT_WATCH = 256, OPT_READER };

static const struct hws__cli_command command = {
	.name = "sensors",
	.head = "Usage: hwsight sensors [OPTION...] [CHIP...]\n"
		"Read every hardware monitor chip, like sensors(1).\n\n",
	.options = TOOL_OPTIONS(
		{ "raw", 'u', NULL, "show raw subfeatures" },
		{ "json", 'j', NULL, "JSON, in the shape of sensors -j (null for unreadable values)" },
		{ "config", 'c', "FILE", "use FILE instead of /etc/sensors3.conf and /etc/sensors.d" },
		{ "set", 's', NULL, "write the config's set statements to the chips (root)" },
		{ "no-adapter", 'A', NULL, "do not show the adapter of each chip" },
		{ "watch", OPT_WATCH, "SECONDS", "read again every SECONDS until interrupted" },
		{ "reader", OPT_READER, "NAME",
		  "fast (one io_uring batch a reading), pread (one pread\n"
		  "per value) or libsensors (sensors_get_value per value)" }),
	.column = 23,
	.tail = "\nCHIP is a libsensors chip name pattern: w83793-*, *-isa-*, applesmc-isa-0300.\n",
};

static void log_to_stderr(void *userdata, const char *message)
{
	(void)userdata;
	fprintf(stderr, "hwsight sensors: %s\n", message);
}

static int parse_args(int argc, char **argv, struct options *o)
{
	char *end;
	int c;

	while ((c = hws__cli_next_option(&command, argc, argv)) != -1) {
		switch (c) {
		case 'u': o->output = OUT_RAW; break;
		case 'j': o->output = OUT_JSON; break;
		case 'c': o->config = optarg; break;
		case 's': o->set = true; break;
		case 'A': o->no_adapter = true; break;
		case OPT_WATCH:
			errno = 0;
			o->watch = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(o->watch >= 0.1 && o->watch <= 86400)) {
				fprintf(stderr, "hwsight sensors: --watch takes seconds between 0.1 and 86400, not '%s'\n", optarg);
				return -1;
			}
			break;
		case OPT_READER:
			if (!strcmp(optarg, "fast"))
				o->reader = HWS_READER_FAST;
			else if (!strcmp(optarg, "pread"))
				o->reader = HWS_READER_PREAD;
			else if (!strcmp(optarg, "libsensors"))
				o->reader = HWS_READER_LIBSENSORS;
			else {
				fprintf(stderr, "hwsight sensors: --reader is fast, pread or libsensors, not '%s'\n",
					optarg);
				return -1;
			}
			o->reader_set = true;
			break;
		default: /* -h too */
			return hws__cli_help_or_usage_error(c, &command);
		}
	}
	/* One reading goes through libsensors, as sensors(1) does; repeated
	 * readings are what the fast reader is for. */
	if (!o->reader_set)
		o->reader = o->watch > 0 ? HWS_READER_FAST : HWS_READER_LIBSENSORS;
	o->patterns = argv + optind;
	o->n_patterns = argc - optind;
	return 0;
}

static void print_json_chip(FILE *f, const struct hws_chip *chip, const struct options *o, bool first)
{
	bool first_feature = true;

	fputs(first ? "   " : ",\n   ", f);
	tool_json_string(f, chip->name);
	fputs(":{\n", f);
	if (!o->no_adapter) {
		fputs("      \"Adapter\": ", f);
		tool_json_string(f, chip->adapter);
		first_feature = false;
	}
	for (size_t i = 0; i < chip->n_features; i++) {
		const struct hws_feature *ft = &chip->features[i];
		bool first_sub = true;

		/* sensors -j's keys are libsensors' labels, and it knows
		 * nothing of hwsight's extras. */
		if (!ft->sensors_label)
			continue;
		fputs(first_feature ? "      " : ",\n      ", f);
		first_feature = false;
		tool_json_string(f, ft->sensors_label);
		fputs(":{\n", f);
		for (size_t j = 0; j < ft->n_subfeatures; j++) {
			const struct hws_subfeature *sub = &ft->subfeatures[j];

			if (sub->flags & HWS_SUB_EXTRA)
				continue;
			fputs(first_sub ? "         " : ",\n         ", f);
			first_sub = false;
			tool_json_string(f, sub->name);
			if (sub->error)
				fputs(": null", f);
			else
				fprintf(f, ": %.3f", sub->value);
		}
		fputs("\n      }", f);
	}
	fputs("\n   }", f);
}

static void print_raw_chip(FILE *f, const struct hws_chip *chip, const struct options *o)
{
	fprintf(f, "%s\n", chip->name);
	if (!o->no_adapter)
		fprintf(f, "Adapter: %s\n", chip->adapter);
	for (size_t i = 0; i < chip->n_features; i++) {
		const struct hws_feature *ft = &chip->features[i];

		fprintf(f, "%s:\n", ft->label);
		for (size_t j = 0; j < ft->n_subfeatures; j++) {
			const struct hws_subfeature *sub = &ft->subfeatures[j];
			if (sub->error)
				fprintf(f, "  %s: N/A (%s)\n", sub->name, strerror(-sub->error));
			else
				fprintf(f, "  %s: %.3f\n", sub->name, sub->value);
		}
	}
	fputc('\n', f);
}

/* The SI prefix sensors(1) gives a reading (not a limit): "792.00 mV". */
static const char *si_prefix(double *v)
{
	static const struct { double upper; const char *prefix; } scales[] = {
		{ 1e-6, "n" }, { 1e-3, "u" }, { 1, "m" }, { 1e3, "" }, { 1e6, "k" }, { 1e9, "M" }, { 0, "G" },
	};
	double divisor = 1e-9;
	size_t k = 0;

	if (*v == 0)
		return "";
	while (scales[k].upper && fabs(*v) > scales[k].upper)
		divisor = scales[k++].upper;
	*v /= divisor;
	return scales[k].prefix;
}

/* A value as sensors(1) prints it for this kind of channel. */
static void format_value(char *buf, size_t size, enum hws_sensor_kind kind, double v, bool with_sign)
{
	const char *prefix;

	switch (kind) {
	case HWS_SENSOR_IN:
	case HWS_SENSOR_CURR:
	case HWS_SENSOR_POWER:
	case HWS_SENSOR_ENERGY:
		if (with_sign)
			goto plain;
		prefix = si_prefix(&v);
		snprintf(buf, size, "%6.2f %s%s", v, prefix, hws_sensor_unit(kind));
		break;
	case HWS_SENSOR_FAN:
		snprintf(buf, size, "%4.0f RPM", v);
		break;
	case HWS_SENSOR_TEMP:
		snprintf(buf, size, with_sign ? "%+.1f°C" : "%+6.1f°C", v);
		break;
	case HWS_SENSOR_PWM:
		snprintf(buf, size, "%3.0f%%", v * 100 / 255);
		break;
	default:
	plain:
		snprintf(buf, size, with_sign ? "%+.2f %s" : "%6.2f %s", v, hws_sensor_unit(kind));
	}
}

static bool is_set(const struct hws_feature *ft, enum hws_sensor_item item)
{
	const struct hws_subfeature *s = hws_subfeature_find(ft, item);

	return s && !s->error && s->value != 0;
}

/* The alarm words sensors(1) prints: which limit was crossed, if known. */
static void print_alarms(FILE *f, const struct hws_feature *ft)
{
	static const struct { enum hws_sensor_item item; const char *temp, *other; } alarms[] = {
		{ HWS_ITEM_LCRIT_ALARM, "LCRIT", "LCRIT" }, { HWS_ITEM_MIN_ALARM, "LOW", "MIN" },
		{ HWS_ITEM_MAX_ALARM, "HIGH", "MAX" }, { HWS_ITEM_CRIT_ALARM, "CRIT", "CRIT" },
		{ HWS_ITEM_EMERGENCY_ALARM, "EMERGENCY", "EMERGENCY" },
	};
	bool any = false;

	for (size_t k = 0; k < sizeof(alarms) / sizeof(alarms[0]); k++) {
		if (!is_set(ft, alarms[k].item))
			continue;
		fprintf(f, "%s%s", any ? ", " : "  ALARM (",
			ft->kind == HWS_SENSOR_TEMP ? alarms[k].temp : alarms[k].other);
		any = true;
	}
	if (any)
		fputc(')', f);
	else if (is_set(ft, HWS_ITEM_ALARM))
		fputs("  ALARM", f);
}

static const char *temp_sensor_type(long type)
{
	switch (type) {
	case 1: return "CPU diode";
	case 2: return "transistor";
	case 3: return "thermal diode";
	case 4: return "thermistor";
	case 5: return "AMD AMDSI";
	case 6: return "Intel PECI";
	default: return NULL;
	}
}

static void print_human_feature(FILE *f, const struct hws_chip *chip, const struct hws_feature *ft, int width)
{
	static const struct { enum hws_sensor_item item; const char *name; } limits[] = {
		{ HWS_ITEM_LCRIT, "crit low" }, { HWS_ITEM_MIN, "min" }, { HWS_ITEM_MAX, "max" },
		{ HWS_ITEM_MAX_HYST, "hyst" }, { HWS_ITEM_CRIT, "crit" }, { HWS_ITEM_CRIT_HYST, "crit hyst" },
		{ HWS_ITEM_EMERGENCY, "emerg" }, { HWS_ITEM_AVERAGE, "avg" },
	};
	const struct hws_subfeature *in = hws_subfeature_find(ft, HWS_ITEM_INPUT);
	const struct hws_subfeature *en = hws_subfeature_find(ft, HWS_ITEM_ENABLE);
	const struct hws_subfeature *type = hws_subfeature_find(ft, HWS_ITEM_TYPE);
	bool open = false;
	const char *name;
	char buf[64];

	fprintf(f, "%s:%*s", ft->label, (int)(width - strlen(ft->label)), "");
	if (ft->kind == HWS_SENSOR_INTRUSION) {
		fputs(is_set(ft, HWS_ITEM_ALARM) ? "ALARM\n" : "OK\n", f);
		return;
	}
	if (ft->kind == HWS_SENSOR_BEEP_ENABLE) {
		fputs(in && !in->error && in->value != 0 ? "enabled\n" : "disabled\n", f);
		return;
	}
	if (ft->kind == HWS_SENSOR_LIGHT) {
		for (size_t k = 0; k < ft->n_subfeatures; k++) {
			const struct hws_subfeature *s = &ft->subfeatures[k];
			const char *side = strrchr(s->name, '_') ? strrchr(s->name, '_') + 1 : s->name;

			if (s->error)
				fprintf(f, "%s%s N/A", k ? ", " : "", side);
			else
				fprintf(f, "%s%s %.0f", k ? ", " : "", side, s->value);
		}
		fputc('\n', f);
		return;
	}
	/* A faulty channel's reading means nothing: say FAULT instead. */
	if (is_set(ft, HWS_ITEM_FAULT))
		fputs("   FAULT", f);
	else if (!in)
		fputs("        ", f);
	else if (in->error)
		fputs("     N/A", f);
	else {
		format_value(buf, sizeof(buf), ft->kind, in->value, false);
		fputs(buf, f);
	}
	for (size_t k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		const struct hws_subfeature *s = hws_subfeature_find(ft, limits[k].item);

		if (!s || s->error)
			continue;
		format_value(buf, sizeof(buf), ft->kind, s->value, true);
		/* sensors(1) calls a temperature's limits high and low. */
		name = limits[k].name;
		if (ft->kind == HWS_SENSOR_TEMP && limits[k].item == HWS_ITEM_MAX)
			name = "high";
		else if (ft->kind == HWS_SENSOR_TEMP && limits[k].item == HWS_ITEM_MIN)
			name = "low";
		fprintf(f, "%s%s = %s", open ? ", " : "  (", name, buf);
		open = true;
	}
	if (open)
		fputc(')', f);
	if (ft->kind == HWS_SENSOR_PWM && en && !en->error) {
		const char *mode = hws_chip_pwm_mode_name(chip, (long)en->value);
		fprintf(f, "  (mode: %s)", mode ? mode : "unknown");
	}
	if (ft->kind == HWS_SENSOR_TEMP && type && !type->error && temp_sensor_type((long)type->value))
		fprintf(f, "  sensor = %s", temp_sensor_type((long)type->value));
	print_alarms(f, ft);
	fputc('\n', f);
}

static void print_human_chip(FILE *f, const struct hws_chip *chip, const struct options *o)
{
	int width = 0;

	fprintf(f, "%s\n", chip->name);
	if (!o->no_adapter)
		fprintf(f, "Adapter: %s\n", chip->adapter);
	for (size_t i = 0; i < chip->n_features; i++)
		if ((int)strlen(chip->features[i].label) > width)
			width = (int)strlen(chip->features[i].label);
	width = width + 2 > 13 ? width + 2 : 13;
	for (size_t i = 0; i < chip->n_features; i++)
		print_human_feature(f, chip, &chip->features[i], width - 1);
	fputc('\n', f);
}

/* Prints one reading of the selected chips; returns how many values of
 * them were readable, or -1 if no chip was selected. */
static int print_all(const struct hws_sensors *s, const struct options *o)
{
	int readable = 0, chips = 0;

	if (o->output == OUT_JSON)
		fputs("{\n", stdout);
	for (size_t i = 0; i < hws_sensors_chip_count(s); i++) {
		const struct hws_chip *chip = hws_sensors_chip(s, i);

		/* A chip without a single channel is no sensor (sensors(1)
		 * leaves it out too); -j carries exactly the chips sensors -j
		 * does, those libsensors lists. */
		if (!chip->present || !chip->n_features ||
		    !tool_chip_selected(s, chip, o->patterns, o->n_patterns) ||
		    (o->output == OUT_JSON && !chip->listed))
			continue;
		for (size_t f = 0; f < chip->n_features; f++)
			for (size_t j = 0; j < chip->features[f].n_subfeatures; j++)
				readable += !chip->features[f].subfeatures[j].error;
		if (o->output == OUT_JSON)
			print_json_chip(stdout, chip, o, chips == 0);
		else if (o->output == OUT_RAW)
			print_raw_chip(stdout, chip, o);
		else
			print_human_chip(stdout, chip, o);
		chips++;
	}
	if (o->output == OUT_JSON)
		fputs(chips ? "\n}\n" : "}\n", stdout);
	fflush(stdout);
	return chips ? readable : -1;
}

static int apply_sets(struct hws_sensors *s, const struct options *o)
{
	int status = 0;

	for (size_t i = 0; i < hws_sensors_chip_count(s); i++) {
		const struct hws_chip *chip = hws_sensors_chip(s, i);
		int r;

		if (!tool_chip_selected(s, chip, o->patterns, o->n_patterns))
			continue;
		r = hws_sensors_apply_sets(s, chip);
		if (r < 0 && r != -EOPNOTSUPP) {
			fprintf(stderr, "hwsight sensors: %s: cannot apply the config's set statements: %s%s\n",
				chip->name, strerror(-r), r == -EACCES ? " (run as root)" : "");
			status = 1;
		}
	}
	return status;
}

static void sleep_seconds(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - floor(seconds)) * 1e9) };

	/* A signal cuts the sleep short, and the loop then stops. */
	nanosleep(&ts, NULL);
}

int hws_cmd_sensors(int argc, char **argv)
{
	struct options o = { .output = OUT_HUMAN };
	struct hws_sensors_options so = { .log = log_to_stderr };
	struct hws_sensors *s = NULL;
	int r, status = 0;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	so.config = o.config;
	so.reader = o.reader;
	r = hws_sensors_new(&so, &s);
	if (r < 0) {
		if (r == -ENOENT && o.config)
			fprintf(stderr, "hwsight sensors: %s: no such config file\n", o.config);
		else if (r == -EINVAL)
			fprintf(stderr, "hwsight sensors: the sensors config has errors (see above); nothing was read\n");
		else
			fprintf(stderr, "hwsight sensors: cannot read the sensors: %s\n", strerror(-r));
		return 1;
	}
	if (tool_check_chip_patterns(s, "sensors", o.patterns, o.n_patterns) < 0) {
		hws_sensors_free(s);
		return 2;
	}
	if (o.set)
		status = apply_sets(s, &o);

	if (o.watch > 0)
		tool_catch_interrupts();
	do {
		if (o.watch > 0 && hws_sensors_rescan(s) < 0)
			fprintf(stderr, "hwsight sensors: cannot look for new chips\n");
		r = hws_sensors_read(s, 0);
		if (r < 0) {
			fprintf(stderr, "hwsight sensors: read failed: %s\n", strerror(-r));
			status = 1;
			break;
		}
		r = print_all(s, &o);
		if (o.watch == 0 && r < 0) {
			if (o.n_patterns)
				fprintf(stderr, "hwsight sensors: no chip matches %s%s\n", o.patterns[0],
					o.n_patterns > 1 ? " or the other names given" : "");
			else
				fprintf(stderr, "hwsight sensors: no sensors found; load your chip's driver"
					" ('hwsight detect' tells which)\n");
			status = 1;
		} else if (o.watch == 0 && r == 0) {
			fprintf(stderr, "hwsight sensors: no value could be read\n");
			status = 1;
		}
		if (o.watch > 0 && !tool_interrupted())
			sleep_seconds(o.watch);
	} while (o.watch > 0 && !tool_interrupted());
	hws_sensors_free(s);
	return status;
}
