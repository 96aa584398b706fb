/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The four jobs, as main.c runs them and report.c prints them. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

struct bench_opts {
	unsigned reps;
	bool quick;
	bool json;
	uint64_t seed;
	int only_job;            /* 0: all */
	const char *only_backend; /* NULL: all */

	size_t arm_n;            /* job 1: items armed then cancelled */
	unsigned arm_min_ms, arm_max_ms;
	size_t work_n;           /* job 2: items for throughput */
	size_t lat_n;            /* job 2: items sent one at a time for latency */
	size_t asleep_n;         /* job 2: items sent one at a time after a pause */
	unsigned asleep_gap_ms;  /* job 2: the pause, long enough for workers to sleep */
	size_t late_n;           /* job 3: timers */
	unsigned late_max_ms;    /* job 3: delays spread over 1 ms..this */
	size_t poll_n;           /* job 4: pollers */
	unsigned poll_warmup;    /* job 4: periods before counting starts */
	unsigned poll_window_ms; /* job 4: how long wake-ups are counted */
};

enum bench_better { BENCH_LOWER_IS_BETTER, BENCH_HIGHER_IS_BETTER };

struct bench_metric {
	const char *key;   /* JSON name */
	const char *label; /* table column */
	const char *unit;
	enum bench_better better;
	/*
	 * Printed after the table instead of in it, and only for rows that
	 * have a value: job 3's lateness against hwsight's own tick.
	 */
	bool aside;
};

#define BENCH_MAX_METRICS 8

struct bench_job {
	const char *key;
	/* Writes the one-line description of the job at the sizes in @o. */
	void (*describe)(const struct bench_opts *o, char *buf, size_t size);
	/* Which ops string explains how each row did the job. */
	const char *(*api)(const struct bench_backend_ops *ops);
	/* Optional: how each row's figures were counted. */
	const char *(*counted)(const struct bench_backend_ops *ops);
	/*
	 * One repetition on one backend. Fills @ret_values (NAN where a metric
	 * does not apply); a failure message goes to @err.
	 */
	int (*run)(const struct bench_backend_ops *ops, const struct bench_opts *o,
		   uint64_t seed, double *ret_values, char *err, size_t err_size);
	const struct bench_metric *metrics;
	size_t n_metrics;
	size_t ratio_metric; /* the metric the "vs hwsight" column compares */
	const char *aside;   /* heading of the aside metrics */
};

extern const struct bench_job bench_jobs[];
extern const size_t bench_n_jobs;

/* A target from issue 2, checked against the medians of the run. */
struct bench_target {
	size_t job;
	size_t metric;
	const char *peer;  /* hwsight must beat this row by factor... */
	double factor;
	double max;        /* ...or, with peer NULL, stay at or below max */
	const char *text;
};

extern const struct bench_target bench_targets[];
extern const size_t bench_n_targets;

/* Medians for one run: value[job][backend][metric], NAN where missing. */
struct bench_results {
	const struct bench_backend_ops *const *backends;
	size_t n_backends;
	double *value;
};

double *bench_result(const struct bench_results *r, size_t job, size_t backend, size_t metric);

/* report.c */
double bench_median(double *v, size_t n);
double bench_quantile_sorted(const double *sorted, size_t n, double q);
int bench_cmp_double(const void *a, const void *b);
int bench_cmp_u64(const void *a, const void *b);
void bench_report_table(const struct bench_results *r, const struct bench_opts *o);
void bench_report_json(const struct bench_results *r, const struct bench_opts *o);
