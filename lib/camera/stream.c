/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Streaming: mmap buffers, one lent to the caller at a time, the rest with
 * the driver. Frames the pacer skips go straight back to the driver, so
 * decimation costs one DQBUF/QBUF pair and no copy.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <libv4l2.h>

#include "camera/capture-internal.h"

static int queue(struct hws_camera *cam, unsigned index)
{
	struct v4l2_buffer buf = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
		.index = index,
	};

	return hws__camera_ioctl(cam, VIDIOC_QBUF, &buf);
}

static void unmap_all(struct hws_camera *cam)
{
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};

	/* No array when the driver granted too few buffers to map any. */
	for (unsigned i = 0; cam->buffers && i < cam->n_buffers; i++)
		if (cam->buffers[i].start)
			v4l2_munmap(cam->buffers[i].start, cam->buffers[i].length);
	free(cam->buffers);
	cam->buffers = NULL;
	if (cam->n_buffers)
		hws__camera_ioctl(cam, VIDIOC_REQBUFS, &rb); /* count 0 frees them */
	cam->n_buffers = 0;
}

int hws_camera_start(struct hws_camera *cam)
{
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	int r;

	if (!cam)
		return -EINVAL;
	if (cam->streaming)
		return -EBUSY;
	if (!cam->negotiated) {
		r = hws_camera_negotiate(cam, NULL, NULL);
		if (r < 0)
			return r;
	}
	rb.count = cam->n_wanted;
	r = hws__camera_ioctl(cam, VIDIOC_REQBUFS, &rb);
	if (r < 0)
		return r;
	/* One buffer with the driver while the caller holds another is the
	 * least that streams. Nothing here ran out of memory: say that the
	 * driver would not give enough buffers. */
	if (rb.count < 2) {
		cam->n_buffers = rb.count;
		unmap_all(cam);
		return -ENOBUFS;
	}
	cam->buffers = calloc(rb.count, sizeof(*cam->buffers));
	if (!cam->buffers) {
		r = -ENOMEM;
		goto fail;
	}
	cam->n_buffers = rb.count;
	for (unsigned i = 0; i < rb.count; i++) {
		struct v4l2_buffer buf = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_MMAP,
			.index = i,
		};
		void *p;

		r = hws__camera_ioctl(cam, VIDIOC_QUERYBUF, &buf);
		if (r < 0)
			goto fail;
		p = v4l2_mmap(NULL, buf.length, PROT_READ | PROT_WRITE, MAP_SHARED, cam->fd, buf.m.offset);
		if (p == MAP_FAILED) {
			r = -errno;
			goto fail;
		}
		cam->buffers[i] = (struct hws__buffer){ p, buf.length };
		r = queue(cam, i);
		if (r < 0)
			goto fail;
	}
	hws__pacer_init(&cam->pacer, cam->setup.target_interval, cam->setup.driver_interval);
	r = hws__camera_ioctl(cam, VIDIOC_STREAMON, &type);
	if (r < 0)
		goto fail;
	cam->streaming = true;
	cam->held = -1;
	return 0;
fail:
	unmap_all(cam);
	return r;
}

int hws_camera_stop(struct hws_camera *cam)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	int r = 0;

	if (!cam)
		return -EINVAL;
	if (cam->streaming)
		r = hws__camera_ioctl(cam, VIDIOC_STREAMOFF, &type);
	cam->streaming = false;
	cam->held = -1;
	unmap_all(cam);
	/* A device that is gone cannot stop, and that is fine. */
	return r == -ENODEV ? 0 : r;
}

static uint64_t ts_of(const struct v4l2_buffer *buf)
{
	return (uint64_t)buf->timestamp.tv_sec * 1000000000u + (uint64_t)buf->timestamp.tv_usec * 1000u;
}

/* Wait first, then dequeue: a paced capture comes back before the next
 * frame is ready, so trying DQBUF first would cost a failed call a frame. */
static int dequeue(struct hws_camera *cam, int timeout_ms, struct v4l2_buffer *buf)
{
	struct pollfd pfd = { .fd = cam->fd, .events = POLLIN };
	int r;

	for (;;) {
		r = poll(&pfd, 1, timeout_ms);
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		memset(buf, 0, sizeof(*buf));
		buf->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		buf->memory = V4L2_MEMORY_MMAP;
		r = hws__camera_ioctl(cam, VIDIOC_DQBUF, buf);
		if (r == 0)
			return 0;
		/* vivid and unplugged USB devices report an error condition;
		 * the DQBUF that follows it says which. */
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))
			return r == -EAGAIN || r == -EINVAL || r == -EPIPE ? -ENODEV : r;
		if (r != -EAGAIN)
			return r;
	}
}

int hws_camera_next(struct hws_camera *cam, int timeout_ms, struct hws_frame *ret_frame)
{
	struct v4l2_buffer buf;
	int r;

	if (!cam || !ret_frame)
		return -EINVAL;
	if (!cam->streaming)
		return -EINVAL;
	if (cam->held >= 0) {
		r = queue(cam, (unsigned)cam->held);
		cam->held = -1;
		if (r < 0)
			return r;
	}
	for (;;) {
		r = dequeue(cam, timeout_ms, &buf);
		if (r < 0)
			return r;
		if (buf.index >= cam->n_buffers)
			return -EIO;
		/* A buffer the driver flags as broken is a lost frame: the
		 * sequence gap it leaves is counted as a drop. */
		if (!(buf.flags & V4L2_BUF_FLAG_ERROR) && hws__pacer_offer(&cam->pacer, ts_of(&buf), buf.sequence))
			break;
		r = queue(cam, buf.index);
		if (r < 0)
			return r;
	}
	cam->held = (int)buf.index;
	*ret_frame = (struct hws_frame){
		.data = cam->buffers[buf.index].start,
		.size = buf.bytesused,
		.width = cam->setup.width,
		.height = cam->setup.height,
		.fourcc = cam->setup.fourcc,
		.bytesperline = cam->setup.bytesperline,
		.sequence = buf.sequence,
		.timestamp_ns = ts_of(&buf),
	};
	return 0;
}

void hws_camera_stats(const struct hws_camera *cam, struct hws_capture_stats *ret_stats)
{
	if (!cam || !ret_stats)
		return;
	hws__pacer_stats(&cam->pacer, ret_stats);
}
