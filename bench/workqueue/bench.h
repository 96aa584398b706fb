/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the job drivers (jobs.c) and the four backends share. A backend is
 * one file that fills a struct bench_backend_ops; the drivers only ever go
 * through it, so every job runs the same code path for every library and
 * the numbers differ only by what the library does.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Job 4's pollers run once per second. */
#define BENCH_POLL_PERIOD_MS 1000U

/* Owned by the driver; backends only pass them back to the hooks below. */
struct bench_timers;
struct bench_items;

/* Backend state, defined privately by each backend file. */
struct bench_backend;

struct bench_backend_ops {
	const char *name;        /* table row */
	const char *timer_api;   /* jobs 1 and 3: how a one-shot timer is armed and cancelled */
	const char *work_api;    /* job 2: how an item is handed to the workers */
	const char *poll_api;    /* job 4: how a poller re-arms with the library's coalescing */
	const char *wakeup_rule; /* job 4: what one counted wake-up is */

	int (*open)(struct bench_backend **ret_b);
	/* Frees everything, cancelling timers that are still armed; accepts NULL. */
	void (*close)(struct bench_backend *b);

	/*
	 * Timers: @n slots, firing into bench_timer_fired(@t, i, ...). When the
	 * hook asks for it, the backend re-arms the slot one BENCH_POLL_PERIOD_MS
	 * later using its own coalescing.
	 */
	int (*timers_new)(struct bench_backend *b, struct bench_timers *t, size_t n);
	/*
	 * Optional: make the library's cached "now" current before an arm.
	 * Job 3 calls it before each arm so a loop-cached clock does not make
	 * timers look early; job 1 does not, since it measures arming itself.
	 */
	void (*clock_sync)(struct bench_backend *b);
	/* One-shot at @delay_ms from now; @now_ns is the caller's CLOCK_MONOTONIC now. */
	int (*timer_arm)(struct bench_backend *b, size_t i, unsigned delay_ms, uint64_t now_ns);
	/* 1 if an armed timer was killed (its callback will not run), 0 if none was armed. */
	int (*timer_cancel)(struct bench_backend *b, size_t i);
	/* Let timers fire until none is active or CLOCK_MONOTONIC passes @deadline_ns. */
	int (*timers_run)(struct bench_backend *b, uint64_t deadline_ns);

	/* Immediate work: @n item slots, each running bench_item_run(@w, i). */
	int (*work_new)(struct bench_backend *b, struct bench_items *w, size_t n);
	int (*work_submit)(struct bench_backend *b, size_t i);
	/* Return once every submitted item has run (and, for libuv, completed through the loop). */
	int (*work_drain)(struct bench_backend *b);
};

extern const struct bench_backend_ops bench_hwsight_ops;
extern const struct bench_backend_ops bench_libuv_ops;
extern const struct bench_backend_ops bench_glib_ops;
extern const struct bench_backend_ops bench_sdevent_ops;

uint64_t bench_now_ns(void);

/*
 * Called by a backend each time timer @i fires, on whichever thread runs
 * its timers, first thing in the callback. @wake_id names the wake-up the
 * callback belongs to (callbacks with equal ids count as one wake-up in
 * job 4); @tick_due_ns is the start of the tick the library scheduled the
 * timer for, or 0 if the library has no tick. Returns true if the timer
 * should fire again one period later.
 */
bool bench_timer_fired(struct bench_timers *t, size_t i, uint64_t wake_id, uint64_t tick_due_ns);

/* Active timers, for backends that run their loop until there are none. */
size_t bench_timers_active(struct bench_timers *t);

/*
 * For backends whose timers fire on their own threads: sleep until no
 * timer is active or @deadline_ns passes.
 */
void bench_timers_wait(struct bench_timers *t, uint64_t deadline_ns);

/* The work item itself, called by a backend on the worker that runs item @i. */
void bench_item_run(struct bench_items *w, size_t i);
