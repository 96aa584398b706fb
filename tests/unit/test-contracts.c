/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The concurrency contracts that debug builds check: lib/util's mutex that
 * knows its holder (behind "called with wq->lock held"), and the daemon's
 * hwsd_assert_on() and hwsd_assert_main() (daemon/contract.h). Built with
 * assertions on in every preset (tests/unit/CMakeLists.txt), so that a
 * release build tests them too: a contract that never fires when broken
 * would be a comment again.
 */

#include <hwsight/workqueue.h>

#include "contract.h"
#include "lock-util.h"
#include "task.h"

/* Run @fn(@arg) in a child process. Return: true if it died of abort()
 * (a failed assertion), false if it returned. */
static bool aborts(void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* The assertion's message is expected; keep the log clean. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		fn(arg);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void *held_elsewhere(void *arg)
{
	return (void *)(uintptr_t)hws__mutex_held(arg);
}

TEST(mutex_held_by_its_locker_only)
{
	struct hws__mutex m = HWS__MUTEX_INITIALIZER;
	pthread_t t;
	void *seen;

	ASSERT_FALSE(hws__mutex_held(&m));
	hws__mutex_lock(&m);
	ASSERT_TRUE(hws__mutex_held(&m));
	ASSERT_EQ(pthread_create(&t, NULL, held_elsewhere, &m), 0);
	ASSERT_EQ(pthread_join(t, &seen), 0);
	ASSERT_PTR_EQ(seen, NULL);
	hws__mutex_unlock(&m);
	ASSERT_FALSE(hws__mutex_held(&m));
}

struct waiter {
	struct hws__mutex m;
	struct hws__mutex_cond cond;
	bool waiting, woken, held_after;
};

static void *wait_once(void *arg)
{
	struct waiter *w = arg;

	hws__mutex_lock(&w->m);
	w->waiting = true;
	hws__mutex_cond_broadcast(&w->cond);
	while (!w->woken)
		hws__mutex_cond_wait(&w->cond, &w->m);
	w->held_after = hws__mutex_held(&w->m);
	hws__mutex_unlock(&w->m);
	return NULL;
}

/* A wait gives the mutex up, to a holder the contract then knows, and the
 * waiter holds it again when it returns. */
TEST(mutex_cond_wait_hands_it_over)
{
	struct waiter w = { .m = HWS__MUTEX_INITIALIZER };
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, wait_once, &w), 0);
	hws__mutex_lock(&w.m);
	while (!w.waiting)
		hws__mutex_cond_wait(&w.cond, &w.m);
	ASSERT_TRUE(hws__mutex_held(&w.m));
	w.woken = true;
	hws__mutex_cond_broadcast(&w.cond);
	hws__mutex_unlock(&w.m);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	ASSERT_TRUE(w.held_after);
}

static void assert_held(void *arg)
{
	hws__mutex_assert_held(arg);
}

TEST(mutex_assert_held_fires_without_the_lock)
{
	struct hws__mutex m = HWS__MUTEX_INITIALIZER;

	ASSERT_TRUE(aborts(assert_held, &m));
	hws__mutex_lock(&m);
	ASSERT_FALSE(aborts(assert_held, &m));
	hws__mutex_unlock(&m);
}

struct on_queue {
	struct work_struct work;
	struct workqueue_struct *wq, *other;
	bool main_thread;
	bool done;
};

static void on_queue_fn(struct work_struct *work)
{
	struct on_queue *q = container_of(work, struct on_queue, work);

	hwsd_assert_on(q->wq);
	hwsd_assert_on_or_main(q->wq);
	q->main_thread = hwsd_on_main_thread();
	q->done = true;
}

/* Work on its own queue keeps the contract, and is not the main thread. */
TEST(assert_on_holds_in_the_queues_work)
{
	struct on_queue q = { .wq = create_singlethread_workqueue("contract") };

	ASSERT_NOT_NULL(q.wq);
	q.main_thread = true;
	INIT_WORK(&q.work, on_queue_fn);
	ASSERT_EQ(queue_work(q.wq, &q.work), 1);
	flush_workqueue(q.wq);
	ASSERT_TRUE(q.done);
	ASSERT_FALSE(q.main_thread);
	destroy_workqueue(q.wq);
}

static void assert_on(void *arg)
{
	hwsd_assert_on((struct workqueue_struct *)arg);
}

static void assert_on_or_main(void *arg)
{
	hwsd_assert_on_or_main((struct workqueue_struct *)arg);
}

static void assert_main(void *arg)
{
	(void)arg;
	hwsd_assert_main();
}

static void *on_main_thread(void *arg)
{
	(void)arg;
	return (void *)(uintptr_t)hwsd_on_main_thread();
}

TEST(assert_on_and_main_fire_on_the_wrong_thread)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("contract");
	pthread_t t;
	void *main_there;

	ASSERT_NOT_NULL(wq);
	/* The main thread is no worker of @wq, but owns a stopped job. */
	ASSERT_TRUE(aborts(assert_on, wq));
	ASSERT_FALSE(aborts(assert_on_or_main, wq));
	ASSERT_FALSE(aborts(assert_main, NULL));
	/* Another thread is not the main one. (Asked in place: a child
	 * forked from it would be its own process's main thread.) */
	ASSERT_EQ(pthread_create(&t, NULL, on_main_thread, NULL), 0);
	ASSERT_EQ(pthread_join(t, &main_there), 0);
	ASSERT_PTR_EQ(main_there, NULL);
	destroy_workqueue(wq);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
