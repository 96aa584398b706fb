/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every value of one poll, keyed "chip/attribute", so that hwsight's
 * readers can be checked against libsensors value by value.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int snapshot_add(struct snapshot *s, const char *chip, const char *attr, double value, int error)
{
	struct snap_value *v = realloc(s->v, (s->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->v = v;
	v = &v[s->n++];
	snprintf(v->key, sizeof(v->key), "%s/%s", chip, attr);
	v->value = value;
	v->error = error != 0;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct snap_value *)a)->key, ((const struct snap_value *)b)->key);
}

void snapshot_sort(struct snapshot *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(s->v[0]), by_key);
}

void snapshot_clear(struct snapshot *s)
{
	free(s->v);
	*s = (struct snapshot){ 0 };
}

/*
 * Equal means the same double, or both unreadable. A compute statement
 * applied as a*x+b instead of libsensors' own expression may differ in the
 * last bit, so "(@-0.5)*2" and "2*@-1" are allowed 1e-12 relative; a
 * different reading, scale or rounding is far larger than that.
 */
static bool same(const struct snap_value *a, const struct snap_value *b)
{
	if (a->error || b->error)
		return a->error && b->error;
	return a->value == b->value || fabs(a->value - b->value) <= 1e-12 * fabs(b->value);
}

static void show(const char *name, const char *key, const struct snap_value *a, const struct snap_value *b)
{
	char x[32] = "missing", y[32] = "missing";

	if (a)
		snprintf(x, sizeof(x), a->error ? "error" : "%.17g", a->value);
	if (b)
		snprintf(y, sizeof(y), b->error ? "error" : "%.17g", b->value);
	fprintf(stderr, "hwsight-bench-sensors: %s: %s: %s, libsensors: %s\n", name, key, x, y);
}

long snapshot_compare(const struct snapshot *a, const struct snapshot *ref, const char *name,
		      bool verbose, long *ret_compared)
{
	size_t i = 0, j = 0;
	long bad = 0, compared = 0;

	while (i < a->n || j < ref->n) {
		int c = i == a->n ? 1 : j == ref->n ? -1 : strcmp(a->v[i].key, ref->v[j].key);
		const struct snap_value *x = c <= 0 ? &a->v[i] : NULL, *y = c >= 0 ? &ref->v[j] : NULL;

		compared++;
		if (!x || !y || !same(x, y)) {
			if (verbose && bad < 10)
				show(name, x ? x->key : y->key, x, y);
			bad++;
		}
		i += c <= 0;
		j += c >= 0;
	}
	*ret_compared = compared;
	return bad;
}
