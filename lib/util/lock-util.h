/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_LOCK_UTIL_H
#define HWS_UTIL_LOCK_UTIL_H

/*
 * The workqueue's lock and the condition it waits on, on futexes.
 *
 * glibc's mutex spends some thirty instructions on each of lock and
 * unlock, behind a call through the PLT, checking a type that never
 * changes, and its condition variables need it; the workqueue takes its
 * lock once per arm, per cancel and per item run, and most of a cancel
 * was the lock. Here an uncontended lock is one compare-and-swap and an
 * unlock one exchange, both inlined: the scheme of glibc's internal
 * lowlevellock (Drepper, "Futexes Are Tricky"). A contended one spins
 * briefly before it sleeps: the critical sections are a few list
 * operations, so a submitter meeting a worker at the lock usually gets it
 * within the spin.
 *
 * The mutex knows its holder in debug builds, so that a function
 * documented "called with wq->lock held" can say so with
 * hws__mutex_assert_held() and a build with assertions checks it. The
 * whole library must be built with one NDEBUG setting, as the structure's
 * size depends on it.
 */

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

struct hws__mutex {
	_Atomic int state; /* 0 free, 1 held, 2 held and someone may sleep on it */
#ifndef NDEBUG
	/* The holder (hws__mutex_took()), or NULL. Written by the holder
	 * only; atomic because any thread may ask whether it is the one. */
	const void *_Atomic owner;
#endif
};

#define HWS__MUTEX_INITIALIZER { .state = 0 }

/*
 * A condition variable for an hws__mutex: a sequence number to sleep on
 * and the count of sleepers, so that signalling nobody costs a load, not
 * a system call. Zeroed memory is a valid one; it needs no destroying.
 */
struct hws__mutex_cond {
	_Atomic unsigned int seq;
	_Atomic unsigned int waiters; /* changed under the mutex waited with */
};

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

/*
 * The contended halves, out of line. They touch only the futex words, so
 * that code built with and without NDEBUG may share them.
 */
void hws__mutex_lock_slow(struct hws__mutex *m);
void hws__mutex_wake(struct hws__mutex *m);
/* Sleep unless @c's seq has moved on from @seq. Return: 0 or ETIMEDOUT. */
int hws__mutex_cond_sleep(struct hws__mutex_cond *c, unsigned int seq,
			  const struct timespec *deadline);
void hws__mutex_cond_wake(struct hws__mutex_cond *c, int n);

/* Tell the CPU we spin: it saves power and yields to its hyper-thread. */
static inline void hws__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Returns 0: nothing to allocate, so it cannot fail. */
static inline int hws__mutex_init(struct hws__mutex *m)
{
	*m = (struct hws__mutex)HWS__MUTEX_INITIALIZER;
	return 0;
}

static inline void hws__mutex_lock(struct hws__mutex *m)
{
	int expected = 0;

	if (!atomic_compare_exchange_strong_explicit(&m->state, &expected, 1, memory_order_acquire,
						     memory_order_relaxed))
		hws__mutex_lock_slow(m);
	hws__mutex_took(m);
}

static inline void hws__mutex_unlock(struct hws__mutex *m)
{
	hws__mutex_releasing(m);
	if (atomic_exchange_explicit(&m->state, 0, memory_order_release) == 2)
		hws__mutex_wake(m);
}

/*
 * Wait on @c with @m, which the caller holds and holds again on return,
 * until a signal or broadcast, or the CLOCK_MONOTONIC time @deadline if it
 * is not NULL. Wake-ups may be spurious: callers wait in a loop.
 * Return: 0, or ETIMEDOUT once @deadline has passed.
 */
static inline int hws__mutex_cond_timedwait(struct hws__mutex_cond *c, struct hws__mutex *m,
					    const struct timespec *deadline)
{
	/*
	 * seq is read under the mutex and a signaller bumps it after changing
	 * the state under the mutex, so a wake-up that comes before we sleep
	 * makes the sleep return at once instead of being lost.
	 */
	unsigned int seq = atomic_load_explicit(&c->seq, memory_order_relaxed);
	int r;

	atomic_fetch_add_explicit(&c->waiters, 1, memory_order_relaxed);
	hws__mutex_unlock(m);
	r = hws__mutex_cond_sleep(c, seq, deadline);
	hws__mutex_lock(m);
	atomic_fetch_sub_explicit(&c->waiters, 1, memory_order_relaxed);
	return r;
}

static inline void hws__mutex_cond_wait(struct hws__mutex_cond *c, struct hws__mutex *m)
{
	hws__mutex_cond_timedwait(c, m, NULL);
}

/*
 * Wake one waiter, or all. The caller changed what they wait for under
 * the mutex, and either still holds it or decided to signal from what it
 * saw while holding it: a waiter counts itself in under the mutex, so a
 * count of 0 then means there is no one to wake.
 */
static inline void hws__mutex_cond_signal(struct hws__mutex_cond *c)
{
	if (atomic_load_explicit(&c->waiters, memory_order_relaxed))
		hws__mutex_cond_wake(c, 1);
}

static inline void hws__mutex_cond_broadcast(struct hws__mutex_cond *c)
{
	if (atomic_load_explicit(&c->waiters, memory_order_relaxed))
		hws__mutex_cond_wake(c, -1);
}

#endif
