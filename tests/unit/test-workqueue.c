/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for the core of <hwsight/workqueue.h>: the initialisers, the
 * pending bit and _NAR items, queueing and delayed queueing,
 * run_scheduled_work() and flush_workqueue(). The workers themselves (order,
 * placement, names, signals, the default queue) are tested in
 * test-workqueue-workers.c, cancellation in test-workqueue-cancel.c, the
 * freezer in test-workqueue-freeze.c.
 */

#include <malloc.h>

#include <hwsight/workqueue.h>

#include "task.h"
#include "wq-util.h"

/* ---- initialisers ----------------------------------------------------- */

static struct tsem init_ran;
static struct work_struct *_Atomic init_last;

static void init_fn(struct work_struct *work)
{
	atomic_store(&init_last, work);
	tsem_post(&init_ran);
}

static DECLARE_WORK(file_work, init_fn);
static DECLARE_WORK_NAR(file_work_nar, init_fn);
static DECLARE_DELAYED_WORK(file_dwork, init_fn);
static DECLARE_DELAYED_WORK_NAR(file_dwork_nar, init_fn);

/* Items inside file-scope structures, as the initialisers are meant for. */
static struct {
	int x;
	struct work_struct w;
	struct work_struct w_nar;
	struct delayed_work dw;
	struct delayed_work dw_nar;
} file_obj = {
	.x = 1,
	.w = __WORK_INITIALIZER(file_obj.w, init_fn),
	.w_nar = __WORK_INITIALIZER_NAR(file_obj.w_nar, init_fn),
	.dw = __DELAYED_WORK_INITIALIZER(file_obj.dw, init_fn),
	.dw_nar = __DELAYED_WORK_INITIALIZER_NAR(file_obj.dw_nar, init_fn),
};

/* Queues w twice; a _NAR item needs its work_release() in between. */
static void check_work_item(struct workqueue_struct *wq, struct work_struct *w, bool nar)
{
	ASSERT_FALSE(work_pending(w));
	ASSERT_TRUE(w->func == init_fn);
	for (int round = 0; round < 2; round++) {
		ASSERT_EQ(queue_work(wq, w), 1);
		TSEM_WAIT(&init_ran);
		ASSERT_PTR_EQ(atomic_load(&init_last), w);
		flush_workqueue(wq);
		if (nar) {
			ASSERT_TRUE(work_pending(w));
			ASSERT_EQ(queue_work(wq, w), 0);
			work_release(w);
		}
		ASSERT_FALSE(work_pending(w));
	}
	ASSERT_EQ(tsem_value(&init_ran), 0);
}

static void check_dwork_item(struct workqueue_struct *wq, struct delayed_work *dw, bool nar)
{
	ASSERT_FALSE(delayed_work_pending(dw));
	ASSERT_NULL(dw->timer.entry.next);
	ASSERT_TRUE(dw->work.func == init_fn);
	for (int round = 0; round < 2; round++) {
		ASSERT_EQ(queue_delayed_work(wq, dw, (unsigned long)round), 1);
		TSEM_WAIT(&init_ran);
		ASSERT_PTR_EQ(atomic_load(&init_last), &dw->work);
		flush_workqueue(wq);
		if (nar) {
			ASSERT_TRUE(delayed_work_pending(dw));
			ASSERT_EQ(queue_delayed_work(wq, dw, 1), 0);
			work_release(&dw->work);
		}
		ASSERT_FALSE(delayed_work_pending(dw));
	}
	ASSERT_EQ(tsem_value(&init_ran), 0);
}

static struct workqueue_struct *init_setup(void)
{
	struct workqueue_struct *wq = create_workqueue("init");

	ASSERT_NOT_NULL(wq);
	tsem_init(&init_ran);
	return wq;
}

TEST(init_declare_work)
{
	struct workqueue_struct *wq = init_setup();
	DECLARE_WORK(local, init_fn);

	check_work_item(wq, &file_work, false);
	check_work_item(wq, &local, false);
	destroy_workqueue(wq);
}

