/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event sink (events.h): a fixed list of subscribers, called on the
 * producer's thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

struct subscription {
	const struct hwsd_subscriber *sub;
	void *userdata;
};

struct hwsd_events {
	struct subscription *subs;
	size_t n;
};

int hwsd_events_new(struct hwsd_events **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

struct hwsd_events *hwsd_events_free(struct hwsd_events *s)
{
	if (s)
		free(s->subs);
	free(s);
	return NULL;
}

int hwsd_events_subscribe(struct hwsd_events *s, const struct hwsd_subscriber *sub, void *userdata)
{
	struct subscription *subs = realloc(s->subs, (s->n + 1) * sizeof(*subs));

	if (!subs)
		return -ENOMEM;
	subs[s->n++] = (struct subscription){ sub, userdata };
	s->subs = subs;
	return 0;
}

void hwsd_events_publish(struct hwsd_events *s, const struct hwsd_event *evs, size_t n)
{
	if (!s || !n)
		return;
	for (size_t e = 0; e < n; e++)
		for (size_t i = 0; i < s->n; i++)
			if (s->subs[i].sub->event)
				s->subs[i].sub->event(s->subs[i].userdata, &evs[e]);
	for (size_t i = 0; i < s->n; i++)
		if (s->subs[i].sub->moment)
			s->subs[i].sub->moment(s->subs[i].userdata, evs, n);
}

bool hwsd_events_wanted(const struct hwsd_events *s, const char *event)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->subs[i].sub->wants && s->subs[i].sub->wants(s->subs[i].userdata, event))
			return true;
	return false;
}

static void count(void *userdata, const struct hwsd_event *ev)
{
	struct hwsd_counters *c = userdata;

	if (!strcmp(ev->event, "alarm"))
		atomic_fetch_add(&c->alarms_active, 1);
	else if (!strcmp(ev->event, "alarm-end"))
		atomic_fetch_sub(&c->alarms_active, 1);
	else if (!strcmp(ev->event, "motion")) {
		atomic_fetch_add(&c->motion_events, 1);
		atomic_store(&c->in_motion, true);
	} else if (!strcmp(ev->event, "motion-end"))
		atomic_store(&c->in_motion, false);
}

const struct hwsd_subscriber hwsd_counters_subscriber = { .event = count };
