/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for cancelling and flushing single items: cancel_delayed_work(),
 * cancel_work_sync(), cancel_delayed_work_sync(), the 2.6.20
 * cancel_rearming_delayed_work*(), flush_work(), flush_delayed_work(),
 * mod_delayed_work(), and arming and cancelling a million timers.
 */

#include <hwsight/workqueue.h>

#include "task.h"
#include "wq-util.h"

/*
 * Helpers to make a call on a helper thread and keep its result: the test
 * checks that the call blocks while a handler runs, then that it returns.
 */
struct item_call {
	struct work_struct *work;
	struct delayed_work *dwork;
	struct workqueue_struct *wq;
	struct probe *probe;
	int op;
	int result;
	int runs_at_return;    /* probe runs when the call returned */
	int running_at_return; /* probe handlers running when it returned */
};

/*
 * The calls, each once: its OP_ value, its name for the failure messages,
 * and how it is made on a struct item_call *c. The 2.6.20 rearming cancels
 * return nothing, which counts as 0.
 */
#define ITEM_CALLS(X)                                                                          \
	X(CANCEL_DELAYED_WORK, cancel_delayed_work, cancel_delayed_work(c->dwork))              \
	X(CANCEL_WORK_SYNC, cancel_work_sync, cancel_work_sync(c->work))                         \
	X(CANCEL_DELAYED_WORK_SYNC, cancel_delayed_work_sync, cancel_delayed_work_sync(c->dwork)) \
	X(CANCEL_REARMING_WORKQUEUE, cancel_rearming_delayed_workqueue,                         \
	  (cancel_rearming_delayed_workqueue(c->wq, c->dwork), 0))                               \
	X(CANCEL_REARMING_WORK, cancel_rearming_delayed_work,                                   \
	  (cancel_rearming_delayed_work(c->dwork), 0))                                           \
	X(FLUSH_WORK, flush_work, flush_work(c->work))                                           \
	X(FLUSH_DELAYED_WORK, flush_delayed_work, flush_delayed_work(c->dwork))

enum {
#define ITEM_CALL_OP(op, name, call) OP_##op,
	ITEM_CALLS(ITEM_CALL_OP)
#undef ITEM_CALL_OP
};

static const char *const op_names[] = {
#define ITEM_CALL_NAME(op, name, call) [OP_##op] = #name,
	ITEM_CALLS(ITEM_CALL_NAME)
#undef ITEM_CALL_NAME
};

static void item_call_fn(void *arg)
{
	struct item_call *c = arg;

	switch (c->op) {
#define ITEM_CALL_CASE(op, name, call) case OP_##op: c->result = (call); break;
		ITEM_CALLS(ITEM_CALL_CASE)
#undef ITEM_CALL_CASE
	default:
		FAIL("bad op %d", c->op);
	}
	if (c->probe) {
		c->runs_at_return = probe_runs(c->probe);
		c->running_at_return = atomic_load(&c->probe->running);
	}
}

/* Waits at most WAIT_MS for the call on bg to return; @since says from when,
 * for the failure message. */
static void join_call(struct bg_call *bg, const struct item_call *c, const char *since)
{
	if (!tsem_wait_ms(&bg->done, WAIT_MS))
		FAIL("%s() did not return within %d ms%s", op_names[c->op], WAIT_MS, since);
	pthread_join(bg->thread, NULL);
	tsem_destroy(&bg->done);
}

/* Makes the call on a helper thread and waits (at most WAIT_MS) for it. */
static int call_and_join(struct item_call *c)
{
	struct bg_call bg;

	bg_call_start(&bg, item_call_fn, c);
	join_call(&bg, c, "");
	return c->result;
}

/*
 * Checks that the call blocks while p's handler is held at its gate, and
 * returns once the gate opens. p must be inside its handler already.
 */
static int call_blocks_until_handler_returns(struct item_call *c, struct tsem *gate)
{
	struct bg_call bg;

	bg_call_start(&bg, item_call_fn, c);
	sleep_ms(200);
	if (bg_call_returned(&bg))
		FAIL("%s() returned while the handler was still running", op_names[c->op]);
	tsem_post(gate);
	join_call(&bg, c, " of the handler's end");
	if (c->probe)
		ASSERT_EQ(c->running_at_return, 0);
	return c->result;
}

