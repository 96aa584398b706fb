/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cameras' jobs, each camera on its own queue. A periodic snapshot is
 * a self-rearming delayed_work; one on an alarm or a motion is asked for
 * by the event sink (events.h); the live stream is asked for by HTTP
 * viewers (live.h). All of them are served by one capture work item that
 * takes a frame a run: it opens the camera when needed, lets skip_frames
 * go by for the exposure to settle, saves the snapshots asked for
 * atomically (a temporary file renamed into place, so a crash never
 * leaves half an image under a final name), encodes the frame once for
 * the viewers, and closes the device as soon as nothing wants frames.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hwsight/camera.h>

#include "cameras.h"
#include "contract.h"
#include "events.h"
#include "fs.h"
#include "hwsightd.h"
#include "log.h"

#define FRAME_TIMEOUT_MS 2000
/* After a failed capture with viewers waiting, try again this much later. */
#define RETRY_MS 1000

static const char *type_ext(enum hws_image_type type)
{
	return type == HWS_IMAGE_PNG ? "png" : type == HWS_IMAGE_PPM ? "ppm" : "jpg";
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Is @f called NAME-YYYYmmdd-HHMMSS-... (snapshot_path()), and if so,
 * where does the rest start? The stamp keeps camera "cam" from taking
 * camera "cam-2"'s files for its own. */
static const char *after_stamp(const char *f, const char *name)
{
	static const char stamp[] = "dddddddd-dddddd-";
	size_t len = strlen(name);

	if (strncmp(f, name, len) || f[len] != '-')
		return NULL;
	f += len + 1;
	for (size_t i = 0; stamp[i]; i++)
		if (stamp[i] == 'd' ? !isdigit((unsigned char)f[i]) : f[i] != stamp[i])
			return NULL;
	return f + sizeof(stamp) - 1;
}

/* A temporary file hws_image_save() left for one of our snapshots when
 * the daemon was killed in the middle: ".FINAL.XXXXXX". */
static bool stale_temp(const char *f, const char *name, const char *ext)
{
	const char *rest = f[0] == '.' ? after_stamp(f + 1, name) : NULL;
	size_t ext_len = strlen(ext);

	for (; rest && (rest = strchr(rest, '.')); rest++)
		if (!strncmp(rest + 1, ext, ext_len) && rest[1 + ext_len] == '.' &&
		    strlen(rest + 2 + ext_len) == 6)
			return true;
	return false;
}

static bool snapshot_file(const char *f, const char *name, const char *ext)
{
	const char *rest = after_stamp(f, name), *dot = rest ? strrchr(rest, '.') : NULL;

	return dot && !strcmp(dot + 1, ext);
}

/*
 * Remove the oldest snapshots of @cam beyond keep=, and temporary files a
 * crash left behind (no save is under way: this runs on the camera's
 * queue, or before it starts). The names start with "NAME-" and a
 * timestamp, so name order is age order.
 */
static void prune(struct hwsd_camera *cam)
{
	const char *name = cam->conf->name, *ext = type_ext(cam->conf->type);
	size_t n_ours = 0;
	struct dirent **list;
	char path[4096];
	int n;

	hwsd_assert_on_or_main(cam->wq);
	n = scandir(cam->directory, &list, NULL, by_name);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *f = list[i]->d_name;

		if (snapshot_file(f, name, ext)) {
			list[n_ours++] = list[i];
			continue;
		}
		if (stale_temp(f, name, ext)) {
			snprintf(path, sizeof(path), "%s/%s", cam->directory, f);
			if (unlink(path) == 0)
				log_info("camera %s: removed %s, a snapshot left half written", name, path);
		}
		free(list[i]);
	}
	for (size_t i = 0; cam->conf->keep && i + cam->conf->keep < n_ours; i++) {
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

static void stream_stop(struct hwsd_camera *cam)
{
	struct hws_capture_stats st;

	hwsd_assert_on_or_main(cam->wq);
	if (!cam->dev)
		return;
	hws_camera_stats(cam->dev, &st);
	hwsd_live_stream_stats(cam->live, &st, cam->setup.width, cam->setup.height, true);
	cam->dev = hws_camera_close(cam->dev);
}

/*
 * Both the snapshot's type and the live JPEG are made from the frames,
 * and every type takes the same formats: the camera is kept in its own
 * format when the encoder takes it, else set to one of its own that it
 * takes, else libv4lconvert makes RGB. Negotiation knows this before it
 * wraps the device, so one wrap serves.
 */
static int stream_start(struct hwsd_camera *cam)
{
	const struct hwsd_camera_conf *conf = cam->conf;
	struct hws_capture_request req = {
		.width = conf->width, .height = conf->height, .interval = conf->interval,
	};
	uint32_t *accept = NULL;
	size_t n = hws_image_formats(NULL, 0);
	char fcc[5] = "", dev_fcc[5] = "";
	int r;

	hwsd_assert_on(cam->wq);
	accept = calloc(n, sizeof(*accept));
	if (!accept)
		return -ENOMEM;
	hws_image_formats(accept, n);
	req.accept = accept;
	req.n_accept = n;
	r = hws_camera_open(conf->device, &cam->dev);
	if (r == 0)
		r = hws_camera_negotiate(cam->dev, &req, &cam->setup);
	free(accept);
	if (r == 0)
		r = hws_camera_start(cam->dev);
	if (r < 0) {
		cam->dev = hws_camera_close(cam->dev);
		return r;
	}
	cam->skip = conf->skip_frames;
	memcpy(fcc, &cam->setup.fourcc, 4);
	memcpy(dev_fcc, &cam->setup.device_fourcc, 4);
	log_debug("camera %s: streaming %ux%u %s%s%s", conf->name, cam->setup.width, cam->setup.height,
		  fcc, cam->setup.converting ? ", converted by libv4lconvert from " : "",
		  cam->setup.converting ? dev_fcc : "");
	return 0;
}

static int next_frame(struct hwsd_camera *cam, struct hws_frame *frame)
{
	int r = cam->dev ? 0 : stream_start(cam);

	for (; r == 0 && cam->skip; cam->skip--)
		r = hws_camera_next(cam->dev, FRAME_TIMEOUT_MS, frame);
	if (r == 0)
		r = hws_camera_next(cam->dev, FRAME_TIMEOUT_MS, frame);
	if (r < 0)
		stream_stop(cam);
	return r;
}

/* Said once per kind of failure: a busy camera or a full disk would
 * otherwise fill the journal at every period. */
static void failed(struct hwsd_camera *cam, int *last, int r, const char *what, const char *where)
{
	hwsd_assert_on(cam->wq);
	if (r != *last)
		log_warning("camera %s: %s failed: %s: %s", cam->conf->name, what, where,
			    r == -EBUSY ? "device busy (another program is capturing)" :
			    r == -ENOBUFS ? "the driver granted fewer than the 2 buffers streaming needs" :
			    strerror(-r));
	*last = r;
	hwsd_live_set_error(cam->live, r);
}

static void snapshot(struct hwsd_camera *cam, const char *reason, const struct hws_frame *frame)
{
	struct hwsd_event ev = HWSD_EVENT_INIT("snapshot");
	char path[4096], what[32];
	int r;

	hwsd_assert_on(cam->wq);
	r = snapshot_path(cam, reason, path, sizeof(path));
	if (r == 0)
		r = hws_image_encoder_set_chroma(cam->enc, HWS_IMAGE_CHROMA_SOURCE);
	if (r == 0)
		r = hws_image_save(cam->enc, path, frame, cam->conf->type, cam->conf->quality);
	if (r < 0) {
		snprintf(what, sizeof(what), "%s snapshot", reason);
		failed(cam, &cam->save_error, r, what, cam->directory);
		return;
	}
	if (cam->save_error)
		log_notice("camera %s: snapshots work again", cam->conf->name);
	cam->save_error = 0;
	hwsd_live_snapshot_taken(cam->live, path);
	ev.camera = cam->conf->name;
	ev.path = path;
	hwsd_log_event(LOG_INFO, &ev, "camera %s: %s snapshot %s", cam->conf->name, reason, path);
	prune(cam);
}

static void publish(struct hwsd_camera *cam, const struct hws_frame *frame)
{
	struct hws_capture_stats st;
	const void *jpeg;
	size_t size;

	hwsd_assert_on(cam->wq);
	if (hws_image_encoder_set_chroma(cam->enc, cam->conf->stream_chroma) == 0 &&
	    hws_image_encode(cam->enc, frame, HWS_IMAGE_JPEG, cam->conf->quality, &jpeg, &size) == 0)
		hwsd_live_publish(cam->live, jpeg, size, frame->timestamp_ns);
	hws_camera_stats(cam->dev, &st);
	hwsd_live_stream_stats(cam->live, &st, frame->width, frame->height, false);
}

/*
 * One frame: for the snapshots asked for, and for the live viewers. While
 * viewers remain the work queues itself again, and hws_camera_next() paces
 * it at the camera's rate; once nothing wants frames the device is closed.
 */
static void capture_work(struct work_struct *work)
{
	struct hwsd_camera *cam = container_of(work, struct hwsd_camera, capture.work);
	static const struct { unsigned bit; const char *name; } reasons[] = {
		{ HWSD_SNAP_PERIODIC, "periodic" },
		{ HWSD_SNAP_ALARM, "alarm" },
		{ HWSD_SNAP_MOTION, "motion" },
	};
	unsigned want = atomic_exchange(&cam->reasons, 0);
	bool live = hwsd_live_wanted(cam->live);
	struct hws_frame frame;
	int r;

	hwsd_assert_on(cam->wq);
	if (!want && !live) {
		stream_stop(cam);
		return;
	}
	if (!atomic_load(&cam->present)) {
		log_debug("camera %s: %s is not there; no frame", cam->conf->name, cam->conf->device);
		stream_stop(cam);
		return;
	}
	r = next_frame(cam, &frame);
	if (r < 0) {
		failed(cam, &cam->capture_error, r, "capture", cam->conf->device);
		if (live)
			queue_delayed_work(cam->wq, &cam->capture, msecs_to_jiffies(RETRY_MS));
		return;
	}
	if (cam->capture_error)
		log_notice("camera %s: capture works again", cam->conf->name);
	cam->capture_error = 0;
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (want & reasons[i].bit)
			snapshot(cam, reasons[i].name, &frame);
	if (live)
		publish(cam, &frame);
	if (hwsd_live_wanted(cam->live))
		queue_delayed_work(cam->wq, &cam->capture, 0);
	else
		stream_stop(cam);
}

static void want_frame(struct hwsd_camera *cam, unsigned reason)
{
	atomic_fetch_or(&cam->reasons, reason);
	mod_delayed_work(cam->wq, &cam->capture, 0);
}

/* From a viewer's thread, under the live lock. */
static void wake(void *userdata)
{
	struct hwsd_camera *cam = userdata;

	queue_delayed_work(cam->wq, &cam->capture, 0);
}

static void periodic_work(struct work_struct *work)
{
	struct hwsd_camera *cam = container_of(work, struct hwsd_camera, periodic.work);
	unsigned long delay = msecs_to_jiffies(cam->conf->snapshot_ms);

	hwsd_assert_on(cam->wq);
	want_frame(cam, HWSD_SNAP_PERIODIC);
	queue_delayed_work(cam->wq, &cam->periodic, round_jiffies_relative(delay));
}

static void trigger(struct hwsd *d, unsigned reason)
{
	for (size_t i = 0; i < d->n_cameras; i++) {
		struct hwsd_camera *cam = &d->cameras[i];

		if ((reason == HWSD_SNAP_ALARM && cam->conf->on_alarm) ||
		    (reason == HWSD_SNAP_MOTION && cam->conf->on_motion))
			want_frame(cam, reason);
	}
}

/* One snapshot per moment and reason, however many alarms one poll
 * begins: the cameras that want one take it. */
static void cameras_moment(void *userdata, const struct hwsd_event *evs, size_t n)
{
	unsigned reasons = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(evs[i].event, "alarm"))
			reasons |= HWSD_SNAP_ALARM;
		else if (!strcmp(evs[i].event, "motion"))
			reasons |= HWSD_SNAP_MOTION;
	if (reasons & HWSD_SNAP_ALARM)
		trigger(userdata, HWSD_SNAP_ALARM);
	if (reasons & HWSD_SNAP_MOTION)
		trigger(userdata, HWSD_SNAP_MOTION);
}

/* A camera told to take a snapshot on a motion (or an alarm). */
static bool cameras_want(void *userdata, const char *event)
{
	const struct hwsd *d = userdata;
	bool motion = !strcmp(event, "motion"), alarm = !strcmp(event, "alarm");

	for (size_t i = 0; i < d->n_cameras; i++)
		if ((motion && d->cameras[i].conf->on_motion) || (alarm && d->cameras[i].conf->on_alarm))
			return true;
	return false;
}

const struct hwsd_subscriber hwsd_cameras_subscriber = { .moment = cameras_moment, .wants = cameras_want };

static bool device_exists(const char *device)
{
	struct stat st;

	return stat(device, &st) == 0 && S_ISCHR(st.st_mode);
}

void hwsd_cameras_hotplug(struct hwsd *d)
{
	hwsd_assert_main();
	for (size_t i = 0; i < d->n_cameras; i++) {
		struct hwsd_camera *cam = &d->cameras[i];
		bool now = device_exists(cam->conf->device);

		if (now == atomic_exchange(&cam->present, now))
			continue;
		hwsd_live_set_present(cam->live, now);
		log_notice("camera %s: %s %s", cam->conf->name, cam->conf->device,
			   now ? "appeared" : "went away");
		if (now && cam->conf->snapshot_ms)
			mod_delayed_work(cam->wq, &cam->periodic, 0);
	}
	hwsd_status_changed(&d->status);
}

static char *snapshot_directory(const struct hwsd_config *c, const struct hwsd_camera_conf *conf)
{
	char *dir;

	if (conf->directory)
		return strdup(conf->directory);
	return asprintf(&dir, "%s/snapshots", c->state_dir) < 0 ? NULL : dir;
}

int hwsd_cameras_prepare(const struct hwsd_config *c, char *why, size_t size)
{
	for (size_t i = 0; i < c->n_cameras; i++) {
		char *dir = snapshot_directory(c, &c->cameras[i]);
		int r = dir ? hwsd_mkdir_p(dir, 0750) : -ENOMEM;

		if (r < 0) {
			snprintf(why, size, "camera %s: cannot create %s: %s", c->cameras[i].name,
				 dir ? dir : "its snapshot directory", strerror(-r));
			free(dir);
			return r;
		}
		free(dir);
	}
	return 0;
}

static int camera_init(struct hwsd *d, struct hwsd_camera *cam, const struct hwsd_camera_conf *conf)
{
	int r;

	cam->d = d;
	cam->conf = conf;
	INIT_DELAYED_WORK(&cam->periodic, periodic_work);
	INIT_DELAYED_WORK(&cam->capture, capture_work);
	cam->directory = snapshot_directory(d->config, conf);
	if (!cam->directory)
		return -ENOMEM;
	r = hws_image_encoder_new(&cam->enc);
	if (r < 0)
		return r;
	r = hwsd_live_new(conf->name, wake, cam, &cam->live);
	if (r < 0)
		return r;
	cam->wq = create_freezeable_workqueue("hwsight-camera");
	if (!cam->wq)
		return -ENOMEM;
	prune(cam);
	atomic_store(&cam->present, device_exists(conf->device));
	hwsd_live_set_present(cam->live, atomic_load(&cam->present));
	log_info("camera %s: %s%s, snapshots in %s", conf->name, conf->device,
		 atomic_load(&cam->present) ? "" : " (not there yet)", cam->directory);
	if (conf->snapshot_ms)
		queue_delayed_work(cam->wq, &cam->periodic, 0);
	return 0;
}

/* Once its works are cancelled: the queue is idle, the device ours. */
static void camera_done(struct hwsd_camera *cam)
{
	if (cam->wq)
		destroy_workqueue(cam->wq);
	stream_stop(cam);
	hws_image_encoder_free(cam->enc);
	free(cam->directory);
	hwsd_live_unref(cam->live);
}

int hwsd_cameras_start(struct hwsd *d)
{
	const struct hwsd_config *c = d->config;
	struct hwsd_live **lives;
	int r;

	hwsd_assert_main();
	d->cameras = calloc(c->n_cameras ? c->n_cameras : 1, sizeof(*d->cameras));
	lives = calloc(c->n_cameras ? c->n_cameras : 1, sizeof(*lives));
	if (!d->cameras || !lives) {
		free(lives);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n_cameras; i++) {
		struct hwsd_camera *cam = &d->cameras[d->n_cameras++];

		r = camera_init(d, cam, &c->cameras[i]);
		if (r < 0) {
			free(lives);
			return r;
		}
		lives[i] = cam->live;
	}
	r = hwsd_live_set_replace(&d->live, lives, d->n_cameras);
	free(lives);
	return r;
}

void hwsd_cameras_stop(struct hwsd *d)
{
	hwsd_assert_main();
	hwsd_live_set_replace(&d->live, NULL, 0);
	/* First no viewer can wake a camera, then none re-arms itself. */
	for (size_t i = 0; i < d->n_cameras; i++)
		if (d->cameras[i].live)
			hwsd_live_close(d->cameras[i].live);
	for (size_t i = 0; i < d->n_cameras; i++) {
		cancel_delayed_work_sync(&d->cameras[i].periodic);
		cancel_delayed_work_sync(&d->cameras[i].capture);
	}
	for (size_t i = 0; i < d->n_cameras; i++)
		camera_done(&d->cameras[i]);
	free(d->cameras);
	d->cameras = NULL;
	d->n_cameras = 0;
}
