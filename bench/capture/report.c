/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report: the two tables and the targets, from the measurements
 * in-lab wrote, one a line: "KIND tool=NAME key=value ...".
 *
 *   info ...                         the settings of the run
 *   skip tool=T reason=R             a peer that is not installed
 *   capture tool=T frames=N run=R    a quiet capture run (run's figures)
 *   timing tool=T from=F ...         the intervals a tool got (jitter's figures,
 *                                    or hwsight's --stats)
 *   jpeg tool=T ...                  an encoder's run over the frames
 *   calib tool=ffmpeg q=Q bytes=B    ffmpeg's quality matching
 *   jpeg-proc tool=fswebcam frame=K saves=S ...   one fswebcam process
 *   jpeg-startup tool=fswebcam ...   fswebcam stopped at opening its source
 *
 * A run whose status is not 0 never enters a figure: its row says it
 * failed, and the exit status is 1. Timings are never judged for the exit
 * status; the targets are printed with MET or NOT MET.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MAX_FIELDS 24

struct record {
	char kind[32];
	size_t n;
	struct {
		char key[32];
		char value[96];
	} f[MAX_FIELDS];
};

struct data {
	struct record *r;
	size_t n;
};

static const char *get(const struct record *r, const char *key)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].key, key))
			return r->f[i].value;
	return NULL;
}

static bool num(const struct record *r, const char *key, double *ret)
{
	const char *v = get(r, key);
	char *end;
	double d;

	if (!v || !*v)
		return false;
	d = strtod(v, &end);
	if (*end)
		return false;
	*ret = d;
	return true;
}

static bool is(const struct record *r, const char *kind, const char *tool)
{
	const char *t = get(r, "tool");

	return !strcmp(r->kind, kind) && (!tool || (t && !strcmp(t, tool)));
}

static bool succeeded(const struct record *r)
{
	double s;

	return !get(r, "status") || (num(r, "status", &s) && s == 0);
}

/* The first record of KIND for TOOL whose FILTER key has the value VALUE
 * (no filter when FILTER is NULL), successful or not. */
static const struct record *find(const struct data *d, const char *kind, const char *tool, const char *filter,
				 double value)
{
	double v;

	for (size_t i = 0; i < d->n; i++)
		if (is(&d->r[i], kind, tool) && (!filter || (num(&d->r[i], filter, &v) && v == value)))
			return &d->r[i];
	return NULL;
}

/*
 * The median of KEY over the records of KIND for TOOL (whose FILTER key
 * equals VALUE, no filter when FILTER is NULL); false when there is none.
 * With @ret_failed_status, records whose status is not 0 are left out, and
 * the first one's status is stored there; without it, every record counts.
 */
static bool median_of(const struct data *d, const char *kind, const char *tool, const char *key, const char *filter,
		      double value, double *ret, int *ret_failed_status)
{
	double *v = calloc(d->n ? d->n : 1, sizeof(*v)), x;
	size_t n = 0;

	if (!v)
		return false;
	for (size_t i = 0; i < d->n; i++) {
		const struct record *r = &d->r[i];

		if (!is(r, kind, tool) || (filter && (!num(r, filter, &x) || x != value)))
			continue;
		if (ret_failed_status && !succeeded(r)) {
			if (!*ret_failed_status && num(r, "status", &x))
				*ret_failed_status = (int)x;
			continue;
		}
		if (num(r, key, &x))
			v[n++] = x;
	}
	if (n)
		*ret = bench_median(v, n);
	free(v);
	return n > 0;
}

static bool skipped(const struct data *d, const char *tool)
{
	return find(d, "skip", tool, NULL, 0) != NULL;
}

static int load(const char *path, struct data *ret)
{
	struct data d = { 0 };
	char line[4096];
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		fprintf(stderr, PROG " report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct record r = { 0 };
		char *save = NULL, *tok = strtok_r(line, " \t\n", &save);

		if (!tok)
			continue;
		snprintf(r.kind, sizeof(r.kind), "%s", tok);
		while ((tok = strtok_r(NULL, " \t\n", &save)) && r.n < MAX_FIELDS) {
			char *eq = strchr(tok, '=');

			if (!eq)
				continue;
			*eq = '\0';
			snprintf(r.f[r.n].key, sizeof(r.f[r.n].key), "%s", tok);
			snprintf(r.f[r.n].value, sizeof(r.f[r.n].value), "%s", eq + 1);
			r.n++;
		}
		if (d.n == cap) {
			struct record *p = realloc(d.r, (cap = cap ? 2 * cap : 64) * sizeof(*p));

			if (!p) {
				fputs(PROG " report: out of memory\n", stderr);
				free(d.r);
				fclose(f);
				return -1;
			}
			d.r = p;
		}
		d.r[d.n++] = r;
	}
	fclose(f);
	*ret = d;
	return 0;
}