/* Checks that nothing runs p any more: its run count stays still. */
static void assert_quiet(struct probe *p)
{
	int runs = probe_runs(p);

	ASSERT_EQ(atomic_load(&p->running), 0);
	sleep_ms(200);
	ASSERT_EQ(probe_runs(p), runs);
	ASSERT_EQ(atomic_load(&p->running), 0);
	ASSERT_FALSE(work_pending(&p->work));
	ASSERT_FALSE(delayed_work_pending(&p->dw));
}

/*
 * On an idle delayed item the call has nothing to do and returns 0, before
 * the item ever ran and after its run (due in delay jiffies). The call is
 * made here, not on a helper thread: it must not block.
 */
static void check_idle_delayed(int op, const char *wqname, unsigned long delay)
{
	struct wq_fixture f;
	struct item_call c = { .op = op, .dwork = &f.p.dw };

	wq_fixture_start(&f, wqname, 0);
	item_call_fn(&c);
	ASSERT_EQ(c.result, 0);
	ASSERT_EQ(queue_delayed_work(f.wq, &f.p.dw, delay), 1);
	PROBE_WAIT_RUNS(&f.p, 1);
	flush_workqueue(f.wq);
	item_call_fn(&c);
	ASSERT_EQ(c.result, 0);
	ASSERT_EQ(probe_runs(&f.p), 1);
	wq_fixture_stop(&f);
}

/* ---- cancel_delayed_work ---------------------------------------------- */

WQ_TEST(cancel_delayed_work_kills_timer, "cdw", 0)
{
	/* One second ahead: long enough that the cancel comes first. */
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, HZ), 1);
	ASSERT_EQ(cancel_delayed_work(&f->p.dw), 1);
	ASSERT_FALSE(delayed_work_pending(&f->p.dw));
	ASSERT_NULL(f->p.dw.timer.entry.next);
	ASSERT_EQ(cancel_delayed_work(&f->p.dw), 0); /* nothing left to kill */
	/* Past the due time, it has not run. */
	sleep_ms(1400);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 0);
	/* And it can be armed again. */
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1), 1);
	PROBE_WAIT_RUNS(&f->p, 1);
}

TEST(cancel_delayed_work_idle_returns_0)
{
	check_idle_delayed(OP_CANCEL_DELAYED_WORK, "cdwidle", 1);
}

/* Queued on a worker (no timer): 0, and the item still runs. */
WQ_TEST(cancel_delayed_work_queued_returns_0, "cdwq", WQF_SINGLE | WQF_BLOCK)
{
	struct probe q;

	probe_init(&q, f->wq);
	/* Queued at once... */
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 1);
	ASSERT_EQ(cancel_delayed_work(&f->p.dw), 0);
	ASSERT_TRUE(delayed_work_pending(&f->p.dw));
	/* ... or queued by its timer, which fired long ago. */
	ASSERT_EQ(queue_delayed_work(f->wq, &q.dw, 1), 1);
	sleep_ms(500);
	ASSERT_EQ(cancel_delayed_work(&q.dw), 0);
	ASSERT_TRUE(delayed_work_pending(&q.dw));
	wq_fixture_unblock(f, 1);
	ASSERT_EQ(probe_runs(&q), 1);
	probe_destroy(&q);
}

/* The classic pitfall: it does not wait for a running handler. */
WQ_TEST(cancel_delayed_work_does_not_wait, "cdwrun", WQF_GATE)
{
	struct item_call c = { .op = OP_CANCEL_DELAYED_WORK, .dwork = &f->p.dw, .probe = &f->p };

	wq_fixture_enter_delayed(f, 1);
	if (call_and_join(&c) != 0)
		FAIL("cancel_delayed_work() on a running item returned %d", c.result);
	ASSERT_EQ(c.running_at_return, 1); /* returned while it ran */
	tsem_post(&f->gate);
	PROBE_WAIT_RUNS(&f->p, 1);
}

/* ---- cancel_work_sync ------------------------------------------------- */

