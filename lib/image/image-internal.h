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

/* Row loops specialised at compile time by constant arguments. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

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
	struct hws__buf pixels;  /* converted RGB24 */
	struct hws__buf planes;  /* full-range YUV planes, or 16-bit samples narrowed to 8 */
	struct hws__buf fixed;   /* an MJPEG frame with its DHT inserted */
	struct hws__yuv_tables yuv;
	enum hws_image_chroma chroma; /* of JPEGs made from YUV */
};

enum hws__pix_kind {
	HWS__PIX_YUV422,         /* packed 4:2:2, 2 pixels in 4 bytes */
	HWS__PIX_YUV_PLANAR,     /* Y, Cb and Cr planes (YU12, YV12, 422P) */
	HWS__PIX_YUV_SEMI,       /* a Y plane, then Cb and Cr interleaved (NV12 ...) */
	HWS__PIX_YUV_WORD,       /* packed 4:4:4, one 2- or 4-byte word a pixel */
	HWS__PIX_GREY,
	HWS__PIX_GREY16,         /* 16-bit samples, the value in the low bits */
	HWS__PIX_RGB24,          /* 3 bytes per pixel */
	HWS__PIX_RGB32,          /* 4 bytes per pixel, one unused */
	HWS__PIX_RGB_WORD,       /* R, G and B fields in a 1-, 2- or 4-byte word */
	HWS__PIX_BAYER8,
	HWS__PIX_BAYER16,        /* 16-bit samples, the value in the low bits */
	HWS__PIX_JPEG,           /* MJPEG or JPEG: compressed, no stride */
};

struct hws__pixfmt {
	uint32_t fourcc;
	uint8_t kind;            /* enum hws__pix_kind */
	uint8_t bpp;             /* bytes per pixel (YUV422: 2; planar: 1, the Y plane's), 0 for JPEG */
	/*
	 * YUV422: byte offsets {y0, u, y1, v} in the 4-byte pair.
	 * RGB24/RGB32: byte offsets {r, g, b} in the pixel.
	 * YUV_PLANAR/YUV_SEMI: {x shift, y shift} of the chroma subsampling
	 * (4:2:0 is {1, 1}), then 1 when Cr comes before Cb.
	 * RGB_WORD/YUV_WORD: bit shifts of {r, g, b} or {y, cb, cr} in the word.
	 * GREY16: {bits}. BAYER8/BAYER16: {x, y} of the blue site in the 2x2
	 * tile, then BAYER16's bits.
	 * Unused otherwise.
	 */
	uint8_t off[4];
	int tj_format;           /* TJPF_* to compress straight from, or -1 */
	uint8_t bits[3];         /* RGB_WORD/YUV_WORD: the widths of the fields */
	bool big_endian;         /* words and 16-bit samples, else little-endian */
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

/* The Y, Cb and Cr planes TurboJPEG compresses from and decodes. */
struct hws__planes {
	const unsigned char *plane[3];
	int stride[3];
	int subsamp;             /* TJSAMP_444, _422 or _420 */
};

/* Is the format one of the YUV kinds, which JPEG takes as planes? */
bool hws__pixfmt_is_yuv(const struct hws__pixfmt *pf);

/*
 * hws__frame_to_planes - a checked YUV frame as full-range (JFIF) planes
 * Chroma keeps the frame's subsampling, or with @to_420 is averaged down
 * to 4:2:0 where the frame has more. The planes are in @enc->planes.
 * Return: 0 or -ENOMEM.
 */
int hws__frame_to_planes(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
			 const struct hws_frame *frame, size_t stride, bool to_420,
			 struct hws__planes *ret_planes);

/*
 * hws__frame_to_grey8 - the 8-bit rows of a checked GREY or GREY16 frame:
 * the frame's own, or 16-bit samples narrowed into @enc->planes.
 * Return: the rows (NULL: -ENOMEM), @ret_stride their stride.
 */
const uint8_t *hws__frame_to_grey8(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
				   const struct hws_frame *frame, size_t stride, size_t *ret_stride);

/*
 * hws__word_rows - the three fields of each pixel of a checked RGB_WORD or
 * YUV_WORD frame, widened to 8 bits, written to dst[0..2] (R, G, B or Y,
 * Cb, Cr) with @step bytes between pixels and @dst_stride between rows.
 */
void hws__word_rows(const struct hws__pixfmt *pf, const struct hws_frame *frame, size_t stride,
		    uint8_t *const dst[3], size_t step, size_t dst_stride);

/* The encoder's TurboJPEG decompressor, created on first use; NULL: -ENOMEM. */
tjhandle hws__tj_decompressor(struct hws_image_encoder *enc);

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
