/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening a capture node and agreeing on size, format and frame interval.
 *
 * The interval is the interesting part. A 300 Hz-friendly interval the
 * driver offers is set with S_PARM. Otherwise the device runs faster and
 * the pacer keeps one frame per grid point: at an offered interval that
 * divides the target exactly if there is one (50 fps for 25: every other
 * frame, no jitter added), else at the nearest faster offered rate. A
 * device without interval control (usbvision, a TV input) runs at the rate
 * of its TV standard, and is decimated from there.
 *
 * The format is settled before libv4l2 wraps the descriptor, because the
 * wrap fixes whether libv4lconvert may convert: from the caller's list of
 * formats it can use and the device's own list, read past libv4l2, one
 * wrap is enough, converting only when nothing the device sends will do.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <libv4l2.h>

#include "camera/capture-internal.h"
#include "io-util.h"

int hws__camera_ioctl(struct hws_camera *cam, unsigned long request, void *arg)
{
	return hws__ioctl_retry(cam->wrapped ? v4l2_ioctl : ioctl, cam->fd, request, arg);
}

/* The device itself, past libv4l2 even once wrapped: what it really sends. */
static int device_ioctl(struct hws_camera *cam, unsigned long request, void *arg)
{
	return hws__ioctl_retry(ioctl, cam->fd, request, arg);
}

struct hws_camera *hws_camera_close(struct hws_camera *cam)
{
	if (!cam)
		return NULL;
	hws_camera_stop(cam);
	if (cam->fd >= 0) {
		if (cam->wrapped)
			v4l2_close(cam->fd);
		else
			close(cam->fd);
	}
	free(cam);
	return NULL;
}

int hws_camera_open(const char *devnode, struct hws_camera **ret_camera)
{
	struct hws_camera *cam;
	uint32_t caps;
	int r;

	if (!devnode || !ret_camera || strlen(devnode) >= sizeof(cam->devnode))
		return -EINVAL;
	cam = calloc(1, sizeof(*cam));
	if (!cam)
		return -ENOMEM;
	cam->held = -1;
	strcpy(cam->devnode, devnode);
	/* Non-blocking: the stream waits in poll() with a timeout, so a
	 * device that stops sending can never hang the caller. */
	cam->fd = open(devnode, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (cam->fd < 0) {
		r = -errno;
		goto fail;
	}
	r = hws__camera_ioctl(cam, VIDIOC_QUERYCAP, &cam->cap);
	if (r < 0)
		goto fail;
	caps = cam->cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cam->cap.device_caps : cam->cap.capabilities;
	if (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)) {
		r = -ENODEV;
		goto fail;
	}
	*ret_camera = cam;
	return 0;
fail:
	hws_camera_close(cam);
	return r;
}

int hws_camera_fd(const struct hws_camera *cam)
{
	return cam ? cam->fd : -EINVAL;
}

static bool fract_eq(struct hws_fract a, struct hws_fract b)
{
	return (uint64_t)a.num * b.den == (uint64_t)b.num * a.den;
}

/* a < b as durations */
static bool fract_lt(struct hws_fract a, struct hws_fract b)
{
	return (uint64_t)a.num * b.den < (uint64_t)b.num * a.den;
}

/* The discrete intervals the driver offers for the negotiated mode; a
 * stepwise range is reduced to its two ends, which is all the choice
 * below needs besides the exact target (tried with S_PARM anyway). */
static int offered_intervals(struct hws_camera *cam, struct hws_fract **ret, size_t *ret_n)
{
	struct v4l2_frmivalenum fi = {
		.pixel_format = cam->setup.fourcc,
		.width = cam->setup.width,
		.height = cam->setup.height,
	};
	struct hws_fract *list = NULL, *l;
	size_t n = 0;

	for (fi.index = 0; hws__camera_ioctl(cam, VIDIOC_ENUM_FRAMEINTERVALS, &fi) == 0; fi.index++) {
		struct hws_fract add[2];
		size_t k = 0;

		if (fi.type == V4L2_FRMIVAL_TYPE_DISCRETE)
			add[k++] = (struct hws_fract){ fi.discrete.numerator, fi.discrete.denominator };
		else {
			add[k++] = (struct hws_fract){ fi.stepwise.min.numerator, fi.stepwise.min.denominator };
			add[k++] = (struct hws_fract){ fi.stepwise.max.numerator, fi.stepwise.max.denominator };
		}
		l = realloc(list, (n + k) * sizeof(*list));
		if (!l) {
			free(list);
			return -ENOMEM;
		}
		list = l;
		for (size_t i = 0; i < k; i++)
			if (add[i].num && add[i].den)
				list[n++] = add[i];
		if (fi.type != V4L2_FRMIVAL_TYPE_DISCRETE)
			break;
	}
	*ret = list;
	*ret_n = n;
	return 0;
}

static bool has_standard(struct hws_camera *cam)
{
	v4l2_std_id std = 0;

	return hws__camera_ioctl(cam, VIDIOC_G_STD, &std) == 0 && std;
}