WQ_TEST(cancel_work_sync_pending, "cws", WQF_SINGLE | WQF_BLOCK)
{
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	ASSERT_TRUE(cancel_work_sync(&f->p.work));
	ASSERT_FALSE(work_pending(&f->p.work));
	wq_fixture_unblock(f, 0);
	/* Usable again afterwards. */
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 1);
}

WQ_TEST(cancel_work_sync_idle, "cwsidle", 0)
{
	ASSERT_FALSE(cancel_work_sync(&f->p.work));
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	flush_workqueue(f->wq);
	ASSERT_FALSE(cancel_work_sync(&f->p.work));
	ASSERT_EQ(probe_runs(&f->p), 1);
}

WQ_TEST(cancel_work_sync_waits_for_running, "cwsrun", WQF_GATE)
{
	struct item_call c = { .op = OP_CANCEL_WORK_SYNC, .work = &f->p.work, .probe = &f->p };

	wq_fixture_enter(f);
	/* Running but not pending: it waits, then says it was not pending. */
	ASSERT_FALSE(call_blocks_until_handler_returns(&c, &f->gate));
	ASSERT_EQ(c.runs_at_return, 1);
	assert_quiet(&f->p);
}

/* Running and queued again meanwhile: waits, and the new instance never runs. */
WQ_TEST(cancel_work_sync_running_and_requeued, "cwsreq", WQF_SINGLE | WQF_GATE)
{
	struct item_call c = { .op = OP_CANCEL_WORK_SYNC, .work = &f->p.work, .probe = &f->p };

	wq_fixture_enter(f);
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	ASSERT_TRUE(call_blocks_until_handler_returns(&c, &f->gate));
	ASSERT_EQ(c.runs_at_return, 1);
	flush_workqueue(f->wq);
	assert_quiet(&f->p);
	ASSERT_EQ(probe_runs(&f->p), 1);
}

/* A plain item that re-queues itself from its handler. */
TEST(cancel_work_sync_self_requeueing)
{
	struct workqueue_struct *wqs[2];

	wq_create_both(wqs, "cwsself");
	for (int q = 0; q < 2; q++) {
		for (int round = 0; round < 20; round++) {
			struct probe *p = probe_new(wqs[q]);

			atomic_store(&p->rearm, 0);
			ASSERT_EQ(queue_work(wqs[q], &p->work), 1);
			PROBE_WAIT_RUNS(p, 1 + round % 5);
			cancel_work_sync(&p->work);
			assert_quiet(p);
			probe_free(p); /* ASan: nothing touches it any more */
		}
		destroy_workqueue(wqs[q]);
	}
}

/*
 * A handler run by run_scheduled_work() in another thread is a running
 * instance too: cancel_work_sync() and flush_work() wait for it.
 */
static void run_scheduled_call(void *arg)
{
	ASSERT_EQ(run_scheduled_work((struct work_struct *)arg), 1);
}

static void check_waits_for_run_scheduled(int op)
{
	struct wq_fixture f;
	struct item_call c = { .op = op, .work = &f.p.work, .probe = &f.p };
	struct bg_call runner;

	wq_fixture_start(&f, "cwsrsw", WQF_SINGLE | WQF_GATE | WQF_BLOCK);
	ASSERT_EQ(queue_work(f.wq, &f.p.work), 1);
	bg_call_start(&runner, run_scheduled_call, &f.p.work);
	TSEM_WAIT(&f.p.entered);
	call_blocks_until_handler_returns(&c, &f.gate);
	ASSERT_EQ(c.runs_at_return, 1);
	BG_CALL_JOIN(&runner);
	wq_fixture_unblock(&f, 1);
	wq_fixture_stop(&f);
}

TEST(cancel_work_sync_waits_for_run_scheduled_work)
{
	check_waits_for_run_scheduled(OP_CANCEL_WORK_SYNC);
}

TEST(flush_work_waits_for_run_scheduled_work)
{
	check_waits_for_run_scheduled(OP_FLUSH_WORK);
}

/* ---- cancel_delayed_work_sync ----------------------------------------- */

WQ_TEST(cancel_delayed_work_sync_timer, "cdws", 0)
{
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 100 * HZ), 1);
	ASSERT_TRUE(cancel_delayed_work_sync(&f->p.dw));
	ASSERT_FALSE(delayed_work_pending(&f->p.dw));
	ASSERT_NULL(f->p.dw.timer.entry.next);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 0);
}

