/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stress tests: several threads race every operation of the workqueue API
 * on a shared set of items for a few seconds (HWS_STRESS_SECONDS, default
 * 3), some items re-arming themselves, while another thread freezes and
 * thaws. Meant to be run under TSan as well. Invariants checked:
 *  - on the single-threaded and the freezeable queue no two handlers ever
 *    run at once, and an item's handler never runs twice at once;
 *  - nothing starts on the freezeable queue while it is frozen;
 *  - after a final cancel_*_sync() of every item, nothing runs any more;
 *  - nothing hangs (the harness watchdog and ctest's timeout catch that).
 */

#include <hwsight/workqueue.h>

#include "task.h"
#include "wq-util.h"

enum { Q_MULTI, Q_SINGLE, Q_FREEZE, NQUEUES };
enum { NITEMS = 36, NRACERS = 4 };

struct sitem {
	struct delayed_work dw;
	int q;                 /* index in queues[], fixed */
	atomic_int rearm;      /* < 0: no; else re-arm with this delay */
	atomic_int running;
	atomic_long runs;
};

static struct workqueue_struct *queues[NQUEUES];
static atomic_int queue_running[NQUEUES];
static atomic_long queue_runs[NQUEUES];
static struct sitem items[NITEMS];
static atomic_bool stop;
static atomic_long total_runs;

static void spin(unsigned int n)
{
	for (volatile unsigned int i = 0; i < n; i++)
		;
}

static void sitem_fn(struct work_struct *work)
{
	struct sitem *s = container_of(work, struct sitem, dw.work);
	int q_prev = atomic_fetch_add(&queue_running[s->q], 1);
	int prev = atomic_fetch_add(&s->running, 1);
	int rearm;

	if (s->q != Q_MULTI && q_prev != 0)
		FAIL("two handlers at once on single-threaded queue %d", s->q);
	if (s->q != Q_MULTI && prev != 0)
		FAIL("item %d runs twice at once", (int)(s - items));
	atomic_fetch_add(&s->runs, 1);
	atomic_fetch_add(&queue_runs[s->q], 1);
	atomic_fetch_add(&total_runs, 1);
	spin(200 + (unsigned int)(s - items) * 50);
	rearm = atomic_load(&s->rearm);
	if (rearm >= 0)
		queue_delayed_work(queues[s->q], &s->dw, (unsigned long)rearm);
	atomic_fetch_sub(&s->running, 1);
	atomic_fetch_sub(&queue_running[s->q], 1);
}

static int stress_seconds(void)
{
	const char *s = getenv("HWS_STRESS_SECONDS");
	int v = s ? atoi(s) : 3;

	return v > 0 ? v : 3;
}

/*
 * The racers' operations, one X-macro list: HWS_STRESS_SKIP=name,name...
 * leaves some out, to tell which one a failure needs.
 */
#define STRESS_OPS(X)                                                         \
	X(queue_delayed_work)                                                 \
	X(queue_work)                                                         \
	X(queue_delayed_work_on)                                              \
	X(cancel_delayed_work)                                                \
	X(cancel_delayed_work_sync)                                           \
	X(cancel_work_sync)                                                   \
	X(flush_work)                                                         \
	X(flush_delayed_work)                                                 \
	X(mod_delayed_work)                                                   \
	X(mod_delayed_work_on)                                                \
	X(flush_workqueue)                                                    \
	X(set_rearm)                                                          \
	X(run_scheduled_work)                                                 \
	X(cancel_rearming)                                                    \
	X(pending)

#define X_ENUM(name) OP_##name,
#define X_NAME(name) #name,
enum { STRESS_OPS(X_ENUM) NOPS };
static const char *const op_names[NOPS] = { STRESS_OPS(X_NAME) };
static int enabled_ops[NOPS];
static int nenabled_ops;

static void select_ops(void)
{
	const char *skip = getenv("HWS_STRESS_SKIP");

	nenabled_ops = 0;
	for (int op = 0; op < NOPS; op++) {
		const char *p = skip;
		size_t len = strlen(op_names[op]);
		bool skipped = false;

		while (p && *p && !skipped) {
			size_t n = strcspn(p, ",");

			skipped = n == len && strncmp(p, op_names[op], n) == 0;
			p += n + (p[n] == ',');
		}
		if (skipped)
			printf("# skipping %s\n", op_names[op]);
		else
			enabled_ops[nenabled_ops++] = op;
	}
	ASSERT_GT(nenabled_ops, 0);
}

static void racer(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg * 7919u + 1;
	long ops = 0;

	while (!atomic_load(&stop)) {
		struct sitem *s = &items[rand_r(&seed) % NITEMS];
		struct workqueue_struct *wq = queues[s->q];
		unsigned long delay = (unsigned long)(rand_r(&seed) % 4);
		int cpu = rand_r(&seed) % 4;

		switch (enabled_ops[rand_r(&seed) % (unsigned int)nenabled_ops]) {
		case OP_queue_delayed_work:
			queue_delayed_work(wq, &s->dw, delay);
			break;
		case OP_queue_work:
			queue_work(wq, &s->dw.work);
			break;
		case OP_queue_delayed_work_on:
			queue_delayed_work_on(cpu, wq, &s->dw, delay);
			break;
		case OP_cancel_delayed_work:
			cancel_delayed_work(&s->dw);
			break;
		case OP_cancel_delayed_work_sync:
			cancel_delayed_work_sync(&s->dw);
			break;
		case OP_cancel_work_sync:
			cancel_work_sync(&s->dw.work);
			break;
		case OP_flush_work:
			flush_work(&s->dw.work);
			break;
		case OP_flush_delayed_work:
			flush_delayed_work(&s->dw);
			break;
		case OP_mod_delayed_work:
			mod_delayed_work(wq, &s->dw, delay);
			break;
		case OP_mod_delayed_work_on:
			mod_delayed_work_on(cpu, wq, &s->dw, delay);
			break;
		case OP_flush_workqueue:
			flush_workqueue(queues[rand_r(&seed) % NQUEUES]);
			break;
		case OP_set_rearm:
			atomic_store(&s->rearm, (int)(rand_r(&seed) % 4) - 1);
			break;
		case OP_run_scheduled_work:
			/* Only where running in the caller breaks no invariant. */
			if (s->q == Q_MULTI)
				run_scheduled_work(&s->dw.work);
			break;
		case OP_cancel_rearming:
			cancel_rearming_delayed_workqueue(wq, &s->dw);
			break;
		case OP_pending:
			(void)delayed_work_pending(&s->dw);
			(void)jiffies;
			break;
		}
		ops++;
	}
	printf("# racer %d: %ld operations\n", (int)(uintptr_t)arg, ops);
}

/* Freezes and thaws; nothing may start on the freezeable queue in between. */
static void freezer(void *arg)
{
	unsigned int seed = 99;
	long cycles = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		long before;
		int ret = freeze_workqueues();

		if (ret != 0)
			FAIL("freeze_workqueues() returned %d", ret);
		before = atomic_load(&queue_runs[Q_FREEZE]);
		if (atomic_load(&queue_running[Q_FREEZE]) != 0)
			FAIL("a handler runs on the freezeable queue after the freeze");
		sleep_ms(1 + rand_r(&seed) % 10);
		if (atomic_load(&queue_runs[Q_FREEZE]) != before)
			FAIL("%ld handlers ran on the frozen queue",
			     atomic_load(&queue_runs[Q_FREEZE]) - before);
		thaw_workqueues();
		sleep_ms(1 + rand_r(&seed) % 10);
		cycles++;
	}
	printf("# freezer: %ld cycles\n", cycles);
}

