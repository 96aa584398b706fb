/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which cameras there are, what they are, and what they can do.
 *
 * udev names the nodes and what sits behind them (the USB ids, the
 * /dev/v4l links); the driver itself, asked with QUERYCAP and G_PARM, says
 * whether a node captures video and whether its frame interval can be set.
 * Every node is opened only long enough to ask, and closed again.
 *
 * Modes are listed through libv4l2, so that the formats libv4lconvert can
 * make from the device's own show up too, marked emulated: they are what
 * `hwsight capture --convert` can give. Ranges (stepwise sizes and
 * intervals) are reduced to a list a person can read: the ends, the usual
 * sizes and the 300 Hz-friendly intervals in between.
 *
 * Only single-planar video capture is listed. A device that captures only
 * through the multi-planar API (V4L2_CAP_VIDEO_CAPTURE_MPLANE, mostly SoC
 * camera pipelines) is left out, because the capture path here speaks the
 * single-planar API.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libudev.h>
#include <libv4l2.h>
#include <linux/videodev2.h>

#include <hwsight/camera.h>

#include "array-util.h"
#include "camera/camera-internal.h"
#include "io-util.h"

/* Far more than any driver lists; it only stops a driver that never says
 * EINVAL from keeping us here forever. */
#define MAX_INDEX 1024

