/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sensors context: the chips found, the reader chosen, and when the
 * settings are due to be read again.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sensors/sensors-internal.h"
#include "time-util.h"

/* libsensors' state is process-wide: one context at a time. */
static atomic_flag in_use = ATOMIC_FLAG_INIT;

static const struct hws__reader_ops *reader(const struct hws_sensors *s)
{
	return s->opts.reader == HWS_READER_LIBSENSORS ? &hws__reader_libsensors : &hws__reader_fast;
}

static void chips_free(struct hws_sensors *s)
{
	for (size_t i = 0; i < s->n_chips; i++) {
		reader(s)->close_chip(s->chips[i]);
		hws__chip_free(s->chips[i]);
	}
	free(s->chips);
	s->chips = NULL;
	s->n_chips = 0;
}

static int chips_load(struct hws_sensors *s)
{
	bool again = s->config_text != NULL;
	int r;

	if (!again) {
		r = hws__sensors_conf_snapshot(s->config, &s->config_text, &s->config_len);
		if (r < 0)
			return r;
	}
	r = hws__libsensors_load(s, again);
	if (r < 0)
		return r;
	r = hws__hwmon_scan(&s->chips, &s->n_chips);
	for (size_t i = 0; r >= 0 && i < s->n_chips; i++)
		r = hws__libsensors_merge(s, s->chips[i]);
	return r;
}

static bool reader_valid(enum hws_sensors_reader r)
{
	return r == HWS_READER_FAST || r == HWS_READER_LIBSENSORS || r == HWS_READER_PREAD;
}

/* Take @opts as the context's, its config read afresh at the next load. */
static int options_set(struct hws_sensors *s, const struct hws_sensors_options *opts)
{
	char *config = NULL;

	if (opts && opts->config && !(config = strdup(opts->config)))
		return -ENOMEM;
	s->opts = opts ? *opts : (struct hws_sensors_options){ 0 };
	if (!s->opts.settings_refresh_ms)
		s->opts.settings_refresh_ms = 60000;
	s->opts.config = NULL;
	s->config = config;
	s->config_text = NULL;
	s->config_len = 0;
	return 0;
}

/* Without io_uring the fast reader reads value by value. */
static void batch_fit(struct hws_sensors *s)
{
	if (s->opts.reader != HWS_READER_FAST) {
		hws__batch_free(s->batch);
		s->batch = NULL;
	} else if (!s->batch && hws__batch_new(&s->batch) < 0)
		s->batch = NULL;
}

int hws_sensors_new(const struct hws_sensors_options *opts, struct hws_sensors **ret_sensors)
{
	struct hws_sensors *s;
	int r;

	if (!ret_sensors || (opts && !reader_valid(opts->reader)))
		return -EINVAL;
	if (atomic_flag_test_and_set(&in_use))
		return -EBUSY;
	s = calloc(1, sizeof(*s));
	if (!s) {
		atomic_flag_clear(&in_use);
		return -ENOMEM;
	}
	r = options_set(s, opts);
	if (r >= 0)
		r = chips_load(s);
	if (r < 0) {
		hws_sensors_free(s);
		return r;
	}
	batch_fit(s);
	*ret_sensors = s;
	return 0;
}

static void chips_unload(struct hws_sensors *s)
{
	chips_free(s);
	hws__libsensors_unload(s);
}

int hws_sensors_reconfigure(struct hws_sensors *s, const struct hws_sensors_options *opts)
{
	struct hws_sensors old;
	int r;

	if (!s || !opts || !reader_valid(opts->reader))
		return -EINVAL;
	chips_unload(s);
	old = *s;
	r = options_set(s, opts);
	if (r >= 0) {
		r = chips_load(s);
		if (r >= 0) {
			free(old.config_text);
			free(old.config);
			batch_fit(s);
			return 0;
		}
		chips_unload(s);
		free(s->config_text);
		free(s->config);
	}
	/* The old config was accepted once: load what it said. */
	s->opts = old.opts;
	s->config = old.config;
	s->config_text = old.config_text;
	s->config_len = old.config_len;
	if (chips_load(s) < 0)
		chips_unload(s);
	return r;
}

struct hws_sensors *hws_sensors_free(struct hws_sensors *s)
{
	if (!s)
		return NULL;
	chips_free(s);
	hws__batch_free(s->batch);
	hws__libsensors_unload(s);
	free(s->config_text);
	free(s->config);
	free(s);
	atomic_flag_clear(&in_use);
	return NULL;
}

/* Whether this read of @chip includes its settings, and when next. */
static void plan_settings(const struct hws_sensors *s, struct hws__chip *chip, unsigned flags,
			  uint64_t now)
{
	chip->read_settings = (flags & HWS_READ_SETTINGS) || !chip->settings_read ||
			      now >= chip->settings_due_ms;
	if (chip->read_settings)
		chip->settings_due_ms = now + s->opts.settings_refresh_ms;
}

static int read_chips(struct hws_sensors *s, struct hws__chip **chips, size_t n, unsigned flags)
{
	uint64_t now = hws__now_ms();
	int total = 0;

	for (size_t i = 0; i < n; i++)
		plan_settings(s, chips[i], flags, now);
	if (s->batch) {
		total = hws__batch_read(s->batch, chips, n);
		for (size_t i = 0; i < n; i++)
			if (!chips[i]->pub.present)
				reader(s)->close_chip(chips[i]);
		return total;
	}
	for (size_t i = 0; i < n; i++) {
		struct hws__chip *chip = chips[i];
		int r;

		if (!chip->pub.present)
			continue;
		r = hws__read_chip(reader(s), chip, chip->read_settings);
		if (r == -ENODEV) {
			/* Unbound or unplugged: let go of its files so the
			 * driver can finish; rescan finds it if it returns. */
			chip->pub.present = false;
			reader(s)->close_chip(chip);
			continue;
		}
		chip->settings_read = true;
		total += r;
	}
	return total;
}

int hws_sensors_read(struct hws_sensors *s, unsigned flags)
{
	if (!s)
		return -EINVAL;
	return read_chips(s, s->chips, s->n_chips, flags);
}

int hws_sensors_read_chip(struct hws_sensors *s, size_t index, unsigned flags)
{
	int r;

	if (!s || index >= s->n_chips)
		return -EINVAL;
	if (!s->chips[index]->pub.present)
		return -ENODEV;
	r = read_chips(s, &s->chips[index], 1, flags);
	return s->chips[index]->pub.present ? r : -ENODEV;
}

int hws_sensors_rescan(struct hws_sensors *s)
{
	char **names;
	size_t n;
	bool same;
	int r;

	if (!s)
		return -EINVAL;
	r = hws__hwmon_list(&names, &n);
	if (r < 0)
		return r;
	same = n == s->n_chips;
	for (size_t i = 0; same && i < n; i++)
		same = s->chips[i]->pub.present && !strcmp(names[i], s->chips[i]->hwmon);
	hws__hwmon_names_free(names, n);
	if (same)
		return 0;
	chips_free(s);
	hws__libsensors_unload(s);
	r = chips_load(s);
	return r < 0 ? r : 1;
}

size_t hws_sensors_chip_count(const struct hws_sensors *s)
{
	return s ? s->n_chips : 0;
}

const struct hws_chip *hws_sensors_chip(const struct hws_sensors *s, size_t index)
{
	return s && index < s->n_chips ? &s->chips[index]->pub : NULL;
}
