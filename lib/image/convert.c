/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * V4L2 pixel formats to packed RGB24, and 4:2:2 to planes for JPEG.
 *
 * Speed matters here (a daemon converts every snapshot), so each layout has
 * its own row loop, specialised at compile time by always_inline helpers
 * called with constant byte offsets: no call per pixel, no floating point,
 * no branch on the format inside a row.
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

#define ALWAYS_INLINE static inline __attribute__((always_inline))

static const struct hws__pixfmt pixfmts[] = {
	/* 4:2:2 packed: offsets of Y0, Cb, Y1, Cr in each 4-byte pair */
	{ V4L2_PIX_FMT_YUYV, HWS__PIX_YUV422, 2, { 0, 1, 2, 3 }, -1 },
	{ V4L2_PIX_FMT_YVYU, HWS__PIX_YUV422, 2, { 0, 3, 2, 1 }, -1 },
	{ V4L2_PIX_FMT_UYVY, HWS__PIX_YUV422, 2, { 1, 0, 3, 2 }, -1 },
	{ V4L2_PIX_FMT_VYUY, HWS__PIX_YUV422, 2, { 1, 2, 3, 0 }, -1 },
	{ V4L2_PIX_FMT_GREY, HWS__PIX_GREY, 1, { 0 }, TJPF_GRAY },
	/* offsets of R, G, B in each pixel; see the V4L2 "Packed RGB" tables */
	{ V4L2_PIX_FMT_RGB24, HWS__PIX_RGB24, 3, { 0, 1, 2 }, TJPF_RGB },
	{ V4L2_PIX_FMT_BGR24, HWS__PIX_RGB24, 3, { 2, 1, 0 }, TJPF_BGR },
	{ V4L2_PIX_FMT_RGB32, HWS__PIX_RGB32, 4, { 1, 2, 3 }, TJPF_XRGB },  /* a r g b */
	{ V4L2_PIX_FMT_ARGB32, HWS__PIX_RGB32, 4, { 1, 2, 3 }, TJPF_XRGB },
	{ V4L2_PIX_FMT_XRGB32, HWS__PIX_RGB32, 4, { 1, 2, 3 }, TJPF_XRGB },
	{ V4L2_PIX_FMT_BGR32, HWS__PIX_RGB32, 4, { 2, 1, 0 }, TJPF_BGRX },  /* b g r a */
	{ V4L2_PIX_FMT_ABGR32, HWS__PIX_RGB32, 4, { 2, 1, 0 }, TJPF_BGRX },
	{ V4L2_PIX_FMT_XBGR32, HWS__PIX_RGB32, 4, { 2, 1, 0 }, TJPF_BGRX },
	{ V4L2_PIX_FMT_RGBA32, HWS__PIX_RGB32, 4, { 0, 1, 2 }, TJPF_RGBX },  /* r g b a */
	{ V4L2_PIX_FMT_RGBX32, HWS__PIX_RGB32, 4, { 0, 1, 2 }, TJPF_RGBX },
	{ V4L2_PIX_FMT_BGRA32, HWS__PIX_RGB32, 4, { 3, 2, 1 }, TJPF_XBGR },  /* a b g r */
	{ V4L2_PIX_FMT_BGRX32, HWS__PIX_RGB32, 4, { 3, 2, 1 }, TJPF_XBGR },
	/* little-endian 16-bit words, the top bits unused */
	{ V4L2_PIX_FMT_RGB565, HWS__PIX_RGB565, 2, { 0 }, -1 },
	{ V4L2_PIX_FMT_RGB555, HWS__PIX_RGB555, 2, { 0 }, -1 },
	{ V4L2_PIX_FMT_XRGB555, HWS__PIX_RGB555, 2, { 0 }, -1 },
	{ V4L2_PIX_FMT_ARGB555, HWS__PIX_RGB555, 2, { 0 }, -1 },
	{ V4L2_PIX_FMT_RGB444, HWS__PIX_RGB444, 2, { 0 }, -1 },
	{ V4L2_PIX_FMT_XRGB444, HWS__PIX_RGB444, 2, { 0 }, -1 },
	{ V4L2_PIX_FMT_ARGB444, HWS__PIX_RGB444, 2, { 0 }, -1 },
	/* 8-bit Bayer: column and row of the blue site in the 2x2 tile */
	{ V4L2_PIX_FMT_SBGGR8, HWS__PIX_BAYER8, 1, { 0, 0 }, -1 },
	{ V4L2_PIX_FMT_SGBRG8, HWS__PIX_BAYER8, 1, { 1, 0 }, -1 },
	{ V4L2_PIX_FMT_SGRBG8, HWS__PIX_BAYER8, 1, { 0, 1 }, -1 },
	{ V4L2_PIX_FMT_SRGGB8, HWS__PIX_BAYER8, 1, { 1, 1 }, -1 },
	{ V4L2_PIX_FMT_MJPEG, HWS__PIX_JPEG, 0, { 0 }, -1 },
	{ V4L2_PIX_FMT_JPEG, HWS__PIX_JPEG, 0, { 0 }, -1 },
};

