/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GLib: g_timeout_add() on the default main context (a list of sources
 * scanned on every iteration, no heap), g_timeout_add_seconds() as its
 * coalescing, and a GThreadPool of 2 exclusive threads.
 */

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

#include "bench.h"

struct glib_timer {
	struct bench_backend *b;
	guint id;     /* 0 while not armed */
	bool seconds; /* re-armed with g_timeout_add_seconds() */
};

struct bench_backend {
	uint64_t iteration; /* job 4's wake-up id: one per g_main_context_iteration() */

	struct bench_timers *t;
	struct glib_timer *timers;
	size_t n_timers;

	struct bench_items *w;
	GThreadPool *pool;
	/*
	 * GThreadPool cannot be waited on without freeing it, so items count
	 * themselves done and the last one wakes the drain.
	 */
	atomic_size_t submitted;
	atomic_size_t done;
	GMutex lock;
	GCond all_done;
};

static int gl_open(struct bench_backend **ret_b)
{
	struct bench_backend *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	atomic_init(&b->submitted, 0);
	atomic_init(&b->done, 0);
	g_mutex_init(&b->lock);
	g_cond_init(&b->all_done);
	*ret_b = b;
	return 0;
}

static void gl_close(struct bench_backend *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n_timers; i++)
		if (b->timers[i].id)
			g_source_remove(b->timers[i].id);
	/* Waits for queued items, so none can touch @b after this. */
	if (b->pool)
		g_thread_pool_free(b->pool, FALSE, TRUE);
	g_cond_clear(&b->all_done);
	g_mutex_clear(&b->lock);
	free(b->timers);
	free(b);
}

static gboolean gl_timer_fired(gpointer data)
{
	struct glib_timer *s = data;
	struct bench_backend *b = s->b;

	if (!bench_timer_fired(b->t, (size_t)(s - b->timers), b->iteration, 0)) {
		s->id = 0;
		return G_SOURCE_REMOVE;
	}
	if (s->seconds)
		return G_SOURCE_CONTINUE;
	/* The first firing was the exact phase; from now on, whole seconds. */
	s->seconds = true;
	s->id = g_timeout_add_seconds(BENCH_POLL_PERIOD_MS / 1000, gl_timer_fired, s);
	return G_SOURCE_REMOVE;
}

static int gl_timers_new(struct bench_backend *b, struct bench_timers *t, size_t n)
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

static int gl_timer_arm(struct bench_backend *b, size_t i, unsigned delay_ms, uint64_t now_ns)
{
	struct glib_timer *s = &b->timers[i];

	(void)now_ns;
	s->seconds = false;
	s->id = g_timeout_add(delay_ms, gl_timer_fired, s);
	return 0;
}

static int gl_timer_cancel(struct bench_backend *b, size_t i)
{
	struct glib_timer *s = &b->timers[i];

	if (!s->id)
		return 0;
	g_source_remove(s->id);
	s->id = 0;
	return 1;
}

static gboolean gl_deadline_passed(gpointer data)
{
	guint *id = data;

	/* Waking the loop up was all it had to do. */
	*id = 0;
	return G_SOURCE_REMOVE;
}

static int gl_timers_run(struct bench_backend *b, uint64_t deadline_ns)
{
	uint64_t now = bench_now_ns();
	guint deadline = 0;

	if (now < deadline_ns)
		deadline = g_timeout_add((guint)((deadline_ns - now + 999999) / 1000000),
					 gl_deadline_passed, &deadline);
	while (bench_timers_active(b->t) && bench_now_ns() < deadline_ns) {
		b->iteration++;
		g_main_context_iteration(NULL, TRUE);
	}
	if (deadline)
		g_source_remove(deadline);
	return 0;
}

static void gl_item_run(gpointer data, gpointer user_data)
{
	struct bench_backend *b = user_data;

	/* Pool items must not be NULL, hence the index is stored plus one. */
	bench_item_run(b->w, (size_t)((uintptr_t)data - 1));
	if (atomic_fetch_add(&b->done, 1) + 1 == atomic_load(&b->submitted)) {
		g_mutex_lock(&b->lock);
		g_cond_broadcast(&b->all_done);
		g_mutex_unlock(&b->lock);
	}
}

static int gl_work_new(struct bench_backend *b, struct bench_items *w, size_t n)
{
	(void)n;
	b->w = w;
	b->pool = g_thread_pool_new(gl_item_run, b, 2, TRUE, NULL);
	return b->pool ? 0 : -EAGAIN;
}

static int gl_work_submit(struct bench_backend *b, size_t i)
{
	atomic_fetch_add(&b->submitted, 1);
	if (!g_thread_pool_push(b->pool, (gpointer)(uintptr_t)(i + 1), NULL)) {
		atomic_fetch_sub(&b->submitted, 1);
		return -EAGAIN;
	}
	return 0;
}

static int gl_work_drain(struct bench_backend *b)
{
	g_mutex_lock(&b->lock);
	while (atomic_load(&b->done) < atomic_load(&b->submitted))
		g_cond_wait(&b->all_done, &b->lock);
	g_mutex_unlock(&b->lock);
	return 0;
}

const struct bench_backend_ops bench_glib_ops = {
	.name = "GLib",
	.timer_api = "g_timeout_add(ms) / g_source_remove() on the default main context",
	.work_api = "g_thread_pool_push() on g_thread_pool_new(fn, data, 2, TRUE)",
	.poll_api = "callback re-arms with g_timeout_add_seconds(1) and returns G_SOURCE_CONTINUE",
	.wakeup_rule = "g_main_context_iteration() calls in which >=1 poller ran",
	.open = gl_open,
	.close = gl_close,
	.timers_new = gl_timers_new,
	.timer_arm = gl_timer_arm,
	.timer_cancel = gl_timer_cancel,
	.timers_run = gl_timers_run,
	.work_new = gl_work_new,
	.work_submit = gl_work_submit,
	.work_drain = gl_work_drain,
};
