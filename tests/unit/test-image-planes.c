/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Packed 4:2:2 frames split into the planes JPEG is coded from
 * (hws__frame_to_planes()): sixteen pixels at a time where the machine
 * has vectors, the rest of a row a pixel pair at a time through the range
 * tables. Both ways must give the same bytes, for every sample value,
 * every byte order, any width and height, at 4:2:2 and averaged to 4:2:0.
 * The oracle here is the plain reading of the tables.
 */
#include <linux/videodev2.h>
#include <stdlib.h>
#include <string.h>

#include "image/image-internal.h"
#include "task.h"

/* Byte offsets {y0, u, y1, v} of each packed 4:2:2 order. */
static const struct {
	uint32_t fourcc;
	unsigned off[4];
} orders[] = {
	{ V4L2_PIX_FMT_YUYV, { 0, 1, 2, 3 } },
	{ V4L2_PIX_FMT_YVYU, { 0, 3, 2, 1 } },
	{ V4L2_PIX_FMT_UYVY, { 1, 0, 3, 2 } },
	{ V4L2_PIX_FMT_VYUY, { 1, 2, 3, 0 } },
};

/* The planes of @f as the tables make them, one sample at a time. */
static void expected_planes(const struct hws__yuv_tables *t, const struct hws_frame *f, const unsigned off[4],
			    bool to_420, uint8_t *y, uint8_t *u, uint8_t *v)
{
	uint32_t cw = (f->width + 1) / 2;
	const uint8_t *data = f->data;

	for (uint32_t j = 0; j < f->height; j++) {
		const uint8_t *row = data + (size_t)j * f->bytesperline;
		/* At 4:2:0 a chroma row is the mean of two, or an odd last row alone. */
		const uint8_t *below = to_420 && j + 1 < f->height ? row + f->bytesperline : row;
		uint32_t cj = to_420 ? j / 2 : j;

		for (uint32_t i = 0; i < f->width; i++)
			y[(size_t)j * f->width + i] = t->full_y[row[i / 2 * 4 + off[i % 2 ? 2 : 0]]];
		if (to_420 && j % 2)
			continue;
		for (uint32_t i = 0; i < cw; i++) {
			size_t k = (size_t)i * 4;

			u[(size_t)cj * cw + i] = t->full_c[(row[k + off[1]] + below[k + off[1]] + 1) / 2];
			v[(size_t)cj * cw + i] = t->full_c[(row[k + off[3]] + below[k + off[3]] + 1) / 2];
		}
	}
}

/* Splits @data (@w x @h, rows @stride apart) every way and checks each. */
static void check_frame(struct hws_image_encoder *enc, const uint8_t *data, uint32_t w, uint32_t h,
			uint32_t stride)
{
	uint32_t cw = (w + 1) / 2;
	size_t size = (size_t)w * h;
	uint8_t *want = malloc(3 * size + 2);

	ASSERT_NOT_NULL(want);
	for (size_t o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
		const struct hws__pixfmt *pf = hws__pixfmt_find(orders[o].fourcc);
		struct hws_frame f = {
			.data = data, .size = (size_t)stride * h, .width = w, .height = h,
			.fourcc = orders[o].fourcc, .bytesperline = stride,
		};

		ASSERT_NOT_NULL(pf);
		for (int to_420 = 0; to_420 <= 1; to_420++) {
			uint32_t ch = to_420 ? (h + 1) / 2 : h;
			uint8_t *wu = want + size, *wv = wu + (size_t)cw * ch;
			struct hws__planes p;

			expected_planes(&enc->yuv, &f, orders[o].off, to_420, want, wu, wv);
			ASSERT_EQ(hws__frame_to_planes(enc, pf, &f, stride, to_420, &p), 0);
			ASSERT_EQ(p.stride[0], (int)w);
			ASSERT_EQ(p.stride[1], (int)cw);
			ASSERT_EQ(p.subsamp, to_420 ? TJSAMP_420 : TJSAMP_422);
			if (memcmp(p.plane[0], want, size) || memcmp(p.plane[1], wu, (size_t)cw * ch) ||
			    memcmp(p.plane[2], wv, (size_t)cw * ch)) {
				fprintf(stderr, "%.4s %ux%u stride %u%s: planes differ\n",
					(const char *)&orders[o].fourcc, w, h, stride, to_420 ? " to 4:2:0" : "");
				ASSERT_TRUE(false);
			}
		}
	}
	free(want);
}

/*
 * Every sample value in every byte of the pixel pair, and every pair of
 * chroma values averaged: 256 pairs a row, the second row the first
 * turned around, so that no sample is next to itself.
 */
TEST(every_sample_value_as_the_tables_stretch_it)
{
	enum { W = 512, H = 2, STRIDE = 2 * W };
	static uint8_t frame[STRIDE * H];
	struct hws_image_encoder *enc;

	ASSERT_EQ(hws_image_encoder_new(&enc), 0);
	for (unsigned i = 0; i < W / 2; i++) {
		uint8_t *a = frame + 4 * i, *b = frame + STRIDE + 4 * i;

		a[0] = (uint8_t)i;
		a[1] = (uint8_t)(255 - i);
		a[2] = (uint8_t)(i * 7);
		a[3] = (uint8_t)(i * 13 + 5);
		b[0] = a[3];
		b[1] = a[2];
		b[2] = a[1];
		b[3] = a[0];
	}
	check_frame(enc, frame, W, H, STRIDE);
	hws_image_encoder_free(enc);
}

/* Widths around the sixteen pixels done at once, odd ones and a camera's,
 * heights odd and even, rows padded past their pixels. */
TEST(any_size_as_a_pixel_pair_at_a_time)
{
	static const uint32_t widths[] = { 1, 2, 3, 14, 15, 16, 17, 18, 31, 32, 33, 34, 47, 50, 176, 640 };
	static const uint32_t heights[] = { 1, 2, 3, 4, 7 };
	struct hws_image_encoder *enc;
	unsigned seed = 20261207;

	ASSERT_EQ(hws_image_encoder_new(&enc), 0);
	for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
		for (size_t hi = 0; hi < sizeof(heights) / sizeof(heights[0]); hi++) {
			uint32_t w = widths[wi], h = heights[hi], stride = 4 * ((w + 1) / 2) + 8 * (uint32_t)(hi % 2);
			uint8_t *frame = malloc((size_t)stride * h);

			ASSERT_NOT_NULL(frame);
			for (size_t k = 0; k < (size_t)stride * h; k++)
				frame[k] = (uint8_t)(rand_r(&seed) >> 7);
			check_frame(enc, frame, w, h, stride);
			free(frame);
		}
	}
	hws_image_encoder_free(enc);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
