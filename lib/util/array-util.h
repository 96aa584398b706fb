/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_ARRAY_UTIL_H
#define HWS_UTIL_ARRAY_UTIL_H

/*
 * A growable array of fixed-size elements, for the lists the library
 * gathers before it hands them over (camera modes, frame sizes and
 * intervals, detected chips). The capacity doubles, so a run of appends
 * stays linear; the caller takes @v when done and frees it with free().
 */

#include <stddef.h>

struct hws__array {
	void *v;        /* NULL until the first push */
	size_t n, cap;  /* elements held, and room for */
	size_t size;    /* of one element */
};

#define HWS__ARRAY_INIT(type) { .v = NULL, .n = 0, .cap = 0, .size = sizeof(type) }

/* Append a copy of @elem. Returns 0, or -ENOMEM with @a unchanged. */
int hws__array_push(struct hws__array *a, const void *elem);

/* Sort with @cmp (as qsort()'s) and keep one of each run that compares
 * equal. */
void hws__array_sort_unique(struct hws__array *a, int (*cmp)(const void *x, const void *y));

#endif
