/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sensor pollers: one self-rearming delayed_work per chip on the
 * freezeable poll queue. Pollers of a second or more round their next
 * expiry to a whole second, so that every chip is read in one wake-up.
 *
 * A poller finds its chip by name on each run: a rescan (a hwmon chip
 * came or went) replaces the library's chip array, and the names are what
 * stays. Everything here but start/stop/kick runs on the poll queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "time-util.h"

#include "alarms.h"
#include "contract.h"
#include "history.h"
#include "hwsightd.h"
#include "log.h"
#include "pollers.h"

static unsigned long next_delay(const struct hwsd_poller *p)
{
	unsigned long j = msecs_to_jiffies(p->interval_ms);

	return p->interval_ms >= 1000 ? round_jiffies_relative(j) : j;
}

/* The chip's index now, or -1 if it is gone. On the poll queue, or the
 * main thread while the pollers are stopped. */
static long chip_index(const struct hwsd *d, const char *name)
{
	size_t n;

	hwsd_assert_on_or_main(d->poll_wq);
	n = hws_sensors_chip_count(d->sensors);
	for (size_t i = 0; i < n; i++) {
		const struct hws_chip *chip = hws_sensors_chip(d->sensors, i);

		if (chip->present && !strcmp(chip->name, name))
			return (long)i;
	}
	return -1;
}

/* On the poll queue, or the main thread while the pollers are stopped. */
static void chip_gone(struct hwsd *d, const char *name, const char *why)
{
	hwsd_readings_gone(&d->readings, name);
	log_notice("%s: %s; polling it again when it comes back", name, why);
	hwsd_alarms_forget_chip(d->alarms, name);
}

static void deactivate(struct hwsd_poller *p, const char *why)
{
	hwsd_assert_on(p->d->poll_wq);
	if (!p->active)
		return;
	p->active = false;
	atomic_fetch_sub(&p->d->chips_active, 1);
	chip_gone(p->d, p->chip_name, why);
	hwsd_status_changed(&p->d->status);
}

struct publish {
	struct hwsd *d;
	const struct hws_chip *chip;
};

static void feature_alarms(void *userdata, size_t f, char *buf, size_t size)
{
	struct publish *pub = userdata;

	hwsd_assert_on(pub->d->poll_wq);
	hwsd_alarms_active(pub->d->alarms, pub->chip->name, pub->chip->features[f].name, buf, size);
}

static void poll_work(struct work_struct *work)
{
	struct hwsd_poller *p = container_of(work, struct hwsd_poller, dwork.work);
	struct hwsd *d = p->d;
	long i = chip_index(d, p->chip_name);
	const struct hws_chip *chip;
	struct publish pub;
	int r;

	hwsd_assert_on(d->poll_wq);
	if (i < 0) {
		deactivate(p, "gone");
		return;
	}
	r = hws_sensors_read_chip(d->sensors, (size_t)i, 0);
	if (r == -ENODEV) {
		deactivate(p, "vanished (unbound or unplugged)");
		return;
	}
	if (r < 0)
		log_warning("%s: reading failed: %s", p->chip_name, strerror(-r));
	p->polls++;
	log_debug("poll %s: %d values", p->chip_name, r);
	chip = hws_sensors_chip(d->sensors, (size_t)i);
	hwsd_alarms_check(d->alarms, chip, p->conf);
	pub = (struct publish){ d, chip };
	if (hwsd_readings_update(&d->readings, chip, p->polls, feature_alarms, &pub) < 0)
		log_error("%s: out of memory publishing the readings", p->chip_name);
	/* It logs its own failures, once. */
	if (d->history)
		hwsd_history_update(d->history, chip, (p->interval_ms + 500) / 1000, time(NULL));
	queue_delayed_work(d->poll_wq, &p->dwork, next_delay(p));
}

static struct hwsd_poller *poller_find(struct hwsd *d, const char *name)
{
	for (struct hwsd_poller *p = d->pollers; p; p = p->next)
		if (!strcmp(p->chip_name, name))
			return p;
	return NULL;
}

