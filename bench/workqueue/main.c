/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight-bench-workqueue: the workqueue side by side with libuv, GLib and
 * sd-event (issue 2, section 4). Timings never make it fail; only a
 * backend that errors or loses work does.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "jobs.h"

#define PROG "hwsight-bench-workqueue"
#define MAX_REPS 1000

/* hwsight first: it is the row every ratio is taken against. */
static const struct bench_backend_ops *const all_backends[] = {
	&bench_hwsight_ops,
	&bench_libuv_ops,
	&bench_glib_ops,
	&bench_sdevent_ops,
};
#define N_ALL_BACKENDS (sizeof(all_backends) / sizeof(all_backends[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTION]...\n"
		"Run the workqueue benchmark against libuv, GLib and sd-event and print medians.\n\n"
		"  -r, --reps N       repetitions per job and implementation (default 5, 1 with --quick)\n"
		"      --quick        smoke run with small sizes and ~1 s timer spans\n"
		"      --json         print JSON instead of tables\n"
		"      --seed N       seed for the random delays and phases (default 1)\n"
		"  -j, --job N        run only job N (1 arm+cancel, 2 work, 3 lateness, 4 coalescing)\n"
		"  -b, --backend LIST run only hwsight and the comma-separated LIST (libuv,GLib,sd-event)\n"
		"  -h, --help         show this help\n");
}

static int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void set_sizes(struct bench_opts *o)
{
	/* Job 1's shortest delay outlasts the whole arm-and-cancel loop. */
	o->arm_min_ms = 1000;
	o->arm_max_ms = 60000;
	o->arm_n = o->quick ? 100000 : 1000000;
	o->work_n = o->quick ? 50000 : 500000;
	o->lat_n = o->quick ? 1000 : 10000;
	/* 5 ms: past any spin before sleeping, and a 1 s pause per repetition. */
	o->asleep_n = o->quick ? 20 : 200;
	o->asleep_gap_ms = 5;
	o->late_n = o->quick ? 1000 : 10000;
	o->late_max_ms = o->quick ? 1000 : 10000;
	o->poll_n = 1000;
	/*
	 * A poller's first coalesced firing may come up to two periods after
	 * the start (phase, then up to a period of slack): count from the
	 * third, except in a smoke run.
	 */
	o->poll_warmup = o->quick ? 1 : 3;
	o->poll_window_ms = o->quick ? 1000 : 5000;
}

