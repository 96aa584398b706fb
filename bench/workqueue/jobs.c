/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The four job drivers. Each runs one repetition of its job on one backend
 * through struct bench_backend_ops, so the same loop times every library.
 */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobs.h"

#define NS_PER_MS 1000000ULL
#define NS_PER_S  1000000000ULL

#define LOWER  BENCH_LOWER_IS_BETTER
#define HIGHER BENCH_HIGHER_IS_BETTER

/*
 * Each job's figures, by index into the values a repetition fills; the
 * metric tables below are indexed by the same names.
 */
enum { M_ARM, M_CANCEL, M_ARM_CANCEL, M_NOT_PENDING };
enum { M_ITEMS_PER_S, M_START_P50, M_START_P99, M_ASLEEP_P50, M_ASLEEP_P99 };
enum { M_LATE_P50, M_LATE_P99, M_LATE_MAX, M_EARLY, M_TICK_P50, M_TICK_P99, M_TICK_MAX };
enum { M_WAKEUPS, M_POLLS };

/* hwsight's jiffy: 1/300 s. */
#define TICK_NS (NS_PER_S / 300)

/* Job 3 arms this many timers at a time. */
#define LATENESS_BATCH 100

/* How long past its latest due time a job waits before calling a timer lost. */
#define LOST_TIMER_GRACE_NS (30 * NS_PER_S)

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* splitmix64: the same seed gives every backend the same delays. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned *random_ms(size_t n, unsigned lo, unsigned hi, uint64_t seed)
{
	unsigned *v = malloc(n * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = lo + (unsigned)(rng_next(&seed) % (hi - lo + 1U));
	return v;
}

/* ---- what the backends call back into ---- */

enum timers_mode {
	TIMERS_SILENT,  /* job 1: nothing should fire */
	TIMERS_ONESHOT, /* job 3: each fires once */
	TIMERS_POLL,    /* job 4: each re-arms until told to stop */
};

struct fire_record {
	uint64_t ns;
	uint64_t wake_id;
};

struct bench_timers {
	enum timers_mode mode;
	size_t n;
	atomic_size_t active;     /* armed, or fired and not yet told to stop */
	atomic_bool stopping;
	atomic_size_t unexpected; /* fires job 1 did not want, or repeats in job 3 */
	pthread_mutex_t lock;     /* only for the idle condition */
	pthread_cond_t idle;

	uint64_t *fire_ns;        /* ONESHOT: written once per slot by its callback */
	uint64_t *tick_ns;

	struct fire_record *fires; /* POLL: appended from any timer thread */
	size_t fires_cap;
	atomic_size_t n_fires;
};

struct bench_items {
	uint64_t *start_ns; /* NULL while measuring throughput: items do nothing */
};

static void timer_done(struct bench_timers *t)
{
	if (atomic_fetch_sub(&t->active, 1) != 1)
		return;
	pthread_mutex_lock(&t->lock);
	pthread_cond_broadcast(&t->idle);
	pthread_mutex_unlock(&t->lock);
}

bool bench_timer_fired(struct bench_timers *t, size_t i, uint64_t wake_id, uint64_t tick_due_ns)
{
	uint64_t now = bench_now_ns();
	size_t k;

	switch (t->mode) {
	case TIMERS_SILENT:
		atomic_fetch_add(&t->unexpected, 1);
		return false;
	case TIMERS_ONESHOT:
		if (t->fire_ns[i]) {
			atomic_fetch_add(&t->unexpected, 1);
			return false;
		}
		t->fire_ns[i] = now;
		t->tick_ns[i] = tick_due_ns;
		break;
	case TIMERS_POLL:
		k = atomic_fetch_add(&t->n_fires, 1);
		if (k < t->fires_cap)
			t->fires[k] = (struct fire_record){ .ns = now, .wake_id = wake_id };
		if (!atomic_load(&t->stopping))
			return true;
		break;
	}
	timer_done(t);
	return false;
}

size_t bench_timers_active(struct bench_timers *t)
{
	return atomic_load(&t->active);
}

void bench_timers_wait(struct bench_timers *t, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NS_PER_S),
		.tv_nsec = (long)(deadline_ns % NS_PER_S),
	};

	pthread_mutex_lock(&t->lock);
	while (atomic_load(&t->active) > 0)
		if (pthread_cond_timedwait(&t->idle, &t->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&t->lock);
}

void bench_item_run(struct bench_items *w, size_t i)
{
	if (w->start_ns)
		w->start_ns[i] = bench_now_ns();
}

