/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight fans: every controllable fan output, and --calibrate OUTPUT,
 * which measures where a fan stops and starts as pwmconfig does, without
 * questions, and always gives the output back.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hwsight/fan.h>
#include <hwsight/sensors.h>

#include "commands.h"
#include "interrupt.h"
#include "options.h"
#include "output.h"

#define MAX_OUTPUTS 64
/* Below this duty the steps are finer: a fan stops and starts there. */
#define FINE_BELOW 64
#define COARSE_STEP 16
#define FINE_STEP 4

struct options {
	bool json;
	const char *calibrate;  /* CHIP/OUTPUT, or NULL to list */
	const char *tach;       /* --tach fanN */
	long settle_ms;
	char **patterns;
	int n_patterns;
};

enum { OPT_CALIBRATE = 256, OPT_SETTLE, OPT_TACH };

static const struct hws__cli_command command = {
	.name = "fans",
	.head = "Usage: hwsight fans [OPTION...] [CHIP...]\n"
		"       hwsight fans --calibrate CHIP/OUTPUT [--settle MS] [--tach fanN] [-j]\n"
		"List every controllable fan output: its mode, duty or target, and speed.\n\n",
	.options = TOOL_OPTIONS(
		{ "json", 'j', NULL, "JSON, with the keys the table has" },
		{ "calibrate", OPT_CALIBRATE, "OUTPUT",
		  "take OUTPUT (CHIP/pwmN), step its duty from 255 down\n"
		  "to find where the fan stops, then up to where it\n"
		  "starts, and give it back as it was (root)" },
		{ "settle", OPT_SETTLE, "MS", "wait MS per step before reading the tach (default 3000)" },
		{ "tach", OPT_TACH, "fanN", "the tach that measures the output (default: its number)" }),
	.column = 25,
	.tail = "\nCHIP is a libsensors chip name pattern: w83793-*, *-isa-*, applesmc-isa-0300.\n",
};

static int parse_args(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = hws__cli_next_option(&command, argc, argv)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case OPT_CALIBRATE: o->calibrate = optarg; break;
		case OPT_TACH: o->tach = optarg; break;
		case OPT_SETTLE:
			if (tool_parse_long(optarg, 0, 600000, &o->settle_ms) < 0) {
				fprintf(stderr, "hwsight fans: --settle takes milliseconds from 0 to 600000, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		default:
			return hws__cli_help_or_usage_error(c, &command);
		}
	}
	o->patterns = argv + optind;
	o->n_patterns = argc - optind;
	if (o->calibrate && o->n_patterns) {
		fprintf(stderr, "hwsight fans: --calibrate takes one CHIP/OUTPUT, not chip names besides\n");
		return -1;
	}
	if (o->tach && !o->calibrate) {
		fprintf(stderr, "hwsight fans: --tach goes with --calibrate\n");
		return -1;
	}
	return 0;
}

/* --- the list */

struct row {
	const char *chip, *output, *driver, *mode;
	enum hws_fan_unit unit;
	long value, rpm;
	int error;           /* 0, or why the output could not be read */
};

/* "40% (102)" or "2000 RPM"; "N/A" when unreadable. */
static void format_value(const struct row *r, char *buf, size_t size)
{
	if (r->error || r->value < 0)
		snprintf(buf, size, "N/A");
	else if (r->unit == HWS_FAN_UNIT_RPM)
		snprintf(buf, size, "%ld RPM", r->value);
	else
		snprintf(buf, size, "%ld%% (%ld)", (r->value * 100 + 127) / 255, r->value);
}

static void print_table(const struct row *rows, size_t n)
{
	static const char *const head[] = { "CHIP", "OUTPUT", "DRIVER", "MODE", "VALUE", "RPM" };
	int w[4] = { 0 };
	char value[64];

	for (int k = 0; k < 4; k++)
		w[k] = (int)strlen(head[k]);
	for (size_t i = 0; i < n; i++) {
		const char *cols[4] = { rows[i].chip, rows[i].output, rows[i].driver,
					rows[i].error ? "N/A" : rows[i].mode };

		for (int k = 0; k < 4; k++)
			if ((int)strlen(cols[k]) > w[k])
				w[k] = (int)strlen(cols[k]);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %-12s %s\n", w[0], head[0], w[1], head[1], w[2], head[2], w[3], head[3],
	       head[4], head[5]);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		format_value(r, value, sizeof(value));
		printf("%-*s  %-*s  %-*s  %-*s  %-12s ", w[0], r->chip, w[1], r->output, w[2], r->driver, w[3],
		       r->error ? "N/A" : r->mode, value);
		if (r->error || r->rpm < 0)
			puts("N/A");
		else
			printf("%ld\n", r->rpm);
	}
}