WQ_TEST(cancel_delayed_work_sync_queued, "cdwsq", WQF_SINGLE | WQF_BLOCK)
{
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 1);
	ASSERT_TRUE(cancel_delayed_work_sync(&f->p.dw));
	ASSERT_FALSE(delayed_work_pending(&f->p.dw));
	wq_fixture_unblock(f, 0);
}

TEST(cancel_delayed_work_sync_idle)
{
	check_idle_delayed(OP_CANCEL_DELAYED_WORK_SYNC, "cdwsidle", 1);
}

WQ_TEST(cancel_delayed_work_sync_waits_for_running, "cdwsrun", WQF_GATE)
{
	struct item_call c = { .op = OP_CANCEL_DELAYED_WORK_SYNC, .dwork = &f->p.dw, .probe = &f->p };

	wq_fixture_enter_delayed(f, 1);
	ASSERT_FALSE(call_blocks_until_handler_returns(&c, &f->gate));
	ASSERT_EQ(c.runs_at_return, 1);
	assert_quiet(&f->p);
}

/*
 * A self-rearming item is stopped for good, whatever phase it is caught in,
 * and its memory can then be freed.
 */
static void check_stops_rearming(int op, int rearm, bool singlethread, bool on_events)
{
	struct workqueue_struct *wq = on_events ? hws__keventd_wq()
				      : singlethread ? create_singlethread_workqueue("rearm1")
						     : create_workqueue("rearm");

	ASSERT_NOT_NULL(wq);
	for (int round = 0; round < 20; round++) {
		struct probe *p = probe_new(wq);
		struct item_call c = { .op = op, .dwork = &p->dw, .wq = wq, .probe = p };

		atomic_store(&p->rearm, rearm);
		ASSERT_EQ(queue_delayed_work(wq, &p->dw, (unsigned long)rearm), 1);
		PROBE_WAIT_RUNS(p, 1 + round % 4);
		call_and_join(&c);
		ASSERT_EQ(c.running_at_return, 0);
		assert_quiet(p);
		probe_free(p); /* ASan: nothing touches it any more */
	}
	if (!on_events)
		destroy_workqueue(wq);
}

TEST(cancel_delayed_work_sync_rearm_0)
{
	check_stops_rearming(OP_CANCEL_DELAYED_WORK_SYNC, 0, false, false);
	check_stops_rearming(OP_CANCEL_DELAYED_WORK_SYNC, 0, true, false);
}

TEST(cancel_delayed_work_sync_rearm_1)
{
	check_stops_rearming(OP_CANCEL_DELAYED_WORK_SYNC, 1, false, false);
	check_stops_rearming(OP_CANCEL_DELAYED_WORK_SYNC, 1, true, false);
}

/* ---- cancel_rearming_delayed_work* (hung in 2.6.20) -------------------- */

WQ_TEST(cancel_rearming_idle, "crdidle", 0)
{
	struct item_call c = { .op = OP_CANCEL_REARMING_WORKQUEUE, .dwork = &f->p.dw, .probe = &f->p };

	c.wq = f->wq;
	call_and_join(&c);          /* 2.6.20 looped here forever */
	c.op = OP_CANCEL_REARMING_WORK;
	call_and_join(&c);
	ASSERT_EQ(probe_runs(&f->p), 0);
	/* After a run, idle again. */
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1), 1);
	PROBE_WAIT_RUNS(&f->p, 1);
	flush_workqueue(f->wq);
	c.op = OP_CANCEL_REARMING_WORKQUEUE;
	call_and_join(&c);
	assert_quiet(&f->p);
}

WQ_TEST(cancel_rearming_timer, "crdtimer", 0)
{
	struct item_call c = { .op = OP_CANCEL_REARMING_WORKQUEUE, .dwork = &f->p.dw, .probe = &f->p };

	c.wq = f->wq;
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 100 * HZ), 1);
	call_and_join(&c);
	ASSERT_EQ(probe_runs(&f->p), 0);
	ASSERT_FALSE(delayed_work_pending(&f->p.dw));
	ASSERT_EQ(schedule_delayed_work(&f->p.dw, 100 * HZ), 1);
	c.op = OP_CANCEL_REARMING_WORK;
	call_and_join(&c);
	assert_quiet(&f->p);
	ASSERT_EQ(probe_runs(&f->p), 0);
}