static int timers_init(struct bench_timers *t, enum timers_mode mode, size_t n, size_t fires_cap)
{
	pthread_condattr_t attr;

	*t = (struct bench_timers){ .mode = mode, .n = n, .fires_cap = fires_cap };
	atomic_init(&t->active, 0);
	atomic_init(&t->stopping, false);
	atomic_init(&t->unexpected, 0);
	atomic_init(&t->n_fires, 0);
	pthread_mutex_init(&t->lock, NULL);
	/* bench_timers_wait() takes CLOCK_MONOTONIC deadlines. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&t->idle, &attr);
	pthread_condattr_destroy(&attr);

	if (mode == TIMERS_ONESHOT) {
		t->fire_ns = calloc(n, sizeof(*t->fire_ns));
		t->tick_ns = calloc(n, sizeof(*t->tick_ns));
		if (!t->fire_ns || !t->tick_ns)
			return -ENOMEM;
	}
	if (mode == TIMERS_POLL) {
		t->fires = calloc(fires_cap, sizeof(*t->fires));
		if (!t->fires)
			return -ENOMEM;
	}
	return 0;
}

static void timers_fini(struct bench_timers *t)
{
	pthread_cond_destroy(&t->idle);
	pthread_mutex_destroy(&t->lock);
	free(t->fire_ns);
	free(t->tick_ns);
	free(t->fires);
}

/*
 * Stop re-arming and kill every armed timer; callbacks already under way
 * finish on their own and see the stop.
 */
static int timers_cancel_all(const struct bench_backend_ops *ops, struct bench_backend *b,
			     struct bench_timers *t)
{
	atomic_store(&t->stopping, true);
	for (size_t i = 0; i < t->n; i++) {
		int r = ops->timer_cancel(b, i);

		if (r < 0)
			return r;
		if (r > 0 && t->mode != TIMERS_SILENT)
			timer_done(t);
	}
	return 0;
}

static double us(double ns)
{
	return ns / 1e3;
}

/* ---- job 1: arm then cancel ---- */

static void arm_cancel_describe(const struct bench_opts *o, char *buf, size_t size)
{
	snprintf(buf, size, "arm then cancel %zu delayed items, random delays %u..%u ms (ns per op)",
		 o->arm_n, o->arm_min_ms, o->arm_max_ms);
}

static int arm_cancel_run(const struct bench_backend_ops *ops, const struct bench_opts *o,
			  uint64_t seed, double *v, char *err, size_t err_size)
{
	struct bench_backend *b = NULL;
	struct bench_timers t;
	size_t n = o->arm_n, missed = 0, i = 0;
	unsigned *delay = random_ms(n, o->arm_min_ms, o->arm_max_ms, seed);
	uint64_t t0, t1, t2;
	int r;

	r = timers_init(&t, TIMERS_SILENT, n, 0);
	if (r < 0 || !delay) {
		r = -ENOMEM;
		snprintf(err, err_size, "out of memory for %zu items", n);
		goto out;
	}
	r = ops->open(&b);
	if (r >= 0)
		r = ops->timers_new(b, &t, n);
	if (r < 0) {
		snprintf(err, err_size, "setting up %zu timers: %s", n, strerror(-r));
		goto out;
	}

	/* Every arm shares one "now": this job times arming, not the clock. */
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		r = ops->timer_arm(b, i, delay[i], t0);
		if (r < 0) {
			snprintf(err, err_size, "arming item %zu: %s", i, strerror(-r));
			goto out;
		}
	}
	t1 = bench_now_ns();
	for (i = 0; i < n; i++) {
		r = ops->timer_cancel(b, i);
		if (r < 0) {
			snprintf(err, err_size, "cancelling item %zu: %s", i, strerror(-r));
			goto out;
		}
		missed += r == 0;
	}
	t2 = bench_now_ns();
	r = 0;

	v[M_ARM] = (double)(t1 - t0) / (double)n;
	v[M_CANCEL] = (double)(t2 - t1) / (double)n;
	v[M_ARM_CANCEL] = (double)(t2 - t0) / (double)n;
	/*
	 * The shortest delay is far longer than the whole loop, so a cancel
	 * that found nothing armed means a timer fired early or was lost.
	 */
	v[M_NOT_PENDING] = (double)missed;
out:
	atomic_store(&t.stopping, true);
	ops->close(b);
	timers_fini(&t);
	free(delay);
	return r;
}

