/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The table, or JSON, and the targets judged on the figures.
 * Ratios are libsensors' figure over the variant's: above 1 the variant
 * spends less than raw libsensors does.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sensors/sensors.h>

#include "bench.h"

enum measure { SYSCALLS, CPU, WALL };

static const struct variant *find(struct variant *const *vs, size_t n, const struct variant_ops *ops)
{
	for (size_t i = 0; i < n; i++)
		if (vs[i]->ops == ops)
			return vs[i];
	return NULL;
}

static bool ok(const struct variant *v)
{
	return v && v->res.ran && !v->res.failed;
}

static bool figure(const struct variant *v, enum measure m, double *ret)
{
	if (!ok(v))
		return false;
	switch (m) {
	case SYSCALLS:
		if (!v->res.have_syscalls)
			return false;
		*ret = v->res.syscalls;
		return true;
	case CPU:
		*ret = v->res.cpu_us;
		return true;
	case WALL:
		*ret = v->res.wall_us;
		return true;
	}
	return false;
}

/* libsensors' figure over v's; false when either is missing. */
static bool ratio(const struct variant *ref, const struct variant *v, enum measure m, double *ret)
{
	double a, b;

	if (!figure(ref, m, &a) || !figure(v, m, &b) || b <= 0)
		return false;
	*ret = a / b;
	return true;
}

/* The targets, for the daemon's case. */
struct target {
	const char *what;
	bool judged, met;
	double value;
	char unit[48];
};

static size_t targets(struct variant *const *vs, size_t n, struct target *t)
{
	const struct variant *ref = find(vs, n, &variant_libsensors);
	const struct variant *live = find(vs, n, &variant_fast_live);
	long mismatches = 0, compared = 0;
	bool any = false;

	t[0] = (struct target){ "fast-live: >= 10x fewer syscalls per repeated poll than libsensors",
				.unit = "x" };
	t[0].judged = ratio(ref, live, SYSCALLS, &t[0].value);
	t[0].met = t[0].judged && t[0].value >= 10;
	t[1] = (struct target){ "fast-live: >= 10x less CPU per repeated poll than libsensors", .unit = "x" };
	t[1].judged = ratio(ref, live, CPU, &t[1].value);
	t[1].met = t[1].judged && t[1].value >= 10;
	for (size_t i = 0; i < n; i++)
		if (vs[i]->res.mismatches >= 0) {
			any = true;
			mismatches += vs[i]->res.mismatches;
			compared += vs[i]->res.compared;
		}
	t[2] = (struct target){ "hwsight's values identical to libsensors' (every variant, every round)", .judged = any };
	snprintf(t[2].unit, sizeof(t[2].unit), " of %ld compared in a round differ", compared);
	t[2].judged = any;
	t[2].met = any && mismatches == 0;
	t[2].value = mismatches;
	return 3;
}

static void cell(char *buf, size_t size, bool have, double v, const char *suffix)
{
	if (!have)
		snprintf(buf, size, "-");
	else if (v >= 10000)
		snprintf(buf, size, "%.0f%s", v, suffix);
	else if (v >= 100)
		snprintf(buf, size, "%.1f%s", v, suffix);
	else
		snprintf(buf, size, "%.2f%s", v, suffix);
}

