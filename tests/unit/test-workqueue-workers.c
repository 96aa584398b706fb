/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the workers of <hwsight/workqueue.h>: per-worker FIFO order,
 * placement of items by the _on forms and by queue_work(), the number and
 * names of worker threads, destroy_workqueue(), the default "events" queue,
 * the workers' signal mask and scheduling policy, and idleness with only far
 * timers armed.
 */

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <hwsight/workqueue.h>

#include "task.h"
#include "wq-util.h"

static atomic_int slow_done;

static void slow_fn(struct work_struct *work)
{
	(void)work;
	sleep_ms(1);
	atomic_fetch_add(&slow_done, 1);
}

/* ---- order and placement ---------------------------------------------- */

enum { FIFO_N = 1000, FIFO_MAX_WORKERS = 64 };

struct seq_item {
	struct work_struct work;
	int idx;
	int worker;
};

static int fifo_log[FIFO_MAX_WORKERS][FIFO_N];
static atomic_int fifo_len[FIFO_MAX_WORKERS];
static atomic_int fifo_misplaced;
static char fifo_prefix[16];

static void seq_fn(struct work_struct *work)
{
	struct seq_item *s = container_of(work, struct seq_item, work);
	int slot = atomic_fetch_add(&fifo_len[s->worker], 1);
	char name[16], want[16], num[16];

	snprintf(num, sizeof(num), "/%d", s->worker);
	expected_thread_name(want, fifo_prefix, num);
	current_thread_name(name);
	if (strcmp(name, want) != 0)
		atomic_fetch_add(&fifo_misplaced, 1);
	if (slot < FIFO_N)
		fifo_log[s->worker][slot] = s->idx;
}

TEST(fifo_singlethread)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("fifo1");
	struct seq_item *items = calloc(FIFO_N, sizeof(*items));
	struct blocker b;

	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(items);
	strcpy(fifo_prefix, "fifo1");
	/* Half queued while the worker is held, half while it is running. */
	blocker_start(&b, wq, -1);
	for (int i = 0; i < FIFO_N; i++) {
		items[i].idx = i;
		INIT_WORK(&items[i].work, seq_fn);
		ASSERT_EQ(queue_work(wq, &items[i].work), 1);
		if (i == FIFO_N / 2)
			blocker_stop(&b);
	}
	flush_workqueue(wq);
	ASSERT_EQ(atomic_load(&fifo_len[0]), FIFO_N);
	for (int i = 0; i < FIFO_N; i++)
		if (fifo_log[0][i] != i)
			FAIL("item %d ran in position %d", fifo_log[0][i], i);
	ASSERT_EQ(atomic_load(&fifo_misplaced), 0);
	destroy_workqueue(wq);
	blocker_destroy(&b);
	free(items);
}

TEST(fifo_per_worker)
{
	struct workqueue_struct *wq = create_workqueue("fifo");
	int n;
	struct seq_item *items;

	ASSERT_NOT_NULL(wq);
	n = hws_workqueue_nr_workers(wq);
	ASSERT_GE(n, 1);
	ASSERT_LE(n, FIFO_MAX_WORKERS);
	strcpy(fifo_prefix, "fifo");
	items = calloc((size_t)n * FIFO_N, sizeof(*items));
	ASSERT_NOT_NULL(items);
	/* Interleaved: item i of every worker, then item i + 1. */
	for (int i = 0; i < FIFO_N; i++)
		for (int c = 0; c < n; c++) {
			struct seq_item *s = &items[c * FIFO_N + i];

			s->idx = i;
			s->worker = c;
			INIT_WORK(&s->work, seq_fn);
			ASSERT_EQ(queue_work_on(c, wq, &s->work), 1);
		}
	flush_workqueue(wq);
	ASSERT_EQ(atomic_load(&fifo_misplaced), 0);
	for (int c = 0; c < n; c++) {
		ASSERT_EQ(atomic_load(&fifo_len[c]), FIFO_N);
		for (int i = 0; i < FIFO_N; i++)
			if (fifo_log[c][i] != i)
				FAIL("worker %d ran item %d in position %d", c, fifo_log[c][i], i);
	}
	destroy_workqueue(wq);
	free(items);
}

