/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Suspend: logind says PrepareForSleep(true) before the system sleeps and
 * PrepareForSleep(false) after it wakes; this passes it on to whoever
 * made the watch (main.c freezes the queues before and thaws them
 * after). A "delay" inhibitor lock, taken at start and again after each
 * resume, makes logind wait until that returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "io-util.h"
#include "log.h"
#include "sleep.h"

struct hwsd_sleep {
	void (*prepare)(void *userdata, bool start);
	void *userdata;
	sd_bus *bus;
	sd_bus_slot *inhibit_call;
	int inhibit_fd;
};

static int inhibit_reply(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct hwsd_sleep *s = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(m);
	int fd, r;

	(void)error;
	s->inhibit_call = sd_bus_slot_unref(s->inhibit_call);
	if (e) {
		log_debug("logind: no delay lock (%s); suspend will not wait for the freeze", e->message);
		return 0;
	}
	r = sd_bus_message_read(m, "h", &fd);
	if (r < 0)
		return 0;
	/* The message owns its fd. */
	s->inhibit_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	log_debug("logind: holding a delay lock for sleep");
	return 0;
}

/* Lets a suspend that waits for hwsightd go on, and drops a request for
 * the lock still on its way. */
static void release_lock(struct hwsd_sleep *s)
{
	s->inhibit_call = sd_bus_slot_unref(s->inhibit_call);
	s->inhibit_fd = hws__safe_close(s->inhibit_fd);
}

static void inhibit(struct hwsd_sleep *s)
{
	int r;

	if (s->inhibit_fd >= 0 || s->inhibit_call)
		return;
	r = sd_bus_call_method_async(s->bus, &s->inhibit_call, "org.freedesktop.login1",
				     "/org/freedesktop/login1", "org.freedesktop.login1.Manager",
				     "Inhibit", inhibit_reply, s, "ssss", "sleep", "hwsightd",
				     "Freezing the sensor pollers", "delay");
	if (r < 0)
		log_debug("logind: cannot ask for a delay lock: %s", strerror(-r));
}

static int prepare_for_sleep(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct hwsd_sleep *s = userdata;
	int start, r;

	(void)error;
	r = sd_bus_message_read(m, "b", &start);
	if (r < 0) {
		log_warning("logind: a PrepareForSleep signal without its argument");
		return 0;
	}
	s->prepare(s->userdata, start);
	if (start)
		release_lock(s); /* frozen: let the system go to sleep */
	else
		inhibit(s);
	return 0;
}

int hwsd_sleep_new(sd_event *e, void (*prepare)(void *userdata, bool start), void *userdata,
		   struct hwsd_sleep **ret)
{
	struct hwsd_sleep *s;
	int r;

	s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct hwsd_sleep){ .prepare = prepare, .userdata = userdata, .inhibit_fd = -1 };
	r = sd_bus_open_system(&s->bus);
	if (r < 0) {
		/* No bus (a container, early boot): polling goes on during
		 * suspend, which is harmless for most chips. */
		log_notice("no system bus (%s): pollers will not be frozen for suspend", strerror(-r));
		*ret = s;
		return 0;
	}
	r = sd_bus_match_signal(s->bus, NULL, "org.freedesktop.login1", "/org/freedesktop/login1",
				"org.freedesktop.login1.Manager", "PrepareForSleep",
				prepare_for_sleep, s);
	if (r >= 0)
		r = sd_bus_attach_event(s->bus, e, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0) {
		log_error("system bus: cannot listen for PrepareForSleep: %s", strerror(-r));
		hwsd_sleep_free(s);
		return r;
	}
	inhibit(s);
	*ret = s;
	return 0;
}

struct hwsd_sleep *hwsd_sleep_free(struct hwsd_sleep *s)
{
	if (!s)
		return NULL;
	release_lock(s);
	sd_bus_flush_close_unref(s->bus);
	free(s);
	return NULL;
}
