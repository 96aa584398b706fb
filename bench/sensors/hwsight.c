/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight's own readers. A context is made per round and freed at its end,
 * because libsensors' state is process-wide and the raw libsensors variant
 * runs in the same process between two rounds of these.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsight/sensors.h>

#include "bench.h"

struct hws_variant {
	enum hws_sensors_reader reader;
	unsigned flags; /* hws_sensors_read() flags of every poll */
};

static const struct hws_variant fast_live = { HWS_READER_FAST, 0 };
static const struct hws_variant fast_all = { HWS_READER_FAST, HWS_READ_SETTINGS };
static const struct hws_variant pread_live = { HWS_READER_PREAD, 0 };
static const struct hws_variant hws_libsensors = { HWS_READER_LIBSENSORS, HWS_READ_SETTINGS };

static const struct hws_variant *config_of(const struct variant *v)
{
	return v->ops->data;
}

static void log_hook(void *userdata, const char *message)
{
	struct variant *v = userdata;

	/* Config complaints only; the library logs nothing on a good run. */
	fprintf(stderr, "hwsight-bench-sensors: %s: %s\n", v->ops->name, message);
}

static int hws_begin(struct variant *v)
{
	const struct hws_variant *c = config_of(v);
	struct hws_sensors_options o = {
		.config = v->opts->config,
		.reader = c->reader,
		.log = log_hook,
		.log_userdata = v,
	};
	struct hws_sensors *s;
	int r;

	r = hws_sensors_new(&o, &s);
	if (r < 0) {
		variant_error(v, "hws_sensors_new: %s", strerror(-r));
		return r;
	}
	/* The first read of a chip reads its settings too: the daemon's
	 * steady state starts after it. */
	r = hws_sensors_read(s, HWS_READ_SETTINGS);
	if (r < 0) {
		variant_error(v, "hws_sensors_read: %s", strerror(-r));
		hws_sensors_free(s);
		return r;
	}
	v->priv = s;
	return 0;
}

static int hws_poll(struct variant *v)
{
	int r = hws_sensors_read(v->priv, config_of(v)->flags);

	if (r < 0)
		variant_error(v, "hws_sensors_read: %s", strerror(-r));
	return r;
}

static int hws_snapshot(struct variant *v, struct snapshot *ret)
{
	const struct hws_sensors *s = v->priv;
	const struct hws_chip *chip;
	unsigned count[2][2] = { { 0 } }; /* [extra][live] */
	int r = 0;

	/* libsensors' subfeatures only: extras (pwm ...) have no peer. */
	for (size_t c = 0; r == 0 && (chip = hws_sensors_chip(s, c)); c++)
		for (size_t f = 0; r == 0 && f < chip->n_features; f++)
			for (size_t i = 0; r == 0 && i < chip->features[f].n_subfeatures; i++) {
				const struct hws_subfeature *sub = &chip->features[f].subfeatures[i];
				bool extra = sub->flags & HWS_SUB_EXTRA;

				count[extra][!!(sub->flags & HWS_SUB_LIVE)]++;
				if (!extra)
					r = snapshot_add(ret, chip->name, sub->name, sub->value, sub->error);
			}
	snapshot_sort(ret);
	snprintf(v->res.detail, sizeof(v->res.detail),
		 "hwsight reads %u values: %u that libsensors reads too (%u live) "
		 "+ %u it does not know (%u live: pwm duty cycles ...);\n"
		 "  fast-live re-reads the %u settings every 60 s, which polls back to back never reach: "
		 "+%.1f preads a poll at one poll a second",
		 count[0][0] + count[0][1] + count[1][0] + count[1][1], count[0][0] + count[0][1],
		 count[0][1], count[1][0] + count[1][1], count[1][1], count[0][0] + count[1][0],
		 (count[0][0] + count[1][0]) / 60.0);
	return r;
}

static void hws_end(struct variant *v)
{
	v->priv = hws_sensors_free(v->priv);
}

static int64_t hws_cpu(struct variant *v)
{
	return cpu_self_ns();
}

const struct variant_ops variant_fast_live = {
	.data = &fast_live,
	.name = "fast-live",
	.what = "hws_sensors_read(s, 0), HWS_READER_FAST: the live values (inputs, alarms, faults) "
		"as one io_uring batch; settings every 60 s",
	.begin = hws_begin,
	.poll = hws_poll,
	.snapshot = hws_snapshot,
	.end = hws_end,
	.cpu_ns = hws_cpu,
};

const struct variant_ops variant_fast_all = {
	.data = &fast_all,
	.name = "fast-all",
	.what = "hws_sensors_read(s, HWS_READ_SETTINGS), HWS_READER_FAST: every value, one io_uring batch",
	.begin = hws_begin,
	.poll = hws_poll,
	.snapshot = hws_snapshot,
	.end = hws_end,
	.cpu_ns = hws_cpu,
};

const struct variant_ops variant_pread_live = {
	.data = &pread_live,
	.name = "pread-live",
	.what = "hws_sensors_read(s, 0), HWS_READER_PREAD: one pread() per live value; settings every 60 s",
	.begin = hws_begin,
	.poll = hws_poll,
	.snapshot = hws_snapshot,
	.end = hws_end,
	.cpu_ns = hws_cpu,
};

const struct variant_ops variant_hws_libsensors = {
	.data = &hws_libsensors,
	.name = "hws-libsensors",
	.what = "hws_sensors_read(s, HWS_READ_SETTINGS), HWS_READER_LIBSENSORS: "
		"sensors_get_value() for each value libsensors knows",
	.begin = hws_begin,
	.poll = hws_poll,
	.snapshot = hws_snapshot,
	.end = hws_end,
	.cpu_ns = hws_cpu,
};

static void log_count(void *userdata, const char *message)
{
	fprintf(stderr, "hwsight-bench-sensors: %s\n", message);
}

int hwsight_chip_count(const char *config, size_t *ret_count, char *names, size_t size)
{
	struct hws_sensors_options o = { .config = config, .log = log_count };
	const struct hws_chip *chip;
	struct hws_sensors *s;
	size_t n = 0, len = 0;
	int r;

	r = hws_sensors_new(&o, &s);
	/* libsensors refuses to start without sysfs' hwmon class: no chips. */
	if (r == -ENODEV) {
		*ret_count = 0;
		return 0;
	}
	if (r < 0)
		return r;
	if (size)
		names[0] = '\0';
	for (; (chip = hws_sensors_chip(s, n)); n++)
		if (len < size)
			len += snprintf(names + len, size - len, "%s%s", n ? ", " : "", chip->name);
	hws_sensors_free(s);
	*ret_count = n;
	return 0;
}
