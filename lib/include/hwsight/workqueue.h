/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_WORKQUEUE_H
#define HWSIGHT_WORKQUEUE_H

/*
 * The workqueue API of Linux 2.6.20 (after the work_struct reduction), in
 * userspace, plus the later kernel's cancellation helpers. Names, argument
 * order and return values follow the kernel so that kernel-style code
 * compiles and behaves the same. See hwsight-workqueue(3).
 */

#include <stdbool.h>
#include <stddef.h>

#include <hwsight/common.h>
#include <hwsight/jiffies.h>

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Internal: the links that put an item on its queue or timer. */
struct hws__list_head {
	struct hws__list_head *next, *prev;
};

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

/*
 * data holds the WORK_STRUCT_* flag bits and, while the item is queued, the
 * per-worker queue it sits on. Only the library touches it, so C++, which
 * has no _Atomic, sees the plain type: the same size and alignment on
 * every Linux ABI.
 */
#ifdef __cplusplus
#define HWS__ATOMIC_ULONG unsigned long
#else
#define HWS__ATOMIC_ULONG _Atomic unsigned long
#endif

struct work_struct {
	HWS__ATOMIC_ULONG data;
	struct hws__list_head entry;
	work_func_t func;
};

#define WORK_STRUCT_PENDING   0 /* T if work item pending execution */
#define WORK_STRUCT_NOAUTOREL 1 /* F if work item released on execution */

/*
 * The timer of a delayed_work. Only `expires` is meant to be read by users
 * (as in the kernel); the rest belongs to the workqueue's timer wheel.
 */
struct timer_list {
	struct hws__list_head entry; /* next == NULL while not armed */
	unsigned long expires;
};

struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
};

struct workqueue_struct;

/* As in 2.6.20, the argument is the NOAUTOREL bit, despite its name. */
#define WORK_DATA_INIT(autorelease) ((unsigned long)(autorelease) << WORK_STRUCT_NOAUTOREL)

#define __WORK_INITIALIZER_DATA(n, f, d) {                                    \
		.data = (d),                                                  \
		.entry = { &(n).entry, &(n).entry },                          \
		.func = (f),                                                  \
	}
#define __WORK_INITIALIZER(n, f)     __WORK_INITIALIZER_DATA(n, f, WORK_DATA_INIT(0))
#define __WORK_INITIALIZER_NAR(n, f) __WORK_INITIALIZER_DATA(n, f, WORK_DATA_INIT(1))

#define __DELAYED_WORK_INITIALIZER(n, f) {                                    \
		.work = __WORK_INITIALIZER((n).work, (f)),                    \
		.timer = { { NULL, NULL }, 0 },                               \
	}
#define __DELAYED_WORK_INITIALIZER_NAR(n, f) {                                \
		.work = __WORK_INITIALIZER_NAR((n).work, (f)),                \
		.timer = { { NULL, NULL }, 0 },                               \
	}

#define DECLARE_WORK(n, f)     struct work_struct n = __WORK_INITIALIZER(n, f)
#define DECLARE_WORK_NAR(n, f) struct work_struct n = __WORK_INITIALIZER_NAR(n, f)
#define DECLARE_DELAYED_WORK(n, f) \
	struct delayed_work n = __DELAYED_WORK_INITIALIZER(n, f)
/* 2.6.20 spelled the type "dwork_struct" here, so it never compiled. */
#define DECLARE_DELAYED_WORK_NAR(n, f) \
	struct delayed_work n = __DELAYED_WORK_INITIALIZER_NAR(n, f)

HWS_EXPORT void hws__init_work(struct work_struct *work, work_func_t func, bool autorelease);
HWS_EXPORT void hws__init_delayed_work(struct delayed_work *dwork, work_func_t func, bool autorelease);

/*
 * The _Generic wrappers make passing the wrong kind of item a compile
 * error rather than a warning: a delayed_work handed to queue_work() would
 * otherwise be queued without its timer ever being looked at. C++ has no
 * _Generic, and its static_cast refuses that mistake too.
 */
