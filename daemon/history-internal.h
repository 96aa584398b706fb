/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HISTORY_INTERNAL_H
#define HWSD_HISTORY_INTERNAL_H

/*
 * What history.c (the batches and the files), history-graph.c (the
 * drawing) and history-rrdtool.c (the children) share. Locks: L is
 * h->lock, held only for a look-up, a copy or an append; W is
 * h->write_lock, held while rrdtool writes a file (a burst) and while
 * a file is checked or made; D is h->draw_lock, held to look at or
 * replace a drawn graph, never while rrdtool draws one. W is taken
 * before L, never the other way. Fields without a lock are the poll
 * queue's alone.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <hwsight/workqueue.h>

#include "history.h"

#define HISTORY_DS_MAX 19       /* rrdtool's DS_NAM_SIZE, less the NUL */
#define HISTORY_LABEL_MAX 40    /* bytes of a label shown in a legend */
#define HISTORY_RANGES 3        /* 1h, 1d, 1w: history-graph.c */
/* A graph per kind of sensor, and the chip's graph of every kind. */
#define HISTORY_GRAPHS (HWS_SENSOR_KIND_MAX + 1)
#define HISTORY_ALL_KINDS HWS_SENSOR_KIND_MAX

/* The limits drawn as lines in a kind's graph, lowest first. */
enum history_limit { LIMIT_LCRIT, LIMIT_MIN, LIMIT_MAX, LIMIT_CRIT, HISTORY_LIMITS };

enum { MINUTE = 60, HOUR = 60 * MINUTE, DAY = 24 * HOUR, WEEK = 7 * DAY, YEAR = 366 * DAY };

/* One data source: a feature's input. */
struct history_series {
	char ds[HISTORY_DS_MAX + 1];    /* the feature name: "temp1" */
	char label[HISTORY_LABEL_MAX + 1];
	enum hws_sensor_kind kind;
	/* As the last poll read them (NaN: none), for the graph's lines;
	 * they are not recorded, being settings. */
	double limits[HISTORY_LIMITS];
};

#define HISTORY_RRDTOOL "/usr/bin/rrdtool"  /* writes and draws: history-rrdtool.c */
#define HISTORY_DRAW_TIMEOUT_MS 10000   /* then rrdtool is killed */
#define HISTORY_WRITE_TIMEOUT_MS 30000  /* for an rrdtool command of a burst */
/* From a burst's due poll to its writing: the other chips polled in the
 * same second join it. */
#define HISTORY_BURST_DELAY_MS 250
#define HISTORY_BATCH_MAX (512u << 10)  /* bytes of a chip's unwritten polls */
#define HISTORY_LOCK_TRIES 4            /* rrdtool runs, 10, 20 and 40 ms apart */
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
	unsigned generation;            /* L: bumped when the series or their limits change */
	bool has_file;                  /* L: the file records the series */
	struct history_png drawn[HISTORY_GRAPHS][HISTORY_RANGES];  /* D */
	/* The polls not yet written: "when:v1:v2...\n" each, oldest first. */
	char *batch;                    /* L */
	size_t batch_len, batch_size;   /* L */
	bool dropping;                  /* L: the oldest polls are being dropped */
	int64_t last_queued;            /* the last poll batched */
	bool failing;                   /* W: a failure was logged */
	struct chip_history *next;      /* L; entries live until the end */
};

struct hwsd_history {
	char *dir;
	pthread_mutex_t lock;
	pthread_mutex_t write_lock;
	pthread_mutex_t draw_lock;
	_Atomic unsigned flush_interval; /* seconds between bursts; 0: each poll (a reload sets it) */
	int64_t last_flush;             /* the poll queue's: when the last burst was due */
	/* The bursts are written by a thread of their own, so that a poll
	 * never waits for rrdtool: the poll queue queues h->burst when one
	 * is due, HISTORY_BURST_DELAY_MS later. */
	struct workqueue_struct *writer;
	struct delayed_work burst;
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

/* What an rrdtool child wrote, and why it failed. */
struct history_output {
	char *data;                     /* stdout, NUL-terminated */
	size_t len, size;
	char command[16];               /* rrdtool's: "update", "graph" ... */
	char err[256];                  /* why it failed, in its words */
	size_t err_len;
	char why[320];                  /* for the log, on failure */
};

/* An "rrdtool -" child that takes commands on its stdin, for a burst
 * (history-rrdtool.c). pid 0: none running, the next command starts it. */
struct history_session {
	const struct hwsd_history *h;
	pid_t pid;
	int in, out, err;               /* its stdin, stdout and stderr */
};

#define HISTORY_SESSION_INIT(hist) { .h = (hist), .pid = 0, .in = -1, .out = -1, .err = -1 }

/* Let the session's rrdtool end (@kill_it: kill it) and wait for it. */
void hwsd_history__session_end(struct history_session *s, bool kill_it);

/*
 * hwsd_history__rrdtool - run rrdtool's @argv ("rrdtool", the command,
 * its arguments): in @s if not NULL, a command of its child; else in a
 * child of its own (h->rrdtool). Its answer (stdout) goes in @o; it is
 * killed at @deadline (hws__now_ms()) or past @max bytes of output.
 * Return: 0; -EBUSY if it found a file locked; -ETIMEDOUT, -EFBIG,
 * -ENOMEM; -EIO if it failed or could not be run. On failure, o->why says
 * what happened, and o->err what rrdtool said if it said why.
 */
int hwsd_history__rrdtool(const struct hwsd_history *h, struct history_session *s, char **argv,
			  uint64_t deadline, size_t max, struct history_output *o);
/* The same, run again up to HISTORY_LOCK_TRIES times while a file is
 * locked: a graph being drawn and a burst being written lock the file
 * (fcntl(F_SETLK), which does not wait) for some milliseconds. */
int hwsd_history__rrdtool_retry(const struct hwsd_history *h, struct history_session *s, char **argv,
				uint64_t deadline, size_t max, struct history_output *o);
void hwsd_history__output_reset(struct history_output *o);
void hwsd_history__nap_ms(unsigned ms);
/* Write the chip's batch now (a burst of @c alone; NULL: of every chip).
 * Takes W. Return: 0 or the first failure's negative errno. */
int hwsd_history__flush_chip(struct hwsd_history *h, struct chip_history *c);

void hwsd_history__args_add(struct history_args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hwsd_history__args_free(struct history_args *a);

/* Whether a chip name may name a file: no '/', no leading '.'. */
bool hwsd_history__name_ok(const char *name);
/* The chip's entry, or NULL. Called with h->lock held. */
struct chip_history *hwsd_history__find(struct hwsd_history *h, const char *name);

#endif
