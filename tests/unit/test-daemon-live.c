/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's live frames (daemon/live.c): viewers that wait without a
 * thread (hwsd_live_poll(), as the HTTP side's suspended streams do) are
 * woken once by the next frame or the camera's close; and the frames
 * while the wall clock is stepped, as NTP or an administrator's `date -s` steps it: a snapshot
 * request must still get a frame from now, not one from before the step,
 * and must not wait for a new frame when the latest one was just taken.
 *
 * The step is seen only by the code under test: this binary is linked
 * with -Wl,--wrap=clock_gettime, and the wrapper below adds an offset to
 * CLOCK_REALTIME and passes every other clock through.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "task.h"

#define HOUR_MS (3600 * 1000LL)

static atomic_llong realtime_step_ms;

int __real_clock_gettime(clockid_t clock, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clock, struct timespec *ts);

int __wrap_clock_gettime(clockid_t clock, struct timespec *ts)
{
	int r = __real_clock_gettime(clock, ts);
	long long ns;

	if (r == 0 && clock == CLOCK_REALTIME) {
		ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + atomic_load(&realtime_step_ms) * 1000000LL;
		ts->tv_sec = (time_t)(ns / 1000000000LL);
		ts->tv_nsec = (long)(ns % 1000000000LL);
	}
	return r;
}

static int64_t real_wall_ms(void)
{
	struct timespec ts;

	__real_clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static atomic_int wakes;

static void wake(void *userdata)
{
	(void)userdata;
	atomic_fetch_add(&wakes, 1);
}

/* The camera, woken by the request, delivers its next frame a little later. */
static void *late_frame(void *arg)
{
	struct hwsd_live *l = arg;

	usleep(100 * 1000);
	ASSERT_EQ(hwsd_live_publish(l, "new", 3, 0), 0);
	return NULL;
}

TEST(clock_stepped_back_gets_a_new_frame)
{
	struct hwsd_live *l;
	struct hwsd_jpeg *j = NULL;
	pthread_t producer;

	ASSERT_EQ(hwsd_live_new("cam", wake, NULL, &l), 0);
	ASSERT_EQ(hwsd_live_publish(l, "old", 3, 0), 0);
	/* The frame is older than "fresh" by any clock, then the wall
	 * clock goes back an hour: it must not look newer for it. */
	usleep(1200 * 1000);
	atomic_store(&realtime_step_ms, -HOUR_MS);
	ASSERT_EQ(pthread_create(&producer, NULL, late_frame, l), 0);
	ASSERT_EQ(hwsd_live_next(l, 0, 5000, true, &j), 0);
	ASSERT_EQ(pthread_join(producer, NULL), 0);
	ASSERT_EQ(j->seq, 2);
	ASSERT_EQ(memcmp(j->data, "new", 3), 0);
	ASSERT_GT(atomic_load(&wakes), 0);
	/* What users see (X-Timestamp) is the machine's wall clock, stepped. */
	ASSERT_LT(llabs(j->time_ms - (real_wall_ms() - HOUR_MS)), 5000);
	hwsd_jpeg_unref(j);
	hwsd_live_close(l);
	hwsd_live_unref(l);
}

TEST(clock_stepped_forward_keeps_a_fresh_frame)
{
	struct hwsd_live *l;
	struct hwsd_jpeg *j = NULL;

	ASSERT_EQ(hwsd_live_new("cam", wake, NULL, &l), 0);
	ASSERT_EQ(hwsd_live_publish(l, "now", 3, 0), 0);
	/* Taken a moment ago: an hour's step forward must not make the
	 * request wait for a frame the camera may not deliver. */
	atomic_store(&realtime_step_ms, HOUR_MS);
	ASSERT_EQ(hwsd_live_next(l, 0, 300, true, &j), 0);
	ASSERT_EQ(j->seq, 1);
	hwsd_jpeg_unref(j);
	hwsd_live_close(l);
	hwsd_live_unref(l);
}

/* A viewer keeps the camera capturing while it watches, not after: with
 * nobody watching nothing is captured or encoded. A snapshot lingers, for
 * the page that asks again in a few seconds. */
TEST(only_a_snapshot_keeps_the_camera_after_it)
{
	struct hwsd_live *l;
	struct hwsd_jpeg *j = NULL;

	ASSERT_EQ(hwsd_live_new("cam", wake, NULL, &l), 0);
	ASSERT_FALSE(hwsd_live_wanted(l));
	ASSERT_EQ(hwsd_live_publish(l, "one", 3, 7), 0);
	hwsd_live_viewers(l, +1);
	ASSERT_EQ(hwsd_live_next(l, 0, 300, false, &j), 0);
	ASSERT_EQ(j->capture_ns, 7);
	j = hwsd_jpeg_unref(j);
	ASSERT_TRUE(hwsd_live_wanted(l));
	hwsd_live_viewers(l, -1);
	ASSERT_FALSE(hwsd_live_wanted(l));
	ASSERT_EQ(hwsd_live_next(l, 0, 300, true, &j), 0);
	hwsd_jpeg_unref(j);
	ASSERT_TRUE(hwsd_live_wanted(l));
	hwsd_live_close(l);
	hwsd_live_unref(l);
}

struct waiter {
	struct hwsd_live_waiter w;
	int woken;
};

static void count_wake(struct hwsd_live_waiter *w)
{
	((struct waiter *)w)->woken++;
}

/* A stream viewer that has sent frame 1 waits for frame 2 without a
 * thread: woken once when it comes, and then takes it, not frame 1. */
TEST(a_waiting_viewer_is_woken_once_by_the_next_frame)
{
	struct waiter a = { .w.wake = count_wake }, b = { .w.wake = count_wake };
	struct hwsd_live *l;
	struct hwsd_jpeg *j = NULL;

	ASSERT_EQ(hwsd_live_new("cam", wake, NULL, &l), 0);
	ASSERT_EQ(hwsd_live_publish(l, "one", 3, 0), 0);
	hwsd_live_viewers(l, +1);
	ASSERT_EQ(hwsd_live_poll(l, 0, &a.w, &j), 0);
	ASSERT_EQ(j->seq, 1);
	ASSERT_EQ(hwsd_live_poll(l, j->seq, &a.w, &j), -EAGAIN);
	ASSERT_EQ(hwsd_live_poll(l, 1, &b.w, &j), -EAGAIN);
	ASSERT_TRUE(hwsd_live_wanted(l));
	ASSERT_EQ(a.woken + b.woken, 0);
	ASSERT_EQ(hwsd_live_publish(l, "two", 3, 0), 0);
	ASSERT_EQ(a.woken, 1);
	ASSERT_EQ(b.woken, 1);
	/* Off the list: the next frame wakes nobody twice. */
	ASSERT_FALSE(hwsd_live_unwait(l, &a.w));
	ASSERT_EQ(hwsd_live_publish(l, "three", 5, 0), 0);
	ASSERT_EQ(a.woken, 1);
	j = hwsd_jpeg_unref(j);
	ASSERT_EQ(hwsd_live_poll(l, 1, &a.w, &j), 0);
	ASSERT_EQ(j->seq, 3);
	ASSERT_EQ(memcmp(j->data, "three", 5), 0);
	hwsd_jpeg_unref(j);
	hwsd_live_viewers(l, -1);
	hwsd_live_close(l);
	hwsd_live_unref(l);
}

/* A viewer that leaves while waiting is not woken; the others are, by the
 * camera's close (a reload or the stop), and then told it is closed. */
TEST(a_close_wakes_the_waiters_that_stayed)
{
	struct waiter a = { .w.wake = count_wake }, b = { .w.wake = count_wake }, c = { .w.wake = count_wake };
	struct hwsd_live *l;
	struct hwsd_jpeg *j = NULL;

	ASSERT_EQ(hwsd_live_new("cam", wake, NULL, &l), 0);
	ASSERT_EQ(hwsd_live_poll(l, 0, &a.w, &j), -EAGAIN);
	ASSERT_EQ(hwsd_live_poll(l, 0, &b.w, &j), -EAGAIN);
	ASSERT_EQ(hwsd_live_poll(l, 0, &c.w, &j), -EAGAIN);
	ASSERT_TRUE(hwsd_live_unwait(l, &b.w));
	ASSERT_FALSE(hwsd_live_unwait(l, &b.w));
	hwsd_live_close(l);
	ASSERT_EQ(a.woken, 1);
	ASSERT_EQ(b.woken, 0);
	ASSERT_EQ(c.woken, 1);
	ASSERT_EQ(hwsd_live_poll(l, 0, &a.w, &j), -ESHUTDOWN);
	ASSERT_FALSE(hwsd_live_unwait(l, &a.w));
	hwsd_live_unref(l);
}

/* The HTTP side stopping wakes the waiters of every camera it serves,
 * which then stay on no list. */
TEST(the_set_wakes_every_cameras_waiters)
{
	struct waiter a = { .w.wake = count_wake }, b = { .w.wake = count_wake };
	struct hwsd_live_set s;
	struct hwsd_live *l[2];
	struct hwsd_jpeg *j = NULL;

	hwsd_live_set_init(&s);
	ASSERT_EQ(hwsd_live_new("cam0", wake, NULL, &l[0]), 0);
	ASSERT_EQ(hwsd_live_new("cam1", wake, NULL, &l[1]), 0);
	ASSERT_EQ(hwsd_live_set_replace(&s, l, 2), 0);
	ASSERT_EQ(hwsd_live_poll(l[0], 0, &a.w, &j), -EAGAIN);
	ASSERT_EQ(hwsd_live_poll(l[1], 0, &b.w, &j), -EAGAIN);
	hwsd_live_set_wake(&s);
	ASSERT_EQ(a.woken, 1);
	ASSERT_EQ(b.woken, 1);
	ASSERT_FALSE(hwsd_live_unwait(l[0], &a.w));
	ASSERT_FALSE(hwsd_live_unwait(l[1], &b.w));
	for (int i = 0; i < 2; i++) {
		hwsd_live_close(l[i]);
		hwsd_live_unref(l[i]);
	}
	hwsd_live_set_done(&s);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
