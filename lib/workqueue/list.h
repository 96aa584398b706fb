/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The kernel's circular doubly linked list, on hws__list_head. */

#include <stdbool.h>

#include <hwsight/workqueue.h>

static inline void hws__list_init(struct hws__list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool hws__list_empty(const struct hws__list_head *h)
{
	return h->next == h;
}

static inline void hws__list_add_tail(struct hws__list_head *n, struct hws__list_head *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

/* Insert @n right after @pos. */
static inline void hws__list_add_after(struct hws__list_head *n, struct hws__list_head *pos)
{
	hws__list_add_tail(n, pos->next);
}

static inline void hws__list_unlink(struct hws__list_head *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
}

static inline void hws__list_del_init(struct hws__list_head *n)
{
	hws__list_unlink(n);
	hws__list_init(n);
}

/* Move every entry of @from to the tail of @to, leaving @from empty. */
static inline void hws__list_splice_tail_init(struct hws__list_head *from, struct hws__list_head *to)
{
	if (hws__list_empty(from))
		return;
	from->next->prev = to->prev;
	to->prev->next = from->next;
	from->prev->next = to;
	to->prev = from->prev;
	hws__list_init(from);
}
