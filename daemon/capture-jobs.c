/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Snapshots: periodic ones as a self-rearming delayed_work per camera,
 * those on an alarm or a motion as a work item that the poller or the
 * motion guard queues. Each snapshot opens the camera, lets skip_frames
 * go by for the exposure to settle, and saves one frame atomically (a
 * temporary file renamed into place), so the device is free in between
 * and a crash never leaves half an image under a final name.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/videodev2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hwsight/camera.h>

#include "hwsightd.h"

#define FRAME_TIMEOUT_MS 2000

static const char *type_ext(enum hws_image_type type)
{
	return type == HWS_IMAGE_PNG ? "png" : type == HWS_IMAGE_PPM ? "ppm" : "jpg";
}

/* Create @path and its parents, like mkdir -p. */
static int mkdir_p(const char *path, mode_t mode)
{
	char *p = strdup(path);
	int r = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; ; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return r;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Remove the oldest snapshots of @cam beyond keep=. Their names start with
 * "NAME-" and a timestamp, so name order is age order. */
static void prune(struct hwsd_camera *cam)
{
	const char *name = cam->conf->name, *ext = type_ext(cam->conf->type);
	size_t len = strlen(name), n_ours = 0;
	struct dirent **list;
	int n;

	if (!cam->conf->keep)
		return;
	n = scandir(cam->directory, &list, NULL, by_name);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *f = list[i]->d_name, *dot = strrchr(f, '.');

		if (!strncmp(f, name, len) && f[len] == '-' && f[len + 1] >= '0' && f[len + 1] <= '9' &&
		    dot && !strcmp(dot + 1, ext))
			list[n_ours++] = list[i];
		else
			free(list[i]);
	}
	for (size_t i = 0; i + cam->conf->keep < n_ours; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", cam->directory, list[i]->d_name);
		if (unlink(path) < 0 && errno != ENOENT)
			log_warning("camera %s: cannot remove %s: %s", name, path, strerror(errno));
	}
	for (size_t i = 0; i < n_ours; i++)
		free(list[i]);
	free(list);
}

