/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuv: uv_timer_* on a loop of our own (a binary min-heap of timers,
 * millisecond granularity, no coalescing), and uv_queue_work() on its
 * process-wide thread pool, completed through the loop.
 */

#include <errno.h>
#include <stdlib.h>

#include <uv.h>

#include "bench.h"

struct bench_backend {
	uv_loop_t loop;
	uv_prepare_t prepare;  /* runs just before each blocking poll */
	uv_timer_t deadline;   /* bounds a timers_run() that has a deadline */
	uint64_t iteration;    /* job 4's wake-up id */

	struct bench_timers *t;
	uv_timer_t *timers;
	size_t n_timers;

	struct bench_items *w;
	uv_work_t *works;
	size_t outstanding;    /* submitted, after_work_cb not yet run */
};

static void count_iteration(uv_prepare_t *p)
{
	struct bench_backend *b = p->data;

	b->iteration++;
}

static int lv_open(struct bench_backend **ret_b)
{
	struct bench_backend *b = calloc(1, sizeof(*b));
	int r;

	if (!b)
		return -ENOMEM;
	/*
	 * The pool is created on the first uv_queue_work() in the process and
	 * sized from this variable then; "2 workers" is the job's contract.
	 */
	if (setenv("UV_THREADPOOL_SIZE", "2", 1) < 0) {
		free(b);
		return -errno;
	}
	r = uv_loop_init(&b->loop);
	if (r < 0) {
		free(b);
		return r;
	}
	uv_prepare_init(&b->loop, &b->prepare);
	b->prepare.data = b;
	uv_prepare_start(&b->prepare, count_iteration);
	/* Counting iterations must not keep the loop alive. */
	uv_unref((uv_handle_t *)&b->prepare);
	uv_timer_init(&b->loop, &b->deadline);
	*ret_b = b;
	return 0;
}

static void lv_close(struct bench_backend *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n_timers; i++)
		uv_close((uv_handle_t *)&b->timers[i], NULL);
	uv_close((uv_handle_t *)&b->prepare, NULL);
	uv_close((uv_handle_t *)&b->deadline, NULL);
	/* Runs the close callbacks and any work still in the pool. */
	uv_run(&b->loop, UV_RUN_DEFAULT);
	uv_loop_close(&b->loop);
	free(b->timers);
	free(b->works);
	free(b);
}

static void lv_timer_fired(uv_timer_t *h)
{
	struct bench_backend *b = h->data;

	if (bench_timer_fired(b->t, (size_t)(h - b->timers), b->iteration, 0))
		uv_timer_start(h, lv_timer_fired, BENCH_POLL_PERIOD_MS, 0);
}

static int lv_timers_new(struct bench_backend *b, struct bench_timers *t, size_t n)
{
	b->timers = calloc(n, sizeof(*b->timers));
	if (!b->timers)
		return -ENOMEM;
	b->t = t;
	for (size_t i = 0; i < n; i++) {
		uv_timer_init(&b->loop, &b->timers[i]);
		b->timers[i].data = b;
		b->n_timers++;
	}
	return 0;
}

/* Timeouts count from the loop's cached time, which only the loop updates. */
static void lv_clock_sync(struct bench_backend *b)
{
	uv_update_time(&b->loop);
}

static int lv_timer_arm(struct bench_backend *b, size_t i, unsigned delay_ms, uint64_t now_ns)
{
	(void)now_ns;
	return uv_timer_start(&b->timers[i], lv_timer_fired, delay_ms, 0);
}

static int lv_timer_cancel(struct bench_backend *b, size_t i)
{
	uv_timer_t *h = &b->timers[i];

	if (!uv_is_active((uv_handle_t *)h))
		return 0;
	return uv_timer_stop(h) < 0 ? -EINVAL : 1;
}

static void lv_deadline_passed(uv_timer_t *h)
{
	(void)h; /* Waking the loop up was all it had to do. */
}

static int lv_timers_run(struct bench_backend *b, uint64_t deadline_ns)
{
	uint64_t now = bench_now_ns();

	if (now < deadline_ns) {
		uv_update_time(&b->loop);
		uv_timer_start(&b->deadline, lv_deadline_passed, (deadline_ns - now + 999999) / 1000000, 0);
	}
	while (bench_timers_active(b->t) && bench_now_ns() < deadline_ns)
		if (!uv_run(&b->loop, UV_RUN_ONCE))
			break;
	uv_timer_stop(&b->deadline);
	return 0;
}

static void lv_work_run(uv_work_t *req)
{
	struct bench_backend *b = req->data;

	bench_item_run(b->w, (size_t)(req - b->works));
}

static void lv_work_done(uv_work_t *req, int status)
{
	struct bench_backend *b = req->data;

	(void)status;
	b->outstanding--;
}

static int lv_work_new(struct bench_backend *b, struct bench_items *w, size_t n)
{
	b->works = calloc(n, sizeof(*b->works));
	if (!b->works)
		return -ENOMEM;
	b->w = w;
	for (size_t i = 0; i < n; i++)
		b->works[i].data = b;
	return 0;
}

static int lv_work_submit(struct bench_backend *b, size_t i)
{
	int r = uv_queue_work(&b->loop, &b->works[i], lv_work_run, lv_work_done);

	if (r >= 0)
		b->outstanding++;
	return r;
}

static int lv_work_drain(struct bench_backend *b)
{
	/* Returns once no request is left, i.e. every after_work_cb has run. */
	uv_run(&b->loop, UV_RUN_DEFAULT);
	return b->outstanding ? -EIO : 0;
}

const struct bench_backend_ops bench_libuv_ops = {
	.name = "libuv",
	.timer_api = "uv_timer_start(ms) / uv_timer_stop() on one loop (min-heap)",
	.work_api = "uv_queue_work() with UV_THREADPOOL_SIZE=2, completion via uv_run()",
	.poll_api = "callback re-arms with uv_timer_start(1000 ms); libuv has no coalescing",
	.wakeup_rule = "loop iterations (uv_prepare before each poll) in which >=1 poller ran",
	.open = lv_open,
	.close = lv_close,
	.timers_new = lv_timers_new,
	.clock_sync = lv_clock_sync,
	.timer_arm = lv_timer_arm,
	.timer_cancel = lv_timer_cancel,
	.timers_run = lv_timers_run,
	.work_new = lv_work_new,
	.work_submit = lv_work_submit,
	.work_drain = lv_work_drain,
};
