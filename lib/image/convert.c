/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * V4L2 pixel formats to packed RGB24; the YUV ones go through planes.c.
 *
 * Speed matters here (a daemon converts every snapshot), so each layout has
 * its own row loop, specialised at compile time by always_inline helpers
 * called with constant byte offsets: no call per pixel, no floating point,
 * no branch on the format inside a row. The many orders of RGB packed in
 * 8-, 16- and 32-bit words share one loop per word size and endianness,
 * driven by the format's table of field shifts and widths, with the
 * widening looked up: 640x480 RGB565 costs about what YUYV does.
 *
 * YUV is read as BT.601 limited range (Y 16..235, Cb/Cr 16..240), which is
 * what V4L2 capture drivers send for YUYV and friends, in 16.16 fixed point.
 * GREY is taken as full range, as V4L2 defines it.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <linux/videodev2.h>

#include "image/image-internal.h"

#define PF(fcc, k, bytes, tj, ...) \
	{ .fourcc = fcc, .kind = k, .bpp = bytes, .off = { __VA_ARGS__ }, .tj_format = tj }
/* R, G, B (or Y, Cb, Cr) fields of a word: bit shift and width of each. */
#define WORD(fcc, k, bytes, be, s0, b0, s1, b1, s2, b2) \
	{ .fourcc = fcc, .kind = k, .bpp = bytes, .off = { s0, s1, s2 }, .tj_format = -1, \
	  .bits = { b0, b1, b2 }, .big_endian = be }
#define RGBW(fcc, bytes, be, rs, rb, gs, gb, bs, bb) \
	WORD(fcc, HWS__PIX_RGB_WORD, bytes, be, rs, rb, gs, gb, bs, bb)
#define YUVW(fcc, bytes, ys, yb, us, ub, vs, vb) \
	WORD(fcc, HWS__PIX_YUV_WORD, bytes, false, ys, yb, us, ub, vs, vb)
/* Bayer: the column and row of the blue site in the 2x2 tile and, in 16
 * bits, how many of them carry the value. */
#define BAYER8(fcc, bx, by, width) PF(fcc, HWS__PIX_BAYER8, 1, -1, bx, by)
#define BAYER16(fcc, bx, by, width) \
	{ .fourcc = fcc, .kind = HWS__PIX_BAYER16, .bpp = 2, .off = { bx, by, width }, .tj_format = -1 }
