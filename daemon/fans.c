/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fan control: a self-rearming delayed_work per [fan NAME] on the poll
 * queue, so that a step reads the temperatures the pollers last read (no
 * second read) and is frozen with them for suspend. See fans.h.
 *
 * Every decision is an event (fan-take, fan-release, fan-failsafe,
 * fan-failsafe-end, fan-conflict, fan-yield), published once to the sink
 * the journal and exec= subscribe to.
 *
 * The state file is written by the poll queue (a take) and by the main
 * thread (a stop, once the steps are cancelled), never by both at once.
 *
 * A dry run (--dry-run, dry_run = yes) finds each output and follows its
 * curve, but takes nothing, writes nothing (the state file neither) and
 * logs each change of the value it would write instead.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <hwsight/fan.h>

#include "contract.h"
#include "fan-law.h"
#include "fans.h"
#include "fs.h"
#include "log.h"
#include "time-util.h"

enum { SAVED_MAX = 512 };

struct hwsd_fan {
	struct delayed_work dwork;
	struct hwsd_fans *fans;
	const struct hwsd_fan_conf *conf;
	unsigned interval_ms;
	struct hws_fan *out;           /* P: NULL until the output is found */
	char *chip;                    /* P: the output's chip, once found */
	char saved[SAVED_MAX];         /* the original, for the state file; "" when not held */
	bool held;                     /* P */
	struct hwsd_fan_law law;       /* P, once held */
	double lo, hi;                 /* P: the output's range, once held */
	bool rpm;                      /* P: its values are speeds */
	struct hwsd_fan_run run;       /* P */
	unsigned *failures;            /* P: unreadable steps in a row, per source */
	bool failsafe;                 /* P */
	bool yielded;                  /* P: another program has it now */
	bool missing_logged;           /* P */
	int write_error;               /* P: the last failure logged, 0 */
	long written;                  /* P: the value last written; -1: write the next */
	atomic_bool retake;            /* set by the main thread after a sleep */
};

struct hwsd_fans {
	struct hws_sensors *sensors;   /* P */
	struct workqueue_struct *wq;
	struct hwsd_events *events;
	struct hwsd_fan_board *board;  /* NULL once handed over */
	const char *state_path;
	bool dry_run;
	struct hwsd_fan *fan;
	size_t n;
};