static void print_json(const struct row *rows, size_t n)
{
	fputs("[", stdout);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		fputs(i ? ",\n  {" : "\n  {", stdout);
		fputs("\"chip\": ", stdout);
		tool_json_string(stdout, r->chip);
		fputs(", \"output\": ", stdout);
		tool_json_string(stdout, r->output);
		fputs(", \"driver\": ", stdout);
		tool_json_string(stdout, r->driver);
		fputs(", \"mode\": ", stdout);
		tool_json_string(stdout, r->error ? NULL : r->mode);
		if (r->error || r->value < 0)
			fputs(", \"value\": null", stdout);
		else
			printf(", \"value\": %ld", r->value);
		printf(", \"unit\": \"%s\"", r->unit == HWS_FAN_UNIT_RPM ? "RPM" : "duty");
		if (r->error || r->rpm < 0)
			fputs(", \"rpm\": null}", stdout);
		else
			printf(", \"rpm\": %ld}", r->rpm);
	}
	fputs(n ? "\n]\n" : "]\n", stdout);
}

static int list(struct hws_sensors *s, const struct options *o)
{
	struct row rows[MAX_OUTPUTS * 4];
	size_t n = 0;
	int chips = 0;

	for (size_t c = 0; c < hws_sensors_chip_count(s); c++) {
		const struct hws_chip *chip = hws_sensors_chip(s, c);
		const char *names[MAX_OUTPUTS];
		int count;

		if (!chip->present || !tool_chip_selected(s, chip, o->patterns, o->n_patterns))
			continue;
		chips++;
		count = hws_fan_outputs(chip, names, MAX_OUTPUTS);
		if (count < 0) {
			fprintf(stderr, "hwsight fans: %s: cannot list its outputs: %s\n", chip->name, strerror(-count));
			continue;
		}
		for (int i = 0; i < count && i < MAX_OUTPUTS && n < sizeof(rows) / sizeof(rows[0]); i++) {
			struct hws_fan_info info = { 0 };
			struct hws_fan *f = NULL;
			struct row *r = &rows[n++];
			int e;

			*r = (struct row){ .chip = chip->name, .output = names[i], .driver = "?", .mode = "?",
					   .value = -1, .rpm = -1 };
			e = hws_fan_open(chip, names[i], NULL, &f);
			if (e >= 0)
				e = hws_fan_info(f, &info);
			hws_fan_free(f);
			if (e < 0) {
				r->error = e;
				continue;
			}
			r->driver = info.driver;
			r->mode = info.mode;
			r->unit = info.unit;
			r->value = info.value;
			r->rpm = info.rpm;
		}
	}
	if (o->json)
		print_json(rows, n);
	else if (n)
		print_table(rows, n);
	if (!chips && o->n_patterns) {
		fprintf(stderr, "hwsight fans: no chip matches %s%s\n", o->patterns[0],
			o->n_patterns > 1 ? " or the other names given" : "");
		return 1;
	}
	if (!n && !o->json)
		fprintf(stderr, "hwsight fans: no controllable fan output found\n");
	return 0;
}

/* --- calibration */

struct point {
	long duty, rpm;
};

struct calibration {
	struct point down[64], up[64];
	size_t n_down, n_up;
	long stop, start;    /* -1: not found */
};

/* The duties a sweep visits, from the top: 255 down by 16, then by 4
 * below FINE_BELOW, and 0. */
static size_t duty_steps(long *steps, size_t max)
{
	size_t n = 0;

	for (long d = 255; d > 0 && n < max; d -= d > FINE_BELOW ? COARSE_STEP : FINE_STEP)
		steps[n++] = d;
	if (n < max)
		steps[n++] = 0;
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	/* A signal cuts it short; the caller looks at tool_interrupted(). */
	nanosleep(&ts, NULL);
}

/* Set @duty, let the fan settle and read its tach into @p. */
static int step(struct hws_fan *f, long duty, long settle_ms, struct point *p)
{
	struct hws_fan_info info;
	int r;

	r = hws_fan_set(f, duty);
	if (r < 0)
		return r;
	sleep_ms(settle_ms);
	if (tool_interrupted())
		return -EINTR;
	r = hws_fan_info(f, &info);
	if (r < 0)
		return r;
	if (info.rpm < 0)
		return -ENODATA;
	*p = (struct point){ duty, info.rpm };
	return 0;
}