static const struct bench_metric arm_cancel_metrics[] = {
	[M_ARM] = { .key = "arm_ns", .label = "arm", .unit = "ns/op", .better = LOWER },
	[M_CANCEL] = { .key = "cancel_ns", .label = "cancel", .unit = "ns/op", .better = LOWER },
	[M_ARM_CANCEL] = { .key = "arm_cancel_ns", .label = "arm+cancel", .unit = "ns/op", .better = LOWER },
	[M_NOT_PENDING] = { .key = "not_pending", .label = "not pending", .unit = "items", .better = LOWER },
};

/* ---- job 2: immediate work ---- */

static void work_describe(const struct bench_opts *o, char *buf, size_t size)
{
	snprintf(buf, size,
		 "immediate work on 2 workers: %zu no-op items queued at once (items/s), "
		 "then %zu items one at a time (enqueue-to-start latency), then %zu more "
		 "each after %u ms of idleness (asleep)",
		 o->work_n, o->lat_n, o->asleep_n, o->asleep_gap_ms);
}

/*
 * Enqueue-to-start latency of @n items sent one at a time, each queued
 * once the previous one has finished and @gap_ns more have passed, into
 * ret[0] (p50) and ret[1] (p99), in us. Uses items 0..n-1; @enq and @lat
 * hold @n values.
 */
static int latency_run(const struct bench_backend_ops *ops, struct bench_backend *b,
		       struct bench_items *w, size_t n, uint64_t gap_ns, uint64_t *enq,
		       double *lat, double *ret, char *err, size_t err_size)
{
	struct timespec gap = { .tv_sec = (time_t)(gap_ns / NS_PER_S), .tv_nsec = (long)(gap_ns % NS_PER_S) };
	int r;

	memset(w->start_ns, 0, n * sizeof(*w->start_ns));
	for (size_t i = 0; i < n; i++) {
		if (gap_ns)
			clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, NULL);
		enq[i] = bench_now_ns();
		r = ops->work_submit(b, i);
		if (r >= 0)
			r = ops->work_drain(b);
		if (r < 0) {
			snprintf(err, err_size, "latency item %zu: %s", i, strerror(-r));
			return r;
		}
		if (!w->start_ns[i]) {
			snprintf(err, err_size, "latency item %zu had not run when its drain returned", i);
			return -EIO;
		}
		lat[i] = (double)(int64_t)(w->start_ns[i] - enq[i]);
	}
	qsort(lat, n, sizeof(*lat), bench_cmp_double);
	ret[0] = us(bench_quantile_sorted(lat, n, 0.50));
	ret[1] = us(bench_quantile_sorted(lat, n, 0.99));
	return 0;
}

static int work_run(const struct bench_backend_ops *ops, const struct bench_opts *o,
		    uint64_t seed, double *v, char *err, size_t err_size)
{
	struct bench_backend *b = NULL;
	struct bench_items w = { .start_ns = NULL };
	size_t n_lat = o->lat_n > o->asleep_n ? o->lat_n : o->asleep_n;
	size_t n = o->work_n > n_lat ? o->work_n : n_lat;
	uint64_t *enq = calloc(n_lat, sizeof(*enq));
	uint64_t *start = calloc(n_lat, sizeof(*start));
	double *lat = calloc(n_lat, sizeof(*lat));
	uint64_t t0, t1;
	int r = -ENOMEM;

	if (!enq || !start || !lat) {
		snprintf(err, err_size, "out of memory for %zu items", n_lat);
		goto out;
	}
	r = ops->open(&b);
	if (r >= 0)
		r = ops->work_new(b, &w, n);
	if (r < 0) {
		snprintf(err, err_size, "setting up %zu items: %s", n, strerror(-r));
		goto out;
	}

	t0 = bench_now_ns();
	for (size_t i = 0; i < o->work_n; i++) {
		r = ops->work_submit(b, i);
		if (r < 0) {
			snprintf(err, err_size, "queueing item %zu: %s", i, strerror(-r));
			goto out;
		}
	}
	r = ops->work_drain(b);
	t1 = bench_now_ns();
	if (r < 0) {
		snprintf(err, err_size, "waiting for %zu items: %s", o->work_n, strerror(-r));
		goto out;
	}
	v[M_ITEMS_PER_S] = (double)o->work_n / ((double)(t1 - t0) / 1e9);

	/*
	 * Latency one item at a time, a burst would only measure how long the
	 * backlog is: first each queued as the previous one ends, the workers
	 * just busy; then after a pause that lets every worker fall asleep,
	 * where the figure is the wake-up a library makes its workers pay.
	 */
	w.start_ns = start;
	r = latency_run(ops, b, &w, o->lat_n, 0, enq, lat, v + M_START_P50, err, err_size);
	if (r >= 0)
		r = latency_run(ops, b, &w, o->asleep_n, o->asleep_gap_ms * NS_PER_MS, enq, lat,
				v + M_ASLEEP_P50, err, err_size);
out:
	ops->close(b);
	free(enq);
	free(start);
	free(lat);
	(void)seed;
	return r;
}