TEST(init_declare_work_nar)
{
	struct workqueue_struct *wq = init_setup();
	DECLARE_WORK_NAR(local, init_fn);

	check_work_item(wq, &file_work_nar, true);
	check_work_item(wq, &local, true);
	destroy_workqueue(wq);
}

TEST(init_declare_delayed_work)
{
	struct workqueue_struct *wq = init_setup();
	DECLARE_DELAYED_WORK(local, init_fn);

	check_dwork_item(wq, &file_dwork, false);
	check_dwork_item(wq, &local, false);
	destroy_workqueue(wq);
}

/* 2.6.20's DECLARE_DELAYED_WORK_NAR named a type that did not exist. */
TEST(init_declare_delayed_work_nar)
{
	struct workqueue_struct *wq = init_setup();
	DECLARE_DELAYED_WORK_NAR(local, init_fn);

	check_dwork_item(wq, &file_dwork_nar, true);
	check_dwork_item(wq, &local, true);
	destroy_workqueue(wq);
}

TEST(init_work_initializer)
{
	struct workqueue_struct *wq = init_setup();

	ASSERT_EQ(file_obj.x, 1);
	check_work_item(wq, &file_obj.w, false);
	check_work_item(wq, &file_obj.w_nar, true);
	destroy_workqueue(wq);
}

TEST(init_delayed_work_initializer)
{
	struct workqueue_struct *wq = init_setup();

	check_dwork_item(wq, &file_obj.dw, false);
	check_dwork_item(wq, &file_obj.dw_nar, true);
	destroy_workqueue(wq);
}

/* INIT_* must produce a usable, idle item from whatever the memory held. */
TEST(init_init_work)
{
	struct workqueue_struct *wq = init_setup();
	struct work_struct *w = malloc(sizeof(*w));

	ASSERT_NOT_NULL(w);
	memset(w, 0xa5, sizeof(*w));
	INIT_WORK(w, init_fn);
	check_work_item(wq, w, false);
	memset(w, 0xff, sizeof(*w));
	INIT_WORK_NAR(w, init_fn);
	check_work_item(wq, w, true);
	destroy_workqueue(wq);
	free(w);
}

TEST(init_init_delayed_work)
{
	struct workqueue_struct *wq = init_setup();
	struct delayed_work *dw = malloc(sizeof(*dw));

	ASSERT_NOT_NULL(dw);
	memset(dw, 0xa5, sizeof(*dw));
	INIT_DELAYED_WORK(dw, init_fn);
	check_dwork_item(wq, dw, false);
	memset(dw, 0xff, sizeof(*dw));
	INIT_DELAYED_WORK_NAR(dw, init_fn);
	check_dwork_item(wq, dw, true);
	destroy_workqueue(wq);
	free(dw);
}

/* ---- the pending bit -------------------------------------------------- */

TEST(queue_work_returns_0_while_pending)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("qpend");
	struct workqueue_struct *mq = create_workqueue("qpendm");
	struct blocker b, mb[2];
	struct probe p, mp;

	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(mq);
	probe_init(&p, wq);
	blocker_start(&b, wq, -1);
	ASSERT_EQ(queue_work(wq, &p.work), 1);
	ASSERT_TRUE(work_pending(&p.work));
	ASSERT_EQ(queue_work(wq, &p.work), 0);
	ASSERT_EQ(queue_work_on(0, wq, &p.work), 0);
	blocker_stop(&b);
	flush_workqueue(wq);
	ASSERT_EQ(probe_runs(&p), 1);
	ASSERT_FALSE(work_pending(&p.work));
	ASSERT_EQ(queue_work(wq, &p.work), 1);
	flush_workqueue(wq);
	ASSERT_EQ(probe_runs(&p), 2);

	/* Pending on one worker counts for all of them. */
	int n = hws_workqueue_nr_workers(mq);
	probe_init(&mp, mq);
	for (int c = 0; c < n && c < 2; c++)
		blocker_start(&mb[c], mq, c);
	ASSERT_EQ(queue_work_on(0, mq, &mp.work), 1);
	ASSERT_EQ(queue_work_on(1, mq, &mp.work), 0);
	ASSERT_EQ(queue_work(mq, &mp.work), 0);
	ASSERT_EQ(queue_delayed_work(mq, &mp.dw, 0), 1); /* another item */
	for (int c = 0; c < n && c < 2; c++)
		blocker_stop(&mb[c]);
	flush_workqueue(mq);
	ASSERT_EQ(probe_runs(&mp), 2);

	destroy_workqueue(wq);
	destroy_workqueue(mq);
	blocker_destroy(&b);
	for (int c = 0; c < n && c < 2; c++)
		blocker_destroy(&mb[c]);
	probe_destroy(&p);
	probe_destroy(&mp);
}

