/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * YUV frames as the Y, Cb and Cr planes TurboJPEG takes: packed 4:2:2
 * split, planar copied, semi-planar (NV12 ...) de-interleaved, packed
 * 4:4:4 unpacked, each at the subsampling the frame has, so that JPEG
 * compresses them without a detour through RGB and without resampling
 * chroma. PNG and PPM have TurboJPEG decode the same planes to RGB.
 *
 * JPEG (JFIF) YCbCr is full range, V4L2's is limited: every sample is
 * stretched by table on the way (Y 16..235 to 0..255, Cb/Cr 16..240 to
 * 0..255 around 128), or every JPEG would have grey blacks and dull
 * colours next to the PPM of the same frame.
 */
#include <assert.h>
#include <errno.h>

#include "image/image-internal.h"

ALWAYS_INLINE void yuv422_split(const struct hws__yuv_tables *t, const struct hws_frame *f,
				size_t stride, uint8_t *y, uint8_t *u, uint8_t *v, unsigned oy0,
				unsigned ou, unsigned oy1, unsigned ov)
{
	const uint8_t *row = f->data, *yt = t->full_y, *ct = t->full_c;
	uint32_t w = f->width, pairs = w / 2, cw = (w + 1) / 2;

	for (uint32_t j = 0; j < f->height; j++, row += stride, y += w, u += cw, v += cw) {
		const uint8_t *s = row;

		for (uint32_t i = 0; i < pairs; i++, s += 4) {
			y[2 * i] = yt[s[oy0]];
			y[2 * i + 1] = yt[s[oy1]];
			u[i] = ct[s[ou]];
			v[i] = ct[s[ov]];
		}
		if (w & 1) {
			y[w - 1] = yt[s[oy0]];
			u[pairs] = ct[s[ou]];
			v[pairs] = ct[s[ov]];
		}
	}
}

static void yuv422_to_planes(const struct hws__yuv_tables *t, const struct hws__pixfmt *pf,
			     const struct hws_frame *frame, size_t stride,
			     uint8_t *y, uint8_t *u, uint8_t *v)
{
	if (pf->off[0] == 0 && pf->off[1] == 1)
		yuv422_split(t, frame, stride, y, u, v, 0, 1, 2, 3);
	else if (pf->off[0] == 0)
		yuv422_split(t, frame, stride, y, u, v, 0, 3, 2, 1);
	else if (pf->off[1] == 0)
		yuv422_split(t, frame, stride, y, u, v, 1, 0, 3, 2);
	else
		yuv422_split(t, frame, stride, y, u, v, 1, 2, 3, 0);
}

/* Copy a plane of @w x @h samples through @map. */
static void plane_map(const uint8_t *src, size_t src_stride, uint32_t w, uint32_t h,
		      uint8_t *dst, size_t dst_stride, const uint8_t *map)
{
	for (uint32_t j = 0; j < h; j++, src += src_stride, dst += dst_stride)
		for (uint32_t i = 0; i < w; i++)
			dst[i] = map[src[i]];
}

/* One plane of interleaved pairs into two, through @map. */
static void plane_split(const uint8_t *src, size_t src_stride, uint32_t w, uint32_t h,
			uint8_t *a, uint8_t *b, size_t dst_stride, const uint8_t *map)
{
	for (uint32_t j = 0; j < h; j++, src += src_stride, a += dst_stride, b += dst_stride)
		for (uint32_t i = 0; i < w; i++) {
			a[i] = map[src[2 * i]];
			b[i] = map[src[2 * i + 1]];
		}
}

int hws__frame_to_planes(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
			 const struct hws_frame *frame, size_t stride, struct hws__planes *ret_planes)
{
	const struct hws__yuv_tables *t = &enc->yuv;
	const uint8_t *src = frame->data;
	uint32_t w = frame->width, h = frame->height, cw, ch;
	unsigned xs = 0, ys = 0;
	uint8_t *y, *cb, *cr;

	assert(hws__pixfmt_is_yuv(pf));
	if (pf->kind == HWS__PIX_YUV422)
		xs = 1;
	else if (pf->kind != HWS__PIX_YUV_WORD) {
		xs = pf->off[0];
		ys = pf->off[1];
	}
	cw = (w + (1u << xs) - 1) >> xs;
	ch = (h + (1u << ys) - 1) >> ys;
	if (hws__buf_reserve(&enc->planes, (size_t)w * h + 2 * (size_t)cw * ch) < 0)
		return -ENOMEM;
	y = enc->planes.data;
	cb = y + (size_t)w * h;
	cr = cb + (size_t)cw * ch;

	switch ((enum hws__pix_kind)pf->kind) {
	case HWS__PIX_YUV422:
		yuv422_to_planes(t, pf, frame, stride, y, cb, cr);
		break;
	case HWS__PIX_YUV_PLANAR: {
		/* Under the luma plane, two chroma planes with the stride
		 * subsampled as the samples are (V4L2's single-plane layout). */
		size_t cstride = stride >> xs;
		const uint8_t *c0 = src + stride * h, *c1 = c0 + cstride * ch;

		plane_map(src, stride, w, h, y, w, t->full_y);
		plane_map(pf->off[2] ? c1 : c0, cstride, cw, ch, cb, cw, t->full_c);
		plane_map(pf->off[2] ? c0 : c1, cstride, cw, ch, cr, cw, t->full_c);
		break;
	}
	case HWS__PIX_YUV_SEMI: {
		/* One chroma plane of pairs, as wide in bytes as two samples. */
		size_t cstride = 2 * (stride >> xs);
		const uint8_t *c = src + stride * h;

		plane_map(src, stride, w, h, y, w, t->full_y);
		if (pf->off[2])
			plane_split(c, cstride, cw, ch, cr, cb, cw, t->full_c);
		else
			plane_split(c, cstride, cw, ch, cb, cr, cw, t->full_c);
		break;
	}
	case HWS__PIX_YUV_WORD: {
		uint8_t *dst[3] = { y, cb, cr };

		hws__word_rows(pf, frame, stride, dst, 1, w);
		plane_map(y, w, w, h, y, w, t->full_y);
		plane_map(cb, w, w, h, cb, w, t->full_c);
		plane_map(cr, w, w, h, cr, w, t->full_c);
		break;
	}
	default:
		assert(!"not a YUV format");
		return -EINVAL;
	}
	*ret_planes = (struct hws__planes){
		.plane = { y, cb, cr },
		.stride = { (int)w, (int)cw, (int)cw },
		.subsamp = !xs ? TJSAMP_444 : ys ? TJSAMP_420 : TJSAMP_422,
	};
	return 0;
}
