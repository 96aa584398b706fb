/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdatomic.h>

#include "lock-util.h"

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
#else
/* ISO C wants a translation unit to declare something. */
typedef int hws__lock_util_empty;
#endif
