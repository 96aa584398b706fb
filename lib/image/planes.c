/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * YUV frames as the Y, Cb and Cr planes TurboJPEG takes: packed 4:2:2
 * split, planar copied, semi-planar (NV12 ...) de-interleaved, packed
 * 4:4:4 unpacked, so that JPEG compresses them without a detour through
 * RGB. PNG and PPM have TurboJPEG decode the same planes to RGB.
 *
 * Chroma keeps the frame's subsampling, or is averaged down to 4:2:0 when
 * the encoder asks for it (hws_image_encoder_set_chroma()): in the same
 * pass, while the samples are in hand, as a second pass over the chroma
 * planes would spend again part of what coding fewer blocks saves.
 *
 * JPEG (JFIF) YCbCr is full range, V4L2's is limited: every sample is
 * stretched by table on the way (Y 16..235 to 0..255, Cb/Cr 16..240 to
 * 0..255 around 128), or every JPEG would have grey blacks and dull
 * colours next to the PPM of the same frame. Samples are averaged before
 * the stretch: one lookup for two or four of them, and the stretch is
 * linear, so that the order changes only the rounding.
 */
#include <assert.h>
#include <errno.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "image/image-internal.h"

/* Means rounded to nearest, so that a flat colour stays that colour. */
ALWAYS_INLINE unsigned mean2(unsigned a, unsigned b)
{
	return (a + b + 1) >> 1;
}

ALWAYS_INLINE unsigned mean4(unsigned a, unsigned b, unsigned c, unsigned d)
{
	return (a + b + c + d + 2) >> 2;
}

#ifdef __SSE2__
/*
 * The tables' stretch as arithmetic on eight 16-bit samples, equal to
 * full_y and full_c for every input (test-image-planes checks all 256):
 * a table lookup a sample is what a packed row cost most, the codec
 * aside, and a lookup cannot be done eight at a time. With d = Y - 16
 * (0 below), Y' = d + (d + 3) * 10774 / 65536, which is 255 at 235 and
 * more above, clamped by the pack. With d = C - 128, C' = 128 + d plus or
 * minus (|d| * 71 + 247) / 512, rounded away from 128 as the table is.
 */
static inline __m128i full_y16(__m128i y)
{
	__m128i d = _mm_subs_epu16(y, _mm_set1_epi16(16));

	return _mm_add_epi16(d, _mm_mulhi_epu16(_mm_add_epi16(d, _mm_set1_epi16(3)), _mm_set1_epi16(10774)));
}

static inline __m128i full_c16(__m128i c)
{
	__m128i d = _mm_sub_epi16(c, _mm_set1_epi16(128));
	__m128i sign = _mm_srai_epi16(d, 15);
	__m128i a = _mm_sub_epi16(_mm_xor_si128(d, sign), sign);
	__m128i f = _mm_add_epi16(a, _mm_srli_epi16(_mm_add_epi16(_mm_mullo_epi16(a, _mm_set1_epi16(71)),
								  _mm_set1_epi16(247)), 9));

	return _mm_add_epi16(_mm_set1_epi16(128), _mm_sub_epi16(_mm_xor_si128(f, sign), sign));
}

/* The luma or the chroma bytes of eight packed pixels, as 16-bit samples. */
ALWAYS_INLINE __m128i low_bytes(__m128i x, bool high)
{
	return high ? _mm_srli_epi16(x, 8) : _mm_and_si128(x, _mm_set1_epi16(0xff));
}

/*
 * Sixteen pixels of packed 4:2:2 at @s into the planes, as yuv422_row()
 * does them; with @pair, the row @b below too, chroma averaged with it.
 * @c1 is where the chroma sample that comes first in the pixel pair goes.
 */
ALWAYS_INLINE void yuv422_16(const uint8_t *s, const uint8_t *b, uint8_t *y, uint8_t *yb,
			     uint8_t *c1, uint8_t *c2, bool pair, bool y_odd)
{
	__m128i s0 = _mm_loadu_si128((const __m128i *)s), s1 = _mm_loadu_si128((const __m128i *)(s + 16));
	__m128i c0 = low_bytes(s0, !y_odd), c8 = low_bytes(s1, !y_odd), c;

	_mm_storeu_si128((__m128i *)y, _mm_packus_epi16(full_y16(low_bytes(s0, y_odd)),
							full_y16(low_bytes(s1, y_odd))));
	if (pair) {
		__m128i b0 = _mm_loadu_si128((const __m128i *)b), b1 = _mm_loadu_si128((const __m128i *)(b + 16));

		_mm_storeu_si128((__m128i *)yb, _mm_packus_epi16(full_y16(low_bytes(b0, y_odd)),
								 full_y16(low_bytes(b1, y_odd))));
		c0 = _mm_avg_epu16(c0, low_bytes(b0, !y_odd));
		c8 = _mm_avg_epu16(c8, low_bytes(b1, !y_odd));
	}
	/* Eight pairs of chroma samples, then each kind on its own. */
	c = _mm_packus_epi16(full_c16(c0), full_c16(c8));
	_mm_storel_epi64((__m128i *)c1, _mm_packus_epi16(low_bytes(c, false), _mm_setzero_si128()));
	_mm_storel_epi64((__m128i *)c2, _mm_packus_epi16(low_bytes(c, true), _mm_setzero_si128()));
}
#endif

