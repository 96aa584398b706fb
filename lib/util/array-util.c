/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array-util.h"

/* Lists are short (a camera's modes, a bus's chips): a first allocation
 * of this many elements usually is the only one. */
#define FIRST_CAP 16

int hws__array_push(struct hws__array *a, const void *elem)
{
	assert(a->size > 0 && a->n <= a->cap);
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : FIRST_CAP;
		void *v;

		if (cap < a->cap || cap > SIZE_MAX / a->size)
			return -ENOMEM;
		v = realloc(a->v, cap * a->size);
		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	memcpy((char *)a->v + a->n * a->size, elem, a->size);
	a->n++;
	return 0;
}

void hws__array_sort_unique(struct hws__array *a, int (*cmp)(const void *x, const void *y))
{
	char *v = a->v;
	size_t k = 0;

	if (!a->n)
		return;
	qsort(v, a->n, a->size, cmp);
	for (size_t i = 0; i < a->n; i++) {
		if (k && cmp(v + (k - 1) * a->size, v + i * a->size) == 0)
			continue;
		if (k != i)
			memcpy(v + k * a->size, v + i * a->size, a->size);
		k++;
	}
	a->n = k;
}
