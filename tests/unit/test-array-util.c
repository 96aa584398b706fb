/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The growable array behind the lists the library gathers (camera modes,
 * frame sizes and intervals, detected chips): every element pushed comes
 * back in order, and sorting keeps one of each.
 */
#include <stdlib.h>

#include "util/array-util.h"
#include "task.h"

struct pair {
	int key;
	int tag;
};

static int compare_key(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

TEST(push_keeps_every_element_in_order)
{
	struct hws__array a = HWS__ARRAY_INIT(struct pair);
	const struct pair *v;

	/* Past several doublings of the capacity. */
	for (int i = 0; i < 1000; i++)
		ASSERT_EQ(hws__array_push(&a, &(struct pair){ i, -i }), 0);
	ASSERT_UL_EQ(a.n, 1000);
	ASSERT_UL_GE(a.cap, a.n);
	v = a.v;
	for (int i = 0; i < 1000; i++) {
		ASSERT_EQ(v[i].key, i);
		ASSERT_EQ(v[i].tag, -i);
	}
	free(a.v);
}

TEST(sort_unique_drops_repeats)
{
	static const int keys[] = { 5, 1, 5, 3, 1, 1, 9, 3 };
	static const int want[] = { 1, 3, 5, 9 };
	struct hws__array a = HWS__ARRAY_INIT(struct pair);
	const struct pair *v;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		ASSERT_EQ(hws__array_push(&a, &(struct pair){ keys[i], (int)i }), 0);
	hws__array_sort_unique(&a, compare_key);
	ASSERT_UL_EQ(a.n, sizeof(want) / sizeof(want[0]));
	v = a.v;
	for (size_t i = 0; i < a.n; i++)
		ASSERT_EQ(v[i].key, want[i]);
	free(a.v);
}

TEST(sort_unique_of_nothing)
{
	struct hws__array a = HWS__ARRAY_INIT(struct pair);

	hws__array_sort_unique(&a, compare_key);
	ASSERT_UL_EQ(a.n, 0);
	ASSERT_NULL(a.v);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