/* The rate a device without interval control runs at. */
static struct hws_fract standard_interval(struct hws_camera *cam)
{
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	v4l2_std_id std = 0;

	if (hws__camera_ioctl(cam, VIDIOC_G_STD, &std) == 0 && std)
		return std & V4L2_STD_525_60 ? (struct hws_fract){ 1001, 30000 } : (struct hws_fract){ 1, 25 };
	if (hws__camera_ioctl(cam, VIDIOC_G_PARM, &parm) == 0 && parm.parm.capture.timeperframe.numerator &&
	    parm.parm.capture.timeperframe.denominator)
		return (struct hws_fract){ parm.parm.capture.timeperframe.numerator,
					   parm.parm.capture.timeperframe.denominator };
	return (struct hws_fract){ 0, 0 };
}

static int set_interval(struct hws_camera *cam, struct hws_fract want, struct hws_fract *ret_got)
{
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	int r;

	parm.parm.capture.timeperframe.numerator = want.num;
	parm.parm.capture.timeperframe.denominator = want.den;
	r = hws__camera_ioctl(cam, VIDIOC_S_PARM, &parm);
	if (r < 0)
		return r;
	*ret_got = (struct hws_fract){ parm.parm.capture.timeperframe.numerator,
				       parm.parm.capture.timeperframe.denominator };
	return 0;
}

static int negotiate_interval(struct hws_camera *cam, struct hws_fract target)
{
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct hws_fract *offered = NULL, best = { 0, 0 }, got;
	bool settable, best_exact = false;
	size_t n = 0;
	int r;

	settable = hws__camera_ioctl(cam, VIDIOC_G_PARM, &parm) == 0 &&
		   (parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME);
	if (!target.num) {
		/* No pacing asked: whatever the device runs at. */
		got = settable ? (struct hws_fract){ parm.parm.capture.timeperframe.numerator,
						     parm.parm.capture.timeperframe.denominator }
			       : standard_interval(cam);
		cam->setup.driver_interval = got;
		cam->setup.target_interval = (struct hws_fract){ 0, 0 };
		return 0;
	}
	if (hws_interval_ticks(target) < 0)
		return -EDOM;

	if (settable) {
		r = offered_intervals(cam, &offered, &n);
		if (r < 0)
			return r;
		/* A TV input may accept S_PARM and ignore it: with no
		 * intervals to offer and a standard set, the standard rules. */
		if (n == 0 && has_standard(cam))
			settable = false;
	}
	if (!settable) {
		free(offered);
		got = standard_interval(cam);
		if (!got.num)
			return -ERANGE;
		if (fract_lt(target, got))
			return -ERANGE;
		cam->setup.driver_interval = got;
		cam->setup.target_interval = target;
		cam->setup.decimating = !fract_eq(got, target);
		return 0;
	}

	for (size_t i = 0; i < n; i++) {
		bool exact;

		if (fract_eq(offered[i], target)) {
			best = offered[i];
			best_exact = true;
			break;
		}
		if (!fract_lt(offered[i], target))
			continue; /* slower than asked: no use */
		/* target / offered is a whole number: every k-th frame. */
		exact = ((uint64_t)target.num * offered[i].den) % ((uint64_t)offered[i].num * target.den) == 0;
		if (!best.num || (exact && !best_exact) || (exact == best_exact && fract_lt(best, offered[i]))) {
			best = offered[i];
			best_exact = exact;
		}
	}
	free(offered);
	if (!best.num)
		best = target; /* nothing listed: ask for the target itself */
	r = set_interval(cam, best, &got);
	if (r < 0)
		return r;
	if (!got.num || !got.den || fract_lt(target, got))
		return -ERANGE; /* the driver cannot go as fast as asked */
	cam->setup.driver_interval = got;
	cam->setup.target_interval = target;
	cam->setup.decimating = !fract_eq(got, target);
	return 0;
}

/* What libv4lconvert makes, in the order we would have it: RGB24 is what
 * every source converts to directly. */
static const uint32_t convert_targets[] = {
	V4L2_PIX_FMT_RGB24, V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_YVU420,
};

static bool accepted(const struct hws_capture_request *req, uint32_t fourcc)
{
	if (!req->accept)
		return true;
	for (size_t i = 0; i < req->n_accept; i++)
		if (req->accept[i] == fourcc)
			return true;
	return false;
}

int hws__choose_format(const struct hws_capture_request *req, uint32_t current,
		       const uint32_t *offered, size_t n_offered,
		       uint32_t *ret_fourcc, bool *ret_convert)
{
	uint32_t want = req->fourcc ? req->fourcc : current;

	if (accepted(req, want)) {
		*ret_fourcc = req->fourcc;
		*ret_convert = req->convert;
		return 0;
	}
	/* A camera left in a format we cannot use, where none was asked
	 * for: better one of its own that we can than a conversion. */
	for (size_t i = 0; !req->fourcc && i < n_offered; i++)
		if (accepted(req, offered[i])) {
			*ret_fourcc = offered[i];
			*ret_convert = req->convert;
			return 0;
		}
	for (size_t i = 0; i < sizeof(convert_targets) / sizeof(convert_targets[0]); i++)
		if (accepted(req, convert_targets[i])) {
			*ret_fourcc = convert_targets[i];
			*ret_convert = true;
			return 0;
		}
	return -EOPNOTSUPP;
}

