/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's event sink (daemon/events.c): every subscriber hears every
 * event of a moment in order, then every moment-subscriber hears the
 * moment once, the counters add up begins and ends, and a producer learns
 * whether any subscriber acts on its events.
 */
#include <math.h>

#include "events.h"
#include "task.h"

struct heard {
	char log[256];
};

static void note(struct heard *h, const char *who, const char *what)
{
	size_t len = strlen(h->log);

	snprintf(h->log + len, sizeof(h->log) - len, "%s%s:%s", len ? " " : "", who, what);
}

static void first_event(void *userdata, const struct hwsd_event *ev)
{
	note(userdata, "a", ev->event);
}

static void second_event(void *userdata, const struct hwsd_event *ev)
{
	note(userdata, "b", ev->event);
}

static void second_moment(void *userdata, const struct hwsd_event *evs, size_t n)
{
	char what[32];

	snprintf(what, sizeof(what), "%zu-from-%s", n, evs[0].event);
	note(userdata, "B", what);
}

static const struct hwsd_subscriber first = { .event = first_event };
static const struct hwsd_subscriber second = { .event = second_event, .moment = second_moment };

TEST(each_event_to_each_subscriber_then_the_moment)
{
	struct hwsd_events *s;
	struct heard h = { "" };
	struct hwsd_event evs[2] = { HWSD_EVENT_INIT("alarm"), HWSD_EVENT_INIT("alarm-end") };

	ASSERT_EQ(hwsd_events_new(&s), 0);
	ASSERT_EQ(hwsd_events_subscribe(s, &first, &h), 0);
	ASSERT_EQ(hwsd_events_subscribe(s, &second, &h), 0);
	hwsd_events_publish(s, evs, 2);
	ASSERT_STR_EQ(h.log, "a:alarm b:alarm a:alarm-end b:alarm-end B:2-from-alarm");
	h.log[0] = '\0';
	hwsd_events_publish(s, evs, 0);
	ASSERT_STR_EQ(h.log, "");
	ASSERT_TRUE(isnan(evs[0].value) && isnan(evs[0].limit));
	ASSERT_NULL(hwsd_events_free(s));
	/* No sink (a --once run before it is made): nobody hears, nothing breaks. */
	hwsd_events_publish(NULL, evs, 2);
}

TEST(counters_add_up_begins_and_ends)
{
	struct hwsd_events *s;
	struct hwsd_counters c = { 0 };
	struct hwsd_event begin[3] = { HWSD_EVENT_INIT("alarm"), HWSD_EVENT_INIT("alarm"),
				       HWSD_EVENT_INIT("motion") };
	struct hwsd_event end[2] = { HWSD_EVENT_INIT("alarm-end"), HWSD_EVENT_INIT("motion-end") };

	ASSERT_EQ(hwsd_events_new(&s), 0);
	ASSERT_EQ(hwsd_events_subscribe(s, &hwsd_counters_subscriber, &c), 0);
	hwsd_events_publish(s, begin, 3);
	ASSERT_EQ(atomic_load(&c.alarms_active), 2u);
	ASSERT_EQ(atomic_load(&c.motion_events), 1ull);
	ASSERT_TRUE(atomic_load(&c.in_motion));
	hwsd_events_publish(s, end, 2);
	ASSERT_EQ(atomic_load(&c.alarms_active), 1u);
	ASSERT_EQ(atomic_load(&c.motion_events), 1ull);
	ASSERT_TRUE(!atomic_load(&c.in_motion));
	hwsd_events_free(s);
}

static bool wants_motion(void *userdata, const char *event)
{
	return *(bool *)userdata && !strcmp(event, "motion");
}

static const struct hwsd_subscriber snapper = { .event = first_event, .wants = wants_motion };

/* A producer asks whether anyone acts on its events: the record keepers
 * (no @wants) never do; a subscriber with @wants says for itself. */
TEST(wanted_only_when_a_subscriber_says_so)
{
	struct hwsd_events *s;
	struct hwsd_counters c = { 0 };
	struct heard h = { "" };
	bool on = false;

	ASSERT_FALSE(hwsd_events_wanted(NULL, "motion"));
	ASSERT_EQ(hwsd_events_new(&s), 0);
	ASSERT_FALSE(hwsd_events_wanted(s, "motion"));
	ASSERT_EQ(hwsd_events_subscribe(s, &hwsd_counters_subscriber, &c), 0);
	ASSERT_EQ(hwsd_events_subscribe(s, &first, &h), 0);
	ASSERT_FALSE(hwsd_events_wanted(s, "motion"));
	ASSERT_EQ(hwsd_events_subscribe(s, &snapper, &on), 0);
	ASSERT_FALSE(hwsd_events_wanted(s, "motion"));
	on = true;
	ASSERT_TRUE(hwsd_events_wanted(s, "motion"));
	ASSERT_FALSE(hwsd_events_wanted(s, "alarm"));
	hwsd_events_free(s);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
