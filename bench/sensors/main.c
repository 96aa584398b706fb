/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight-bench-sensors: a full poll of every hwmon chip by hwsight's
 * readers, by libsensors, by the sensors command and by node_exporter's
 * hwmon collector, side by side in one run. See bench/README.md.
 *
 * Rounds are interleaved (round 1 of every variant, then round 2 ...) so
 * that the machine's drift hits them all alike. Per poll: CPU and wall
 * time, each the median of the rounds (a burst of load on a shared host
 * spoils a round, not the figure), syscalls from strace -c. Timings are reported, never judged: the exit status is 1 only
 * when a variant fails or hwsight's values differ from libsensors'.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define PROG "hwsight-bench-sensors"

/* The table's order; libsensors is the reference every ratio is against. */
static const struct variant_ops *const all_variants[] = {
	&variant_fast_live,
	&variant_fast_all,
	&variant_pread_live,
	&variant_hws_libsensors,
	&variant_libsensors,
	&variant_sensors_cmd,
	&variant_node_exporter,
};
#define N_VARIANTS (sizeof(all_variants) / sizeof(all_variants[0]))

void variant_error(struct variant *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->error, sizeof(v->error), fmt, ap);
	va_end(ap);
}

static int64_t rusage_ns(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

int64_t cpu_self_ns(void)
{
	return rusage_ns(RUSAGE_SELF);
}

int64_t cpu_children_ns(void)
{
	return rusage_ns(RUSAGE_CHILDREN);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void usage(FILE *f)
{
	fputs("Usage: " PROG " [OPTION...]\n"
	      "Poll every hwmon chip with hwsight's readers, libsensors, sensors(1) and\n"
	      "node_exporter side by side; print syscalls, CPU and wall time per poll.\n\n"
	      "  -r, --rounds N          rounds; figures are their medians (default 10)\n"
	      "  -n, --polls N           in-process polls per round (default 200)\n"
	      "      --ext-polls N       polls per round of sensors-cmd, node-exporter (default 10)\n"
	      "      --strace-polls N    polls counted under strace (default 100)\n"
	      "      --ext-strace-polls N  the same for sensors-cmd, node-exporter (default 10)\n"
	      "      --no-strace         do not count syscalls\n"
	      "  -b, --variant LIST      only these variants, e.g. fast-live,libsensors\n"
	      "  -c, --config FILE       a sensors.conf for every variant (default: libsensors')\n"
	      "      --port N            node_exporter's port on 127.0.0.1 (default 9101)\n"
	      "      --quick             a smoke run: 1 round, few polls\n"
	      "      --json              JSON instead of a table\n"
	      "      --only NAME         internal: -n polls of one variant, no output\n"
	      "  -h, --help              this help\n\n"
	      "Variants:",
	      f);
	for (size_t i = 0; i < N_VARIANTS; i++)
		fprintf(f, " %s", all_variants[i]->name);
	fputc('\n', f);
}

static int parse_uint(const char *s, unsigned min, unsigned *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > UINT_MAX || *s == '-')
		return -EINVAL;
	*ret = v;
	return 0;
}

static const struct variant_ops *find_variant(const char *name, size_t len)
{
	for (size_t i = 0; i < N_VARIANTS; i++)
		if (strlen(all_variants[i]->name) == len && !strncmp(all_variants[i]->name, name, len))
			return all_variants[i];
	return NULL;
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	enum { OPT_EXT = 256, OPT_STRACE, OPT_EXT_STRACE, OPT_NO_STRACE, OPT_PORT, OPT_QUICK,
	       OPT_JSON, OPT_ONLY };
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "polls", required_argument, NULL, 'n' },
		{ "ext-polls", required_argument, NULL, OPT_EXT },
		{ "strace-polls", required_argument, NULL, OPT_STRACE },
		{ "ext-strace-polls", required_argument, NULL, OPT_EXT_STRACE },
		{ "no-strace", no_argument, NULL, OPT_NO_STRACE },
		{ "variant", required_argument, NULL, 'b' },
		{ "config", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	/* Counts given explicitly win over --quick's. */
	bool rounds_set = false, polls_set = false, ext_set = false, strace_set = false,
	     ext_strace_set = false;
	unsigned n;
	int c;

	*o = (struct bench_opts){
		.rounds = 10, .polls = 200, .ext_polls = 10,
		.strace_polls = 100, .ext_strace_polls = 10, .port = 9101,
	};
	while ((c = getopt_long(argc, argv, "r:n:b:c:h", longopts, NULL)) != -1) {
		const char *what = NULL;

		switch (c) {
		case 'r':
			if (parse_uint(optarg, 1, &o->rounds) < 0)
				what = "--rounds";
			rounds_set = true;
			break;
		case 'n':
			/* 0 is the strace baseline of --only. */
			if (parse_uint(optarg, 0, &n) < 0)
				what = "--polls";
			o->polls = n;
			o->only_polls = n;
			polls_set = true;
			break;
		case OPT_EXT:
			if (parse_uint(optarg, 1, &o->ext_polls) < 0)
				what = "--ext-polls";
			ext_set = true;
			break;
		case OPT_STRACE:
			if (parse_uint(optarg, 1, &o->strace_polls) < 0)
				what = "--strace-polls";
			strace_set = true;
			break;
		case OPT_EXT_STRACE:
			if (parse_uint(optarg, 1, &o->ext_strace_polls) < 0)
				what = "--ext-strace-polls";
			ext_strace_set = true;
			break;
		case OPT_NO_STRACE:
			o->strace_polls = o->ext_strace_polls = 0;
			break;
		case 'b':
			for (const char *p = optarg; *p;) {
				size_t len = strcspn(p, ",");
				if (!find_variant(p, len)) {
					fprintf(stderr, PROG ": unknown variant '%.*s'; try --help\n", (int)len, p);
					return -EINVAL;
				}
				p += len + (p[len] == ',');
			}
			o->variants = optarg;
			break;
		case 'c':
			o->config = optarg;
			break;
		case OPT_PORT:
			if (parse_uint(optarg, 1, &o->port) < 0 || o->port > 65535)
				what = "--port";
			break;
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_ONLY:
			if (!find_variant(optarg, strlen(optarg))) {
				fprintf(stderr, PROG ": unknown variant '%s'; try --help\n", optarg);
				return -EINVAL;
			}
			o->only = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
		if (what) {
			fprintf(stderr, PROG ": %s: '%s' is not a valid count; try --help\n", what, optarg);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'; try --help\n", argv[optind]);
		return -EINVAL;
	}
	if (o->quick) {
		if (!rounds_set)
			o->rounds = 1;
		if (!polls_set)
			o->polls = 20;
		if (!ext_set)
			o->ext_polls = 2;
		if (!strace_set && o->strace_polls)
			o->strace_polls = 10;
		if (!ext_strace_set && o->ext_strace_polls)
			o->ext_strace_polls = 2;
	}
	if (o->only && !polls_set) {
		fprintf(stderr, PROG ": --only needs -n\n");
		return -EINVAL;
	}
	return 0;
}

static bool selected(const struct bench_opts *o, const struct variant_ops *ops)
{
	if (!o->variants)
		return true;
	for (const char *p = o->variants; *p;) {
		size_t len = strcspn(p, ",");
		if (find_variant(p, len) == ops)
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

static void fail(struct variant *v, const char *phase)
{
	v->res.failed = true;
	snprintf(v->res.note, sizeof(v->res.note), "%s: %s", phase, v->error[0] ? v->error : "failed");
	fprintf(stderr, PROG ": %s: %s\n", v->ops->name, v->res.note);
}

/* --only: exactly n polls of one variant after its warm-up, for strace. */
static int run_only(const struct bench_opts *o)
{
	struct variant v = { .ops = find_variant(o->only, strlen(o->only)), .opts = o };
	int r = 0;

	if (v.ops->init && (r = v.ops->init(&v)) < 0)
		goto out;
	if ((r = v.ops->begin(&v)) >= 0) {
		for (long i = 0; r >= 0 && i < o->only_polls; i++)
			r = v.ops->poll(&v);
		if (v.ops->end)
			v.ops->end(&v);
	}
	if (v.ops->fini)
		v.ops->fini(&v);
out:
	if (r < 0)
		fprintf(stderr, PROG ": %s: %s\n", o->only, v.error[0] ? v.error : strerror(-r));
	return r < 0 ? 1 : 0;
}

/* One round: open and warm up, n timed polls, keep the last poll's values. */
static void run_round(struct variant *v, struct snapshot *snap)
{
	unsigned n = v->ops->external ? v->opts->ext_polls : v->opts->polls;
	int64_t cpu0, cpu1, t0, t1;
	int r = 0;

	v->error[0] = '\0';
	if (v->ops->begin(v) < 0) {
		fail(v, "open");
		return;
	}
	cpu0 = v->ops->cpu_ns(v);
	t0 = now_ns();
	for (unsigned i = 0; r >= 0 && i < n; i++)
		r = v->ops->poll(v);
	t1 = now_ns();
	cpu1 = v->ops->cpu_ns(v);
	if (r < 0)
		fail(v, "poll");
	else {
		v->res.ran = true;
		v->res.values = v->ops->values_unknown ? -1 : r;
		v->res.round_cpu_us[v->res.rounds_done] = (cpu1 - cpu0) / 1e3 / n;
		v->res.round_wall_us[v->res.rounds_done++] = (t1 - t0) / 1e3 / n;
		v->res.cpu_all_us += (cpu1 - cpu0) / 1e3;
		v->res.polls += n;
		snapshot_clear(snap);
		if (v->ops->snapshot && v->ops->snapshot(v, snap) < 0)
			fail(v, "snapshot");
	}
	if (v->ops->end)
		v->ops->end(v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Syscalls of a server: attached for n requests, minus as long idle. */
static int count_server(struct variant *v, unsigned n)
{
	struct strace_counts run = { 0 }, base = { 0 };
	char out[4096];
	pid_t tracer;
	int64_t t0, t1;
	int r = 0;

	if (v->ops->begin(v) < 0)
		return -EIO;
	r = strace_attach(v->ops->server_pid(v), &tracer, out, sizeof(out));
	if (r < 0)
		goto out;
	t0 = now_ns();
	for (unsigned i = 0; r >= 0 && i < n; i++)
		r = v->ops->poll(v);
	t1 = now_ns();
	if (r < 0) {
		strace_detach(tracer, out, &run);
		goto out;
	}
	r = strace_detach(tracer, out, &run);
	if (r < 0)
		goto out;
	r = strace_attach(v->ops->server_pid(v), &tracer, out, sizeof(out));
	if (r < 0)
		goto out;
	nanosleep(&(struct timespec){ (t1 - t0) / 1000000000, (t1 - t0) % 1000000000 }, NULL);
	r = strace_detach(tracer, out, &base);
	if (r >= 0)
		strace_per_poll(&run, &base, n, &v->res);
out:
	if (v->ops->end)
		v->ops->end(v);
	strace_counts_clear(&run);
	strace_counts_clear(&base);
	return r;
}

/* Syscalls of anything else: this program under strace doing n polls of
 * the variant, minus the same doing none (start-up, open, warm-up, exit). */
static int count_self(struct variant *v, unsigned n)
{
	struct strace_counts run = { 0 }, base = { 0 };
	char self[PATH_MAX], polls[32];
	char *argv[] = { self, "--only", (char *)v->ops->name, "-n", polls, NULL, NULL, NULL };
	ssize_t len;
	int r;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return -errno;
	self[len] = '\0';
	if (v->opts->config) {
		argv[5] = "--config";
		argv[6] = (char *)v->opts->config;
	}
	snprintf(polls, sizeof(polls), "%u", n);
	r = strace_run(argv, &run);
	if (r < 0)
		return r;
	snprintf(polls, sizeof(polls), "0");
	r = strace_run(argv, &base);
	if (r >= 0)
		strace_per_poll(&run, &base, n, &v->res);
	strace_counts_clear(&run);
	strace_counts_clear(&base);
	return r;
}

int main(int argc, char **argv)
{
	struct variant *vs[N_VARIANTS];
	struct snapshot snaps[N_VARIANTS] = { 0 };
	struct bench_opts o;
	size_t n = 0, n_chips, ref = SIZE_MAX;
	char chips[512];
	bool bad = false;
	int r;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	if (o.only)
		return run_only(&o);

	r = hwsight_chip_count(o.config, &n_chips, chips, sizeof(chips));
	if (r < 0) {
		fprintf(stderr, PROG ": reading the hwmon chips: %s%s\n", strerror(-r),
			r == -EINVAL ? " (the sensors config does not parse)" : "");
		return 1;
	}
	if (!n_chips) {
		/* Not a failure: this host has nothing to measure. */
		if (o.json) {
			fprintf(stderr, PROG ": no hwmon chips; run bench/sensors/run-lab\n");
			printf("{\"chips\": \"\", \"variants\": [], \"targets\": []}\n");
		} else
			printf(PROG ": no hwmon chips; run bench/sensors/run-lab\n");
		return 0;
	}

	for (size_t i = 0; i < N_VARIANTS; i++) {
		struct variant *v;

		if (!selected(&o, all_variants[i]))
			continue;
		v = calloc(1, sizeof(*v));
		if (!v || !(v->res.round_wall_us = calloc(o.rounds, sizeof(double))) ||
		    !(v->res.round_cpu_us = calloc(o.rounds, sizeof(double)))) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		v->ops = all_variants[i];
		v->opts = &o;
		v->res.values = -1;
		v->res.mismatches = -1;
		if (v->ops == &variant_libsensors)
			ref = n;
		/* A peer that is not installed is left out, and said so. */
		if (v->ops->init && v->ops->init(v) < 0) {
			v->res.skipped = true;
			snprintf(v->res.note, sizeof(v->res.note), "%s", v->error);
			fprintf(stderr, PROG ": %s: skipped: %s\n", v->ops->name, v->error);
		}
		vs[n++] = v;
	}

	for (unsigned round = 0; round < o.rounds; round++) {
		for (size_t i = 0; i < n; i++)
			if (!vs[i]->res.skipped && !vs[i]->res.failed)
				run_round(vs[i], &snaps[i]);
		/* Against libsensors in the same round. The lab's chip does not
		 * change between them (its registers are fixed, the driver
		 * caches them); on live hardware an input might. */
		for (size_t i = 0; ref != SIZE_MAX && vs[ref]->res.ran && !vs[ref]->res.failed && i < n; i++) {
			struct variant *v = vs[i];
			long compared, m;

			if (i == ref || !v->ops->snapshot || !v->res.ran || v->res.failed)
				continue;
			m = snapshot_compare(&snaps[i], &snaps[ref], v->ops->name, v->res.mismatches <= 0, &compared);
			if (m > v->res.mismatches)
				v->res.mismatches = m;
			v->res.compared = compared;
		}
	}

	for (size_t i = 0; i < n; i++) {
		struct variant *v = vs[i];
		unsigned polls = v->ops->external ? o.ext_strace_polls : o.strace_polls;

		if (v->res.ran && !v->res.failed) {
			v->res.wall_us = median(v->res.round_wall_us, v->res.rounds_done);
			v->res.cpu_us = median(v->res.round_cpu_us, v->res.rounds_done);
			v->res.cpu_all_us /= v->res.polls;
		}
		if (!v->res.ran || v->res.failed || !polls || !strace_available())
			continue;
		v->error[0] = '\0';
		r = v->ops->server_pid ? count_server(v, polls) : count_self(v, polls);
		if (r < 0)
			fprintf(stderr, PROG ": %s: counting syscalls with strace: %s\n", v->ops->name,
				v->error[0] ? v->error :
				r == -EPERM ? "ptrace is not allowed here" :
				r == -EIO ? "the run under strace failed (above)" :
				r == -EPROTO ? "strace printed no summary" : strerror(-r));
	}
	if (!strace_available() && o.strace_polls)
		fprintf(stderr, PROG ": strace not found: syscalls not counted (Debian: strace)\n");

	for (size_t i = 0; i < n; i++) {
		if (vs[i]->ops->fini && !vs[i]->res.skipped)
			vs[i]->ops->fini(vs[i]);
		if (vs[i]->res.failed || vs[i]->res.mismatches > 0)
			bad = true;
	}
	if (o.json)
		report_json(vs, n, &o, chips);
	else
		report_table(vs, n, &o, chips);
	for (size_t i = 0; i < n; i++) {
		snapshot_clear(&snaps[i]);
		free(vs[i]->res.round_wall_us);
		free(vs[i]->res.round_cpu_us);
		free(vs[i]->res.calls);
		free(vs[i]);
	}
	return bad ? 1 : 0;
}
