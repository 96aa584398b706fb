/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_IMAGE_H
#define HWSIGHT_IMAGE_H

/*
 * Frames to image files: PPM, PNG (libpng), JPEG (libturbojpeg), raw.
 * MJPEG and JPEG frames are passed through unchanged as JPEG. An encoder
 * keeps its buffers and its libturbojpeg handle from frame to frame, so a
 * stream of frames costs no allocation per frame.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsight/common.h>
#include <hwsight/frame.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hws_image_type {
	HWS_IMAGE_PPM,
	HWS_IMAGE_PNG,
	HWS_IMAGE_JPEG,
	HWS_IMAGE_RAW,           /* the frame's bytes as the device gave them */
};

/**
 * hws_image_type_from_path - the type a file name asks for
 * Return: 0, or -EINVAL if the extension is not .ppm .png .jpg .jpeg .raw
 */
HWS_EXPORT int hws_image_type_from_path(const char *path, enum hws_image_type *ret_type);

/**
 * hws_image_can_encode - can a frame of this fourcc become this type
 * Return: true for every pair the encoder handles.
 */
HWS_EXPORT bool hws_image_can_encode(uint32_t fourcc, enum hws_image_type type);

/**
 * hws_image_formats - the pixel formats PPM, PNG and JPEG are made from
 * @ret_list: receives up to @max fourccs
 *
 * A camera whose format is not among them needs libv4lconvert in its path:
 * struct hws_capture_request's @accept takes this list, so that
 * hws_camera_negotiate() knows before it wraps the device.
 *
 * Return: the number of formats, which may be more than @max.
 */
HWS_EXPORT size_t hws_image_formats(uint32_t *ret_list, size_t max);

struct hws_image_encoder;

/** hws_image_encoder_new - Return: 0 or -ENOMEM. */
HWS_EXPORT int hws_image_encoder_new(struct hws_image_encoder **ret_encoder);

/** hws_image_encoder_free - Return: NULL. */
HWS_EXPORT struct hws_image_encoder *hws_image_encoder_free(struct hws_image_encoder *enc);

/* The chroma subsampling of a JPEG made from a YUV frame. */
enum hws_image_chroma {
	HWS_IMAGE_CHROMA_SOURCE, /* the frame's own: 4:2:2 stays 4:2:2 (the default) */
	HWS_IMAGE_CHROMA_420,    /* 4:2:2 and 4:4:4 averaged down to 4:2:0 */
};

/**
 * hws_image_encoder_set_chroma - the chroma subsampling of the encoder's JPEGs
 * @chroma: HWS_IMAGE_CHROMA_SOURCE, the default, or HWS_IMAGE_CHROMA_420
 *
 * With HWS_IMAGE_CHROMA_420, a 4:2:2 frame (YUYV, UYVY, 422P, NV16 ...)
 * has each pair of chroma rows averaged into one, a 4:4:4 frame each 2x2
 * block of chroma samples, as the frame is taken apart: what MJPEG
 * streamers send, fewer blocks to code and so less time and fewer bytes
 * a frame, for half the vertical colour resolution. A frame that is
 * 4:2:0 already, RGB (always coded 4:2:0), grey and MJPEG are coded as
 * before, and PPM and PNG are not affected.
 *
 * Return: 0, or -EINVAL (no @enc, or an unknown @chroma).
 */
HWS_EXPORT int hws_image_encoder_set_chroma(struct hws_image_encoder *enc,
					    enum hws_image_chroma chroma);

/**
 * hws_image_encode - encode a frame in memory
 * @quality: JPEG quality 1..100 (ignored by the other types)
 * @ret_data: the encoded bytes, owned by the encoder, valid until its next
 *            call
 * Return: 0, -EINVAL (bad quality, or a frame whose size does not match
 * its format), -EOPNOTSUPP (no conversion from this fourcc), -ENOMEM.
 */
HWS_EXPORT int hws_image_encode(struct hws_image_encoder *enc, const struct hws_frame *frame,
				enum hws_image_type type, int quality,
				const void **ret_data, size_t *ret_size);

/**
 * hws_image_save - encode a frame and write it to a file, all or nothing
 *
 * The image is written to a temporary file beside @path, flushed, and
 * renamed over @path: a full disk or a crash never leaves a half image
 * under the final name.
 *
 * Return: 0 or a negative errno (-ENOSPC for a full disk).
 */
HWS_EXPORT int hws_image_save(struct hws_image_encoder *enc, const char *path,
			      const struct hws_frame *frame, enum hws_image_type type, int quality);

#ifdef __cplusplus
}
#endif

#endif
