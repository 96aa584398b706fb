/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_CAMERA_PACING_H
#define HWS_CAMERA_PACING_H

#include <stdbool.h>
#include <stdint.h>

#include <hwsight/camera.h>

/*
 * The pacer: which of the driver's frames to keep so that the kept ones sit
 * on a grid of whole 1/300 s ticks, judged by the driver's timestamps; and
 * the statistics of what was delivered, dropped, decimated and kept. Pure
 * logic, no I/O: stream.c feeds it every dequeued buffer.
 */
struct hws__pacer {
	uint64_t target_ns;      /* kept interval; 0 keeps every frame (no
				    target, or the source runs at it) */
	uint64_t source_ns;      /* the driver's nominal interval, or learned
				    from the timestamps when it gave none */
	uint64_t next_ns;        /* the next grid point */
	uint64_t last_kept_ns;
	uint64_t last_ns;        /* the last offered frame's timestamp */
	uint32_t last_sequence;
	bool started;
	struct hws_capture_stats stats; /* counters; means filled on read */
	double sum_ns;           /* of intervals between kept frames */
	double sum_sq_ns;
	uint64_t n_intervals;
};

void hws__pacer_init(struct hws__pacer *p, struct hws_fract target, struct hws_fract source);

/* Offer one dequeued frame; true if the caller should keep it. Counts
 * drops from gaps in @sequence (which wraps at 2^32). */
bool hws__pacer_offer(struct hws__pacer *p, uint64_t timestamp_ns, uint32_t sequence);

void hws__pacer_stats(const struct hws__pacer *p, struct hws_capture_stats *ret);

#endif