static const char *info(const struct data *d, const char *key, const char *fallback)
{
	for (size_t i = 0; i < d->n; i++)
		if (is(&d->r[i], "info", NULL) && get(&d->r[i], key))
			return get(&d->r[i], key);
	return fallback;
}

static double info_num(const struct data *d, const char *key, double fallback)
{
	const char *v = info(d, key, NULL);

	return v ? atof(v) : fallback;
}

/* ---- raw capture --------------------------------------------------------- */

struct capture_row {
	const char *tool;
	bool skipped;
	int failed;              /* the status of a failed run, 0 if none failed */
	bool have_cpu, have_steady;
	double per_frame_ms;     /* steady state: median over the slices */
	size_t n_slices;
	double whole_ms;         /* a whole run over its frames */
	double outside_ms;       /* a whole run minus its frames at the steady rate */
	bool have_timing;
	double frames, dropped, decimated, mean_ms, jitter_ms, jitter_lo, jitter_hi;
	size_t n_timing;
};

/*
 * The CPU a frame costs in the steady state, from every slice of every
 * successful run of @tool but each run's last (it may hold the start of
 * the teardown): the slice's CPU over the frames its wall time holds at
 * the device's rate.
 */
static bool steady_per_frame(const struct data *d, const char *tool, double fps, double *ret_ms, size_t *ret_n)
{
	double *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct record *r = &d->r[i];
		const char *s = get(r, "slices");
		size_t count = 0;

		if (!is(r, "capture", tool) || !succeeded(r) || !s || !strcmp(s, "-"))
			continue;
		for (const char *p = s; *p; p++)
			count += *p == ',';
		/* count commas = slices - 1: keep all but the last */
		for (size_t k = 0; k < count; k++) {
			long long cpu, wall;
			int used;

			if (sscanf(s, "%lld:%lld%n", &cpu, &wall, &used) != 2 || wall <= 0)
				break;
			s += used + (s[used] == ',');
			if (n == cap) {
				double *p = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*p));

				if (!p) {
					free(v);
					return false;
				}
				v = p;
			}
			v[n++] = (double)cpu / ((double)wall * fps / 1e6) / 1000;
		}
	}
	if (n)
		*ret_ms = bench_median(v, n);
	*ret_n = n;
	free(v);
	return n > 0;
}

static void capture_row(const struct data *d, const char *tool, struct capture_row *row)
{
	double N = info_num(d, "frames", 300), fps = info_num(d, "fps", 25), cpu;

	*row = (struct capture_row){ .tool = tool, .skipped = skipped(d, tool) };
	if (row->skipped)
		return;
	if (median_of(d, "capture", tool, "cpu_us", "frames", N, &cpu, &row->failed)) {
		row->have_cpu = true;
		row->whole_ms = cpu / N / 1000;
		row->have_steady = steady_per_frame(d, tool, fps, &row->per_frame_ms, &row->n_slices);
		row->outside_ms = cpu / 1000 - (row->have_steady ? N * row->per_frame_ms : 0);
	}
	row->have_timing = median_of(d, "timing", tool, "jitter_ms", NULL, 0, &row->jitter_ms, NULL) &&
			   median_of(d, "timing", tool, "mean_ms", NULL, 0, &row->mean_ms, NULL) &&
			   median_of(d, "timing", tool, "frames", NULL, 0, &row->frames, NULL) &&
			   median_of(d, "timing", tool, "dropped", NULL, 0, &row->dropped, NULL);
	if (row->have_timing) {
		median_of(d, "timing", tool, "decimated", NULL, 0, &row->decimated, NULL);
		row->jitter_lo = INFINITY;
		row->jitter_hi = -INFINITY;
		for (size_t i = 0; i < d->n; i++) {
			double j;

			if (is(&d->r[i], "timing", tool) && num(&d->r[i], "jitter_ms", &j)) {
				row->jitter_lo = fmin(row->jitter_lo, j);
				row->jitter_hi = fmax(row->jitter_hi, j);
				row->n_timing++;
			}
		}
	}
}