WQ_TEST(queue_delayed_work_returns_0_during_timer, "qtimer", 0)
{
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 100 * HZ), 1);
	ASSERT_TRUE(delayed_work_pending(&f->p.dw));
	ASSERT_TRUE(work_pending(&f->p.dw.work));
	ASSERT_NOT_NULL(f->p.dw.timer.entry.next);
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1), 0);
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 0);
	ASSERT_EQ(queue_delayed_work_on(1, f->wq, &f->p.dw, 0), 0);
	ASSERT_EQ(queue_work(f->wq, &f->p.dw.work), 0);
	ASSERT_EQ(cancel_delayed_work(&f->p.dw), 1);
	ASSERT_FALSE(delayed_work_pending(&f->p.dw));
	ASSERT_NULL(f->p.dw.timer.entry.next);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 0);
}

/*
 * The pending bit is cleared just before the handler runs: the handler sees
 * its item idle and can queue it again, with queue_work(),
 * queue_delayed_work(.., 0) or a real delay.
 */
struct requeuer {
	struct work_struct work;
	struct delayed_work dw;
	struct workqueue_struct *wq;
	atomic_int runs;
	int limit;
	struct tsem done;
};

static void requeue_work_fn(struct work_struct *work)
{
	struct requeuer *r = container_of(work, struct requeuer, work);
	int n = atomic_fetch_add(&r->runs, 1) + 1;

	ASSERT_FALSE(work_pending(work));
	if (n < r->limit)
		ASSERT_EQ(queue_work(r->wq, work), 1);
	else
		tsem_post(&r->done);
}

static void requeue_dwork_fn(struct work_struct *work)
{
	struct requeuer *r = container_of(work, struct requeuer, dw.work);
	int n = atomic_fetch_add(&r->runs, 1) + 1;

	ASSERT_FALSE(delayed_work_pending(&r->dw));
	if (n < r->limit)
		ASSERT_EQ(queue_delayed_work(r->wq, &r->dw, (unsigned long)(n % 3)), 1);
	else
		tsem_post(&r->done);
}

TEST(pending_cleared_before_handler)
{
	struct workqueue_struct *wqs[2] = {
		create_singlethread_workqueue("clr1"), create_workqueue("clrn"),
	};

	for (int i = 0; i < 2; i++) {
		struct requeuer r = { .wq = wqs[i], .limit = 60 };

		ASSERT_NOT_NULL(wqs[i]);
		tsem_init(&r.done);
		INIT_WORK(&r.work, requeue_work_fn);
		INIT_DELAYED_WORK(&r.dw, requeue_dwork_fn);
		ASSERT_EQ(queue_work(r.wq, &r.work), 1);
		TSEM_WAIT(&r.done);
		ASSERT_EQ(atomic_load(&r.runs), r.limit);

		atomic_store(&r.runs, 0);
		ASSERT_EQ(queue_delayed_work(r.wq, &r.dw, 0), 1);
		TSEM_WAIT(&r.done);
		ASSERT_EQ(atomic_load(&r.runs), r.limit);
		flush_workqueue(r.wq);
		ASSERT_FALSE(work_pending(&r.work));
		ASSERT_FALSE(delayed_work_pending(&r.dw));
		destroy_workqueue(r.wq);
		tsem_destroy(&r.done);
	}
}

