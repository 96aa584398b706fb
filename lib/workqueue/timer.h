/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The timer wheel behind delayed_work: the cascading wheel of Linux 2.6.20
 * (256 one-jiffy slots, then four levels of 64 coarser ones), so that
 * arming and cancelling cost O(1), plus bitmaps of non-empty slots so that
 * the wheel can skip idle stretches and name its next expiry exactly: the
 * timer thread sleeps until then instead of ticking.
 *
 * Not thread-safe: the owning workqueue's lock guards it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsight/workqueue.h>

#define HWS_TVR_BITS 8
#define HWS_TVN_BITS 6
#define HWS_TVR_SIZE (1 << HWS_TVR_BITS)
#define HWS_TVN_SIZE (1 << HWS_TVN_BITS)
#define HWS_TVN_LEVELS 4

struct hws__timer_base {
	unsigned long timer_jiffies; /* the next jiffy whose slot is due */
	unsigned long next_expiry;   /* valid when next_valid */
	bool next_valid;
	size_t count;
	uint64_t tv1_map[HWS_TVR_SIZE / 64];
	uint64_t tvn_map[HWS_TVN_LEVELS];
	struct hws__list_head tv1[HWS_TVR_SIZE];
	struct hws__list_head tvn[HWS_TVN_LEVELS][HWS_TVN_SIZE];
};

void hws__timer_base_init(struct hws__timer_base *base, unsigned long now);

static inline bool hws__timer_armed(const struct timer_list *t)
{
	return t->entry.next != NULL;
}

/* Arm @t at t->expires. @t must not be armed. */
void hws__timer_add(struct hws__timer_base *base, struct timer_list *t);

/* Disarm @t. Return: true if it was armed. */
bool hws__timer_del(struct hws__timer_base *base, struct timer_list *t);

/*
 * Disarm every timer due at or before @now and append it to @expired,
 * linked through t->entry (the caller marks each one disarmed by setting
 * entry.next to NULL once it has unlinked it).
 */
void hws__timer_collect(struct hws__timer_base *base, unsigned long now,
			struct hws__list_head *expired);

/* Disarm every timer, expired or not, onto @all. */
void hws__timer_collect_all(struct hws__timer_base *base, struct hws__list_head *all);

/* Return: true and the earliest expiry in *ret_expiry, false if none is armed. */
bool hws__timer_next(struct hws__timer_base *base, unsigned long *ret_expiry);
