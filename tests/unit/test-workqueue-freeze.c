/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for the freezer: freeze_workqueues() and thaw_workqueues() on
 * freezeable queues, and their absence of effect on the others.
 *
 * "Nothing runs while frozen" is checked by waiting a while and seeing that
 * nothing ran: on a slow machine such a check can only miss a bug, never
 * fail a correct library.
 */

#include <hwsight/workqueue.h>

#include "task.h"
#include "wq-util.h"

#define QUIET_MS 300

TEST(freeze_holds_queued_items)
{
	enum { N = 20 };
	struct workqueue_struct *fq = create_freezeable_workqueue("frz");
	struct probe p[N];

	ASSERT_NOT_NULL(fq);
	ASSERT_EQ(freeze_workqueues(), 0);
	for (int i = 0; i < N; i++) {
		probe_init(&p[i], fq);
		if (i % 2)
			ASSERT_EQ(queue_work(fq, &p[i].work), 1);
		else
			ASSERT_EQ(queue_delayed_work(fq, &p[i].dw, 0), 1);
	}
	sleep_ms(QUIET_MS);
	for (int i = 0; i < N; i++) {
		ASSERT_EQ(probe_runs(&p[i]), 0);
		ASSERT_TRUE(work_pending(i % 2 ? &p[i].work : &p[i].dw.work));
	}
	thaw_workqueues();
	flush_workqueue(fq);
	for (int i = 0; i < N; i++) {
		ASSERT_EQ(probe_runs(&p[i]), 1);
		probe_destroy(&p[i]);
	}
	destroy_workqueue(fq);
}

/* Timers keep expiring while frozen; their items wait for the thaw. */
TEST(freeze_holds_expiring_timers)
{
	struct workqueue_struct *fq = create_freezeable_workqueue("frzt");
	struct probe before, during;

	ASSERT_NOT_NULL(fq);
	probe_init(&before, fq);
	probe_init(&during, fq);
	ASSERT_EQ(queue_delayed_work(fq, &before.dw, HZ / 10), 1);
	ASSERT_EQ(freeze_workqueues(), 0);
	ASSERT_EQ(queue_delayed_work(fq, &during.dw, 1), 1);
	sleep_ms(QUIET_MS + 100);
	ASSERT_EQ(probe_runs(&before), 0);
	ASSERT_EQ(probe_runs(&during), 0);
	/* Due, so no longer a timer to cancel: they wait on the worker. */
	ASSERT_EQ(cancel_delayed_work(&during.dw), 0);
	ASSERT_TRUE(delayed_work_pending(&during.dw));
	thaw_workqueues();
	PROBE_WAIT_RUNS(&before, 1);
	PROBE_WAIT_RUNS(&during, 1);
	destroy_workqueue(fq);
	probe_destroy(&before);
	probe_destroy(&during);
}

TEST(freeze_spares_other_queues)
{
	struct workqueue_struct *wqs[3] = {
		create_workqueue("frzmq"), create_singlethread_workqueue("frzsq"),
		hws__keventd_wq(),
	};
	struct workqueue_struct *fq = create_freezeable_workqueue("frzf");

	ASSERT_NOT_NULL(fq);
	ASSERT_EQ(freeze_workqueues(), 0);
	for (int q = 0; q < 3; q++) {
		struct probe p;

		ASSERT_NOT_NULL(wqs[q]);
		probe_init(&p, wqs[q]);
		ASSERT_EQ(queue_work(wqs[q], &p.work), 1);
		flush_workqueue(wqs[q]);
		ASSERT_EQ(probe_runs(&p), 1);
		ASSERT_EQ(queue_delayed_work(wqs[q], &p.dw, 1), 1);
		PROBE_WAIT_RUNS(&p, 2);
		probe_destroy(&p);
	}
	thaw_workqueues();
	destroy_workqueue(wqs[0]);
	destroy_workqueue(wqs[1]);
	destroy_workqueue(fq);
}

/*
 * With the queues frozen, an item queued on fq waits; it runs once this
 * thaws them.
 */
