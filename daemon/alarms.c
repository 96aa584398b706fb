/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Alarms: the chip's own alarm and fault bits, and the thresholds of the
 * config with hysteresis. An alarm is logged when it begins and when it
 * ends, never on every poll; the table of active alarms is what
 * remembers. Runs on the poll queue only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alarms.h"
#include "events.h"
#include "log.h"
#include "readings.h"

enum state {
	COND_CLEAR,  /* not (or no longer) alarming: an active alarm ends */
	COND_HOLD,   /* keep what it was: unreadable, or in the hysteresis band */
	COND_ACTIVE, /* alarming: an alarm begins if it was not active */
};

struct condition {
	const char *id;         /* which bit or threshold: "alarm", "min", "fault" ... */
	const char *name;       /* what it says: "min" for a bare alarm bit below min */
	bool from_config;
	enum state state;
	double value, limit;    /* NaN when unknown */
	int priority;
};

struct alarm {
	char *chip;
	char *sensor;
	const char *id;         /* static strings, as in struct condition */
	const char *name;       /* as it was when the alarm began, to end it alike */
	bool from_config;
	bool seen;
	struct alarm *next;
};

struct hwsd_alarms {
	struct alarm *list;
	struct hwsd_events *sink;
};

typedef void (*condition_fn)(void *userdata, const struct hws_feature *f, const struct condition *c);

static const struct {
	enum hws_sensor_item bit, limit;
	const char *name;
	int priority;
} chip_bits[] = {
	{ HWS_ITEM_ALARM, HWS_ITEM_MAX_ITEM, "alarm", LOG_WARNING },
	{ HWS_ITEM_MIN_ALARM, HWS_ITEM_MIN, "min", LOG_WARNING },
	{ HWS_ITEM_MAX_ALARM, HWS_ITEM_MAX, "max", LOG_WARNING },
	{ HWS_ITEM_LCRIT_ALARM, HWS_ITEM_LCRIT, "lcrit", LOG_CRIT },
	{ HWS_ITEM_CRIT_ALARM, HWS_ITEM_CRIT, "crit", LOG_CRIT },
	{ HWS_ITEM_EMERGENCY_ALARM, HWS_ITEM_EMERGENCY, "emergency", LOG_CRIT },
	{ HWS_ITEM_FAULT, HWS_ITEM_MAX_ITEM, "fault", LOG_ERR },
};

static bool below(const char *condition)
{
	return !strcmp(condition, "min") || !strcmp(condition, "lcrit");
}

static void for_each_condition(const struct hws_feature *f, const struct hwsd_chip_conf *conf,
			       condition_fn fn, void *userdata)
{
	double input = hwsd_feature_value(f, HWS_ITEM_INPUT);

	for (size_t i = 0; (!conf || conf->chip_alarms) && i < sizeof(chip_bits) / sizeof(chip_bits[0]); i++) {
		const struct hws_subfeature *bit = hws_subfeature_find(f, chip_bits[i].bit);
		struct condition c = {
			.id = chip_bits[i].name, .name = chip_bits[i].name,
			.priority = chip_bits[i].priority, .value = input, .limit = NAN,
		};

		if (!bit)
			continue;
		c.state = bit->error ? COND_HOLD : bit->value != 0 ? COND_ACTIVE : COND_CLEAR;
		if (chip_bits[i].limit != HWS_ITEM_MAX_ITEM)
			c.limit = hwsd_feature_value(f, chip_bits[i].limit);
		else if (chip_bits[i].bit == HWS_ITEM_ALARM) {
			/* A bare alarm bit: say which limit the value is past
			 * (while it stays set, it is the same alarm). */
			double min = hwsd_feature_value(f, HWS_ITEM_MIN);
			double max = hwsd_feature_value(f, HWS_ITEM_MAX);

			if (input < min)
				c.limit = min, c.name = "min";
			else if (input > max)
				c.limit = max, c.name = "max";
		}
		fn(userdata, f, &c);
	}
	for (size_t t = 0; conf && t < conf->n_thresholds; t++) {
		const struct hwsd_threshold *th = &conf->thresholds[t];
		struct condition c = {
			.id = th->is_max ? "max" : "min", .name = th->is_max ? "max" : "min", .from_config = true,
			.priority = LOG_WARNING, .value = input, .limit = th->limit,
		};
		double h;

		if (strcmp(th->feature, f->name) && (!f->label || strcmp(th->feature, f->label)))
			continue;
		h = conf->hysteresis_percent ? fabs(th->limit) * conf->hysteresis / 100 : conf->hysteresis;
		if (isnan(input))
			c.state = COND_HOLD;
		else if (th->is_max)
			c.state = input > th->limit ? COND_ACTIVE : input < th->limit - h ? COND_CLEAR : COND_HOLD;
		else
			c.state = input < th->limit ? COND_ACTIVE : input > th->limit + h ? COND_CLEAR : COND_HOLD;
		fn(userdata, f, &c);
	}
}