/* The four tiles of one depth: BGGR has its blue site top left, RGGB bottom right. */
#define BAYER_TILES(entry, depth)                            \
	entry(V4L2_PIX_FMT_SBGGR##depth, 0, 0, depth),       \
	entry(V4L2_PIX_FMT_SGBRG##depth, 1, 0, depth),       \
	entry(V4L2_PIX_FMT_SGRBG##depth, 0, 1, depth),       \
	entry(V4L2_PIX_FMT_SRGGB##depth, 1, 1, depth)

/*
 * The layouts follow the tables of the V4L2 specification ("Packed RGB
 * Formats", "Packed YUV Formats", "Planar YUV Formats"); a word is read
 * little-endian unless the format's name says BE. Alpha and padding bits
 * are ignored: a frame from a camera is opaque.
 */
static const struct hws__pixfmt pixfmts[] = {
	/* 4:2:2 packed: offsets of Y0, Cb, Y1, Cr in each 4-byte pair */
	PF(V4L2_PIX_FMT_YUYV, HWS__PIX_YUV422, 2, -1, 0, 1, 2, 3),
	PF(V4L2_PIX_FMT_YVYU, HWS__PIX_YUV422, 2, -1, 0, 3, 2, 1),
	PF(V4L2_PIX_FMT_UYVY, HWS__PIX_YUV422, 2, -1, 1, 0, 3, 2),
	PF(V4L2_PIX_FMT_VYUY, HWS__PIX_YUV422, 2, -1, 1, 2, 3, 0),
	/* planar: chroma subsampling x and y shifts, then "Cr first" */
	PF(V4L2_PIX_FMT_YUV420, HWS__PIX_YUV_PLANAR, 1, -1, 1, 1, 0),
	PF(V4L2_PIX_FMT_YVU420, HWS__PIX_YUV_PLANAR, 1, -1, 1, 1, 1),
	PF(V4L2_PIX_FMT_YUV422P, HWS__PIX_YUV_PLANAR, 1, -1, 1, 0, 0),
	PF(V4L2_PIX_FMT_NV12, HWS__PIX_YUV_SEMI, 1, -1, 1, 1, 0),
	PF(V4L2_PIX_FMT_NV21, HWS__PIX_YUV_SEMI, 1, -1, 1, 1, 1),
	PF(V4L2_PIX_FMT_NV16, HWS__PIX_YUV_SEMI, 1, -1, 1, 0, 0),
	PF(V4L2_PIX_FMT_NV61, HWS__PIX_YUV_SEMI, 1, -1, 1, 0, 1),
	PF(V4L2_PIX_FMT_NV24, HWS__PIX_YUV_SEMI, 1, -1, 0, 0, 0),
	PF(V4L2_PIX_FMT_NV42, HWS__PIX_YUV_SEMI, 1, -1, 0, 0, 1),
	/* packed 4:4:4: bytes A Y Cb Cr are bits 0-7 ... 24-31 of the word */
	YUVW(V4L2_PIX_FMT_YUV32, 4, 8, 8, 16, 8, 24, 8),
	YUVW(V4L2_PIX_FMT_AYUV32, 4, 8, 8, 16, 8, 24, 8),
	YUVW(V4L2_PIX_FMT_XYUV32, 4, 8, 8, 16, 8, 24, 8),
	YUVW(V4L2_PIX_FMT_VUYA32, 4, 16, 8, 8, 8, 0, 8),
	YUVW(V4L2_PIX_FMT_VUYX32, 4, 16, 8, 8, 8, 0, 8),
	YUVW(V4L2_PIX_FMT_YUVA32, 4, 0, 8, 8, 8, 16, 8),
	YUVW(V4L2_PIX_FMT_YUVX32, 4, 0, 8, 8, 8, 16, 8),
	YUVW(V4L2_PIX_FMT_YUV444, 2, 8, 4, 4, 4, 0, 4),
	YUVW(V4L2_PIX_FMT_YUV555, 2, 10, 5, 5, 5, 0, 5),
	YUVW(V4L2_PIX_FMT_YUV565, 2, 11, 5, 5, 6, 0, 5),
	PF(V4L2_PIX_FMT_GREY, HWS__PIX_GREY, 1, TJPF_GRAY, 0),
	PF(V4L2_PIX_FMT_Y10, HWS__PIX_GREY16, 2, -1, 10),
	PF(V4L2_PIX_FMT_Y12, HWS__PIX_GREY16, 2, -1, 12),
	PF(V4L2_PIX_FMT_Y16, HWS__PIX_GREY16, 2, -1, 16),
	{ .fourcc = V4L2_PIX_FMT_Y16_BE, .kind = HWS__PIX_GREY16, .bpp = 2, .off = { 16 }, .tj_format = -1,
	  .big_endian = true },
	/* offsets of R, G, B in each pixel; see the V4L2 "Packed RGB" tables */
	PF(V4L2_PIX_FMT_RGB24, HWS__PIX_RGB24, 3, TJPF_RGB, 0, 1, 2),
	PF(V4L2_PIX_FMT_BGR24, HWS__PIX_RGB24, 3, TJPF_BGR, 2, 1, 0),
	PF(V4L2_PIX_FMT_RGB32, HWS__PIX_RGB32, 4, TJPF_XRGB, 1, 2, 3),  /* a r g b */
	PF(V4L2_PIX_FMT_ARGB32, HWS__PIX_RGB32, 4, TJPF_XRGB, 1, 2, 3),
	PF(V4L2_PIX_FMT_XRGB32, HWS__PIX_RGB32, 4, TJPF_XRGB, 1, 2, 3),
	PF(V4L2_PIX_FMT_BGR32, HWS__PIX_RGB32, 4, TJPF_BGRX, 2, 1, 0),  /* b g r a */
	PF(V4L2_PIX_FMT_ABGR32, HWS__PIX_RGB32, 4, TJPF_BGRX, 2, 1, 0),
	PF(V4L2_PIX_FMT_XBGR32, HWS__PIX_RGB32, 4, TJPF_BGRX, 2, 1, 0),
	PF(V4L2_PIX_FMT_RGBA32, HWS__PIX_RGB32, 4, TJPF_RGBX, 0, 1, 2),  /* r g b a */
	PF(V4L2_PIX_FMT_RGBX32, HWS__PIX_RGB32, 4, TJPF_RGBX, 0, 1, 2),
	PF(V4L2_PIX_FMT_BGRA32, HWS__PIX_RGB32, 4, TJPF_XBGR, 3, 2, 1),  /* a b g r */
	PF(V4L2_PIX_FMT_BGRX32, HWS__PIX_RGB32, 4, TJPF_XBGR, 3, 2, 1),
	RGBW(V4L2_PIX_FMT_RGB332, 1, false, 5, 3, 2, 3, 0, 2),
	RGBW(V4L2_PIX_FMT_RGB565, 2, false, 11, 5, 5, 6, 0, 5),
	RGBW(V4L2_PIX_FMT_RGB565X, 2, true, 11, 5, 5, 6, 0, 5),
	RGBW(V4L2_PIX_FMT_RGB555, 2, false, 10, 5, 5, 5, 0, 5),
	RGBW(V4L2_PIX_FMT_XRGB555, 2, false, 10, 5, 5, 5, 0, 5),
	RGBW(V4L2_PIX_FMT_ARGB555, 2, false, 10, 5, 5, 5, 0, 5),
	RGBW(V4L2_PIX_FMT_RGB555X, 2, true, 10, 5, 5, 5, 0, 5),
	RGBW(V4L2_PIX_FMT_XRGB555X, 2, true, 10, 5, 5, 5, 0, 5),
	RGBW(V4L2_PIX_FMT_ARGB555X, 2, true, 10, 5, 5, 5, 0, 5),
	RGBW(V4L2_PIX_FMT_RGBX555, 2, false, 11, 5, 6, 5, 1, 5),
	RGBW(V4L2_PIX_FMT_RGBA555, 2, false, 11, 5, 6, 5, 1, 5),
	RGBW(V4L2_PIX_FMT_XBGR555, 2, false, 0, 5, 5, 5, 10, 5),
	RGBW(V4L2_PIX_FMT_ABGR555, 2, false, 0, 5, 5, 5, 10, 5),
	RGBW(V4L2_PIX_FMT_BGRX555, 2, false, 1, 5, 6, 5, 11, 5),
	RGBW(V4L2_PIX_FMT_BGRA555, 2, false, 1, 5, 6, 5, 11, 5),
	RGBW(V4L2_PIX_FMT_RGB444, 2, false, 8, 4, 4, 4, 0, 4),
	RGBW(V4L2_PIX_FMT_XRGB444, 2, false, 8, 4, 4, 4, 0, 4),
	RGBW(V4L2_PIX_FMT_ARGB444, 2, false, 8, 4, 4, 4, 0, 4),
	RGBW(V4L2_PIX_FMT_RGBX444, 2, false, 12, 4, 8, 4, 4, 4),
	RGBW(V4L2_PIX_FMT_RGBA444, 2, false, 12, 4, 8, 4, 4, 4),
	RGBW(V4L2_PIX_FMT_XBGR444, 2, false, 0, 4, 4, 4, 8, 4),
	RGBW(V4L2_PIX_FMT_ABGR444, 2, false, 0, 4, 4, 4, 8, 4),
	RGBW(V4L2_PIX_FMT_BGRX444, 2, false, 4, 4, 8, 4, 12, 4),
	RGBW(V4L2_PIX_FMT_BGRA444, 2, false, 4, 4, 8, 4, 12, 4),
	/* b5..b0 g5..g0 r5..r0 from the first byte's top bit down */
	RGBW(V4L2_PIX_FMT_BGR666, 4, true, 14, 6, 20, 6, 26, 6),
	BAYER_TILES(BAYER8, 8),
	BAYER_TILES(BAYER16, 10),
	BAYER_TILES(BAYER16, 12),
	BAYER_TILES(BAYER16, 16),
	PF(V4L2_PIX_FMT_MJPEG, HWS__PIX_JPEG, 0, -1, 0),
	PF(V4L2_PIX_FMT_JPEG, HWS__PIX_JPEG, 0, -1, 0),
};

#define N_PIXFMTS (sizeof(pixfmts) / sizeof(pixfmts[0]))

const struct hws__pixfmt *hws__pixfmt_find(uint32_t fourcc)
{
	for (size_t i = 0; i < N_PIXFMTS; i++)
		if (pixfmts[i].fourcc == fourcc)
			return &pixfmts[i];
	return NULL;
}

size_t hws_image_formats(uint32_t *ret_list, size_t max)
{
	for (size_t i = 0; i < N_PIXFMTS && i < max; i++)
		ret_list[i] = pixfmts[i].fourcc;
	return N_PIXFMTS;
}

bool hws__pixfmt_is_yuv(const struct hws__pixfmt *pf)
{
	return pf->kind == HWS__PIX_YUV422 || pf->kind == HWS__PIX_YUV_PLANAR ||
	       pf->kind == HWS__PIX_YUV_SEMI || pf->kind == HWS__PIX_YUV_WORD;
}

int hws__frame_stride(const struct hws__pixfmt *pf, const struct hws_frame *frame,
		      size_t *ret_stride)
{
	size_t row, rows;

	if (!frame->data || frame->width == 0 || frame->height == 0 ||
	    frame->width > HWS__IMAGE_MAX_DIM || frame->height > HWS__IMAGE_MAX_DIM)
		return -EINVAL;
	if (pf->kind == HWS__PIX_JPEG) {
		/* The smallest thing that can be a JPEG: SOI, then a marker. */
		if (frame->size < 4)
			return -EINVAL;
		*ret_stride = 0;
		return 0;
	}
	/* Demosaicing needs a neighbour on each side. */
	if ((pf->kind == HWS__PIX_BAYER8 || pf->kind == HWS__PIX_BAYER16) &&
	    (frame->width < 2 || frame->height < 2))
		return -EINVAL;

	if (pf->kind == HWS__PIX_YUV422)
		row = ((size_t)frame->width + 1) / 2 * 4;
	else
		row = (size_t)frame->width * pf->bpp;
	if (frame->bytesperline != 0) {
		if (frame->bytesperline < row)
			return -EINVAL;
		row = frame->bytesperline;
	}
	rows = frame->height;
	if (pf->kind == HWS__PIX_YUV_PLANAR || pf->kind == HWS__PIX_YUV_SEMI) {
		unsigned xs = pf->off[0], ys = pf->off[1];

		/*
		 * V4L2 defines the chroma planes for whole 2x2 (or 2x1) blocks
		 * only; the chroma rows are the luma stride shifted, two
		 * planes of them (or one of pairs), under the luma plane.
		 */
		if ((frame->width & ((1u << xs) - 1)) || (frame->height & ((1u << ys) - 1)) ||
		    (row & ((1u << xs) - 1)))
			return -EINVAL;
		rows += (size_t)(frame->height >> ys) * 2 >> xs;
	}
	if (frame->size / row < rows)
		return -EINVAL;
	*ret_stride = row;
	return 0;
}

/* ---- YUV 4:2:2 ---------------------------------------------------------- */

/* BT.601, limited range, scaled by 65536: 255/219 and 255/224 times the
 * matrix coefficients 1.402, 0.344136, 0.714136, 1.772. */
#define YUV_Y   76309
#define YUV_RV  104597
#define YUV_GU  25675
#define YUV_GV  53279
#define YUV_BU  132201
#define YUV_HALF 32768

/*
 * Every product is looked up, and so is the clamp: a branch per channel
 * costs three times as much on a noisy picture as on a clean one (the
 * predictor loses), and lookups cost the same on both. Once shifted (an
 * arithmetic shift, as GCC and Clang define it), the sums reach from -277
 * (B of Y 0, Cb 0) to 534 (B of Y 255, Cb 255): the clamp table starts
 * HWS__YUV_CLIP_BIAS entries early and ends after 534.
 */
#define YUV_MIN ((-16 * YUV_Y - 128 * YUV_BU + YUV_HALF) >> 16)
#define YUV_MAX ((239 * YUV_Y + 127 * YUV_BU + YUV_HALF) >> 16)
_Static_assert(YUV_MIN + HWS__YUV_CLIP_BIAS >= 0, "clamp table starts too late");
_Static_assert(YUV_MAX + HWS__YUV_CLIP_BIAS < (int)sizeof(((struct hws__yuv_tables *)0)->clip),
	       "clamp table ends too early");

void hws__yuv_tables_init(struct hws__yuv_tables *t)
{
	for (int i = 0; i < 256; i++) {
		t->y[i] = (i - 16) * YUV_Y;
		t->rv[i] = (i - 128) * YUV_RV + YUV_HALF;
		t->gu[i] = -(i - 128) * YUV_GU;
		t->gv[i] = YUV_HALF - (i - 128) * YUV_GV;
		t->bu[i] = (i - 128) * YUV_BU + YUV_HALF;
	}
	for (int i = 0; i < (int)sizeof(t->clip); i++) {
		int v = i - HWS__YUV_CLIP_BIAS;

		t->clip[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
	}
	/*
	 * JPEG (JFIF) YCbCr is full range, V4L2's is limited: the planes for
	 * JPEG are stretched on the way (Y 16..235 to 0..255, Cb/Cr 16..240 to
	 * 0..255 around 128), or every JPEG would have grey blacks and dull
	 * colours next to the PPM of the same frame. Rounded to nearest.
	 */
	for (int i = 0; i < 256; i++) {
		int y = ((i - 16) * 255 * 2 + 219) / (2 * 219);
		int c = 128 + ((i - 128) * 255 * 2 + (i >= 128 ? 224 : -224)) / (2 * 224);

		t->full_y[i] = (uint8_t)(y < 0 ? 0 : y > 255 ? 255 : y);
		t->full_c[i] = (uint8_t)(c < 0 ? 0 : c > 255 ? 255 : c);
	}
}

ALWAYS_INLINE void yuv422_rows(const struct hws__yuv_tables *t, const struct hws_frame *f,
			       size_t stride, uint8_t *dst, size_t dst_stride, unsigned oy0,
			       unsigned ou, unsigned oy1, unsigned ov)
{
	const uint8_t *row = f->data, *clip = t->clip + HWS__YUV_CLIP_BIAS;
	uint32_t pairs = f->width / 2;

	for (uint32_t j = 0; j < f->height; j++, row += stride, dst += dst_stride) {
		const uint8_t *s = row;
		uint8_t *d = dst;

		for (uint32_t i = 0; i < pairs; i++, s += 4, d += 6) {
			int32_t rv = t->rv[s[ov]], guv = t->gu[s[ou]] + t->gv[s[ov]], bu = t->bu[s[ou]];
			int32_t y0 = t->y[s[oy0]], y1 = t->y[s[oy1]];

			d[0] = clip[(y0 + rv) >> 16];
			d[1] = clip[(y0 + guv) >> 16];
			d[2] = clip[(y0 + bu) >> 16];
			d[3] = clip[(y1 + rv) >> 16];
			d[4] = clip[(y1 + guv) >> 16];
			d[5] = clip[(y1 + bu) >> 16];
		}
		if (f->width & 1) {
			/* An odd last pixel has its pair's chroma to itself. */
			int32_t y0 = t->y[s[oy0]];

			d[0] = clip[(y0 + t->rv[s[ov]]) >> 16];
			d[1] = clip[(y0 + t->gu[s[ou]] + t->gv[s[ov]]) >> 16];
			d[2] = clip[(y0 + t->bu[s[ou]]) >> 16];
		}
	}
}

static void yuv422_to_rgb24(const struct hws__yuv_tables *t, const struct hws__pixfmt *pf,
			    const struct hws_frame *f, size_t stride, uint8_t *dst, size_t dst_stride)
{
	if (pf->off[0] == 0 && pf->off[1] == 1)
		yuv422_rows(t, f, stride, dst, dst_stride, 0, 1, 2, 3);       /* YUYV */
	else if (pf->off[0] == 0)
		yuv422_rows(t, f, stride, dst, dst_stride, 0, 3, 2, 1);       /* YVYU */
	else if (pf->off[1] == 0)
		yuv422_rows(t, f, stride, dst, dst_stride, 1, 0, 3, 2);       /* UYVY */
	else
		yuv422_rows(t, f, stride, dst, dst_stride, 1, 2, 3, 0);       /* VYUY */
}

/* ---- RGB ---------------------------------------------------------------- */

ALWAYS_INLINE void rgb_rows(const struct hws_frame *f, size_t stride, uint8_t *dst,
			    size_t dst_stride, unsigned bpp, unsigned r, unsigned g, unsigned b)
{
	const uint8_t *row = f->data;

	for (uint32_t j = 0; j < f->height; j++, row += stride, dst += dst_stride) {
		const uint8_t *s = row;
		uint8_t *d = dst;

		for (uint32_t i = 0; i < f->width; i++, s += bpp, d += 3) {
			d[0] = s[r];
			d[1] = s[g];
			d[2] = s[b];
		}
	}
}

static void rgb_to_rgb24(const struct hws__pixfmt *pf, const struct hws_frame *f, size_t stride,
			 uint8_t *dst, size_t dst_stride)
{
	const uint8_t *row = f->data;

	if (pf->bpp == 3 && pf->off[0] == 0) {
		for (uint32_t j = 0; j < f->height; j++, row += stride, dst += dst_stride)
			memcpy(dst, row, (size_t)f->width * 3);
		return;
	}
	if (pf->bpp == 3)
		rgb_rows(f, stride, dst, dst_stride, 3, 2, 1, 0);
	else if (pf->off[0] == 0)
		rgb_rows(f, stride, dst, dst_stride, 4, 0, 1, 2);
	else if (pf->off[0] == 1)
		rgb_rows(f, stride, dst, dst_stride, 4, 1, 2, 3);
	else if (pf->off[0] == 2)
		rgb_rows(f, stride, dst, dst_stride, 4, 2, 1, 0);
	else
		rgb_rows(f, stride, dst, dst_stride, 4, 3, 2, 1);
}

/*
 * Narrow fields are widened by repeating their bits below themselves, so
 * that 0 stays 0, the maximum becomes 255, and steps stay even.
 */
static uint8_t widen(unsigned v, unsigned bits)
{
	unsigned out = 0;
	int pos;

	for (pos = 8 - (int)bits; pos > 0; pos -= (int)bits)
		out |= v << pos;
	return (uint8_t)(out | v >> -pos);
}

ALWAYS_INLINE uint32_t read_word(const uint8_t *s, unsigned bytes, bool be)
{
	if (bytes == 1)
		return s[0];
	if (bytes == 2)
		return be ? (uint32_t)s[0] << 8 | s[1] : s[0] | (uint32_t)s[1] << 8;
	return be ? (uint32_t)s[0] << 24 | (uint32_t)s[1] << 16 | (uint32_t)s[2] << 8 | s[3]
		  : s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
}

ALWAYS_INLINE void word_rows(const struct hws__pixfmt *pf, const struct hws_frame *f,
			     size_t stride, uint8_t *const dst[3], size_t step, size_t dst_stride,
			     unsigned bytes, bool be)
{
	uint8_t wide[3][256];
	const uint8_t *row = f->data;

	for (int c = 0; c < 3; c++)
		for (unsigned v = 0; v < (1u << pf->bits[c]); v++)
			wide[c][v] = widen(v, pf->bits[c]);
	for (uint32_t j = 0; j < f->height; j++, row += stride) {
		const uint8_t *s = row;
		uint8_t *d0 = dst[0] + j * dst_stride, *d1 = dst[1] + j * dst_stride;
		uint8_t *d2 = dst[2] + j * dst_stride;

		for (uint32_t i = 0; i < f->width; i++, s += bytes) {
			uint32_t word = read_word(s, bytes, be);

			d0[i * step] = wide[0][(word >> pf->off[0]) & ((1u << pf->bits[0]) - 1)];
			d1[i * step] = wide[1][(word >> pf->off[1]) & ((1u << pf->bits[1]) - 1)];
			d2[i * step] = wide[2][(word >> pf->off[2]) & ((1u << pf->bits[2]) - 1)];
		}
	}
}

void hws__word_rows(const struct hws__pixfmt *pf, const struct hws_frame *frame, size_t stride,
		    uint8_t *const dst[3], size_t step, size_t dst_stride)
{
	assert(pf->kind == HWS__PIX_RGB_WORD || pf->kind == HWS__PIX_YUV_WORD);
	if (pf->bpp == 1)
		word_rows(pf, frame, stride, dst, step, dst_stride, 1, false);
	else if (pf->bpp == 2 && !pf->big_endian)
		word_rows(pf, frame, stride, dst, step, dst_stride, 2, false);
	else if (pf->bpp == 2)
		word_rows(pf, frame, stride, dst, step, dst_stride, 2, true);
	else if (!pf->big_endian)
		word_rows(pf, frame, stride, dst, step, dst_stride, 4, false);
	else
		word_rows(pf, frame, stride, dst, step, dst_stride, 4, true);
}

/* ---- 16-bit samples ----------------------------------------------------- */

/* To 8 bits by their top bits; a sample above its width (noise in the
 * unused bits) saturates. */
static void narrow16(const struct hws_frame *f, size_t stride, unsigned bits, bool be,
		     uint8_t *dst)
{
	const uint8_t *row = f->data;

	for (uint32_t j = 0; j < f->height; j++, row += stride, dst += f->width)
		for (uint32_t i = 0; i < f->width; i++) {
			unsigned v = be ? (unsigned)row[2 * i] << 8 | row[2 * i + 1]
					: row[2 * i] | (unsigned)row[2 * i + 1] << 8;

			v >>= bits - 8;
			dst[i] = (uint8_t)(v > 255 ? 255 : v);
		}
}

/* The samples of a 16-bit frame narrowed into @enc->planes, as a frame of
 * 8-bit samples. */
static int narrowed(struct hws_image_encoder *enc, const struct hws_frame *f, size_t stride,
		    unsigned bits, bool be, struct hws_frame *ret)
{
	if (hws__buf_reserve(&enc->planes, (size_t)f->width * f->height) < 0)
		return -ENOMEM;
	narrow16(f, stride, bits, be, enc->planes.data);
	*ret = *f;
	ret->data = enc->planes.data;
	ret->bytesperline = f->width;
	ret->size = (size_t)f->width * f->height;
	return 0;
}

const uint8_t *hws__frame_to_grey8(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
				   const struct hws_frame *frame, size_t stride, size_t *ret_stride)
{
	struct hws_frame grey;

	assert(pf->kind == HWS__PIX_GREY || pf->kind == HWS__PIX_GREY16);
	if (pf->kind == HWS__PIX_GREY) {
		*ret_stride = stride;
		return frame->data;
	}
	if (narrowed(enc, frame, stride, pf->off[0], pf->big_endian, &grey) < 0)
		return NULL;
	*ret_stride = grey.bytesperline;
	return grey.data;
}

/* ---- Bayer -------------------------------------------------------------- */

/*
 * Bilinear demosaic: the missing colours of a site are the mean of its
 * nearest neighbours of that colour. At the edges the mosaic is mirrored
 * (column -1 reads column 1), which keeps the colour pattern intact.
 */
ALWAYS_INLINE void bayer_site(const uint8_t *up, const uint8_t *cur, const uint8_t *dn,
			      uint32_t x, uint32_t l, uint32_t r, bool green, bool blue_row,
			      uint8_t *d)
{
	if (green) {
		uint8_t h = (uint8_t)((cur[l] + cur[r] + 1) >> 1);
		uint8_t v = (uint8_t)((up[x] + dn[x] + 1) >> 1);

		d[0] = blue_row ? v : h;
		d[1] = cur[x];
		d[2] = blue_row ? h : v;
	} else {
		uint8_t cross = (uint8_t)((up[x] + dn[x] + cur[l] + cur[r] + 2) >> 2);
		uint8_t diag = (uint8_t)((up[l] + up[r] + dn[l] + dn[r] + 2) >> 2);

		d[0] = blue_row ? diag : cur[x];
		d[1] = cross;
		d[2] = blue_row ? cur[x] : diag;
	}
}

/* The inside of a row, two sites at a time so that the colour of each is
 * known at compile time: x = 1, 2 ... w - 2. */
ALWAYS_INLINE uint32_t bayer_inside(const uint8_t *up, const uint8_t *cur, const uint8_t *dn,
				    uint32_t w, bool odd_green, bool blue_row, uint8_t *d)
{
	uint32_t x = 1;

	for (; x + 2 < w; x += 2) {
		bayer_site(up, cur, dn, x, x - 1, x + 1, odd_green, blue_row, d + 3 * x);
		bayer_site(up, cur, dn, x + 1, x, x + 2, !odd_green, blue_row, d + 3 * x + 3);
	}
	return x;
}

static void bayer_row(const uint8_t *up, const uint8_t *cur, const uint8_t *dn, uint32_t w,
		      bool blue_row, unsigned colour_x, uint8_t *d)
{
	bool odd_green = colour_x == 0; /* the colour of odd columns */
	uint32_t x;

	bayer_site(up, cur, dn, 0, 1, 1, !odd_green, blue_row, d);
	if (blue_row)
		x = odd_green ? bayer_inside(up, cur, dn, w, true, true, d)
			      : bayer_inside(up, cur, dn, w, false, true, d);
	else
		x = odd_green ? bayer_inside(up, cur, dn, w, true, false, d)
			      : bayer_inside(up, cur, dn, w, false, false, d);
	for (; x < w - 1; x++)
		bayer_site(up, cur, dn, x, x - 1, x + 1, (x & 1) == odd_green, blue_row, d + 3 * x);
	bayer_site(up, cur, dn, w - 1, w - 2, w - 2, ((w - 1) & 1) == odd_green, blue_row,
		   d + 3 * (w - 1));
}

static void bayer_to_rgb24(const struct hws__pixfmt *pf, const struct hws_frame *f,
			   size_t stride, uint8_t *dst, size_t dst_stride)
{
	const uint8_t *base = f->data;
	unsigned blue_x = pf->off[0], blue_y = pf->off[1];
	uint32_t h = f->height;

	for (uint32_t j = 0; j < h; j++, dst += dst_stride) {
		uint32_t ju = j ? j - 1 : 1, jd = j + 1 < h ? j + 1 : h - 2;
		bool blue_row = (j & 1) == blue_y;
		/* Red sits diagonally from blue: in a red row, the other column. */
		unsigned colour_x = blue_row ? blue_x : 1 - blue_x;

		bayer_row(base + ju * stride, base + j * stride, base + jd * stride, f->width,
			  blue_row, colour_x, dst);
	}
}

/* ---- dispatch ----------------------------------------------------------- */

static void grey_to_rgb24(const uint8_t *row, size_t stride, uint32_t w, uint32_t h,
			  uint8_t *dst, size_t dst_stride)
{
	for (uint32_t j = 0; j < h; j++, row += stride, dst += dst_stride)
		for (uint32_t i = 0; i < w; i++)
			dst[3 * i] = dst[3 * i + 1] = dst[3 * i + 2] = row[i];
}

int hws__frame_to_rgb24(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
			const struct hws_frame *frame, size_t stride,
			uint8_t *dst, size_t dst_stride)
{
	switch ((enum hws__pix_kind)pf->kind) {
	case HWS__PIX_YUV422:
		yuv422_to_rgb24(&enc->yuv, pf, frame, stride, dst, dst_stride);
		return 0;
	case HWS__PIX_YUV_PLANAR:
	case HWS__PIX_YUV_SEMI:
	case HWS__PIX_YUV_WORD: {
		/* TurboJPEG's decoder upsamples the chroma (smoothly, as
		 * libjpeg does) and converts: the same planes JPEG takes. */
		struct hws__planes p;
		tjhandle tj = hws__tj_decompressor(enc);
		int r;

		if (!tj)
			return -ENOMEM;
		r = hws__frame_to_planes(enc, pf, frame, stride, false, &p);
		if (r < 0)
			return r;
		if (tjDecodeYUVPlanes(tj, p.plane, p.stride, p.subsamp, dst, (int)frame->width,
				      (int)dst_stride, (int)frame->height, TJPF_RGB, 0) < 0)
			return -ENOMEM;
		return 0;
	}
	case HWS__PIX_GREY:
	case HWS__PIX_GREY16: {
		size_t grey_stride;
		const uint8_t *grey = hws__frame_to_grey8(enc, pf, frame, stride, &grey_stride);

		if (!grey)
			return -ENOMEM;
		grey_to_rgb24(grey, grey_stride, frame->width, frame->height, dst, dst_stride);
		return 0;
	}
	case HWS__PIX_RGB24:
	case HWS__PIX_RGB32:
		rgb_to_rgb24(pf, frame, stride, dst, dst_stride);
		return 0;
	case HWS__PIX_RGB_WORD: {
		uint8_t *rgb[3] = { dst, dst + 1, dst + 2 };

		hws__word_rows(pf, frame, stride, rgb, 3, dst_stride);
		return 0;
	}
	case HWS__PIX_BAYER8:
		bayer_to_rgb24(pf, frame, stride, dst, dst_stride);
		return 0;
	case HWS__PIX_BAYER16: {
		struct hws_frame mosaic;

		if (narrowed(enc, frame, stride, pf->off[2], false, &mosaic) < 0)
			return -ENOMEM;
		bayer_to_rgb24(pf, &mosaic, mosaic.bytesperline, dst, dst_stride);
		return 0;
	}
	case HWS__PIX_JPEG:
		return hws__jpeg_decode_rgb24(enc, frame, dst, dst_stride);
	}
	assert(!"unknown pixel kind");
	return -EOPNOTSUPP;
}