/* A new file name: NAME-YYYYmmdd-HHMMSS-REASON.EXT, -2, -3 ... if taken. */
static int snapshot_path(struct hwsd_camera *cam, const char *reason, char *path, size_t size)
{
	char stamp[32];
	struct tm tm;
	time_t now = time(NULL);

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int i = 1; i < 100; i++) {
		char suffix[8] = "";

		if (i > 1)
			snprintf(suffix, sizeof(suffix), "-%d", i);
		if (snprintf(path, size, "%s/%s-%s-%s%s.%s", cam->directory, cam->conf->name, stamp,
			     reason, suffix, type_ext(cam->conf->type)) >= (int)size)
			return -ENAMETOOLONG;
		if (access(path, F_OK) < 0 && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}

static int grab(struct hwsd_camera *cam, const char *reason, char *path, size_t size)
{
	const struct hwsd_camera_conf *conf = cam->conf;
	struct hws_capture_request req = {
		.width = conf->width, .height = conf->height, .interval = conf->interval,
	};
	struct hws_capture_setup setup;
	struct hws_camera *c = NULL;
	struct hws_frame frame;
	int r;

	r = hws_camera_open(conf->device, &c);
	if (r < 0)
		return r;
	r = hws_camera_negotiate(c, &req, &setup);
	if (r == 0 && !hws_image_can_encode(setup.fourcc, conf->type)) {
		/* A format we cannot encode: have libv4lconvert make RGB. */
		req.fourcc = V4L2_PIX_FMT_RGB24;
		req.convert = true;
		r = hws_camera_negotiate(c, &req, &setup);
	}
	if (r == 0)
		r = hws_camera_start(c);
	for (unsigned i = 0; r == 0 && i <= conf->skip_frames; i++)
		r = hws_camera_next(c, FRAME_TIMEOUT_MS, &frame);
	if (r == 0)
		r = snapshot_path(cam, reason, path, size);
	if (r == 0)
		r = hws_image_save(cam->enc, path, &frame, conf->type, conf->quality);
	hws_camera_close(c);
	return r;
}

static void snapshot(struct hwsd_camera *cam, const char *reason)
{
	struct hwsd_event ev = HWSD_EVENT_INIT("snapshot");
	char path[4096];
	int r;

	if (!atomic_load(&cam->present)) {
		log_debug("camera %s: %s is not there; no %s snapshot", cam->conf->name,
			  cam->conf->device, reason);
		return;
	}
	r = grab(cam, reason, path, sizeof(path));
	if (r < 0) {
		/* Said once per kind of failure: a busy camera or a full disk
		 * would otherwise fill the journal at every period. */
		if (r != cam->last_error)
			log_warning("camera %s: %s snapshot failed: %s: %s", cam->conf->name, reason,
				    r == -ENOSPC || r == -EROFS || r == -EACCES ? cam->directory :
										    cam->conf->device,
				    r == -EBUSY ? "device busy (another program is capturing)" : strerror(-r));
		cam->last_error = r;
		return;
	}
	if (cam->last_error)
		log_notice("camera %s: snapshots work again", cam->conf->name);
	cam->last_error = 0;
	cam->snapshots++;
	ev.camera = cam->conf->name;
	ev.path = path;
	hwsd_log_event(LOG_INFO, &ev, "camera %s: %s snapshot %s", cam->conf->name, reason, path);
	prune(cam);
}

static void periodic_work(struct work_struct *work)
{
	struct hwsd_camera *cam = container_of(work, struct hwsd_camera, periodic.work);
	unsigned long delay = msecs_to_jiffies(cam->conf->snapshot_ms);

	snapshot(cam, "periodic");
	queue_delayed_work(cam->d->capture_wq, &cam->periodic, round_jiffies_relative(delay));
}

static void event_work(struct work_struct *work)
{
	struct hwsd_camera *cam = container_of(work, struct hwsd_camera, event);
	unsigned reasons = atomic_exchange(&cam->reasons, 0);

	if (reasons & HWSD_SNAP_ALARM)
		snapshot(cam, "alarm");
	if (reasons & HWSD_SNAP_MOTION)
		snapshot(cam, "motion");
}

void hwsd_cameras_trigger(struct hwsd *d, unsigned reason)
{
	for (size_t i = 0; i < d->n_cameras; i++) {
		struct hwsd_camera *cam = &d->cameras[i];

		if ((reason == HWSD_SNAP_ALARM && !cam->conf->on_alarm) ||
		    (reason == HWSD_SNAP_MOTION && !cam->conf->on_motion))
			continue;
		atomic_fetch_or(&cam->reasons, reason);
		queue_work(d->capture_wq, &cam->event);
	}
}

static bool device_exists(const char *device)
{
	struct stat st;

	return stat(device, &st) == 0 && S_ISCHR(st.st_mode);
}

void hwsd_cameras_hotplug(struct hwsd *d)
{
	for (size_t i = 0; i < d->n_cameras; i++) {
		struct hwsd_camera *cam = &d->cameras[i];
		bool now = device_exists(cam->conf->device);

		if (now == atomic_exchange(&cam->present, now))
			continue;
		log_notice("camera %s: %s %s", cam->conf->name, cam->conf->device,
			   now ? "appeared" : "went away");
		if (now && cam->conf->snapshot_ms)
			mod_delayed_work(d->capture_wq, &cam->periodic, 0);
	}
	hwsd_status(d);
}

int hwsd_cameras_start(struct hwsd *d)
{
	const struct hwsd_config *c = d->config;
	int r;

	d->cameras = calloc(c->n_cameras ? c->n_cameras : 1, sizeof(*d->cameras));
	if (!d->cameras)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_cameras; i++) {
		struct hwsd_camera *cam = &d->cameras[d->n_cameras];
		const struct hwsd_camera_conf *conf = &c->cameras[i];

		cam->d = d;
		cam->conf = conf;
		INIT_DELAYED_WORK(&cam->periodic, periodic_work);
		INIT_WORK(&cam->event, event_work);
		if (conf->directory)
			cam->directory = strdup(conf->directory);
		else if (asprintf(&cam->directory, "%s/snapshots", c->state_dir) < 0)
			cam->directory = NULL;
		if (!cam->directory)
			return -ENOMEM;
		r = hws_image_encoder_new(&cam->enc);
		if (r < 0) {
			free(cam->directory);
			return r;
		}
		d->n_cameras++;
		r = mkdir_p(cam->directory, 0750);
		if (r < 0)
			log_warning("camera %s: cannot create %s: %s", conf->name, cam->directory,
				    strerror(-r));
		atomic_store(&cam->present, device_exists(conf->device));
		log_info("camera %s: %s%s, snapshots in %s", conf->name, conf->device,
			 atomic_load(&cam->present) ? "" : " (not there yet)", cam->directory);
		if (conf->snapshot_ms)
			queue_delayed_work(d->capture_wq, &cam->periodic, 0);
	}
	return 0;
}

void hwsd_cameras_stop(struct hwsd *d)
{
	for (size_t i = 0; i < d->n_cameras; i++) {
		cancel_delayed_work_sync(&d->cameras[i].periodic);
		cancel_work_sync(&d->cameras[i].event);
	}
	for (size_t i = 0; i < d->n_cameras; i++) {
		hws_image_encoder_free(d->cameras[i].enc);
		free(d->cameras[i].directory);
	}
	free(d->cameras);
	d->cameras = NULL;
	d->n_cameras = 0;
}
