/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Workqueues: worker threads, their lists, and the timer thread that moves
 * expired delayed_work onto them; a queue of one worker has no timer
 * thread, its worker sleeps on the alarm itself.
 *
 * work->data holds the flag bits and, only while the item sits on a list or
 * in the timer wheel, the worker it is queued on. Keeping that pointer only
 * while queued means an item that has run never points into a queue that
 * may since have been destroyed.
 *
 * Two locks, as in the kernel: wq->lock for the timer wheel, and each
 * worker's cwq->lock for its list and counters, so that workers running
 * items never meet. An item in the wheel is changed under wq->lock, one on
 * a list under its worker's lock; moving one between them holds both,
 * wq->lock first. work_release() and the pending test are the only
 * lock-free accesses besides queue_work()'s claim.
 *
 * While data names a worker, GRABBED is clear and the item belongs to the
 * queue: only holders of the lock it sits under write data then (a claim
 * that fails writes nothing), so they clear PENDING with a plain store,
 * not a locked read-modify-write.
 *
 * queue_work() takes no lock: it claims the item with QUEUEING set and
 * pushes it on its worker's incoming stack with one compare-and-swap.
 * Every holder of cwq->lock that looks at the worklist first splices the
 * incoming items onto it, in the order they came, clearing QUEUEING
 * (take_incoming()); so under the lock an item with QUEUEING still set is
 * one whose submitter is between its claim and its push, and whose entry
 * it must not touch: a cancel waits it out, a flush finds it not yet
 * queued. The worker's sleep pairs with the push without a lock either:
 * see idle_wait().
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "list.h"
#include "workqueue-internal.h"
#include "time-util.h"

struct hws__mutex hws__freezer_lock = HWS__MUTEX_INITIALIZER;
pthread_mutex_t hws__workqueues_lock = PTHREAD_MUTEX_INITIALIZER;
struct hws__list_head hws__workqueues = { &hws__workqueues, &hws__workqueues };
bool hws__workqueues_frozen;

/* Waiters for another thread's _sync cancel of the same item (rare). */
static pthread_mutex_t cancel_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cancel_cond = PTHREAD_COND_INITIALIZER;

/* Destroying a queue drains it; an item that keeps re-queueing itself
 * immediately is dropped after this many rounds. */
#define DRAIN_ROUNDS 16

/*
 * How long a worker whose list ran dry spins before it sleeps: about what
 * a futex wake-up and the two context switches around it cost, so that
 * spinning never costs much more than sleeping would have.
 */
#define IDLE_SPIN_NS 20000

/*
 * A ring that comes this soon after the worker went idle means its
 * submitter queues faster than the worker runs: see idle_wait().
 */
#define STREAMING_NS 2000

/*
 * A streaming worker that finds fewer than GATHER_MIN items waits
 * GATHER_NS for more before it runs them: see gather().
 */
#define GATHER_MIN 16
#define GATHER_NS 1000

/*
 * Initial-exec: the library is normally linked, not dlopen()ed, and one
 * pointer fits the surplus glibc keeps for a dlopen() anyway. The default
 * model for a shared library calls __tls_get_addr() on every queueing.
 */
static _Thread_local struct hws__cwq *this_cwq __attribute__((tls_model("initial-exec")));

struct hws__cwq *hws__current_cwq(void)
{
	return this_cwq;
}

static struct hws__cwq *data_cwq(unsigned long data)
{
	return (struct hws__cwq *)(data & ~HWS_WORK_FLAG_MASK);
}

unsigned long hws__work_data(const struct work_struct *work)
{
	return atomic_load_explicit(&work->data, memory_order_acquire);
}

void hws__work_release(struct work_struct *work)
{
	atomic_fetch_and_explicit(&work->data, ~HWS_WORK_PENDING_BIT, memory_order_release);
}

void hws__init_work(struct work_struct *work, work_func_t func, bool autorelease)
{
	atomic_init(&work->data, WORK_DATA_INIT(!autorelease));
	hws__list_init(&work->entry);
	work->func = func;
}

void hws__init_delayed_work(struct delayed_work *dwork, work_func_t func, bool autorelease)
{
	hws__init_work(&dwork->work, func, autorelease);
	dwork->timer.entry.next = dwork->timer.entry.prev = NULL;
	dwork->timer.expires = 0;
}

#ifndef NDEBUG
/* Does the caller hold a lock that lets it change items of @cwq? */
static bool owns_items(struct hws__cwq *cwq)
{
	return hws__mutex_held(&cwq->lock) || hws__mutex_held(&cwq->wq->lock);
}
#endif

/*
 * Hand a grabbed item to @cwq: record it, PENDING set and GRABBED dropped
 * in the same step, since from here on the queue owns data (see above).
 * A CAS, because a _NAR handler may release the bit we took over meanwhile.
 * Called with the lock held that the item is to be placed under.
 */
static void set_wq_data(struct work_struct *work, struct hws__cwq *cwq)
{
	unsigned long old = atomic_load_explicit(&work->data, memory_order_relaxed);

	assert(owns_items(cwq));
	while (!atomic_compare_exchange_weak_explicit(
		&work->data, &old,
		(old & HWS_WORK_FLAG_MASK & ~HWS_WORK_GRABBED_BIT) | HWS_WORK_PENDING_BIT |
			(unsigned long)cwq,
		memory_order_acq_rel, memory_order_relaxed))
		;
}

/* Clear @bits of an item the queue owns, under its lock (see above). */
static void clear_owned(struct work_struct *work, unsigned long bits)
{
	unsigned long data = atomic_load_explicit(&work->data, memory_order_relaxed);

	assert(owns_items(data_cwq(data)));
	atomic_store_explicit(&work->data, data & ~bits, memory_order_release);
}

/*
 * Take PENDING and record @cwq, with the flags in @also, in one step.
 * Return: false if already pending.
 */
static bool claim(struct work_struct *work, struct hws__cwq *cwq, unsigned long also)
{
	unsigned long old = atomic_load_explicit(&work->data, memory_order_relaxed);

	do {
		if (old & HWS_WORK_PENDING_BIT)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(
		&work->data, &old,
		(old & HWS_WORK_FLAG_MASK) | HWS_WORK_PENDING_BIT | also | (unsigned long)cwq,
		memory_order_acq_rel, memory_order_relaxed));
	return true;
}

/*
 * Wake @cwq's worker; no lock need be held. Sequentially consistent with
 * the worker's count of itself among the waiters, for the reason given at
 * idle_wait().
 */
