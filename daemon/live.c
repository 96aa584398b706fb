/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Live frames: the hand-over between a camera's capture queue and the
 * HTTP threads (see live.h), and the set of cameras the HTTP side knows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cond-util.h"
#include "time-util.h"

#include "live.h"

/* A snapshot request keeps the camera streaming this long, so that a page
 * refreshing every few seconds does not reopen the device each time. */
#define LINGER_MS 10000
/* With no frame seen yet, one captured this recently is "the latest". */
#define FRESH_MS 1000

/* CLOCK_MONOTONIC in ms, signed for the differences taken below. */
static int64_t mono_ms(void)
{
	return (int64_t)hws__now_ms();
}

/* For pthread_cond_timedwait() on our monotonic condvars; a timeout below
 * zero is one that has run out. */
static struct timespec deadline_in(int ms)
{
	return hws__cond_deadline_ms(ms > 0 ? (unsigned)ms : 0);
}

struct hwsd_jpeg *hwsd_jpeg_unref(struct hwsd_jpeg *j)
{
	if (j && atomic_fetch_sub(&j->ref, 1) == 1)
		free(j);
	return NULL;
}

int hwsd_live_new(const char *name, void (*wake)(void *), void *userdata, struct hwsd_live **ret)
{
	size_t len = strlen(name);
	struct hwsd_live *l = calloc(1, sizeof(*l) + len + 1);

	if (!l)
		return -ENOMEM;
	memcpy(l->name, name, len + 1);
	atomic_init(&l->ref, 1);
	pthread_mutex_init(&l->lock, NULL);
	hws__cond_init_monotonic(&l->cond);
	l->wake = wake;
	l->userdata = userdata;
	l->status.mean_interval_ms = NAN;
	l->status.jitter_ms = NAN;
	*ret = l;
	return 0;
}

struct hwsd_live *hwsd_live_ref(struct hwsd_live *l)
{
	atomic_fetch_add(&l->ref, 1);
	return l;
}

struct hwsd_live *hwsd_live_unref(struct hwsd_live *l)
{
	if (!l || atomic_fetch_sub(&l->ref, 1) != 1)
		return NULL;
	hwsd_jpeg_unref(l->latest);
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
	free(l);
	return NULL;
}

/* Called with l->lock held: the waiters leave the list, each woken once. */
static void wake_waiters(struct hwsd_live *l)
{
	struct hwsd_live_waiter *w;

	while ((w = l->waiters)) {
		l->waiters = w->next;
		w->next = NULL;
		w->waiting = false;
		/* Last touch: the woken viewer may be freed at once. */
		w->wake(w);
	}
}

void hwsd_live_close(struct hwsd_live *l)
{
	pthread_mutex_lock(&l->lock);
	l->closed = true;
	l->wake = NULL;
	l->status.streaming = false;
	pthread_cond_broadcast(&l->cond);
	wake_waiters(l);
	pthread_mutex_unlock(&l->lock);
}

bool hwsd_live_wanted(struct hwsd_live *l)
{
	bool wanted;

	pthread_mutex_lock(&l->lock);
	wanted = !l->closed && (l->status.viewers || mono_ms() < l->wanted_until);
	pthread_mutex_unlock(&l->lock);
	return wanted;
}

int hwsd_live_publish(struct hwsd_live *l, const void *jpeg, size_t size, uint64_t capture_ns)
{
	struct hwsd_jpeg *j = malloc(sizeof(*j) + size), *old;

	if (!j)
		return -ENOMEM;
	atomic_init(&j->ref, 1);
	j->time_ms = hws__realtime_ms();
	j->mono_ms = mono_ms();
	j->capture_ns = capture_ns;
	j->size = size;
	memcpy(j->data, jpeg, size);
	pthread_mutex_lock(&l->lock);
	old = l->latest;
	j->seq = old ? old->seq + 1 : 1;
	l->latest = j;
	pthread_cond_broadcast(&l->cond);
	wake_waiters(l);
	pthread_mutex_unlock(&l->lock);
	hwsd_jpeg_unref(old);
	return 0;
}