/* Items whose memory comes and goes, on the multi-threaded queue. */
struct churn_item {
	struct delayed_work dw;
	atomic_int rearm;
	char payload[32];
};

static atomic_long churn_selffree_live;

static void churn_fn(struct work_struct *work)
{
	struct churn_item *c = container_of(work, struct churn_item, dw.work);

	memset(c->payload, 0x3c, sizeof(c->payload));
	if (atomic_load(&c->rearm) >= 0)
		queue_delayed_work(queues[Q_MULTI], &c->dw, (unsigned long)atomic_load(&c->rearm));
}

static void churn_selffree_fn(struct work_struct *work)
{
	free(container_of(work, struct churn_item, dw.work));
	atomic_fetch_sub(&churn_selffree_live, 1);
}

static void churner(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	long rounds = 0;

	while (!atomic_load(&stop)) {
		struct churn_item *c = malloc(sizeof(*c));

		ASSERT_NOT_NULL(c);
		if (rand_r(&seed) % 3 == 0) {
			/* Fire and forget: the handler frees it. */
			INIT_DELAYED_WORK(&c->dw, churn_selffree_fn);
			atomic_fetch_add(&churn_selffree_live, 1);
			ASSERT_EQ(queue_delayed_work(queues[Q_MULTI], &c->dw,
						     (unsigned long)(rand_r(&seed) % 3)), 1);
		} else {
			INIT_DELAYED_WORK(&c->dw, churn_fn);
			atomic_init(&c->rearm, (int)(rand_r(&seed) % 3) - 1);
			ASSERT_EQ(queue_delayed_work(queues[Q_MULTI], &c->dw,
						     (unsigned long)(rand_r(&seed) % 3)), 1);
			if (rand_r(&seed) % 2)
				spin(rand_r(&seed) % 20000);
			if (rand_r(&seed) % 2)
				flush_delayed_work(&c->dw);
			cancel_delayed_work_sync(&c->dw);
			if (delayed_work_pending(&c->dw))
				FAIL("pending after cancel_delayed_work_sync()");
			free(c);
		}
		rounds++;
	}
	printf("# churner %d: %ld items\n", (int)(uintptr_t)arg, rounds);
}

