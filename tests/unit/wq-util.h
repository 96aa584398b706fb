/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_TEST_WQ_UTIL_H
#define HWS_TEST_WQ_UTIL_H

/*
 * Helpers shared by the workqueue tests: a semaphore with a timed wait, a
 * call run on a helper thread (to check that it blocks, then that it
 * returns), a blocker item that holds a worker, a probe item that records
 * how, where and when it ran, and the fixture (a queue with a probe, a gate
 * and a blocker) that most single-item tests start from.
 *
 * Tests sequence threads with these, never with sleeps. A sleep appears only
 * where a test checks that something does *not* happen for a while; such a
 * check cannot fail spuriously on a slow machine, only miss a bug.
 */

#include <dirent.h>
#include <stdatomic.h>

#include <hwsight/workqueue.h>

#include "task.h"

/* How long a test waits for something that must happen before failing. */
#define WAIT_MS 10000

static inline void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A counting semaphore on a mutex and a CLOCK_MONOTONIC condition variable:
 * unlike sem_clockwait(), every sanitizer understands it.
 */
struct tsem {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int count; /* L: lock */
};

static inline void tsem_init(struct tsem *s)
{
	pthread_condattr_t attr;

	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &attr);
	pthread_condattr_destroy(&attr);
	s->count = 0;
}

static inline void tsem_destroy(struct tsem *s)
{
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
}

static inline void tsem_post(struct tsem *s)
{
	pthread_mutex_lock(&s->lock);
	s->count++;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static inline void tsem_wait(struct tsem *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->count == 0)
		pthread_cond_wait(&s->cond, &s->lock);
	s->count--;
	pthread_mutex_unlock(&s->lock);
}

/* Returns true if the semaphore was taken within ms milliseconds. */
static inline bool tsem_wait_ms(struct tsem *s, unsigned int ms)
{
	struct timespec deadline;
	bool taken = true;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += ms / 1000;
	deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	while (s->count == 0) {
		if (pthread_cond_timedwait(&s->cond, &s->lock, &deadline) == ETIMEDOUT) {
			taken = s->count > 0;
			break;
		}
	}
	if (taken)
		s->count--;
	pthread_mutex_unlock(&s->lock);
	return taken;
}

static inline unsigned int tsem_value(struct tsem *s)
{
	unsigned int v;

	pthread_mutex_lock(&s->lock);
	v = s->count;
	pthread_mutex_unlock(&s->lock);
	return v;
}