void hwsd_live_stream_stats(struct hwsd_live *l, const struct hws_capture_stats *st,
			    uint32_t width, uint32_t height, bool ended)
{
	struct hwsd_camera_status *s = &l->status;

	pthread_mutex_lock(&l->lock);
	s->streaming = !ended;
	s->width = width;
	s->height = height;
	s->target_interval = st->target_interval;
	s->delivered = l->base.delivered + st->delivered;
	s->dropped = l->base.dropped + st->dropped;
	s->decimated = l->base.decimated + st->decimated;
	s->kept = l->base.kept + st->kept;
	if (st->kept > 1) {
		s->mean_interval_ms = st->mean_interval_ms;
		s->jitter_ms = st->jitter_ms;
	}
	if (ended) {
		l->base.delivered = s->delivered;
		l->base.dropped = s->dropped;
		l->base.decimated = s->decimated;
		l->base.kept = s->kept;
	}
	pthread_mutex_unlock(&l->lock);
}

void hwsd_live_snapshot_taken(struct hwsd_live *l, const char *path)
{
	const char *base = strrchr(path, '/');

	pthread_mutex_lock(&l->lock);
	l->status.snapshots++;
	l->status.last_snapshot_ms = hws__realtime_ms();
	snprintf(l->status.last_snapshot, sizeof(l->status.last_snapshot), "%s", base ? base + 1 : path);
	pthread_mutex_unlock(&l->lock);
}

void hwsd_live_set_error(struct hwsd_live *l, int error)
{
	pthread_mutex_lock(&l->lock);
	l->status.last_error = error;
	pthread_mutex_unlock(&l->lock);
}

void hwsd_live_set_present(struct hwsd_live *l, bool present)
{
	pthread_mutex_lock(&l->lock);
	l->status.present = present;
	pthread_mutex_unlock(&l->lock);
}

/*
 * Called with l->lock held by a viewer about to take a frame: what is new
 * to one that has seen @after_seq, the camera kept going for a snapshot
 * (@linger) and woken if idle.
 */
static uint64_t want_frame(struct hwsd_live *l, uint64_t after_seq, bool linger)
{
	int64_t now = mono_ms();

	/* How old a frame is, on the clock that steps never move: after
	 * `date -s` or an NTP step the wall clock would make an hour-old
	 * frame look new, or a new one look an hour old. An older frame
	 * is not served: the capture woken below brings a new one. */
	if (!after_seq && l->latest)
		after_seq = now - l->latest->mono_ms < FRESH_MS ? l->latest->seq - 1 : l->latest->seq;
	if (linger && l->wanted_until < now + LINGER_MS)
		l->wanted_until = now + LINGER_MS;
	/* The capture queue may have gone idle; a no-op when it runs. */
	if (l->wake)
		l->wake(l->userdata);
	return after_seq;
}

/* Called with l->lock held. Return: 0 with a reference to a frame newer
 * than @after_seq in @ret, -ESHUTDOWN, or -EAGAIN (none yet). */
static int take_frame(struct hwsd_live *l, uint64_t after_seq, struct hwsd_jpeg **ret)
{
	if (l->closed)
		return -ESHUTDOWN;
	if (!l->latest || l->latest->seq <= after_seq)
		return -EAGAIN;
	atomic_fetch_add(&l->latest->ref, 1);
	*ret = l->latest;
	return 0;
}

int hwsd_live_next(struct hwsd_live *l, uint64_t after_seq, int timeout_ms, bool linger,
		   struct hwsd_jpeg **ret)
{
	struct timespec until = deadline_in(timeout_ms);
	int r, timedout = 0;

	pthread_mutex_lock(&l->lock);
	after_seq = want_frame(l, after_seq, linger);
	while ((r = take_frame(l, after_seq, ret)) == -EAGAIN && !timedout)
		timedout = pthread_cond_timedwait(&l->cond, &l->lock, &until);
	pthread_mutex_unlock(&l->lock);
	return r == -EAGAIN ? -ETIMEDOUT : r;
}

int hwsd_live_poll(struct hwsd_live *l, uint64_t after_seq, struct hwsd_live_waiter *w,
		   struct hwsd_jpeg **ret)
{
	int r;