static void format_value(char *buf, size_t size, enum hws_sensor_kind kind, double v)
{
	const char *unit = hws_sensor_unit(kind);
	int decimals = kind == HWS_SENSOR_FAN ? 0 : kind == HWS_SENSOR_IN || kind == HWS_SENSOR_CURR ? 3 : 1;

	snprintf(buf, size, "%.*f%s%s", decimals, v, *unit ? " " : "", unit);
}

/*
 * The events of one check, published together once it is done, so that
 * the consumers see one moment (events.h). The strings they point to are
 * copies: the alarm record an end describes is freed before then.
 */
struct batch {
	struct hwsd_event *evs;
	char **strings;         /* two per event: its message and sensor */
	size_t n, cap;
};

static int batch_add(struct batch *b, const struct hwsd_event *ev)
{
	char *message, *sensor;

	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 8;
		struct hwsd_event *evs = realloc(b->evs, cap * sizeof(*evs));
		char **strings;

		if (!evs)
			return -ENOMEM;
		b->evs = evs;
		strings = realloc(b->strings, 2 * cap * sizeof(*strings));
		if (!strings)
			return -ENOMEM;
		b->strings = strings;
		b->cap = cap;
	}
	message = strdup(ev->message);
	sensor = strdup(ev->sensor);
	if (!message || !sensor) {
		free(message);
		free(sensor);
		return -ENOMEM;
	}
	b->evs[b->n] = *ev;
	b->evs[b->n].message = b->strings[2 * b->n] = message;
	b->evs[b->n].sensor = b->strings[2 * b->n + 1] = sensor;
	b->n++;
	return 0;
}

static void batch_publish(struct hwsd_alarms *a, struct batch *b)
{
	hwsd_events_publish(a->sink, b->evs, b->n);
	for (size_t i = 0; i < 2 * b->n; i++)
		free(b->strings[i]);
	free(b->strings);
	free(b->evs);
	*b = (struct batch){ 0 };
}

static void report(struct hwsd_alarms *a, struct batch *b, const char *chip, const struct hws_feature *f,
		   const struct condition *c, bool begins, const char *why)
{
	struct hwsd_event ev = HWSD_EVENT_INIT(begins ? "alarm" : "alarm-end");
	char what[160] = "", value[48], limit[48], label[96] = "", message[1024];

	ev.chip = chip;
	ev.sensor = f->name;
	ev.label = f->label;
	ev.condition = c->name;
	ev.unit = hws_sensor_unit(f->kind);
	ev.value = c->value;
	ev.limit = c->limit;
	if (f->label && strcmp(f->label, f->name))
		snprintf(label, sizeof(label), " (%s)", f->label);
	if (!isnan(c->value)) {
		format_value(value, sizeof(value), f->kind, c->value);
		if (!isnan(c->limit)) {
			format_value(limit, sizeof(limit), f->kind, c->limit);
			snprintf(what, sizeof(what), ": %s, %s %s %s", value,
				 below(c->name) ? "below" : "above", c->name, limit);
		} else
			snprintf(what, sizeof(what), ": %s, %s", value, c->name);
	} else
		snprintf(what, sizeof(what), ": %s", c->name);
	snprintf(message, sizeof(message), "%s: %s %s%s%s%s%s", begins ? "alarm" : "alarm end", chip,
		 f->name, label, what, c->from_config ? " (configured)" : "", why);
	ev.priority = begins ? c->priority : LOG_NOTICE;
	ev.message = message;
	/* Out of memory, the event still goes out, on its own. */
	if (batch_add(b, &ev) < 0)
		hwsd_events_publish(a->sink, &ev, 1);
}

static struct alarm *find(struct hwsd_alarms *a, const char *chip, const char *sensor,
			  const struct condition *c)
{
	for (struct alarm *x = a->list; x; x = x->next)
		if (x->from_config == c->from_config && !strcmp(x->id, c->id) &&
		    !strcmp(x->sensor, sensor) && !strcmp(x->chip, chip))
			return x;
	return NULL;
}

struct check {
	struct hwsd_alarms *a;
	const struct hws_chip *chip;
	struct batch events;
};