static void print_ratio(bool ok, double ref, double v)
{
	if (ok && v > 0)
		printf("  %8.2fx", ref / v);
	else
		printf("  %9s", "-");
}

static void print_capture(const struct capture_row *rows, size_t n, const struct capture_row *ref)
{
	printf("%-9s %6s %7s %9s %9s %9s %19s %8s |  %s\n", "tool", "frames", "dropped", "CPU ms", "CPU ms",
	       "CPU ms", "jitter ms", "interval", "v4l2-ctl / tool");
	printf("%-9s %6s %7s %9s %9s %9s %19s %8s |  %9s  %9s\n", "", "", "", "per frame", "whole run", "start+exit",
	       "median (min-max)", "mean ms", "per frame", "whole run");
	for (size_t i = 0; i < n; i++) {
		const struct capture_row *r = &rows[i];
		char jitter[32];

		printf("%-9s", r->tool);
		if (r->skipped) {
			printf(" not installed\n");
			continue;
		}
		if (r->have_timing)
			printf(" %6.0f %7.0f", r->frames, r->dropped);
		else
			printf(" %6s %7s", "-", "-");
		if (r->have_steady)
			printf(" %9.3f", r->per_frame_ms);
		else
			printf(" %9s", "-");
		if (r->have_cpu)
			printf(" %9.3f %9.1f", r->whole_ms, r->outside_ms);
		else
			printf(" %9s %9s", "-", "-");
		if (r->have_timing) {
			if (r->n_timing > 1)
				snprintf(jitter, sizeof(jitter), "%.3f (%.2f-%.2f)", r->jitter_ms, r->jitter_lo, r->jitter_hi);
			else
				snprintf(jitter, sizeof(jitter), "%.3f", r->jitter_ms);
			printf(" %19s %8.3f |", jitter, r->mean_ms);
		} else {
			printf(" %19s %8s |", "-", "-");
		}
		print_ratio(r->have_steady && ref->have_steady, ref->per_frame_ms, r->per_frame_ms);
		print_ratio(r->have_cpu && ref->have_cpu, ref->whole_ms, r->whole_ms);
		if (r->failed)
			printf("   (a run failed: status %d)", r->failed);
		putchar('\n');
	}
}

/* ---- JPEG ------------------------------------------------------------------ */

struct jpeg_row {
	const char *tool;
	char setting[32];
	bool skipped;
	int failed;
	bool have;
	double frames, bytes, per_frame_ms, whole_ms, startup_ms;
};

static void jpeg_hwsight(const struct data *d, struct jpeg_row *row)
{
	const struct record *r = find(d, "jpeg", "hwsight", NULL, 0);
	double cpu, mean_us, per_us, q;

	*row = (struct jpeg_row){ .tool = "hwsight" };
	if (!r)
		return;
	if (!succeeded(r)) {
		num(r, "status", &cpu);
		row->failed = (int)cpu;
		return;
	}
	if (!num(r, "frames", &row->frames) || !num(r, "cpu_us", &cpu) || !num(r, "read_encode_us", &per_us) ||
	    !num(r, "mean_us", &mean_us) || !num(r, "bytes", &row->bytes) || row->frames <= 0)
		return;
	if (!num(r, "quality", &q))
		q = 0;
	snprintf(row->setting, sizeof(row->setting), "-q %.0f, 4:2:2", q);
	row->have = true;
	row->per_frame_ms = per_us / 1000;
	row->whole_ms = cpu / row->frames / 1000;
	row->startup_ms = (cpu - row->frames * mean_us) / 1000;
}