	pthread_mutex_lock(&l->lock);
	r = take_frame(l, want_frame(l, after_seq, false), ret);
	if (r == -EAGAIN && !w->waiting) {
		w->next = l->waiters;
		l->waiters = w;
		w->waiting = true;
	}
	pthread_mutex_unlock(&l->lock);
	return r;
}

bool hwsd_live_unwait(struct hwsd_live *l, struct hwsd_live_waiter *w)
{
	bool was;

	pthread_mutex_lock(&l->lock);
	was = w->waiting;
	for (struct hwsd_live_waiter **p = &l->waiters; was && *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	w->next = NULL;
	w->waiting = false;
	pthread_mutex_unlock(&l->lock);
	return was;
}

void hwsd_live_viewers(struct hwsd_live *l, int delta)
{
	pthread_mutex_lock(&l->lock);
	l->status.viewers += (unsigned)delta;
	pthread_mutex_unlock(&l->lock);
}

void hwsd_live_status(struct hwsd_live *l, struct hwsd_camera_status *ret)
{
	pthread_mutex_lock(&l->lock);
	*ret = l->status;
	pthread_mutex_unlock(&l->lock);
}

void hwsd_live_set_init(struct hwsd_live_set *s)
{
	pthread_mutex_init(&s->lock, NULL);
	hws__cond_init_monotonic(&s->resumed);
	s->lives = NULL;
	s->n = 0;
	s->paused = false;
}

void hwsd_live_set_release(struct hwsd_live **lives, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hwsd_live_unref(lives[i]);
	free(lives);
}

void hwsd_live_set_done(struct hwsd_live_set *s)
{
	hwsd_live_set_release(s->lives, s->n);
	pthread_cond_destroy(&s->resumed);
	pthread_mutex_destroy(&s->lock);
}

void hwsd_live_set_pause(struct hwsd_live_set *s, bool paused)
{
	pthread_mutex_lock(&s->lock);
	s->paused = paused;
	if (!paused)
		pthread_cond_broadcast(&s->resumed);
	pthread_mutex_unlock(&s->lock);
}

int hwsd_live_set_replace(struct hwsd_live_set *s, struct hwsd_live *const *lives, size_t n)
{
	struct hwsd_live **copy = NULL, **old;
	size_t n_old;

	if (n) {
		copy = calloc(n, sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			copy[i] = hwsd_live_ref(lives[i]);
	}
	pthread_mutex_lock(&s->lock);
	old = s->lives;
	n_old = s->n;
	s->lives = copy;
	s->n = n;
	pthread_mutex_unlock(&s->lock);
	hwsd_live_set_release(old, n_old);
	return 0;
}

struct hwsd_live *hwsd_live_set_find(struct hwsd_live_set *s, const char *name, int timeout_ms)
{
	struct timespec until = deadline_in(timeout_ms);
	struct hwsd_live *found = NULL;

	pthread_mutex_lock(&s->lock);
	while (s->paused && pthread_cond_timedwait(&s->resumed, &s->lock, &until) == 0)
		;
	for (size_t i = 0; i < s->n && !found; i++)
		if (!strcmp(s->lives[i]->name, name))
			found = hwsd_live_ref(s->lives[i]);
	pthread_mutex_unlock(&s->lock);
	return found;
}

void hwsd_live_set_wake(struct hwsd_live_set *s)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++) {
		pthread_mutex_lock(&s->lives[i]->lock);
		wake_waiters(s->lives[i]);
		pthread_mutex_unlock(&s->lives[i]->lock);
	}
	pthread_mutex_unlock(&s->lock);
}

int hwsd_live_set_list(struct hwsd_live_set *s, struct hwsd_live ***ret)
{
	struct hwsd_live **list;
	size_t n;

	pthread_mutex_lock(&s->lock);
	n = s->n;
	list = n ? calloc(n, sizeof(*list)) : NULL;
	for (size_t i = 0; list && i < n; i++)
		list[i] = hwsd_live_ref(s->lives[i]);
	pthread_mutex_unlock(&s->lock);
	if (n && !list)
		return -ENOMEM;
	*ret = list;
	return (int)n;
}