static void ring_worker(struct hws__cwq *cwq)
{
	static const uint64_t one = 1;

	if (cwq->wq->wake_fd >= 0)
		(void)!write(cwq->wq->wake_fd, &one, sizeof(one));
	else if (atomic_load_explicit(&cwq->more_work.waiters, memory_order_seq_cst))
		hws__mutex_cond_wake(&cwq->more_work, 1);
}

/*
 * Mark @cwq's worker busy; no lock need be held. Return: true if it was
 * idle, and is to be rung: the exchange gives that to one caller only.
 * Every ring is preceded by this, which is what a spinning worker watches
 * (see idle_wait()).
 */
static bool take_idle(struct hws__cwq *cwq)
{
	if (!atomic_load_explicit(&cwq->idle, memory_order_seq_cst))
		return false;
	/* Before the exchange, which hands it to the worker it wakes. */
	atomic_store_explicit(&cwq->rung_ns, hws__now_ns(), memory_order_relaxed);
	return atomic_exchange_explicit(&cwq->idle, false, memory_order_seq_cst);
}

/* Anything pushed since the last take_incoming(), for a worker about to sleep. */
static bool has_incoming(struct hws__cwq *cwq)
{
	return atomic_load_explicit(&cwq->incoming, memory_order_seq_cst) != NULL;
}

/* Push a claimed item on @cwq's incoming stack; no lock held. */
static void push_incoming(struct hws__cwq *cwq, struct work_struct *work)
{
	struct hws__list_head *first = atomic_load_explicit(&cwq->incoming, memory_order_relaxed);

	do
		work->entry.next = first;
	while (!atomic_compare_exchange_weak_explicit(&cwq->incoming, &first, &work->entry,
						      memory_order_seq_cst, memory_order_relaxed));
}

/*
 * Move what queue_work() pushed onto @cwq's worklist, oldest first, and
 * hand each item to the queue (QUEUEING cleared). Called with cwq->lock
 * held, before anything looks at or adds to the worklist, which keeps
 * items in the order they were queued. Return: how many it moved.
 */
static size_t take_incoming(struct hws__cwq *cwq)
{
	struct hws__list_head *p, *older = NULL;
	size_t n = 0;

	hws__mutex_assert_held(&cwq->lock);
	if (!atomic_load_explicit(&cwq->incoming, memory_order_relaxed))
		return 0;
	p = atomic_exchange_explicit(&cwq->incoming, NULL, memory_order_acquire);
	while (p) {
		struct hws__list_head *next = p->next;

		p->next = older;
		older = p;
		p = next;
		n++;
	}
	while (older) {
		struct hws__list_head *next = older->next;

		hws__list_add_tail(older, &cwq->worklist);
		clear_owned(container_of(older, struct work_struct, entry), HWS_WORK_QUEUEING_BIT);
		older = next;
	}
	return n;
}

/* Whether an item claimed by queue_work() has reached a worklist (see
 * take_incoming()); before that its entry is its submitter's. */
static bool in_flight(const struct work_struct *work)
{
	return hws__work_data(work) & HWS_WORK_QUEUEING_BIT;
}

/*
 * The worker looks at the queue's state and marks itself idle under its
 * lock, so taking that lock here means it either sees the change or is
 * seen idle.
 */
void hws__wake_worker(struct hws__cwq *cwq)
{
	hws__mutex_lock(&cwq->lock);
	take_idle(cwq);
	hws__mutex_unlock(&cwq->lock);
	ring_worker(cwq);
}

/*
 * Put @work on @cwq's list. Called with cwq->lock held. Return: true if
 * the caller must ring_worker() once it has dropped the lock.
 *
 * Ringing under the lock would wake a worker only to have it sleep again
 * on the lock we still hold: the hot path of queue_work() paid two
 * context switches for one. The worker is marked busy here, so that items
 * queued before it wakes share one ring; it looks at its list before it
 * sleeps again, so none is missed.
 */
static bool list_work(struct hws__cwq *cwq, struct work_struct *work, struct hws__list_head *at)
{
	take_incoming(cwq);
	hws__list_add_tail(&work->entry, at);
	return take_idle(cwq);
}

/* list_work() for callers that keep the lock for long: ring now. */
static void insert_work(struct hws__cwq *cwq, struct work_struct *work, struct hws__list_head *at)
{
	if (list_work(cwq, work, at))
		ring_worker(cwq);
}

/* No lock needed: two submitters at once may take the same turn, which
 * costs balance for an instant, where an atomic add would cost every
 * queueing a locked instruction. */
static struct hws__cwq *pick_cwq(struct workqueue_struct *wq, int cpu)
{
	struct hws__cwq *self = this_cwq;
	unsigned idx;

	/* A division costs more than the rest of queue_work(): only wrap. */
	if (cpu >= 0)
		return &wq->cwqs[cpu < wq->nr_workers ? cpu : cpu % wq->nr_workers];
	/* A handler re-queueing keeps to its own worker, as on one CPU. */
	if (self && self->wq == wq)
		return self;
	/*
	 * The kernel used the submitting CPU; our workers are not pinned to
	 * CPUs, so taking turns is what keeps them all busy. One worker has
	 * no turns to take, and its counter's line is left alone.
	 */
	if (wq->nr_workers == 1)
		return wq->cwqs;
	idx = atomic_load_explicit(&wq->next_worker, memory_order_relaxed);
	atomic_store_explicit(&wq->next_worker, idx + 1 >= (unsigned)wq->nr_workers ? 0 : idx + 1,
			      memory_order_relaxed);
	return &wq->cwqs[idx];
}

/*
 * Set the queue's alarm to the start of jiffy @expires. Its timer thread
 * sleeps in read() on the timerfd (a self-timed worker in poll()), and
 * moving the alarm wakes neither: a handler that re-arms itself costs one
 * system call, not a context switch. Called with wq->lock held.
 *
 * When timerfd_settime() fails (a seccomp filter may deny it), the queue
 * no longer knows when the alarm rings: the next item armed tries again.
 * Return: 0 or -errno.
 */