/* Re-arming with delay 0 never has a timer to kill: 2.6.20 hung. */
TEST(cancel_rearming_rearm_0)
{
	check_stops_rearming(OP_CANCEL_REARMING_WORKQUEUE, 0, false, false);
	check_stops_rearming(OP_CANCEL_REARMING_WORKQUEUE, 0, true, false);
	check_stops_rearming(OP_CANCEL_REARMING_WORK, 0, false, true);
}

TEST(cancel_rearming_rearm_1)
{
	check_stops_rearming(OP_CANCEL_REARMING_WORKQUEUE, 1, false, false);
	check_stops_rearming(OP_CANCEL_REARMING_WORKQUEUE, 1, true, false);
	check_stops_rearming(OP_CANCEL_REARMING_WORK, 1, false, true);
}

/* ---- flush_work, flush_delayed_work ----------------------------------- */

WQ_TEST(flush_work_waits_for_queued, "fwq", WQF_SINGLE | WQF_BLOCK)
{
	struct item_call c = { .op = OP_FLUSH_WORK, .work = &f->p.work, .probe = &f->p };
	struct bg_call bg;

	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	bg_call_start(&bg, item_call_fn, &c);
	sleep_ms(200);
	ASSERT_FALSE(bg_call_returned(&bg)); /* the item has not run yet */
	blocker_stop(&f->b);
	BG_CALL_JOIN(&bg);
	ASSERT_TRUE(c.result);
	ASSERT_EQ(c.runs_at_return, 1);
	ASSERT_EQ(c.running_at_return, 0);
}

WQ_TEST(flush_work_waits_for_running, "fwrun", WQF_GATE)
{
	struct item_call c = { .op = OP_FLUSH_WORK, .work = &f->p.work, .probe = &f->p };

	wq_fixture_enter(f);
	ASSERT_TRUE(call_blocks_until_handler_returns(&c, &f->gate));
	ASSERT_EQ(c.runs_at_return, 1);
}

WQ_TEST(flush_work_idle, "fwidle", 0)
{
	ASSERT_FALSE(flush_work(&f->p.work));
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	ASSERT_TRUE(flush_work(&f->p.work) || probe_runs(&f->p) == 1);
	ASSERT_EQ(probe_runs(&f->p), 1);
	flush_workqueue(f->wq);
	ASSERT_FALSE(flush_work(&f->p.work));
	ASSERT_FALSE(flush_work(&f->p.dw.work));
}

/*
 * flush_work() waits for the instance queued or running when it is called,
 * not for the re-queueings that follow: on an item that re-queues itself
 * with no delay it must still return.
 */
TEST(flush_work_self_requeueing_returns)
{
	struct workqueue_struct *wqs[2];

	wq_create_both(wqs, "fwself");
	for (int q = 0; q < 2; q++) {
		struct probe *p = probe_new(wqs[q]);
		struct item_call c = { .op = OP_FLUSH_WORK, .work = &p->work, .probe = p };
		struct item_call d = { .op = OP_FLUSH_DELAYED_WORK, .dwork = &p->dw, .probe = p };

		atomic_store(&p->rearm, 0);
		ASSERT_EQ(queue_work(wqs[q], &p->work), 1);
		ASSERT_EQ(queue_delayed_work(wqs[q], &p->dw, 0), 1);
		PROBE_WAIT_RUNS(p, 10);
		for (int i = 0; i < 20; i++) {
			int before = probe_runs(p);

			call_and_join(&c);
			ASSERT_GT(c.runs_at_return, before);
			call_and_join(&d);
			ASSERT_GT(d.runs_at_return, before);
		}
		cancel_work_sync(&p->work);
		cancel_delayed_work_sync(&p->dw);
		assert_quiet(p);
		probe_free(p);
		destroy_workqueue(wqs[q]);
	}
}