static int parse_opts(int argc, char **argv, struct bench_opts *o)
{
	enum { OPT_QUICK = 256, OPT_JSON, OPT_SEED };
	static const struct option longopts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "job", required_argument, NULL, 'j' },
		{ "backend", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long v, reps = 0;
	int c;

	*o = (struct bench_opts){ .seed = 1 };
	while ((c = getopt_long(argc, argv, "r:j:b:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (parse_ulong(optarg, 1, MAX_REPS, &reps) < 0)
				goto bad;
			break;
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_SEED:
			if (parse_ulong(optarg, 0, (unsigned long)-1, &v) < 0)
				goto bad;
			o->seed = v;
			break;
		case 'j':
			if (parse_ulong(optarg, 1, bench_n_jobs, &v) < 0)
				goto bad;
			o->only_job = (int)v;
			break;
		case 'b':
			o->only_backend = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'; see --help\n", argv[optind]);
		return -EINVAL;
	}
	o->reps = reps ? (unsigned)reps : o->quick ? 1 : 5;
	set_sizes(o);
	return 0;
bad:
	fprintf(stderr, PROG ": invalid value '%s' for -%c; see --help\n", optarg, c < 256 ? c : '-');
	return -EINVAL;
}

/* Whether the @len bytes at @p spell @name, in any case. */
static bool name_is(const char *p, size_t len, const char *name)
{
	return strlen(name) == len && strncasecmp(p, name, len) == 0;
}

/*
 * hwsight, then the peers named in the comma-separated @list (all of
 * them if @list is NULL).
 */
static int select_backends(const char *list, const struct bench_backend_ops **ret_backends,
			   size_t *ret_n)
{
	bool wanted[N_ALL_BACKENDS] = { true };
	size_t n = 0;

	for (const char *p = list; p && *p; ) {
		size_t len = strcspn(p, ",");
		bool known = false;

		for (size_t i = 0; i < N_ALL_BACKENDS; i++)
			if (name_is(p, len, all_backends[i]->name))
				known = wanted[i] = true;
		if (!known) {
			fprintf(stderr, PROG ": unknown implementation '%.*s'; use libuv, GLib or sd-event\n",
				(int)len, p);
			return -EINVAL;
		}
		p += len;
		p += *p == ',';
	}
	for (size_t i = 0; i < N_ALL_BACKENDS; i++)
		if (wanted[i] || !list)
			ret_backends[n++] = all_backends[i];
	*ret_n = n;
	return 0;
}

/*
 * Runs every repetition of one job, backends interleaved within a
 * repetition so that slow drift of the machine touches all of them alike.
 * Returns the number of backends that failed.
 */
static int run_job(struct bench_results *res, const struct bench_opts *o, size_t job,
		   double *samples)
{
	const struct bench_job *j = &bench_jobs[job];
	size_t nb = res->n_backends;
	bool failed[N_ALL_BACKENDS] = { false };
	int n_failed = 0;
	char err[256];

	for (size_t k = 0; k < nb * o->reps * BENCH_MAX_METRICS; k++)
		samples[k] = NAN;
	for (unsigned rep = 0; rep < o->reps; rep++) {
		if (!o->quick && isatty(STDERR_FILENO))
			fprintf(stderr, PROG ": job %zu, repetition %u of %u\n", job + 1, rep + 1, o->reps);
		for (size_t b = 0; b < nb; b++) {
			double *v = &samples[(b * o->reps + rep) * BENCH_MAX_METRICS];
			int r;

			if (failed[b])
				continue;
			err[0] = '\0';
			r = j->run(res->backends[b], o, o->seed + job * 1000 + rep, v, err, sizeof(err));
			if (r < 0) {
				/* A backend that failed once would only fail (or hang) again. */
				fprintf(stderr, PROG ": job %zu (%s) on %s: %s\n", job + 1, j->key,
					res->backends[b]->name, err[0] ? err : strerror(-r));
				for (size_t m = 0; m < BENCH_MAX_METRICS; m++)
					v[m] = NAN;
				failed[b] = true;
				n_failed++;
			}
		}
	}

	for (size_t b = 0; b < nb; b++) {
		for (size_t m = 0; m < j->n_metrics; m++) {
			double col[MAX_REPS];

			for (unsigned rep = 0; rep < o->reps; rep++)
				col[rep] = samples[(b * o->reps + rep) * BENCH_MAX_METRICS + m];
			*bench_result(res, job, b, m) = bench_median(col, o->reps);
		}
	}
	return n_failed;
}

int main(int argc, char **argv)
{
	const struct bench_backend_ops *backends[N_ALL_BACKENDS];
	struct bench_results res = { .backends = backends };
	struct bench_opts o;
	double *samples;
	int n_failed = 0;

	if (parse_opts(argc, argv, &o) < 0)
		return 2;
	if (select_backends(o.only_backend, backends, &res.n_backends) < 0)
		return 2;

	res.value = malloc(bench_n_jobs * res.n_backends * BENCH_MAX_METRICS * sizeof(*res.value));
	samples = malloc(res.n_backends * o.reps * BENCH_MAX_METRICS * sizeof(*samples));
	if (!res.value || !samples) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (size_t k = 0; k < bench_n_jobs * res.n_backends * BENCH_MAX_METRICS; k++)
		res.value[k] = NAN;

	for (size_t job = 0; job < bench_n_jobs; job++)
		if (!o.only_job || o.only_job == (int)job + 1)
			n_failed += run_job(&res, &o, job, samples);

	if (o.json)
		bench_report_json(&res, &o);
	else
		bench_report_table(&res, &o);
	free(samples);
	free(res.value);
	return n_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