TEST(queue_work_on_runs_on_that_worker)
{
	int n;
	struct workqueue_struct *wq = wq_create_counted("wqtest", &n);

	for (int round = 0; round < 5; round++)
		for (int c = 0; c < n; c++) {
			struct probe p;

			probe_init(&p, wq);
			ASSERT_EQ(queue_work_on(c, wq, &p.work), 1);
			PROBE_WAIT_RUNS(&p, 1);
			probe_check_ran_on(&p, "wqtest", c);
			ASSERT_EQ(queue_delayed_work_on(c, wq, &p.dw, (unsigned long)round % 2), 1);
			PROBE_WAIT_RUNS(&p, 1);
			probe_check_ran_on(&p, "wqtest", c);
			/* Numbers past the last worker wrap around. */
			ASSERT_EQ(queue_work_on(c + n, wq, &p.work), 1);
			PROBE_WAIT_RUNS(&p, 1);
			probe_check_ran_on(&p, "wqtest", c);
			flush_workqueue(wq);
			probe_destroy(&p);
		}
	destroy_workqueue(wq);
}

/* queue_work() from one of the queue's workers stays on that worker. */
struct hop {
	struct work_struct work;
	struct probe *next;
};

static void hop_fn(struct work_struct *work)
{
	struct hop *h = container_of(work, struct hop, work);

	ASSERT_EQ(queue_work(h->next->wq, &h->next->work), 1);
}

TEST(queue_work_from_worker_stays_on_it)
{
	int n;
	struct workqueue_struct *wq = wq_create_counted("stay", &n);

	for (int round = 0; round < 10; round++)
		for (int c = 0; c < n; c++) {
			struct probe p;
			struct hop h;

			probe_init(&p, wq);
			h.next = &p;
			INIT_WORK(&h.work, hop_fn);
			ASSERT_EQ(queue_work_on(c, wq, &h.work), 1);
			PROBE_WAIT_RUNS(&p, 1);
			probe_check_ran_on(&p, "stay", c);
			flush_workqueue(wq);
			probe_destroy(&p);
		}
	destroy_workqueue(wq);
}

/* queue_work() from outside spreads items over the workers in turn. */
TEST(queue_work_spreads_over_workers)
{
	struct workqueue_struct *wq = create_workqueue("spread");
	enum { N = 64 };
	struct probe p[N];
	pthread_t seen[N];
	int n, distinct = 0;

	ASSERT_NOT_NULL(wq);
	n = hws_workqueue_nr_workers(wq);
	for (int i = 0; i < N; i++) {
		probe_init(&p[i], wq);
		ASSERT_EQ(queue_work(wq, &p[i].work), 1);
	}
	flush_workqueue(wq);
	for (int i = 0; i < N; i++) {
		pthread_t t = probe_thread(&p[i], NULL);
		int k;

		ASSERT_EQ(probe_runs(&p[i]), 1);
		for (k = 0; k < distinct && !pthread_equal(seen[k], t); k++)
			;
		if (k == distinct)
			seen[distinct++] = t;
		probe_destroy(&p[i]);
	}
	ASSERT_EQ(distinct, n);
	destroy_workqueue(wq);
}

/* ---- workers and their names ------------------------------------------ */