static void check_condition(void *userdata, const struct hws_feature *f, const struct condition *c)
{
	struct check *k = userdata;
	struct hwsd_alarms *a = k->a;
	struct alarm *x = find(a, k->chip->name, f->name, c);

	if (x) {
		/* An alarm that clears is left unseen, and ends below. */
		x->seen = c->state != COND_CLEAR;
		return;
	}
	if (c->state != COND_ACTIVE)
		return;
	x = calloc(1, sizeof(*x));
	if (!x || !(x->chip = strdup(k->chip->name)) || !(x->sensor = strdup(f->name))) {
		if (x)
			free(x->chip);
		free(x);
		log_error("%s %s: out of memory recording an alarm", k->chip->name, f->name);
		return;
	}
	x->id = c->id;
	x->name = c->name;
	x->from_config = c->from_config;
	x->seen = true;
	x->next = a->list;
	a->list = x;
	report(k->a, &k->events, k->chip->name, f, c, true, "");
}

/* End and remove the alarms of @chip that are not marked seen. */
static void sweep(struct hwsd_alarms *a, struct batch *b, const struct hws_chip *chip, const char *chip_name,
		 const char *why)
{
	struct alarm **pp = &a->list;

	while (*pp) {
		struct alarm *x = *pp;
		const struct hws_feature *f = NULL;

		if (x->seen || strcmp(x->chip, chip_name)) {
			pp = &x->next;
			continue;
		}
		for (size_t i = 0; chip && i < chip->n_features && !f; i++)
			if (!strcmp(chip->features[i].name, x->sensor))
				f = &chip->features[i];
		if (f) {
			struct condition c = {
				.id = x->id, .name = x->name, .from_config = x->from_config,
				.value = hwsd_feature_value(f, HWS_ITEM_INPUT), .limit = NAN,
			};

			report(a, b, chip_name, f, &c, false, why);
		} else {
			struct hws_feature gone = { .name = x->sensor, .kind = HWS_SENSOR_KIND_MAX };
			struct condition c = { .id = x->id, .name = x->name, .value = NAN, .limit = NAN };

			report(a, b, chip_name, &gone, &c, false, why);
		}
		*pp = x->next;
		free(x->chip);
		free(x->sensor);
		free(x);
	}
}

void hwsd_alarms_check(struct hwsd_alarms *a, const struct hws_chip *chip, const struct hwsd_chip_conf *conf)
{
	struct check k = { .a = a, .chip = chip };

	for (struct alarm *x = a->list; x; x = x->next)
		if (!strcmp(x->chip, chip->name))
			x->seen = false;
	for (size_t f = 0; f < chip->n_features; f++)
		for_each_condition(&chip->features[f], conf, check_condition, &k);
	sweep(a, &k.events, chip, chip->name, "");
	batch_publish(a, &k.events);
}

void hwsd_alarms_forget_chip(struct hwsd_alarms *a, const char *chip)
{
	struct batch b = { 0 };

	for (struct alarm *x = a->list; x; x = x->next)
		if (!strcmp(x->chip, chip))
			x->seen = false;
	sweep(a, &b, NULL, chip, " (the chip is gone)");
	batch_publish(a, &b);
}

void hwsd_alarms_active(struct hwsd_alarms *a, const char *chip, const char *sensor, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (struct alarm *x = a->list; x && used < size; x = x->next) {
		int n;

		if (strcmp(x->chip, chip) || strcmp(x->sensor, sensor))
			continue;
		n = snprintf(buf + used, size - used, "%s%s%s", used ? "," : "", x->name,
			     x->from_config ? "(configured)" : "");
		if (n > 0)
			used += (size_t)n;
	}
}

struct describe {
	char *buf;
	size_t size, used;
};

static void describe_condition(void *userdata, const struct hws_feature *f, const struct condition *c)
{
	struct describe *ds = userdata;
	int n;

	(void)f;
	if (c->state != COND_ACTIVE || ds->used >= ds->size)
		return;
	n = snprintf(ds->buf + ds->used, ds->size - ds->used, "%sALARM(%s%s)", ds->used ? " " : "",
		     c->name, c->from_config ? ",configured" : "");
	if (n > 0)
		ds->used += (size_t)n;
}

void hwsd_alarms_describe(const struct hws_feature *f, const struct hwsd_chip_conf *conf,
			  char *buf, size_t size)
{
	struct describe ds = { buf, size, 0 };

	buf[0] = '\0';
	for_each_condition(f, conf, describe_condition, &ds);
}

int hwsd_alarms_new(struct hwsd_events *sink, struct hwsd_alarms **ret)
{
	*ret = calloc(1, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	(*ret)->sink = sink;
	return 0;
}

struct hwsd_alarms *hwsd_alarms_free(struct hwsd_alarms *a)
{
	if (!a)
		return NULL;
	while (a->list) {
		struct alarm *x = a->list;

		a->list = x->next;
		free(x->chip);
		free(x->sensor);
		free(x);
	}
	free(a);
	return NULL;
}
