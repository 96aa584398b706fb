/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compile-only test of <hwsight/workqueue.h>. As it stands the file holds
 * the correct calls and must compile without a warning. Each
 * "#if defined(MISUSE_...)" block adds one call that hands the wrong kind of
 * item to the API; tests/unit/CMakeLists.txt compiles the file once per
 * block with that macro defined and expects the compiler to refuse it. In C
 * the kernel only warned, and a delayed_work passed to queue_work() was
 * queued with its timer ignored.
 */

#include <hwsight/workqueue.h>

static void fn(struct work_struct *work)
{
	(void)work;
}

int main(void)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("misuse");
	struct work_struct w;
	struct delayed_work dw;

	INIT_WORK(&w, fn);
	INIT_DELAYED_WORK(&dw, fn);

#if defined(MISUSE_QUEUE_WORK_DELAYED)
	queue_work(wq, &dw);
#endif
#if defined(MISUSE_QUEUE_WORK_ON_DELAYED)
	queue_work_on(0, wq, &dw);
#endif
#if defined(MISUSE_SCHEDULE_WORK_DELAYED)
	schedule_work(&dw);
#endif
#if defined(MISUSE_QUEUE_DELAYED_WORK_PLAIN)
	queue_delayed_work(wq, &w, 1);
#endif
#if defined(MISUSE_QUEUE_DELAYED_WORK_ON_PLAIN)
	queue_delayed_work_on(0, wq, &w, 1);
#endif
#if defined(MISUSE_SCHEDULE_DELAYED_WORK_PLAIN)
	schedule_delayed_work(&w, 1);
#endif
#if defined(MISUSE_INIT_WORK_DELAYED)
	INIT_WORK(&dw, fn);
#endif
#if defined(MISUSE_INIT_DELAYED_WORK_PLAIN)
	INIT_DELAYED_WORK(&w, fn);
#endif
#if defined(MISUSE_WORK_PENDING_DELAYED)
	(void)work_pending(&dw);
#endif
#if defined(MISUSE_DELAYED_WORK_PENDING_PLAIN)
	(void)delayed_work_pending(&w);
#endif
#if defined(MISUSE_CANCEL_DELAYED_WORK_PLAIN)
	cancel_delayed_work(&w);
#endif
#if defined(MISUSE_CANCEL_DELAYED_WORK_SYNC_PLAIN)
	cancel_delayed_work_sync(&w);
#endif
#if defined(MISUSE_CANCEL_WORK_SYNC_DELAYED)
	cancel_work_sync(&dw);
#endif
#if defined(MISUSE_FLUSH_WORK_DELAYED)
	flush_work(&dw);
#endif
#if defined(MISUSE_FLUSH_DELAYED_WORK_PLAIN)
	flush_delayed_work(&w);
#endif
#if defined(MISUSE_MOD_DELAYED_WORK_PLAIN)
	mod_delayed_work(wq, &w, 1);
#endif
#if defined(MISUSE_RUN_SCHEDULED_WORK_DELAYED)
	run_scheduled_work(&dw);
#endif
#if defined(MISUSE_WORK_RELEASE_DELAYED)
	work_release(&dw);
#endif
#if defined(MISUSE_CANCEL_REARMING_PLAIN)
	cancel_rearming_delayed_workqueue(wq, &w);
#endif

	/* The correct calls. */
	queue_work(wq, &w);
	queue_work_on(0, wq, &w);
	queue_work(wq, &dw.work);
	queue_delayed_work(wq, &dw, 1);
	queue_delayed_work_on(0, wq, &dw, 1);
	schedule_work(&w);
	schedule_work_on(0, &w);
	schedule_delayed_work(&dw, 1);
	schedule_delayed_work_on(0, &dw, 1);
	(void)work_pending(&w);
	(void)work_pending(&dw.work);
	(void)delayed_work_pending(&dw);
	run_scheduled_work(&w);
	run_scheduled_work(&dw.work);
	cancel_delayed_work(&dw);
	cancel_delayed_work_sync(&dw);
	cancel_work_sync(&w);
	cancel_work_sync(&dw.work);
	flush_work(&w);
	flush_work(&dw.work);
	flush_delayed_work(&dw);
	mod_delayed_work(wq, &dw, 1);
	mod_delayed_work_on(0, wq, &dw, 1);
	cancel_rearming_delayed_workqueue(wq, &dw);
	cancel_rearming_delayed_work(&dw);
	flush_workqueue(wq);
	flush_scheduled_work();
	destroy_workqueue(wq);
	return 0;
}
