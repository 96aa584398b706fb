/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HISTORY_H
#define HWSD_HISTORY_H

/*
 * Sensor history in RRD files, as sensord keeps it: one DIR/CHIP.rrd per
 * chip, one GAUGE data source per feature input. The polls are kept in
 * memory and written in bursts by rrdtool, RRD's own program, run as a
 * child (history-rrdtool.c says why), which draws the graphs too.
 *
 * Threads: hwsd_history_update() runs on the poll queue (one thread);
 * hwsd_history_graph() on any number of HTTP threads at once;
 * hwsd_history_flush() on the main thread. A render never holds a lock
 * an update waits for, beyond a copy of the chip's data source list,
 * and the burst that comes before it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsight/sensors.h>

struct hwsd_history;

/**
 * hwsd_history_new - keep sensor history in a directory
 * @dir: where the RRD files go (STATE/history); created 0750 if missing
 * @flush_interval: seconds between bursts of writes; 0 writes each poll
 * @ret_history: the new history
 *
 * Return: 0, or a negative errno if @dir cannot be created or written.
 */
int hwsd_history_new(const char *dir, unsigned flush_interval, struct hwsd_history **ret_history);

/** hwsd_history_set_flush_interval - [history] flush_interval, at a reload */
void hwsd_history_set_flush_interval(struct hwsd_history *h, unsigned flush_interval);

/**
 * hwsd_history_flush - write every chip's unwritten polls now
 * @h: history
 *
 * At the freeze, a reload and the stop: the burst pending is cancelled
 * (one being written is waited for) and every batch written in the
 * caller, so that what was polled is then on the disk. Failures are
 * logged.
 *
 * Return: 0, or the first failure's negative errno.
 */
int hwsd_history_flush(struct hwsd_history *h);

/** hwsd_history_free - no update or graph may be running; a burst pending
 * is cancelled, so hwsd_history_flush() first. Return: NULL. */
struct hwsd_history *hwsd_history_free(struct hwsd_history *h);

/** hwsd_history_dir - the directory given to hwsd_history_new() */
const char *hwsd_history_dir(const struct hwsd_history *h);

/**
 * hwsd_history_update - record a poll of a chip
 * @h: history
 * @chip: the chip just read; every feature with an input is recorded, and
 *        its limits (lcrit, min, max, crit) kept for the graphs to draw
 * @step_s: the chip's poll interval in seconds (0 is taken as 1)
 * @when: the time of the poll, seconds since the epoch
 *
 * Adds the poll to the chip's batch, and queues a burst, which writes
 * every chip's batch on the history's own thread, when the flush interval
 * has passed since the last one (after every poll with an interval of
 * 0): it never waits for rrdtool, but when @chip's sensors change (the
 * polls batched for the old ones are written first). A batch holds
 * HISTORY_BATCH_MAX bytes at most: past that, while the files cannot be
 * written, the oldest polls are dropped, with a warning.
 *
 * A burst creates the chip's file on first use. A file that rrdtool cannot read, or
 * whose data sources or step differ from @chip's, is renamed aside (with a
 * warning) and a new one started. A second poll within the same second as
 * the last one recorded, or one from before it (the clock went back), is
 * skipped silently. A burst's failures are logged, once until a write of
 * the file works again; a file another program holds locked keeps its
 * polls for the next burst.
 *
 * Return: 0 (batched or skipped), -EINVAL for a chip name unfit for a
 * file name, -ENOMEM, or the negative errno of a burst that could not be
 * queued (the polls stay batched for the next).
 */
int hwsd_history_update(struct hwsd_history *h, const struct hws_chip *chip, unsigned step_s,
			int64_t when);

/**
 * hwsd_history_range - the span of a graph range
 * @range: "1h", "1d" or "1w"; NULL for "1d"
 *
 * Return: its length in seconds, or -EINVAL.
 */
int hwsd_history_range(const char *range);

/**
 * hwsd_history_plotted - whether graphs plot sensors of @kind
 *
 * Measured inputs are; settings that have an input file (beep_enable,
 * intrusion0, cpuN_vid) are recorded but never drawn.
 */
bool hwsd_history_plotted(enum hws_sensor_kind kind);

/**
 * hwsd_history_kind - the kind a graph's "kind=" names
 * @name: a kind's name as hws_sensor_kind_name() gives it ("temp", "fan",
 *        "in", "pwm" ...)
 *
 * Return: the kind, or -EINVAL for a name that is none or not plotted.
 */
int hwsd_history_kind(const char *name);

/**
 * hwsd_history_graph - draw a chip's history as a PNG
 * @h: history
 * @chip: the chip name
 * @kind: the kind of sensor drawn ("temp", "fan", "in", "pwm" ...), in
 *        its unit, with each sensor's limits as dashed lines; NULL for
 *        the chip's graph of every plotted kind, on two axes, no limits
 * @range: "1h", "1d" or "1w"; NULL for "1d"
 * @ret_png: the image, to be freed with free()
 * @ret_len: its size in bytes
 *
 * The image drawn last for the chip, kind and range is given again while it is
 * younger than a 120th of the range (30 s for an hour), and the chip's
 * sensors and their limits have not changed: see history-graph.c for why.
 *
 * Return: 0, -EINVAL for a bad range or kind or a chip name that cannot
 * name a file, -ENOENT if the chip has no history (not recorded since the
 * daemon started), -ENODATA if it has no sensor of @kind, -ENOMEM, -EBUSY (the file stayed locked), -ETIMEDOUT or
 * -EFBIG (rrdtool took too long, or drew too much), or -EIO if rrdtool
 * failed; each failure is logged as a warning with its reason.
 */
int hwsd_history_graph(struct hwsd_history *h, const char *chip, const char *kind, const char *range,
		       void **ret_png, size_t *ret_len);

#endif
