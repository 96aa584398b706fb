/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The format hws_camera_negotiate() asks libv4l2 for, and whether it lets
 * libv4lconvert in, settled before the one wrap: a camera's own format
 * when the caller takes it, one of its others that the caller takes when
 * none was asked for, libv4lconvert's RGB24 only when nothing else will
 * do. The lab (tests/vm/checks/formats.sh) shows the first two against
 * vivid, which offers every format itself; the conversion branch is
 * shown here.
 */
#include <linux/videodev2.h>

#include "camera/capture-internal.h"
#include "task.h"

static const uint32_t images[] = {
	V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_YVU420, V4L2_PIX_FMT_NV12, V4L2_PIX_FMT_RGB24,
	V4L2_PIX_FMT_MJPEG,
};
#define N_IMAGES (sizeof(images) / sizeof(images[0]))

/* The choice for a camera currently in @current that offers @offered. */
static int choose(uint32_t fourcc, bool convert, const uint32_t *accept, size_t n_accept,
		  uint32_t current, const uint32_t *offered, size_t n_offered,
		  uint32_t *ret_fourcc, bool *ret_convert)
{
	struct hws_capture_request req = {
		.fourcc = fourcc, .convert = convert, .accept = accept, .n_accept = n_accept,
	};

	return hws__choose_format(&req, current, offered, n_offered, ret_fourcc, ret_convert);
}

TEST(any_format_without_a_list)
{
	static const uint32_t offered[] = { V4L2_PIX_FMT_HSV24 };
	uint32_t fourcc = 1;
	bool convert = true;

	ASSERT_EQ(choose(0, false, NULL, 0, V4L2_PIX_FMT_HSV24, offered, 1, &fourcc, &convert), 0);
	ASSERT_EQ(fourcc, 0);
	ASSERT_FALSE(convert);
	/* --convert for a format the device lacks is the caller's to ask. */
	ASSERT_EQ(choose(V4L2_PIX_FMT_RGB24, true, NULL, 0, V4L2_PIX_FMT_HSV24, offered, 1, &fourcc,
			 &convert), 0);
	ASSERT_UL_EQ(fourcc, V4L2_PIX_FMT_RGB24);
	ASSERT_TRUE(convert);
}

TEST(accepted_format_is_kept)
{
	static const uint32_t offered[] = { V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_YVU420 };
	uint32_t fourcc = 1;
	bool convert = true;

	/* A camera left in YVU420 stays in it: no S_FMT, no conversion. */
	ASSERT_EQ(choose(0, false, images, N_IMAGES, V4L2_PIX_FMT_YVU420, offered, 2, &fourcc, &convert), 0);
	ASSERT_EQ(fourcc, 0);
	ASSERT_FALSE(convert);
	ASSERT_EQ(choose(V4L2_PIX_FMT_NV12, false, images, N_IMAGES, V4L2_PIX_FMT_YUYV, offered, 2, &fourcc,
			 &convert), 0);
	ASSERT_UL_EQ(fourcc, V4L2_PIX_FMT_NV12);
	ASSERT_FALSE(convert);
}

TEST(own_format_before_conversion)
{
	static const uint32_t offered[] = { V4L2_PIX_FMT_HSV24, V4L2_PIX_FMT_H264, V4L2_PIX_FMT_NV12,
					    V4L2_PIX_FMT_YUYV };
	uint32_t fourcc = 0;
	bool convert = true;

	/* Left in HSV, none asked for: the first of its own we take. */
	ASSERT_EQ(choose(0, false, images, N_IMAGES, V4L2_PIX_FMT_HSV24, offered, 4, &fourcc, &convert), 0);
	ASSERT_UL_EQ(fourcc, V4L2_PIX_FMT_NV12);
	ASSERT_FALSE(convert);
}

TEST(conversion_when_nothing_else_will_do)
{
	static const uint32_t offered[] = { V4L2_PIX_FMT_SPCA561, V4L2_PIX_FMT_H264 };
	static const uint32_t no_rgb[] = { V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_YUV420 };
	uint32_t fourcc = 0;
	bool convert = false;

	/* A camera with only formats we cannot take: libv4lconvert, RGB24. */
	ASSERT_EQ(choose(0, false, images, N_IMAGES, V4L2_PIX_FMT_SPCA561, offered, 2, &fourcc, &convert), 0);
	ASSERT_UL_EQ(fourcc, V4L2_PIX_FMT_RGB24);
	ASSERT_TRUE(convert);
	/* A caller that takes no RGB gets the YUV libv4lconvert makes. */
	convert = false;
	ASSERT_EQ(choose(0, false, no_rgb, 2, V4L2_PIX_FMT_SPCA561, offered, 2, &fourcc, &convert), 0);
	ASSERT_UL_EQ(fourcc, V4L2_PIX_FMT_YUV420);
	ASSERT_TRUE(convert);
}

TEST(asked_format_is_converted_not_replaced)
{
	static const uint32_t offered[] = { V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_SPCA561 };
	uint32_t fourcc = 0;
	bool convert = false;

	/* SPCA561 asked for: converted from itself, even though the camera
	 * has a YUYV we could take instead. */
	ASSERT_EQ(choose(V4L2_PIX_FMT_SPCA561, false, images, N_IMAGES, V4L2_PIX_FMT_YUYV, offered, 2,
			 &fourcc, &convert), 0);
	ASSERT_UL_EQ(fourcc, V4L2_PIX_FMT_RGB24);
	ASSERT_TRUE(convert);
}

TEST(nothing_to_be_had)
{
	static const uint32_t offered[] = { V4L2_PIX_FMT_HSV24 };
	static const uint32_t only_mjpeg[] = { V4L2_PIX_FMT_MJPEG };
	uint32_t fourcc = 7;
	bool convert = true;

	/* libv4lconvert makes no MJPEG: nothing, and nothing changed. */
	ASSERT_EQ(choose(0, false, only_mjpeg, 1, V4L2_PIX_FMT_HSV24, offered, 1, &fourcc, &convert),
		  -EOPNOTSUPP);
	ASSERT_EQ(fourcc, 7);
	ASSERT_TRUE(convert);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