static void jpeg_ffmpeg(const struct data *d, struct jpeg_row *row)
{
	double N = info_num(d, "frames", 300), n = info_num(d, "jpeg_short", 10);
	double cpu_long, cpu_short, q = 0;
	const struct record *r;

	*row = (struct jpeg_row){ .tool = "ffmpeg", .skipped = skipped(d, "ffmpeg") };
	if (row->skipped)
		return;
	if (!median_of(d, "jpeg", "ffmpeg", "cpu_us", "frames", N, &cpu_long, &row->failed) ||
	    !median_of(d, "jpeg", "ffmpeg", "cpu_us", "frames", n, &cpu_short, &row->failed))
		return;
	r = find(d, "jpeg", "ffmpeg", "frames", N);
	num(r, "q", &q);
	num(r, "bytes", &row->bytes);
	snprintf(row->setting, sizeof(row->setting), "-q:v %.0f, 4:2:2", q);
	row->have = true;
	row->frames = N;
	row->per_frame_ms = (cpu_long - cpu_short) / (N - n) / 1000;
	row->whole_ms = cpu_long / N / 1000;
	row->startup_ms = (cpu_short - n * row->per_frame_ms * 1000) / 1000;
}

static void jpeg_fswebcam(const struct data *d, struct jpeg_row *row)
{
	double one, startup, q = info_num(d, "quality", 85);

	*row = (struct jpeg_row){ .tool = "fswebcam", .skipped = skipped(d, "fswebcam") };
	if (row->skipped)
		return;
	if (!median_of(d, "jpeg-proc", "fswebcam", "cpu_us", "saves", 1, &one, &row->failed))
		return;
	median_of(d, "jpeg-proc", "fswebcam", "bytes", "saves", 1, &row->bytes, &row->failed);
	/* Stopped at its source by design: its status does not matter. */
	if (!median_of(d, "jpeg-startup", "fswebcam", "cpu_us", NULL, 0, &startup, NULL))
		startup = 0;
	for (size_t i = 0; i < d->n; i++)
		if (is(&d->r[i], "jpeg-proc", "fswebcam") && succeeded(&d->r[i]))
			row->frames += get(&d->r[i], "saves") && !strcmp(get(&d->r[i], "saves"), "1");
	snprintf(row->setting, sizeof(row->setting), "--jpeg %.0f, 4:2:0", q);
	row->have = true;
	row->whole_ms = one / 1000;
	row->startup_ms = startup / 1000;
	row->per_frame_ms = (one - startup) / 1000;
}

/* fswebcam's cost of one more --save of the image it already holds: the
 * median over the frames saved both once and 1 + k times. */
