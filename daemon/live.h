/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_LIVE_H
#define HWSD_LIVE_H

/*
 * A camera's live frames, between its capture queue (the producer, which
 * alone touches the device) and the HTTP threads (the viewers). Each
 * frame is encoded to JPEG once and published as a reference-counted
 * buffer that any number of viewers send at their own pace; a slow
 * viewer holds a frame, never the camera.
 *
 * A struct hwsd_live outlives its camera: a reload stops the cameras and
 * starts new ones while viewers may still hold the old object, which is
 * then closed (their streams end) and freed by the last reference.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsight/camera.h>

struct hwsd_jpeg {
	atomic_uint ref;
	uint64_t seq;              /* 1, 2, ... per camera */
	int64_t time_ms;           /* CLOCK_REALTIME of the capture, for users */
	int64_t mono_ms;           /* CLOCK_MONOTONIC of it, for its age */
	uint64_t capture_ns;       /* the driver's buffer timestamp (CLOCK_MONOTONIC), 0: none */
	size_t size;
	unsigned char data[];
};

struct hwsd_jpeg *hwsd_jpeg_unref(struct hwsd_jpeg *j);

/*
 * A viewer waiting for a camera's next frame without a thread of its own
 * (a stream's connection suspended in libmicrohttpd): hwsd_live_poll()
 * puts it on the camera's list, and the next frame or the camera's close
 * takes it off and calls @wake, once, under the camera's lock.
 */
struct hwsd_live_waiter {
	struct hwsd_live_waiter *next;     /* L: the camera's lock */
	bool waiting;                      /* L */
	void (*wake)(struct hwsd_live_waiter *w);
};

/* What /metrics and /api/v1/cameras show of a camera. */
struct hwsd_camera_status {
	bool present;              /* its device node exists */
	bool streaming;            /* the device is open and capturing */
	unsigned viewers;          /* /stream.mjpg clients */
	uint32_t width, height;    /* of the last stream */
	struct hws_fract target_interval;
	uint64_t delivered;        /* every counter: since the daemon started */
	uint64_t dropped;
	uint64_t decimated;
	uint64_t kept;
	double mean_interval_ms;   /* of the last stream; NaN before one */
	double jitter_ms;
	uint64_t snapshots;
	int last_error;            /* negative errno, 0: none */
	int64_t last_snapshot_ms;  /* CLOCK_REALTIME; 0: none yet */
	char last_snapshot[256];   /* its file name */
};

struct hwsd_live {
	atomic_uint ref;
	pthread_mutex_t lock;
	pthread_cond_t cond;       /* a new frame, or closed */
	struct hwsd_jpeg *latest;  /* L: lock */
	int64_t wanted_until;      /* L: CLOCK_MONOTONIC ms a snapshot request keeps it going */
	bool closed;               /* L */
	struct hwsd_camera_status status;  /* L */
	struct hws_capture_stats base;     /* L: the streams before this one */
	void (*wake)(void *userdata);      /* L: start capturing; NULL once closed */
	void *userdata;
	struct hwsd_live_waiter *waiters;  /* L: woken by the next frame or the close */
	char name[];                       /* in the same allocation */
};

int hwsd_live_new(const char *name, void (*wake)(void *), void *userdata, struct hwsd_live **ret);
struct hwsd_live *hwsd_live_ref(struct hwsd_live *l);
struct hwsd_live *hwsd_live_unref(struct hwsd_live *l);
/* The camera stops: waiting viewers are told, and no frame will come. */
void hwsd_live_close(struct hwsd_live *l);

/* ---- the producer (the camera's capture queue) ---- */
/* Does a viewer or a recent snapshot request want frames? */
bool hwsd_live_wanted(struct hwsd_live *l);
/* A new frame, copied, captured by the driver at @capture_ns
 * (CLOCK_MONOTONIC); viewers waiting are woken. Return: 0 or -ENOMEM. */