static void expect_held_until_thaw(struct workqueue_struct *fq)
{
	struct probe p;

	probe_init(&p, fq);
	ASSERT_EQ(queue_work(fq, &p.work), 1);
	sleep_ms(QUIET_MS);
	ASSERT_EQ(probe_runs(&p), 0);
	thaw_workqueues();
	PROBE_WAIT_RUNS(&p, 1);
	flush_workqueue(fq); /* the handler has returned: p can go */
	probe_destroy(&p);
}

static void freeze_call(void *arg)
{
	int *ret = arg;

	*ret = freeze_workqueues();
}

/*
 * A running handler is let finish, and freeze_workqueues() returns only
 * then; the item queued behind it does not start.
 */
WQ_TEST(freeze_waits_for_running_handler, "frzrun", WQF_FREEZEABLE | WQF_GATE)
{
	struct probe *running = &f->p, behind;
	struct bg_call bg;
	int ret = -1;

	probe_init(&behind, f->wq);
	wq_fixture_enter(f);
	ASSERT_EQ(queue_work(f->wq, &behind.work), 1);
	bg_call_start(&bg, freeze_call, &ret);
	sleep_ms(200);
	ASSERT_FALSE(bg_call_returned(&bg));
	tsem_post(&f->gate);
	BG_CALL_JOIN(&bg);
	ASSERT_EQ(ret, 0);
	ASSERT_EQ(probe_runs(running), 1);
	ASSERT_EQ(atomic_load(&running->running), 0);
	sleep_ms(QUIET_MS);
	ASSERT_EQ(probe_runs(&behind), 0);
	thaw_workqueues();
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&behind), 1);
	probe_destroy(&behind);
}

/* Called from a freezeable queue's worker it would wait for itself. */
struct freezer_item {
	struct work_struct work;
	atomic_int ret;
	struct tsem done;
};

static void freezer_item_fn(struct work_struct *work)
{
	struct freezer_item *f = container_of(work, struct freezer_item, work);

	atomic_store(&f->ret, freeze_workqueues());
	tsem_post(&f->done);
}

/* What freeze_workqueues() returns when a worker of @wq calls it. */
static int freeze_from_worker_of(struct workqueue_struct *wq)
{
	struct freezer_item f;
	int ret;

	tsem_init(&f.done);
	atomic_init(&f.ret, 1);
	INIT_WORK(&f.work, freezer_item_fn);
	ASSERT_EQ(queue_work(wq, &f.work), 1);
	TSEM_WAIT(&f.done);
	ret = atomic_load(&f.ret);
	/* The item lives in this frame: its handler must be over. */
	flush_work(&f.work);
	tsem_destroy(&f.done);
	return ret;
}

TEST(freeze_from_freezeable_worker_is_edeadlk)
{
	struct workqueue_struct *fq = create_freezeable_workqueue("frzdl");
	struct probe p;

	ASSERT_NOT_NULL(fq);
	ASSERT_EQ(freeze_from_worker_of(fq), -EDEADLK);
	/* Nothing was left frozen. */
	probe_init(&p, fq);
	ASSERT_EQ(queue_work(fq, &p.work), 1);
	PROBE_WAIT_RUNS(&p, 1);
	destroy_workqueue(fq);
	probe_destroy(&p);
}

/* From a worker of an ordinary queue it is allowed. */
TEST(freeze_from_ordinary_worker)
{
	struct workqueue_struct *wq = create_workqueue("frzord");
	struct workqueue_struct *fq = create_freezeable_workqueue("frzord");

	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(fq);
	ASSERT_EQ(freeze_from_worker_of(wq), 0);
	expect_held_until_thaw(fq);
	destroy_workqueue(wq);
	destroy_workqueue(fq);
}

/* Items accumulated while frozen run in the order they were queued. */
enum { ORDER_N = 200 };
struct order_item {
	struct work_struct work;
	int idx;
};
static int order_log[ORDER_N];
static atomic_int order_len;

static void order_fn(struct work_struct *work)
{
	struct order_item *o = container_of(work, struct order_item, work);
	int slot = atomic_fetch_add(&order_len, 1);

	if (slot < ORDER_N)
		order_log[slot] = o->idx;
}

