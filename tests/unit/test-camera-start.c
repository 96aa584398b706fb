/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hws_camera_start() (lib/camera/stream.c) against a driver that grants
 * fewer buffers than streaming needs. No driver the lab loads does that
 * (vivid's queue asks videobuf2 for at least two), so the driver is this
 * binary: it is linked with -Wl,--wrap=hws__camera_ioctl, and the
 * wrapper below answers VIDIOC_REQBUFS as such a driver would.
 */
#include <errno.h>
#include <stdbool.h>

#include <linux/videodev2.h>

#include "camera/capture-internal.h"
#include "task.h"

static unsigned granted;   /* buffers the "driver" grants */
static unsigned released;  /* REQBUFS with count 0 */

int __wrap_hws__camera_ioctl(struct hws_camera *cam, unsigned long request, void *arg);

int __wrap_hws__camera_ioctl(struct hws_camera *cam, unsigned long request, void *arg)
{
	struct v4l2_requestbuffers *rb = arg;

	(void)cam;
	if (request != VIDIOC_REQBUFS)
		FAIL("ioctl %#lx after REQBUFS granted %u buffers", request, granted);
	if (rb->count == 0)
		released++;
	else
		rb->count = granted;
	return 0;
}

static void start_with(unsigned n)
{
	struct hws_camera cam = { .fd = -1, .negotiated = true, .n_wanted = 4, .held = -1 };

	granted = n;
	ASSERT_EQ(hws_camera_start(&cam), -ENOBUFS);
	ASSERT_FALSE(cam.streaming);
	ASSERT_NULL(cam.buffers);
	ASSERT_EQ(cam.n_buffers, 0);
	/* What was granted goes back to the driver; nothing was, nothing does. */
	ASSERT_EQ(released, n ? 1 : 0);
}

TEST(one_buffer_is_too_few)
{
	start_with(1);
}

TEST(no_buffer_is_too_few)
{
	start_with(0);
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