/*
 * A handler may free the object its item lives in: the library must not
 * touch the item after the handler returns. ASan turns a violation into a
 * report; without it, M_PERTURB scribbles over freed memory so that a late
 * write is likely to be caught by malloc's own checks.
 */
struct selffree {
	struct work_struct work;
	struct delayed_work dw;
	char payload[40];
};

static struct tsem selffree_done;

static void selffree_work_fn(struct work_struct *work)
{
	struct selffree *s = container_of(work, struct selffree, work);

	memset(s->payload, 0x5a, sizeof(s->payload));
	free(s);
	tsem_post(&selffree_done);
}

static void selffree_dwork_fn(struct work_struct *work)
{
	struct selffree *s = container_of(work, struct selffree, dw.work);

	memset(s->payload, 0x5a, sizeof(s->payload));
	free(s);
	tsem_post(&selffree_done);
}

TEST(handler_may_free_container)
{
	struct workqueue_struct *wq = create_workqueue("selffree");
	struct workqueue_struct *st = create_singlethread_workqueue("selffree1");
	const int n = 2000;

	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(st);
	mallopt(M_PERTURB, 0xa5);
	tsem_init(&selffree_done);
	for (int i = 0; i < n; i++) {
		struct selffree *s = malloc(sizeof(*s));
		struct workqueue_struct *q = i % 2 ? wq : st;

		ASSERT_NOT_NULL(s);
		if (i % 4 < 2) {
			INIT_WORK(&s->work, selffree_work_fn);
			ASSERT_EQ(queue_work(q, &s->work), 1);
		} else {
			INIT_DELAYED_WORK(&s->dw, selffree_dwork_fn);
			ASSERT_EQ(queue_delayed_work(q, &s->dw, (unsigned long)(i % 3)), 1);
		}
	}
	for (int i = 0; i < n; i++)
		TSEM_WAIT(&selffree_done);
	flush_workqueue(wq);
	flush_workqueue(st);
	destroy_workqueue(wq);
	destroy_workqueue(st);
	mallopt(M_PERTURB, 0);
}

/*
 * A _NAR item stays pending through its handler and after it, until
 * work_release(); queueing it meanwhile returns 0 and does nothing.
 */
WQ_TEST(nar_stays_pending_until_release, "nar", WQF_SINGLE | WQF_GATE)
{
	INIT_WORK_NAR(&f->p.work, probe_work_fn);
	INIT_DELAYED_WORK_NAR(&f->p.dw, probe_dwork_fn);

	wq_fixture_enter(f);
	ASSERT_EQ(atomic_load(&f->p.pending_in_handler), 1); /* pending inside */
	ASSERT_TRUE(work_pending(&f->p.work));
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 0);
	tsem_post(&f->gate);
	TSEM_WAIT(&f->p.ran);
	flush_workqueue(f->wq);
	ASSERT_TRUE(work_pending(&f->p.work)); /* and after */
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 0);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 1);
	work_release(&f->p.work);
	ASSERT_FALSE(work_pending(&f->p.work));
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	tsem_post(&f->gate);
	PROBE_WAIT_RUNS(&f->p, 1);
	ASSERT_EQ(probe_runs(&f->p), 2);
	work_release(&f->p.work);

	/* The same for a delayed item, through its timer. */
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1), 1);
	tsem_post(&f->gate);
	PROBE_WAIT_RUNS(&f->p, 1);
	ASSERT_EQ(atomic_load(&f->p.pending_in_handler), 1);
	flush_workqueue(f->wq);
	ASSERT_TRUE(delayed_work_pending(&f->p.dw));
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1), 0);
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 0);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 3);
	work_release(&f->p.dw.work);
	ASSERT_FALSE(delayed_work_pending(&f->p.dw));
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 1);
	tsem_post(&f->gate);
	PROBE_WAIT_RUNS(&f->p, 1);
	work_release(&f->p.dw.work);

}