WQ_TEST(flush_delayed_work_runs_timer_now, "fdw", 0)
{
	struct item_call c = { .op = OP_FLUSH_DELAYED_WORK, .dwork = &f->p.dw, .probe = &f->p };

	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1000 * HZ), 1);
	/*
	 * Not 1000 s later. The return value is not checked: the handler may
	 * finish between the firing and the wait, as in the kernel, and then
	 * there is nothing left to wait for.
	 */
	call_and_join(&c);
	ASSERT_EQ(c.runs_at_return, 1);
	ASSERT_EQ(c.running_at_return, 0);
	ASSERT_FALSE(delayed_work_pending(&f->p.dw));
	ASSERT_NULL(f->p.dw.timer.entry.next);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 1);
}

TEST(flush_delayed_work_idle)
{
	check_idle_delayed(OP_FLUSH_DELAYED_WORK, "fdwidle", 0);
}

/* ---- mod_delayed_work ------------------------------------------------- */

WQ_TEST(mod_delayed_work_idle_queues, "modidle", 0)
{
	unsigned long j0;

	j0 = jiffies;
	ASSERT_FALSE(mod_delayed_work(f->wq, &f->p.dw, 2));
	ASSERT_TRUE(delayed_work_pending(&f->p.dw));
	PROBE_WAIT_RUNS(&f->p, 1);
	ASSERT_TRUE(time_after_eq(atomic_load(&f->p.ran_at), j0 + 2));
	flush_workqueue(f->wq);
	/* Delay 0: queued at once, flush_workqueue() waits for it. */
	ASSERT_FALSE(mod_delayed_work(f->wq, &f->p.dw, 0));
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 2);
}

WQ_TEST(mod_delayed_work_shortens, "modshort", 0)
{
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1000 * HZ), 1);
	ASSERT_TRUE(mod_delayed_work(f->wq, &f->p.dw, 1));
	PROBE_WAIT_RUNS(&f->p, 1); /* long before 1000 s */
	flush_workqueue(f->wq);
	ASSERT_FALSE(delayed_work_pending(&f->p.dw));
	/* Shortened to 0: queued at once. */
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 1000 * HZ), 1);
	ASSERT_TRUE(mod_delayed_work(f->wq, &f->p.dw, 0));
	PROBE_WAIT_RUNS(&f->p, 1);
	ASSERT_EQ(probe_runs(&f->p), 2);
}

WQ_TEST(mod_delayed_work_lengthens, "modlong", WQF_SINGLE | WQF_BLOCK)
{
	unsigned long j0, j1;

	/* Waiting on the worker: moved back into a timer. */
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, 0), 1);
	j0 = jiffies;
	ASSERT_TRUE(mod_delayed_work(f->wq, &f->p.dw, 100 * HZ));
	j1 = jiffies;
	ASSERT_TRUE(delayed_work_pending(&f->p.dw));
	ASSERT_NOT_NULL(f->p.dw.timer.entry.next);
	ASSERT_TRUE(time_in_range(f->p.dw.timer.expires, j0 + 100 * HZ, j1 + 100 * HZ));
	wq_fixture_unblock(f, 0);
	/* An armed timer pushed back. */
	ASSERT_TRUE(mod_delayed_work(f->wq, &f->p.dw, 200 * HZ));
	ASSERT_TRUE(time_after_eq(f->p.dw.timer.expires, j0 + 200 * HZ));
	for (int i = 0; i < 1000; i++)
		ASSERT_TRUE(mod_delayed_work(f->wq, &f->p.dw, 100 * HZ + (unsigned long)i));
	ASSERT_EQ(cancel_delayed_work(&f->p.dw), 1);
	ASSERT_EQ(probe_runs(&f->p), 0);
}

/* Running but not pending counts as idle: queued again, runs again. */
WQ_TEST(mod_delayed_work_while_running, "modrun", WQF_SINGLE | WQF_GATE)
{
	wq_fixture_enter_delayed(f, 0);
	ASSERT_FALSE(mod_delayed_work(f->wq, &f->p.dw, 0));
	ASSERT_TRUE(mod_delayed_work(f->wq, &f->p.dw, 1));
	tsem_post(&f->gate);
	tsem_post(&f->gate);
	PROBE_WAIT_RUNS(&f->p, 2);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), 2);
}