static bool fswebcam_extra_save(const struct data *d, double *ret_ms, size_t *ret_frames, double *ret_saves)
{
	double *v = calloc(d->n ? d->n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return false;
	for (size_t i = 0; i < d->n; i++) {
		const struct record *many = &d->r[i], *one;
		double saves, frame, a, b;

		if (!is(many, "jpeg-proc", "fswebcam") || !succeeded(many) || !num(many, "saves", &saves) ||
		    saves <= 1 || !num(many, "frame", &frame) || !num(many, "cpu_us", &b))
			continue;
		for (size_t j = 0; j < d->n; j++) {
			double s, f;

			one = &d->r[j];
			if (is(one, "jpeg-proc", "fswebcam") && succeeded(one) && num(one, "saves", &s) && s == 1 &&
			    num(one, "frame", &f) && f == frame && num(one, "cpu_us", &a)) {
				v[k++] = (b - a) / (saves - 1) / 1000;
				*ret_saves = saves;
				break;
			}
		}
	}
	if (k)
		*ret_ms = bench_median(v, k);
	*ret_frames = k;
	free(v);
	return k > 0;
}

static void print_jpeg(const struct jpeg_row *rows, size_t n, const struct jpeg_row *ref)
{
	printf("%-9s %6s %-16s %7s %9s %9s %9s |  %s\n", "encoder", "frames", "setting", "bytes", "CPU ms", "CPU ms",
	       "start-up", "fswebcam / encoder");
	printf("%-9s %6s %-16s %7s %9s %9s %9s |  %9s  %9s\n", "", "", "", "/frame", "per frame", "whole run",
	       "CPU ms", "per frame", "whole run");
	for (size_t i = 0; i < n; i++) {
		const struct jpeg_row *r = &rows[i];

		printf("%-9s", r->tool);
		if (r->skipped) {
			printf(" not installed\n");
			continue;
		}
		if (!r->have) {
			if (r->failed)
				printf(" failed (status %d)\n", r->failed);
			else
				printf(" no figures\n");
			continue;
		}
		printf(" %6.0f %-16s %7.0f %9.2f %9.2f %9.1f |", r->frames, r->setting, r->bytes, r->per_frame_ms,
		       r->whole_ms, r->startup_ms);
		print_ratio(ref->have, ref->per_frame_ms, r->per_frame_ms);
		print_ratio(ref->have, ref->whole_ms, r->whole_ms);
		if (r->failed)
			printf("   (a run failed: status %d)", r->failed);
		putchar('\n');
	}
}

/* ---- targets ------------------------------------------------------------------ */

static void target(const char *what, bool judged, bool met, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void target(const char *what, bool judged, bool met, const char *fmt, ...)
{
	va_list ap;

	printf("  %-46s %-8s ", what, judged ? (met ? "MET" : "NOT MET") : "-");
	if (judged) {
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	} else {
		fputs("no figures to judge", stdout);
	}
	putchar('\n');
}

int bench_report(int argc, char **argv)
{
	static const char *const capture_tools[] = { "hwsight", "v4l2-ctl", "ffmpeg" };
	struct capture_row cap[3];
	struct jpeg_row jpeg[3];
	struct data d;
	double N, save_ms = 0, saves = 0;
	size_t save_frames = 0;
	bool failed = false;

	if (argc != 2) {
		fputs("Usage: " PROG " report MEASUREMENTS\n", stderr);
		return 2;
	}
	if (load(argv[1], &d) < 0)
		return 1;
	N = info_num(&d, "frames", 300);

	for (size_t i = 0; i < 3; i++) {
		capture_row(&d, capture_tools[i], &cap[i]);
		failed |= cap[i].failed != 0 || (!cap[i].skipped && (!cap[i].have_cpu || !cap[i].have_timing));
	}
	jpeg_hwsight(&d, &jpeg[0]);
	jpeg_ffmpeg(&d, &jpeg[1]);
	jpeg_fswebcam(&d, &jpeg[2]);
	for (size_t i = 0; i < 3; i++)
		failed |= jpeg[i].failed != 0 || (!jpeg[i].skipped && !jpeg[i].have);

	printf("Raw capture: %s (%s), %s %s at %s fps to /dev/null; kernel %s, %s CPU\n",
	       info(&d, "device", "?"), info(&d, "driver", "?"), info(&d, "size", "?"), info(&d, "fourcc", "?"),
	       info(&d, "fps", "?"), info(&d, "kernel", "?"), info(&d, "cpus", "?"));
	printf("%s runs of %.0f frames a tool, interleaved; medians\n\n", info(&d, "runs", "?"), N);
	print_capture(cap, 3, &cap[1]);
	printf("\n  CPU: user + system of the tool's process, all threads. per frame: the steady state, the\n"
	       "  median over %s s slices of the quiet runs (from %s s after the start to the last slice but\n"
	       "  one) of the process's CPU clock over the frames the slice's wall time holds at %s fps\n"
	       "  (%zu, %zu, %zu slices). whole run: wait4()'s CPU of a run / %.0f. start+exit: whole run\n"
	       "  minus %.0f frames at the steady rate: start-up, set-up and teardown.\n"
	       "  jitter: population standard deviation of the intervals between consecutive driver\n"
	       "  timestamps the tool got, every interval of the run. hwsight: its --stats in the quiet\n"
	       "  runs; v4l2-ctl: --verbose, ffmpeg: -debug_ts packet pts (one run), in runs of their own\n"
	       "  (a line a frame costs CPU). v4l2-ctl dequeues every buffer, unpaced, and prints its sequence:\n"
	       "  its jitter is the driver's own. dropped: sequence gaps (ffmpeg: intervals > 1.5x).\n",
	       info(&d, "slice", "?"), info(&d, "skip", "?"), info(&d, "fps", "?"), cap[0].n_slices, cap[1].n_slices,
	       cap[2].n_slices, N, N);

	printf("\nJPEG: the same %.0f frames (%s %s, from hwsight capture -o -), one encoder after another\n\n",
	       N, info(&d, "size", "?"), info(&d, "fourcc", "?"));
	print_jpeg(jpeg, 3, &jpeg[2]);
	printf("\n  hwsight: hws_image_encode() in hwsight-bench-capture; per frame: median over the frames of\n"
	       "  the thread CPU to pread() one and encode it; whole run: the process's CPU / frames.\n");
	if (!jpeg[1].skipped) {
		bool first = true;

		printf("  ffmpeg: -f rawvideo in, mjpeg out; per frame: (CPU of %.0f frames - CPU of %s) / %.0f.\n",
		       N, info(&d, "jpeg_short", "?"), N - info_num(&d, "jpeg_short", 10));
		for (size_t i = 0; i < d.n; i++) {
			if (!is(&d.r[i], "calib", "ffmpeg"))
				continue;
			if (first)
				printf("  its -q:v (a quantiser scale) is the one whose bytes on the first frames are\n"
				       "  nearest hwsight's at -q %s (%s bytes):", info(&d, "quality", "?"),
				       get(&d.r[i], "hwsight_bytes") ? get(&d.r[i], "hwsight_bytes") : "?");
			printf(" q%s %s", get(&d.r[i], "q") ? get(&d.r[i], "q") : "?",
			       get(&d.r[i], "bytes") ? get(&d.r[i], "bytes") : "?");
			first = false;
		}
		if (!first)
			putchar('\n');
	}
	if (!jpeg[2].skipped) {
		printf("  fswebcam: one process per JPEG, as it works, reading the frame with its RAW source\n"
		       "  (YUYV -> RGB -> libgd -> libjpeg); whole run: median CPU of a process; start-up: median\n"
		       "  CPU of the same command stopped where it opens its source; per frame: the difference.\n");
		if (fswebcam_extra_save(&d, &save_ms, &save_frames, &saves))
			printf("  fswebcam saving an image it already holds %.0f times instead of once: %.2f ms a save\n"
			       "  (libgd + libjpeg alone, its YUYV conversion and start-up excluded; median of %zu frames).\n",
			       saves, save_ms, save_frames);
	}

	printf("\nTargets (reported, never enforced):\n");
	{
		const struct capture_row *hw = &cap[0], *v4 = &cap[1];
		const struct jpeg_row *hj = &jpeg[0], *fj = &jpeg[2];
		bool j = hw->have_steady && v4->have_steady && hw->per_frame_ms > 0;

		target("raw capture: CPU per frame <= v4l2-ctl's", j, j && hw->per_frame_ms <= v4->per_frame_ms,
		       "v4l2-ctl / hwsight %.2fx per frame (%.3f / %.3f ms), %.2fx whole run",
		       j ? v4->per_frame_ms / hw->per_frame_ms : 0, v4->per_frame_ms, hw->per_frame_ms,
		       hw->have_cpu && v4->have_cpu && hw->whole_ms > 0 ? v4->whole_ms / hw->whole_ms : 0);
		j = hj->have && fj->have && hj->per_frame_ms > 0;
		target("JPEG: >= 2x less CPU per frame than fswebcam", j, j && fj->per_frame_ms >= 2 * hj->per_frame_ms,
		       "fswebcam / hwsight %.2fx per frame (%.2f / %.2f ms), %.2fx whole run",
		       j ? fj->per_frame_ms / hj->per_frame_ms : 0, fj->per_frame_ms, hj->per_frame_ms,
		       j && hj->whole_ms > 0 ? fj->whole_ms / hj->whole_ms : 0);
		if (j && save_frames)
			target("   ... against fswebcam's bare encode", true, save_ms >= 2 * hj->per_frame_ms,
			       "%.2fx (%.2f / %.2f ms)", save_ms / hj->per_frame_ms, save_ms, hj->per_frame_ms);
		/*
		 * At the driver's own rate hwsight keeps every buffer (when it
		 * decimates and drops nothing), so its intervals are the
		 * driver's in that run; across runs the driver's jitter moves
		 * with the host's load. A median above the driver's median but
		 * within the spread of the driver's own runs is that noise.
		 */
		j = hw->have_timing && v4->have_timing;
		{
			bool below = j && hw->jitter_ms <= v4->jitter_ms;
			bool within = j && hw->jitter_ms <= v4->jitter_hi && hw->dropped == 0 && hw->decimated == 0;

			target("jitter <= the driver's own", j, below || within,
			       "hwsight %.3f ms (%.0f dropped, %.0f decimated), driver %.3f ms (%.2f-%.2f in %zu runs)%s",
			       hw->jitter_ms, hw->dropped, hw->decimated, v4->jitter_ms, v4->jitter_lo, v4->jitter_hi,
			       v4->n_timing, below ? "" : within ? ": within the driver's spread" : "");
		}
	}
	free(d.r);
	if (failed)
		fprintf(stderr, PROG ": a tool failed or left no figures; see its row\n");
	return failed ? 1 : 0;
}
