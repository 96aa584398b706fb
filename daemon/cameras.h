/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_CAMERAS_H
#define HWSD_CAMERAS_H

/*
 * The cameras' jobs (capture-jobs.c): snapshots, periodic and on events,
 * and the live stream, each camera on its own queue.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <hwsight/camera.h>
#include <hwsight/image.h>
#include <hwsight/workqueue.h>

#include "config.h"
#include "live.h"

struct hwsd;
struct hwsd_subscriber;

enum {
	HWSD_SNAP_PERIODIC = 1u << 0,
	HWSD_SNAP_ALARM    = 1u << 1,
	HWSD_SNAP_MOTION   = 1u << 2,
};

/* A camera has its own queue, so that one that stalls stalls nobody else.
 * The device is open only while something wants frames: a snapshot, or a
 * viewer of the live stream (live.h). */
struct hwsd_camera {
	struct delayed_work periodic;
	struct delayed_work capture;       /* one frame a run, re-queued while wanted */
	struct workqueue_struct *wq;
	struct hwsd *d;
	const struct hwsd_camera_conf *conf;
	char *directory;
	struct hwsd_live *live;
	/* C: the camera's queue. One encoder, so that its buffers are kept
	 * once for both: the snapshots and the live stream each set the
	 * chroma subsampling they want before they encode. */
	struct hws_image_encoder *enc;
	struct hws_camera *dev;            /* C: open while streaming */
	struct hws_capture_setup setup;    /* C */
	unsigned skip;                     /* C: frames to let go by before one is used */
	atomic_uint reasons;               /* HWSD_SNAP_* waiting for @capture */
	atomic_bool present;               /* its device node exists */
	int capture_error;                 /* C: logged once */
	int save_error;                    /* C: logged once */
};

/* What a camera of @c needs before any stops (its snapshot directory);
 * @why says what failed. */
int hwsd_cameras_prepare(const struct hwsd_config *c, char *why, size_t size);
int hwsd_cameras_start(struct hwsd *d);
void hwsd_cameras_stop(struct hwsd *d);
/* Snapshots on alarms and motions; userdata: the struct hwsd. */
extern const struct hwsd_subscriber hwsd_cameras_subscriber;
/* A video4linux device came or went (main thread). */
void hwsd_cameras_hotplug(struct hwsd *d);

#endif