/* The _NAR use case: the handler releases the item once it has the data. */
struct nar_msg {
	struct work_struct work;
	int data;                 /* valid while work is pending */
	atomic_int sum;
	struct tsem done;
};

static void nar_msg_fn(struct work_struct *work)
{
	struct nar_msg *m = container_of(work, struct nar_msg, work);
	int data = m->data;

	work_release(work);
	atomic_fetch_add(&m->sum, data);
	tsem_post(&m->done);
}

TEST(nar_release_from_handler)
{
	struct workqueue_struct *wq = create_workqueue("narmsg");
	struct nar_msg m = { .data = 0 };
	int expected = 0, sent = 0;

	ASSERT_NOT_NULL(wq);
	tsem_init(&m.done);
	INIT_WORK_NAR(&m.work, nar_msg_fn);
	for (int i = 1; i <= 2000; i++) {
		/* Fill the slot only while the item is not pending. */
		if (work_pending(&m.work))
			continue;
		m.data = i;
		ASSERT_EQ(queue_work(wq, &m.work), 1);
		expected += i;
		sent++;
	}
	flush_workqueue(wq);
	for (int i = 0; i < sent; i++)
		TSEM_WAIT(&m.done);
	ASSERT_EQ(atomic_load(&m.sum), expected);
	ASSERT_FALSE(work_pending(&m.work));
	destroy_workqueue(wq);
	tsem_destroy(&m.done);
}

/* ---- delayed items ---------------------------------------------------- */

/*
 * queue_delayed_work(.., 0) puts the item on a worker's list at once and
 * arms no timer: with the worker held, the timer stays unarmed,
 * run_scheduled_work() finds the item on the list, and flush_workqueue()
 * (which does not wait for timers) waits for it.
 */
WQ_TEST(delayed_zero_queues_at_once, "dzero", WQF_SINGLE | WQF_BLOCK)
{
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 1);
	ASSERT_NULL(f->p.dw.timer.entry.next);
	ASSERT_TRUE(delayed_work_pending(&f->p.dw));
	ASSERT_EQ(cancel_delayed_work(&f->p.dw), 0); /* no timer to kill */
	ASSERT_EQ(run_scheduled_work(&f->p.dw.work), 1);
	ASSERT_EQ(probe_runs(&f->p), 1);

	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 1);
	wq_fixture_unblock(f, 2);

	for (int i = 0; i < 100; i++) {
		ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 1);
		flush_workqueue(f->wq);
		ASSERT_EQ(probe_runs(&f->p), 3 + i);
	}
}

TEST(delayed_not_before_delay)
{
	static const unsigned long delays[] = { 1, 2, 3, 5, 10, 30, 100 };
	enum { N = sizeof(delays) / sizeof(delays[0]) };
	struct workqueue_struct *wq = create_workqueue("dlate");
	struct probe p[N], far;
	unsigned long queued[N];

	ASSERT_NOT_NULL(wq);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++) {
			probe_init(&p[i], wq);
			queued[i] = jiffies;
			ASSERT_EQ(queue_delayed_work_on(i, wq, &p[i].dw, delays[i]), 1);
		}
		for (int i = 0; i < N; i++) {
			unsigned long ran_at;

			PROBE_WAIT_RUNS(&p[i], 1);
			ran_at = atomic_load(&p[i].ran_at);
			if (!time_after_eq(ran_at, queued[i] + delays[i]))
				FAIL("delay %lu queued at jiffy %lu ran at %lu, too early",
				     delays[i], queued[i], ran_at);
			probe_destroy(&p[i]);
		}
	}

	/* timer.expires is the jiffy it is due: now + delay. */
	probe_init(&far, wq);
	unsigned long j0 = jiffies;
	ASSERT_EQ(queue_delayed_work(wq, &far.dw, 100 * HZ), 1);
	unsigned long j1 = jiffies;
	ASSERT_TRUE(time_in_range(far.dw.timer.expires, j0 + 100 * HZ, j1 + 100 * HZ));
	ASSERT_EQ(cancel_delayed_work(&far.dw), 1);

	destroy_workqueue(wq);
	probe_destroy(&far);
}