/*
 * One row of packed 4:2:2 into the planes; with @pair, that row and the
 * one below it, their chroma averaged into one row (4:2:0).
 */
ALWAYS_INLINE void yuv422_row(const struct hws__yuv_tables *t, const uint8_t *s, size_t stride,
			      uint32_t w, uint8_t *y, uint8_t *u, uint8_t *v, bool pair,
			      unsigned oy0, unsigned ou, unsigned oy1, unsigned ov)
{
	const uint8_t *yt = t->full_y, *ct = t->full_c, *b = pair ? s + stride : s;
	uint8_t *yb = y + w;
	uint32_t i = 0, pairs = w / 2;

#ifdef __SSE2__
	for (; i + 8 <= pairs; i += 8, s += 32, b += 32)
		yuv422_16(s, b, y + 2 * i, yb + 2 * i, (ou < ov ? u : v) + i, (ou < ov ? v : u) + i, pair, oy0 & 1);
#endif
	for (; i < pairs; i++, s += 4, b += 4) {
		y[2 * i] = yt[s[oy0]];
		y[2 * i + 1] = yt[s[oy1]];
		if (pair) {
			yb[2 * i] = yt[b[oy0]];
			yb[2 * i + 1] = yt[b[oy1]];
		}
		u[i] = ct[pair ? mean2(s[ou], b[ou]) : s[ou]];
		v[i] = ct[pair ? mean2(s[ov], b[ov]) : s[ov]];
	}
	if (w & 1) {
		y[w - 1] = yt[s[oy0]];
		if (pair)
			yb[w - 1] = yt[b[oy0]];
		u[i] = ct[pair ? mean2(s[ou], b[ou]) : s[ou]];
		v[i] = ct[pair ? mean2(s[ov], b[ov]) : s[ov]];
	}
}

ALWAYS_INLINE void yuv422_split(const struct hws__yuv_tables *t, const struct hws_frame *f,
				size_t stride, bool to_420, uint8_t *y, uint8_t *u, uint8_t *v,
				unsigned oy0, unsigned ou, unsigned oy1, unsigned ov)
{
	const uint8_t *row = f->data;
	uint32_t w = f->width, cw = (w + 1) / 2, j = 0;

	if (to_420)
		for (; j + 1 < f->height; j += 2, row += 2 * stride, y += 2 * (size_t)w, u += cw, v += cw)
			yuv422_row(t, row, stride, w, y, u, v, true, oy0, ou, oy1, ov);
	/* Every row at 4:2:2; at 4:2:0, an odd height's last row alone. */
	for (; j < f->height; j++, row += stride, y += w, u += cw, v += cw)
		yuv422_row(t, row, stride, w, y, u, v, false, oy0, ou, oy1, ov);
}

static void yuv422_to_planes(const struct hws__yuv_tables *t, const struct hws__pixfmt *pf,
			     const struct hws_frame *frame, size_t stride, bool to_420,
			     uint8_t *y, uint8_t *u, uint8_t *v)
{
	if (pf->off[0] == 0 && pf->off[1] == 1)
		yuv422_split(t, frame, stride, to_420, y, u, v, 0, 1, 2, 3);
	else if (pf->off[0] == 0)
		yuv422_split(t, frame, stride, to_420, y, u, v, 0, 3, 2, 1);
	else if (pf->off[1] == 0)
		yuv422_split(t, frame, stride, to_420, y, u, v, 1, 0, 3, 2);
	else
		yuv422_split(t, frame, stride, to_420, y, u, v, 1, 2, 3, 0);
}

/*
 * @n interleaved planes (one, or the two of a semi-planar frame) of @w x @h
 * samples into @dst[0..n-1], through @map. With @ry, each sample is
 * averaged with the one below (4:2:2 to 4:2:0); with @rx too, with its
 * right-hand neighbours as well (4:4:4 to 4:2:0). A last row or column
 * without a neighbour is averaged with itself, that is kept alone.
 */
ALWAYS_INLINE void plane_rows(const uint8_t *src, size_t src_stride, uint32_t w, uint32_t h,
			      unsigned n, uint8_t *const dst[], size_t dst_stride,
			      const uint8_t *map, unsigned rx, unsigned ry)
{
	uint32_t dw = (w + rx) >> rx, dh = (h + ry) >> ry;

	assert(ry || !rx);
	for (uint32_t j = 0; j < dh; j++) {
		const uint8_t *a = src + ((size_t)j << ry) * src_stride;
		const uint8_t *b = ry && ((j << ry) + 1 < h) ? a + src_stride : a;

		for (uint32_t i = 0; i < dw; i++) {
			size_t k = ((size_t)i << rx) * n;
			/* Past an odd width, the last column stands for its neighbour. */
			size_t k1 = rx && (i << rx) + 1 < w ? k + n : k;

			for (unsigned c = 0; c < n; c++) {
				unsigned s = rx ? mean4(a[k + c], a[k1 + c], b[k + c], b[k1 + c])
					   : ry ? mean2(a[k + c], b[k + c]) : a[k + c];

				dst[c][j * dst_stride + i] = map[s];
			}
		}
	}
}