void report_table(struct variant *const *vs, size_t n, const struct bench_opts *o, const char *chips)
{
	const struct variant *ref = find(vs, n, &variant_libsensors);
	struct target t[4];
	size_t nt;

	printf("hwsight-bench-sensors: %s; libsensors %s\n", chips, libsensors_version);
	printf("%u round%s of %u polls (sensors-cmd, node-exporter: %u); CPU and wall: median of the "
	       "rounds\n",
	       o->rounds, o->rounds == 1 ? "" : "s", o->polls, o->ext_polls);
	if (o->strace_polls)
		printf("syscalls from strace -c -f over %u polls (%u), minus a run with none\n",
		       o->strace_polls, o->ext_strace_polls);
	else
		printf("syscalls not counted (--no-strace)\n");
	printf("\n%-15s %7s %9s %9s %10s %10s %6s  %-9s %9s %9s %9s\n", "variant", "values", "syscalls",
	       "syscalls", "CPU us", "wall us", "diffs", "| vs", "syscalls", "CPU", "wall");
	printf("%-15s %7s %9s %9s %10s %10s %6s  %-9s\n", "", "/poll", "/poll", "/value", "/poll", "/poll", "",
	       "| libsens.");
	for (size_t i = 0; i < n; i++) {
		const struct variant *v = vs[i];
		char c[7][32];
		double x = 0;
		bool have;

		if (!ok(v)) {
			printf("%-15s %s: %s\n", v->ops->name, v->res.skipped ? "skipped" : "FAILED", v->res.note);
			continue;
		}
		if (v->res.values >= 0)
			snprintf(c[0], sizeof(c[0]), "%d", v->res.values);
		else
			snprintf(c[0], sizeof(c[0]), "-");
		have = figure(v, SYSCALLS, &x);
		cell(c[1], sizeof(c[1]), have, x, "");
		cell(c[6], sizeof(c[6]), have && v->res.values > 0, x / (v->res.values > 0 ? v->res.values : 1), "");
		cell(c[2], sizeof(c[2]), true, v->res.cpu_us, "");
		cell(c[3], sizeof(c[3]), true, v->res.wall_us, "");
		if (v->res.mismatches >= 0)
			snprintf(c[4], sizeof(c[4]), "%ld", v->res.mismatches);
		else
			snprintf(c[4], sizeof(c[4]), "-");
		printf("%-15s %7s %9s %9s %10s %10s %6s  %-9s", v->ops->name, c[0], c[1], c[6], c[2], c[3], c[4],
		       "|");
		for (enum measure m = SYSCALLS; m <= WALL; m++) {
			have = ratio(ref, v, m, &x);
			cell(c[5], sizeof(c[5]), have, x, "x");
			printf(" %9s", c[5]);
		}
		printf("\n");
	}

	printf("\nsyscalls per poll, by call (strace -c):\n");
	for (size_t i = 0; i < n; i++) {
		const struct variant *v = vs[i];
		size_t shown = 0;

		if (!ok(v) || !v->res.have_syscalls)
			continue;
		printf("  %-15s", v->ops->name);
		for (size_t k = 0; k < v->res.n_calls && shown < 8; k++, shown++)
			printf(" %s %.2f", v->res.calls[k].name, v->res.calls[k].calls);
		if (v->res.n_calls > shown)
			printf(" (+%zu more)", v->res.n_calls - shown);
		printf("\n");
	}

	printf("\nwhat one poll is:\n");
	for (size_t i = 0; i < n; i++)
		printf("  %-15s %s\n", vs[i]->ops->name, vs[i]->ops->what);
	printf("  diffs: values that differ from libsensors' in the same round (- : not compared)\n");
	for (size_t i = 0; i < n; i++)
		if (ok(vs[i]) && vs[i]->res.detail[0]) {
			printf("  %s\n", vs[i]->res.detail);
			break;
		}

	printf("\ntargets (reported, never enforced on timing):\n");
	nt = targets(vs, n, t);
	for (size_t i = 0; i < nt; i++) {
		if (!t[i].judged)
			printf("  %-72s not judged (a figure is missing)\n", t[i].what);
		else if (!strcmp(t[i].unit, "x"))
			printf("  %-72s %s (%.1fx)\n", t[i].what, t[i].met ? "MET" : "NOT MET", t[i].value);
		else
			printf("  %-72s %s (%.0f%s)\n", t[i].what, t[i].met ? "MET" : "NOT MET", t[i].value,
			       t[i].unit);
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_num(bool have, double v)
{
	if (have && isfinite(v))
		printf("%.6g", v);
	else
		printf("null");
}

void report_json(struct variant *const *vs, size_t n, const struct bench_opts *o, const char *chips)
{
	const struct variant *ref = find(vs, n, &variant_libsensors);
	struct target t[4];
	size_t nt;

	printf("{\n  \"chips\": ");
	json_str(chips);
	printf(",\n  \"libsensors_version\": ");
	json_str(libsensors_version);
	printf(",\n  \"rounds\": %u, \"polls\": %u, \"ext_polls\": %u, \"strace_polls\": %u, "
	       "\"ext_strace_polls\": %u,\n  \"variants\": [",
	       o->rounds, o->polls, o->ext_polls, o->strace_polls, o->ext_strace_polls);
	for (size_t i = 0; i < n; i++) {
		const struct variant *v = vs[i];
		double x = 0;
		bool have;

		printf("%s\n    {\"name\": ", i ? "," : "");
		json_str(v->ops->name);
		printf(", \"what\": ");
		json_str(v->ops->what);
		printf(", \"status\": \"%s\", \"note\": ",
		       ok(v) ? "ok" : v->res.skipped ? "skipped" : "failed");
		json_str(v->res.note);
		printf(", \"detail\": ");
		json_str(v->res.detail);
		printf(",\n     \"values_per_poll\": ");
		json_num(ok(v) && v->res.values >= 0, v->res.values);
		printf(", \"syscalls_per_poll\": ");
		have = figure(v, SYSCALLS, &x);
		json_num(have, x);
		printf(", \"cpu_us_per_poll\": ");
		have = figure(v, CPU, &x);
		json_num(have, x);
		printf(", \"cpu_us_per_poll_all_rounds\": ");
		json_num(ok(v), v->res.cpu_all_us);
		printf(", \"wall_us_per_poll\": ");
		have = figure(v, WALL, &x);
		json_num(have, x);
		printf(", \"mismatches\": ");
		json_num(v->res.mismatches >= 0, v->res.mismatches);
		printf(", \"compared\": ");
		json_num(v->res.mismatches >= 0, v->res.compared);
		printf(",\n     \"vs_libsensors\": {\"syscalls\": ");
		have = ratio(ref, v, SYSCALLS, &x);
		json_num(have, x);
		printf(", \"cpu\": ");
		have = ratio(ref, v, CPU, &x);
		json_num(have, x);
		printf(", \"wall\": ");
		have = ratio(ref, v, WALL, &x);
		json_num(have, x);
		printf("},\n     \"syscalls_by_call\": {");
		for (size_t k = 0; ok(v) && v->res.have_syscalls && k < v->res.n_calls; k++) {
			printf("%s", k ? ", " : "");
			json_str(v->res.calls[k].name);
			printf(": %.6g", v->res.calls[k].calls);
		}
		printf("}}");
	}
	printf("\n  ],\n  \"targets\": [");
	nt = targets(vs, n, t);
	for (size_t i = 0; i < nt; i++) {
		printf("%s\n    {\"target\": ", i ? "," : "");
		json_str(t[i].what);
		printf(", \"met\": %s, \"value\": ", !t[i].judged ? "null" : t[i].met ? "true" : "false");
		json_num(t[i].judged, t[i].value);
		printf("}");
	}
	printf("\n  ]\n}\n");
}