static const struct bench_metric work_metrics[] = {
	[M_ITEMS_PER_S] = { .key = "items_per_s", .label = "throughput", .unit = "items/s", .better = HIGHER },
	[M_START_P50] = { .key = "latency_p50_us", .label = "start p50", .unit = "us", .better = LOWER },
	[M_START_P99] = { .key = "latency_p99_us", .label = "start p99", .unit = "us", .better = LOWER },
	[M_ASLEEP_P50] = { .key = "asleep_p50_us", .label = "asleep p50", .unit = "us", .better = LOWER },
	[M_ASLEEP_P99] = { .key = "asleep_p99_us", .label = "asleep p99", .unit = "us", .better = LOWER },
};

/* ---- job 3: timer lateness ---- */

static void lateness_describe(const struct bench_opts *o, char *buf, size_t size)
{
	snprintf(buf, size,
		 "timer lateness: %zu one-shot timers due 1..%u ms after arming, "
		 "fire time minus requested due time (us)",
		 o->late_n, o->late_max_ms);
}

static void quantiles_us(double *v, size_t n, double *ret)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	ret[0] = us(bench_quantile_sorted(v, n, 0.50));
	ret[1] = us(bench_quantile_sorted(v, n, 0.99));
	ret[2] = us(v[n - 1]);
}

static int lateness_run(const struct bench_backend_ops *ops, const struct bench_opts *o,
			uint64_t seed, double *v, char *err, size_t err_size)
{
	struct bench_backend *b = NULL;
	struct bench_timers t;
	size_t n = o->late_n, early = 0;
	unsigned *delay = random_ms(n, 1, o->late_max_ms, seed);
	uint64_t *arm_ns = calloc(n, sizeof(*arm_ns));
	double *late = calloc(n, sizeof(*late));
	uint64_t pause_rng = ~seed;
	int r;

	r = timers_init(&t, TIMERS_ONESHOT, n, 0);
	if (r < 0 || !delay || !arm_ns || !late) {
		r = -ENOMEM;
		snprintf(err, err_size, "out of memory for %zu timers", n);
		goto out;
	}
	r = ops->open(&b);
	if (r >= 0)
		r = ops->timers_new(b, &t, n);
	if (r < 0) {
		snprintf(err, err_size, "setting up %zu timers: %s", n, strerror(-r));
		goto out;
	}

	atomic_store(&t.active, n);
	for (size_t i = 0; i < n; i++) {
		/*
		 * Arm in batches with the loop running for a random fraction of
		 * a 1/300 s tick in between, so that arming happens at every
		 * phase of each library's grid (ms or jiffy) instead of at one.
		 */
		if (i && i % LATENESS_BATCH == 0) {
			r = ops->timers_run(b, bench_now_ns() + rng_next(&pause_rng) % TICK_NS);
			if (r < 0) {
				snprintf(err, err_size, "running the timers: %s", strerror(-r));
				goto out;
			}
		}
		if (ops->clock_sync)
			ops->clock_sync(b);
		arm_ns[i] = bench_now_ns();
		r = ops->timer_arm(b, i, delay[i], arm_ns[i]);
		if (r < 0) {
			snprintf(err, err_size, "arming timer %zu: %s", i, strerror(-r));
			goto out;
		}
	}
	r = ops->timers_run(b, bench_now_ns() + o->late_max_ms * NS_PER_MS + LOST_TIMER_GRACE_NS);
	if (r < 0) {
		snprintf(err, err_size, "running the timers: %s", strerror(-r));
		goto out;
	}
	if (bench_timers_active(&t) || atomic_load(&t.unexpected)) {
		r = -EIO;
		snprintf(err, err_size, "%zu of %zu timers never fired, %zu fired more than once",
			 bench_timers_active(&t), n, atomic_load(&t.unexpected));
		goto out;
	}

	for (size_t i = 0; i < n; i++) {
		late[i] = (double)(int64_t)(t.fire_ns[i] - (arm_ns[i] + delay[i] * NS_PER_MS));
		early += late[i] < 0;
	}
	quantiles_us(late, n, v + M_LATE_P50);
	v[M_EARLY] = 100.0 * (double)early / (double)n;

	/* Against the tick the library itself chose: its own precision. */
	v[M_TICK_P50] = v[M_TICK_P99] = v[M_TICK_MAX] = NAN;
	if (t.tick_ns[0]) {
		for (size_t i = 0; i < n; i++)
			late[i] = (double)(int64_t)(t.fire_ns[i] - t.tick_ns[i]);
		quantiles_us(late, n, v + M_TICK_P50);
	}
	r = 0;
out:
	if (r < 0)
		atomic_store(&t.stopping, true);
	ops->close(b);
	timers_fini(&t);
	free(delay);
	free(arm_ns);
	free(late);
	return r;
}