/* ---- run_scheduled_work ----------------------------------------------- */

WQ_TEST(run_scheduled_work_runs_in_caller, "rsw", WQF_SINGLE | WQF_BLOCK)
{
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	ASSERT_EQ(run_scheduled_work(&f->p.work), 1);
	ASSERT_EQ(probe_runs(&f->p), 1);
	ASSERT_TRUE(pthread_equal(probe_thread(&f->p, NULL), pthread_self()));
	ASSERT_FALSE(work_pending(&f->p.work));
	/* Taken off the list: the worker does not run it a second time. */
	ASSERT_EQ(run_scheduled_work(&f->p.work), 0);
	wq_fixture_unblock(f, 1);
}

WQ_TEST(run_scheduled_work_returns_0_when_not_queued, "rsw0", WQF_SINGLE | WQF_GATE)
{
	/* Idle. */
	ASSERT_EQ(run_scheduled_work(&f->p.work), 0);
	ASSERT_EQ(run_scheduled_work(&f->p.dw.work), 0);
	/* In its timer phase. */
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 100 * HZ), 1);
	ASSERT_EQ(run_scheduled_work(&f->p.dw.work), 0);
	ASSERT_TRUE(delayed_work_pending(&f->p.dw));
	ASSERT_EQ(cancel_delayed_work(&f->p.dw), 1);
	/* Running on its worker. */
	wq_fixture_enter(f);
	ASSERT_EQ(run_scheduled_work(&f->p.work), 0);
	tsem_post(&f->gate);
	flush_workqueue(f->wq);
	/* Done. */
	ASSERT_EQ(run_scheduled_work(&f->p.work), 0);
	ASSERT_EQ(probe_runs(&f->p), 1);
}

/* run_scheduled_work() treats the pending bit as a worker does: _NAR stays. */
WQ_TEST(run_scheduled_work_nar, "rswnar", WQF_SINGLE | WQF_BLOCK)
{
	INIT_WORK_NAR(&f->p.work, probe_work_fn);
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	ASSERT_EQ(run_scheduled_work(&f->p.work), 1);
	ASSERT_EQ(atomic_load(&f->p.pending_in_handler), 1);
	ASSERT_TRUE(work_pending(&f->p.work));
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 0);
	work_release(&f->p.work);
	ASSERT_FALSE(work_pending(&f->p.work));
	wq_fixture_unblock(f, 1);
}

/* ---- flush_workqueue -------------------------------------------------- */

static atomic_int slow_done;

static void slow_fn(struct work_struct *work)
{
	(void)work;
	sleep_ms(1);
	atomic_fetch_add(&slow_done, 1);
}

TEST(flush_workqueue_waits_for_earlier)
{
	enum { N = 300 };
	struct workqueue_struct *wqs[2];
	static struct work_struct items[N];

	wq_create_both(wqs, "flush");
	for (int q = 0; q < 2; q++) {
		atomic_store(&slow_done, 0);
		for (int i = 0; i < N; i++) {
			INIT_WORK(&items[i], slow_fn);
			ASSERT_EQ(queue_work(wqs[q], &items[i]), 1);
		}
		flush_workqueue(wqs[q]);
		ASSERT_EQ(atomic_load(&slow_done), N);
		destroy_workqueue(wqs[q]);
	}
}

/*
 * An item that re-queues itself forever: a flush that also waited for
 * later arrivals would never return.
 */
struct forever {
	struct work_struct work;
	struct workqueue_struct *wq;
	atomic_bool stop;
	atomic_long runs;
};

static void forever_fn(struct work_struct *work)
{
	struct forever *f = container_of(work, struct forever, work);

	atomic_fetch_add(&f->runs, 1);
	if (!atomic_load(&f->stop))
		queue_work(f->wq, work);
}

