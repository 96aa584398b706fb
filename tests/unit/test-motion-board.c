/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The motion guard's board (daemon/motion-board.c), what /metrics, the
 * JSON API and the status page show of disk protection: parks counted
 * per disk, the seconds they held with an ongoing one counted up to the
 * copy, the last park's reason, and disks that keep their counters while
 * they, or the guard, come and go. Then a guard writing at full speed
 * while a page copies, for TSan.
 */
#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "motion-board.h"
#include "task.h"

typedef char disk_name[HWSD_DISK_NAME_MAX + 1];

static const struct hws_motion_info ams = { .driver_name = "ams", .input_node = "/dev/input/event5" };

static const struct hwsd_disk_status *disk(const struct hwsd_motion_status *st, const char *name)
{
	for (size_t i = 0; i < st->n_disks; i++)
		if (!strcmp(st->disks[i].name, name))
			return &st->disks[i];
	FAIL("no disk %s on the board", name);
	return NULL;
}

TEST(a_park_counted_and_timed)
{
	struct hwsd_motion_board b;
	struct hwsd_motion_status st;
	struct hws_motion_sample sample = { .mg = { 20, -40, 980 } };
	struct hws_motion_detector_state state = { .threshold = 16.5, .score = 2.5, .moving = true };

	/* No guard, nothing to show. */
	ASSERT_EQ(hwsd_motion_board_copy(NULL, &st), 0);
	hwsd_motion_board_init(&b);
	ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 0);

	hwsd_motion_board_watch(&b, &ams, 15, true);
	ASSERT_EQ(hwsd_motion_board_disks(&b, (disk_name[]){ "sda", "sdb" }, 2), 0);
	hwsd_motion_board_sampling(&b, true);
	ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 1);
	ASSERT_TRUE(st.watched && st.sampling && st.dry_run && st.input);
	ASSERT_STR_EQ(st.driver, "ams");
	ASSERT_EQ(st.threshold_base, 15);
	ASSERT_TRUE(st.threshold == 15);
	ASSERT_TRUE(isnan(st.score) && isnan(st.g[2]));
	ASSERT_EQ(st.last_park_time_ms, 0);
	hwsd_motion_board_free_copy(&st);

	hwsd_motion_board_sample(&b, &sample, &state);
	hwsd_motion_board_sample(&b, NULL, NULL);
	hwsd_motion_board_park(&b, true);
	hwsd_motion_board_parked(&b, "sda");
	/* A renewal is not a new park. */
	hwsd_motion_board_parked(&b, "sda");
	usleep(20000);
	ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 1);
	ASSERT_EQ(st.samples, 2);
	ASSERT_TRUE(st.g[2] == 0.98 && st.score == 2.5 && st.threshold == 16.5 && st.moving);
	ASSERT_TRUE(disk(&st, "sda")->parked);
	ASSERT_EQ(disk(&st, "sda")->parks, 1);
	ASSERT_GE(disk(&st, "sda")->parked_ms, 20);
	ASSERT_EQ(disk(&st, "sdb")->parks, 0);
	ASSERT_TRUE(st.last_park_ongoing && st.last_park_free_fall);
	ASSERT_GE(st.last_park_ms, 20);
	ASSERT_GT(st.last_park_time_ms, 0);
	hwsd_motion_board_free_copy(&st);

	hwsd_motion_board_released(&b);
	ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 1);
	ASSERT_FALSE(disk(&st, "sda")->parked);
	ASSERT_GE(disk(&st, "sda")->parked_ms, 20);
	ASSERT_FALSE(st.last_park_ongoing);
	ASSERT_GE(st.last_park_ms, disk(&st, "sda")->parked_ms);
	hwsd_motion_board_free_copy(&st);
	hwsd_motion_board_done(&b);
}

/* A disk unplugged while parked is parked no longer; it keeps its
 * counters, through a guard's stop and start (a reload) too. */