TEST(mod_delayed_work_on_names_worker)
{
	int n;
	struct workqueue_struct *wq = wq_create_counted("modon", &n);

	for (int c = 0; c < n; c++) {
		struct probe p;

		probe_init(&p, wq);
		ASSERT_FALSE(mod_delayed_work_on(c, wq, &p.dw, 1));
		PROBE_WAIT_RUNS(&p, 1);
		probe_check_ran_on(&p, "modon", c);
		flush_workqueue(wq);
		probe_destroy(&p);
	}
	destroy_workqueue(wq);
}

/* ---- a million timers ------------------------------------------------- */

static atomic_long million_runs;

static void million_fn(struct work_struct *work)
{
	(void)work;
	atomic_fetch_add(&million_runs, 1);
}

/*
 * Arming and cancelling costs O(1) or O(log n): a million of each finishes
 * well inside the timeout (an O(n) list would take hours). Far timers are
 * all still armed when cancelled, so every cancel returns 1.
 */
TEST_TIMEOUT(arm_cancel_million_far, 240)
{
	enum { N = 1000000 };
	struct workqueue_struct *wq = create_workqueue("million");
	struct delayed_work *dw = calloc(N, sizeof(*dw));
	unsigned int seed = 42;

	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(dw);
	for (int i = 0; i < N; i++) {
		unsigned long delay = 3600ul * HZ + 1 + (unsigned long)(rand_r(&seed) % 100000);

		INIT_DELAYED_WORK(&dw[i], million_fn);
		if (queue_delayed_work(wq, &dw[i], delay) != 1)
			FAIL("arming item %d returned 0", i);
	}
	for (int i = N - 1; i >= 0; i -= 2)  /* out of order, */
		if (cancel_delayed_work(&dw[i]) != 1)
			FAIL("cancelling item %d returned 0", i);
	for (int i = 0; i < N; i += 2)       /* then the rest */
		if (cancel_delayed_work(&dw[i]) != 1)
			FAIL("cancelling item %d returned 0", i);
	for (int i = 0; i < N; i++)
		if (delayed_work_pending(&dw[i]))
			FAIL("item %d still pending", i);
	flush_workqueue(wq);
	ASSERT_EQ(atomic_load(&million_runs), 0);
	destroy_workqueue(wq);
	free(dw);
}

/*
 * Delays of 1..100000 jiffies: the short ones fire while the rest are being
 * armed. A cancel may return 0 only for an item that was already due, and
 * exactly the items whose cancel returned 0 run.
 */
TEST_TIMEOUT(arm_cancel_million_mixed, 240)
{
	enum { N = 1000000 };
	struct workqueue_struct *wq = create_workqueue("million");
	struct delayed_work *dw = calloc(N, sizeof(*dw));
	unsigned long *due = calloc(N, sizeof(*due));
	unsigned int seed = 7;
	long missed = 0;

	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(dw);
	ASSERT_NOT_NULL(due);
	for (int i = 0; i < N; i++) {
		unsigned long delay = 1 + (unsigned long)(rand_r(&seed) % 100000);

		INIT_DELAYED_WORK(&dw[i], million_fn);
		due[i] = jiffies + delay;
		if (queue_delayed_work(wq, &dw[i], delay) != 1)
			FAIL("arming item %d returned 0", i);
	}
	for (int i = 0; i < N; i++) {
		if (cancel_delayed_work(&dw[i]) == 1)
			continue;
		missed++;
		unsigned long now = jiffies;
		if (!time_after_eq(now, due[i]))
			FAIL("cancel of item %d returned 0 at jiffy %lu, before its due %lu",
			     i, now, due[i]);
	}
	/* Those that were missed had left the timer: flush waits for them. */
	flush_workqueue(wq);
	ASSERT_EQ(atomic_load(&million_runs), missed);
	for (int i = 0; i < N; i++)
		if (delayed_work_pending(&dw[i]))
			FAIL("item %d still pending", i);
	printf("# %ld of %d items were due before their cancel\n", missed, N);
	destroy_workqueue(wq);
	free(dw);
	free(due);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
