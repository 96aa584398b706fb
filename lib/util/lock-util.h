/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_LOCK_UTIL_H
#define HWS_UTIL_LOCK_UTIL_H

/*
 * A mutex that knows its holder in debug builds, so that a function
 * documented "called with wq->lock held" can say so with
 * hws__mutex_assert_held() and a build with assertions checks it. With
 * NDEBUG it is a pthread_mutex_t and these wrappers are pthread's own
 * calls, inlined: the release build pays nothing for the contract.
 *
 * The whole library must be built with one NDEBUG setting, as the
 * structure's size depends on it.
 */

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

struct hws__mutex {
	pthread_mutex_t mutex;
#ifndef NDEBUG
	/* The holder (hws__mutex_took()), or NULL. Written by the holder
	 * only; atomic because any thread may ask whether it is the one. */
	const void *_Atomic owner;
#endif
};

/*
 * Adaptive: a waiter spins briefly before it sleeps. The workqueue's
 * critical sections are a few list operations, so a submitter meeting a
 * worker at the lock usually gets it within the spin instead of paying a
 * futex sleep and wake-up on each side.
 */
#define HWS__MUTEX_INITIALIZER { .mutex = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP }

#ifndef NDEBUG
void hws__mutex_took(struct hws__mutex *m);
void hws__mutex_releasing(struct hws__mutex *m);
/* Does the calling thread hold @m? */
bool hws__mutex_held(struct hws__mutex *m);
#else
static inline void hws__mutex_took(struct hws__mutex *m) { (void)m; }
static inline void hws__mutex_releasing(struct hws__mutex *m) { (void)m; }
#endif

/* assert() discards its argument under NDEBUG, so hws__mutex_held() need
 * not exist there. */
#define hws__mutex_assert_held(m) assert(hws__mutex_held(m))

/* Returns 0: the initializer cannot fail, unlike pthread_mutex_init(). */
static inline int hws__mutex_init(struct hws__mutex *m)
{
	*m = (struct hws__mutex)HWS__MUTEX_INITIALIZER;
	return 0;
}

static inline void hws__mutex_destroy(struct hws__mutex *m)
{
	pthread_mutex_destroy(&m->mutex);
}

static inline void hws__mutex_lock(struct hws__mutex *m)
{
	pthread_mutex_lock(&m->mutex);
	hws__mutex_took(m);
}

static inline void hws__mutex_unlock(struct hws__mutex *m)
{
	hws__mutex_releasing(m);
	pthread_mutex_unlock(&m->mutex);
}

/* pthread_cond_wait() on @m, which the caller holds, and holds again on
 * return. */
static inline void hws__mutex_cond_wait(pthread_cond_t *cond, struct hws__mutex *m)
{
	hws__mutex_releasing(m);
	pthread_cond_wait(cond, &m->mutex);
	hws__mutex_took(m);
}

/* The same until the CLOCK_MONOTONIC time @deadline (cond-util.h).
 * Return: 0, or ETIMEDOUT as pthread_cond_timedwait() says it. */
static inline int hws__mutex_cond_timedwait(pthread_cond_t *cond, struct hws__mutex *m,
					    const struct timespec *deadline)
{
	int r;

	hws__mutex_releasing(m);
	r = pthread_cond_timedwait(cond, &m->mutex, deadline);
	hws__mutex_took(m);
	return r;
}

#endif