TEST(create_workqueue_one_worker_per_cpu)
{
	struct workqueue_struct *wq = create_workqueue("percpu");
	int n = online_cpus();
	pthread_t threads[FIFO_MAX_WORKERS];

	ASSERT_NOT_NULL(wq);
	ASSERT_EQ(hws_workqueue_nr_workers(wq), n);
	ASSERT_EQ(hws_workqueue_nr_workers(NULL), -EINVAL);
	ASSERT_LE(n, FIFO_MAX_WORKERS);
	/* As many distinct threads, each visible to ps -L as percpu/N. */
	for (int c = 0; c < n; c++) {
		struct probe p;

		probe_init(&p, wq);
		ASSERT_EQ(queue_work_on(c, wq, &p.work), 1);
		PROBE_WAIT_RUNS(&p, 1);
		threads[c] = probe_thread(&p, NULL);
		for (int k = 0; k < c; k++)
			ASSERT_FALSE(pthread_equal(threads[k], threads[c]));
		probe_destroy(&p);
	}
	for (int c = 0; c < n; c++) {
		char name[32];

		snprintf(name, sizeof(name), "percpu/%d", c);
		ASSERT_EQ(count_threads_named(name), 1);
	}
	ASSERT_EQ(count_threads_named("percpu/"), n + 1); /* + percpu/timer */
	destroy_workqueue(wq);
}

struct st_feeder {
	struct workqueue_struct *wq;
	int cpu;
	struct probe p[50];
};

static void st_feed(void *arg)
{
	struct st_feeder *f = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(f->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set); /* best effort */
	for (int i = 0; i < 50; i++) {
		ASSERT_EQ(queue_work(f->wq, &f->p[i].work), 1);
		ASSERT_EQ(queue_work_on(f->cpu + i, f->wq, &f->p[i].dw.work), 1);
	}
}

TEST(singlethread_has_one_worker)
{
	struct workqueue_struct *wq = create_singlethread_workqueue("one");
	struct workqueue_struct *fq = create_freezeable_workqueue("onef");
	int ncpu = online_cpus();
	struct st_feeder *feeders = calloc((size_t)ncpu, sizeof(*feeders));
	struct bg_call *calls = calloc((size_t)ncpu, sizeof(*calls));
	pthread_t worker;
	bool have_worker = false;

	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(fq);
	ASSERT_NOT_NULL(feeders);
	ASSERT_NOT_NULL(calls);
	ASSERT_EQ(hws_workqueue_nr_workers(wq), 1);
	ASSERT_EQ(hws_workqueue_nr_workers(fq), 1);
	/* one/0 alone: a queue of one worker sleeps on its alarm itself. */
	ASSERT_EQ(count_threads_named("one/"), 1);
	ASSERT_EQ(count_threads_named("one/0"), 1);
	/* Items from threads on every CPU, with any cpu number, all on one thread. */
	for (int c = 0; c < ncpu; c++) {
		feeders[c].wq = wq;
		feeders[c].cpu = c;
		for (int i = 0; i < 50; i++)
			probe_init(&feeders[c].p[i], wq);
		bg_call_start(&calls[c], st_feed, &feeders[c]);
	}
	for (int c = 0; c < ncpu; c++)
		BG_CALL_JOIN(&calls[c]);
	flush_workqueue(wq);
	for (int c = 0; c < ncpu; c++)
		for (int i = 0; i < 50; i++) {
			struct probe *p = &feeders[c].p[i];
			char name[16];
			pthread_t t = probe_thread(p, name);

			ASSERT_EQ(probe_runs(p), 2);
			ASSERT_EQ(atomic_load(&p->max_running), 1);
			ASSERT_STR_EQ(name, "one/0");
			if (!have_worker) {
				worker = t;
				have_worker = true;
			}
			ASSERT_TRUE(pthread_equal(t, worker));
			probe_destroy(p);
		}
	destroy_workqueue(wq);
	destroy_workqueue(fq);
	free(feeders);
	free(calls);
}