static void publish(struct hwsd_fan *fan, const char *event, int priority, double value,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void publish(struct hwsd_fan *fan, const char *event, int priority, double value,
		    const char *fmt, ...)
{
	struct hwsd_event ev = HWSD_EVENT_INIT(event);
	char message[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	ev.fan = fan->conf->name;
	ev.dry_run = fan->fans->dry_run;
	ev.chip = fan->chip;
	ev.sensor = fan->conf->output;
	ev.value = value;
	ev.priority = priority;
	ev.message = message;
	hwsd_events_publish(fan->fans->events, &ev, 1);
}

static size_t index_of(const struct hwsd_fan *fan)
{
	return (size_t)(fan - fan->fans->fan);
}

static void show_held(struct hwsd_fan *fan)
{
	if (fan->fans->board &&
	    hwsd_fan_board_held(fan->fans->board, index_of(fan), fan->chip, &fan->law, fan->rpm,
				fan->run.value) < 0)
		log_warning("[fan %s]: out of memory: not shown over HTTP", fan->conf->name);
}

static void show_released(struct hwsd_fan *fan)
{
	if (fan->fans->board)
		hwsd_fan_board_released(fan->fans->board, index_of(fan), fan->yielded);
}

/*
 * Write what every held output was, or remove the file when none is held.
 * A new file is renamed over the old, so that a crash leaves one or the
 * other whole.
 */
static int state_write(struct hwsd_fans *fs)
{
	char *dir, *tmp, *slash;
	bool any = false;
	FILE *f;
	int r = 0;

	if (fs->dry_run)
		return 0;
	for (size_t i = 0; i < fs->n; i++)
		any |= fs->fan[i].saved[0] != '\0';
	if (!any)
		return unlink(fs->state_path) < 0 && errno != ENOENT ? -errno : 0;
	if (!(dir = strdup(fs->state_path)))
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		r = hwsd_mkdir_p(dir, 0755);
	}
	free(dir);
	if (r < 0)
		return r;
	if (asprintf(&tmp, "%s.new", fs->state_path) < 0)
		return -ENOMEM;
	f = fopen(tmp, "we");
	if (!f) {
		r = -errno;
		free(tmp);
		return r;
	}
	fputs("# hwsightd: the fan outputs it holds, as they were before it took them.\n"
	      "# \"hwsightd --restore-fans\" puts them back.\n", f);
	for (size_t i = 0; i < fs->n; i++)
		if (fs->fan[i].saved[0])
			fprintf(f, "%s %s\n", fs->fan[i].conf->name, fs->fan[i].saved);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		r = -errno;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, fs->state_path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}

static bool chip_matches(const struct hws_sensors *s, const struct hws_chip *chip, const char *pattern)
{
	return chip->present && (!strcmp(pattern, "*") || hws_sensors_chip_match(s, chip, pattern) > 0);
}

/* The present chip matching the [fan]'s pattern that has its output. */
static const struct hws_chip *output_chip(const struct hwsd_fan *fan)
{
	const struct hws_sensors *s = fan->fans->sensors;
	size_t n = hws_sensors_chip_count(s);

	for (size_t i = 0; i < n; i++) {
		const struct hws_chip *chip = hws_sensors_chip(s, i);
		const char *names[64];
		int k;

		if (!chip_matches(s, chip, fan->conf->chip))
			continue;
		k = hws_fan_outputs(chip, names, sizeof(names) / sizeof(names[0]));
		for (int j = 0; j < k && j < (int)(sizeof(names) / sizeof(names[0])); j++)
			if (!strcmp(names[j], fan->conf->output))
				return chip;
	}
	return NULL;
}

/* A feature's last reading, as its poller read it. Return: 0, -ENOENT, -EIO. */
static int reading(const struct hws_sensors *s, const char *pattern, const char *feature,
		   double *ret)
{
	size_t n = hws_sensors_chip_count(s);

	for (size_t i = 0; i < n; i++) {
		const struct hws_chip *chip = hws_sensors_chip(s, i);

		if (!chip_matches(s, chip, pattern))
			continue;
		for (size_t f = 0; f < chip->n_features; f++) {
			const struct hws_feature *feat = &chip->features[f];
			const struct hws_subfeature *in;

			if (strcmp(feat->name, feature) && (!feat->label || strcmp(feat->label, feature)))
				continue;
			in = hws_subfeature_find(feat, HWS_ITEM_INPUT);
			if (!in)
				continue;
			if (in->error)
				return -EIO;
			*ret = in->value;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The sources combined. Return: 1 with @ret set; 0 when none can be read
 * but none has failed failsafe_after times yet (hold the output); -1 when
 * one has (full output).
 */
static int temperature(struct hwsd_fan *fan, double *ret)
{
	const struct hwsd_fan_conf *conf = fan->conf;
	double acc = 0, v;
	bool failed = false;
	size_t n = 0;

	for (size_t i = 0; i < conf->n_sources; i++) {
		if (reading(fan->fans->sensors, conf->sources[i].chip, conf->sources[i].feature, &v) < 0) {
			if (fan->failures[i] < UINT_MAX)
				fan->failures[i]++;
			failed |= fan->failures[i] >= conf->failsafe_after;
			continue;
		}
		fan->failures[i] = 0;
		acc = !n ? v : conf->average ? acc + v : fmax(acc, v);
		n++;
	}
	if (failed)
		return -1;
	if (!n)
		return 0;
	*ret = conf->average ? acc / (double)n : acc;
	return 1;
}

static const char *failing_source(const struct hwsd_fan *fan, char *buf, size_t size)
{
	for (size_t i = 0; i < fan->conf->n_sources; i++)
		if (fan->failures[i] >= fan->conf->failsafe_after) {
			snprintf(buf, size, "%s/%s", fan->conf->sources[i].chip,
				 fan->conf->sources[i].feature);
			return buf;
		}
	return "?";
}

/* The tach reads 0 while the output drives the fan. */
static bool stalled(const struct hwsd_fan *fan)
{
	char tach[16];
	double rpm;

	if (fan->run.value <= 0)
		return false;
	if (fan->conf->tach)
		snprintf(tach, sizeof(tach), "%s", fan->conf->tach);
	else
		snprintf(tach, sizeof(tach), "fan%s", fan->conf->output + strcspn(fan->conf->output, "0123456789"));
	return reading(fan->fans->sensors, fan->chip, tach, &rpm) == 0 && rpm == 0;
}

static void let_go(struct hwsd_fan *fan)
{
	show_released(fan);
	fan->held = false;
	fan->saved[0] = '\0';
	hwsd_fan_law_done(&fan->law);
	fan->out = hws_fan_free(fan->out);
	free(fan->chip);
	fan->chip = NULL;
}

/* The output is held (or, in a dry run, followed) from @info on. */
static void hold_from(struct hwsd_fan *fan, const struct hws_fan_info *info, const char *verb)
{
	fan->held = true;
	fan->written = -1;
	hwsd_fan_run_init(&fan->run, info->value);
	show_held(fan);
	publish(fan, "fan-take", LOG_NOTICE, (double)info->value,
		"[fan %s]: %s %s/%s from mode %s at %ld%s%s", fan->conf->name, verb, fan->chip,
		fan->conf->output, info->mode, info->value, info->unit == HWS_FAN_UNIT_RPM ? " RPM" : "",
		fan->fans->dry_run ? " (dry run)" : "");
}

/* Write @value, or in a dry run say it would be written. */
static int set_output(struct hwsd_fan *fan, long value)
{
	if (!fan->fans->dry_run)
		return hws_fan_set(fan->out, value);
	log_info("[fan %s]: would set %s/%s to %ld%s (dry run)", fan->conf->name, fan->chip,
		 fan->conf->output, value, fan->rpm ? " RPM" : "");
	return 0;
}

/*
 * Find and take the output: its original goes into the state file before
 * anything is written to it, so that no moment leaves it changed and
 * unrecorded.
 */
static int take(struct hwsd_fan *fan)
{
	const struct hwsd_fan_conf *conf = fan->conf;
	const struct hws_fan_options opts = {
		.hold = conf->floor ? HWS_FAN_HOLD_FLOOR : HWS_FAN_HOLD_MANUAL, .tach = conf->tach,
	};
	const struct hws_chip *chip;
	struct hws_fan_info info;
	int r;

	hwsd_assert_on(fan->fans->wq);
	chip = output_chip(fan);
	if (!chip) {
		if (!fan->missing_logged)
			log_warning("[fan %s]: no chip matching %s has %s; looking again every %u ms",
				    conf->name, conf->chip, conf->output, fan->interval_ms);
		fan->missing_logged = true;
		return -ENODEV;
	}
	fan->missing_logged = false;
	if (!(fan->chip = strdup(chip->name)))
		return -ENOMEM;
	r = hws_fan_open(chip, conf->output, &opts, &fan->out);
	if (r >= 0)
		r = hws_fan_info(fan->out, &info);
	if (r >= 0)
		r = hwsd_fan_law_make(conf, (double)info.min, (double)info.max, &fan->law);
	if (r < 0) {
		log_error("[fan %s]: %s/%s: %s", conf->name, chip->name, conf->output, strerror(-r));
		free(fan->chip);
		fan->chip = NULL;
		fan->out = hws_fan_free(fan->out);
		return r;
	}
	fan->lo = (double)info.min;
	fan->hi = (double)info.max;
	fan->rpm = info.unit == HWS_FAN_UNIT_RPM;
	/* A speed is the SMC's to reach: no kick. */
	if (fan->rpm)
		fan->law.start_ms = 0;
	if (fan->fans->dry_run) {
		hold_from(fan, &info, "would take");
		return 0;
	}
	r = hws_fan_save(fan->out);
	if (r >= 0)
		r = hws_fan_saved(fan->out, fan->saved, sizeof(fan->saved));
	if (r >= 0)
		r = state_write(fan->fans);
	if (r < 0) {
		log_error("[fan %s]: cannot record %s/%s's state in %s (%s): not taking it",
			  conf->name, fan->chip, conf->output, fan->fans->state_path, strerror(-r));
		let_go(fan);
		state_write(fan->fans);
		return r;
	}
	r = hws_fan_take(fan->out);
	if (r < 0) {
		log_error("[fan %s]: taking %s/%s failed: %s; it is left as it was", conf->name,
			  fan->chip, conf->output, strerror(-r));
		hws_fan_release(fan->out);
		let_go(fan);
		state_write(fan->fans);
		return r;
	}
	hold_from(fan, &info, "took");
	return 0;
}

/* Someone else changed the output (or firmware did, across a sleep). */
static void conflict(struct hwsd_fan *fan)
{
	const struct hwsd_fan_conf *conf = fan->conf;
	int r;

	if (!conf->retake) {
		publish(fan, "fan-yield", LOG_WARNING, NAN,
			"[fan %s]: another program changed %s/%s; yielding it (on_conflict = yield) until a reload",
			conf->name, fan->chip, conf->output);
		fan->yielded = true;
		let_go(fan);
		state_write(fan->fans);
		return;
	}
	r = hws_fan_take(fan->out);
	publish(fan, "fan-conflict", LOG_WARNING, NAN,
		"[fan %s]: another program changed %s/%s; %s", conf->name, fan->chip, conf->output,
		r < 0 ? strerror(-r) : "taken back (on_conflict = retake)");
	/* Written again below, whatever it holds now. */
	fan->run.value = -1;
	fan->written = -1;
}

static void fan_work(struct work_struct *work)
{
	struct hwsd_fan *fan = container_of(work, struct hwsd_fan, dwork.work);
	const struct hwsd_fan_conf *conf = fan->conf;
	struct hwsd_fan_step step = { 0 };
	unsigned long delay;
	char why[128];
	double temp = NAN;
	int r, t;

	hwsd_assert_on(fan->fans->wq);
	if (fan->yielded)
		return;
	if (!fan->held && take(fan) < 0)
		goto again;
	if (atomic_exchange(&fan->retake, false)) {
		/* After a sleep: whatever the firmware did, take it again. */
		r = fan->fans->dry_run ? 0 : hws_fan_take(fan->out);
		if (r < 0)
			log_warning("[fan %s]: taking %s/%s again after the sleep failed: %s",
				    conf->name, fan->chip, conf->output, strerror(-r));
		fan->run.value = -1;
		fan->written = -1;
	} else if (!fan->fans->dry_run && (r = hws_fan_check(fan->out)) == 0) {
		conflict(fan);
		if (fan->yielded)
			return;
	}
	t = temperature(fan, &temp);
	if (t < 0 && !fan->failsafe) {
		fan->failsafe = true;
		publish(fan, "fan-failsafe", LOG_ERR, fan->law.full,
			"[fan %s]: %s cannot be read %u times in a row: %s/%s at full output",
			conf->name, failing_source(fan, why, sizeof(why)), conf->failsafe_after,
			fan->chip, conf->output);
	} else if (t > 0 && fan->failsafe) {
		fan->failsafe = false;
		publish(fan, "fan-failsafe-end", LOG_NOTICE, temp,
			"[fan %s]: its sources read again (%.1f °C): back on the curve", conf->name, temp);
	}
	if (t == 0 && !fan->failsafe)
		goto again;  /* nothing read yet: hold */
	hwsd_fan_law_step(&fan->law, &fan->run, fan->failsafe ? NAN : temp, stalled(fan),
			  hws__now_ms(), &step);
	/* The check above found the output as it was left: an unchanged
	 * value costs no write (on a W83793, no SMBus transfer). */
	r = step.value == fan->written ? 0 : set_output(fan, step.value);
	fan->written = r < 0 ? -1 : step.value;
	if (r < 0 && r != fan->write_error)
		log_error("[fan %s]: writing %ld to %s/%s failed: %s", conf->name, step.value,
			  fan->chip, conf->output, strerror(-r));
	else if (r >= 0 && fan->write_error)
		log_notice("[fan %s]: %s/%s can be written again", conf->name, fan->chip, conf->output);
	fan->write_error = r < 0 ? r : 0;
	if (fan->fans->board)
		hwsd_fan_board_step(fan->fans->board, index_of(fan),
				    fan->run.have_temp ? fan->run.temp : NAN, step.target,
				    step.value, fan->failsafe);
	if (fan->failsafe)
		log_debug("[fan %s]: failsafe -> %ld", conf->name, step.value);
	else
		log_debug("[fan %s]: %.2f °C -> %ld%s", conf->name, temp, step.value,
			  step.kick ? " (kick)" : "");
again:
	delay = msecs_to_jiffies(step.next_ms ? step.next_ms : fan->interval_ms);
	if (!step.next_ms && fan->interval_ms >= 1000)
		delay = round_jiffies_relative(delay);
	queue_delayed_work(fan->fans->wq, &fan->dwork, delay);
}

int hwsd_fans_new(const struct hwsd_config *c, struct hws_sensors *s,
		  struct workqueue_struct *wq, struct hwsd_events *events,
		  struct hwsd_fan_board *board, struct hwsd_fans **ret)
{
	struct hwsd_fans *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return -ENOMEM;
	*fs = (struct hwsd_fans){ .sensors = s, .wq = wq, .events = events, .board = board,
				  .state_path = c->fan_state, .dry_run = c->dry_run };
	fs->fan = calloc(c->n_fans ? c->n_fans : 1, sizeof(*fs->fan));
	if (!fs->fan) {
		free(fs);
		return -ENOMEM;
	}
	fs->n = c->n_fans;
	for (size_t i = 0; i < fs->n; i++) {
		struct hwsd_fan *fan = &fs->fan[i];

		fan->fans = fs;
		fan->conf = &c->fans[i];
		fan->interval_ms = fan->conf->interval_ms ? fan->conf->interval_ms : c->poll_ms;
		fan->failures = calloc(fan->conf->n_sources, sizeof(*fan->failures));
		if (!fan->failures) {
			hwsd_fans_free(fs);
			return -ENOMEM;
		}
		INIT_DELAYED_WORK(&fan->dwork, fan_work);
	}
	if (hwsd_fan_board_reset(board, c->fans, c->n_fans, c->dry_run) < 0) {
		hwsd_fans_free(fs);
		return -ENOMEM;
	}
	*ret = fs;
	return 0;
}

void hwsd_fans_start(struct hwsd_fans *fs)
{
	hwsd_assert_main();
	for (size_t i = 0; fs && i < fs->n; i++)
		queue_delayed_work(fs->wq, &fs->fan[i].dwork, 0);
}

void hwsd_fans_pause(struct hwsd_fans *fs)
{
	hwsd_assert_main();
	for (size_t i = 0; fs && i < fs->n; i++)
		cancel_delayed_work_sync(&fs->fan[i].dwork);
}

/* Give a held output back; the caller writes the state file. */
static void release(struct hwsd_fan *fan)
{
	int r = fan->fans->dry_run ? 0 : hws_fan_release(fan->out);

	if (r < 0) {
		/* Left in the state file, for --restore-fans. */
		log_error("[fan %s]: giving %s/%s back failed: %s", fan->conf->name, fan->chip,
			  fan->conf->output, strerror(-r));
		show_released(fan);
		fan->held = false;
		return;
	}
	publish(fan, "fan-release", LOG_NOTICE, NAN, "[fan %s]: %s %s/%s back as it was%s",
		fan->conf->name, fan->fans->dry_run ? "would give" : "gave", fan->chip, fan->conf->output,
		fan->fans->dry_run ? " (dry run)" : "");
	let_go(fan);
}

static void state_update(struct hwsd_fans *fs)
{
	int r = state_write(fs);

	if (r < 0)
		log_error("%s: %s", fs->state_path, strerror(-r));
}

void hwsd_fans_stop(struct hwsd_fans *fs)
{
	if (!fs)
		return;
	hwsd_fans_pause(fs);
	for (size_t i = 0; i < fs->n; i++)
		if (fs->fan[i].held)
			release(&fs->fan[i]);
	state_update(fs);
}

/* @b drives the output @a held the same way. */
static bool same_output(const struct hwsd_fan_conf *a, const struct hwsd_fan_conf *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->chip, b->chip) &&
	       !strcmp(a->output, b->output) && a->floor == b->floor &&
	       !strcmp(a->tach ? a->tach : "", b->tach ? b->tach : "");
}

static struct hwsd_fan *keeper(struct hwsd_fans *fs, const struct hwsd_fan *old)
{
	/* A dry run follows what a real one must take, and the reverse. */
	if (fs->dry_run != old->fans->dry_run)
		return NULL;
	for (size_t i = 0; i < fs->n; i++)
		if (same_output(old->conf, fs->fan[i].conf))
			return &fs->fan[i];
	return NULL;
}

/* @fan goes on from where @old is, on its own curve. */
static int adopt(struct hwsd_fan *fan, struct hwsd_fan *old)
{
	int r = hwsd_fan_law_make(fan->conf, old->lo, old->hi, &fan->law);

	if (r < 0)
		return r;
	if (old->rpm)
		fan->law.start_ms = 0;
	fan->out = old->out;
	fan->chip = old->chip;
	memcpy(fan->saved, old->saved, sizeof(fan->saved));
	fan->lo = old->lo;
	fan->hi = old->hi;
	fan->rpm = old->rpm;
	fan->run = old->run;
	fan->written = old->written;
	fan->held = true;
	old->out = NULL;
	old->chip = NULL;
	old->saved[0] = '\0';
	old->held = false;
	hwsd_fan_law_done(&old->law);
	show_held(fan);
	log_info("[fan %s]: %s/%s stays held", fan->conf->name, fan->chip, fan->conf->output);
	return 0;
}

void hwsd_fans_take_over(struct hwsd_fans *fs, struct hwsd_fans *prev)
{
	if (!prev)
		return;
	hwsd_assert_main();
	/* The board shows @fs's fans now. */
	prev->board = NULL;
	for (size_t i = 0; i < prev->n; i++)
		if (prev->fan[i].held && !keeper(fs, &prev->fan[i]))
			release(&prev->fan[i]);
	/* What is kept stays in a state file at every moment: @prev's lists
	 * it until @fs's does. */
	state_update(prev);
	for (size_t i = 0; i < prev->n; i++) {
		struct hwsd_fan *old = &prev->fan[i];
		int r;

		if (!old->held)
			continue;
		r = adopt(keeper(fs, old), old);
		if (r < 0) {
			log_error("[fan %s]: %s", old->conf->name, strerror(-r));
			release(old);
		}
	}
	state_update(fs);
	if (strcmp(prev->state_path, fs->state_path))
		state_update(prev);
}

struct hwsd_fans *hwsd_fans_free(struct hwsd_fans *fs)
{
	if (!fs)
		return NULL;
	for (size_t i = 0; i < fs->n; i++) {
		hwsd_fan_law_done(&fs->fan[i].law);
		hws_fan_free(fs->fan[i].out);
		free(fs->fan[i].chip);
		free(fs->fan[i].failures);
	}
	free(fs->fan);
	free(fs);
	return NULL;
}

void hwsd_fans_resumed(struct hwsd_fans *fs)
{
	hwsd_assert_main();
	for (size_t i = 0; fs && i < fs->n; i++) {
		atomic_store(&fs->fan[i].retake, true);
		mod_delayed_work(fs->wq, &fs->fan[i].dwork, 0);
	}
}

int hwsd_fans_restore(const char *path)
{
	char *line = NULL;
	size_t size = 0;
	int restored = 0, failed = 0, r = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (getline(&line, &size, f) > 0) {
		char *saved;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		saved = line + strcspn(line, " ");
		saved += strspn(saved, " ");
		r = hws_fan_restore_saved(saved);
		if (r < 0) {
			log_error("%s: [fan %.*s]: cannot put it back: %s", path,
				  (int)strcspn(line, " "), line, strerror(-r));
			failed++;
			continue;
		}
		log_notice("%s: [fan %.*s]: put back as it was", path, (int)strcspn(line, " "), line);
		restored++;
	}
	if (ferror(f))
		failed++;
	free(line);
	fclose(f);
	if (failed)
		return r < 0 ? r : -EIO;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return restored;
}