TEST(flush_workqueue_ignores_later_arrivals)
{
	struct workqueue_struct *wqs[2];

	wq_create_both(wqs, "later");
	for (int q = 0; q < 2; q++) {
		struct forever f = { .wq = wqs[q] };

		INIT_WORK(&f.work, forever_fn);
		ASSERT_EQ(queue_work(f.wq, &f.work), 1);
		for (int i = 0; i < 20; i++)
			flush_workqueue(f.wq);
		ASSERT_GE(atomic_load(&f.runs), 1);
		atomic_store(&f.stop, true);
		flush_workqueue(f.wq);
		flush_workqueue(f.wq);
		ASSERT_FALSE(work_pending(&f.work));
		destroy_workqueue(f.wq);
	}
}

static void flush_wq_call(void *arg)
{
	flush_workqueue(arg);
}

TEST(flush_workqueue_ignores_pending_timers)
{
	struct workqueue_struct *wqs[2];

	wq_create_both(wqs, "ftimer");
	for (int q = 0; q < 2; q++) {
		struct bg_call c;
		struct probe p;

		probe_init(&p, wqs[q]);
		ASSERT_EQ(queue_delayed_work(wqs[q], &p.dw, 1000 * HZ), 1);
		bg_call_start(&c, flush_wq_call, wqs[q]);
		BG_CALL_JOIN(&c);
		ASSERT_EQ(probe_runs(&p), 0);
		ASSERT_EQ(cancel_delayed_work(&p.dw), 1);
		destroy_workqueue(wqs[q]);
		probe_destroy(&p);
	}
}

static void stop_blocker_later(void *arg)
{
	sleep_ms(200);
	blocker_stop(arg);
}

static void open_gate_later(void *arg)
{
	sleep_ms(400);
	tsem_post(arg);
}

/*
 * An item whose timer expired while the worker was busy is on the list, as
 * the kernel's timer softirq would have put it there, so a flush waits for
 * it. (A queue of one worker moves such items only when asked.)
 */
TEST(flush_workqueue_waits_for_expired_timers)
{
	struct workqueue_struct *wqs[2];

	wq_create_both(wqs, "fexp");
	for (int q = 0; q < 2; q++) {
		struct blocker b[64];
		struct bg_call c, g;
		struct probe p;
		struct tsem gate;
		int n = hws_workqueue_nr_workers(wqs[q]);

		ASSERT_TRUE(n <= 64);
		probe_init(&p, wqs[q]);
		/* The item holds its worker a while: run after the flush's
		 * barrier, it would not have ended when the flush returns. */
		tsem_init(&gate);
		p.gate = &gate;
		/* Every worker busy, whichever the item goes to. */
		for (int i = 0; i < n; i++)
			blocker_start(&b[i], wqs[q], i);
		ASSERT_EQ(queue_delayed_work(wqs[q], &p.dw, 1), 1);
		sleep_ms(100);
		for (int i = 1; i < n; i++)
			blocker_stop(&b[i]);
		bg_call_start(&c, stop_blocker_later, &b[0]);
		bg_call_start(&g, open_gate_later, &gate);
		flush_workqueue(wqs[q]);
		ASSERT_EQ(probe_runs(&p), 1);
		BG_CALL_JOIN(&c);
		BG_CALL_JOIN(&g);
		tsem_destroy(&gate);
		for (int i = 0; i < n; i++)
			blocker_destroy(&b[i]);
		destroy_workqueue(wqs[q]);
		probe_destroy(&p);
	}
}

/* A handler that flushes its own queue. */
struct flusher {
	struct work_struct work;
	struct workqueue_struct *wq;
	struct probe *earlier[2];       /* must have run when the flush returns */
	atomic_int earlier_runs_seen;
	struct tsem flushing;
	struct tsem done;
};

static void flusher_fn(struct work_struct *work)
{
	struct flusher *f = container_of(work, struct flusher, work);
	int seen = 0;

	tsem_post(&f->flushing);
	flush_workqueue(f->wq);
	for (int i = 0; i < 2; i++)
		if (f->earlier[i])
			seen += probe_runs(f->earlier[i]);
	atomic_store(&f->earlier_runs_seen, seen);
	tsem_post(&f->done);
}