static int sweep(struct hws_fan *f, long settle_ms, struct calibration *c)
{
	long steps[64];
	size_t n = duty_steps(steps, 64);
	int r;

	c->stop = c->start = -1;
	for (size_t i = 0; i < n; i++) {
		r = step(f, steps[i], settle_ms, &c->down[c->n_down]);
		if (r < 0)
			return r;
		if (c->down[c->n_down++].rpm == 0) {
			c->stop = steps[i];
			break;
		}
	}
	if (c->stop < 0)
		return 0; /* it never stops: nothing to start */
	/* From a standstill, up until it turns. */
	for (size_t i = n; i-- > 0;) {
		if (steps[i] < c->stop && steps[i] != 0)
			continue;
		r = step(f, steps[i], settle_ms, &c->up[c->n_up]);
		if (r < 0)
			return r;
		if (c->up[c->n_up++].rpm > 0) {
			c->start = steps[i];
			break;
		}
	}
	return 0;
}

static void print_points(const char *name, const struct point *p, size_t n)
{
	printf(", \"%s\": [", name);
	for (size_t i = 0; i < n; i++)
		printf("%s{\"duty\": %ld, \"rpm\": %ld}", i ? ", " : "", p[i].duty, p[i].rpm);
	fputs("]", stdout);
}

static void print_calibration(const struct options *o, const char *chip, const char *output, const char *tach,
			      const struct calibration *c)
{
	if (o->json) {
		fputs("{\"chip\": ", stdout);
		tool_json_string(stdout, chip);
		fputs(", \"output\": ", stdout);
		tool_json_string(stdout, output);
		fputs(", \"tach\": ", stdout);
		tool_json_string(stdout, tach);
		printf(", \"settle_ms\": %ld", o->settle_ms);
		printf(c->stop < 0 ? ", \"stop\": null" : ", \"stop\": %ld", c->stop);
		printf(c->start < 0 ? ", \"start\": null" : ", \"start\": %ld", c->start);
		print_points("down", c->down, c->n_down);
		print_points("up", c->up, c->n_up);
		fputs("}\n", stdout);
		return;
	}
	printf("%s/%s (tach %s, %ld ms a step)\n", chip, output, tach, o->settle_ms);
	printf("  duty   RPM\n");
	for (size_t i = 0; i < c->n_down; i++)
		printf("  %4ld  %4ld\n", c->down[i].duty, c->down[i].rpm);
	for (size_t i = 0; i < c->n_up; i++)
		printf("  %4ld  %4ld  (up)\n", c->up[i].duty, c->up[i].rpm);
	if (c->stop < 0)
		printf("stop duty:  none (the fan still turns at duty 0)\n");
	else
		printf("stop duty:  %ld\n", c->stop);
	if (c->start >= 0)
		printf("start duty: %ld\n", c->start);
	else if (c->stop >= 0)
		printf("start duty: none (the fan did not start again up to 255)\n");
}

/* CHIP/OUTPUT: the one chip the pattern names, and the output. */
static int find_output(struct hws_sensors *s, const char *arg, const struct hws_chip **ret_chip,
		       const char **ret_output)
{
	const struct hws_chip *found = NULL;
	const char *slash = strrchr(arg, '/');
	char pattern[256];
	int matches = 0;

	if (!slash || slash == arg || !slash[1] || (size_t)(slash - arg) >= sizeof(pattern)) {
		fprintf(stderr, "hwsight fans: --calibrate takes CHIP/OUTPUT (w83793-*/pwm1), not '%s'\n", arg);
		return 2;
	}
	memcpy(pattern, arg, (size_t)(slash - arg));
	pattern[slash - arg] = '\0';
	if (tool_check_chip_patterns(s, "fans", &(char *){ pattern }, 1) < 0)
		return 2;
	for (size_t c = 0; c < hws_sensors_chip_count(s); c++) {
		const struct hws_chip *chip = hws_sensors_chip(s, c);

		if (chip->present && hws_sensors_chip_match(s, chip, pattern) > 0) {
			found = chip;
			matches++;
		}
	}
	if (!matches) {
		fprintf(stderr, "hwsight fans: no chip matches %s\n", pattern);
		return 1;
	}
	if (matches > 1) {
		fprintf(stderr, "hwsight fans: %s matches %d chips; name one (hwsight fans lists them)\n", pattern,
			matches);
		return 2;
	}
	*ret_chip = found;
	*ret_output = slash + 1;
	return 0;
}

