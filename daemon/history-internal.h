/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HISTORY_INTERNAL_H
#define HWSD_HISTORY_INTERNAL_H

/*
 * What history.c (the files and their updates) and history-graph.c (the
 * drawing) share. Locks: L is h->lock, held only for a look-up or a copy;
 * D is h->draw_lock, held to look at or replace a drawn graph, never
 * while rrdtool draws one. Fields without either are the poll queue's
 * alone.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "history.h"

#define HISTORY_DS_MAX 19       /* librrd's DS_NAM_SIZE, less the NUL */
#define HISTORY_LABEL_MAX 40    /* bytes of a label shown in a legend */
#define HISTORY_RANGES 3        /* 1h, 1d, 1w: history-graph.c */

enum { MINUTE = 60, HOUR = 60 * MINUTE, DAY = 24 * HOUR, WEEK = 7 * DAY, YEAR = 366 * DAY };

/* One data source: a feature's input. */
struct history_series {
	char ds[HISTORY_DS_MAX + 1];    /* the feature name: "temp1" */
	char label[HISTORY_LABEL_MAX + 1];
	enum hws_sensor_kind kind;
};

#define HISTORY_RRDTOOL "/usr/bin/rrdtool"  /* draws the graphs: history-graph.c */
#define HISTORY_DRAW_TIMEOUT_MS 10000   /* then rrdtool is killed */
#define HISTORY_PNG_MAX (8u << 20)      /* bytes of a graph, at most */
#define HISTORY_DRAWING_MAX 2           /* rrdtools running at once */

/* A graph drawn lately, given again to whoever asks soon after. */
struct history_png {
	void *data;
	size_t len;
	time_t made;
	unsigned generation;            /* of the chip's series it shows */
	bool drawing;                   /* rrdtool is drawing it anew */
};

struct chip_history {
	char *name;
	char *path;                     /* NULL: the name cannot name a file */
	struct history_series *series;  /* L */
	size_t n_series;                /* L */
	unsigned step;                  /* L */
	unsigned generation;            /* L: bumped when the series change */
	bool has_file;                  /* L: the file records the series */
	struct history_png drawn[HISTORY_RANGES];  /* D */
	char *line;                     /* the update: "when:v1:v2..." */
	size_t line_size;
	int64_t last_update;            /* the file's */
	bool failing;                   /* a failure was logged */
	struct chip_history *next;      /* L; entries live until the end */
};

struct hwsd_history {
	char *dir;
	pthread_mutex_t lock;
	pthread_mutex_t draw_lock;
	pthread_cond_t drawn;           /* D: a drawing ended */
	unsigned n_drawing;             /* D: rrdtools running */
	struct chip_history *chips;     /* L */
	/* How graphs are drawn: HISTORY_* above, set by hwsd_history_new();
	 * the tests change them before the first graph. */
	const char *rrdtool;
	unsigned draw_timeout_ms;
	size_t png_max;
};

/* A growing argv of allocated strings; the first failure sticks. */
struct history_args {
	char **v;
	size_t n, size;
	int error;
};

void hwsd_history__args_add(struct history_args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hwsd_history__args_free(struct history_args *a);

/* Whether a chip name may name a file: no '/', no leading '.'. */
bool hwsd_history__name_ok(const char *name);
/* The chip's entry, or NULL. Called with h->lock held. */
struct chip_history *hwsd_history__find(struct hwsd_history *h, const char *name);

#endif
