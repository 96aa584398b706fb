/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HOTPLUG_H
#define HWSD_HOTPLUG_H

/*
 * Hotplug (hotplug.c): a libudev monitor on the main loop. It only says
 * which kind of device came or went; main.c decides what follows (the
 * pollers rescan, the cameras look for their nodes again, the motion
 * guard looks for disks to protect). Without it
 * (no netlink socket in a container) the daemon runs on, and new devices
 * wait for a reload.
 */

#include <systemd/sd-event.h>

struct hwsd_hotplug;

struct hwsd_hotplug_ops {
	void (*hwmon)(void *userdata);   /* a hwmon chip came or went */
	void (*video)(void *userdata);   /* a video4linux node came or went */
	void (*disk)(void *userdata);    /* a block device (a whole disk) came, went or changed */
};

/* @ops and @userdata must outlive the monitor. */
int hwsd_hotplug_new(sd_event *e, const struct hwsd_hotplug_ops *ops, void *userdata,
		     struct hwsd_hotplug **ret);
struct hwsd_hotplug *hwsd_hotplug_free(struct hwsd_hotplug *h);

#endif