/* The device's current format and its own list, read past libv4l2 (which
 * would add the formats it emulates), for hws__choose_format(). */
static int choose_format(struct hws_camera *cam, const struct hws_capture_request *req,
			 uint32_t *ret_fourcc, bool *ret_convert)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_fmtdesc desc = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	uint32_t *offered = NULL, *more;
	size_t n = 0;
	int r;

	r = device_ioctl(cam, VIDIOC_G_FMT, &fmt);
	for (desc.index = 0; r == 0 && device_ioctl(cam, VIDIOC_ENUM_FMT, &desc) == 0; desc.index++) {
		more = realloc(offered, (n + 1) * sizeof(*offered));
		if (!more)
			r = -ENOMEM;
		else {
			offered = more;
			offered[n++] = desc.pixelformat;
		}
	}
	if (r == 0)
		r = hws__choose_format(req, fmt.fmt.pix.pixelformat, offered, n, ret_fourcc, ret_convert);
	free(offered);
	return r;
}

static int wrap(struct hws_camera *cam, bool convert)
{
	int r;

	if (cam->wrapped) {
		/* libv4l2 fixes its conversion mode when it wraps the fd. */
		return convert == cam->converting ? 0 : -EBUSY;
	}
	r = v4l2_fd_open(cam->fd, convert ? 0 : V4L2_DISABLE_CONVERSION);
	if (r < 0)
		return -errno;
	cam->wrapped = true;
	cam->converting = convert;
	return 0;
}

int hws_camera_negotiate(struct hws_camera *cam, const struct hws_capture_request *req,
			 struct hws_capture_setup *ret_setup)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_format dev = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct hws_capture_request none = { 0 };
	uint32_t fourcc;
	bool convert;
	int r;

	if (!cam || cam->streaming)
		return cam ? -EBUSY : -EINVAL;
	if (!req)
		req = &none;
	if ((req->interval.num == 0) != (req->interval.den == 0) || req->buffers > 32 ||
	    (req->n_accept && !req->accept))
		return -EINVAL;
	r = choose_format(cam, req, &fourcc, &convert);
	if (r == 0)
		r = wrap(cam, convert);
	if (r < 0)
		return r;
	memset(&cam->setup, 0, sizeof(cam->setup));
	cam->negotiated = false;

	r = hws__camera_ioctl(cam, VIDIOC_G_FMT, &fmt);
	if (r < 0)
		return r;
	if (req->width || req->height || fourcc) {
		if (req->width && req->height) {
			fmt.fmt.pix.width = req->width;
			fmt.fmt.pix.height = req->height;
		}
		if (fourcc)
			fmt.fmt.pix.pixelformat = fourcc;
		fmt.fmt.pix.field = V4L2_FIELD_ANY;
		/* Let the driver size the lines for the new format; the old
		 * format's padding would otherwise be kept. */
		fmt.fmt.pix.bytesperline = 0;
		fmt.fmt.pix.sizeimage = 0;
		r = hws__camera_ioctl(cam, VIDIOC_S_FMT, &fmt);
		if (r < 0)
			return r;
		/* Drivers adjust what they cannot do instead of failing. */
		if ((fourcc && fmt.fmt.pix.pixelformat != fourcc) ||
		    (req->width && fmt.fmt.pix.width != req->width) ||
		    (req->height && fmt.fmt.pix.height != req->height))
			return -EINVAL;
	}
	r = device_ioctl(cam, VIDIOC_G_FMT, &dev);
	if (r < 0)
		return r;
	/* libv4lconvert picks its source itself; one other than the format
	 * asked for would be a different camera mode under its name. */
	if (req->fourcc && fourcc != req->fourcc && dev.fmt.pix.pixelformat != req->fourcc)
		return -EOPNOTSUPP;
	cam->setup.width = fmt.fmt.pix.width;
	cam->setup.height = fmt.fmt.pix.height;
	cam->setup.fourcc = fmt.fmt.pix.pixelformat;
	cam->setup.device_fourcc = dev.fmt.pix.pixelformat;
	cam->setup.bytesperline = fmt.fmt.pix.bytesperline;
	cam->setup.sizeimage = fmt.fmt.pix.sizeimage;
	cam->setup.converting = cam->setup.device_fourcc != cam->setup.fourcc;

	r = negotiate_interval(cam, req->interval);
	if (r < 0)
		return r;
	cam->n_wanted = req->buffers ? req->buffers : 4;
	hws__pacer_init(&cam->pacer, cam->setup.target_interval, cam->setup.driver_interval);
	cam->negotiated = true;
	if (ret_setup)
		*ret_setup = cam->setup;
	return 0;
}