TEST(worker_names)
{
	static const char *names[] = { "wqtest", "a-rather-long-queue-name", "x" };

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		int n;
		struct workqueue_struct *wq = wq_create_counted(names[k], &n);

		for (int c = 0; c < n; c++) {
			struct probe p;
			char want[16], num[16];

			probe_init(&p, wq);
			ASSERT_EQ(queue_work_on(c, wq, &p.work), 1);
			PROBE_WAIT_RUNS(&p, 1);
			probe_check_ran_on(&p, names[k], c);
			snprintf(num, sizeof(num), "/%d", c);
			expected_thread_name(want, names[k], num);
			ASSERT_GE(count_threads_named(want), 1);
			probe_destroy(&p);
		}
		destroy_workqueue(wq);
	}
	/* A long name is cut to Linux's 15 bytes: "a-rather-long-q". */
	char want[16];
	expected_thread_name(want, "a-rather-long-queue-name", "/0");
	ASSERT_STR_EQ(want, "a-rather-long-q");
}

/*
 * destroy_workqueue() flushes first: everything queued has run when it
 * returns, and its threads are gone.
 */
TEST(destroy_flushes_first)
{
	enum { N = 200 };
	static struct work_struct items[N];

	for (int q = 0; q < 3; q++) {
		struct workqueue_struct *wq = q == 0 ? create_workqueue("dfl")
					      : q == 1 ? create_singlethread_workqueue("dfl")
						       : create_freezeable_workqueue("dfl");
		int gone_after_ms = 0;

		ASSERT_NOT_NULL(wq);
		atomic_store(&slow_done, 0);
		for (int i = 0; i < N; i++) {
			INIT_WORK(&items[i], slow_fn);
			ASSERT_EQ(queue_work(wq, &items[i]), 1);
		}
		destroy_workqueue(wq);
		ASSERT_EQ(atomic_load(&slow_done), N);
		for (int i = 0; i < N; i++)
			ASSERT_FALSE(work_pending(&items[i]));
		while (count_threads_named("dfl/") > 0) {
			if (gone_after_ms >= WAIT_MS)
				FAIL("threads of a destroyed queue still exist after %d ms", WAIT_MS);
			sleep_ms(10);
			gone_after_ms += 10;
		}
	}
}

static void destroy_call(void *arg)
{
	destroy_workqueue(arg);
}

/* Timers still armed at destroy_workqueue() are dropped, items left idle. */
TEST(destroy_drops_armed_timers)
{
	struct workqueue_struct *wq = create_workqueue("ddrop");
	struct probe far;

	ASSERT_NOT_NULL(wq);
	probe_init(&far, wq);
	ASSERT_EQ(queue_delayed_work(wq, &far.dw, 1000 * HZ), 1);
	destroy_workqueue(wq);
	ASSERT_FALSE(delayed_work_pending(&far.dw));
	ASSERT_NULL(far.dw.timer.entry.next);
	ASSERT_EQ(probe_runs(&far), 0);
	probe_destroy(&far);
}

/*
 * The man page: "An item that keeps re-queueing itself without delay is
 * given up on after a number of rounds." destroy_workqueue() returns, the
 * item is idle and its handler not running.
 */
TEST(destroy_gives_up_on_self_requeueing)
{
	struct workqueue_struct *wqs[2];

	wq_create_both(wqs, "dself");
	for (int q = 0; q < 2; q++) {
		struct probe self;
		struct bg_call bg;

		probe_init(&self, wqs[q]);
		atomic_store(&self.rearm, 0);
		ASSERT_EQ(queue_work(wqs[q], &self.work), 1);
		PROBE_WAIT_RUNS(&self, 3);
		bg_call_start(&bg, destroy_call, wqs[q]);
		if (!tsem_wait_ms(&bg.done, WAIT_MS))
			FAIL("destroy_workqueue() with a self-requeueing item did not "
			     "return within %d ms", WAIT_MS);
		pthread_join(bg.thread, NULL);
		tsem_destroy(&bg.done);
		ASSERT_FALSE(work_pending(&self.work));
		ASSERT_EQ(atomic_load(&self.running), 0);
		probe_destroy(&self);
	}
}

/* ---- the default queue ------------------------------------------------ */

