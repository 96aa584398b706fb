/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Delayed work when the timer thread's alarm cannot be set: a
 * timerfd_settime() that fails (a seccomp filter that denies it, say) must
 * neither lose an item silently nor leave one pending that never runs.
 *
 * The failure is injected: this binary is linked with
 * -Wl,--wrap=timerfd_settime, and the wrapper below fails with EPERM
 * while fail_settime is set.
 */
#include <sys/timerfd.h>

#include <hwsight/workqueue.h>

#include "task.h"
#include "wq-util.h"

static atomic_bool fail_settime;
static atomic_int settime_failures;

int __real_timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
			   struct itimerspec *old_value);
int __wrap_timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
			   struct itimerspec *old_value);

int __wrap_timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
			   struct itimerspec *old_value)
{
	if (atomic_load(&fail_settime)) {
		atomic_fetch_add(&settime_failures, 1);
		errno = EPERM;
		return -1;
	}
	return __real_timerfd_settime(fd, flags, new_value, old_value);
}

static struct tsem ran_a, ran_b;

static void run_a(struct work_struct *work)
{
	(void)work;
	tsem_post(&ran_a);
}

static void run_b(struct work_struct *work)
{
	(void)work;
	tsem_post(&ran_b);
}

/* A queue and an idle item, with every alarm from now on failing. */
static struct workqueue_struct *failing_queue(struct delayed_work *dw)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("alarm");

	ASSERT_NOT_NULL(wq);
	tsem_init(&ran_a);
	INIT_DELAYED_WORK(dw, run_a);
	atomic_store(&fail_settime, true);
	return wq;
}

/* The item was left idle: once the alarm works it is queued and runs. */
static void idle_then_runs(struct workqueue_struct *wq, struct delayed_work *dw)
{
	ASSERT_FALSE(delayed_work_pending(dw));
	ASSERT_GT(atomic_load(&settime_failures), 0);
	atomic_store(&fail_settime, false);
	ASSERT_EQ(queue_delayed_work(wq, dw, 1), 1);
	TSEM_WAIT(&ran_a);
	destroy_workqueue(wq);
	tsem_destroy(&ran_a);
}

/* queue_delayed_work() says it could not arm the item. */
TEST(queue_reports_a_failed_alarm)
{
	struct delayed_work dw;
	struct workqueue_struct *wq = failing_queue(&dw);

	ASSERT_EQ(queue_delayed_work(wq, &dw, 10), -EPERM);
	idle_then_runs(wq, &dw);
}

/* mod_delayed_work() cannot return an error (it returns whether the item
 * was pending): the item is left idle, for the caller to see, rather than
 * pending and never run. */
TEST(mod_leaves_the_item_idle)
{
	struct delayed_work dw;
	struct workqueue_struct *wq = failing_queue(&dw);

	ASSERT_FALSE(mod_delayed_work(wq, &dw, 10));
	idle_then_runs(wq, &dw);
}

/* Whoever sleeps on the alarm (the timer thread of a queue of several
 * workers, the worker of a queue of one) re-arms it for the next item
 * after running the first; when that fails, the next item still runs, and
 * on time. */
static void next_item_without_its_alarm(struct workqueue_struct *wq)
{
	struct delayed_work a, b;
	unsigned long queued;

	ASSERT_NOT_NULL(wq);
	tsem_init(&ran_a);
	tsem_init(&ran_b);
	INIT_DELAYED_WORK(&a, run_a);
	INIT_DELAYED_WORK(&b, run_b);
	queued = jiffies;
	ASSERT_EQ(queue_delayed_work(wq, &a, HZ / 10), 1);
	/* Later than a: the alarm stays set for a. */
	ASSERT_EQ(queue_delayed_work(wq, &b, HZ / 5), 1);
	atomic_store(&fail_settime, true);
	TSEM_WAIT(&ran_a);
	TSEM_WAIT(&ran_b);
	ASSERT_GT(atomic_load(&settime_failures), 0);
	ASSERT_TRUE(time_after_eq(jiffies, queued + HZ / 5));
	atomic_store(&fail_settime, false);
	destroy_workqueue(wq);
	tsem_destroy(&ran_a);
	tsem_destroy(&ran_b);
}

TEST(worker_runs_the_next_item_without_its_alarm)
{
	next_item_without_its_alarm(create_singlethread_workqueue("alarm"));
}

/* A queue of several workers has a timer thread (on one CPU it has one
 * worker, and this is the test above again). */
TEST(timer_thread_runs_the_next_item_without_its_alarm)
{
	next_item_without_its_alarm(create_workqueue("alarm-n"));
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
