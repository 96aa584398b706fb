/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_FRAME_H
#define HWSIGHT_FRAME_H

/*
 * What a camera gives and an image is made from, so that <hwsight/image.h>
 * needs nothing of the capture API.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A time in seconds, num/den, as V4L2 gives frame intervals. */
struct hws_fract {
	uint32_t num;
	uint32_t den;
};

/* One frame in the device's format (fourcc, V4L2's codes). */
struct hws_frame {
	const void *data;        /* valid until the next hws_camera_next() */
	size_t size;             /* bytes used */
	uint32_t width;
	uint32_t height;
	uint32_t fourcc;
	uint32_t bytesperline;
	uint32_t sequence;       /* the driver's */
	uint64_t timestamp_ns;   /* the driver's, CLOCK_MONOTONIC */
};

#ifdef __cplusplus
}
#endif

#endif