static const struct bench_metric lateness_metrics[] = {
	[M_LATE_P50] = { .key = "late_p50_us", .label = "late p50", .unit = "us", .better = LOWER },
	[M_LATE_P99] = { .key = "late_p99_us", .label = "late p99", .unit = "us", .better = LOWER },
	[M_LATE_MAX] = { .key = "late_max_us", .label = "late max", .unit = "us", .better = LOWER },
	[M_EARLY] = { .key = "early_pct", .label = "early", .unit = "%", .better = LOWER },
	[M_TICK_P50] = { .key = "tick_late_p50_us", .label = "p50", .unit = "us", .better = LOWER,
		.aside = true },
	[M_TICK_P99] = { .key = "tick_late_p99_us", .label = "p99", .unit = "us", .better = LOWER,
		.aside = true },
	[M_TICK_MAX] = { .key = "tick_late_max_us", .label = "max", .unit = "us", .better = LOWER,
		.aside = true },
};

/* ---- job 4: coalescing ---- */

static void coalesce_describe(const struct bench_opts *o, char *buf, size_t size)
{
	snprintf(buf, size,
		 "coalescing: %zu one-second pollers started with random phase, "
		 "wake-ups per second over %u ms, counted from %u s after the start",
		 o->poll_n, o->poll_window_ms, o->poll_warmup);
}

static int coalesce_run(const struct bench_backend_ops *ops, const struct bench_opts *o,
			uint64_t seed, double *v, char *err, size_t err_size)
{
	struct bench_backend *b = NULL;
	struct bench_timers t;
	size_t n = o->poll_n, polls = 0, wakeups = 0;
	unsigned *phase = random_ms(n, 1, BENCH_POLL_PERIOD_MS, seed);
	/* Every poller fires at most once a period, plus once as it stops. */
	size_t cap = n * (o->poll_warmup + o->poll_window_ms / BENCH_POLL_PERIOD_MS + 4);
	uint64_t *ids = calloc(cap, sizeof(*ids));
	uint64_t t0, win0, win1;
	int r;

	r = timers_init(&t, TIMERS_POLL, n, cap);
	if (r < 0 || !phase || !ids) {
		r = -ENOMEM;
		snprintf(err, err_size, "out of memory for %zu pollers", n);
		goto out;
	}
	r = ops->open(&b);
	if (r >= 0)
		r = ops->timers_new(b, &t, n);
	if (r < 0) {
		snprintf(err, err_size, "setting up %zu pollers: %s", n, strerror(-r));
		goto out;
	}

	/*
	 * The first firing lands on the random phase with an exact timer;
	 * every later one re-arms through the library's coalescing, so after
	 * the warm-up only coalesced firings remain, in their steady rhythm.
	 */
	atomic_store(&t.active, n);
	t0 = bench_now_ns();
	for (size_t i = 0; i < n; i++) {
		if (ops->clock_sync)
			ops->clock_sync(b);
		r = ops->timer_arm(b, i, phase[i], bench_now_ns());
		if (r < 0) {
			snprintf(err, err_size, "arming poller %zu: %s", i, strerror(-r));
			goto out;
		}
	}
	win0 = t0 + o->poll_warmup * BENCH_POLL_PERIOD_MS * NS_PER_MS;
	win1 = win0 + o->poll_window_ms * NS_PER_MS;
	r = ops->timers_run(b, win1);
	if (r >= 0)
		r = timers_cancel_all(ops, b, &t);
	if (r >= 0)
		r = ops->timers_run(b, bench_now_ns() + LOST_TIMER_GRACE_NS);
	if (r < 0) {
		snprintf(err, err_size, "running the pollers: %s", strerror(-r));
		goto out;
	}
	if (bench_timers_active(&t) || atomic_load(&t.n_fires) > cap) {
		r = -EIO;
		snprintf(err, err_size, "%zu pollers did not stop; %zu firings where at most %zu fit",
			 bench_timers_active(&t), atomic_load(&t.n_fires), cap);
		goto out;
	}

	for (size_t k = 0; k < atomic_load(&t.n_fires); k++)
		if (t.fires[k].ns >= win0 && t.fires[k].ns < win1)
			ids[polls++] = t.fires[k].wake_id;
	/* Callbacks of one wake-up share an id: count the distinct ones. */
	qsort(ids, polls, sizeof(*ids), bench_cmp_u64);
	for (size_t k = 0; k < polls; k++)
		wakeups += k == 0 || ids[k] != ids[k - 1];
	v[M_WAKEUPS] = (double)wakeups * 1000.0 / o->poll_window_ms;
	v[M_POLLS] = (double)polls * 1000.0 / o->poll_window_ms;
	r = 0;
out:
	atomic_store(&t.stopping, true);
	ops->close(b);
	timers_fini(&t);
	free(phase);
	free(ids);
	return r;
}

