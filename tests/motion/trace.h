/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_TEST_TRACE_H
#define HWS_TEST_TRACE_H

/*
 * A motion trace (tests/traces/motion/README.md) in memory: its header's
 * "key: value" pairs and its samples, for motion-replay and the tests
 * that feed traces to the detector.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEADER 32

struct trace {
	char *key[MAX_HEADER], *value[MAX_HEADER];
	size_t n_header;
	double *t;
	int (*v)[3];          /* z 0 for a two-axis sensor */
	size_t n, size;
	int axes;             /* 3, or 2 when the header says "axes: x y" (hdaps) */
};

__attribute__((format(printf, 3, 4)))
static inline void trace_why(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

static inline const char *trace_header(const struct trace *tr, const char *key)
{
	for (size_t i = 0; i < tr->n_header; i++)
		if (!strcmp(tr->key[i], key))
			return tr->value[i];
	return NULL;
}

static inline int trace_add(struct trace *tr, double t, const int v[3])
{
	if (tr->n == tr->size) {
		size_t size = tr->size ? tr->size * 2 : 1024;
		double *nt = realloc(tr->t, size * sizeof(*tr->t));

		if (!nt)
			return -ENOMEM;
		tr->t = nt;
		int (*nv)[3] = realloc(tr->v, size * sizeof(*tr->v));
		if (!nv)
			return -ENOMEM;
		tr->v = nv;
		tr->size = size;
	}
	tr->t[tr->n] = t;
	memcpy(tr->v[tr->n], v, sizeof(tr->v[0]));
	tr->n++;
	return 0;
}

/* Return: 0, or -1 with what is wrong with the file in @why. */
static inline int trace_load(const char *path, struct trace *tr, char *why, size_t size)
{
	FILE *f = fopen(path, "re");
	char buf[4096];
	unsigned lineno = 0;
	int r = 0;

	if (!f) {
		trace_why(why, size, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (r == 0 && fgets(buf, sizeof(buf), f)) {
		char *colon;
		double t;
		int v[3], end = 0;

		lineno++;
		buf[strcspn(buf, "\n")] = 0;
		if (buf[0] == '#') {
			/* "# key: value" in the header; other comments pass. */
			colon = strstr(buf, ": ");
			if (tr->n == 0 && colon && tr->n_header < MAX_HEADER &&
			    strcspn(buf + 2, " :") == (size_t)(colon - (buf + 2))) {
				*colon = 0;
				tr->key[tr->n_header] = strdup(buf + 2);
				tr->value[tr->n_header] = strdup(colon + 2);
				if (!tr->key[tr->n_header] || !tr->value[tr->n_header])
					r = -ENOMEM;
				tr->n_header++;
			}
			continue;
		}
		if (buf[0] == 0)
			continue;
		if (tr->n == 0) {
			const char *axes = trace_header(tr, "axes");

			tr->axes = axes && !strcmp(axes, "x y") ? 2 : 3;
		}
		v[2] = 0;
		if ((tr->axes == 3 ? sscanf(buf, "%lf %d %d %d %n", &t, &v[0], &v[1], &v[2], &end) != 4 :
				     sscanf(buf, "%lf %d %d %n", &t, &v[0], &v[1], &end) != 3) ||
		    buf[end] || (tr->n && t <= tr->t[tr->n - 1]) || t < 0) {
			trace_why(why, size, "%s:%u: not \"T %s\" with T rising: '%s'", path, lineno,
				  tr->axes == 3 ? "X Y Z" : "X Y", buf);
			r = -1;
			break;
		}
		r = trace_add(tr, t, v);
	}
	fclose(f);
	if (r == -ENOMEM)
		trace_why(why, size, "out of memory");
	if (r == 0 && tr->n < 2) {
		trace_why(why, size, "%s: fewer than two samples", path);
		r = -1;
	}
	if (r == 0 && (!trace_header(tr, "sensor") || !trace_header(tr, "label") || !trace_header(tr, "event"))) {
		trace_why(why, size, "%s: the header lacks sensor, label or event", path);
		r = -1;
	}
	return r < 0 ? -1 : 0;
}

static inline void trace_free(struct trace *tr)
{
	for (size_t i = 0; i < tr->n_header; i++) {
		free(tr->key[i]);
		free(tr->value[i]);
	}
	free(tr->t);
	free(tr->v);
}

#endif