const struct hws__pixfmt *hws__pixfmt_find(uint32_t fourcc)
{
	for (size_t i = 0; i < sizeof(pixfmts) / sizeof(pixfmts[0]); i++)
		if (pixfmts[i].fourcc == fourcc)
			return &pixfmts[i];
	return NULL;
}

int hws__frame_stride(const struct hws__pixfmt *pf, const struct hws_frame *frame,
		      size_t *ret_stride)
{
	size_t row;

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
	if (pf->kind == HWS__PIX_BAYER8 && (frame->width < 2 || frame->height < 2))
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
	if (frame->size / row < frame->height)
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

void hws__yuv422_to_planes(const struct hws__yuv_tables *t, const struct hws__pixfmt *pf,
			   const struct hws_frame *frame, size_t stride,
			   uint8_t *y, uint8_t *u, uint8_t *v)
{
	assert(pf->kind == HWS__PIX_YUV422);
	if (pf->off[0] == 0 && pf->off[1] == 1)
		yuv422_split(t, frame, stride, y, u, v, 0, 1, 2, 3);
	else if (pf->off[0] == 0)
		yuv422_split(t, frame, stride, y, u, v, 0, 3, 2, 1);
	else if (pf->off[1] == 0)
		yuv422_split(t, frame, stride, y, u, v, 1, 0, 3, 2);
	else
		yuv422_split(t, frame, stride, y, u, v, 1, 2, 3, 0);
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
 * Narrow fields are widened by repeating their top bits in the new low
 * bits, so that 0 stays 0, the maximum becomes 255, and steps stay even.
 */
ALWAYS_INLINE void rgb16_rows(const struct hws_frame *f, size_t stride, uint8_t *dst,
			      size_t dst_stride, unsigned rbits, unsigned gbits, unsigned bbits)
{
	const uint8_t *row = f->data;
	unsigned gshift = bbits, rshift = bbits + gbits;
	unsigned rmask = (1u << rbits) - 1, gmask = (1u << gbits) - 1, bmask = (1u << bbits) - 1;

	for (uint32_t j = 0; j < f->height; j++, row += stride, dst += dst_stride) {
		const uint8_t *s = row;
		uint8_t *d = dst;

		for (uint32_t i = 0; i < f->width; i++, s += 2, d += 3) {
			unsigned word = s[0] | (unsigned)s[1] << 8;
			unsigned r = (word >> rshift) & rmask;
			unsigned g = (word >> gshift) & gmask;
			unsigned b = word & bmask;

			d[0] = (uint8_t)(r << (8 - rbits) | r >> (2 * rbits - 8));
			d[1] = (uint8_t)(g << (8 - gbits) | g >> (2 * gbits - 8));
			d[2] = (uint8_t)(b << (8 - bbits) | b >> (2 * bbits - 8));
		}
	}
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

int hws__frame_to_rgb24(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
			const struct hws_frame *frame, size_t stride,
			uint8_t *dst, size_t dst_stride)
{
	switch ((enum hws__pix_kind)pf->kind) {
	case HWS__PIX_YUV422:
		yuv422_to_rgb24(&enc->yuv, pf, frame, stride, dst, dst_stride);
		return 0;
	case HWS__PIX_GREY: {
		const uint8_t *row = frame->data;

		for (uint32_t j = 0; j < frame->height; j++, row += stride, dst += dst_stride)
			for (uint32_t i = 0; i < frame->width; i++)
				dst[3 * i] = dst[3 * i + 1] = dst[3 * i + 2] = row[i];
		return 0;
	}
	case HWS__PIX_RGB24:
	case HWS__PIX_RGB32:
		rgb_to_rgb24(pf, frame, stride, dst, dst_stride);
		return 0;
	case HWS__PIX_RGB565:
		rgb16_rows(frame, stride, dst, dst_stride, 5, 6, 5);
		return 0;
	case HWS__PIX_RGB555:
		rgb16_rows(frame, stride, dst, dst_stride, 5, 5, 5);
		return 0;
	case HWS__PIX_RGB444:
		rgb16_rows(frame, stride, dst, dst_stride, 4, 4, 4);
		return 0;
	case HWS__PIX_BAYER8:
		bayer_to_rgb24(pf, frame, stride, dst, dst_stride);
		return 0;
	case HWS__PIX_JPEG:
		return hws__jpeg_decode_rgb24(enc, frame, dst, dst_stride);
	}
	assert(!"unknown pixel kind");
	return -EOPNOTSUPP;
}