static int open_output(const struct hws_chip *chip, const char *output, const struct options *o,
		       struct hws_fan **ret)
{
	struct hws_fan_options fo = { .hold = HWS_FAN_HOLD_MANUAL, .tach = o->tach };
	const char *names[MAX_OUTPUTS];
	int r, n;

	r = hws_fan_open(chip, output, &fo, ret);
	if (r == -EINVAL && o->tach) {
		fprintf(stderr, "hwsight fans: --tach takes fanN, not '%s'\n", o->tach);
		return 2;
	}
	if (r == -ENOENT) {
		fprintf(stderr, "hwsight fans: %s has no fan output %s", chip->name, output);
		n = hws_fan_outputs(chip, names, MAX_OUTPUTS);
		for (int i = 0; i < n && i < MAX_OUTPUTS; i++)
			fprintf(stderr, "%s%s", i ? " " : "; it has ", names[i]);
		fputs(n > 0 ? "\n" : "; it has none\n", stderr);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "hwsight fans: %s/%s: %s\n", chip->name, output, strerror(-r));
		return 1;
	}
	return 0;
}

static int calibrate(struct hws_sensors *s, const struct options *o)
{
	struct calibration c = { .stop = -1, .start = -1 };
	const struct hws_chip *chip = NULL;
	struct hws_fan_info info;
	struct hws_fan *f = NULL;
	const char *output = NULL;
	char tach[32];
	int r, rr, status;

	status = find_output(s, o->calibrate, &chip, &output);
	if (status)
		return status;
	status = open_output(chip, output, o, &f);
	if (status)
		return status;
	/* What hws_fan_open() defaults to: pwm2 -> fan2. */
	snprintf(tach, sizeof(tach), "%s%s", o->tach ? "" : "fan", o->tach ? o->tach : output + strcspn(output, "0123456789"));
	r = hws_fan_info(f, &info);
	if (r >= 0 && info.unit != HWS_FAN_UNIT_DUTY) {
		fprintf(stderr, "hwsight fans: %s/%s is driven by a target speed, not a duty: nothing to calibrate\n",
			chip->name, output);
		hws_fan_free(f);
		return 1;
	}
	if (r >= 0 && info.rpm < 0) {
		fprintf(stderr, "hwsight fans: %s/%s: its tach %s cannot be read; name the right one with --tach\n",
			chip->name, output, tach);
		hws_fan_free(f);
		return 1;
	}
	/* From here on the output is given back on every way out, a signal
	 * included: the handler only sets a flag. */
	tool_catch_interrupts();
	if (r >= 0)
		r = hws_fan_take(f);
	if (r >= 0)
		r = sweep(f, o->settle_ms, &c);
	rr = hws_fan_release(f);
	if (r == -EINTR || tool_interrupted()) {
		fprintf(stderr, "hwsight fans: %s/%s: interrupted; the output is given back%s\n", chip->name, output,
			rr < 0 ? ", but the restore failed" : "");
		status = 1;
	} else if (r < 0) {
		fprintf(stderr, "hwsight fans: %s/%s: %s%s\n", chip->name, output, strerror(-r),
			r == -EACCES || r == -EPERM ? " (calibration writes to the chip: run as root)" : "");
		status = 1;
	} else {
		print_calibration(o, chip->name, output, tach, &c);
	}
	if (rr < 0 && r != -EINTR) {
		fprintf(stderr, "hwsight fans: %s/%s: could not give the output back: %s\n", chip->name, output,
			strerror(-rr));
		status = 1;
	}
	hws_fan_free(f);
	return status;
}

int hws_cmd_fans(int argc, char **argv)
{
	struct options o = { .settle_ms = 3000 };
	struct hws_sensors_options so = { .reader = HWS_READER_PREAD };
	struct hws_sensors *s = NULL;
	int r, status;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	r = hws_sensors_new(&so, &s);
	if (r < 0) {
		fprintf(stderr, "hwsight fans: cannot read the sensors: %s\n", strerror(-r));
		return 1;
	}
	if (tool_check_chip_patterns(s, "fans", o.patterns, o.n_patterns) < 0)
		status = 2;
	else
		status = o.calibrate ? calibrate(s, &o) : list(s, &o);
	hws_sensors_free(s);
	return status;
}