/* Warn about thresholds that name no feature of @chip: a typo would
 * otherwise silently watch nothing. */
static void check_thresholds(const struct hwsd *d, const struct hws_chip *chip,
			     const struct hwsd_chip_conf *conf)
{
	for (size_t t = 0; conf && t < conf->n_thresholds; t++) {
		const char *want = conf->thresholds[t].feature;
		bool found = false;

		for (size_t f = 0; f < chip->n_features && !found; f++)
			found = !strcmp(chip->features[f].name, want) ||
				(chip->features[f].label && !strcmp(chip->features[f].label, want));
		if (!found)
			log_warning("%s:%u: %s has no sensor \"%s\"", d->config->path,
				    conf->thresholds[t].line, chip->name, want);
	}
}

/*
 * Give every present chip an active poller, polling now. Called on the
 * poll queue, or by the main thread while the pollers are stopped.
 */
static int pollers_sync(struct hwsd *d)
{
	size_t n;

	hwsd_assert_on_or_main(d->poll_wq);
	n = hws_sensors_chip_count(d->sensors);
	for (size_t i = 0; i < n; i++) {
		const struct hws_chip *chip = hws_sensors_chip(d->sensors, i);
		struct hwsd_poller *p;

		if (!chip->present)
			continue;
		p = poller_find(d, chip->name);
		if (!p) {
			p = calloc(1, sizeof(*p));
			if (!p || !(p->chip_name = strdup(chip->name))) {
				free(p);
				return -ENOMEM;
			}
			p->d = d;
			INIT_DELAYED_WORK(&p->dwork, poll_work);
			pthread_mutex_lock(&d->pollers_lock);
			p->next = d->pollers;
			d->pollers = p;
			pthread_mutex_unlock(&d->pollers_lock);
		}
		if (p->active) {
			/* A rescan replaced its chip: every value is unread
			 * until it polls, and the fans' steps, which read its
			 * temperatures, would take that for a failure. */
			mod_delayed_work(d->poll_wq, &p->dwork, 0);
			continue;
		}
		p->conf = hwsd_config_chip(d->config, d->sensors, chip);
		p->interval_ms = p->conf && p->conf->poll_ms ? p->conf->poll_ms : d->config->poll_ms;
		p->active = true;
		atomic_fetch_add(&d->chips_active, 1);
		check_thresholds(d, chip, p->conf);
		log_info("%s: polling every %u ms%s", chip->name, p->interval_ms,
			 p->conf ? "" : " (no [chip] section matches it)");
		mod_delayed_work(d->poll_wq, &p->dwork, 0);
	}
	hwsd_status_changed(&d->status);
	return 0;
}

static void rescan_work(struct work_struct *work)
{
	struct hwsd *d = container_of(work, struct hwsd, rescan_work);
	int r;

	hwsd_assert_on(d->poll_wq);
	if (!d->sensors)
		return;
	r = hws_sensors_rescan(d->sensors);
	if (r < 0) {
		log_error("looking for hwmon chips failed: %s", strerror(-r));
		return;
	}
	if (r == 0)
		return;
	/* The chip array was replaced: pollers whose chip is gone stop at
	 * their next run; the rest, and new chips, are polled now. */
	for (struct hwsd_poller *p = d->pollers; p; p = p->next)
		if (p->active && chip_index(d, p->chip_name) < 0)
			deactivate(p, "gone");
	r = pollers_sync(d);
	if (r < 0)
		log_error("starting pollers failed: %s", strerror(-r));
}

static void heartbeat_work(struct work_struct *work)
{
	struct hwsd *d = container_of(work, struct hwsd, heartbeat_work);

	/* What it proves is that the poll queue runs. */
	hwsd_assert_on(d->poll_wq);
	atomic_store(&d->heartbeat_ns, hws__now_ns());
}

