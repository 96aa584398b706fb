/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>

#include "list.h"
#include "timer.h"

#define TVR_MASK (HWS_TVR_SIZE - 1)
#define TVN_MASK (HWS_TVN_SIZE - 1)

/* Bits of expiry that select the slot of level @lvl (0 = the first tvn). */
static unsigned level_shift(int lvl)
{
	return HWS_TVR_BITS + (unsigned)lvl * HWS_TVN_BITS;
}

static unsigned find_next_bit(const uint64_t *map, unsigned nbits, unsigned start)
{
	for (unsigned w = start / 64; w < nbits / 64; w++) {
		uint64_t word = map[w];

		if (w == start / 64)
			word &= ~0ULL << (start % 64);
		if (word)
			return w * 64 + (unsigned)__builtin_ctzll(word);
	}
	return nbits;
}

void hws__timer_base_init(struct hws__timer_base *base, unsigned long now)
{
	*base = (struct hws__timer_base){ .timer_jiffies = now };
	for (int i = 0; i < HWS_TVR_SIZE; i++)
		hws__list_init(&base->tv1[i]);
	for (int l = 0; l < HWS_TVN_LEVELS; l++)
		for (int i = 0; i < HWS_TVN_SIZE; i++)
			hws__list_init(&base->tvn[l][i]);
}

static void wheel_insert(struct hws__timer_base *base, struct timer_list *t)
{
	unsigned long expires = t->expires;
	unsigned long delta = expires - base->timer_jiffies;
	struct hws__list_head *head;
	unsigned slot;
	int lvl;

	if ((long)delta < 0) {
		/* Already due: the slot processed next. */
		slot = base->timer_jiffies & TVR_MASK;
		goto tv1;
	}
	if (delta < HWS_TVR_SIZE) {
		slot = expires & TVR_MASK;
		goto tv1;
	}
	for (lvl = 0; lvl < HWS_TVN_LEVELS - 1; lvl++)
		if (delta < 1UL << level_shift(lvl + 1))
			break;
	if (lvl == HWS_TVN_LEVELS - 1 && delta > 0xffffffffUL) {
		/* Beyond the wheel's 2^32 jiffies: park at its far end and let
		 * the cascade re-file it, as the kernel does. */
		expires = base->timer_jiffies + 0xffffffffUL;
	}
	slot = (expires >> level_shift(lvl)) & TVN_MASK;
	head = &base->tvn[lvl][slot];
	base->tvn_map[lvl] |= 1ULL << slot;
	hws__list_add_tail(&t->entry, head);
	return;
tv1:
	base->tv1_map[slot / 64] |= 1ULL << (slot % 64);
	hws__list_add_tail(&t->entry, &base->tv1[slot]);
}

void hws__timer_add(struct hws__timer_base *base, struct timer_list *t)
{
	assert(!hws__timer_armed(t));
	wheel_insert(base, t);
	if (base->count++ == 0) {
		base->next_expiry = t->expires;
		base->next_valid = true;
	} else if (base->next_valid && time_before(t->expires, base->next_expiry)) {
		base->next_expiry = t->expires;
	}
}

/* Clear the bitmap bit of @head, a slot that has just become empty. */
static void slot_emptied(struct hws__timer_base *base, struct hws__list_head *head)
{
	uintptr_t p = (uintptr_t)head;

	if (p >= (uintptr_t)&base->tv1[0] && p < (uintptr_t)&base->tv1[HWS_TVR_SIZE]) {
		size_t slot = (size_t)(head - base->tv1);

		base->tv1_map[slot / 64] &= ~(1ULL << (slot % 64));
	} else {
		size_t i = (size_t)(head - &base->tvn[0][0]);

		base->tvn_map[i / HWS_TVN_SIZE] &= ~(1ULL << (i % HWS_TVN_SIZE));
	}
}

bool hws__timer_del(struct hws__timer_base *base, struct timer_list *t)
{
	struct hws__list_head *prev = t->entry.prev, *next = t->entry.next;

	if (!hws__timer_armed(t))
		return false;
	hws__list_unlink(&t->entry);
	/* prev == next: only the slot's head is left. */
	if (prev == next)
		slot_emptied(base, prev);
	t->entry.next = t->entry.prev = NULL;
	base->count--;
	if (base->next_valid && t->expires == base->next_expiry)
		base->next_valid = false;
	return true;
}

/* Re-file the timers of level @lvl's current slot; true if that slot was 0. */
static bool cascade_level(struct hws__timer_base *base, int lvl)
{
	unsigned slot = (base->timer_jiffies >> level_shift(lvl)) & TVN_MASK;
	struct hws__list_head moving;

	hws__list_init(&moving);
	hws__list_splice_tail_init(&base->tvn[lvl][slot], &moving);
	base->tvn_map[lvl] &= ~(1ULL << slot);
	while (!hws__list_empty(&moving)) {
		struct timer_list *t = container_of(moving.next, struct timer_list, entry);

		hws__list_unlink(&t->entry);
		wheel_insert(base, t);
	}
	return slot == 0;
}