TEST(schedule_work_uses_events_queue)
{
	struct workqueue_struct *ev = hws__keventd_wq();
	int n = online_cpus();
	struct tsem gate;
	struct probe p;
	char name[16];
	enum { N = 100 };
	static struct work_struct items[N];

	ASSERT_NOT_NULL(ev);
	ASSERT_PTR_EQ(hws__keventd_wq(), ev); /* one default queue */
	ASSERT_EQ(hws_workqueue_nr_workers(ev), n);
	tsem_init(&gate);
	probe_init(&p, ev);
	p.gate = &gate;
	ASSERT_EQ(schedule_work(&p.work), 1);
	TSEM_WAIT(&p.entered);
	probe_thread(&p, name);
	ASSERT_EQ(strncmp(name, "events/", 7), 0);
	ASSERT_FALSE(work_pending(&p.work));
	tsem_post(&gate);
	PROBE_WAIT_RUNS(&p, 1);
	flush_scheduled_work();
	p.gate = NULL;

	for (int c = 0; c < n; c++) {
		ASSERT_EQ(schedule_work_on(c, &p.work), 1);
		PROBE_WAIT_RUNS(&p, 1);
		probe_check_ran_on(&p, "events", c);
	}

	/* flush_scheduled_work() waits for what was scheduled. */
	atomic_store(&slow_done, 0);
	for (int i = 0; i < N; i++) {
		INIT_WORK(&items[i], slow_fn);
		ASSERT_EQ(schedule_work(&items[i]), 1);
	}
	flush_scheduled_work();
	ASSERT_EQ(atomic_load(&slow_done), N);
	ASSERT_EQ(count_threads_named("events/"), n + 1);
	probe_destroy(&p);
	tsem_destroy(&gate);
}

TEST(schedule_delayed_work_uses_events_queue)
{
	struct probe p;
	int n = online_cpus();
	unsigned long j0;

	probe_init(&p, hws__keventd_wq());
	j0 = jiffies;
	ASSERT_EQ(schedule_delayed_work(&p.dw, 2), 1);
	ASSERT_EQ(schedule_delayed_work(&p.dw, 2), 0);
	PROBE_WAIT_RUNS(&p, 1);
	ASSERT_TRUE(time_after_eq(atomic_load(&p.ran_at), j0 + 2));
	char name[16];
	probe_thread(&p, name);
	ASSERT_EQ(strncmp(name, "events/", 7), 0);
	for (int c = 0; c < n; c++) {
		ASSERT_EQ(schedule_delayed_work_on(c, &p.dw, 1), 1);
		PROBE_WAIT_RUNS(&p, 1);
		probe_check_ran_on(&p, "events", c);
	}
	/* flush_scheduled_work() does not wait for an armed timer. */
	ASSERT_EQ(schedule_delayed_work(&p.dw, 1000 * HZ), 1);
	flush_scheduled_work();
	ASSERT_EQ(probe_runs(&p), 1 + n);
	ASSERT_EQ(cancel_delayed_work(&p.dw), 1);
	probe_destroy(&p);
}

/* ---- signals ---------------------------------------------------------- */

static const int async_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGPIPE, SIGWINCH,
};

/* What an item sees of the thread it runs in. */
struct worker_probe {
	struct work_struct work;
	struct delayed_work dw;
	atomic_int unblocked; /* a signal from async_signals, or 0 */
	atomic_int policy;
	struct tsem ran;
};

static void worker_probe_check(struct worker_probe *p)
{
	sigset_t set;

	sigemptyset(&set);
	ASSERT_EQ(pthread_sigmask(SIG_BLOCK, NULL, &set), 0);
	atomic_store(&p->unblocked, 0);
	for (size_t i = 0; i < sizeof(async_signals) / sizeof(async_signals[0]); i++)
		if (!sigismember(&set, async_signals[i]))
			atomic_store(&p->unblocked, async_signals[i]);
	atomic_store(&p->policy, sched_getscheduler(0));
	tsem_post(&p->ran);
}