TEST(thaw_runs_in_order)
{
	struct workqueue_struct *fq = create_freezeable_workqueue("frzord");
	static struct order_item items[ORDER_N];

	ASSERT_NOT_NULL(fq);
	ASSERT_EQ(freeze_workqueues(), 0);
	for (int i = 0; i < ORDER_N; i++) {
		items[i].idx = i;
		INIT_WORK(&items[i].work, order_fn);
		ASSERT_EQ(queue_work(fq, &items[i].work), 1);
	}
	thaw_workqueues();
	flush_workqueue(fq);
	ASSERT_EQ(atomic_load(&order_len), ORDER_N);
	for (int i = 0; i < ORDER_N; i++)
		ASSERT_EQ(order_log[i], i);
	destroy_workqueue(fq);
}

TEST(freeze_thaw_cycles)
{
	struct workqueue_struct *fq[2] = {
		create_freezeable_workqueue("frzc0"), create_freezeable_workqueue("frzc1"),
	};
	struct probe p[2];

	for (int k = 0; k < 2; k++) {
		ASSERT_NOT_NULL(fq[k]);
		probe_init(&p[k], fq[k]);
	}
	for (int round = 0; round < 20; round++) {
		ASSERT_EQ(freeze_workqueues(), 0);
		ASSERT_EQ(freeze_workqueues(), 0); /* does not nest */
		for (int k = 0; k < 2; k++)
			ASSERT_EQ(queue_work(fq[k], &p[k].work), 1);
		sleep_ms(20);
		for (int k = 0; k < 2; k++)
			ASSERT_EQ(probe_runs(&p[k]), round);
		thaw_workqueues();             /* one thaw thaws */
		for (int k = 0; k < 2; k++)
			PROBE_WAIT_RUNS(&p[k], 1);
	}
	thaw_workqueues(); /* thawing what is not frozen does nothing */
	for (int k = 0; k < 2; k++) {
		ASSERT_EQ(queue_work(fq[k], &p[k].work), 1);
		PROBE_WAIT_RUNS(&p[k], 1);
		destroy_workqueue(fq[k]);
		probe_destroy(&p[k]);
	}
}

/* A freezeable queue created while frozen starts frozen. */
TEST(freeze_applies_to_new_queues)
{
	struct workqueue_struct *fq;

	ASSERT_EQ(freeze_workqueues(), 0);
	fq = create_freezeable_workqueue("frznew");
	ASSERT_NOT_NULL(fq);
	expect_held_until_thaw(fq);
	destroy_workqueue(fq);
}

/* The cancel helpers work on a frozen queue: nothing is running there. */
WQ_TEST(cancel_sync_while_frozen, "frzcan", WQF_FREEZEABLE)
{
	ASSERT_EQ(freeze_workqueues(), 0);
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1), 1);
	sleep_ms(100);
	ASSERT_TRUE(cancel_work_sync(&f->p.work));
	ASSERT_TRUE(cancel_delayed_work_sync(&f->p.dw));
	thaw_workqueues();
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 0);
}

/*
 * A handler that outlasts the freezer's 20 s patience: freeze_workqueues()
 * gives up with -EBUSY and leaves the queues thawed.
 */
TEST_TIMEOUT(freeze_gives_up_after_20s, 90)
{
	struct wq_fixture f; /* its probe is the slow handler */
	struct probe behind;
	uint64_t t0;
	int ret;

	wq_fixture_start(&f, "frzbusy", WQF_FREEZEABLE | WQF_GATE);
	probe_init(&behind, f.wq);
	wq_fixture_enter(&f);
	t0 = now_ns();
	ret = freeze_workqueues();
	ASSERT_EQ(ret, -EBUSY);
	ASSERT_GE(now_ns() - t0, 19000000000ull);
	tsem_post(&f.gate);
	/* Thawed again: the next item runs without a thaw_workqueues(). */
	ASSERT_EQ(queue_work(f.wq, &behind.work), 1);
	PROBE_WAIT_RUNS(&behind, 1);
	wq_fixture_stop(&f);
	probe_destroy(&behind);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
