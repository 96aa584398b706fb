/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The latest readings of every chip, for the HTTP side. A chip's copy is
 * made once, when it first reports or its features change, and then only
 * its numbers are overwritten: a poll costs no allocation.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mem-util.h"
#include "time-util.h"

#include "readings.h"

void hwsd_readings_init(struct hwsd_readings *r)
{
	*r = (struct hwsd_readings){ 0 };
	pthread_mutex_init(&r->lock, NULL);
}

static void chip_clear(struct hwsd_chip_reading *c)
{
	for (size_t i = 0; i < c->n_features; i++) {
		struct hwsd_feature_reading *fr = &c->features[i];

		for (size_t k = 0; k < fr->n_subs; k++)
			free(fr->subs[k].name);
		hws__free_all(fr->subs, fr->name, fr->label, fr->sensors_label);
	}
	hws__free_all(c->features, c->name, c->prefix, c->adapter);
	*c = (struct hwsd_chip_reading){ 0 };
}

void hwsd_readings_done(struct hwsd_readings *r)
{
	for (size_t i = 0; i < r->n_chips; i++)
		chip_clear(&r->chips[i]);
	free(r->chips);
	pthread_mutex_destroy(&r->lock);
}

/* The subfeatures "sensors -j" shows: those libsensors knows. */
static size_t json_subs(const struct hws_feature *f)
{
	size_t n = 0;

	for (size_t k = 0; f->sensors_label && k < f->n_subfeatures; k++)
		n += !(f->subfeatures[k].flags & HWS_SUB_EXTRA);
	return n;
}

