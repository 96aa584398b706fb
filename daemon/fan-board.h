/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_FAN_BOARD_H
#define HWSD_FAN_BOARD_H

/*
 * What fan control shows the HTTP side (fan-board.c): one entry per [fan
 * NAME] of the running config, written by the fan's step on the poll queue
 * and copied out by the HTTP thread, both under the board's lock, so that
 * a page never reaches into the control loop. main.c owns the board; it
 * outlives reloads, and each new set of fans resets it.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "fan-law.h"

struct hwsd_fan_status {
	char *name;
	char *output;              /* as configured: "pwm1", "fan1" */
	char *chip;                /* the chip found; NULL until then */
	bool floor;                /* mode = floor: the SMC stays in charge */
	bool rpm;                  /* values are target speeds, not duties */
	bool held;                 /* driven, or in a dry run followed */
	bool dry_run;              /* nothing is written: values are what would be */
	bool yielded;              /* another program has it, until a reload */
	bool failsafe;
	double temp;               /* where the curve is: the sources as it
				    * follows them (hysteresis); NaN: none */
	double target;             /* the curve there; NaN: none */
	double value;              /* the value last decided; NaN: not held */
	double full;               /* the output's maximum; NaN: not held */
	struct hwsd_fan_law_point *curve; /* in the output's unit, once held */
	size_t n_curve;
	bool steps;
};

struct hwsd_fan_board {
	pthread_mutex_t lock;
	struct hwsd_fan_status *fans;  /* L: lock */
	size_t n;                      /* L */
};

void hwsd_fan_board_init(struct hwsd_fan_board *b);
void hwsd_fan_board_done(struct hwsd_fan_board *b);

/* The fans of a new config, none held (@dry_run: none ever will be).
 * Return: 0, or -ENOMEM with the board left empty. */
int hwsd_fan_board_reset(struct hwsd_fan_board *b, const struct hwsd_fan_conf *fans, size_t n,
			 bool dry_run);

/* Fan @i holds @chip's output now, on @law; its value is @value. */
int hwsd_fan_board_held(struct hwsd_fan_board *b, size_t i, const char *chip,
			const struct hwsd_fan_law *law, bool rpm, long value);

/* Fan @i holds nothing (@yielded: another program has it). */
void hwsd_fan_board_released(struct hwsd_fan_board *b, size_t i, bool yielded);

/* Fan @i's step: the followed temperature, the curve's target there and
 * the value decided. */
void hwsd_fan_board_step(struct hwsd_fan_board *b, size_t i, double temp, double target,
			 long value, bool failsafe);

/*
 * hwsd_fan_board_copy - a copy of every entry, for a page to read unlocked
 *
 * Return: the number of entries (*@ret is NULL for none), or -ENOMEM.
 * Free with hwsd_fan_board_free_copy().
 */
int hwsd_fan_board_copy(struct hwsd_fan_board *b, struct hwsd_fan_status **ret);
void hwsd_fan_board_free_copy(struct hwsd_fan_status *fans, size_t n);

#endif
