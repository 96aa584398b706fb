/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Statistics and the two output forms: readable tables and JSON. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"

int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank, so a quantile is always a value that was measured. */
double bench_quantile_sorted(const double *sorted, size_t n, double q)
{
	size_t k = (size_t)(q * (double)n + 0.5);

	if (n == 0)
		return NAN;
	return sorted[k == 0 ? 0 : (k > n ? n : k) - 1];
}

/* Median of the values that are not NAN; sorts @v in place. */
double bench_median(double *v, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	if (m == 0)
		return NAN;
	qsort(v, m, sizeof(*v), bench_cmp_double);
	return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

double *bench_result(const struct bench_results *r, size_t job, size_t backend, size_t metric)
{
	return &r->value[(job * r->n_backends + backend) * BENCH_MAX_METRICS + metric];
}

static size_t find_backend(const struct bench_results *r, const char *name)
{
	for (size_t i = 0; i < r->n_backends; i++)
		if (strcmp(r->backends[i]->name, name) == 0)
			return i;
	return r->n_backends;
}

/*
 * How many times better hwsight is than row @b on @metric: above 1 means
 * hwsight wins, whichever direction the metric runs. Ratios of values
 * that can be zero or negative (lateness can be early) mean nothing.
 */
static double ratio(const struct bench_results *r, size_t job, size_t b, size_t metric)
{
	const struct bench_metric *m = &bench_jobs[job].metrics[metric];
	size_t h = find_backend(r, "hwsight");
	double hv, pv;

	if (h == r->n_backends)
		return NAN;
	hv = *bench_result(r, job, h, metric);
	pv = *bench_result(r, job, b, metric);
	if (!(hv > 0) || !(pv > 0))
		return NAN;
	return m->better == BENCH_LOWER_IS_BETTER ? pv / hv : hv / pv;
}

static double target_value(const struct bench_results *r, const struct bench_target *t,
			   bool *ret_known)
{
	size_t b = t->peer ? find_backend(r, t->peer) : find_backend(r, "hwsight");
	double v = NAN;

	if (b < r->n_backends)
		v = t->peer ? ratio(r, t->job, b, t->metric) : *bench_result(r, t->job, b, t->metric);
	*ret_known = !isnan(v);
	return v;
}

static bool target_met(const struct bench_target *t, double v)
{
	return t->peer ? v >= t->factor : v <= t->max;
}

/* Enough digits to compare rows, never an exponent. */
static const char *fmt(char *buf, size_t size, double v)
{
	double a = v < 0 ? -v : v;

	if (isnan(v))
		snprintf(buf, size, "-");
	else if (a >= 100)
		snprintf(buf, size, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.2f", v);
	return buf;
}

static void print_targets(const struct bench_results *r, size_t job)
{
	char b[32];

	for (size_t i = 0; i < bench_n_targets; i++) {
		const struct bench_target *t = &bench_targets[i];
		bool known;
		double v;

		if (t->job != job)
			continue;
		v = target_value(r, t, &known);
		printf("  target: %s: %s (%s%s)\n", t->text,
		       !known ? "not measured" : target_met(t, v) ? "MET" : "NOT MET",
		       fmt(b, sizeof(b), v), t->peer ? "x" : "");
	}
}

static bool has_aside(const struct bench_results *r, size_t job, size_t b)
{
	const struct bench_job *j = &bench_jobs[job];

	for (size_t m = 0; m < j->n_metrics; m++)
		if (j->metrics[m].aside && !isnan(*bench_result(r, job, b, m)))
			return true;
	return false;
}

static void print_job(const struct bench_results *r, const struct bench_opts *o, size_t job)
{
	const struct bench_job *j = &bench_jobs[job];
	char desc[256], b[32];

	j->describe(o, desc, sizeof(desc));
	printf("\nJob %zu: %s\n", job + 1, desc);
	printf("  %-16s", "implementation");
	for (size_t m = 0; m < j->n_metrics; m++)
		if (!j->metrics[m].aside)
			printf(" %12s", j->metrics[m].label);
	printf(" %12s\n  %-16s", "vs hwsight", "");
	for (size_t m = 0; m < j->n_metrics; m++)
		if (!j->metrics[m].aside)
			printf(" %12s", j->metrics[m].unit);
	printf(" %12s\n", "(x better)");

	for (size_t i = 0; i < r->n_backends; i++) {
		printf("  %-16s", r->backends[i]->name);
		for (size_t m = 0; m < j->n_metrics; m++)
			if (!j->metrics[m].aside)
				printf(" %12s", fmt(b, sizeof(b), *bench_result(r, job, i, m)));
		printf(" %11s%s\n", fmt(b, sizeof(b), ratio(r, job, i, j->ratio_metric)),
		       isnan(ratio(r, job, i, j->ratio_metric)) ? " " : "x");
	}
	for (size_t i = 0; i < r->n_backends && j->aside; i++) {
		const char *sep = ": ";

		if (!has_aside(r, job, i))
			continue;
		printf("  %s, %s", r->backends[i]->name, j->aside);
		for (size_t m = 0; m < j->n_metrics; m++) {
			if (!j->metrics[m].aside)
				continue;
			printf("%s%s %s %s", sep, j->metrics[m].label,
			       fmt(b, sizeof(b), *bench_result(r, job, i, m)), j->metrics[m].unit);
			sep = ", ";
		}
		printf("\n");
	}
	printf("  vs hwsight: the peer's %s over hwsight's, turned so that >1 means hwsight is better\n",
	       j->metrics[j->ratio_metric].label);
	for (size_t i = 0; i < r->n_backends; i++) {
		printf("  %-9s %s\n", r->backends[i]->name, j->api(r->backends[i]));
		if (j->counted)
			printf("  %-9s counted: %s\n", "", j->counted(r->backends[i]));
	}
	print_targets(r, job);
}

void bench_report_table(const struct bench_results *r, const struct bench_opts *o)
{
	printf("hwsight-bench-workqueue: medians of %u repetition%s%s\n", o->reps,
	       o->reps == 1 ? "" : "s", o->quick ? " (--quick: reduced sizes, figures are rough)" : "");
	for (size_t job = 0; job < bench_n_jobs; job++)
		if (!o->only_job || o->only_job == (int)job + 1)
			print_job(r, o, job);
	printf("\n");
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static void json_number(double v)
{
	if (isnan(v))
		printf("null");
	else
		printf("%.6g", v);
}

void bench_report_json(const struct bench_results *r, const struct bench_opts *o)
{
	char desc[256];
	const char *sep = "";

	printf("{\"reps\": %u, \"quick\": %s, \"seed\": %llu, \"jobs\": {", o->reps,
	       o->quick ? "true" : "false", (unsigned long long)o->seed);
	for (size_t job = 0; job < bench_n_jobs; job++) {
		const struct bench_job *j = &bench_jobs[job];

		if (o->only_job && o->only_job != (int)job + 1)
			continue;
		j->describe(o, desc, sizeof(desc));
		printf("%s\n  ", sep);
		json_string(j->key);
		printf(": {\"description\": ");
		json_string(desc);
		printf(", \"rows\": {");
		for (size_t i = 0; i < r->n_backends; i++) {
			printf("%s\n    ", i ? "," : "");
			json_string(r->backends[i]->name);
			printf(": {\"api\": ");
			json_string(j->api(r->backends[i]));
			for (size_t m = 0; m < j->n_metrics; m++) {
				printf(", ");
				json_string(j->metrics[m].key);
				printf(": ");
				json_number(*bench_result(r, job, i, m));
			}
			printf(", \"vs_hwsight\": ");
			json_number(ratio(r, job, i, j->ratio_metric));
			printf("}");
		}
		printf("}}");
		sep = ",";
	}
	printf("},\n \"targets\": [");
	for (size_t i = 0; i < bench_n_targets; i++) {
		const struct bench_target *t = &bench_targets[i];
		bool known;
		double v = target_value(r, t, &known);

		printf("%s\n  {\"text\": ", i ? "," : "");
		json_string(t->text);
		printf(", \"value\": ");
		json_number(v);
		printf(", \"met\": %s}", !known ? "null" : target_met(t, v) ? "true" : "false");
	}
	printf("]}\n");
}