void hwsd_pollers_init(struct hwsd *d)
{
	INIT_WORK(&d->rescan_work, rescan_work);
	INIT_WORK(&d->heartbeat_work, heartbeat_work);
}

/*
 * A chip polled before the pollers stopped (a reload) and gone before they
 * start again has no poller to notice: say it here, as deactivate() would,
 * before the pollers run.
 */
static int forget_unpolled(struct hwsd *d)
{
	char **names;
	int r = hwsd_readings_present(&d->readings, &names);

	if (r < 0)
		return r;
	for (char **n = names; *n; n++) {
		if (chip_index(d, *n) < 0)
			chip_gone(d, *n, "gone");
		free(*n);
	}
	free(names);
	return 0;
}

int hwsd_pollers_start(struct hwsd *d)
{
	int r;

	hwsd_assert_main();
	if (!d->sensors)
		return 0;
	r = forget_unpolled(d);
	return r < 0 ? r : pollers_sync(d);
}

void hwsd_pollers_stop(struct hwsd *d)
{
	struct hwsd_poller *p, *next;

	hwsd_assert_main();
	cancel_work_sync(&d->rescan_work);
	cancel_work_sync(&d->heartbeat_work);
	for (p = d->pollers; p; p = p->next)
		cancel_delayed_work_sync(&p->dwork);
	pthread_mutex_lock(&d->pollers_lock);
	p = d->pollers;
	d->pollers = NULL;
	pthread_mutex_unlock(&d->pollers_lock);
	for (; p; p = next) {
		next = p->next;
		free(p->chip_name);
		free(p);
	}
	atomic_store(&d->chips_active, 0);
}

void hwsd_pollers_kick(struct hwsd *d)
{
	hwsd_assert_main();
	pthread_mutex_lock(&d->pollers_lock);
	for (struct hwsd_poller *p = d->pollers; p; p = p->next)
		if (delayed_work_pending(&p->dwork))
			mod_delayed_work(d->poll_wq, &p->dwork, 0);
	pthread_mutex_unlock(&d->pollers_lock);
}

void hwsd_pollers_rescan(struct hwsd *d)
{
	hwsd_assert_main();
	queue_work(d->poll_wq, &d->rescan_work);
}

/* Ask the poll queue to prove it is alive; see the watchdog in main.c. */
void hwsd_pollers_heartbeat(struct hwsd *d)
{
	hwsd_assert_main();
	queue_work(d->poll_wq, &d->heartbeat_work);
}

int hwsd_pollers_once(struct hwsd *d, FILE *out)
{
	size_t n = hws_sensors_chip_count(d->sensors);
	int r;

	hwsd_assert_main();
	r = hws_sensors_read(d->sensors, HWS_READ_SETTINGS);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		const struct hws_chip *chip = hws_sensors_chip(d->sensors, i);
		const struct hwsd_chip_conf *conf = hwsd_config_chip(d->config, d->sensors, chip);

		if (!chip->present)
			continue;
		for (size_t f = 0; f < chip->n_features; f++) {
			const struct hws_feature *feat = &chip->features[f];
			const struct hws_subfeature *v = hws_subfeature_find(feat, HWS_ITEM_INPUT);
			const char *unit = hws_sensor_unit(feat->kind);
			char alarms[128];

			if (!v)
				v = hws_subfeature_find(feat, HWS_ITEM_ALARM);
			if (!v)
				continue;
			hwsd_alarms_describe(feat, conf, alarms, sizeof(alarms));
			if (v->error)
				fprintf(out, "%s %s N/A %s%s%s\n", chip->name, feat->name,
					*unit ? unit : "-", *alarms ? " " : "", alarms);
			else
				fprintf(out, "%s %s %.3f %s%s%s\n", chip->name, feat->name, v->value,
					*unit ? unit : "-", *alarms ? " " : "", alarms);
		}
	}
	return fflush(out) == 0 ? 0 : -EIO;
}
