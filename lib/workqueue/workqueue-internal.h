/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include <hwsight/workqueue.h>

#include "lock-util.h"
#include "timer.h"

/* Bits of work_struct.data besides PENDING and NOAUTOREL. */
#define HWS_WORK_GRABBED 2 /* a cancel or mod_delayed_work owns the pending bit */
#define HWS_WORK_QUEUEING 3 /* claimed by queue_work(), not yet on a worklist */
#define HWS_WORK_FLAG_MASK 15UL
#define HWS_WORK_PENDING_BIT (1UL << WORK_STRUCT_PENDING)
#define HWS_WORK_NOAUTOREL_BIT (1UL << WORK_STRUCT_NOAUTOREL)
#define HWS_WORK_GRABBED_BIT (1UL << HWS_WORK_GRABBED)
#define HWS_WORK_QUEUEING_BIT (1UL << HWS_WORK_QUEUEING)

/*
 * One worker thread and its list: the kernel's cpu_workqueue_struct.
 * Aligned so that its address leaves the flag bits of work->data free,
 * and so that two workers' hot fields never share a cache line.
 */
struct hws__cwq {
	struct workqueue_struct *wq;
	/* The kernel's cwq->lock: this worker's list and counters, so that
	 * two workers running items never meet at a lock. Inside wq->lock. */
	struct hws__mutex lock;
	struct hws__list_head worklist;     /* L: lock */
	struct work_struct *current_work;  /* L: lock; written by this worker only */
	unsigned long completed;           /* L: lock; items finished */
	int running;                       /* L: lock; >1 while flushing from a handler */
	bool timer_kick;                   /* set by run_timers(), whose caller rings
					      and clears it with wq->lock dropped */
	struct work_struct *sync_work;     /* L: lock; run by run_scheduled_work() */
	struct hws__mutex_cond work_done;  /* with lock: a run ended */
	struct hws__mutex_cond flushed;    /* with lock: a barrier ran */
	pthread_t thread;
	int index;
	bool streaming;                    /* the last wait was rung at once: the
					      next one sleeps without spinning */
	/*
	 * The submitters' side, on its own cache line: queue_work() pushes
	 * here without wq->lock, and whoever next takes the lock to look at
	 * worklist splices these onto it first (take_incoming()). Nothing
	 * the worker reads for every item may share it: each push would take
	 * the line from the worker, and each of its reads take it back.
	 */
	_Alignas(64) struct hws__list_head *_Atomic incoming; /* newest first,
					      linked through entry.next */
	_Atomic bool idle;                 /* set by the worker before it sleeps,
					      cleared by the ring (take_idle()) */
	_Atomic uint64_t rung_ns;          /* when the last ring came (take_idle()) */
	struct hws__mutex_cond more_work;  /* rung without wq->lock, see ring_worker() */
} __attribute__((aligned(64)));

struct workqueue_struct {
	/* Read by every queue_work() and every turn of a worker, written
	 * seldom: apart from the lock a one-worker queue's worker takes at
	 * every turn, and from the round-robin counter. */
	struct hws__cwq *cwqs;
	int nr_workers;
	bool freezeable;
	bool spin;                         /* idle workers spin before they sleep */
	_Atomic bool frozen;               /* written under lock, read under a worker's */
	_Atomic bool stopping;             /* written under lock */
	int timer_fd;                      /* the timer thread's alarm */
	int wake_fd;                       /* self-timed: the worker's doorbell, else -1 */
	pthread_t timer_thread;            /* not for a self-timed queue */

	/* Round-robin for queue_work(), racy by design; written at every
	 * queueing, so away from what the workers read at every item. */
	_Alignas(64) _Atomic unsigned int next_worker;

	_Alignas(64) struct hws__mutex lock; /* the timer wheel; taken before a worker's */
	struct hws__timer_base timers;     /* L: lock */
	bool timer_has_deadline;           /* L: lock; timer_fd is armed */
	unsigned long timer_deadline;      /* L: lock; for this jiffy */

	struct hws__list_head node;         /* L: hws__workqueues_lock */
	char name[32];
};

/*
 * All workqueues, for the freezer and for finding a running item. Lock
 * order: hws__freezer_lock, hws__workqueues_lock, wq->lock, a worker's
 * cwq->lock. The freezer holds hws__freezer_lock while it waits, which
 * keeps queues from being freed under it; the list lock itself is only
 * ever held briefly.
 */
extern struct hws__mutex hws__freezer_lock;
extern pthread_mutex_t hws__workqueues_lock;
extern struct hws__list_head hws__workqueues;      /* L: hws__workqueues_lock */
extern bool hws__workqueues_frozen;               /* L: hws__workqueues_lock */

/*
 * Wake @cwq's worker to look at the queue's state, changed before the
 * call (the worker's lock must not be held). A queue of one worker is
 * self-timed: its worker sleeps in poll() on the timerfd and an
 * eventfd, so that a delayed item's expiry costs one thread wake-up, not
 * the timer thread's and then the worker's.
 */
void hws__wake_worker(struct hws__cwq *cwq);

/* The worker the calling thread is, or NULL. */
struct hws__cwq *hws__current_cwq(void);