static const struct bench_metric coalesce_metrics[] = {
	[M_WAKEUPS] = { .key = "wakeups_per_s", .label = "wake-ups", .unit = "/s", .better = LOWER },
	[M_POLLS] = { .key = "polls_per_s", .label = "polls", .unit = "/s", .better = HIGHER },
};

/* ---- the table of jobs and targets ---- */

static const char *timer_api(const struct bench_backend_ops *ops) { return ops->timer_api; }
static const char *work_api(const struct bench_backend_ops *ops) { return ops->work_api; }
static const char *poll_api(const struct bench_backend_ops *ops) { return ops->poll_api; }
static const char *wakeup_rule(const struct bench_backend_ops *ops) { return ops->wakeup_rule; }

#define METRICS(m) .metrics = (m), .n_metrics = sizeof(m) / sizeof((m)[0])

enum { JOB_ARM_CANCEL, JOB_WORK, JOB_LATENESS, JOB_COALESCE };

const struct bench_job bench_jobs[] = {
	[JOB_ARM_CANCEL] = {
		.key = "arm_cancel", .describe = arm_cancel_describe, .api = timer_api,
		.run = arm_cancel_run, METRICS(arm_cancel_metrics), .ratio_metric = M_ARM_CANCEL,
	},
	[JOB_WORK] = {
		.key = "work", .describe = work_describe, .api = work_api,
		.run = work_run, METRICS(work_metrics), .ratio_metric = M_ITEMS_PER_S,
	},
	[JOB_LATENESS] = {
		.key = "lateness", .describe = lateness_describe, .api = timer_api,
		.run = lateness_run, METRICS(lateness_metrics), .ratio_metric = M_LATE_P99,
		.aside = "lateness against the 1/300 s tick it was due on",
	},
	[JOB_COALESCE] = {
		.key = "coalesce", .describe = coalesce_describe, .api = poll_api,
		.counted = wakeup_rule,
		.run = coalesce_run, METRICS(coalesce_metrics), .ratio_metric = M_WAKEUPS,
	},
};
const size_t bench_n_jobs = sizeof(bench_jobs) / sizeof(bench_jobs[0]);

const struct bench_target bench_targets[] = {
	{ .job = JOB_ARM_CANCEL, .metric = M_ARM_CANCEL, .peer = "libuv", .factor = 5,
	  .text = "arm+cancel at least 5x faster than libuv's timer heap" },
	{ .job = JOB_WORK, .metric = M_ITEMS_PER_S, .peer = "libuv", .factor = 2,
	  .text = "immediate throughput at least 2x libuv's thread pool" },
	{ .job = JOB_WORK, .metric = M_ITEMS_PER_S, .peer = "GLib", .factor = 5,
	  .text = "immediate throughput at least 5x GThreadPool" },
	{ .job = JOB_COALESCE, .metric = M_WAKEUPS, .max = 2,
	  .text = "coalesced pollers at most 2 wake-ups per second" },
};
const size_t bench_n_targets = sizeof(bench_targets) / sizeof(bench_targets[0]);