/* A truncating copy that always terminates @dst. */
static void copy_string(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* The kernel's fixed-size string fields need not end in a NUL. */
static void copy_field(char *dst, size_t size, const uint8_t *src, size_t src_size)
{
	size_t n = strnlen((const char *)src, src_size);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int xioctl(int fd, bool wrapped, unsigned long request, void *arg)
{
	return hws__ioctl_retry(wrapped ? v4l2_ioctl : ioctl, fd, request, arg);
}

static void close_node(int fd, bool wrapped)
{
	if (fd < 0)
		return;
	if (wrapped)
		v4l2_close(fd);
	else
		close(fd);
}

/* "video0", "video12": the nodes a video capture device can be. Radio,
 * VBI, subdevice and touch nodes share the video4linux subsystem but are
 * never opened here: opening a radio node can switch a tuner to radio. */
static bool is_video_sysname(const char *name)
{
	if (!name || strncmp(name, "video", 5) != 0 || !name[5])
		return false;
	for (name += 5; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

static bool parse_usb_id(const char *s, uint16_t *ret)
{
	unsigned long v;
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtoul(s, &end, 16);
	if (errno || *end || v > 0xffff)
		return false;
	*ret = (uint16_t)v;
	return true;
}

/* The USB ids of the usb_device a node belongs to. udev's properties come
 * from its database, which a system without udevd lacks; the sysfs
 * attributes are always there. */
static void fill_usb_ids(struct udev_device *dev, struct hws_camera_info *info)
{
	struct udev_device *usb = udev_device_get_parent_with_subsystem_devtype(dev, "usb", "usb_device");
	uint16_t vendor, product;

	if (!usb)
		return;
	if ((parse_usb_id(udev_device_get_property_value(usb, "ID_VENDOR_ID"), &vendor) &&
	     parse_usb_id(udev_device_get_property_value(usb, "ID_MODEL_ID"), &product)) ||
	    (parse_usb_id(udev_device_get_sysattr_value(usb, "idVendor"), &vendor) &&
	     parse_usb_id(udev_device_get_sysattr_value(usb, "idProduct"), &product))) {
		info->usb_vendor = vendor;
		info->usb_product = product;
	}
}

/* A name that survives replugging and renumbering: the by-id link names
 * the device, the by-path link the port; either beats /dev/videoN. */
static void fill_stable(struct udev_device *dev, struct hws_camera_info *info)
{
	static const char *const prefixes[] = { "/dev/v4l/by-id/", "/dev/v4l/by-path/" };
	struct udev_list_entry *e;

	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		udev_list_entry_foreach(e, udev_device_get_devlinks_list_entry(dev)) {
			const char *link = udev_list_entry_get_name(e);

			if (strncmp(link, prefixes[p], strlen(prefixes[p])) == 0 &&
			    strlen(link) < sizeof(info->stable)) {
				copy_string(info->stable, sizeof(info->stable), link);
				return;
			}
		}
	}
}

/* What udev and sysfs know, without opening the node. The driver and card
 * are overwritten by QUERYCAP when the node can be opened; until then they
 * are sysfs's view (the parent's driver, the node's name). */
static void fill_from_udev(struct udev_device *dev, struct hws_camera_info *info)
{
	struct udev_device *parent = udev_device_get_parent(dev);
	const char *devnode = udev_device_get_devnode(dev);

	if (devnode && strlen(devnode) < sizeof(info->devnode))
		copy_string(info->devnode, sizeof(info->devnode), devnode);
	fill_stable(dev, info);
	fill_usb_ids(dev, info);
	if (parent && udev_device_get_driver(parent))
		copy_string(info->driver, sizeof(info->driver), udev_device_get_driver(parent));
	copy_string(info->card, sizeof(info->card), udev_device_get_sysattr_value(dev, "name"));
}

static void fill_model(struct hws_camera_info *info)
{
	const char *model = NULL;

	if (info->usb_vendor || info->usb_product)
		model = hws__usbvision_model(info->usb_vendor, info->usb_product);
	info->usbvision = model || strcmp(info->driver, "usbvision") == 0;
	copy_string(info->model, sizeof(info->model), model ? model : info->card);
}

/* A node named by the caller, as check_node() found it. */
struct node {
	struct udev *udev;
	struct udev_device *dev; /* its sysfs device; NULL without sysfs */
	dev_t rdev;              /* the device number it was checked with */
};

static void node_done(struct node *n)
{
	udev_device_unref(n->dev);
	udev_unref(n->udev);
}

/*
 * Say whether @path may be opened as a V4L2 video node, before opening it:
 * opening just any character device can have effects (a watchdog starts
 * counting), so a node sysfs places outside video4linux is refused
 * unopened. Without sysfs (n->dev NULL), QUERYCAP has to tell. @n is the
 * caller's to node_done(), also on failure.
 */
static int check_node(const char *path, struct node *n)
{
	const char *subsystem;
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	n->udev = udev_new();
	n->dev = n->udev ? udev_device_new_from_devnum(n->udev, 'c', st.st_rdev) : NULL;
	if (n->dev) {
		subsystem = udev_device_get_subsystem(n->dev);
		if (!subsystem || strcmp(subsystem, "video4linux") != 0)
			return -ENOTTY;
		if (!is_video_sysname(udev_device_get_sysname(n->dev)))
			return -ENODEV;
	}
	n->rdev = st.st_rdev;
	return 0;
}

/*
 * Open a node and make sure it is a single-planar video capture device.
 * @rdev, when not 0, is the device number the caller checked, so that a
 * node replaced in between is not taken for it. @v4l2_known: sysfs said it
 * is a V4L2 node, so a failing QUERYCAP means "not capture", not "not
 * V4L2". On success the caller owns *ret_fd.
 */
static int open_capture(const char *path, dev_t rdev, bool v4l2_known, int *ret_fd,
			struct v4l2_capability *ret_cap)
{
	struct v4l2_capability cap = { 0 };
	struct stat st;
	uint32_t caps;
	int fd, r;

	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (!S_ISCHR(st.st_mode) || (rdev && st.st_rdev != rdev)) {
		r = -ENODEV;
		goto fail;
	}
	r = xioctl(fd, false, VIDIOC_QUERYCAP, &cap);
	if (r == -ENOTTY || r == -EINVAL) {
		/* Old drivers said EINVAL to ioctls they did not know. */
		r = v4l2_known ? -ENODEV : -ENOTTY;
		goto fail;
	}
	if (r < 0)
		goto fail;
	caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
	if (!(caps & V4L2_CAP_VIDEO_CAPTURE)) {
		r = -ENODEV;
		goto fail;
	}
	*ret_fd = fd;
	*ret_cap = cap;
	return 0;
fail:
	close(fd);
	return r;
}

/* Ask the driver itself; @info already holds what udev knows. */
static int query_node(const char *path, dev_t rdev, bool v4l2_known, struct hws_camera_info *info)
{
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_capability cap;
	int fd, r;

	r = open_capture(path, rdev, v4l2_known, &fd, &cap);
	if (r < 0)
		return r;
	copy_field(info->driver, sizeof(info->driver), cap.driver, sizeof(cap.driver));
	copy_field(info->card, sizeof(info->card), cap.card, sizeof(cap.card));
	copy_field(info->bus_info, sizeof(info->bus_info), cap.bus_info, sizeof(cap.bus_info));
	info->device_caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
	info->can_set_interval = xioctl(fd, false, VIDIOC_G_PARM, &parm) == 0 &&
				 (parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME);
	close(fd);
	return 0;
}

int hws_camera_info_get(const char *devnode, struct hws_camera_info *ret_info)
{
	struct hws_camera_info info = { 0 };
	struct node node = { 0 };
	int r;

	if (!devnode || !*devnode || !ret_info)
		return -EINVAL;
	r = check_node(devnode, &node);
	if (r < 0)
		goto out;
	if (node.dev)
		fill_from_udev(node.dev, &info);
	if (!info.devnode[0]) {
		if (strlen(devnode) >= sizeof(info.devnode)) {
			r = -ENAMETOOLONG;
			goto out;
		}
		copy_string(info.devnode, sizeof(info.devnode), devnode);
	}
	r = query_node(devnode, node.rdev, node.dev != NULL, &info);
	if (r < 0)
		goto out;
	fill_model(&info);
	*ret_info = info;
out:
	node_done(&node);
	return r;
}

/* Numbers compare as numbers, so that video2 comes before video10. */
static int compare_devnode(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (la = 0; isdigit((unsigned char)a[la]); la++)
				;
			for (lb = 0; isdigit((unsigned char)b[lb]); lb++)
				;
			if (la != lb)
				return la < lb ? -1 : 1;
			c = memcmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int compare_info(const void *a, const void *b)
{
	return compare_devnode(((const struct hws_camera_info *)a)->devnode,
			       ((const struct hws_camera_info *)b)->devnode);
}

/*
 * A node that cannot be opened because it is busy is still listed, with
 * device_caps 0: usbvision allows one open at a time, and a grabber that is
 * capturing for another program is still there. hws_camera_info_get() and
 * hws_camera_modes() say -EBUSY for it. A node refused for permissions is
 * left out, but if nothing could be listed at all, the list is -EACCES
 * rather than an empty one that would hide the reason.
 */
int hws_camera_list(struct hws_camera_info **ret_list)
{
	struct hws_camera_info *list = NULL, *l;
	struct udev_enumerate *e = NULL;
	struct udev_list_entry *entry;
	struct udev *udev;
	size_t n = 0;
	bool denied = false;
	int r;

	if (!ret_list)
		return -EINVAL;
	udev = udev_new();
	if (!udev)
		return -ENOMEM;
	e = udev_enumerate_new(udev);
	if (!e) {
		r = -ENOMEM;
		goto fail;
	}
	r = udev_enumerate_add_match_subsystem(e, "video4linux");
	if (r >= 0)
		r = udev_enumerate_scan_devices(e);
	if (r < 0)
		goto fail;

	udev_list_entry_foreach(entry, udev_enumerate_get_list_entry(e)) {
		struct hws_camera_info info = { 0 };
		struct udev_device *dev;

		dev = udev_device_new_from_syspath(udev, udev_list_entry_get_name(entry));
		if (!dev)
			continue; /* gone since the scan */
		if (!is_video_sysname(udev_device_get_sysname(dev))) {
			udev_device_unref(dev);
			continue;
		}
		fill_from_udev(dev, &info);
		udev_device_unref(dev);
		if (!info.devnode[0])
			continue;
		r = query_node(info.devnode, 0, true, &info);
		if (r == -EACCES || r == -EPERM)
			denied = true;
		if (r < 0 && r != -EBUSY)
			continue; /* not capture, or gone */
		fill_model(&info);
		l = realloc(list, (n + 1) * sizeof(*list));
		if (!l) {
			r = -ENOMEM;
			goto fail;
		}
		list = l;
		list[n++] = info;
	}
	if (n == 0 && denied) {
		r = -EACCES;
		goto fail;
	}
	if (n > 1)
		qsort(list, n, sizeof(*list), compare_info);
	udev_enumerate_unref(e);
	udev_unref(udev);
	*ret_list = list;
	return (int)n;
fail:
	free(list);
	udev_enumerate_unref(e);
	udev_unref(udev);
	return r;
}

/* ---- modes ---------------------------------------------------------------- */

struct size {
	uint32_t width;
	uint32_t height;
};

/* What a person is likely to ask for, offered where a range allows it. */
static const struct size common_sizes[] = {
	{ 160, 120 }, { 176, 144 }, { 320, 180 }, { 320, 240 }, { 352, 288 },
	{ 640, 360 }, { 640, 480 }, { 720, 480 }, { 720, 576 }, { 800, 600 },
	{ 1024, 768 }, { 1280, 720 }, { 1280, 1024 }, { 1920, 1080 }, { 3840, 2160 },
};

/* The 300 Hz-friendly intervals of a whole number of frames per second,
 * 1/300 s to 1 s: what a range of intervals is reduced to, besides its
 * ends. */
static const uint32_t friendly_rates[] = {
	300, 150, 100, 75, 60, 50, 30, 25, 20, 15, 12, 10, 6, 5, 4, 3, 2, 1,
};

static int compare_fract(struct hws_fract a, struct hws_fract b)
{
	uint64_t x = (uint64_t)a.num * b.den, y = (uint64_t)b.num * a.den;

	return x < y ? -1 : x > y;
}

static int compare_interval(const void *a, const void *b)
{
	return compare_fract(*(const struct hws_fract *)a, *(const struct hws_fract *)b);
}

static int compare_size(const void *a, const void *b)
{
	const struct size *x = a, *y = b;
	uint64_t ax = (uint64_t)x->width * x->height, ay = (uint64_t)y->width * y->height;

	if (ax != ay)
		return ax < ay ? -1 : 1;
	return x->width < y->width ? -1 : x->width > y->width;
}

static int push_interval(struct hws__array *a, struct hws_fract f)
{
	if (!f.num || !f.den)
		return 0; /* a driver's 0/0: nothing to offer */
	return hws__array_push(a, &f);
}

/* Is @f = min + k * step for a whole k >= 0? In 128 bits: the products of
 * three 32-bit terms do not fit in 64. */
static bool on_interval_step(struct hws_fract f, struct hws_fract min, struct hws_fract step)
{
	unsigned __int128 num, den;

	if (!step.num || !step.den)
		return true;
	/* (f - min) / step = (f.num * min.den - min.num * f.den) * step.den /
	 *                    (f.den * min.den * step.num) */
	num = ((unsigned __int128)f.num * min.den - (unsigned __int128)min.num * f.den) * step.den;
	den = (unsigned __int128)f.den * min.den * step.num;
	return num % den == 0;
}

static int expand_interval_range(const struct v4l2_frmivalenum *fi, struct hws__array *a)
{
	struct hws_fract min = { fi->stepwise.min.numerator, fi->stepwise.min.denominator };
	struct hws_fract max = { fi->stepwise.max.numerator, fi->stepwise.max.denominator };
	struct hws_fract step = { fi->stepwise.step.numerator, fi->stepwise.step.denominator };
	int r;

	if (!min.num || !min.den || !max.num || !max.den)
		return 0;
	r = push_interval(a, min);
	if (r >= 0)
		r = push_interval(a, max);
	for (size_t i = 0; r >= 0 && i < sizeof(friendly_rates) / sizeof(friendly_rates[0]); i++) {
		struct hws_fract f = { 1, friendly_rates[i] };

		if (compare_fract(f, min) < 0 || compare_fract(f, max) > 0)
			continue;
		if (fi->type == V4L2_FRMIVAL_TYPE_STEPWISE && !on_interval_step(f, min, step))
			continue;
		r = push_interval(a, f);
	}
	return r;
}

/* The intervals of one format and size, fastest first; none when the
 * driver cannot list them. */
static int list_intervals(int fd, uint32_t fourcc, uint32_t width, uint32_t height,
			  struct hws_fract **ret, size_t *ret_n)
{
	struct hws__array a = HWS__ARRAY_INIT(struct hws_fract);
	int r = 0;

	for (uint32_t i = 0; i < MAX_INDEX; i++) {
		struct v4l2_frmivalenum fi = {
			.index = i, .pixel_format = fourcc, .width = width, .height = height,
		};

		r = xioctl(fd, true, VIDIOC_ENUM_FRAMEINTERVALS, &fi);
		if (r == -EINVAL || r == -ENOTTY) {
			r = 0; /* the end, or no list at all */
			break;
		}
		if (r < 0)
			break;
		if (fi.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
			r = push_interval(&a, (struct hws_fract){ fi.discrete.numerator, fi.discrete.denominator });
		} else {
			/* A range is the only entry there is. */
			r = expand_interval_range(&fi, &a);
			break;
		}
		if (r < 0)
			break;
	}
	if (r < 0) {
		free(a.v);
		return r;
	}
	/* Fastest first, without repeats (2/50 is 1/25). */
	hws__array_sort_unique(&a, compare_interval);
	*ret = a.v;
	*ret_n = a.n;
	return 0;
}

static bool size_fits(const struct v4l2_frmsizeenum *fs, struct size s)
{
	uint32_t sw = fs->type == V4L2_FRMSIZE_TYPE_STEPWISE ? fs->stepwise.step_width : 1;
	uint32_t sh = fs->type == V4L2_FRMSIZE_TYPE_STEPWISE ? fs->stepwise.step_height : 1;

	if (s.width < fs->stepwise.min_width || s.width > fs->stepwise.max_width ||
	    s.height < fs->stepwise.min_height || s.height > fs->stepwise.max_height)
		return false;
	return (!sw || (s.width - fs->stepwise.min_width) % sw == 0) &&
	       (!sh || (s.height - fs->stepwise.min_height) % sh == 0);
}

/*
 * The sizes of one format. A range becomes its two ends, the common sizes
 * it allows and @current (the device's current size), smallest first.
 * Return: 0, -ENOTTY when the driver cannot list sizes, or -errno.
 */
static int list_sizes(int fd, uint32_t fourcc, struct size current, struct size **ret, size_t *ret_n)
{
	struct hws__array a = HWS__ARRAY_INIT(struct size);
	int r = 0;

	for (uint32_t i = 0; i < MAX_INDEX; i++) {
		struct v4l2_frmsizeenum fs = { .index = i, .pixel_format = fourcc };

		r = xioctl(fd, true, VIDIOC_ENUM_FRAMESIZES, &fs);
		if (r == -EINVAL || r == -ENOTTY) {
			/* Nothing at the first index: the driver does not list
			 * sizes (usbvision), or not for this format. */
			r = i == 0 ? -ENOTTY : 0;
			break;
		}
		if (r < 0)
			break;
		if (fs.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
			r = hws__array_push(&a, &(struct size){ fs.discrete.width, fs.discrete.height });
			if (r < 0)
				break;
			continue;
		}
		r = hws__array_push(&a, &(struct size){ fs.stepwise.min_width, fs.stepwise.min_height });
		if (r >= 0)
			r = hws__array_push(&a, &(struct size){ fs.stepwise.max_width, fs.stepwise.max_height });
		for (size_t k = 0; r >= 0 && k < sizeof(common_sizes) / sizeof(common_sizes[0]); k++)
			if (size_fits(&fs, common_sizes[k]))
				r = hws__array_push(&a, &common_sizes[k]);
		if (r >= 0 && current.width && size_fits(&fs, current))
			r = hws__array_push(&a, &current);
		if (r >= 0)
			hws__array_sort_unique(&a, compare_size);
		break; /* a range is the only entry there is */
	}
	if (r < 0) {
		free(a.v);
		return r;
	}
	*ret = a.v;
	*ret_n = a.n;
	return 0;
}

void hws_camera_modes_free(struct hws_camera_mode *modes, size_t n)
{
	if (!modes)
		return;
	for (size_t i = 0; i < n; i++)
		free(modes[i].intervals);
	free(modes);
}

/* Adds a mode to @l; takes @intervals, also on failure. */
static int push_mode(struct hws__array *l, const struct v4l2_fmtdesc *f, struct size s,
		     struct hws_fract *intervals, size_t n_intervals)
{
	struct hws_camera_mode m = {
		.fourcc = f->pixelformat,
		.width = s.width,
		.height = s.height,
		.n_intervals = n_intervals,
		.intervals = intervals,
		.emulated = f->flags & V4L2_FMT_FLAG_EMULATED,
	};
	int r;

	copy_field(m.description, sizeof(m.description), f->description, sizeof(f->description));
	/* hws_camera_modes() returns the count as an int. */
	r = l->n < INT_MAX ? hws__array_push(l, &m) : -ENOMEM;
	if (r < 0)
		free(intervals);
	return r;
}

static int list_modes(int fd, struct hws__array *l)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct size current = { 0, 0 };
	int r;

	/* The device's current size: what a driver that cannot list sizes
	 * gives, and one more candidate in a range. */
	if (xioctl(fd, true, VIDIOC_G_FMT, &fmt) == 0)
		current = (struct size){ fmt.fmt.pix.width, fmt.fmt.pix.height };

	for (uint32_t i = 0; i < MAX_INDEX; i++) {
		struct v4l2_fmtdesc f = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		struct size *sizes = NULL;
		size_t n_sizes = 0;

		r = xioctl(fd, true, VIDIOC_ENUM_FMT, &f);
		if (r == -EINVAL || r == -ENOTTY)
			return 0; /* the end, or a driver that lists nothing */
		if (r < 0)
			return r;
		r = list_sizes(fd, f.pixelformat, current, &sizes, &n_sizes);
		if (r == -ENOTTY) {
			if (!current.width)
				continue;
			r = push_mode(l, &f, current, NULL, 0);
			if (r < 0)
				return r;
			continue;
		}
		if (r < 0)
			return r;
		for (size_t k = 0; k < n_sizes; k++) {
			struct hws_fract *iv = NULL;
			size_t n_iv = 0;

			r = list_intervals(fd, f.pixelformat, sizes[k].width, sizes[k].height, &iv, &n_iv);
			if (r >= 0)
				r = push_mode(l, &f, sizes[k], iv, n_iv);
			if (r < 0) {
				free(sizes);
				return r;
			}
		}
		free(sizes);
	}
	return 0;
}

int hws_camera_modes(const char *devnode, struct hws_camera_mode **ret_modes)
{
	struct hws__array l = HWS__ARRAY_INIT(struct hws_camera_mode);
	struct v4l2_capability cap;
	struct node node = { 0 };
	int fd = -1, r;
	bool wrapped = false;

	if (!devnode || !*devnode || !ret_modes)
		return -EINVAL;
	r = check_node(devnode, &node);
	if (r < 0)
		goto out;
	r = open_capture(devnode, node.rdev, node.dev != NULL, &fd, &cap);
	if (r < 0)
		goto out;
	/* With conversion on, libv4l2 adds the formats libv4lconvert can
	 * make, flagged V4L2_FMT_FLAG_EMULATED. */
	if (v4l2_fd_open(fd, 0) < 0) {
		r = errno ? -errno : -EIO;
		goto out;
	}
	wrapped = true;
	r = list_modes(fd, &l);
out:
	close_node(fd, wrapped);
	node_done(&node);
	if (r < 0) {
		hws_camera_modes_free(l.v, l.n);
		return r;
	}
	*ret_modes = l.v;
	return (int)l.n;
}
