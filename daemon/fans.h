/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_FANS_H
#define HWSD_FANS_H

/*
 * Fan control (fans.c): one self-rearming delayed_work per [fan NAME] on
 * the freezeable poll queue, driving its output from the temperatures the
 * pollers last read. Before an output is taken, what it was is written to
 * the state file ([daemon] fan_state), so that whatever ends the daemon,
 * "hwsightd --restore-fans" can put it back; a clean stop, a reload and a
 * failed start put it back themselves.
 *
 * What each fan does is published on a board (fan-board.h) for the HTTP
 * side.
 *
 * new, take_over, start, pause, stop, resumed and free are for the main
 * thread; the rest runs on the poll queue.
 */

#include <stdbool.h>

#include <hwsight/sensors.h>
#include <hwsight/workqueue.h>

#include "config.h"
#include "events.h"
#include "fan-board.h"

struct hwsd_fans;

/*
 * hwsd_fans_new - the fans of @c, not started
 * @s: the sensors the pollers read (touched only on @wq)
 * @wq: the poll queue
 * @board: where they show what they do; reset to @c's fans
 *
 * Return: 0 or -ENOMEM.
 */
int hwsd_fans_new(const struct hwsd_config *c, struct hws_sensors *s,
		  struct workqueue_struct *wq, struct hwsd_events *events,
		  struct hwsd_fan_board *board, struct hwsd_fans **ret);

/*
 * hwsd_fans_take_over - a reload's hand-over, before @f starts
 * @prev: the running config's fans, paused
 *
 * An output @prev holds that @f drives the same way (the same [fan]
 * name, output, mode and tach) stays held, with no write to the chip, so
 * that a reload changing a curve does not hand a fan to its firmware and
 * back; the others are given back. Once done @prev holds nothing and the
 * state file lists what @f holds. @prev may be NULL.
 */
void hwsd_fans_take_over(struct hwsd_fans *f, struct hwsd_fans *prev);

/* Queue every fan's first step, behind the polls already queued. */
void hwsd_fans_start(struct hwsd_fans *f);

/* Stop the steps, the outputs staying held (a reload). */
void hwsd_fans_pause(struct hwsd_fans *f);

/* Stop the steps and give every output back as it was; the state file
 * is removed once nothing is held. */
void hwsd_fans_stop(struct hwsd_fans *f);

struct hwsd_fans *hwsd_fans_free(struct hwsd_fans *f);

/* Before the queues thaw after a sleep: firmware may have taken the
 * outputs back, so the next step takes them again and steps at once. */
void hwsd_fans_resumed(struct hwsd_fans *f);

/*
 * hwsd_fans_restore - put back every output a state file holds
 * @path: the state file
 *
 * For --restore-fans and for a start that finds a previous run's file.
 * The file is removed when every output was put back.
 *
 * Return: the number of outputs restored (0: no file), or a negative
 * errno (some could not be; they stay in the file).
 */
int hwsd_fans_restore(const char *path);

#endif