static void worker_probe_work_fn(struct work_struct *work)
{
	worker_probe_check(container_of(work, struct worker_probe, work));
}

static void worker_probe_dwork_fn(struct work_struct *work)
{
	worker_probe_check(container_of(work, struct worker_probe, dw.work));
}

static void worker_probe_init(struct worker_probe *p)
{
	tsem_init(&p->ran);
	INIT_WORK(&p->work, worker_probe_work_fn);
	INIT_DELAYED_WORK(&p->dw, worker_probe_dwork_fn);
}

/* Run @p on worker @cpu of @wq; returns the policy it saw. */
static int worker_probe_run(struct worker_probe *p, struct workqueue_struct *wq, int cpu)
{
	atomic_store(&p->unblocked, -1);
	atomic_store(&p->policy, -1);
	ASSERT_EQ(queue_work_on(cpu, wq, &p->work), 1);
	TSEM_WAIT(&p->ran);
	return atomic_load(&p->policy);
}

static void unblock_all_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
}

TEST(workers_block_signals)
{
	struct workqueue_struct *wqs[4];
	struct worker_probe p;

	/* The creating thread blocks nothing: the workers must do it. */
	unblock_all_signals();
	wqs[0] = create_workqueue("sig");
	wqs[1] = create_singlethread_workqueue("sig1");
	wqs[2] = create_freezeable_workqueue("sigf");
	wqs[3] = hws__keventd_wq();
	worker_probe_init(&p);
	for (int q = 0; q < 4; q++) {
		ASSERT_NOT_NULL(wqs[q]);
		for (int c = 0; c < hws_workqueue_nr_workers(wqs[q]); c++) {
			worker_probe_run(&p, wqs[q], c);
			if (atomic_load(&p.unblocked) != 0)
				FAIL("queue %d worker %d does not block signal %d", q, c,
				     atomic_load(&p.unblocked));
			atomic_store(&p.unblocked, -1);
			ASSERT_EQ(queue_delayed_work_on(c, wqs[q], &p.dw, 1), 1);
			TSEM_WAIT(&p.ran);
			ASSERT_EQ(atomic_load(&p.unblocked), 0);
		}
	}
	for (int q = 0; q < 3; q++)
		destroy_workqueue(wqs[q]);
	tsem_destroy(&p.ran);
}

/* ---- scheduling policy ---------------------------------------------- */

/* Fails unless every worker of a new queue of each kind has @policy. */
static void check_workers_policy(int policy)
{
	struct workqueue_struct *wqs[2] = { create_workqueue("pol"), create_singlethread_workqueue("pol1") };
	struct worker_probe p;

	worker_probe_init(&p);
	for (int q = 0; q < 2; q++) {
		ASSERT_NOT_NULL(wqs[q]);
		for (int c = 0; c < hws_workqueue_nr_workers(wqs[q]); c++)
			if (worker_probe_run(&p, wqs[q], c) != policy)
				FAIL("queue %d worker %d: policy %d, not %d", q, c, atomic_load(&p.policy), policy);
		destroy_workqueue(wqs[q]);
	}
	tsem_destroy(&p.ran);
}

/* Deferred work does not preempt the thread that queued it. */
TEST(workers_run_as_batch)
{
	ASSERT_EQ(sched_getscheduler(0), SCHED_OTHER);
	check_workers_policy(SCHED_BATCH);
}

static void *fifo_creator(void *arg)
{
	(void)arg;
	check_workers_policy(SCHED_FIFO);
	return NULL;
}

