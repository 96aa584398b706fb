/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_BENCH_CAPTURE_H
#define HWS_BENCH_CAPTURE_H

/*
 * hwsight-bench-capture: the measuring halves of bench/capture. The lab
 * script (in-lab) starts every tool through "run", turns their timestamps
 * into intervals with "jitter", times hwsight's JPEG encoder with "encode",
 * and prints the tables with "report". See bench/README.md.
 */

#include <stddef.h>
#include <stdint.h>

#define PROG "hwsight-bench-capture"

int bench_run(int argc, char **argv);
int bench_encode(int argc, char **argv);
int bench_jitter(int argc, char **argv);
int bench_report(int argc, char **argv);

/* The median of @n values (0 for none); sorts @v. */
double bench_median(double *v, size_t n);

/* "640x480" into its two numbers; -1 unless both are 1..16384. */
int bench_parse_size(const char *s, uint32_t *ret_width, uint32_t *ret_height);

#endif