#define TSEM_WAIT(s)                                                          \
	do {                                                                  \
		if (!tsem_wait_ms((s), WAIT_MS))                              \
			FAIL("%s was not posted within %d ms", #s, WAIT_MS);  \
	} while (0)

/* A call made on a helper thread. */
struct bg_call {
	pthread_t thread;
	void (*fn)(void *arg);
	void *arg;
	atomic_bool returned;
	struct tsem done;
};

static inline void *bg_call_main(void *p)
{
	struct bg_call *c = p;

	c->fn(c->arg);
	atomic_store(&c->returned, true);
	tsem_post(&c->done);
	return NULL;
}

static inline void bg_call_start(struct bg_call *c, void (*fn)(void *), void *arg)
{
	c->fn = fn;
	c->arg = arg;
	atomic_init(&c->returned, false);
	tsem_init(&c->done);
	ASSERT_EQ(pthread_create(&c->thread, NULL, bg_call_main, c), 0);
}

static inline bool bg_call_returned(struct bg_call *c)
{
	return atomic_load(&c->returned);
}

/* Waits for the call to return, failing the test after WAIT_MS. */
#define BG_CALL_JOIN(c)                                                       \
	do {                                                                  \
		if (!tsem_wait_ms(&(c)->done, WAIT_MS))                       \
			FAIL("the call on %s did not return within %d ms",    \
			     #c, WAIT_MS);                                    \
		pthread_join((c)->thread, NULL);                              \
		tsem_destroy(&(c)->done);                                     \
	} while (0)

/* The calling thread's name, as a handler sees it. */
static inline void current_thread_name(char buf[16])
{
	if (pthread_getname_np(pthread_self(), buf, 16) != 0)
		strcpy(buf, "?");
}

/* What Linux keeps of a thread name: its first 15 bytes. */
static inline void expected_thread_name(char buf[16], const char *name, const char *suffix)
{
	char full[64];
	int n = snprintf(full, sizeof(full), "%s%s", name, suffix);

	if (n > 15)
		n = 15;
	memcpy(buf, full, (size_t)n);
	buf[n] = '\0';
}

/* How many threads of this process have a name starting with prefix. */
static inline int count_threads_named(const char *prefix)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ASSERT_NOT_NULL(d);
	while ((e = readdir(d))) {
		char path[64], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue; /* the thread has just exited */
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		if (strncmp(comm, prefix, strlen(prefix)) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* create_workqueue(@name), which must succeed, and its number of workers. */
static inline struct workqueue_struct *wq_create_counted(const char *name, int *ret_n)
{
	struct workqueue_struct *wq = create_workqueue(name);

	ASSERT_NOT_NULL(wq);
	*ret_n = hws_workqueue_nr_workers(wq);
	return wq;
}

/*
 * One queue of each kind that checks hold for alike: a worker per CPU
 * (named @name) and a single thread (@name "1"). The test destroys them.
 */
static inline void wq_create_both(struct workqueue_struct *wqs[2], const char *name)
{
	char single[32];

	snprintf(single, sizeof(single), "%s1", name);
	wqs[0] = create_workqueue(name);
	wqs[1] = create_singlethread_workqueue(single);
	ASSERT_NOT_NULL(wqs[0]);
	ASSERT_NOT_NULL(wqs[1]);
}

static inline int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* An item that holds its worker until released. */
struct blocker {
	struct work_struct work;
	struct tsem started;
	struct tsem release;
};

static inline void blocker_fn(struct work_struct *work)
{
	struct blocker *b = container_of(work, struct blocker, work);

	tsem_post(&b->started);
	tsem_wait(&b->release);
}

/* Occupies a worker of wq (worker cpu, or any if cpu < 0) until blocker_stop(). */
static inline void blocker_start(struct blocker *b, struct workqueue_struct *wq, int cpu)
{
	tsem_init(&b->started);
	tsem_init(&b->release);
	INIT_WORK(&b->work, blocker_fn);
	if (cpu < 0)
		ASSERT_EQ(queue_work(wq, &b->work), 1);
	else
		ASSERT_EQ(queue_work_on(cpu, wq, &b->work), 1);
	TSEM_WAIT(&b->started);
}

static inline void blocker_stop(struct blocker *b)
{
	tsem_post(&b->release);
}

/* Frees the blocker's resources; its handler must have returned. */
static inline void blocker_destroy(struct blocker *b)
{
	tsem_destroy(&b->started);
	tsem_destroy(&b->release);
}

/*
 * A probe: one plain and one delayed item that record each run. thread and
 * tname are written by the handler before it posts 'ran', so a test reads
 * them only after waiting for 'ran' and only while nothing runs the probe
 * again.
 */
struct probe {
	struct work_struct work;
	struct delayed_work dw;
	struct workqueue_struct *wq; /* where re-queueing goes */
	struct tsem *gate;           /* if set, each run waits on it */
	atomic_int rearm;            /* < 0: no; else re-queue with this delay */
	atomic_int runs;             /* completed runs */
	atomic_int running;          /* handlers inside right now */
	atomic_int max_running;
	atomic_int pending_in_handler; /* work_pending() seen at the last start */
	atomic_ulong ran_at;         /* jiffies at the last start */
	struct tsem entered;         /* posted as each run starts */
	struct tsem ran;             /* posted as each run ends */
	pthread_mutex_t meta_lock;   /* guards thread and tname */
	pthread_t thread;
	char tname[16];
};

static inline void probe_run(struct probe *p, struct work_struct *work, bool delayed)
{
	int running = atomic_fetch_add(&p->running, 1) + 1;
	int max = atomic_load(&p->max_running);
	int rearm;

	while (running > max && !atomic_compare_exchange_weak(&p->max_running, &max, running))
		;
	atomic_store(&p->ran_at, jiffies);
	atomic_store(&p->pending_in_handler, (int)work_pending(work));
	pthread_mutex_lock(&p->meta_lock);
	p->thread = pthread_self();
	current_thread_name(p->tname);
	pthread_mutex_unlock(&p->meta_lock);
	tsem_post(&p->entered);
	if (p->gate)
		tsem_wait(p->gate);
	rearm = atomic_load(&p->rearm);
	if (rearm >= 0) {
		if (delayed)
			queue_delayed_work(p->wq, &p->dw, (unsigned long)rearm);
		else
			queue_work(p->wq, &p->work);
	}
	atomic_fetch_add(&p->runs, 1);
	atomic_fetch_sub(&p->running, 1);
	tsem_post(&p->ran);
}

static inline void probe_work_fn(struct work_struct *work)
{
	probe_run(container_of(work, struct probe, work), work, false);
}

static inline void probe_dwork_fn(struct work_struct *work)
{
	probe_run(container_of(work, struct probe, dw.work), work, true);
}

static inline void probe_init(struct probe *p, struct workqueue_struct *wq)
{
	memset(p, 0, sizeof(*p));
	p->wq = wq;
	atomic_init(&p->rearm, -1);
	atomic_init(&p->runs, 0);
	atomic_init(&p->running, 0);
	atomic_init(&p->max_running, 0);
	atomic_init(&p->pending_in_handler, -1);
	atomic_init(&p->ran_at, 0);
	tsem_init(&p->entered);
	tsem_init(&p->ran);
	pthread_mutex_init(&p->meta_lock, NULL);
	INIT_WORK(&p->work, probe_work_fn);
	INIT_DELAYED_WORK(&p->dw, probe_dwork_fn);
}

static inline struct probe *probe_new(struct workqueue_struct *wq)
{
	struct probe *p = malloc(sizeof(*p));

	ASSERT_NOT_NULL(p);
	probe_init(p, wq);
	return p;
}

/* The probe's items must be idle and its handler not running. */
static inline void probe_destroy(struct probe *p)
{
	tsem_destroy(&p->entered);
	tsem_destroy(&p->ran);
	pthread_mutex_destroy(&p->meta_lock);
}

static inline void probe_free(struct probe *p)
{
	probe_destroy(p);
	free(p);
}

/* Where the last run happened. */
static inline pthread_t probe_thread(struct probe *p, char tname[16])
{
	pthread_t t;

	pthread_mutex_lock(&p->meta_lock);
	t = p->thread;
	if (tname)
		memcpy(tname, p->tname, 16);
	pthread_mutex_unlock(&p->meta_lock);
	return t;
}

static inline int probe_runs(struct probe *p)
{
	return atomic_load(&p->runs);
}

/* Checks that the probe's last run was on worker @worker of queue @wqname. */
static inline void probe_check_ran_on(struct probe *p, const char *wqname, int worker)
{
	char got[16], want[16], num[16];

	snprintf(num, sizeof(num), "/%d", worker);
	expected_thread_name(want, wqname, num);
	probe_thread(p, got);
	ASSERT_STR_EQ(got, want);
}

/* Waits for n runs of the probe to end. */
#define PROBE_WAIT_RUNS(p, n)                                                 \
	do {                                                                  \
		for (int hws_i_ = 0; hws_i_ < (n); hws_i_++)                  \
			TSEM_WAIT(&(p)->ran);                                 \
	} while (0)

/*
 * The set-up most single-item tests share: a queue with one probe on it,
 * optionally a gate the probe's handler waits on and a blocker holding the
 * queue's worker from the start. wq_fixture_stop() frees whatever was set
 * up, so a test states only what it checks.
 */
enum {
	WQF_SINGLE = 1 << 0,     /* create_singlethread_workqueue() */
	WQF_FREEZEABLE = 1 << 1, /* create_freezeable_workqueue() */
	WQF_GATE = 1 << 2,       /* each run of the probe waits on f->gate */
	WQF_BLOCK = 1 << 3,      /* f->b holds a worker until blocker_stop() */
};

struct wq_fixture {
	struct workqueue_struct *wq;
	struct probe p;
	struct tsem gate;
	struct blocker b;
	unsigned int flags;
};

static inline void wq_fixture_start(struct wq_fixture *f, const char *name, unsigned int flags)
{
	f->flags = flags;
	if (flags & WQF_SINGLE)
		f->wq = create_singlethread_workqueue(name);
	else if (flags & WQF_FREEZEABLE)
		f->wq = create_freezeable_workqueue(name);
	else
		f->wq = create_workqueue(name);
	ASSERT_NOT_NULL(f->wq);
	probe_init(&f->p, f->wq);
	if (flags & WQF_GATE) {
		tsem_init(&f->gate);
		f->p.gate = &f->gate;
	}
	if (flags & WQF_BLOCK)
		blocker_start(&f->b, f->wq, -1);
}

/* The blocker, if any, must have been stopped. */
static inline void wq_fixture_stop(struct wq_fixture *f)
{
	destroy_workqueue(f->wq);
	if (f->flags & WQF_BLOCK)
		blocker_destroy(&f->b);
	probe_destroy(&f->p);
	if (f->flags & WQF_GATE)
		tsem_destroy(&f->gate);
}

/*
 * A test case run on a fresh fixture: WQ_TEST(name, "wqname", WQF_...)
 * { ... } starts the fixture, runs the body with it as f, and stops it after
 * the body returns, so the set-up and tear-down exist once. Items a body
 * declares itself live in its stack frame, which ends before the queue is
 * destroyed: the body flushes them before it returns.
 * tests/cmake/HwsCases.cmake reads these lines as it reads TEST() and
 * TEST_TIMEOUT().
 */
#define WQ_TEST_TIMEOUT(name, seconds, wqname, flags)                         \
	static void wq_test_##name(struct wq_fixture *f);                     \
	TEST_TIMEOUT(name, seconds)                                           \
	{                                                                     \
		struct wq_fixture fixture;                                    \
									      \
		wq_fixture_start(&fixture, (wqname), (flags));                \
		wq_test_##name(&fixture);                                     \
		wq_fixture_stop(&fixture);                                    \
	}                                                                     \
	static void wq_test_##name(struct wq_fixture *f)
#define WQ_TEST(name, wqname, flags) WQ_TEST_TIMEOUT(name, HWS_TEST_DEFAULT_TIMEOUT, wqname, flags)

/*
 * Lets the blocked worker go, waits for everything queued, and checks that
 * the probe has run runs times in all.
 */
static inline void wq_fixture_unblock(struct wq_fixture *f, int runs)
{
	blocker_stop(&f->b);
	flush_workqueue(f->wq);
	ASSERT_EQ(probe_runs(&f->p), runs);
}

/* Queues the probe's plain item and waits until its handler has started. */
static inline void wq_fixture_enter(struct wq_fixture *f)
{
	ASSERT_EQ(queue_work(f->wq, &f->p.work), 1);
	TSEM_WAIT(&f->p.entered);
}

/* The same for its delayed item, due after delay jiffies. */
static inline void wq_fixture_enter_delayed(struct wq_fixture *f, unsigned long delay)
{
	ASSERT_EQ(queue_delayed_work(f->wq, &f->p.dw, delay), 1);
	TSEM_WAIT(&f->p.entered);
}

#endif
