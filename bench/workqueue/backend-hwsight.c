/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight's workqueue, used the way kernel-style code uses it: items
 * embedded in their owner, found again with container_of(), timers fired
 * on the queue's own threads.
 */

#include <errno.h>
#include <stdlib.h>

#include <hwsight/workqueue.h>

#include "bench.h"

struct wq_timer {
	struct delayed_work dw;
	struct bench_backend *b;
};

struct wq_item {
	struct work_struct work;
	struct bench_backend *b;
};

struct bench_backend {
	struct workqueue_struct *wq;
	int nr_workers; /* job 2 alternates over at most 2 */

	struct bench_timers *t;
	struct wq_timer *timers;
	size_t n_timers;

	struct bench_items *w;
	struct wq_item *items;
};

static int wq_open(struct bench_backend **ret_b)
{
	struct bench_backend *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	/* One worker per CPU, as the daemon uses it. */
	b->wq = create_workqueue("bench");
	if (!b->wq) {
		free(b);
		return -ENOMEM;
	}
	b->nr_workers = hws_workqueue_nr_workers(b->wq);
	if (b->nr_workers > 2)
		b->nr_workers = 2;
	*ret_b = b;
	return 0;
}

static void wq_close(struct bench_backend *b)
{
	if (!b)
		return;
	/*
	 * The driver has told pollers to stop re-arming, so after the _sync
	 * cancel no handler can still be touching a slot.
	 */
	for (size_t i = 0; i < b->n_timers; i++)
		cancel_delayed_work_sync(&b->timers[i].dw);
	destroy_workqueue(b->wq);
	free(b->timers);
	free(b->items);
	free(b);
}

static void wq_timer_fn(struct work_struct *work)
{
	struct wq_timer *s = container_of(work, struct wq_timer, dw.work);
	struct bench_backend *b = s->b;
	/*
	 * Nothing is added to the API to count wake-ups: handlers that ran in
	 * the same jiffy were started by the same expiry of the timer thread.
	 */
	unsigned long now = jiffies;

	if (!bench_timer_fired(b->t, (size_t)(s - b->timers), now,
			       hws_jiffies_to_monotonic_ns(s->dw.timer.expires)))
		return;
	queue_delayed_work(b->wq, &s->dw, round_jiffies_relative(msecs_to_jiffies(BENCH_POLL_PERIOD_MS)));
}

static int wq_timers_new(struct bench_backend *b, struct bench_timers *t, size_t n)
{
	b->timers = calloc(n, sizeof(*b->timers));
	if (!b->timers)
		return -ENOMEM;
	b->t = t;
	b->n_timers = n;
	for (size_t i = 0; i < n; i++) {
		INIT_DELAYED_WORK(&b->timers[i].dw, wq_timer_fn);
		b->timers[i].b = b;
	}
	return 0;
}

static int wq_timer_arm(struct bench_backend *b, size_t i, unsigned delay_ms, uint64_t now_ns)
{
	(void)now_ns;
	/* Returns 0 if already pending: a slot is never armed twice here. */
	return queue_delayed_work(b->wq, &b->timers[i].dw, msecs_to_jiffies(delay_ms)) ? 0 : -EBUSY;
}

static int wq_timer_cancel(struct bench_backend *b, size_t i)
{
	return cancel_delayed_work(&b->timers[i].dw);
}

static int wq_timers_run(struct bench_backend *b, uint64_t deadline_ns)
{
	bench_timers_wait(b->t, deadline_ns);
	return 0;
}

static void wq_item_fn(struct work_struct *work)
{
	struct wq_item *s = container_of(work, struct wq_item, work);

	bench_item_run(s->b->w, (size_t)(s - s->b->items));
}

static int wq_work_new(struct bench_backend *b, struct bench_items *w, size_t n)
{
	b->items = calloc(n, sizeof(*b->items));
	if (!b->items)
		return -ENOMEM;
	b->w = w;
	for (size_t i = 0; i < n; i++) {
		INIT_WORK(&b->items[i].work, wq_item_fn);
		b->items[i].b = b;
	}
	return 0;
}

static int wq_work_submit(struct bench_backend *b, size_t i)
{
	/* Alternate over two workers, whatever the CPU count. */
	int cpu = (int)(i % (size_t)b->nr_workers);

	return queue_work_on(cpu, b->wq, &b->items[i].work) ? 0 : -EBUSY;
}

static int wq_work_drain(struct bench_backend *b)
{
	flush_workqueue(b->wq);
	return 0;
}

const struct bench_backend_ops bench_hwsight_ops = {
	.name = "hwsight",
	.timer_api = "queue_delayed_work(msecs_to_jiffies()) / cancel_delayed_work(), 300 Hz ticks",
	.work_api = "queue_work_on(i % 2) on create_workqueue(), flush_workqueue() to wait",
	.poll_api = "handler re-arms with queue_delayed_work(round_jiffies_relative(HZ))",
	.wakeup_rule = "distinct jiffies in which poller handlers ran (API unchanged)",
	.open = wq_open,
	.close = wq_close,
	.timers_new = wq_timers_new,
	.timer_arm = wq_timer_arm,
	.timer_cancel = wq_timer_cancel,
	.timers_run = wq_timers_run,
	.work_new = wq_work_new,
	.work_submit = wq_work_submit,
	.work_drain = wq_work_drain,
};
