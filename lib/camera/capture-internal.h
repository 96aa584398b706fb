/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_CAMERA_CAPTURE_INTERNAL_H
#define HWS_CAMERA_CAPTURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/videodev2.h>

#include <hwsight/camera.h>

#include "camera/pacing.h"

struct hws__buffer {
	void *start;
	size_t length;
};

/* One open capture node. negotiate.c sets it up, stream.c runs it. */
struct hws_camera {
	int fd;                      /* the node, wrapped by libv4l2 once negotiated */
	bool wrapped;                /* v4l2_fd_open() done */
	bool converting;             /* libv4l2 conversion allowed, fixed at the wrap */
	char devnode[64];
	struct v4l2_capability cap;
	struct hws_capture_setup setup;
	bool negotiated;
	unsigned n_wanted;           /* buffers asked for */
	struct hws__buffer *buffers;
	unsigned n_buffers;
	bool streaming;
	int held;                    /* buffer index lent to the caller, or -1 */
	struct hws__pacer pacer;
};

/* The ioctl wrapper that goes through libv4l2 once the fd is wrapped, and
 * retries on EINTR; returns 0 or a negative errno. */
int hws__camera_ioctl(struct hws_camera *cam, unsigned long request, void *arg);

/*
 * hws__choose_format - what to ask libv4l2 for, before it wraps the device
 * @current: the device's format; @offered: the formats it sends itself
 * @ret_fourcc: the format to set, 0 to keep the device's
 * @ret_convert: whether libv4lconvert must be allowed in the path
 *
 * The rule hws_camera_negotiate() documents for @req->accept, without the
 * device, so that it can be tested on its own.
 * Return: 0, or -EOPNOTSUPP when no format the caller accepts can be had.
 */
int hws__choose_format(const struct hws_capture_request *req, uint32_t current,
		       const uint32_t *offered, size_t n_offered,
		       uint32_t *ret_fourcc, bool *ret_convert);

#endif
