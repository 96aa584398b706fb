/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of current_work() and hws_workqueue_current(): what a thread
 * learns about where it runs, in a handler of each kind of queue, in a run
 * nested inside a handler's flush, in an item its caller runs, and on a
 * thread that is no worker.
 */

#include <hwsight/workqueue.h>

#include "task.h"
#include "wq-util.h"

/* An item that records, from its handler, where it found itself. */
struct where {
	struct work_struct work;
	struct delayed_work dwork;
	struct work_struct *work_seen;
	struct workqueue_struct *wq_seen;
};

static void where_record(struct where *w)
{
	w->work_seen = current_work();
	w->wq_seen = hws_workqueue_current();
}

static void where_work_fn(struct work_struct *work)
{
	where_record(container_of(work, struct where, work));
}

static void where_dwork_fn(struct work_struct *work)
{
	where_record(container_of(work, struct where, dwork.work));
}

static void where_init(struct where *w)
{
	INIT_WORK(&w->work, where_work_fn);
	INIT_DELAYED_WORK(&w->dwork, where_dwork_fn);
	w->work_seen = NULL;
	w->wq_seen = NULL;
}

TEST(outside_any_worker)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("curout");
	struct where w;

	ASSERT_NOT_NULL(wq);
	where_init(&w);
	ASSERT_EQ(queue_work(wq, &w.work), 1);
	flush_workqueue(wq);
	/* A queue that exists and has run something changes nothing here. */
	ASSERT_NULL(current_work());
	ASSERT_NULL(hws_workqueue_current());
	destroy_workqueue(wq);
}

/* Every worker of each kind of queue, for plain and delayed items. */
TEST(handler_sees_its_item_and_queue)
{
	/* The default queue comes last: it is the one not destroyed. */
	struct workqueue_struct *wqs[] = {
		create_singlethread_workqueue("cursq"), create_workqueue("curmq"),
		create_freezeable_workqueue("curfq"), hws__keventd_wq(),
	};
	const size_t n_wqs = sizeof(wqs) / sizeof(wqs[0]);

	for (size_t q = 0; q < n_wqs; q++) {
		struct workqueue_struct *wq = wqs[q];
		int n;
		struct where *w;

		ASSERT_NOT_NULL(wq);
		n = hws_workqueue_nr_workers(wq);
		ASSERT_GT(n, 0);
		w = calloc((size_t)n, sizeof(*w));
		ASSERT_NOT_NULL(w);
		for (int cpu = 0; cpu < n; cpu++) {
			where_init(&w[cpu]);
			ASSERT_EQ(queue_work_on(cpu, wq, &w[cpu].work), 1);
		}
		flush_workqueue(wq);
		for (int cpu = 0; cpu < n; cpu++) {
			ASSERT_PTR_EQ(w[cpu].work_seen, &w[cpu].work);
			ASSERT_PTR_EQ(w[cpu].wq_seen, wq);
			where_init(&w[cpu]);
			ASSERT_EQ(queue_delayed_work_on(cpu, wq, &w[cpu].dwork, 1), 1);
		}
		/* Whether its timer fired or the flush ran it, a worker did. */
		for (int cpu = 0; cpu < n; cpu++) {
			flush_delayed_work(&w[cpu].dwork);
			ASSERT_PTR_EQ(w[cpu].work_seen, &w[cpu].dwork.work);
			ASSERT_PTR_EQ(w[cpu].wq_seen, wq);
		}
		free(w);
	}
	for (size_t q = 0; q + 1 < n_wqs; q++)
		destroy_workqueue(wqs[q]);
}

/* A handler that flushes its own queue runs the items behind it inside
 * the call: each sees itself, and the outer one is current again after. */
struct nest {
	struct workqueue_struct *wq;
	struct work_struct outer;
	struct work_struct *outer_before, *outer_after;
	struct where inner;
	struct tsem done;
};

static void nest_outer_fn(struct work_struct *work)
{
	struct nest *n = container_of(work, struct nest, outer);

	n->outer_before = current_work();
	queue_work(n->wq, &n->inner.work);
	flush_workqueue(n->wq);
	n->outer_after = current_work();
	tsem_post(&n->done);
}

TEST(nested_run_in_own_flush)
{
	struct nest n = { .wq = create_singlethread_workqueue("curnest") };

	ASSERT_NOT_NULL(n.wq);
	INIT_WORK(&n.outer, nest_outer_fn);
	where_init(&n.inner);
	tsem_init(&n.done);
	ASSERT_EQ(queue_work(n.wq, &n.outer), 1);
	/* Not flush_workqueue(): a flush that comes while the outer one
	 * runs waits only for what was queued before it, not for inner. */
	TSEM_WAIT(&n.done);
	ASSERT_PTR_EQ(n.outer_before, &n.outer);
	ASSERT_PTR_EQ(n.inner.work_seen, &n.inner.work);
	ASSERT_PTR_EQ(n.inner.wq_seen, n.wq);
	ASSERT_PTR_EQ(n.outer_after, &n.outer);
	destroy_workqueue(n.wq);
	tsem_destroy(&n.done);
}

/* run_scheduled_work() runs the handler in its caller: here no worker ... */
TEST(caller_run_item_runs_on_no_worker)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("cursync");
	struct blocker b;
	struct where w;

	ASSERT_NOT_NULL(wq);
	where_init(&w);
	blocker_start(&b, wq, -1);
	ASSERT_EQ(queue_work(wq, &w.work), 1);
	ASSERT_EQ(run_scheduled_work(&w.work), 1);
	ASSERT_NULL(w.work_seen);
	ASSERT_NULL(w.wq_seen);
	blocker_stop(&b);
	flush_workqueue(wq);
	blocker_destroy(&b);
	destroy_workqueue(wq);
}

/* ... and in a handler that does so, the handler's item and queue. */
struct sync_in_handler {
	struct work_struct outer;
	struct where inner;
	int ran;
};

static void sync_outer_fn(struct work_struct *work)
{
	struct sync_in_handler *s = container_of(work, struct sync_in_handler, outer);

	s->ran = run_scheduled_work(&s->inner.work);
}

TEST(caller_run_item_in_a_handler_sees_the_handler)
{
	struct workqueue_struct *runner = create_singlethread_workqueue("currun");
	struct workqueue_struct *target = create_singlethread_workqueue("curtgt");
	struct sync_in_handler s = { .ran = -1 };
	struct blocker b;

	ASSERT_NOT_NULL(runner);
	ASSERT_NOT_NULL(target);
	where_init(&s.inner);
	INIT_WORK(&s.outer, sync_outer_fn);
	blocker_start(&b, target, -1);
	ASSERT_EQ(queue_work(target, &s.inner.work), 1);
	ASSERT_EQ(queue_work(runner, &s.outer), 1);
	flush_workqueue(runner);
	ASSERT_EQ(s.ran, 1);
	ASSERT_PTR_EQ(s.inner.work_seen, &s.outer);
	ASSERT_PTR_EQ(s.inner.wq_seen, runner);
	blocker_stop(&b);
	flush_workqueue(target);
	blocker_destroy(&b);
	destroy_workqueue(runner);
	destroy_workqueue(target);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