static void flusher_init(struct flusher *f, struct workqueue_struct *wq)
{
	memset(f, 0, sizeof(*f));
	f->wq = wq;
	tsem_init(&f->flushing);
	tsem_init(&f->done);
	INIT_WORK(&f->work, flusher_fn);
}

static void flusher_destroy(struct flusher *f)
{
	tsem_destroy(&f->flushing);
	tsem_destroy(&f->done);
}

TEST(flush_workqueue_from_own_worker)
{
	struct workqueue_struct *wqs[3] = {
		create_singlethread_workqueue("selfflush1"), create_workqueue("selfflush"),
		create_freezeable_workqueue("selfflushf"),
	};

	for (int q = 0; q < 3; q++) {
		struct flusher f;

		ASSERT_NOT_NULL(wqs[q]);
		flusher_init(&f, wqs[q]);
		for (int i = 0; i < 20; i++) {
			ASSERT_EQ(queue_work(wqs[q], &f.work), 1);
			if (!tsem_wait_ms(&f.done, WAIT_MS))
				FAIL("flush_workqueue() from a worker of queue %d deadlocked", q);
			TSEM_WAIT(&f.flushing);
		}
		flush_workqueue(wqs[q]);
		destroy_workqueue(wqs[q]);
		flusher_destroy(&f);
	}
}

/*
 * Items queued on the flushing worker's own list before the call run inside
 * the call (2.6.20 ran them by hand), so they are done when it returns.
 */
TEST(flush_workqueue_from_worker_runs_own_earlier_items)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("selfflush2");
	struct blocker b;
	struct probe a, c;
	struct flusher f;

	ASSERT_NOT_NULL(wq);
	probe_init(&a, wq);
	probe_init(&c, wq);
	flusher_init(&f, wq);
	f.earlier[0] = &a;
	f.earlier[1] = &c;
	blocker_start(&b, wq, -1);
	ASSERT_EQ(queue_work(wq, &f.work), 1);
	ASSERT_EQ(queue_work(wq, &a.work), 1);
	ASSERT_EQ(queue_work(wq, &c.work), 1);
	blocker_stop(&b);
	TSEM_WAIT(&f.done);
	ASSERT_EQ(atomic_load(&f.earlier_runs_seen), 2);
	flush_workqueue(wq);
	ASSERT_EQ(probe_runs(&a), 1);
	ASSERT_EQ(probe_runs(&c), 1);
	destroy_workqueue(wq);
	blocker_destroy(&b);
	probe_destroy(&a);
	probe_destroy(&c);
	flusher_destroy(&f);
}

/* ... and items on the other workers are waited for as usual. */
TEST(flush_workqueue_from_worker_waits_for_other_workers)
{
	struct workqueue_struct *wq = create_workqueue("selfflush3");
	struct tsem gate;
	struct probe x;
	struct flusher f;

	ASSERT_NOT_NULL(wq);
	if (hws_workqueue_nr_workers(wq) < 2) {
		printf("# skipped: needs two workers\n");
		destroy_workqueue(wq);
		return;
	}
	tsem_init(&gate);
	probe_init(&x, wq);
	x.gate = &gate;
	flusher_init(&f, wq);
	f.earlier[0] = &x;
	ASSERT_EQ(queue_work_on(1, wq, &x.work), 1);
	TSEM_WAIT(&x.entered);
	ASSERT_EQ(queue_work_on(0, wq, &f.work), 1);
	TSEM_WAIT(&f.flushing);
	sleep_ms(100);
	ASSERT_EQ(tsem_value(&f.done), 0); /* still waiting for worker 1 */
	tsem_post(&gate);
	TSEM_WAIT(&f.done);
	ASSERT_EQ(atomic_load(&f.earlier_runs_seen), 1);
	destroy_workqueue(wq);
	probe_destroy(&x);
	flusher_destroy(&f);
	tsem_destroy(&gate);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