/*
 * Called whenever timer_jiffies reaches the start of a 256-jiffy block: the
 * invariant every lookup relies on is that the current slot of each level
 * has been emptied into the finer levels.
 */
static void cascade(struct hws__timer_base *base)
{
	for (int lvl = 0; lvl < HWS_TVN_LEVELS; lvl++)
		if (!cascade_level(base, lvl))
			break;
}

static void advance_to(struct hws__timer_base *base, unsigned long j)
{
	base->timer_jiffies = j;
	if ((j & TVR_MASK) == 0)
		cascade(base);
}

void hws__timer_collect(struct hws__timer_base *base, unsigned long now,
			struct hws__list_head *expired)
{
	if (base->count == 0) {
		/* Nothing armed: every slot is empty, so any position is valid. */
		base->timer_jiffies = now + 1;
		return;
	}
	base->next_valid = false;
	while (time_before_eq(base->timer_jiffies, now)) {
		unsigned idx = base->timer_jiffies & TVR_MASK;
		unsigned next = find_next_bit(base->tv1_map, HWS_TVR_SIZE, idx);

		if (next != idx) {
			/* Skip empty slots, up to the next busy one or block end. */
			unsigned long target = base->timer_jiffies + (next - idx);

			advance_to(base, time_after(target, now) ? now + 1 : target);
			continue;
		}
		for (struct hws__list_head *p = base->tv1[idx].next; p != &base->tv1[idx]; p = p->next)
			base->count--;
		hws__list_splice_tail_init(&base->tv1[idx], expired);
		base->tv1_map[idx / 64] &= ~(1ULL << (idx % 64));
		advance_to(base, base->timer_jiffies + 1);
	}
}

void hws__timer_collect_all(struct hws__timer_base *base, struct hws__list_head *all)
{
	for (int i = 0; i < HWS_TVR_SIZE; i++)
		hws__list_splice_tail_init(&base->tv1[i], all);
	for (int l = 0; l < HWS_TVN_LEVELS; l++)
		for (int i = 0; i < HWS_TVN_SIZE; i++)
			hws__list_splice_tail_init(&base->tvn[l][i], all);
	for (size_t i = 0; i < sizeof(base->tv1_map) / sizeof(base->tv1_map[0]); i++)
		base->tv1_map[i] = 0;
	for (int l = 0; l < HWS_TVN_LEVELS; l++)
		base->tvn_map[l] = 0;
	base->count = 0;
	base->next_valid = false;
}

static unsigned long list_min_expiry(const struct hws__list_head *head)
{
	const struct timer_list *first = container_of(head->next, struct timer_list, entry);
	unsigned long min = first->expires;

	for (const struct hws__list_head *p = head->next->next; p != head; p = p->next) {
		const struct timer_list *t = container_of(p, struct timer_list, entry);

		if (time_before(t->expires, min))
			min = t->expires;
	}
	return min;
}

/*
 * The exact earliest expiry. A due slot in the current block of tv1 is the
 * answer at once; otherwise the candidates are tv1's wrapped slots (next
 * block) and the busy slots of each level in wheel order, whose lists must
 * be scanned since their timers span a whole slot. A level's scan stops at
 * the first slot that cannot start before the best so far; it cannot stop
 * at the first busy slot because timers parked beyond the wheel's range
 * sit in a slot that says nothing of their expiry.
 */
static unsigned long compute_next(const struct hws__timer_base *base)
{
	unsigned long tj = base->timer_jiffies;
	unsigned idx = tj & TVR_MASK;
	unsigned s = find_next_bit(base->tv1_map, HWS_TVR_SIZE, idx);
	unsigned long best = 0;
	bool found = false;

	if (s < HWS_TVR_SIZE)
		return tj + (s - idx);
	s = find_next_bit(base->tv1_map, HWS_TVR_SIZE, 0);
	if (s < idx) {
		best = tj - idx + HWS_TVR_SIZE + s;
		found = true;
	}
	for (int lvl = 0; lvl < HWS_TVN_LEVELS; lvl++) {
		unsigned shift = level_shift(lvl);
		unsigned long cur = tj >> shift;
		uint64_t map = base->tvn_map[lvl];
		/* Rotate so that bit k-1 is the slot k places after the current. */
		unsigned rot = (unsigned)((cur + 1) & TVN_MASK);
		uint64_t r = rot ? (map >> rot) | (map << (64 - rot)) : map;

		while (r) {
			unsigned k = (unsigned)__builtin_ctzll(r) + 1;
			unsigned long start = (cur + k) << shift;
			unsigned long m;

			if (found && time_after_eq(start, best))
				break;
			m = list_min_expiry(&base->tvn[lvl][(cur + k) & TVN_MASK]);
			if (!found || time_before(m, best)) {
				best = m;
				found = true;
			}
			r &= r - 1;
		}
	}
	assert(found);
	return best;
}

bool hws__timer_next(struct hws__timer_base *base, unsigned long *ret_expiry)
{
	if (base->count == 0)
		return false;
	if (!base->next_valid) {
		base->next_expiry = compute_next(base);
		base->next_valid = true;
	}
	*ret_expiry = base->next_expiry;
	return true;
}
