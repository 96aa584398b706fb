/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The userspace side of the suspend freezer: freezeable queues stop
 * starting items; those already running finish first.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "list.h"
#include "workqueue-internal.h"
#include "cond-util.h"

/* The kernel's freezer gives up on tasks after 20 s as well. */
#define FREEZE_TIMEOUT_SEC 20

/*
 * Flag every freezeable queue and, when freezing, return them in
 * *ret_wqs (NULL if out of memory) for the wait that follows. Called with
 * hws__freezer_lock held, which keeps them alive.
 */
static size_t set_frozen(bool frozen, struct workqueue_struct ***ret_wqs)
{
	struct workqueue_struct **wqs = NULL;
	struct hws__list_head *p;
	size_t n = 0, cap = 0;

	hws__mutex_assert_held(&hws__freezer_lock);
	pthread_mutex_lock(&hws__workqueues_lock);
	hws__workqueues_frozen = frozen;
	for (p = hws__workqueues.next; p != &hws__workqueues; p = p->next) {
		struct workqueue_struct *wq = container_of(p, struct workqueue_struct, node);

		if (!wq->freezeable)
			continue;
		hws__mutex_lock(&wq->lock);
		wq->frozen = frozen;
		if (!frozen)
			for (int i = 0; i < wq->nr_workers; i++)
				hws__wake_worker(&wq->cwqs[i]);
		hws__mutex_unlock(&wq->lock);
		if (ret_wqs)
			cap++;
	}
	if (ret_wqs && cap) {
		wqs = calloc(cap, sizeof(*wqs));
		for (p = hws__workqueues.next; wqs && p != &hws__workqueues; p = p->next) {
			struct workqueue_struct *wq = container_of(p, struct workqueue_struct, node);

			if (wq->freezeable)
				wqs[n++] = wq;
		}
	}
	pthread_mutex_unlock(&hws__workqueues_lock);
	if (ret_wqs)
		*ret_wqs = wqs;
	return wqs ? n : cap;
}

/* Wait until no worker of @wq runs an item. Return: false on timeout. */
static bool wait_quiet(struct workqueue_struct *wq, const struct timespec *deadline)
{
	bool quiet = true;

	for (int i = 0; i < wq->nr_workers && quiet; i++) {
		struct hws__cwq *cwq = &wq->cwqs[i];

		hws__mutex_lock(&cwq->lock);
		while (cwq->running > 0)
			if (hws__mutex_cond_timedwait(&cwq->work_done, &cwq->lock, deadline) == ETIMEDOUT) {
				quiet = cwq->running == 0;
				break;
			}
		hws__mutex_unlock(&cwq->lock);
	}
	return quiet;
}

int freeze_workqueues(void)
{
	struct hws__cwq *self = hws__current_cwq();
	struct workqueue_struct **wqs;
	struct timespec deadline;
	size_t n;
	int r = 0;

	if (self && self->wq->freezeable)
		return -EDEADLK;
	deadline = hws__cond_deadline_ms(FREEZE_TIMEOUT_SEC * 1000);

	hws__mutex_lock(&hws__freezer_lock);
	if (hws__workqueues_frozen)
		goto out;
	n = set_frozen(true, &wqs);
	if (n && !wqs) {
		set_frozen(false, NULL);
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n && r == 0; i++)
		if (!wait_quiet(wqs[i], &deadline))
			r = -EBUSY;
	if (r)
		set_frozen(false, NULL);
	free(wqs);
out:
	hws__mutex_unlock(&hws__freezer_lock);
	return r;
}

void thaw_workqueues(void)
{
	hws__mutex_lock(&hws__freezer_lock);
	if (hws__workqueues_frozen)
		set_frozen(false, NULL);
	hws__mutex_unlock(&hws__freezer_lock);
}