static bool same_layout(const struct hwsd_chip_reading *c, const struct hws_chip *chip)
{
	if (c->n_features != chip->n_features)
		return false;
	for (size_t i = 0; i < c->n_features; i++)
		if (strcmp(c->features[i].name, chip->features[i].name) ||
		    c->features[i].n_subs != json_subs(&chip->features[i]))
			return false;
	return true;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* Build @c's strings for @chip. Called with the lock held. */
static int chip_build(struct hwsd_chip_reading *c, const struct hws_chip *chip)
{
	chip_clear(c);
	c->name = dup_or_empty(chip->name);
	c->prefix = dup_or_empty(chip->prefix);
	c->adapter = dup_or_empty(chip->adapter);
	c->features = calloc(chip->n_features ? chip->n_features : 1, sizeof(*c->features));
	if (!c->name || !c->prefix || !c->adapter || !c->features)
		goto oom;
	c->n_features = chip->n_features;
	c->listed = chip->listed;
	for (size_t i = 0; i < chip->n_features; i++) {
		const struct hws_feature *f = &chip->features[i];
		struct hwsd_feature_reading *fr = &c->features[i];
		size_t n = json_subs(f);

		fr->name = dup_or_empty(f->name);
		fr->label = dup_or_empty(f->label);
		fr->kind = f->kind;
		if (!fr->name || !fr->label)
			goto oom;
		if (!f->sensors_label)
			continue;
		fr->sensors_label = strdup(f->sensors_label);
		fr->subs = calloc(n ? n : 1, sizeof(*fr->subs));
		if (!fr->sensors_label || !fr->subs)
			goto oom;
		for (size_t k = 0; k < f->n_subfeatures; k++) {
			if (f->subfeatures[k].flags & HWS_SUB_EXTRA)
				continue;
			fr->subs[fr->n_subs].name = strdup(f->subfeatures[k].name);
			if (!fr->subs[fr->n_subs++].name)
				goto oom;
		}
	}
	return 0;
oom:
	chip_clear(c);
	return -ENOMEM;
}

double hwsd_feature_value(const struct hws_feature *f, enum hws_sensor_item item)
{
	const struct hws_subfeature *s = hws_subfeature_find(f, item);

	return s && !s->error ? s->value : NAN;
}

/* Whether @f has one of @items (*ret_has), and one of them is set. */
static bool any_bit(const struct hws_feature *f, const enum hws_sensor_item *items, size_t n,
		    bool *ret_has)
{
	bool set = false;

	*ret_has = false;
	for (size_t i = 0; i < n; i++) {
		*ret_has = *ret_has || hws_subfeature_find(f, items[i]);
		set = set || hwsd_feature_value(f, items[i]) > 0;
	}
	return set;
}

int hwsd_readings_update(struct hwsd_readings *r, const struct hws_chip *chip, uint64_t polls,
			 void (*alarms)(void *userdata, size_t f, char *buf, size_t size),
			 void *userdata)
{
	static const enum hws_sensor_item alarm_bits[] = {
		HWS_ITEM_ALARM, HWS_ITEM_MIN_ALARM, HWS_ITEM_MAX_ALARM, HWS_ITEM_LCRIT_ALARM,
		HWS_ITEM_CRIT_ALARM, HWS_ITEM_EMERGENCY_ALARM,
	};
	static const enum hws_sensor_item fault[] = { HWS_ITEM_FAULT };
	struct hwsd_chip_reading *c = NULL;
	int64_t now_ms = hws__realtime_ms();
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->n_chips && !c; i++)
		if (!strcmp(r->chips[i].name, chip->name))
			c = &r->chips[i];
	if (!c) {
		struct hwsd_chip_reading *a = realloc(r->chips, (r->n_chips + 1) * sizeof(*a));

		if (!a) {
			ret = -ENOMEM;
			goto out;
		}
		r->chips = a;
		c = &r->chips[r->n_chips];
		*c = (struct hwsd_chip_reading){ 0 };
		if (chip_build(c, chip) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		r->n_chips++;
	} else if (!same_layout(c, chip) && chip_build(c, chip) < 0) {
		/* The entry is empty now; drop it. */
		*c = r->chips[--r->n_chips];
		ret = -ENOMEM;
		goto out;
	}
	c->present = true;
	c->polls = polls;
	c->updated_ms = now_ms;
	for (size_t i = 0; i < chip->n_features; i++) {
		const struct hws_feature *f = &chip->features[i];
		struct hwsd_feature_reading *fr = &c->features[i];

		fr->input = hwsd_feature_value(f, HWS_ITEM_INPUT);
		fr->min = hwsd_feature_value(f, HWS_ITEM_MIN);
		fr->max = hwsd_feature_value(f, HWS_ITEM_MAX);
		fr->crit = hwsd_feature_value(f, HWS_ITEM_CRIT);
		fr->alarm = any_bit(f, alarm_bits, sizeof(alarm_bits) / sizeof(alarm_bits[0]),
				    &fr->has_alarm);
		fr->fault = any_bit(f, fault, 1, &fr->has_fault);
		for (size_t k = 0, j = 0; fr->subs && k < f->n_subfeatures; k++)
			if (!(f->subfeatures[k].flags & HWS_SUB_EXTRA))
				fr->subs[j++].value = f->subfeatures[k].error ? NAN : f->subfeatures[k].value;
		fr->alarms[0] = '\0';
		if (alarms)
			alarms(userdata, i, fr->alarms, sizeof(fr->alarms));
	}
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void hwsd_readings_gone(struct hwsd_readings *r, const char *chip)
{
	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->n_chips; i++)
		if (!strcmp(r->chips[i].name, chip))
			r->chips[i].present = false;
	pthread_mutex_unlock(&r->lock);
}

int hwsd_readings_present(struct hwsd_readings *r, char ***ret)
{
	char **names;
	size_t n = 0;
	int err = 0;

	pthread_mutex_lock(&r->lock);
	names = calloc(r->n_chips + 1, sizeof(*names));
	for (size_t i = 0; names && i < r->n_chips && !err; i++)
		if (r->chips[i].present && !(names[n++] = strdup(r->chips[i].name)))
			err = -ENOMEM;
	pthread_mutex_unlock(&r->lock);
	if (!names || err) {
		for (size_t i = 0; names && i < n; i++)
			free(names[i]);
		free(names);
		return -ENOMEM;
	}
	*ret = names;
	return 0;
}
