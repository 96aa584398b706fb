/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lock-util.h"

/*
 * How often a contended lock is tried again before its taker sleeps: about
 * what glibc's adaptive mutex spins, a few microseconds, longer than the
 * workqueue holds its lock and shorter than a futex sleep and wake-up.
 */
#define SPIN_TRIES 100

/* The word is only ever shared within the process: private futexes. */
static long futex(void *word, int op, int val, const struct timespec *timeout, int val3)
{
	return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, timeout, NULL, val3);
}

void hws__mutex_lock_slow(struct hws__mutex *m)
{
	for (int i = 0; i < SPIN_TRIES; i++) {
		int expected = 0;

		if (atomic_load_explicit(&m->state, memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_weak_explicit(&m->state, &expected, 1, memory_order_acquire,
							  memory_order_relaxed))
			return;
		hws__cpu_relax();
	}
	/* Say a sleeper may be there, so that the unlock wakes one. */
	while (atomic_exchange_explicit(&m->state, 2, memory_order_acquire) != 0)
		futex(&m->state, FUTEX_WAIT, 2, NULL, 0);
}

void hws__mutex_wake(struct hws__mutex *m)
{
	futex(&m->state, FUTEX_WAKE, 1, NULL, 0);
}

int hws__mutex_cond_sleep(struct hws__mutex_cond *c, unsigned int seq,
			  const struct timespec *deadline)
{
	/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline. */
	if (futex(&c->seq, FUTEX_WAIT_BITSET, (int)seq, deadline, FUTEX_BITSET_MATCH_ANY) < 0 &&
	    errno == ETIMEDOUT)
		return ETIMEDOUT;
	return 0;
}

void hws__mutex_cond_wake(struct hws__mutex_cond *c, int n)
{
	atomic_fetch_add_explicit(&c->seq, 1, memory_order_release);
	futex(&c->seq, FUTEX_WAKE, n < 0 ? INT_MAX : n, NULL, 0);
}

#ifndef NDEBUG
/* Its address names the calling thread; pthread_t need not be a value
 * an atomic can hold. */
static _Thread_local char self;

void hws__mutex_took(struct hws__mutex *m)
{
	assert(atomic_load_explicit(&m->owner, memory_order_relaxed) == NULL);
	atomic_store_explicit(&m->owner, &self, memory_order_relaxed);
}

void hws__mutex_releasing(struct hws__mutex *m)
{
	assert(hws__mutex_held(m));
	atomic_store_explicit(&m->owner, NULL, memory_order_relaxed);
}

/* Only this thread ever stores its own address, so a relaxed load is
 * exact for the one question asked: is it mine? */
bool hws__mutex_held(struct hws__mutex *m)
{
	return atomic_load_explicit(&m->owner, memory_order_relaxed) == &self;
}
#endif