ALWAYS_INLINE void chroma_rows_n(const uint8_t *src, size_t src_stride, uint32_t w, uint32_t h,
				 unsigned n, uint8_t *const dst[], size_t dst_stride,
				 const uint8_t *map, unsigned rx, unsigned ry)
{
	if (rx)
		plane_rows(src, src_stride, w, h, n, dst, dst_stride, map, 1, 1);
	else if (ry)
		plane_rows(src, src_stride, w, h, n, dst, dst_stride, map, 0, 1);
	else
		plane_rows(src, src_stride, w, h, n, dst, dst_stride, map, 0, 0);
}

/* plane_rows() for chroma, a loop for each plane count and reduction. */
static void chroma_rows(const uint8_t *src, size_t src_stride, uint32_t w, uint32_t h,
			unsigned n, uint8_t *const dst[], size_t dst_stride, const uint8_t *map,
			unsigned rx, unsigned ry)
{
	if (n == 1)
		chroma_rows_n(src, src_stride, w, h, 1, dst, dst_stride, map, rx, ry);
	else
		chroma_rows_n(src, src_stride, w, h, 2, dst, dst_stride, map, rx, ry);
}

int hws__frame_to_planes(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
			 const struct hws_frame *frame, size_t stride, bool to_420,
			 struct hws__planes *ret_planes)
{
	const struct hws__yuv_tables *t = &enc->yuv;
	const uint8_t *src = frame->data;
	uint32_t w = frame->width, h = frame->height, cw, ch, out_cw;
	unsigned xs = 0, ys = 0, rx, ry;
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
	/* What 4:2:0 takes away: a 4:2:2 frame's every other chroma row,
	 * a 4:4:4 frame's every other row and column. */
	rx = to_420 && !xs;
	ry = to_420 && !ys;
	out_cw = (cw + rx) >> rx;
	/* The chroma planes have room for the frame's own subsampling, which
	 * packed 4:4:4 is unpacked into before it is reduced where it lies. */
	if (hws__buf_reserve(&enc->planes, (size_t)w * h + 2 * (size_t)cw * ch) < 0)
		return -ENOMEM;
	y = enc->planes.data;
	cb = y + (size_t)w * h;
	cr = cb + (size_t)cw * ch;

	switch ((enum hws__pix_kind)pf->kind) {
	case HWS__PIX_YUV422:
		yuv422_to_planes(t, pf, frame, stride, to_420, y, cb, cr);
		break;
	case HWS__PIX_YUV_PLANAR: {
		/* Under the luma plane, two chroma planes with the stride
		 * subsampled as the samples are (V4L2's single-plane layout). */
		size_t cstride = stride >> xs;
		const uint8_t *c0 = src + stride * h, *c1 = c0 + cstride * ch;

		plane_rows(src, stride, w, h, 1, &y, w, t->full_y, 0, 0);
		chroma_rows(pf->off[2] ? c1 : c0, cstride, cw, ch, 1, &cb, out_cw, t->full_c, rx, ry);
		chroma_rows(pf->off[2] ? c0 : c1, cstride, cw, ch, 1, &cr, out_cw, t->full_c, rx, ry);
		break;
	}
	case HWS__PIX_YUV_SEMI: {
		/* One chroma plane of pairs, as wide in bytes as two samples. */
		size_t cstride = 2 * (stride >> xs);
		uint8_t *pairs[2] = { pf->off[2] ? cr : cb, pf->off[2] ? cb : cr };

		plane_rows(src, stride, w, h, 1, &y, w, t->full_y, 0, 0);
		chroma_rows(src + stride * h, cstride, cw, ch, 2, pairs, out_cw, t->full_c, rx, ry);
		break;
	}
	case HWS__PIX_YUV_WORD: {
		uint8_t *dst[3] = { y, cb, cr };

		hws__word_rows(pf, frame, stride, dst, 1, w);
		plane_rows(y, w, w, h, 1, &y, w, t->full_y, 0, 0);
		chroma_rows(cb, w, w, h, 1, &cb, out_cw, t->full_c, rx, ry);
		chroma_rows(cr, w, w, h, 1, &cr, out_cw, t->full_c, rx, ry);
		break;
	}
	default:
		assert(!"not a YUV format");
		return -EINVAL;
	}
	*ret_planes = (struct hws__planes){
		.plane = { y, cb, cr },
		.stride = { (int)w, (int)out_cw, (int)out_cw },
		.subsamp = to_420 ? TJSAMP_420 : !xs ? TJSAMP_444 : ys ? TJSAMP_420 : TJSAMP_422,
	};
	return 0;
}
