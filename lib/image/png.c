/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * PNG through libpng, written into the encoder's buffer.
 *
 * zlib level 1, run-length matching only, and the Sub filter. PNG is
 * lossless at any setting; only size and CPU change. Camera frames are
 * noisy: after Sub, what repeats in them is runs, which Z_RLE finds
 * without searching a window. Measured on a 640x480 gradient with sensor-
 * like noise, this is 6 to 7 times cheaper than libpng's default (level 6,
 * the best of five filters per row) for a file the same size within 2 per
 * cent; on a noiseless picture the file is 3 times larger, still a sixth
 * of the PPM. A daemon saving snapshots wants the CPU back; whoever wants
 * the last byte off can recompress offline (optipng, zopflipng).
 *
 * GREY frames (16-bit ones narrowed) become grey PNGs and RGB24 frames are written from their own
 * rows; only the other layouts are converted first.
 */
#include <errno.h>
#include <setjmp.h>
#include <string.h>

#include <png.h>
#include <zlib.h>

#include "image/image-internal.h"

struct png_sink {
	struct hws__buf *buf;
	size_t used;
};

static void sink_write(png_structp png, png_bytep data, size_t len)
{
	struct png_sink *sink = png_get_io_ptr(png);

	if (len > sink->buf->cap - sink->used) {
		size_t want = sink->buf->cap * 2;

		if (want < sink->used + len)
			want = sink->used + len;
		if (hws__buf_grow(sink->buf, want, sink->used) < 0)
			png_error(png, "out of memory");
	}
	memcpy(sink->buf->data + sink->used, data, len);
	sink->used += len;
}

static void sink_flush(png_structp png)
{
}

/* The library never prints: libpng's default handlers write to stderr. */
static void on_error(png_structp png, png_const_charp msg)
{
	png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
}

static void write_rows(png_structp png, const uint8_t *rows, size_t stride, uint32_t height)
{
	for (uint32_t j = 0; j < height; j++, rows += stride)
		png_write_row(png, rows);
}

/* Alone in its function so that no local of it changes after setjmp(). */
static int write_png(png_structp png, png_infop info, const struct hws_frame *frame,
		     int color_type, const uint8_t *rows, size_t stride)
{
	if (setjmp(png_jmpbuf(png)))
		return -1;
	png_set_IHDR(png, info, frame->width, frame->height, 8, color_type, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_compression_level(png, 1);
	png_set_compression_strategy(png, Z_RLE);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
	png_write_info(png, info);
	write_rows(png, rows, stride, frame->height);
	png_write_end(png, NULL);
	return 0;
}

int hws__png_encode(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
		    const struct hws_frame *frame, size_t stride,
		    const void **ret_data, size_t *ret_size)
{
	struct png_sink sink = { .buf = &enc->out };
	const uint8_t *rows = frame->data;
	int color_type = PNG_COLOR_TYPE_RGB;
	png_structp png;
	png_infop info;
	int r;

	if (pf->kind == HWS__PIX_GREY || pf->kind == HWS__PIX_GREY16) {
		color_type = PNG_COLOR_TYPE_GRAY;
		rows = hws__frame_to_grey8(enc, pf, frame, stride, &stride);
		if (!rows)
			return -ENOMEM;
	} else if (!(pf->kind == HWS__PIX_RGB24 && pf->off[0] == 0)) {
		size_t rgb_stride = (size_t)frame->width * 3;

		if (hws__buf_reserve(&enc->pixels, rgb_stride * frame->height) < 0)
			return -ENOMEM;
		r = hws__frame_to_rgb24(enc, pf, frame, stride, enc->pixels.data, rgb_stride);
		if (r < 0)
			return r;
		rows = enc->pixels.data;
		stride = rgb_stride;
	}

	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
	if (!png)
		return -ENOMEM;
	info = png_create_info_struct(png);
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return -ENOMEM;
	}
	png_set_write_fn(png, &sink, sink_write, sink_flush);
	r = write_png(png, info, frame, color_type, rows, stride);
	png_destroy_write_struct(&png, &info);
	/* Our inputs are valid PNG inputs: what libpng can fail on is memory. */
	if (r < 0)
		return -ENOMEM;
	*ret_data = enc->out.data;
	*ret_size = sink.used;
	return 0;
}