/* A real-time creator's workers keep the policy they inherit. */
TEST(workers_keep_a_real_time_policy)
{
	struct sched_param param = { .sched_priority = 1 };
	pthread_attr_t attr;
	pthread_t t;
	int r;

	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &param);
	r = pthread_create(&t, &attr, fifo_creator, NULL);
	pthread_attr_destroy(&attr);
	if (r == EPERM) {
		/* Not root, or no real-time budget in this cgroup. */
		fprintf(stderr, "cannot run a SCHED_FIFO thread here: %s; nothing to check\n", strerror(r));
		return;
	}
	ASSERT_EQ(r, 0);
	pthread_join(t, NULL);
}

/*
 * A signal sent to the process goes to a thread that does not block it. With
 * the main thread blocking SIGUSR1 too, no library thread (workers and timer
 * threads) may take it: it must stay pending until the main thread unblocks.
 */
static atomic_long sigusr1_tid;
static atomic_int sigusr1_count;

static void on_sigusr1(int sig)
{
	(void)sig;
	atomic_store(&sigusr1_tid, (long)syscall(SYS_gettid));
	atomic_fetch_add(&sigusr1_count, 1);
}

TEST(process_signals_skip_library_threads)
{
	struct workqueue_struct *wq, *st, *fq;
	struct sigaction sa;
	struct probe p, far;
	sigset_t usr1;

	unblock_all_signals();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);

	wq = create_workqueue("psig");
	st = create_singlethread_workqueue("psig1");
	fq = create_freezeable_workqueue("psigf");
	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(st);
	ASSERT_NOT_NULL(fq);
	probe_init(&p, hws__keventd_wq());
	ASSERT_EQ(schedule_work(&p.work), 1);
	PROBE_WAIT_RUNS(&p, 1);
	probe_init(&far, wq);
	ASSERT_EQ(queue_delayed_work(wq, &far.dw, 1000 * HZ), 1);

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr1, NULL), 0);
	for (int i = 0; i < 20; i++) {
		ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
		sleep_ms(10);
		if (atomic_load(&sigusr1_count) != 0)
			FAIL("SIGUSR1 was handled by thread %ld, a library thread",
			     atomic_load(&sigusr1_tid));
	}
	/* Unblocking delivers the pending signal here. */
	ASSERT_EQ(pthread_sigmask(SIG_UNBLOCK, &usr1, NULL), 0);
	for (int ms = 0; ms < WAIT_MS && atomic_load(&sigusr1_count) == 0; ms++)
		sleep_ms(1);
	ASSERT_EQ(atomic_load(&sigusr1_count), 1);
	ASSERT_EQ(atomic_load(&sigusr1_tid), (long)syscall(SYS_gettid));

	ASSERT_EQ(cancel_delayed_work(&far.dw), 1);
	destroy_workqueue(wq);
	destroy_workqueue(st);
	destroy_workqueue(fq);
	probe_destroy(&p);
	probe_destroy(&far);
}

/* ---- timers far away do not wake the process -------------------------- */

static long context_switches(void)
{
	struct rusage ru;

	ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

TEST(far_timers_do_not_wake_the_process)
{
	enum { N = 1000 };
	struct workqueue_struct *wq = create_workqueue("idle");
	struct delayed_work *dw = calloc(N, sizeof(*dw));
	unsigned int seed = 1;
	long before, after;

	ASSERT_NOT_NULL(wq);
	ASSERT_NOT_NULL(dw);
	for (int i = 0; i < N; i++) {
		INIT_DELAYED_WORK(&dw[i], slow_fn);
		ASSERT_EQ(queue_delayed_work(wq, &dw[i],
					     100 * HZ + (unsigned long)(rand_r(&seed) % (1000 * HZ))),
			  1);
	}
	sleep_ms(100);
	before = context_switches();
	sleep_ms(1000);
	after = context_switches();
	/* A thread woken on every tick would switch about 300 times. */
	if (after - before > 30)
		FAIL("%ld context switches in 1 s with only far timers armed",
		     after - before);
	for (int i = 0; i < N; i++)
		ASSERT_EQ(cancel_delayed_work(&dw[i]), 1);
	destroy_workqueue(wq);
	free(dw);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