#ifdef __cplusplus
#define hws__work_arg(w)  static_cast<struct work_struct *>(w)
#define hws__dwork_arg(w) static_cast<struct delayed_work *>(w)
#else
#define hws__work_arg(w)  _Generic((w), struct work_struct *: (w))
#define hws__dwork_arg(w) _Generic((w), struct delayed_work *: (w))
#endif

#define INIT_WORK(_work, _func)        hws__init_work(hws__work_arg(_work), (_func), true)
#define INIT_WORK_NAR(_work, _func)    hws__init_work(hws__work_arg(_work), (_func), false)
#define INIT_DELAYED_WORK(_work, _func) \
	hws__init_delayed_work(hws__dwork_arg(_work), (_func), true)
#define INIT_DELAYED_WORK_NAR(_work, _func) \
	hws__init_delayed_work(hws__dwork_arg(_work), (_func), false)

/**
 * work_pending - true while the item is queued, armed, or (for _NAR items)
 * not yet released with work_release().
 */
#define work_pending(work) \
	((hws__work_data(hws__work_arg(work)) >> WORK_STRUCT_PENDING) & 1UL)
#define delayed_work_pending(w) work_pending(&(hws__dwork_arg(w))->work)

/**
 * work_release - release a _NAR work item's pending bit
 *
 * Call it from the handler once the item's auxiliary data has been
 * consumed; until then queue_work() on the item returns 0.
 */
#define work_release(work) hws__work_release(hws__work_arg(work))

HWS_EXPORT unsigned long hws__work_data(const struct work_struct *work);
HWS_EXPORT void hws__work_release(struct work_struct *work);

/* Creation and destruction. Return NULL when out of memory or threads. */
HWS_EXPORT struct workqueue_struct *hws__create_workqueue(const char *name, bool singlethread, bool freezeable);
#define create_workqueue(name)              hws__create_workqueue((name), false, false)
#define create_singlethread_workqueue(name) hws__create_workqueue((name), true, false)
#define create_freezeable_workqueue(name)   hws__create_workqueue((name), true, true)

HWS_EXPORT void flush_workqueue(struct workqueue_struct *wq);
HWS_EXPORT void destroy_workqueue(struct workqueue_struct *wq);

/*
 * Queueing. Each returns 0 if the item was already pending, 1 otherwise.
 * The delayed forms return a negative errno, the item left idle, when the
 * timer thread's alarm cannot be set (timerfd_settime() failed).
 */
HWS_EXPORT int hws__queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work);
HWS_EXPORT int hws__queue_delayed_work_on(int cpu, struct workqueue_struct *wq,
					  struct delayed_work *dwork, unsigned long delay);

/*
 * Without a CPU, a handler re-queueing on its own queue stays on its own
 * worker; other callers hand items to the workers in turn (they are not
 * pinned to CPUs). With one, worker cpu % nr_workers takes it.
 */
#define queue_work(wq, work)         hws__queue_work_on(-1, (wq), hws__work_arg(work))
#define queue_work_on(cpu, wq, work) hws__queue_work_on((cpu), (wq), hws__work_arg(work))
#define queue_delayed_work(wq, dwork, delay) \
	hws__queue_delayed_work_on(-1, (wq), hws__dwork_arg(dwork), (delay))
#define queue_delayed_work_on(cpu, wq, dwork, delay) \
	hws__queue_delayed_work_on((cpu), (wq), hws__dwork_arg(dwork), (delay))

/* The default "events" queue, created on first use. */
HWS_EXPORT struct workqueue_struct *hws__keventd_wq(void);
#define schedule_work(work)         queue_work(hws__keventd_wq(), work)
#define schedule_work_on(cpu, work) queue_work_on((cpu), hws__keventd_wq(), work)
#define schedule_delayed_work(dwork, delay) \
	queue_delayed_work(hws__keventd_wq(), dwork, (delay))
#define schedule_delayed_work_on(cpu, dwork, delay) \
	queue_delayed_work_on((cpu), hws__keventd_wq(), dwork, (delay))
HWS_EXPORT void flush_scheduled_work(void);

/**
 * run_scheduled_work - run a queued (not delayed) item now, in the caller
 *
 * Return: 1 if the item was waiting on a worker's list and has now run,
 * 0 if there was nothing queued to run.
 */
