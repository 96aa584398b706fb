/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sd-event: sd_event_add_time() sources (a pair of priority queues per
 * clock, one timerfd), whose accuracy window is its coalescing, and defer
 * sources for immediate work. sd-event has no thread pool: its items run
 * on the loop's own thread.
 */

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <systemd/sd-event.h>

#include "bench.h"

/* Exact one-shot timers; pollers accept a whole period of slack. */
#define EXACT_ACCURACY_USEC 1ULL
#define POLL_ACCURACY_USEC  (BENCH_POLL_PERIOD_MS * 1000ULL)

struct sd_slot {
	struct bench_backend *b;
	sd_event_source *s;
};

struct bench_backend {
	sd_event *e;
	uint64_t wakeups; /* job 4's wake-up id: blocking waits that returned events */

	struct bench_timers *t;
	struct sd_slot *timers;
	size_t n_timers;

	struct bench_items *w;
	struct sd_slot *items;
	size_t n_items;
	size_t pending; /* defer sources not yet dispatched */
};

static int sd_open(struct bench_backend **ret_b)
{
	struct bench_backend *b = calloc(1, sizeof(*b));
	int r;

	if (!b)
		return -ENOMEM;
	r = sd_event_new(&b->e);
	if (r < 0) {
		free(b);
		return r;
	}
	*ret_b = b;
	return 0;
}

static void sd_close(struct bench_backend *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n_timers; i++)
		sd_event_source_disable_unref(b->timers[i].s);
	for (size_t i = 0; i < b->n_items; i++)
		sd_event_source_disable_unref(b->items[i].s);
	sd_event_unref(b->e);
	free(b->timers);
	free(b->items);
	free(b);
}

static int sd_timer_fired(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct sd_slot *s = userdata;
	struct bench_backend *b = s->b;
	int r;

	if (!bench_timer_fired(b->t, (size_t)(s - b->timers), b->wakeups, 0))
		return 0;
	/*
	 * One period after the time it was due, not after now: with an
	 * accuracy of a whole period, "now + 1 s" may be put off to now + 2 s
	 * and the poller would run every other second.
	 */
	r = sd_event_source_set_time(src, usec + BENCH_POLL_PERIOD_MS * 1000ULL);
	if (r >= 0)
		r = sd_event_source_set_time_accuracy(src, POLL_ACCURACY_USEC);
	if (r >= 0)
		r = sd_event_source_set_enabled(src, SD_EVENT_ONESHOT);
	return r;
}

static int sd_timers_new(struct bench_backend *b, struct bench_timers *t, size_t n)
{
	b->timers = calloc(n, sizeof(*b->timers));
	if (!b->timers)
		return -ENOMEM;
	b->t = t;
	b->n_timers = n;
	for (size_t i = 0; i < n; i++)
		b->timers[i].b = b;
	return 0;
}

static int sd_timer_arm(struct bench_backend *b, size_t i, unsigned delay_ms, uint64_t now_ns)
{
	struct sd_slot *s = &b->timers[i];

	return sd_event_add_time(b->e, &s->s, CLOCK_MONOTONIC,
				 now_ns / 1000 + delay_ms * 1000ULL, EXACT_ACCURACY_USEC,
				 sd_timer_fired, s);
}

/* Cancelling frees the source, as g_source_remove() does for GLib. */
static int sd_timer_cancel(struct bench_backend *b, size_t i)
{
	struct sd_slot *s = &b->timers[i];
	int r;

	if (!s->s)
		return 0;
	r = sd_event_source_get_enabled(s->s, NULL);
	s->s = sd_event_source_disable_unref(s->s);
	return r > 0;
}

static int sd_timers_run(struct bench_backend *b, uint64_t deadline_ns)
{
	/*
	 * sd_event_run() dispatches one source per call, so the loop is
	 * stepped by hand to tell a wait that slept and returned timers apart
	 * from the calls that merely dispatch what is already pending.
	 */
	while (bench_timers_active(b->t)) {
		uint64_t now = bench_now_ns();
		int r;

		if (now >= deadline_ns)
			break;
		r = sd_event_prepare(b->e);
		if (r == 0) {
			r = sd_event_wait(b->e, (deadline_ns - now) / 1000 + 1);
			if (r > 0)
				b->wakeups++;
		}
		if (r > 0)
			r = sd_event_dispatch(b->e);
		if (r < 0)
			return r;
	}
	return 0;
}

static int sd_item_run(sd_event_source *src, void *userdata)
{
	struct sd_slot *s = userdata;
	struct bench_backend *b = s->b;

	(void)src;
	bench_item_run(b->w, (size_t)(s - b->items));
	s->s = sd_event_source_disable_unref(s->s);
	b->pending--;
	return 0;
}

static int sd_work_new(struct bench_backend *b, struct bench_items *w, size_t n)
{
	b->items = calloc(n, sizeof(*b->items));
	if (!b->items)
		return -ENOMEM;
	b->w = w;
	b->n_items = n;
	for (size_t i = 0; i < n; i++)
		b->items[i].b = b;
	return 0;
}

static int sd_work_submit(struct bench_backend *b, size_t i)
{
	int r = sd_event_add_defer(b->e, &b->items[i].s, sd_item_run, &b->items[i]);

	if (r >= 0)
		b->pending++;
	return r;
}

static int sd_work_drain(struct bench_backend *b)
{
	while (b->pending) {
		int r = sd_event_run(b->e, UINT64_MAX);

		if (r < 0)
			return r;
	}
	return 0;
}

const struct bench_backend_ops bench_sdevent_ops = {
	.name = "sd-event",
	.timer_api = "sd_event_add_time(accuracy 1 us) / sd_event_source_disable_unref()",
	.work_api = "1 thread, not 2: sd_event_add_defer() run by sd_event_run() on the caller",
	.poll_api = "callback re-arms with sd_event_source_set_time(due + 1 s), accuracy 1 s",
	.wakeup_rule = "sd_event_wait() calls that slept and returned >=1 poller to dispatch",
	.open = sd_open,
	.close = sd_close,
	.timers_new = sd_timers_new,
	.timer_arm = sd_timer_arm,
	.timer_cancel = sd_timer_cancel,
	.timers_run = sd_timers_run,
	.work_new = sd_work_new,
	.work_submit = sd_work_submit,
	.work_drain = sd_work_drain,
};