TEST(disks_keep_their_counters)
{
	struct hwsd_motion_board b;
	struct hwsd_motion_status st;
	uint64_t held;

	hwsd_motion_board_init(&b);
	hwsd_motion_board_watch(&b, &ams, 15, false);
	ASSERT_EQ(hwsd_motion_board_disks(&b, (disk_name[]){ "sda" }, 1), 0);
	hwsd_motion_board_park(&b, false);
	hwsd_motion_board_parked(&b, "sda");
	ASSERT_EQ(hwsd_motion_board_disks(&b, NULL, 0), 0);
	ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 1);
	ASSERT_EQ(st.n_disks, 1);
	ASSERT_FALSE(st.disks[0].protected || st.disks[0].parked);
	ASSERT_EQ(st.disks[0].parks, 1);
	held = st.disks[0].parked_ms;
	hwsd_motion_board_free_copy(&st);

	hwsd_motion_board_watch(&b, NULL, 0, false);
	hwsd_motion_board_watch(&b, &ams, 20, false);
	ASSERT_EQ(hwsd_motion_board_disks(&b, (disk_name[]){ "sdc", "sda" }, 2), 0);
	hwsd_motion_board_park(&b, false);
	hwsd_motion_board_parked(&b, "sda");
	hwsd_motion_board_parked(&b, "sdc");
	/* The guard stops with the heads parked: the park ends there, and
	 * the board shows nothing until a guard runs again. */
	hwsd_motion_board_watch(&b, NULL, 0, false);
	ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 0);
	hwsd_motion_board_watch(&b, &ams, 20, false);
	ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 1);
	ASSERT_FALSE(st.last_park_ongoing);
	ASSERT_EQ(st.n_disks, 2);
	ASSERT_EQ(disk(&st, "sda")->parks, 2);
	ASSERT_GE(disk(&st, "sda")->parked_ms, held);
	ASSERT_EQ(disk(&st, "sdc")->parks, 1);
	ASSERT_FALSE(disk(&st, "sda")->parked || disk(&st, "sdc")->parked);
	hwsd_motion_board_free_copy(&st);
	hwsd_motion_board_done(&b);
}

static void *guard(void *arg)
{
	struct hwsd_motion_board *b = arg;
	struct hws_motion_sample sample = { .mg = { 0, 0, 1000 } };
	struct hws_motion_detector_state state = { .threshold = 15 };

	for (int i = 0; i < 20000; i++) {
		hwsd_motion_board_sample(b, &sample, &state);
		if (i % 1000 == 0)
			hwsd_motion_board_disks(b, (disk_name[]){ "sda", "sdb" }, 1 + (i / 1000) % 2);
		if (i % 100 == 0) {
			hwsd_motion_board_park(b, false);
			hwsd_motion_board_parked(b, "sda");
		} else if (i % 100 == 50)
			hwsd_motion_board_released(b);
	}
	return NULL;
}

TEST(a_page_copies_while_the_guard_writes)
{
	struct hwsd_motion_board b;
	struct hwsd_motion_status st;
	uint64_t samples = 0;
	pthread_t t;

	hwsd_motion_board_init(&b);
	hwsd_motion_board_watch(&b, &ams, 15, false);
	ASSERT_EQ(pthread_create(&t, NULL, guard, &b), 0);
	for (int i = 0; i < 2000; i++) {
		ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 1);
		ASSERT_GE(st.samples, samples);
		samples = st.samples;
		hwsd_motion_board_free_copy(&st);
	}
	ASSERT_EQ(pthread_join(t, NULL), 0);
	ASSERT_EQ(hwsd_motion_board_copy(&b, &st), 1);
	ASSERT_EQ(st.samples, 20000);
	ASSERT_EQ(disk(&st, "sda")->parks, 200);
	hwsd_motion_board_free_copy(&st);
	hwsd_motion_board_done(&b);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