static int set_alarm(struct workqueue_struct *wq, unsigned long expires)
{
	unsigned long long ns = hws_jiffies_to_monotonic_ns(expires);
	struct itimerspec its = { .it_value = hws__timespec_from_ns(ns) };

	hws__mutex_assert_held(&wq->lock);
	/* A zero it_value would disarm it; a time in the past fires now. */
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	if (timerfd_settime(wq->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		wq->timer_has_deadline = false;
		return -errno;
	}
	wq->timer_has_deadline = true;
	wq->timer_deadline = expires;
	return 0;
}

/*
 * Arm @dwork on @cwq. Called with wq->lock held and PENDING owned.
 * Return: 0, or -errno with @dwork out of the wheel again: an item whose
 * alarm cannot be set would never run.
 */
static int arm_timer(struct workqueue_struct *wq, struct delayed_work *dwork, unsigned long delay)
{
	int r = 0;

	hws__mutex_assert_held(&wq->lock);
	dwork->timer.expires = jiffies + delay;
	hws__timer_add(&wq->timers, &dwork->timer);
	if (!wq->timer_has_deadline || time_before(dwork->timer.expires, wq->timer_deadline))
		r = set_alarm(wq, dwork->timer.expires);
	if (r < 0)
		hws__timer_del(&wq->timers, &dwork->timer);
	return r;
}

/* queue_work(): no lock, see the top of the file. */
static int queue_now(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	struct hws__cwq *cwq = pick_cwq(wq, cpu);

	/* A queue being destroyed takes nothing new. */
	if (wq->stopping || !claim(work, cwq, HWS_WORK_QUEUEING_BIT))
		return 0;
	push_incoming(cwq, work);
	if (take_idle(cwq))
		ring_worker(cwq);
	return 1;
}

/* Only a delayed_work is ever given a delay. */
static int queue_on(int cpu, struct workqueue_struct *wq, struct work_struct *work,
		    unsigned long delay)
{
	struct hws__cwq *cwq;
	int r = 0;

	if (!wq || (hws__work_data(work) & HWS_WORK_PENDING_BIT))
		return 0;
	if (delay == 0)
		return queue_now(cpu, wq, work);
	hws__mutex_lock(&wq->lock);
	cwq = pick_cwq(wq, cpu);
	/* A queue being destroyed takes nothing new. */
	if (!wq->stopping && claim(work, cwq, 0)) {
		r = arm_timer(wq, container_of(work, struct delayed_work, work), delay);
		/* Not armed: idle again, neither pending nor naming a worker. */
		if (r < 0)
			clear_owned(work, ~HWS_WORK_FLAG_MASK | HWS_WORK_PENDING_BIT);
		else
			r = 1;
	}
	hws__mutex_unlock(&wq->lock);
	return r;
}

int hws__queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	return queue_on(cpu, wq, work, 0);
}

int hws__queue_delayed_work_on(int cpu, struct workqueue_struct *wq,
			       struct delayed_work *dwork, unsigned long delay)
{
	return queue_on(cpu, wq, &dwork->work, delay);
}

/*
 * Take @work off its list to run it: it no longer names a worker, and
 * unless it is _NAR it is no longer pending. Called with cwq->lock held.
 * Return: its handler.
 */
static work_func_t dequeue_to_run(struct work_struct *work)
{
	unsigned long clear = ~HWS_WORK_FLAG_MASK;

	hws__list_del_init(&work->entry);
	if (!(hws__work_data(work) & HWS_WORK_NOAUTOREL_BIT))
		clear |= HWS_WORK_PENDING_BIT;
	clear_owned(work, clear);
	return work->func;
}

static void barrier_func(struct work_struct *work);

/*
 * A run of @func on @cwq has ended: wake cancellers and, if it was a
 * barrier, flushers. cwq->lock held. A flusher waits for its barrier only:
 * woken by every item before it, it would fight the worker for the lock
 * once per item of a long list.
 */
static void run_done(struct hws__cwq *cwq, work_func_t func)
{
	hws__mutex_assert_held(&cwq->lock);
	cwq->completed++;
	hws__mutex_cond_broadcast(&cwq->work_done);
	if (func == barrier_func)
		hws__mutex_cond_broadcast(&cwq->flushed);
}

/*
 * Run the first item of @cwq's list in the calling thread. Called with
 * cwq->lock held; drops it around the handler. The pending bit is cleared
 * before the handler runs so that it may re-queue or free its item; after
 * the handler returns the item is never touched again.
 */
static void run_one(struct hws__cwq *cwq)
{
	struct work_struct *work = container_of(cwq->worklist.next, struct work_struct, entry);
	struct work_struct *outer = cwq->current_work;
	work_func_t func;

	hws__mutex_assert_held(&cwq->lock);
	func = dequeue_to_run(work);
	cwq->current_work = work;
	cwq->running++;
	hws__mutex_unlock(&cwq->lock);

	func(work);

	hws__mutex_lock(&cwq->lock);
	cwq->running--;
	cwq->current_work = outer;
	run_done(cwq, func);
}

static void run_timers(struct workqueue_struct *wq);
static int next_alarm(struct workqueue_struct *wq);

/*
 * While a self-timed queue's worker runs an item, items that expire wait
 * in the wheel. Whoever asks where an item is (a cancel, a flush) first
 * moves them to the list, where the kernel's timer softirq would have put
 * them when they expired. Called with wq->lock held.
 */
static void collect_expired(struct workqueue_struct *wq)
{
	hws__mutex_assert_held(&wq->lock);
	if (wq->wake_fd < 0)
		return;
	run_timers(wq);
	if (wq->cwqs[0].timer_kick) {
		wq->cwqs[0].timer_kick = false;
		hws__wake_worker(&wq->cwqs[0]);
	}
}

/*
 * The expired items of a self-timed queue onto its list, by its worker,
 * and for a worker about to sleep (@ret_timeout) the alarm set to the next
 * expiry (see next_alarm()). Called with cwq->lock held, which it drops
 * meanwhile: wq->lock comes first.
 */
static void self_timed_expire(struct hws__cwq *cwq, int *ret_timeout)
{
	struct workqueue_struct *wq = cwq->wq;

	hws__mutex_unlock(&cwq->lock);
	hws__mutex_lock(&wq->lock);
	run_timers(wq);
	if (ret_timeout)
		*ret_timeout = next_alarm(wq);
	hws__mutex_unlock(&wq->lock);
	hws__mutex_lock(&cwq->lock);
}

/*
 * Sleep until the doorbell or the alarm rings. Called with cwq->lock held
 * and the worklist empty; drops the lock meanwhile.
 */
