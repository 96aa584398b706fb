/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Motion events and disk protection, as hdapsd does it: the motion sensor
 * is sampled by a self-rearming delayed_work; on a sudden motion or a fall
 * a "motion" event is published (events.h), and the heads of
 * every disk protected are parked by writing a time in ms to
 * /sys/block/DISK/device/unload_heads. The park is renewed every second
 * while the motion lasts (the kernel releases it by itself when the time
 * runs out), and released with 0 once the detector calls the motion over
 * ("motion-end").
 *
 * The disks protected are those of [motion] disks= that are there and
 * rotational, or with disks = auto every rotational, fixed disk that can
 * unload its heads, as hdapsd finds them. They are looked for again on
 * the motion queue whenever a block device comes or goes (hotplug.c).
 * While there is none, and no subscriber of the events acts on a motion
 * (exec=, a camera's snapshot_on_motion), the sensor is not sampled at
 * all: a laptop with only a solid-state disk pays no wake-up for it.
 *
 * With --dry-run nothing is written: the journal says what would have
 * been parked, and the events and the board count it as if it had been.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsight/motion.h>

#include "mem-util.h"
#include "sysfs-util.h"
#include "time-util.h"

#include "contract.h"
#include "events.h"
#include "guard.h"
#include "log.h"
#include "motion-board.h"

#define RENEW_MS 1000

typedef char disk_name[HWSD_DISK_NAME_MAX + 1];

struct hwsd_guard {
	struct delayed_work dwork;
	struct work_struct rescan;
	struct workqueue_struct *wq;
	struct hwsd_events *sink;
	struct hwsd_motion_board *board;
	const struct hwsd_motion_conf *conf;
	bool dry_run;
	bool always;                 /* sample without a disk: set at the start */
	struct hws_motion *motion;
	struct hws_motion_detector *detector;
	disk_name *disks;            /* Q: @wq's work (the main thread once stopped) */
	size_t n_disks;              /* Q */
	char *disk_list;             /* Q: "sda sdb", for messages and events */
	bool sampling;               /* Q */
	bool gone;                   /* Q: the sensor vanished */
	bool in_motion;              /* Q */
	bool parked;                 /* Q */
	uint64_t parked_ms;          /* Q: when the park was last written */
	int last_error;              /* Q */
};

static int write_unload_heads(const char *disk, unsigned ms)
{
	char path[256], value[16];

	snprintf(path, sizeof(path), "/sys/block/%s/device/unload_heads", disk);
	snprintf(value, sizeof(value), "%u", ms);
	return hws__write_attr(AT_FDCWD, path, value);
}

/*
 * Park (@ms > 0) or release (0) every disk protected; log what failed. A
 * disk counts as parked on the board from its first successful write;
 * a dry run writes nothing and succeeds.
 */
static void park_all(struct hwsd_guard *g, unsigned ms, bool free_fall)
{
	hwsd_assert_on_or_main(g->wq);
	if (ms && !g->parked)
		hwsd_motion_board_park(g->board, free_fall);
	for (size_t i = 0; i < g->n_disks; i++) {
		int r = g->dry_run ? 0 : write_unload_heads(g->disks[i], ms);

		if (r < 0)
			log_error("%s: cannot %s the heads: /sys/block/%s/device/unload_heads: %s",
				  g->disks[i], ms ? "park" : "release", g->disks[i],
				  r == -EOPNOTSUPP ? "the disk cannot unload its heads" : strerror(-r));
		else if (ms)
			hwsd_motion_board_parked(g->board, g->disks[i]);
	}
	if (!ms)
		hwsd_motion_board_released(g->board);
	g->parked = ms > 0;
	g->parked_ms = hws__now_ms();
}

/* "motion" or "motion-end", to the event sink: the journal, exec=, the
 * cameras (snapshots on motion) and the counters are its subscribers. */
static void event(struct hwsd_guard *g, const char *name, const char *what)
{
	struct hwsd_event ev = HWSD_EVENT_INIT(name);
	bool begins = !strcmp(name, "motion");
	char message[1024];

	ev.disks = g->disk_list;
	ev.dry_run = g->dry_run;
	if (*g->disk_list && g->dry_run)
		snprintf(message, sizeof(message), "%s: would %s the heads of %s (dry run)", what,
			 begins ? "park" : "release", g->disk_list);
	else if (*g->disk_list)
		snprintf(message, sizeof(message), "%s: %s the heads of %s", what,
			 begins ? "parking" : "releasing", g->disk_list);
	else
		snprintf(message, sizeof(message), "%s", what);
	ev.priority = LOG_NOTICE;
	ev.message = message;
	hwsd_events_publish(g->sink, &ev, 1);
}

/* The motion is over, or watching it is: release the heads, say so. */
static void motion_over(struct hwsd_guard *g)
{
	g->in_motion = false;
	if (g->parked)
		park_all(g, 0, false);
	event(g, "motion-end", "motion over");
}

static void guard_work(struct work_struct *work)
{
	struct hwsd_guard *g = container_of(work, struct hwsd_guard, dwork.work);
	const struct hwsd_motion_conf *m = g->conf;
	struct hws_motion_detector_state state;
	struct hws_motion_sample sample;
	int r, events;

	hwsd_assert_on(g->wq);
	/* Queued before a rescan stopped the sampling. */
	if (!g->sampling)
		return;
	r = hws_motion_read(g->motion, &sample);
	if (r < 0) {
		hwsd_motion_board_sample(g->board, NULL, NULL);
		if (r != g->last_error)
			log_warning("motion sensor: %s%s", strerror(-r),
				    r == -ENODEV ? "; disk protection stops" : "");
		g->last_error = r;
		if (r == -ENODEV) {
			g->gone = true;
			g->sampling = false;
			hwsd_motion_board_sampling(g->board, false);
			return;
		}
		goto rearm;
	}
	g->last_error = 0;
	events = hws_motion_detector_feed(g->detector, &sample);
	hws_motion_detector_get_state(g->detector, &state);
	hwsd_motion_board_sample(g->board, &sample, &state);
	if (events < 0)
		goto rearm;
	if (!g->in_motion && (events & (HWS_MOTION_EVENT_SUDDEN_MOTION | HWS_MOTION_EVENT_FREE_FALL))) {
		bool free_fall = events & HWS_MOTION_EVENT_FREE_FALL;

		g->in_motion = true;
		if (g->n_disks)
			park_all(g, m->park_ms, free_fall);
		event(g, "motion", free_fall ? "free fall" : "sudden motion");
	}
	if (g->in_motion && !state.moving && !state.falling)
		motion_over(g);
	else if (g->parked && hws__now_ms() - g->parked_ms >= RENEW_MS)
		park_all(g, m->park_ms, false);
rearm:
	queue_delayed_work(g->wq, &g->dwork, msecs_to_jiffies(m->interval_ms));
}

/* The first line of a disk's attribute is @value. */
static bool attr_is(const char *disk, const char *attr, const char *value)
{
	char path[256], buf[16];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/block/%s/%s", disk, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, value);
}

/*
 * Can @disk's heads be parked? With @strict (disks = auto), as hdapsd's
 * autodetection has it: a fixed disk, rotational, with unload_heads; a
 * disk named in the config need only have unload_heads and not say it is
 * solid-state. Return: 0, -ENODEV (no such disk), -EOPNOTSUPP (no
 * unload_heads), -EMEDIUMTYPE (not rotational, or removable).
 */
static int disk_check(const char *disk, bool strict)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/block/%s", disk);
	if (strlen(disk) > HWSD_DISK_NAME_MAX || access(path, F_OK) < 0)
		return -ENODEV;
	snprintf(path, sizeof(path), "/sys/block/%s/device/unload_heads", disk);
	if (access(path, F_OK) < 0)
		return -EOPNOTSUPP;
	if (strict ? !attr_is(disk, "queue/rotational", "1") || !attr_is(disk, "removable", "0")
		   : attr_is(disk, "queue/rotational", "0"))
		return -EMEDIUMTYPE;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Add @disk to @disks if it can be parked; with @warn, say why not. */
static int disk_add(const char *disk, bool strict, bool warn, disk_name **disks, size_t *n)
{
	disk_name *grown;
	int r = disk_check(disk, strict);

	if (r < 0) {
		if (warn)
			log_warning("%s: %s; it is not protected while that lasts", disk,
				    r == -ENODEV ? "no such disk in /sys/block" :
				    r == -EOPNOTSUPP ? "it cannot unload its heads (no device/unload_heads)" :
				    "not a rotational disk (queue/rotational is 0)");
		return 0;
	}
	grown = realloc(*disks, (*n + 1) * sizeof(**disks));
	if (!grown)
		return -ENOMEM;
	/* Zeroed to the end: lists are compared with memcmp(). */
	memset(grown[*n], 0, sizeof(grown[*n]));
	snprintf(grown[*n], sizeof(grown[*n]), "%s", disk);
	*disks = grown;
	(*n)++;
	return 0;
}

/* The disks to protect now, sorted by name; @warn: say why a disk of the
 * config is left out. */
static int disks_scan(const struct hwsd_guard *g, bool warn, disk_name **ret, size_t *ret_n)
{
	const struct hwsd_motion_conf *m = g->conf;
	disk_name *disks = NULL;
	size_t n = 0;
	int r = 0;

	if (m->auto_disks) {
		DIR *dir = opendir("/sys/block");
		struct dirent *de;

		/* No /sys/block is no block device (a container). */
		if (!dir && errno != ENOENT)
			return -errno;
		while (dir && r >= 0 && (de = readdir(dir)))
			if (de->d_name[0] != '.')
				r = disk_add(de->d_name, true, false, &disks, &n);
		if (dir)
			closedir(dir);
	} else {
		for (size_t i = 0; r >= 0 && i < m->n_disks; i++)
			r = disk_add(m->disks[i], false, warn, &disks, &n);
	}
	if (r < 0) {
		free(disks);
		return r;
	}
	if (n)
		qsort(disks, n, sizeof(*disks), by_name);
	*ret = disks;
	*ret_n = n;
	return 0;
}

/* "sda sdb" */
static char *disks_join(const disk_name *disks, size_t n)
{
	char *list = calloc(n ? n : 1, sizeof(*disks));

	for (size_t i = 0; list && i < n; i++) {
		if (i)
			strcat(list, " ");
		strcat(list, disks[i]);
	}
	return list;
}

/*
 * From now on @disks (taken) are protected, and the sensor sampled if
 * they or the subscribers ask for it; the journal says which, at the
 * start (@first) and at each change. On the motion queue, or the main
 * thread before the guard starts.
 */
static void disks_use(struct hwsd_guard *g, disk_name *disks, size_t n, bool first)
{
	char *list;
	bool sample;

	hwsd_assert_on_or_main(g->wq);
	if (!first && n == g->n_disks && (!n || !memcmp(disks, g->disks, n * sizeof(*disks)))) {
		free(disks);
		return;
	}
	list = disks_join(disks, n);
	if (!list) {
		log_error("disk protection: out of memory; the disks protected stay %s", g->disk_list);
		free(disks);
		return;
	}
	free(g->disks);
	free(g->disk_list);
	g->disks = disks;
	g->n_disks = n;
	g->disk_list = list;
	if (hwsd_motion_board_disks(g->board, disks, n) < 0)
		log_warning("disk protection: out of memory; some disks are not shown over HTTP");
	sample = !g->gone && (g->always || n);
	if (sample)
		log_info("watching the motion sensor every %u ms%s%s%s", g->conf->interval_ms,
			 n ? " to protect " : " (no disks to protect)", list,
			 g->dry_run ? " (dry run: no heads are parked)" : "");
	else if (first || g->sampling)
		log_info("motion sensor idle: no %s to protect, and no exec= or snapshot_on_motion "
			 "acts on motions; sampling starts when a disk appears",
			 g->conf->auto_disks ? "rotational disk (disks = auto)" : "disk of disks=");
	hwsd_motion_board_sampling(g->board, sample);
	if (!sample && g->sampling) {
		/* On the motion queue, where the sample cannot be running. */
		g->sampling = false;
		cancel_delayed_work(&g->dwork);
		if (g->in_motion)
			motion_over(g);
	} else if (sample && !g->sampling) {
		/* Set first: the sample may run at once, and looks. */
		g->sampling = true;
		queue_delayed_work(g->wq, &g->dwork, 0);
	}
}

static void rescan_work(struct work_struct *work)
{
	struct hwsd_guard *g = container_of(work, struct hwsd_guard, rescan);
	disk_name *disks;
	size_t n;
	int r;

	hwsd_assert_on(g->wq);
	r = disks_scan(g, false, &disks, &n);
	if (r < 0) {
		log_warning("disk protection: cannot look for disks: %s", strerror(-r));
		return;
	}
	disks_use(g, disks, n, false);
}

struct hwsd_guard *hwsd_guard_free(struct hwsd_guard *g)
{
	if (!g)
		return NULL;
	hws_motion_detector_free(g->detector);
	hws_motion_close(g->motion);
	hws__free_all(g->disks, g->disk_list, g);
	return NULL;
}

int hwsd_guard_new(const struct hwsd_config *c, struct workqueue_struct *wq, struct hwsd_events *sink,
		   struct hwsd_motion_board *board, struct hwsd_guard **ret, char *why, size_t size)
{
	const struct hwsd_motion_conf *m = &c->motion;
	struct hws_motion_detector_params params = { .threshold = m->sensitivity };
	struct hws_motion_options opts = { .interval_ms = m->interval_ms };
	struct hws_motion_sample sample;
	struct hws_motion_info info;
	struct hwsd_guard *g;
	int r;

	*ret = NULL;
	if (!m->enabled)
		return 0;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->wq = wq;
	g->sink = sink;
	g->board = board;
	g->conf = m;
	g->dry_run = c->dry_run;
	INIT_DELAYED_WORK(&g->dwork, guard_work);
	INIT_WORK(&g->rescan, rescan_work);
	r = hws_motion_open(&opts, &g->motion);
	/* A sensor that cannot be read now would only fail in the work. */
	if (r >= 0)
		r = hws_motion_read(g->motion, &sample);
	if (r == -ENODEV) {
		log_notice("no motion sensor (ams, applesmc, lis3lv02d, hdaps): disk protection is off");
		hwsd_guard_free(g);
		return 0;
	}
	if (r < 0 && r != -EAGAIN) {
		snprintf(why, size, "motion sensor: %s", strerror(-r));
		goto fail;
	}
	r = hws_motion_load_driver_calibration(g->motion);
	if (r < 0 && r != -EOPNOTSUPP)
		log_warning("motion sensor: no calibration from the driver: %s", strerror(-r));
	/* hdaps has no z: its free fall cannot be told from lying flat. */
	if (hws_motion_get_info(g->motion, &info) == 0)
		params.axes = info.axes;
	r = hws_motion_detector_new(&params, &g->detector);
	if (r >= 0 && !(g->disk_list = strdup("")))
		r = -ENOMEM;
	if (r < 0) {
		snprintf(why, size, "disk protection: %s", strerror(-r));
		goto fail;
	}
	*ret = g;
	return 0;
fail:
	hwsd_guard_free(g);
	return r;
}

void hwsd_guard_start(struct hwsd_guard *g)
{
	struct hws_motion_info info;
	disk_name *disks = NULL;
	size_t n = 0;
	int r;

	hwsd_assert_main();
	hws_motion_get_info(g->motion, &info);
	hwsd_motion_board_watch(g->board, &info, g->conf->sensitivity, g->dry_run);
	/* With no disk named (disks = none), motions are all it is for. */
	g->always = (!g->conf->auto_disks && !g->conf->n_disks) || hwsd_events_wanted(g->sink, "motion");
	r = disks_scan(g, true, &disks, &n);
	if (r < 0)
		log_warning("disk protection: cannot look for disks: %s", strerror(-r));
	disks_use(g, disks, n, true);
}

void hwsd_guard_disks_changed(struct hwsd_guard *g)
{
	hwsd_assert_main();
	queue_work(g->wq, &g->rescan);
}

void hwsd_guard_stop(struct hwsd_guard *g)
{
	hwsd_assert_main();
	cancel_work_sync(&g->rescan);
	cancel_delayed_work_sync(&g->dwork);
	/* Never leave the heads parked behind us. */
	if (g->parked)
		park_all(g, 0, false);
	g->sampling = false;
	hwsd_motion_board_watch(g->board, NULL, 0, false);
}
