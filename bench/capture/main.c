/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight-bench-capture: one program with a subcommand per job, so that
 * the lab script needs one binary from the build tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(FILE *f)
{
	fputs("Usage: " PROG " COMMAND [ARG...]\n"
	      "The measuring parts of the capture benchmark (bench/capture/run-lab runs them all).\n\n"
	      "  run [--stdin F] [--stdout F] [--stderr F] [--slice S [--skip S]] -- CMD [ARG...]\n"
	      "        run CMD, print its CPU time (user+system, all threads) and wall time;\n"
	      "        with --slice, its CPU every S seconds from --skip seconds on\n"
	      "  encode [-s WxH] [-f FOURCC] [-q Q] [-n N] FILE | --synthetic N\n"
	      "        JPEG-encode the raw frames in FILE with libhwsight, CPU per frame\n"
	      "  jitter < LINES\n"
	      "        intervals of \"SEQUENCE SECONDS\" lines (SEQUENCE may be -)\n"
	      "  report FILE\n"
	      "        the tables and targets from the measurements in-lab wrote\n",
	      f);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), compare_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_parse_size(const char *s, uint32_t *ret_width, uint32_t *ret_height)
{
	unsigned w, h;
	char tail;

	if (sscanf(s, "%ux%u%c", &w, &h, &tail) != 2 || !w || !h || w > 16384 || h > 16384)
		return -1;
	*ret_width = w;
	*ret_height = h;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} commands[] = {
		{ "run", bench_run },
		{ "encode", bench_encode },
		{ "jitter", bench_jitter },
		{ "report", bench_report },
	};

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, PROG ": unknown command '%s' (run, encode, jitter or report)\n", argv[1]);
	return 2;
}