static void self_timed_sleep(struct hws__cwq *cwq)
{
	struct workqueue_struct *wq = cwq->wq;
	struct pollfd pfd[2] = { { .fd = wq->wake_fd, .events = POLLIN },
				 { .fd = wq->timer_fd, .events = POLLIN } };
	uint64_t count;
	int timeout;

	self_timed_expire(cwq, &timeout);
	/* Items listed, a stop or a thaw while the lock was down. */
	take_incoming(cwq);
	if (wq->stopping || (!wq->frozen && !hws__list_empty(&cwq->worklist)))
		return;
	/* The eventfd keeps a ring that comes before poll(): see idle_wait(). */
	atomic_store_explicit(&cwq->idle, true, memory_order_seq_cst);
	hws__mutex_unlock(&cwq->lock);
	if (!has_incoming(cwq) && poll(pfd, 2, timeout) > 0) {
		/* Both are non-blocking: an empty one answers EAGAIN. */
		if (pfd[0].revents)
			(void)!read(wq->wake_fd, &count, sizeof(count));
		if (pfd[1].revents)
			(void)!read(wq->timer_fd, &count, sizeof(count));
	}
	hws__mutex_lock(&cwq->lock);
	atomic_store_explicit(&cwq->idle, false, memory_order_relaxed);
}

/* Spin until @cwq is rung or IDLE_SPIN_NS have passed. */
static void spin_while_idle(struct hws__cwq *cwq)
{
	uint64_t end = hws__now_ns() + IDLE_SPIN_NS;

	do {
		/* The clock costs more than a look at the flag. */
		for (int i = 0; i < 32; i++) {
			if (!atomic_load_explicit(&cwq->idle, memory_order_relaxed))
				return;
			hws__cpu_relax();
		}
	} while (hws__now_ns() < end);
}

/* Sleep until a ring clears @cwq's idle flag. No lock held. */
static void sleep_while_idle(struct hws__cwq *cwq)
{
	struct hws__mutex_cond *c = &cwq->more_work;

	atomic_fetch_add_explicit(&c->waiters, 1, memory_order_seq_cst);
	for (;;) {
		unsigned int seq = atomic_load_explicit(&c->seq, memory_order_seq_cst);

		if (!atomic_load_explicit(&cwq->idle, memory_order_seq_cst))
			break;
		hws__mutex_cond_sleep(c, seq, NULL);
	}
	atomic_fetch_sub_explicit(&c->waiters, 1, memory_order_relaxed);
}

/*
 * Wait for a ring. Called with cwq->lock held and the worklist empty (or
 * the queue frozen), having looked at the queue's state under it; drops
 * the lock meanwhile. A submitter pushes, then looks at idle; the worker
 * sets idle, then looks at the stack; all four sequentially consistent,
 * so at least one of them sees the other and no item sleeps unseen. The
 * same holds for the worker counting itself among the waiters before it
 * reads the sequence and idle, against the ring clearing idle before it
 * reads the count.
 *
 * With more than one CPU the worker first spins a little: an item that
 * comes while it spins, as when each item is queued once the one before
 * has run, then costs neither its submitter a futex wake-up nor its
 * worker two context switches. But when the ring comes at once, the
 * submitter is queueing faster than the worker runs, and spinning would
 * take its items a few at a time, each time taking the stack's cache line
 * from the submitter; the next wait then sleeps instead, and the items
 * queued while the worker wakes up are run as one batch.
 */
static void idle_wait(struct hws__cwq *cwq)
{
	struct workqueue_struct *wq = cwq->wq;
	uint64_t idle_ns = hws__now_ns();

	atomic_store_explicit(&cwq->idle, true, memory_order_seq_cst);
	hws__mutex_unlock(&cwq->lock);
	if (!has_incoming(cwq)) {
		if (wq->spin && !cwq->streaming)
			spin_while_idle(cwq);
		sleep_while_idle(cwq);
		/* Pairs with the exchange in take_idle(): its rung_ns, or a later one. */
		atomic_thread_fence(memory_order_acquire);
		cwq->streaming = atomic_load_explicit(&cwq->rung_ns, memory_order_relaxed) - idle_ns < STREAMING_NS;
	}
	/* Cleared here too when woken by the stack: a ring then finds none. */
	atomic_store_explicit(&cwq->idle, false, memory_order_relaxed);
	hws__mutex_lock(&cwq->lock);
}

/*
 * Called with cwq->lock held, by a streaming worker that found only a
 * few items: it keeps pace with its submitter, and taking them a few at a
 * time takes the stack's cache line from the submitter at each take,
 * which slows the submitter down until the worker always keeps pace. A
 * microsecond lets a batch pile up instead; the wait touches nothing the
 * submitter writes.
 */
static void gather(struct hws__cwq *cwq)
{
	uint64_t end;

	hws__mutex_unlock(&cwq->lock);
	end = hws__now_ns() + GATHER_NS;
	while (hws__now_ns() < end)
		hws__cpu_relax();
	hws__mutex_lock(&cwq->lock);
	take_incoming(cwq);
}

/*
 * The worker holds its own lock but around a handler and a sleep. A stop,
 * a freeze or a thaw is written first and then the worker woken under its
 * lock (hws__wake_worker()), so the look at them at the top of the loop
 * and the idle mark in idle_wait(), in one hold of the lock, miss none.
 */