#define run_scheduled_work(work) hws__run_scheduled_work(hws__work_arg(work))
HWS_EXPORT int hws__run_scheduled_work(struct work_struct *work);

/**
 * cancel_delayed_work - kill a pending timer
 *
 * Return: 1 if the timer was pending and is now cancelled, 0 otherwise.
 * It does not wait for a handler that is already running.
 */
#define cancel_delayed_work(dwork) hws__cancel_delayed_work(hws__dwork_arg(dwork))
HWS_EXPORT int hws__cancel_delayed_work(struct delayed_work *dwork);

/* Unlike 2.6.20 these never hang on an idle item or one re-armed with 0. */
#define cancel_rearming_delayed_workqueue(wq, dwork) \
	hws__cancel_rearming_delayed_workqueue((wq), hws__dwork_arg(dwork))
#define cancel_rearming_delayed_work(dwork) \
	hws__cancel_rearming_delayed_workqueue(NULL, hws__dwork_arg(dwork))
HWS_EXPORT void hws__cancel_rearming_delayed_workqueue(struct workqueue_struct *wq,
						       struct delayed_work *dwork);

/* From later kernels: cancellation and flushing that can be relied on. */
#define cancel_work_sync(work)          hws__cancel_work_sync(hws__work_arg(work))
#define cancel_delayed_work_sync(dwork) hws__cancel_delayed_work_sync(hws__dwork_arg(dwork))
#define flush_work(work)                hws__flush_work(hws__work_arg(work))
#define flush_delayed_work(dwork)       hws__flush_delayed_work(hws__dwork_arg(dwork))
#define mod_delayed_work(wq, dwork, delay) \
	hws__mod_delayed_work_on(-1, (wq), hws__dwork_arg(dwork), (delay))
#define mod_delayed_work_on(cpu, wq, dwork, delay) \
	hws__mod_delayed_work_on((cpu), (wq), hws__dwork_arg(dwork), (delay))
HWS_EXPORT bool hws__cancel_work_sync(struct work_struct *work);
HWS_EXPORT bool hws__cancel_delayed_work_sync(struct delayed_work *dwork);
HWS_EXPORT bool hws__flush_work(struct work_struct *work);
HWS_EXPORT bool hws__flush_delayed_work(struct delayed_work *dwork);
HWS_EXPORT bool hws__mod_delayed_work_on(int cpu, struct workqueue_struct *wq,
					 struct delayed_work *dwork, unsigned long delay);

/*
 * The suspend freezer. freeze_workqueues() stops every freezeable queue
 * from starting new items and waits for running ones to finish.
 * Return: 0 once they are quiet; -EBUSY (and the queues thawed again) if a
 * handler is still running after 20 s; -EDEADLK if called from a worker of
 * a freezeable queue.
 */
HWS_EXPORT int freeze_workqueues(void);
HWS_EXPORT void thaw_workqueues(void);

/* Number of workers of a queue (one per online CPU, or one). */
HWS_EXPORT int hws_workqueue_nr_workers(const struct workqueue_struct *wq);

/**
 * current_work - the item the calling thread runs as a worker
 *
 * For code that must know where it runs: an assertion that a function is
 * called from a handler, or from one item and no other. It answers for
 * the calling thread, so a handler that run_scheduled_work() runs in its
 * caller's thread gets the caller's answer: NULL, unless the caller is a
 * worker itself.
 *
 * Return: the item whose handler the calling worker thread is running
 * (the inner one while a handler flushes its own queue), or NULL if the
 * caller is not a worker thread.
 */
HWS_EXPORT struct work_struct *current_work(void);

/**
 * hws_workqueue_current - the workqueue whose worker the calling thread is
 *
 * Lets code check that it runs on the queue it belongs to, for instance
 * state that only one single-threaded queue's handlers may touch.
 *
 * Return: the queue one of whose workers is calling, or NULL from any
 * other thread (a queue's timer thread included).
 */
HWS_EXPORT struct workqueue_struct *hws_workqueue_current(void);

#ifdef __cplusplus
}
#endif

#endif
