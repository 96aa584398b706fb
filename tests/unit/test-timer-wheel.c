/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * White-box test of the timer wheel behind delayed_work: random arms,
 * cancels and clock jumps, checked against a brute-force model. The wheel
 * must fire every timer at the first collect at or after its expiry, never
 * before, and must name the exact earliest expiry, at every start time
 * (including across the jiffies wrap).
 */
#include "task.h"

#include "workqueue/list.h"
#include "workqueue/timer.h"

#define NTIMERS 4096
#define STEPS 60000

static struct timer_list timers[NTIMERS];
static bool armed[NTIMERS];
static unsigned long long rng_state;

static unsigned long long rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Delays of every order: one block, a level, several levels, past 2^32. */
static unsigned long random_delay(void)
{
	static const unsigned long long spans[] = { 300, 20000, 3000000, 1ULL << 34 };

	return 1 + (unsigned long)(rng() % spans[rng() % 4]);
}

static bool model_next(unsigned long *ret)
{
	bool have = false;

	for (int i = 0; i < NTIMERS; i++)
		if (armed[i] && (!have || time_before(timers[i].expires, *ret))) {
			*ret = timers[i].expires;
			have = true;
		}
	return have;
}

static void run_model(unsigned long start)
{
	static struct hws__timer_base base;
	unsigned long now = start;

	rng_state = 88172645463325252ULL;
	memset(armed, 0, sizeof(armed));
	hws__timer_base_init(&base, now);
	for (int step = 0; step < STEPS; step++) {
		int op = (int)(rng() % 10), i = (int)(rng() % NTIMERS);
		unsigned long want = 0, got = 0;
		bool have;

		if (op < 4 && !armed[i]) {
			timers[i].entry.next = NULL;
			timers[i].expires = now + random_delay();
			hws__timer_add(&base, &timers[i]);
			armed[i] = true;
			continue;
		}
		if (op < 6 && armed[i]) {
			ASSERT_TRUE(hws__timer_del(&base, &timers[i]));
			ASSERT_FALSE(hws__timer_del(&base, &timers[i]));
			armed[i] = false;
			continue;
		}
		have = model_next(&want);
		ASSERT_EQ(hws__timer_next(&base, &got), have);
		if (have)
			ASSERT_UL_EQ(got, want);
		/* Jump to the next expiry half the time, else a short step. */
		now = (have && rng() % 2) ? want : now + (unsigned long)(rng() % 1000);

		struct hws__list_head expired;

		hws__list_init(&expired);
		hws__timer_collect(&base, now, &expired);
		while (!hws__list_empty(&expired)) {
			struct timer_list *t = container_of(expired.next, struct timer_list, entry);
			int id = (int)(t - timers);

			hws__list_unlink(&t->entry);
			t->entry.next = NULL;
			ASSERT_TRUE(armed[id]);
			ASSERT_TRUE(time_before_eq(t->expires, now));
			armed[id] = false;
		}
		for (int k = 0; k < NTIMERS; k++)
			if (armed[k] && time_before_eq(timers[k].expires, now))
				FAIL("timer %d due at %lu still armed at %lu", k, timers[k].expires, now);
	}
}

TEST_TIMEOUT(timer_wheel_model, 120)
{
	run_model(INITIAL_JIFFIES);
}

TEST_TIMEOUT(timer_wheel_model_across_wrap, 120)
{
	run_model(~0UL - 5000);
}

TEST(timer_wheel_collect_all)
{
	static struct hws__timer_base base;
	struct hws__list_head all;
	unsigned long next;
	int n = 0;

	hws__timer_base_init(&base, 1000);
	for (int i = 0; i < 100; i++) {
		timers[i].entry.next = NULL;
		timers[i].expires = 1000 + 1 + (unsigned long)i * 997;
		hws__timer_add(&base, &timers[i]);
	}
	hws__list_init(&all);
	hws__timer_collect_all(&base, &all);
	for (struct hws__list_head *p = all.next; p != &all; p = p->next)
		n++;
	ASSERT_EQ(n, 100);
	ASSERT_FALSE(hws__timer_next(&base, &next));
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