static void setup(void)
{
	select_ops();
	queues[Q_MULTI] = create_workqueue("smulti");
	queues[Q_SINGLE] = create_singlethread_workqueue("ssingle");
	queues[Q_FREEZE] = create_freezeable_workqueue("sfreeze");
	for (int q = 0; q < NQUEUES; q++)
		ASSERT_NOT_NULL(queues[q]);
	for (int i = 0; i < NITEMS; i++) {
		items[i].q = i % NQUEUES;
		atomic_init(&items[i].rearm, i % 4 == 0 ? 0 : i % 4 == 1 ? 1 : -1);
		INIT_DELAYED_WORK(&items[i].dw, sitem_fn);
		ASSERT_EQ(queue_delayed_work(queues[items[i].q], &items[i].dw,
					     (unsigned long)(i % 3)), 1);
	}
}

/* Cancels everything (self-rearming items included), then checks quiet. */
static void teardown(void)
{
	long runs;

	for (int i = 0; i < NITEMS; i++) {
		cancel_delayed_work_sync(&items[i].dw);
		if (atomic_load(&items[i].running) != 0)
			FAIL("item %d still running after cancel_delayed_work_sync()", i);
	}
	for (int i = 0; i < NITEMS; i++)
		if (delayed_work_pending(&items[i].dw))
			FAIL("item %d pending after cancel_delayed_work_sync()", i);
	runs = atomic_load(&total_runs);
	sleep_ms(200);
	if (atomic_load(&total_runs) != runs)
		FAIL("%ld handlers ran after every item was cancelled",
		     atomic_load(&total_runs) - runs);
	printf("# %ld handler runs in all\n", runs);
	for (int q = 0; q < NQUEUES; q++) {
		flush_workqueue(queues[q]);
		destroy_workqueue(queues[q]);
	}
}

TEST_TIMEOUT(race, 120)
{
	struct bg_call racers[NRACERS], fr;

	setup();
	for (int i = 0; i < NRACERS; i++)
		bg_call_start(&racers[i], racer, (void *)(uintptr_t)i);
	bg_call_start(&fr, freezer, NULL);
	sleep_ms((unsigned int)stress_seconds() * 1000);
	atomic_store(&stop, true);
	for (int i = 0; i < NRACERS; i++)
		BG_CALL_JOIN(&racers[i]);
	BG_CALL_JOIN(&fr);
	teardown();
}

TEST_TIMEOUT(alloc_free, 120)
{
	struct bg_call churners[3], racers[2];

	setup();
	for (int i = 0; i < 3; i++)
		bg_call_start(&churners[i], churner, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < 2; i++)
		bg_call_start(&racers[i], racer, (void *)(uintptr_t)(i + 10));
	sleep_ms((unsigned int)stress_seconds() * 1000);
	atomic_store(&stop, true);
	for (int i = 0; i < 3; i++)
		BG_CALL_JOIN(&churners[i]);
	for (int i = 0; i < 2; i++)
		BG_CALL_JOIN(&racers[i]);
	/* Self-freeing items run within their few jiffies of delay. */
	for (int ms = 0; ms < WAIT_MS && atomic_load(&churn_selffree_live) != 0; ms += 10)
		sleep_ms(10);
	flush_workqueue(queues[Q_MULTI]);
	ASSERT_EQ(atomic_load(&churn_selffree_live), 0);
	teardown();
}

/*
 * Focused races on a few items, each for one second: several threads
 * calling mod_delayed_work(), or queueing and cancel_delayed_work_sync().
 * Each call must leave the item armed or queued once, never twice, and
 * never lose track of its queue.
 */
static void modder(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!atomic_load(&stop)) {
		struct sitem *s = &items[rand_r(&seed) % 4];

		mod_delayed_work(queues[s->q], &s->dw, (unsigned long)(rand_r(&seed) % 3));
	}
}

static void canceller(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!atomic_load(&stop)) {
		struct sitem *s = &items[rand_r(&seed) % 4];

		if (rand_r(&seed) % 2)
			queue_delayed_work(queues[s->q], &s->dw, (unsigned long)(rand_r(&seed) % 3));
		else
			cancel_delayed_work_sync(&s->dw);
	}
}

static void focused_race(void (*fn)(void *))
{
	struct bg_call threads[3];

	setup();
	for (int i = 0; i < 3; i++)
		bg_call_start(&threads[i], fn, (void *)(uintptr_t)(i + 20));
	sleep_ms(1000);
	atomic_store(&stop, true);
	for (int i = 0; i < 3; i++)
		BG_CALL_JOIN(&threads[i]);
	teardown();
}

TEST_TIMEOUT(mod_race, 60)
{
	focused_race(modder);
}

TEST_TIMEOUT(cancel_sync_race, 60)
{
	focused_race(canceller);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
