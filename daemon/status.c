/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The "something changed" signal of status.h: an eventfd, so that the
 * worker threads never call into the main loop's code, and a burst of
 * changes costs the main loop one wake-up.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "events.h"
#include "io-util.h"
#include "status.h"

int hwsd_status_init(struct hwsd_status *s)
{
	s->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return s->fd < 0 ? -errno : 0;
}

void hwsd_status_done(struct hwsd_status *s)
{
	s->fd = hws__safe_close(s->fd);
}

void hwsd_status_changed(struct hwsd_status *s)
{
	uint64_t one = 1;

	/* EAGAIN means the counter is full: the main loop has plenty to
	 * read already. Without the fd (--once) nobody shows a status. */
	if (s->fd >= 0)
		(void)!write(s->fd, &one, sizeof(one));
}

bool hwsd_status_take(struct hwsd_status *s)
{
	uint64_t n;

	return read(s->fd, &n, sizeof(n)) == sizeof(n);
}

static void status_moment(void *userdata, const struct hwsd_event *evs, size_t n)
{
	(void)evs, (void)n;
	hwsd_status_changed(userdata);
}

const struct hwsd_subscriber hwsd_status_subscriber = { .moment = status_moment };
