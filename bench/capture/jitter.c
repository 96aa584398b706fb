/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jitter: the frame intervals a tool got, from the driver timestamps it
 * printed, computed the way libhwsight's statistics compute them
 * (lib/camera/pacing.c) so that every row of the table means the same:
 * the mean and the population standard deviation of the differences
 * between consecutive timestamps. A frame the driver dropped leaves a long
 * interval, and that interval counts: a tool that makes the driver drop
 * frames has the jitter it gave its user.
 *
 * Input: one frame a line, "SEQUENCE SECONDS", SECONDS with up to nine
 * decimals ("6.955766"), SEQUENCE the driver's buffer sequence or "-" when
 * the tool does not print it. Drops come from sequence gaps when there are
 * sequences, else from intervals longer than 1.5 times the median one.
 *
 * Prints one line:
 *   frames=N dropped=N drops_from=sequence|intervals mean_ms=X jitter_ms=X min_ms=X max_ms=X
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* "12.345" seconds to nanoseconds, exactly; -1 if malformed. */
static long long parse_seconds(const char *s)
{
	long long sec = 0, frac = 0;
	int digits = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		sec = sec * 10 + (*s - '0');
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			if (digits < 9) {
				frac = frac * 10 + (*s - '0');
				digits++;
			}
	if (*s && !isspace((unsigned char)*s))
		return -1;
	for (; digits < 9; digits++)
		frac *= 10;
	return sec * 1000000000 + frac;
}

int bench_jitter(int argc, char **argv)
{
	char line[256], seq_text[32], ts_text[64];
	long long prev_ts = -1, prev_seq = -1, dropped = 0;
	double *intervals = NULL, sum = 0, sum_sq = 0, lo = 0, hi = 0, median;
	size_t n = 0, cap = 0, frames = 0, lineno = 0;
	bool have_seq = false, no_seq = false;

	if (argc != 1) {
		fputs("Usage: " PROG " jitter < LINES (\"SEQUENCE SECONDS\" a frame)\n", stderr);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		long long ts, seq = -1;

		lineno++;
		if (sscanf(line, "%31s %63s", seq_text, ts_text) != 2 || (ts = parse_seconds(ts_text)) < 0) {
			fprintf(stderr, PROG " jitter: line %zu: expected \"SEQUENCE SECONDS\", got '%.*s'\n", lineno,
				(int)strcspn(line, "\n"), line);
			free(intervals);
			return 1;
		}
		if (strcmp(seq_text, "-")) {
			seq = strtoll(seq_text, NULL, 10);
			have_seq = true;
		} else {
			no_seq = true;
		}
		frames++;
		if (prev_ts >= 0) {
			double d = (double)(ts - prev_ts);

			if (n == cap) {
				double *p = realloc(intervals, (cap = cap ? 2 * cap : 512) * sizeof(*p));

				if (!p) {
					fputs(PROG " jitter: out of memory\n", stderr);
					free(intervals);
					return 1;
				}
				intervals = p;
			}
			intervals[n++] = d;
			sum += d;
			sum_sq += d * d;
			lo = n == 1 || d < lo ? d : lo;
			hi = n == 1 || d > hi ? d : hi;
			if (seq >= 0 && prev_seq >= 0 && seq > prev_seq + 1)
				dropped += seq - prev_seq - 1;
		}
		prev_ts = ts;
		prev_seq = seq;
	}
	if (have_seq && no_seq) {
		fputs(PROG " jitter: some lines have a sequence and some do not\n", stderr);
		free(intervals);
		return 1;
	}
	if (n > 0) {
		double mean = sum / (double)n;
		double sd = sqrt(fmax(sum_sq / (double)n - mean * mean, 0.0));

		if (!have_seq) {
			double *copy = malloc(n * sizeof(*copy));

			if (!copy) {
				fputs(PROG " jitter: out of memory\n", stderr);
				free(intervals);
				return 1;
			}
			memcpy(copy, intervals, n * sizeof(*copy));
			median = bench_median(copy, n);
			free(copy);
			for (size_t i = 0; i < n; i++)
				if (intervals[i] > 1.5 * median)
					dropped += llround(intervals[i] / median) - 1;
		}
		printf("frames=%zu dropped=%lld drops_from=%s mean_ms=%.3f jitter_ms=%.3f min_ms=%.3f max_ms=%.3f\n",
		       frames, dropped, have_seq ? "sequence" : "intervals", mean / 1e6, sd / 1e6, lo / 1e6, hi / 1e6);
	} else {
		printf("frames=%zu dropped=0 drops_from=none mean_ms=0 jitter_ms=0 min_ms=0 max_ms=0\n", frames);
	}
	free(intervals);
	return 0;
}