static void *worker_main(void *arg)
{
	struct hws__cwq *cwq = arg;
	struct workqueue_struct *wq = cwq->wq;
	struct sched_param param;
	int policy;

	this_cwq = cwq;
	/*
	 * Work is deferred: woken, a worker should not preempt the thread
	 * that queued it, as it would on the CPU they share when there are
	 * more threads than CPUs, and then sleep again after the few items
	 * queued so far (two context switches for each). SCHED_BATCH runs
	 * it as soon as a CPU is free, without that preemption; a real-time
	 * policy or SCHED_IDLE inherited from the creator is kept.
	 */
	if (pthread_getschedparam(pthread_self(), &policy, &param) == 0 && policy == SCHED_OTHER)
		(void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
	hws__mutex_lock(&cwq->lock);
	for (;;) {
		if (wq->stopping)
			break;
		/* A busy self-timed worker runs its timers between items; one
		 * about to sleep does in self_timed_sleep(), which needs the
		 * next alarm too: not twice on its way there. */
		if (wq->wake_fd >= 0 && !wq->frozen && !hws__list_empty(&cwq->worklist))
			self_timed_expire(cwq, NULL);
		/*
		 * Only when dry, for whatever is older is on the list already;
		 * and when frozen, or new items would keep idle_wait() from
		 * sleeping.
		 */
		if (wq->frozen || hws__list_empty(&cwq->worklist)) {
			size_t n = take_incoming(cwq);

			if (n && n < GATHER_MIN && cwq->streaming && !wq->frozen)
				gather(cwq);
		}
		if (!wq->frozen && !hws__list_empty(&cwq->worklist)) {
			run_one(cwq);
			continue;
		}
		if (wq->wake_fd >= 0) {
			self_timed_sleep(cwq);
			continue;
		}
		idle_wait(cwq);
	}
	hws__mutex_unlock(&cwq->lock);
	return NULL;
}

/*
 * Hand every expired delayed item to its worker. Called with wq->lock
 * held; idle workers are marked to be woken once it is released, so that
 * a woken worker does not run into the lock and sleep a second time.
 */
static void run_timers(struct workqueue_struct *wq)
{
	struct hws__list_head expired;

	hws__mutex_assert_held(&wq->lock);
	hws__list_init(&expired);
	hws__timer_collect(&wq->timers, jiffies, &expired);
	while (!hws__list_empty(&expired)) {
		struct timer_list *t = container_of(expired.next, struct timer_list, entry);
		struct delayed_work *dwork = container_of(t, struct delayed_work, timer);
		struct hws__cwq *cwq = data_cwq(hws__work_data(&dwork->work));

		hws__list_unlink(&t->entry);
		t->entry.next = t->entry.prev = NULL;
		hws__mutex_lock(&cwq->lock);
		cwq->timer_kick = list_work(cwq, &dwork->work, &cwq->worklist) || cwq->timer_kick;
		hws__mutex_unlock(&cwq->lock);
	}
}

/* Milliseconds from now to the start of jiffy @expires, rounded up, for
 * poll(). */
static int ms_until(unsigned long expires)
{
	long long ms;

	ms = ((long long)hws_jiffies_to_monotonic_ns(expires) - (long long)hws__now_ns() + 999999) /
	     1000000;
	return ms < 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

/*
 * Set the alarm to the wheel's next expiry, or disarm it. Called with
 * wq->lock held. Return: -1, or, when the alarm cannot be set, the
 * milliseconds to sleep in poll() instead: still woken early by an alarm
 * another thread manages to set.
 */
static int next_alarm(struct workqueue_struct *wq)
{
	static const struct itimerspec disarm;
	unsigned long next;

	hws__mutex_assert_held(&wq->lock);
	if (hws__timer_next(&wq->timers, &next))
		return set_alarm(wq, next) < 0 ? ms_until(next) : -1;
	timerfd_settime(wq->timer_fd, 0, &disarm, NULL);
	wq->timer_has_deadline = false;
	return -1;
}

/*
 * The timer thread sleeps until the wheel's next expiry, not on a tick:
 * a process whose timers are all far away does not wake up until then,
 * and one whose timers all expire together wakes once for all of them.
 */
static void *timer_main(void *arg)
{
	struct workqueue_struct *wq = arg;

	hws__mutex_lock(&wq->lock);
	while (!wq->stopping) {
		struct pollfd pfd = { .fd = wq->timer_fd, .events = POLLIN };
		uint64_t expirations;
		int timeout;

		run_timers(wq);
		timeout = next_alarm(wq);
		hws__mutex_unlock(&wq->lock);
		for (int i = 0; i < wq->nr_workers; i++)
			if (wq->cwqs[i].timer_kick) {
				wq->cwqs[i].timer_kick = false;
				ring_worker(&wq->cwqs[i]);
			}
		/* EINTR, or EAGAIN after a re-arm in between: look again. */
		if (timeout < 0 || poll(&pfd, 1, timeout) > 0)
			(void)!read(wq->timer_fd, &expirations, sizeof(expirations));
		hws__mutex_lock(&wq->lock);
	}
	hws__mutex_unlock(&wq->lock);
	return NULL;
}

static int start_thread(pthread_t *thread, void *(*fn)(void *), void *arg, const char *name,
			const char *suffix)
{
	char comm[16];
	int r;

	r = pthread_create(thread, NULL, fn, arg);
	if (r)
		return -r;
	snprintf(comm, sizeof(comm), "%s/%s", name, suffix);
	pthread_setname_np(*thread, comm);
	return 0;
}

static void stop_threads(struct workqueue_struct *wq, int nr_workers, bool timer_started)
{
	hws__mutex_lock(&wq->lock);
	wq->stopping = true;
	set_alarm(wq, jiffies);
	hws__mutex_unlock(&wq->lock);
	for (int i = 0; i < nr_workers; i++)
		hws__wake_worker(&wq->cwqs[i]);
	for (int i = 0; i < nr_workers; i++)
		pthread_join(wq->cwqs[i].thread, NULL);
	if (timer_started)
		pthread_join(wq->timer_thread, NULL);
}

static void free_workqueue(struct workqueue_struct *wq)
{
	close(wq->timer_fd);
	if (wq->wake_fd >= 0)
		close(wq->wake_fd);
	free(wq->cwqs);
	free(wq);
}

struct workqueue_struct *hws__create_workqueue(const char *name, bool singlethread, bool freezeable)
{
	struct workqueue_struct *wq;
	sigset_t all, old;
	int started = 0, r = 0;
	bool timer_started = false;
	long nr_cpus;

	if (!name)
		return NULL;
	/* Its fields are laid out on cache lines (workqueue-internal.h),
	 * which calloc() does not align to. */
	wq = aligned_alloc(_Alignof(struct workqueue_struct), sizeof(*wq));
	if (!wq)
		return NULL;
	memset(wq, 0, sizeof(*wq));
	snprintf(wq->name, sizeof(wq->name), "%s", name);
	wq->freezeable = freezeable;
	wq->nr_workers = 1;
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!singlethread)
		wq->nr_workers = nr_cpus > 0 ? (int)nr_cpus : 1;
	/* On one CPU a spinning worker only holds off its submitter. */
	wq->spin = nr_cpus > 1;
	hws__list_init(&wq->node);
	hws__timer_base_init(&wq->timers, jiffies);
	wq->cwqs = aligned_alloc(_Alignof(struct hws__cwq), sizeof(*wq->cwqs) * (size_t)wq->nr_workers);
	/* One worker sleeps on its alarm itself (see hws__wake_worker()). */
	wq->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | (wq->nr_workers == 1 ? TFD_NONBLOCK : 0));
	wq->wake_fd = wq->nr_workers == 1 ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1;
	if (!wq->cwqs || wq->timer_fd < 0 || (wq->nr_workers == 1 && wq->wake_fd < 0) ||
	    hws__mutex_init(&wq->lock) < 0) {
		if (wq->timer_fd >= 0)
			close(wq->timer_fd);
		if (wq->wake_fd >= 0)
			close(wq->wake_fd);
		free(wq->cwqs);
		free(wq);
		return NULL;
	}
	for (int i = 0; i < wq->nr_workers; i++) {
		struct hws__cwq *cwq = &wq->cwqs[i];

		/* Zeroed conditions are ready to use. */
		*cwq = (struct hws__cwq){ .wq = wq, .index = i };
		hws__mutex_init(&cwq->lock);
		hws__list_init(&cwq->worklist);
	}

	/* Join the freezer's list first, so a queue born frozen starts frozen. */
	pthread_mutex_lock(&hws__workqueues_lock);
	wq->frozen = freezeable && hws__workqueues_frozen;
	hws__list_add_tail(&wq->node, &hws__workqueues);
	pthread_mutex_unlock(&hws__workqueues_lock);

	/* Workers inherit a full signal mask: signals are the program's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (; started < wq->nr_workers && r == 0; started++) {
		char idx[12];

		snprintf(idx, sizeof(idx), "%d", started);
		r = start_thread(&wq->cwqs[started].thread, worker_main, &wq->cwqs[started], name, idx);
		if (r)
			break;
	}
	if (r == 0 && wq->wake_fd < 0) {
		r = start_thread(&wq->timer_thread, timer_main, wq, name, "timer");
		timer_started = r == 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		stop_threads(wq, started, timer_started);
		pthread_mutex_lock(&hws__workqueues_lock);
		hws__list_unlink(&wq->node);
		pthread_mutex_unlock(&hws__workqueues_lock);
		free_workqueue(wq);
		return NULL;
	}
	return wq;
}

int hws_workqueue_nr_workers(const struct workqueue_struct *wq)
{
	return wq ? wq->nr_workers : -EINVAL;
}

/* Only a worker writes its own current_work, so it reads it unlocked. */
struct work_struct *current_work(void)
{
	return this_cwq ? this_cwq->current_work : NULL;
}

struct workqueue_struct *hws_workqueue_current(void)
{
	return this_cwq ? this_cwq->wq : NULL;
}

/* A barrier item: the flusher waits until it has run. */
struct wq_barrier {
	struct work_struct work;
	_Atomic bool done;
};

static void barrier_func(struct work_struct *work)
{
	struct wq_barrier *b = container_of(work, struct wq_barrier, work);

	/* The worker broadcasts flushed under the lock right after this. */
	atomic_store_explicit(&b->done, true, memory_order_release);
}

/* Called with cwq->lock held. */
static void insert_barrier(struct hws__cwq *cwq, struct wq_barrier *b, struct hws__list_head *at)
{
	hws__mutex_assert_held(&cwq->lock);
	hws__init_work(&b->work, barrier_func, true);
	atomic_init(&b->done, false);
	atomic_store(&b->work.data, HWS_WORK_PENDING_BIT | (unsigned long)cwq);
	insert_work(cwq, &b->work, at);
}

/* Called with cwq->lock held. */
static void wait_barrier(struct hws__cwq *cwq, struct wq_barrier *b)
{
	hws__mutex_assert_held(&cwq->lock);
	while (!atomic_load_explicit(&b->done, memory_order_acquire))
		hws__mutex_cond_wait(&cwq->flushed, &cwq->lock);
}

void flush_workqueue(struct workqueue_struct *wq)
{
	struct wq_barrier *barriers;
	struct hws__cwq *self = this_cwq;

	if (!wq)
		return;
	barriers = calloc((size_t)wq->nr_workers, sizeof(*barriers));
	hws__mutex_lock(&wq->lock);
	collect_expired(wq);
	hws__mutex_unlock(&wq->lock);
	for (int i = 0; i < wq->nr_workers; i++) {
		struct hws__cwq *cwq = &wq->cwqs[i];

		hws__mutex_lock(&cwq->lock);
		take_incoming(cwq);
		if (cwq == self) {
			/*
			 * Flushing from our own handler: waiting for our own
			 * worker would never end, so run its list here, as
			 * 2.6.20's run_workqueue() recursion did.
			 */
			while (take_incoming(cwq), !hws__list_empty(&cwq->worklist))
				run_one(cwq);
		} else if (hws__list_empty(&cwq->worklist) && !cwq->running) {
			/*
			 * Nothing queued there and nothing running: no barrier,
			 * which would only wake an idle worker to run it.
			 */
		} else if (barriers) {
			insert_barrier(cwq, &barriers[i], &cwq->worklist);
		} else {
			/* No memory for barriers: wait for the list to drain. */
			unsigned long target = cwq->completed;

			for (struct hws__list_head *p = cwq->worklist.next; p != &cwq->worklist; p = p->next)
				target++;
			target += cwq->running ? 1 : 0;
			while ((long)(cwq->completed - target) < 0)
				hws__mutex_cond_wait(&cwq->work_done, &cwq->lock);
		}
		hws__mutex_unlock(&cwq->lock);
	}
	for (int i = 0; barriers && i < wq->nr_workers; i++)
		if (barriers[i].work.func) {
			hws__mutex_lock(&wq->cwqs[i].lock);
			wait_barrier(&wq->cwqs[i], &barriers[i]);
			hws__mutex_unlock(&wq->cwqs[i].lock);
		}
	free(barriers);
}

static pthread_once_t keventd_once = PTHREAD_ONCE_INIT;
static struct workqueue_struct *keventd;

static void create_keventd(void)
{
	keventd = create_workqueue("events");
}

struct workqueue_struct *hws__keventd_wq(void)
{
	pthread_once(&keventd_once, create_keventd);
	return keventd;
}

void flush_scheduled_work(void)
{
	flush_workqueue(hws__keventd_wq());
}

static bool runs_on(const struct hws__cwq *cwq, const struct work_struct *work)
{
	return cwq != this_cwq && (cwq->current_work == work || cwq->sync_work == work);
}

/*
 * Wait until the runs of @work that are under way end. With @all, search
 * again after each wait: an item may run on two workers at once (re-queued
 * elsewhere while it ran), and a caller that owns PENDING knows no new run
 * can start. Without it, wait for one run only, so that an item that keeps
 * re-queueing itself cannot hold the caller forever.
 * Return: true if it waited.
 */
static bool wait_on_work(struct work_struct *work, bool all)
{
	bool waited = false;

	for (;;) {
		struct hws__cwq *found = NULL;
		struct hws__list_head *p;

		pthread_mutex_lock(&hws__workqueues_lock);
		for (p = hws__workqueues.next; p != &hws__workqueues && !found; p = p->next) {
			struct workqueue_struct *wq = container_of(p, struct workqueue_struct, node);

			for (int i = 0; i < wq->nr_workers && !found; i++) {
				hws__mutex_lock(&wq->cwqs[i].lock);
				if (runs_on(&wq->cwqs[i], work))
					found = &wq->cwqs[i];
				else
					hws__mutex_unlock(&wq->cwqs[i].lock);
			}
		}
		pthread_mutex_unlock(&hws__workqueues_lock);
		if (!found)
			return waited;
		/* Wait for this run to end, even if the worker starts another. */
		unsigned long seen = found->completed;
		while (runs_on(found, work) && found->completed == seen)
			hws__mutex_cond_wait(&found->work_done, &found->lock);
		hws__mutex_unlock(&found->lock);
		waited = true;
		if (!all)
			return waited;
	}
}

/*
 * Take an item's pending bit away from wherever it is (off a worker's list
 * or out of the timer wheel) and mark it GRABBED in the same step, so that
 * no other canceller or mod_delayed_work() can also believe it owns it.
 * Return: 1 if it was pending, 0 if it was idle (PENDING now set), -EBUSY
 * if another thread holds it grabbed.
 */
static int grab_pending(struct work_struct *work)
{
	for (;;) {
		unsigned long data = hws__work_data(work);
		struct hws__cwq *cwq = data_cwq(data);
		unsigned long flags = data & HWS_WORK_FLAG_MASK;

		if (data & HWS_WORK_GRABBED_BIT)
			return -EBUSY;
		if (cwq) {
			struct workqueue_struct *wq = cwq->wq;
			bool grabbed = false;

			/* On the list or in the wheel: both locks. */
			hws__mutex_lock(&wq->lock);
			collect_expired(wq);
			hws__mutex_lock(&cwq->lock);
			take_incoming(cwq);
			data = hws__work_data(work);
			if (data & HWS_WORK_QUEUEING_BIT) {
				/* Its submitter is about to push it: wait that out. */
				hws__mutex_unlock(&cwq->lock);
				hws__mutex_unlock(&wq->lock);
				sched_yield();
				continue;
			}
			if (data_cwq(data) == cwq && !(data & HWS_WORK_GRABBED_BIT)) {
				/* Queued and on no list: it is a delayed item's timer,
				 * even when the caller passed just its work_struct. */
				if (!hws__list_empty(&work->entry))
					hws__list_del_init(&work->entry);
				else
					hws__timer_del(&wq->timers,
						       &container_of(work, struct delayed_work, work)->timer);
				atomic_store(&work->data, (data & HWS_WORK_FLAG_MASK) | HWS_WORK_GRABBED_BIT);
				grabbed = true;
			}
			hws__mutex_unlock(&cwq->lock);
			hws__mutex_unlock(&wq->lock);
			if (grabbed)
				return 1;
			continue;
		}
		if (!(data & HWS_WORK_PENDING_BIT)) {
			if (atomic_compare_exchange_weak(&work->data, &data,
							 flags | HWS_WORK_PENDING_BIT | HWS_WORK_GRABBED_BIT))
				return 0;
			continue;
		}
		/*
		 * Pending on no queue and not grabbed: either a _NAR item that
		 * ran and was not released yet, whose bit we take over, or a
		 * queueing caller between its two steps, which we wait out.
		 */
		if ((data & HWS_WORK_NOAUTOREL_BIT) &&
		    atomic_compare_exchange_weak(&work->data, &data, flags | HWS_WORK_GRABBED_BIT))
			return 1;
		sched_yield();
	}
}

/*
 * Wake wait_ungrabbed() callers once GRABBED is clear. A waiter tests the
 * bit under cancel_lock, so clearing it without the lock loses no wake-up.
 */
static void wake_ungrab_waiters(void)
{
	pthread_mutex_lock(&cancel_lock);
	pthread_cond_broadcast(&cancel_cond);
	pthread_mutex_unlock(&cancel_lock);
}

/* Drop GRABBED (and with it PENDING, unless re-queued) and wake waiters. */
static void ungrab(struct work_struct *work, unsigned long also_clear)
{
	atomic_fetch_and(&work->data, ~(HWS_WORK_GRABBED_BIT | also_clear));
	wake_ungrab_waiters();
}

static void wait_ungrabbed(struct work_struct *work)
{
	pthread_mutex_lock(&cancel_lock);
	while (hws__work_data(work) & HWS_WORK_GRABBED_BIT)
		pthread_cond_wait(&cancel_cond, &cancel_lock);
	pthread_mutex_unlock(&cancel_lock);
}

static bool cancel_sync(struct work_struct *work)
{
	int ret;

	while ((ret = grab_pending(work)) == -EBUSY)
		wait_ungrabbed(work);
	wait_on_work(work, true);
	ungrab(work, HWS_WORK_PENDING_BIT);
	return ret == 1;
}

bool hws__cancel_work_sync(struct work_struct *work)
{
	return cancel_sync(work);
}

bool hws__cancel_delayed_work_sync(struct delayed_work *dwork)
{
	return cancel_sync(&dwork->work);
}

void hws__cancel_rearming_delayed_workqueue(struct workqueue_struct *wq, struct delayed_work *dwork)
{
	cancel_sync(&dwork->work);
}

int hws__cancel_delayed_work(struct delayed_work *dwork)
{
	struct hws__cwq *cwq = data_cwq(hws__work_data(&dwork->work));
	int ret = 0;

	if (!cwq)
		return 0;
	hws__mutex_lock(&cwq->wq->lock);
	collect_expired(cwq->wq);
	if (data_cwq(hws__work_data(&dwork->work)) == cwq &&
	    hws__timer_del(&cwq->wq->timers, &dwork->timer)) {
		clear_owned(&dwork->work, ~HWS_WORK_FLAG_MASK | HWS_WORK_PENDING_BIT);
		ret = 1;
	}
	hws__mutex_unlock(&cwq->wq->lock);
	return ret;
}

bool hws__mod_delayed_work_on(int cpu, struct workqueue_struct *wq,
			      struct delayed_work *dwork, unsigned long delay)
{
	struct hws__cwq *cwq;
	struct hws__mutex *lock;
	int placed = -ESHUTDOWN;
	bool handed = false;
	int ret;

	if (!wq)
		return false;
	ret = grab_pending(&dwork->work);
	/* A cancel or another mod holds it: theirs wins, report it pending. */
	if (ret == -EBUSY)
		return true;
	cwq = pick_cwq(wq, cpu);
	/* Onto the list under the worker's lock, into the wheel under the queue's. */
	lock = delay ? &wq->lock : &cwq->lock;
	hws__mutex_lock(lock);
	if (!wq->stopping) {
		set_wq_data(&dwork->work, cwq);
		handed = true;
		placed = delay ? arm_timer(wq, dwork, delay) : list_work(cwq, &dwork->work, &cwq->worklist);
		/* Not armed: idle again, neither pending nor naming a worker. */
		if (placed < 0)
			clear_owned(&dwork->work, ~HWS_WORK_FLAG_MASK | HWS_WORK_PENDING_BIT);
	}
	hws__mutex_unlock(lock);
	/* Handed over, it is no longer grabbed (set_wq_data()): just wake waiters. */
	if (handed)
		wake_ungrab_waiters();
	else
		ungrab(&dwork->work, HWS_WORK_PENDING_BIT);
	if (placed == 1)
		ring_worker(cwq);
	return ret == 1;
}

bool hws__flush_work(struct work_struct *work)
{
	struct hws__cwq *cwq = data_cwq(hws__work_data(work));

	if (cwq) {
		struct wq_barrier b;

		hws__mutex_lock(&cwq->lock);
		take_incoming(cwq);
		/* One still in flight is queued after this call began: not waited for. */
		if (data_cwq(hws__work_data(work)) == cwq && !in_flight(work) &&
		    !hws__list_empty(&work->entry)) {
			if (cwq == this_cwq) {
				/* Our own list: run up to and including it. */
				while (!hws__list_empty(&work->entry))
					run_one(cwq);
			} else {
				insert_barrier(cwq, &b, work->entry.next);
				wait_barrier(cwq, &b);
			}
			hws__mutex_unlock(&cwq->lock);
			return true;
		}
		hws__mutex_unlock(&cwq->lock);
	}
	return wait_on_work(work, false);
}

bool hws__flush_delayed_work(struct delayed_work *dwork)
{
	struct hws__cwq *cwq = data_cwq(hws__work_data(&dwork->work));

	if (cwq) {
		bool ring = false;

		hws__mutex_lock(&cwq->wq->lock);
		if (data_cwq(hws__work_data(&dwork->work)) == cwq &&
		    hws__timer_del(&cwq->wq->timers, &dwork->timer)) {
			hws__mutex_lock(&cwq->lock);
			ring = list_work(cwq, &dwork->work, &cwq->worklist);
			hws__mutex_unlock(&cwq->lock);
		}
		hws__mutex_unlock(&cwq->wq->lock);
		if (ring)
			ring_worker(cwq);
	}
	return hws__flush_work(&dwork->work);
}

int hws__run_scheduled_work(struct work_struct *work)
{
	struct hws__cwq *cwq = data_cwq(hws__work_data(work));
	work_func_t func;

	if (!cwq)
		return 0;
	hws__mutex_lock(&cwq->lock);
	/* One caller-run item per worker at a time, so that waiters see it. */
	while (cwq->sync_work && data_cwq(hws__work_data(work)) == cwq)
		hws__mutex_cond_wait(&cwq->work_done, &cwq->lock);
	take_incoming(cwq);
	/* In the wheel its entry is empty: only a listed item runs. */
	if (data_cwq(hws__work_data(work)) != cwq || in_flight(work) || hws__list_empty(&work->entry)) {
		hws__mutex_unlock(&cwq->lock);
		return 0;
	}
	func = dequeue_to_run(work);
	cwq->sync_work = work;
	hws__mutex_unlock(&cwq->lock);

	func(work);

	hws__mutex_lock(&cwq->lock);
	cwq->sync_work = NULL;
	run_done(cwq, func);
	hws__mutex_unlock(&cwq->lock);
	return 1;
}

static bool all_lists_empty(struct workqueue_struct *wq)
{
	bool empty = true;

	for (int i = 0; i < wq->nr_workers && empty; i++) {
		struct hws__cwq *cwq = &wq->cwqs[i];

		hws__mutex_lock(&cwq->lock);
		take_incoming(cwq);
		empty = hws__list_empty(&cwq->worklist);
		hws__mutex_unlock(&cwq->lock);
	}
	return empty;
}

/* Disarm what is still in the timer wheel; its handlers never run. */
static void drop_timers(struct workqueue_struct *wq)
{
	struct hws__list_head all;

	hws__list_init(&all);
	hws__timer_collect_all(&wq->timers, &all);
	while (!hws__list_empty(&all)) {
		struct timer_list *t = container_of(all.next, struct timer_list, entry);
		struct delayed_work *dwork = container_of(t, struct delayed_work, timer);

		hws__list_unlink(&t->entry);
		t->entry.next = t->entry.prev = NULL;
		atomic_fetch_and(&dwork->work.data, HWS_WORK_FLAG_MASK & ~HWS_WORK_PENDING_BIT);
	}
}

/* Drop what is still on the lists after draining gave up. */
static void drop_queued(struct workqueue_struct *wq)
{
	for (int i = 0; i < wq->nr_workers; i++) {
		struct hws__cwq *cwq = &wq->cwqs[i];

		hws__mutex_lock(&cwq->lock);
		take_incoming(cwq);
		while (!hws__list_empty(&cwq->worklist)) {
			struct work_struct *work = container_of(cwq->worklist.next, struct work_struct, entry);

			hws__list_del_init(&work->entry);
			atomic_fetch_and(&work->data, HWS_WORK_FLAG_MASK & ~HWS_WORK_PENDING_BIT);
		}
		hws__mutex_unlock(&cwq->lock);
	}
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	bool empty = false;

	if (!wq)
		return;
	/* A worker cannot wait for itself to exit. */
	assert(!this_cwq || this_cwq->wq != wq);
	for (int round = 0; round < DRAIN_ROUNDS && !empty; round++) {
		flush_workqueue(wq);
		empty = all_lists_empty(wq);
	}
	stop_threads(wq, wq->nr_workers, wq->wake_fd < 0);
	/* Workers are gone: what a handler queued meanwhile never runs. */
	hws__mutex_lock(&wq->lock);
	drop_timers(wq);
	drop_queued(wq);
	hws__mutex_unlock(&wq->lock);

	hws__mutex_lock(&hws__freezer_lock);
	pthread_mutex_lock(&hws__workqueues_lock);
	hws__list_unlink(&wq->node);
	pthread_mutex_unlock(&hws__workqueues_lock);
	hws__mutex_unlock(&hws__freezer_lock);
	free_workqueue(wq);
}
