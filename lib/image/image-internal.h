/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_IMAGE_INTERNAL_H
#define HWS_IMAGE_INTERNAL_H

/*
 * What the image files share: the table of pixel formats (convert.c), the
 * encoder's reusable buffers (encoder.c) and one entry point per output
 * format (ppm.c, png.c, jpeg.c).
 *
 * An encoder is used by one thread at a time; it holds no lock.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <turbojpeg.h>

#include <hwsight/image.h>

/* Larger than any camera, small enough that no size computation overflows
 * an int (TurboJPEG's pitch) or a size_t. */
#define HWS__IMAGE_MAX_DIM 16384

/* A growable byte buffer, kept from frame to frame. */
struct hws__buf {
	uint8_t *data;
	size_t cap;
};

/* Return: 0 or -ENOMEM. The old contents are not kept. */
int hws__buf_reserve(struct hws__buf *b, size_t size);
/* Grows like hws__buf_reserve() but keeps the first @keep bytes. */
int hws__buf_grow(struct hws__buf *b, size_t size, size_t keep);
void hws__buf_free(struct hws__buf *b);

/* Products and clamp for YUV to RGB, and the stretch from V4L2's limited
 * range to JPEG's full range (convert.c); built once per encoder. */
#define HWS__YUV_CLIP_BIAS 384
struct hws__yuv_tables {
	int32_t y[256];
	int32_t rv[256];
	int32_t gu[256];
	int32_t gv[256];
	int32_t bu[256];
	uint8_t clip[1024];      /* clip[v + HWS__YUV_CLIP_BIAS] = v clamped to 0..255 */
	uint8_t full_y[256];
	uint8_t full_c[256];
};

void hws__yuv_tables_init(struct hws__yuv_tables *t);

struct hws_image_encoder {
	tjhandle tj_compress;    /* created on the first JPEG encode */
	tjhandle tj_decompress;  /* created on the first MJPEG decode */
	unsigned char *jpeg;     /* tjAlloc()ed, TurboJPEG writes here */
	unsigned long jpeg_cap;
	struct hws__buf out;     /* PPM, PNG, raw and pass-through results */
	struct hws__buf pixels;  /* converted RGB24, or planar YUV for JPEG */
	struct hws__buf fixed;   /* an MJPEG frame with its DHT inserted */
	struct hws__yuv_tables yuv;
};

enum hws__pix_kind {
	HWS__PIX_YUV422,         /* packed 4:2:2, 2 pixels in 4 bytes */
	HWS__PIX_GREY,
	HWS__PIX_RGB24,          /* 3 bytes per pixel */
	HWS__PIX_RGB32,          /* 4 bytes per pixel, one unused */
	HWS__PIX_RGB565,         /* little-endian 16-bit words */
	HWS__PIX_RGB555,
	HWS__PIX_RGB444,
	HWS__PIX_BAYER8,
	HWS__PIX_JPEG,           /* MJPEG or JPEG: compressed, no stride */
};

struct hws__pixfmt {
	uint32_t fourcc;
	uint8_t kind;            /* enum hws__pix_kind */
	uint8_t bpp;             /* bytes per pixel (YUV422: 2), 0 for JPEG */
	/*
	 * Byte offsets in a pixel: YUV422 {y0, u, y1, v} in the 4-byte pair;
	 * RGB24/RGB32 {r, g, b}; BAYER8 {x, y} of the blue site in the 2x2
	 * tile. Unused otherwise.
	 */
	uint8_t off[4];
	int tj_format;           /* TJPF_* to compress straight from, or -1 */
};

/* Return: the format, or NULL if no conversion from @fourcc exists. */
const struct hws__pixfmt *hws__pixfmt_find(uint32_t fourcc);

/*
 * hws__frame_stride - check a frame against its format
 * Return: 0 and the row stride (bytesperline, or the packed row size when
 * the driver left it 0; 0 for JPEG), or -EINVAL.
 */
int hws__frame_stride(const struct hws__pixfmt *pf, const struct hws_frame *frame,
		      size_t *ret_stride);

/*
 * hws__frame_to_rgb24 - write a checked frame as packed R,G,B rows at @dst
 * JPEG frames are decoded (jpeg.c).
 * Return: 0, -EINVAL (a JPEG frame that does not decode or whose size is
 * not the frame's), -ENOMEM.
 */
int hws__frame_to_rgb24(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
			const struct hws_frame *frame, size_t stride,
			uint8_t *dst, size_t dst_stride);

/* Split a checked 4:2:2 frame into full-range (JFIF) planes of width w,
 * (w+1)/2, (w+1)/2. */
void hws__yuv422_to_planes(const struct hws__yuv_tables *t, const struct hws__pixfmt *pf,
			   const struct hws_frame *frame, size_t stride,
			   uint8_t *y, uint8_t *u, uint8_t *v);

/* The encoders. @borrow lets the result point into the frame itself when
 * it is the frame's bytes unchanged (hws_image_save() writes them out
 * before the frame can go away). Return as hws_image_encode(). */
int hws__ppm_encode(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
		    const struct hws_frame *frame, size_t stride,
		    const void **ret_data, size_t *ret_size);
int hws__png_encode(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
		    const struct hws_frame *frame, size_t stride,
		    const void **ret_data, size_t *ret_size);
int hws__jpeg_encode(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
		     const struct hws_frame *frame, size_t stride, int quality, bool borrow,
		     const void **ret_data, size_t *ret_size);

/* Decode a JPEG frame of exactly the frame's size to RGB24 at @dst. */
int hws__jpeg_decode_rgb24(struct hws_image_encoder *enc, const struct hws_frame *frame,
			   uint8_t *dst, size_t dst_stride);

#endif
