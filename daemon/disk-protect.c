/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Motion events and disk protection, as hdapsd does it: the motion sensor
 * is sampled by a self-rearming delayed_work; on a sudden motion or a fall
 * a "motion" event is published (events.h), and the heads of
 * every configured disk are parked by writing a time in ms to
 * /sys/block/DISK/device/unload_heads. The park is renewed every second
 * while the motion lasts (the kernel releases it by itself when the time
 * runs out), and released with 0 once the detector calls the motion over
 * ("motion-end").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsight/motion.h>

#include "time-util.h"

#include "contract.h"
#include "events.h"
#include "guard.h"
#include "log.h"

#define RENEW_MS 1000

struct hwsd_guard {
	struct delayed_work dwork;
	struct workqueue_struct *wq;
	struct hwsd_events *sink;
	const struct hwsd_motion_conf *conf;
	struct hws_motion *motion;
	struct hws_motion_detector *detector;
	char *disks;                 /* "sda sdb", for messages and events */
	bool in_motion;              /* Q: @wq's work (the main thread once stopped) */
	bool parked;                 /* Q */
	uint64_t parked_ms;          /* Q: when the park was last written */
	int last_error;              /* Q */
};

static int write_unload_heads(const char *disk, unsigned ms)
{
	char path[256], value[16];
	int fd, len, r = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/device/unload_heads", disk);
	len = snprintf(value, sizeof(value), "%u", ms);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, (size_t)len) != len)
		r = -errno;
	close(fd);
	return r;
}

/* Park (@ms > 0) or release (0) every disk; log what failed. */
static void park_all(struct hwsd_guard *g, unsigned ms)
{
	const struct hwsd_motion_conf *m = g->conf;

	hwsd_assert_on_or_main(g->wq);
	for (size_t i = 0; i < m->n_disks; i++) {
		int r = write_unload_heads(m->disks[i], ms);

		if (r < 0)
			log_error("%s: cannot %s the heads: /sys/block/%s/device/unload_heads: %s",
				  m->disks[i], ms ? "park" : "release", m->disks[i],
				  r == -EOPNOTSUPP ? "the disk cannot unload its heads" : strerror(-r));
	}
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

	ev.disks = g->disks;
	if (*g->disks)
		snprintf(message, sizeof(message), "%s: %s the heads of %s", what,
			 begins ? "parking" : "releasing", g->disks);
	else
		snprintf(message, sizeof(message), "%s", what);
	ev.priority = LOG_NOTICE;
	ev.message = message;
	hwsd_events_publish(g->sink, &ev, 1);
}

static void guard_work(struct work_struct *work)
{
	struct hwsd_guard *g = container_of(work, struct hwsd_guard, dwork.work);
	const struct hwsd_motion_conf *m = g->conf;
	struct hws_motion_detector_state state;
	struct hws_motion_sample sample;
	int r, events;

	hwsd_assert_on(g->wq);
	r = hws_motion_read(g->motion, &sample);
	if (r < 0) {
		if (r != g->last_error)
			log_warning("motion sensor: %s%s", strerror(-r),
				    r == -ENODEV ? "; disk protection stops" : "");
		g->last_error = r;
		if (r == -ENODEV)
			return;
		goto rearm;
	}
	g->last_error = 0;
	events = hws_motion_detector_feed(g->detector, &sample);
	if (events < 0)
		goto rearm;
	hws_motion_detector_get_state(g->detector, &state);
	if (!g->in_motion && (events & (HWS_MOTION_EVENT_SUDDEN_MOTION | HWS_MOTION_EVENT_FREE_FALL))) {
		g->in_motion = true;
		if (m->n_disks)
			park_all(g, m->park_ms);
		event(g, "motion", events & HWS_MOTION_EVENT_FREE_FALL ? "free fall" : "sudden motion");
	}
	if (g->in_motion && !state.moving && !state.falling) {
		g->in_motion = false;
		if (g->parked)
			park_all(g, 0);
		event(g, "motion-end", "motion over");
	} else if (g->parked && hws__now_ms() - g->parked_ms >= RENEW_MS)
		park_all(g, m->park_ms);
rearm:
	queue_delayed_work(g->wq, &g->dwork, msecs_to_jiffies(m->interval_ms));
}

struct hwsd_guard *hwsd_guard_free(struct hwsd_guard *g)
{
	if (!g)
		return NULL;
	hws_motion_detector_free(g->detector);
	hws_motion_close(g->motion);
	free(g->disks);
	free(g);
	return NULL;
}

/* "sda sdb", and a warning for each disk that cannot be parked. */
static int disks_list(struct hwsd_guard *g)
{
	const struct hwsd_motion_conf *m = g->conf;
	size_t len = 0;

	for (size_t i = 0; i < m->n_disks; i++)
		len += strlen(m->disks[i]) + 1;
	g->disks = calloc(1, len + 1);
	if (!g->disks)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_disks; i++) {
		char path[256];

		if (i)
			strcat(g->disks, " ");
		strcat(g->disks, m->disks[i]);
		snprintf(path, sizeof(path), "/sys/block/%s/device/unload_heads", m->disks[i]);
		if (access(path, W_OK) < 0)
			log_warning("%s: %s: %s; it cannot be protected", m->disks[i], path, strerror(errno));
	}
	return 0;
}

int hwsd_guard_new(const struct hwsd_motion_conf *m, struct workqueue_struct *wq, struct hwsd_events *sink,
		   struct hwsd_guard **ret, char *why, size_t size)
{
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
	g->conf = m;
	INIT_DELAYED_WORK(&g->dwork, guard_work);
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
	if (r >= 0)
		r = disks_list(g);
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
	hwsd_assert_main();
	log_info("watching the motion sensor every %u ms%s%s", g->conf->interval_ms,
		 g->conf->n_disks ? " to protect " : " (no disks to protect)", g->disks);
	queue_delayed_work(g->wq, &g->dwork, 0);
}

void hwsd_guard_stop(struct hwsd_guard *g)
{
	hwsd_assert_main();
	cancel_delayed_work_sync(&g->dwork);
	/* Never leave the heads parked behind us. */
	if (g->parked)
		park_all(g, 0);
}
