/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The baseline: libsensors used directly, as sensors(1) and most pollers
 * use it. sensors_init() once per round, then per poll every detected chip,
 * every feature, every readable subfeature through sensors_get_value(),
 * which opens, reads and closes the attribute each time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sensors/error.h>
#include <sensors/sensors.h>

#include "bench.h"

/* hwsight installs its own libsensors hooks while it has a context; put
 * ours in before every sensors_init() so a config complaint lands here. */
static void parse_error(const char *err, int line)
{
	fprintf(stderr, "hwsight-bench-sensors: libsensors: sensors config:%d: %s\n", line, err);
}

static void parse_error_wfn(const char *err, const char *file, int line)
{
	fprintf(stderr, "hwsight-bench-sensors: libsensors: %s:%d: %s\n", file, line, err);
}

static void fatal_error(const char *proc, const char *err)
{
	fprintf(stderr, "hwsight-bench-sensors: libsensors: %s: %s\n", proc, err);
	exit(1);
}

static int ls_begin(struct variant *v)
{
	FILE *f = NULL;
	int r;

	sensors_parse_error = parse_error;
	sensors_parse_error_wfn = parse_error_wfn;
	sensors_fatal_error = fatal_error;
	if (v->opts->config && !(f = fopen(v->opts->config, "re"))) {
		r = -errno;
		variant_error(v, "%s: %s", v->opts->config, strerror(-r));
		return r;
	}
	r = sensors_init(f);
	if (f)
		fclose(f);
	if (r) {
		variant_error(v, "sensors_init: %s", sensors_strerror(r));
		sensors_cleanup();
		return -EINVAL;
	}
	v->priv = v; /* initialised */
	r = variant_libsensors.poll(v);
	return r < 0 ? r : 0;
}

static int ls_poll(struct variant *v)
{
	const sensors_chip_name *chip;
	int c = 0, ok = 0;

	while ((chip = sensors_get_detected_chips(NULL, &c))) {
		const sensors_feature *feature;
		int f = 0;

		while ((feature = sensors_get_features(chip, &f))) {
			const sensors_subfeature *sub;
			int s = 0;

			while ((sub = sensors_get_all_subfeatures(chip, feature, &s))) {
				double value;

				if ((sub->flags & SENSORS_MODE_R) && sensors_get_value(chip, sub->number, &value) == 0)
					ok++;
			}
		}
	}
	return ok;
}

static int ls_snapshot(struct variant *v, struct snapshot *ret)
{
	const sensors_chip_name *chip;
	int c = 0, r = 0;

	while (r == 0 && (chip = sensors_get_detected_chips(NULL, &c))) {
		const sensors_feature *feature;
		char name[128];
		int f = 0;

		if (sensors_snprintf_chip_name(name, sizeof(name), chip) < 0)
			return -EINVAL;
		while (r == 0 && (feature = sensors_get_features(chip, &f))) {
			const sensors_subfeature *sub;
			int s = 0;

			while (r == 0 && (sub = sensors_get_all_subfeatures(chip, feature, &s))) {
				double value = 0;
				int e;

				if (!(sub->flags & SENSORS_MODE_R))
					continue;
				e = sensors_get_value(chip, sub->number, &value);
				r = snapshot_add(ret, name, sub->name, value, e);
			}
		}
	}
	snapshot_sort(ret);
	return r;
}

static void ls_end(struct variant *v)
{
	if (v->priv)
		sensors_cleanup();
	v->priv = NULL;
}

static int64_t ls_cpu(struct variant *v)
{
	return cpu_self_ns();
}

const struct variant_ops variant_libsensors = {
	.name = "libsensors",
	.what = "sensors_get_value() for every readable subfeature of every detected chip",
	.begin = ls_begin,
	.poll = ls_poll,
	.snapshot = ls_snapshot,
	.end = ls_end,
	.cpu_ns = ls_cpu,
};