int hwsd_live_publish(struct hwsd_live *l, const void *jpeg, size_t size, uint64_t capture_ns);
/* The stream's statistics now; @ended folds them into the totals. */
void hwsd_live_stream_stats(struct hwsd_live *l, const struct hws_capture_stats *st,
			    uint32_t width, uint32_t height, bool ended);
void hwsd_live_snapshot_taken(struct hwsd_live *l, const char *path);
void hwsd_live_set_error(struct hwsd_live *l, int error);
void hwsd_live_set_present(struct hwsd_live *l, bool present);

/* ---- the viewers (HTTP threads) ---- */
/*
 * hwsd_live_next - a frame newer than @after_seq
 * Waits up to @timeout_ms, starting the capture if it is idle; when
 * @after_seq is 0, the latest frame counts as new if it was captured less
 * than a second ago, and an older one is waited past. @linger keeps the
 * camera streaming for a while after (a snapshot, which a page may ask
 * for again soon); a viewer of the stream keeps it going by being
 * counted (hwsd_live_viewers()), and the camera stops when the last one
 * leaves, so that nothing is captured or encoded that nobody takes.
 * Return: 0 with a reference in @ret, -ETIMEDOUT, or -ESHUTDOWN (closed).
 */
int hwsd_live_next(struct hwsd_live *l, uint64_t after_seq, int timeout_ms, bool linger,
		   struct hwsd_jpeg **ret);
/*
 * hwsd_live_poll - hwsd_live_next() that does not wait
 * A frame newer than @after_seq now (counted as hwsd_live_next() counts
 * it, the capture woken if idle), or @w put on the camera's list to be
 * woken by the next frame or the close; a viewer counted by
 * hwsd_live_viewers() keeps the camera going meanwhile.
 * Return: 0 with a reference in @ret, -EAGAIN (@w waits), or -ESHUTDOWN.
 */
int hwsd_live_poll(struct hwsd_live *l, uint64_t after_seq, struct hwsd_live_waiter *w,
		   struct hwsd_jpeg **ret);
/* Take @w off @l's list if it is on it. Return: whether it was. */
bool hwsd_live_unwait(struct hwsd_live *l, struct hwsd_live_waiter *w);
void hwsd_live_viewers(struct hwsd_live *l, int delta);
void hwsd_live_status(struct hwsd_live *l, struct hwsd_camera_status *ret);

/* ---- the set of cameras the HTTP side may name ---- */
struct hwsd_live_set {
	pthread_mutex_t lock;
	pthread_cond_t resumed;
	struct hwsd_live **lives;  /* L: lock, each a reference */
	size_t n;                  /* L */
	bool paused;               /* L: a reload is replacing the cameras */
};

void hwsd_live_set_init(struct hwsd_live_set *s);
void hwsd_live_set_done(struct hwsd_live_set *s);
/* Publish the current cameras (replacing and releasing the old ones). */
int hwsd_live_set_replace(struct hwsd_live_set *s, struct hwsd_live *const *lives, size_t n);
/*
 * While a reload replaces the cameras, lookups wait for the new ones
 * rather than finding none: a viewer sees a reload as a late frame.
 */
void hwsd_live_set_pause(struct hwsd_live_set *s, bool paused);
/* A reference to the camera called @name, or NULL; while paused, waits
 * up to @timeout_ms for the new set. */
struct hwsd_live *hwsd_live_set_find(struct hwsd_live_set *s, const char *name, int timeout_ms);
/* Wake every waiter of every camera in @s (the HTTP side stopping). */
void hwsd_live_set_wake(struct hwsd_live_set *s);
/* References to every camera (free with hwsd_live_set_release), NULL for
 * none. Return: n or -ENOMEM. */
int hwsd_live_set_list(struct hwsd_live_set *s, struct hwsd_live ***ret);
void hwsd_live_set_release(struct hwsd_live **lives, size_t n);

#endif
