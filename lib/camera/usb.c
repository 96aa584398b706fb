/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * usbvision grabbers found by their USB ids, through libusb, with or
 * without a driver: the driver left mainline Linux in 2020, and a grabber
 * plugged into a newer kernel is only visible this way.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libusb.h>

#include <hwsight/camera.h>

#include "camera/camera-internal.h"

#define USB_DEVICES "/sys/bus/usb/devices"

/* The sysfs name of a device: "BUS-PORT.PORT...". */
static int sysfs_name(libusb_device *dev, char *buf, size_t size)
{
	uint8_t ports[8];
	int n, len;

	n = libusb_get_port_numbers(dev, ports, sizeof(ports));
	if (n <= 0)
		return -ENOENT; /* a root hub */
	len = snprintf(buf, size, "%u-%u", libusb_get_bus_number(dev), ports[0]);
	for (int i = 1; i < n && len > 0 && (size_t)len < size; i++)
		len += snprintf(buf + len, size - (size_t)len, ".%u", ports[i]);
	return len > 0 && (size_t)len < size ? 0 : -ENAMETOOLONG;
}

/* The driver of its interfaces ("BUS-PORT:CONFIG.IFACE/driver") and the
 * video node under them, if any. */
static void bound_to(const char *name, struct hws_usb_grabber *g)
{
	char path[PATH_MAX], link[PATH_MAX];
	size_t len = strlen(name);
	struct dirent *de;
	DIR *dir;

	dir = opendir(USB_DEVICES);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		struct dirent *v;
		DIR *vdir;
		ssize_t n;

		if (strncmp(de->d_name, name, len) || de->d_name[len] != ':')
			continue;
		snprintf(path, sizeof(path), USB_DEVICES "/%s/driver", de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0 && !g->driver[0]) {
			link[n] = '\0';
			if (snprintf(g->driver, sizeof(g->driver), "%s",
				     strrchr(link, '/') ? strrchr(link, '/') + 1 : link) >= (int)sizeof(g->driver))
				g->driver[0] = '\0';
		}
		snprintf(path, sizeof(path), USB_DEVICES "/%s/video4linux", de->d_name);
		vdir = opendir(path);
		if (!vdir)
			continue;
		while ((v = readdir(vdir)))
			if (!g->devnode[0] && !strncmp(v->d_name, "video", 5) &&
			    snprintf(g->devnode, sizeof(g->devnode), "/dev/%s", v->d_name) >= (int)sizeof(g->devnode))
				g->devnode[0] = '\0';
		closedir(vdir);
	}
	closedir(dir);
}

int hws_camera_usb_grabbers(struct hws_usb_grabber **ret_list)
{
	struct hws_usb_grabber *list = NULL, *l;
	libusb_context *ctx = NULL;
	libusb_device **devs = NULL;
	ssize_t n_devs;
	int n = 0, r;

	if (!ret_list)
		return -EINVAL;
	/* A context of our own: libusb's default one is a process global. */
	r = libusb_init(&ctx);
	if (r < 0)
		return r == LIBUSB_ERROR_NO_MEM ? -ENOMEM : -EIO;
	n_devs = libusb_get_device_list(ctx, &devs);
	if (n_devs < 0) {
		libusb_exit(ctx);
		return n_devs == LIBUSB_ERROR_NO_MEM ? -ENOMEM : -EIO;
	}
	for (ssize_t i = 0; i < n_devs; i++) {
		struct libusb_device_descriptor d;
		struct hws_usb_grabber *g;
		const char *model;
		char name[64];

		if (libusb_get_device_descriptor(devs[i], &d) < 0)
			continue;
		model = hws__usbvision_model(d.idVendor, d.idProduct);
		if (!model)
			continue;
		l = realloc(list, (size_t)(n + 1) * sizeof(*list));
		if (!l) {
			r = -ENOMEM;
			break;
		}
		list = l;
		g = &list[n++];
		*g = (struct hws_usb_grabber){
			.vendor = d.idVendor,
			.product = d.idProduct,
			.bus = libusb_get_bus_number(devs[i]),
			.address = libusb_get_device_address(devs[i]),
		};
		snprintf(g->model, sizeof(g->model), "%s", model);
		if (sysfs_name(devs[i], name, sizeof(name)) == 0)
			bound_to(name, g);
	}
	libusb_free_device_list(devs, 1);
	libusb_exit(ctx);
	if (r < 0) {
		free(list);
		return r;
	}
	*ret_list = list;
	return n;
}
