/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hotplug: a libudev monitor for hwmon chips, video4linux nodes and disks,
 * which says what came or went to whoever made it (hotplug.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <libudev.h>

#include "hotplug.h"
#include "log.h"

struct hwsd_hotplug {
	const struct hwsd_hotplug_ops *ops;
	void *userdata;
	struct udev *udev;
	struct udev_monitor *monitor;
	sd_event_source *source;
};

static int on_event(sd_event_source *source, int fd, uint32_t revents, void *userdata)
{
	struct hwsd_hotplug *h = userdata;
	struct udev_device *dev;
	const char *subsystem;

	(void)source, (void)fd, (void)revents;
	while ((dev = udev_monitor_receive_device(h->monitor))) {
		subsystem = udev_device_get_subsystem(dev);
		log_debug("uevent: %s %s %s", udev_device_get_action(dev) ?: "?", subsystem ?: "?",
			  udev_device_get_sysname(dev) ?: "?");
		if (subsystem && !strcmp(subsystem, "hwmon"))
			h->ops->hwmon(h->userdata);
		else if (subsystem && !strcmp(subsystem, "video4linux"))
			h->ops->video(h->userdata);
		else if (subsystem && !strcmp(subsystem, "block"))
			h->ops->disk(h->userdata);
		udev_device_unref(dev);
	}
	return 0;
}

int hwsd_hotplug_new(sd_event *e, const struct hwsd_hotplug_ops *ops, void *userdata,
		     struct hwsd_hotplug **ret)
{
	struct hwsd_hotplug *h;
	/* With udevd running its events come after the rules ran (device
	 * nodes and links exist); without it (a container, an initramfs),
	 * the kernel's own events are all there is. */
	const char *source = access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel";
	int r;

	h = malloc(sizeof(*h));
	if (!h)
		return -ENOMEM;
	*h = (struct hwsd_hotplug){ .ops = ops, .userdata = userdata };
	h->udev = udev_new();
	if (!h->udev) {
		r = -ENOMEM;
		goto fail;
	}
	h->monitor = udev_monitor_new_from_netlink(h->udev, source);
	if (!h->monitor) {
		r = -errno ? -errno : -ENOMEM;
		goto fail;
	}
	r = udev_monitor_filter_add_match_subsystem_devtype(h->monitor, "hwmon", NULL);
	if (r >= 0)
		r = udev_monitor_filter_add_match_subsystem_devtype(h->monitor, "video4linux", NULL);
	if (r >= 0)
		r = udev_monitor_filter_add_match_subsystem_devtype(h->monitor, "block", "disk");
	if (r >= 0)
		r = udev_monitor_enable_receiving(h->monitor);
	if (r >= 0)
		r = sd_event_add_io(e, &h->source, udev_monitor_get_fd(h->monitor), EPOLLIN, on_event, h);
	if (r < 0)
		goto fail;
	log_debug("hotplug: listening to %s events", source);
	*ret = h;
	return 0;
fail:
	hwsd_hotplug_free(h);
	return r;
}

struct hwsd_hotplug *hwsd_hotplug_free(struct hwsd_hotplug *h)
{
	if (!h)
		return NULL;
	sd_event_source_disable_unref(h->source);
	udev_monitor_unref(h->monitor);
	udev_unref(h->udev);
	free(h);
	return NULL;
}
