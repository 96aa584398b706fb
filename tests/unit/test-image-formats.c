/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every pixel layout lib/image converts, from frames packed here after the
 * V4L2 specification's tables (not after the library's), with known
 * colours: the eight 75% colour bars, in BT.601 limited-range YCbCr, and
 * pure and mixed RGB. A converter with its channels in the wrong order,
 * its bytes in the wrong endianness, its chroma read at the wrong
 * subsampling or its rows at the wrong stride gives other colours than the
 * floating-point BT.601 reference. JPEGs are read back by TurboJPEG's
 * decompressor, which also says at what subsampling they were made.
 */
#include <linux/videodev2.h>
#include <turbojpeg.h>

#include <hwsight/image.h>

#include "task.h"

/* ---- helpers ------------------------------------------------------------ */

/* 75% colour bars, left to right: white, yellow, cyan, green, magenta,
 * red, blue, black, as Y, Cb, Cr (BT.601, limited range). */
static const uint8_t bars[8][3] = {
	{ 180, 128, 128 }, { 162, 44, 142 }, { 131, 156, 44 }, { 112, 72, 58 },
	{ 84, 184, 198 }, { 65, 100, 212 }, { 35, 212, 114 }, { 16, 128, 128 },
};

static void bt601(int y, int u, int v, int *rgb)
{
	double yy = (y - 16) * 255.0 / 219.0;
	double cb = (u - 128) * 255.0 / 224.0, cr = (v - 128) * 255.0 / 224.0;
	double c[3] = { yy + 1.402 * cr, yy - 0.344136 * cb - 0.714136 * cr, yy + 1.772 * cb };

	for (int i = 0; i < 3; i++)
		rgb[i] = c[i] <= 0 ? 0 : c[i] >= 255 ? 255 : (int)(c[i] + 0.5);
}

/* A field of @bits bits widened to 8 by repeating its bits. */
static unsigned widen(unsigned v, unsigned bits)
{
	unsigned out = 0, have = 0;

	for (; have < 8; have += bits)
		out = out << bits | v;
	return out >> (have - 8);
}

static struct hws_image_encoder *new_encoder(void)
{
	struct hws_image_encoder *enc = NULL;

	ASSERT_EQ(hws_image_encoder_new(&enc), 0);
	return enc;
}

static struct hws_image_encoder *new_encoder_420(void)
{
	struct hws_image_encoder *enc = new_encoder();

	ASSERT_EQ(hws_image_encoder_set_chroma(enc, HWS_IMAGE_CHROMA_420), 0);
	return enc;
}

/* The RGB pixels of a frame's PPM, a copy the caller frees. */
static uint8_t *ppm_of(struct hws_image_encoder *enc, const struct hws_frame *f)
{
	char header[32];
	const void *data;
	size_t size;
	int n;
	uint8_t *px;

	ASSERT_EQ(hws_image_encode(enc, f, HWS_IMAGE_PPM, 0, &data, &size), 0);
	n = snprintf(header, sizeof(header), "P6\n%u %u\n255\n", f->width, f->height);
	ASSERT_UL_EQ(size, (size_t)n + (size_t)f->width * f->height * 3);
	ASSERT_EQ(memcmp(data, header, (size_t)n), 0);
	px = malloc(size - (size_t)n);
	ASSERT_NOT_NULL(px);
	memcpy(px, (const uint8_t *)data + n, size - (size_t)n);
	return px;
}

/* The frame's JPEG at @quality decoded to RGB by TurboJPEG with
 * @tj_flags; its subsampling too. */
static uint8_t *jpeg_decoded(struct hws_image_encoder *enc, const struct hws_frame *f, int quality,
			     int tj_flags, int *ret_subsamp)
{
	const void *jpeg;
	size_t size;
	int w, h, cs;
	tjhandle tj = tjInitDecompress();
	uint8_t *px;

	ASSERT_EQ(hws_image_encode(enc, f, HWS_IMAGE_JPEG, quality, &jpeg, &size), 0);
	ASSERT_NOT_NULL(tj);
	ASSERT_EQ(tjDecompressHeader3(tj, jpeg, size, &w, &h, ret_subsamp, &cs), 0);
	ASSERT_EQ(w, (int)f->width);
	ASSERT_EQ(h, (int)f->height);
	px = malloc((size_t)w * h * 3);
	ASSERT_NOT_NULL(px);
	ASSERT_EQ(tjDecompress2(tj, jpeg, size, px, w, 0, h, TJPF_RGB, tj_flags), 0);
	tjDestroy(tj);
	return px;
}

static uint8_t *jpeg_of(struct hws_image_encoder *enc, const struct hws_frame *f, int *ret_subsamp)
{
	return jpeg_decoded(enc, f, 95, 0, ret_subsamp);
}

/* Pixel (x, y) of @px within @tol of @want, channel by channel. */
static void near(const char *what, const uint8_t *px, uint32_t w, uint32_t x, uint32_t y,
		 const int *want, int tol)
{
	const uint8_t *p = px + 3 * ((size_t)y * w + x);

	for (int c = 0; c < 3; c++)
		if (abs(p[c] - want[c]) > tol) {
			fprintf(stderr, "%s: pixel (%u, %u) is %d %d %d, want %d %d %d (+-%d)\n", what, x, y,
				p[0], p[1], p[2], want[0], want[1], want[2], tol);
			ASSERT_LE(abs(p[c] - want[c]), tol);
		}
}

/* ---- planar and semi-planar YUV ----------------------------------------- */

enum { BLOCK = 4, BW = 16, BH = 8, BPL = BW + 8 };

static const struct planar {
	uint32_t fourcc;
	unsigned xs, ys;         /* chroma subsampling: 4:2:0 is 1, 1 */
	bool semi;               /* Cb and Cr interleaved in one plane */
	bool cr_first;
	int subsamp;             /* what the JPEG must be */
} planars[] = {
	{ V4L2_PIX_FMT_YUV420, 1, 1, false, false, TJSAMP_420 },
	{ V4L2_PIX_FMT_YVU420, 1, 1, false, true, TJSAMP_420 },
	{ V4L2_PIX_FMT_YUV422P, 1, 0, false, false, TJSAMP_422 },
	{ V4L2_PIX_FMT_NV12, 1, 1, true, false, TJSAMP_420 },
	{ V4L2_PIX_FMT_NV21, 1, 1, true, true, TJSAMP_420 },
	{ V4L2_PIX_FMT_NV16, 1, 0, true, false, TJSAMP_422 },
	{ V4L2_PIX_FMT_NV61, 1, 0, true, true, TJSAMP_422 },
	{ V4L2_PIX_FMT_NV24, 0, 0, true, false, TJSAMP_444 },
	{ V4L2_PIX_FMT_NV42, 0, 0, true, true, TJSAMP_444 },
};

/* The bar of the 4x4 block a pixel is in: four across, two down. */
static const uint8_t *bar_at(uint32_t x, uint32_t y)
{
	return bars[(y / BLOCK) * (BW / BLOCK) + x / BLOCK];
}

/*
 * A BW x BH frame in @p's layout, rows BPL bytes apart (the padding filled
 * with 0xee, which is no colour of the picture): the Y plane, then for
 * planar formats a Cb and a Cr plane (Cr first for YVU) of rows BPL >> xs
 * bytes, for semi-planar ones a single plane of pairs.
 */
static uint8_t *pack_planar(const struct planar *p, size_t *ret_size)
{
	uint32_t cw = BW >> p->xs, ch = BH >> p->ys;
	size_t cstride = p->semi ? (2 * BPL) >> p->xs : BPL >> p->xs;
	size_t size = (size_t)BPL * BH + cstride * ch * (p->semi ? 1 : 2);
	uint8_t *buf = malloc(size), *c0 = buf + (size_t)BPL * BH, *c1 = c0 + cstride * ch;

	ASSERT_NOT_NULL(buf);
	memset(buf, 0xee, size);
	for (uint32_t y = 0; y < BH; y++)
		for (uint32_t x = 0; x < BW; x++)
			buf[y * BPL + x] = bar_at(x, y)[0];
	for (uint32_t y = 0; y < ch; y++)
		for (uint32_t x = 0; x < cw; x++) {
			const uint8_t *b = bar_at(x << p->xs, y << p->ys);
			uint8_t first = p->cr_first ? b[2] : b[1], second = p->cr_first ? b[1] : b[2];

			if (p->semi) {
				c0[y * cstride + 2 * x] = first;
				c0[y * cstride + 2 * x + 1] = second;
			} else {
				c0[y * cstride + x] = first;
				c1[y * cstride + x] = second;
			}
		}
	*ret_size = size;
	return buf;
}

TEST(planar_yuv_bars)
{
	struct hws_image_encoder *enc = new_encoder(), *enc420 = new_encoder_420();

	for (size_t k = 0; k < sizeof(planars) / sizeof(planars[0]); k++) {
		const struct planar *p = &planars[k];
		char what[32];
		size_t size, size420;
		uint8_t *buf = pack_planar(p, &size), *ppm, *ppm420, *jpg, *jpg420;
		struct hws_frame f = {
			.data = buf, .size = size, .width = BW, .height = BH, .fourcc = p->fourcc,
			.bytesperline = BPL,
		};
		const void *jpeg, *jpeg420;
		int subsamp;

		snprintf(what, sizeof(what), "%.4s PPM", (const char *)&p->fourcc);
		ppm = ppm_of(enc, &f);
		jpg = jpeg_of(enc, &f, &subsamp);
		ASSERT_EQ(subsamp, p->subsamp);
		/* Asked for 4:2:0, every JPEG is; one that was already is the
		 * same file, and PPM is what it was. */
		jpg420 = jpeg_of(enc420, &f, &subsamp);
		ASSERT_EQ(subsamp, TJSAMP_420);
		ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &jpeg, &size), 0);
		ASSERT_EQ(hws_image_encode(enc420, &f, HWS_IMAGE_JPEG, 85, &jpeg420, &size420), 0);
		if (p->subsamp == TJSAMP_420) {
			ASSERT_UL_EQ(size420, size);
			ASSERT_EQ(memcmp(jpeg420, jpeg, size), 0);
		}
		ppm420 = ppm_of(enc420, &f);
		ASSERT_EQ(memcmp(ppm420, ppm, BW * BH * 3), 0);
		free(ppm420);
		/* The inner 2x2 of each block: chroma upsampling blends only
		 * samples of the block itself there. */
		for (uint32_t y = 0; y < BH; y++)
			for (uint32_t x = 0; x < BW; x++) {
				const uint8_t *b = bar_at(x, y);
				int want[3];

				if (x % BLOCK == 0 || x % BLOCK == 3 || y % BLOCK == 0 || y % BLOCK == 3)
					continue;
				bt601(b[0], b[1], b[2], want);
				snprintf(what, sizeof(what), "%.4s PPM", (const char *)&p->fourcc);
				near(what, ppm, BW, x, y, want, 3);
				snprintf(what, sizeof(what), "%.4s JPEG", (const char *)&p->fourcc);
				near(what, jpg, BW, x, y, want, 24);
				snprintf(what, sizeof(what), "%.4s JPEG 4:2:0", (const char *)&p->fourcc);
				near(what, jpg420, BW, x, y, want, 24);
			}
		free(jpg420);
		free(jpg);
		free(ppm);
		free(buf);
	}
	hws_image_encoder_free(enc420);
	hws_image_encoder_free(enc);
}

TEST(planar_yuv_odd_sizes_refused)
{
	struct hws_image_encoder *enc = new_encoder();
	static uint8_t buf[64 * 64 * 3];
	const void *data;
	size_t size;
	struct hws_frame f = { .data = buf, .size = sizeof(buf), .width = 15, .height = 8,
			       .fourcc = V4L2_PIX_FMT_NV12 };

	/* 4:2:0 has no chroma sample for half a block. */
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), -EINVAL);
	f.width = 16, f.height = 7;
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 85, &data, &size), -EINVAL);
	/* 4:2:2 may have an odd height, 4:4:4 anything. */
	f.fourcc = V4L2_PIX_FMT_NV16;
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 85, &data, &size), 0);
	f.fourcc = V4L2_PIX_FMT_NV24, f.width = 15;
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 85, &data, &size), 0);
	/* A frame one byte short of its chroma. */
	f = (struct hws_frame){ .data = buf, .size = 16 * 8 * 3 / 2 - 1, .width = 16, .height = 8,
				.fourcc = V4L2_PIX_FMT_YUV420 };
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), -EINVAL);
	f.size++;
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), 0);
	hws_image_encoder_free(enc);
}

/* ---- packed 4:4:4 YUV ---------------------------------------------------- */

/*
 * Each pixel's bytes as the V4L2 "Packed YUV formats" table draws them,
 * for a pixel of Y, Cb, Cr (alpha and padding 0x5a, which must not show).
 */
static size_t pack_yuv444(uint32_t fourcc, unsigned y, unsigned u, unsigned v, uint8_t *out,
			  unsigned *ret_bits)
{
	const uint8_t a = 0x5a;

	ret_bits[0] = ret_bits[1] = ret_bits[2] = 8;
	switch (fourcc) {
	case V4L2_PIX_FMT_YUV32:
	case V4L2_PIX_FMT_AYUV32:
	case V4L2_PIX_FMT_XYUV32:
		out[0] = a, out[1] = (uint8_t)y, out[2] = (uint8_t)u, out[3] = (uint8_t)v;
		return 4;
	case V4L2_PIX_FMT_VUYA32:
	case V4L2_PIX_FMT_VUYX32:
		out[0] = (uint8_t)v, out[1] = (uint8_t)u, out[2] = (uint8_t)y, out[3] = a;
		return 4;
	case V4L2_PIX_FMT_YUVA32:
	case V4L2_PIX_FMT_YUVX32:
		out[0] = (uint8_t)y, out[1] = (uint8_t)u, out[2] = (uint8_t)v, out[3] = a;
		return 4;
	case V4L2_PIX_FMT_YUV444:     /* Cb3-0 Cr3-0 | a3-0 Y3-0 */
		ret_bits[0] = ret_bits[1] = ret_bits[2] = 4;
		out[0] = (uint8_t)((u >> 4) << 4 | v >> 4);
		out[1] = (uint8_t)(0xa0 | y >> 4);
		return 2;
	case V4L2_PIX_FMT_YUV555:     /* Cb2-0 Cr4-0 | a Y4-0 Cb4-3 */
		ret_bits[0] = ret_bits[1] = ret_bits[2] = 5;
		out[0] = (uint8_t)(((u >> 3) & 7) << 5 | v >> 3);
		out[1] = (uint8_t)(0x80 | (y >> 3) << 2 | u >> 6);
		return 2;
	case V4L2_PIX_FMT_YUV565:     /* Cb2-0 Cr4-0 | Y4-0 Cb5-3 */
		ret_bits[0] = 5, ret_bits[1] = 6, ret_bits[2] = 5;
		out[0] = (uint8_t)(((u >> 2) & 7) << 5 | v >> 3);
		out[1] = (uint8_t)((y >> 3) << 3 | u >> 5);
		return 2;
	}
	ASSERT_TRUE(!"not a packed 4:4:4 format");
	return 0;
}

TEST(packed_yuv444_bars)
{
	static const uint32_t fmts[] = {
		V4L2_PIX_FMT_YUV32, V4L2_PIX_FMT_AYUV32, V4L2_PIX_FMT_XYUV32, V4L2_PIX_FMT_VUYA32,
		V4L2_PIX_FMT_VUYX32, V4L2_PIX_FMT_YUVA32, V4L2_PIX_FMT_YUVX32, V4L2_PIX_FMT_YUV444,
		V4L2_PIX_FMT_YUV555, V4L2_PIX_FMT_YUV565,
	};
	enum { W = 16, H = 2 };
	struct hws_image_encoder *enc = new_encoder();
	uint8_t buf[W * H * 4];

	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		unsigned bits[3];
		size_t bpp = 0;
		int subsamp;
		char what[32];
		uint8_t *ppm, *jpg;

		/* Two pixels a bar. */
		for (uint32_t y = 0; y < H; y++)
			for (uint32_t x = 0; x < W; x++) {
				const uint8_t *b = bars[x / 2];

				bpp = pack_yuv444(fmts[k], b[0], b[1], b[2], buf + (y * W + x) * 4, bits);
			}
		/* Packed with 4-byte steps; squeeze 2-byte pixels together. */
		for (size_t i = 0; bpp == 2 && i < W * H; i++)
			memmove(buf + 2 * i, buf + 4 * i, 2);
		struct hws_frame f = { .data = buf, .size = W * H * bpp, .width = W, .height = H,
				       .fourcc = fmts[k] };

		ppm = ppm_of(enc, &f);
		jpg = jpeg_of(enc, &f, &subsamp);
		ASSERT_EQ(subsamp, TJSAMP_444);
		for (uint32_t x = 0; x < W; x++) {
			const uint8_t *b = bars[x / 2];
			int want[3];

			bt601((int)widen(b[0] >> (8 - bits[0]), bits[0]), (int)widen(b[1] >> (8 - bits[1]), bits[1]),
			      (int)widen(b[2] >> (8 - bits[2]), bits[2]), want);
			snprintf(what, sizeof(what), "%.4s PPM", (const char *)&fmts[k]);
			near(what, ppm, W, x, 1, want, 3);
			snprintf(what, sizeof(what), "%.4s JPEG", (const char *)&fmts[k]);
			near(what, jpg, W, x, 1, want, 24);
		}
		free(jpg);
		free(ppm);
	}
	hws_image_encoder_free(enc);
}

/* ---- 4:2:0 on request ------------------------------------------------------ */

/*
 * A picture whose chroma changes from each sample to the next, down and
 * across, over a luma ramp: averaging the wrong samples, dropping one, or
 * taking a row's luma from its neighbour shows in the colours, which all
 * stay inside the RGB cube, where no clamp hides a difference.
 */
static uint8_t luma_at(uint32_t x, uint32_t y)
{
	return (uint8_t)(60 + 5 * x + 6 * y);
}

/* Cb (@c 0) or Cr (1) of the chroma sample at (@cx, @cy). */
static uint8_t chroma_at(int c, uint32_t cx, uint32_t cy)
{
	static const uint8_t v[2][2][2] = {
		{ { 108, 128 }, { 136, 150 } },
		{ { 150, 132 }, { 112, 100 } },
	};

	return v[c][cy & 1][cx & 1];
}

static const struct chroma_case {
	uint32_t fourcc;
	unsigned xs;             /* 1: 4:2:2, 0: 4:4:4 */
	enum { PACKED, PLANAR, SEMI, WORD } layout;
	uint8_t off[4];          /* PACKED: Y0, Cb, Y1, Cr in the pair; SEMI: Cb, Cr in theirs */
} chroma_cases[] = {
	{ V4L2_PIX_FMT_YUYV, 1, PACKED, { 0, 1, 2, 3 } },
	{ V4L2_PIX_FMT_UYVY, 1, PACKED, { 1, 0, 3, 2 } },
	{ V4L2_PIX_FMT_YVYU, 1, PACKED, { 0, 3, 2, 1 } },
	{ V4L2_PIX_FMT_VYUY, 1, PACKED, { 1, 2, 3, 0 } },
	{ V4L2_PIX_FMT_YUV422P, 1, PLANAR, { 0 } },
	{ V4L2_PIX_FMT_NV16, 1, SEMI, { 0, 1 } },
	{ V4L2_PIX_FMT_NV61, 1, SEMI, { 1, 0 } },
	{ V4L2_PIX_FMT_NV24, 0, SEMI, { 0, 1 } },
	{ V4L2_PIX_FMT_NV42, 0, SEMI, { 1, 0 } },
	{ V4L2_PIX_FMT_YUV32, 0, WORD, { 0 } },   /* bytes A Y Cb Cr */
};

/* The picture in @k's layout, rows packed, in a buffer of exactly the
 * frame's size (so that ASan sees a read beyond it). */
static uint8_t *pack_chroma_case(const struct chroma_case *k, uint32_t w, uint32_t h,
				 size_t *ret_size)
{
	uint32_t cw = (w + k->xs) >> k->xs, pairs = (w + 1) / 2;
	size_t size = k->layout == PACKED ? (size_t)pairs * 4 * h :
		      k->layout == WORD ? (size_t)w * h * 4 : (size_t)w * h + 2 * (size_t)cw * h;
	uint8_t *buf = malloc(size), *c = buf + (size_t)w * h;

	ASSERT_NOT_NULL(buf);
	memset(buf, 0x5a, size);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint8_t luma = luma_at(x, y);
			uint8_t cb = chroma_at(0, x >> k->xs, y), cr = chroma_at(1, x >> k->xs, y);
			size_t i = (size_t)y * cw + (x >> k->xs);
			uint8_t *q = buf + ((size_t)y * pairs + x / 2) * 4;

			switch (k->layout) {
			case PACKED:
				q[k->off[(x & 1) * 2]] = luma;
				q[k->off[1]] = cb;
				q[k->off[3]] = cr;
				break;
			case PLANAR:
				buf[(size_t)y * w + x] = luma;
				c[i] = cb;
				c[(size_t)cw * h + i] = cr;
				break;
			case SEMI:
				buf[(size_t)y * w + x] = luma;
				c[2 * i + k->off[0]] = cb;
				c[2 * i + k->off[1]] = cr;
				break;
			case WORD:
				q = buf + ((size_t)y * w + x) * 4;
				q[1] = luma, q[2] = cb, q[3] = cr;
				break;
			}
		}
	*ret_size = size;
	return buf;
}

/* Pixel (x, y) at 4:2:0: the chroma samples of its 2x2 block (4:4:4) or of
 * its column's two rows (4:2:2) averaged, those the frame has. */
static void colour_420(const struct chroma_case *k, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
		       int *rgb)
{
	uint32_t x0 = k->xs ? x : x & ~1u, x1 = k->xs ? x : x0 + 1, y0 = y & ~1u;
	unsigned sum[2] = { 0, 0 }, n = 0;

	for (uint32_t yy = y0; yy <= y0 + 1 && yy < h; yy++)
		for (uint32_t xx = x0; xx <= x1 && xx < w; xx++, n++)
			for (int c = 0; c < 2; c++)
				sum[c] += chroma_at(c, xx >> k->xs, yy);
	bt601(luma_at(x, y), (int)((sum[0] + n / 2) / n), (int)((sum[1] + n / 2) / n), rgb);
}

TEST(chroma_420_averages)
{
	/* An odd height leaves the last row alone; an odd width, the last
	 * column (V4L2 has no odd width for planar 4:2:2). */
	static const uint32_t sizes[][2] = { { 16, 10 }, { 16, 9 }, { 15, 9 } };
	struct hws_image_encoder *enc = new_encoder_420();

	for (size_t k = 0; k < sizeof(chroma_cases) / sizeof(chroma_cases[0]); k++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			const struct chroma_case *cc = &chroma_cases[k];
			uint32_t w = sizes[s][0], h = sizes[s][1];
			char what[48];
			size_t size;
			uint8_t *buf, *px;
			int subsamp;

			if ((w & 1) && cc->xs && cc->layout != PACKED)
				continue;
			buf = pack_chroma_case(cc, w, h, &size);
			struct hws_frame f = { .data = buf, .size = size, .width = w, .height = h,
					       .fourcc = cc->fourcc };

			/* Quality 100 and no smoothing of the chroma on the way
			 * back: each pixel shows its own chroma sample. */
			px = jpeg_decoded(enc, &f, 100, TJFLAG_FASTUPSAMPLE, &subsamp);
			ASSERT_EQ(subsamp, TJSAMP_420);
			snprintf(what, sizeof(what), "%.4s %ux%u at 4:2:0", (const char *)&cc->fourcc, w, h);
			for (uint32_t y = 0; y < h; y++)
				for (uint32_t x = 0; x < w; x++) {
					int want[3];

					colour_420(cc, w, h, x, y, want);
					near(what, px, w, x, y, want, 4);
				}
			free(px);
			free(buf);
		}
	hws_image_encoder_free(enc);
}

/* ---- RGB in words --------------------------------------------------------- */

/*
 * The fields of each layout as the V4L2 "Packed RGB formats" tables place
 * them in the little-endian (or, for the -BE formats, big-endian) word:
 * shift and width of red, green and blue.
 */
static const struct rgbword {
	uint32_t fourcc;
	unsigned bytes;
	bool be;
	unsigned rs, rb, gs, gb, bs, bb;
} rgbwords[] = {
	{ V4L2_PIX_FMT_RGB332, 1, false, 5, 3, 2, 3, 0, 2 },
	{ V4L2_PIX_FMT_RGB565, 2, false, 11, 5, 5, 6, 0, 5 },
	{ V4L2_PIX_FMT_RGB565X, 2, true, 11, 5, 5, 6, 0, 5 },
	{ V4L2_PIX_FMT_ARGB444, 2, false, 8, 4, 4, 4, 0, 4 },
	{ V4L2_PIX_FMT_XRGB444, 2, false, 8, 4, 4, 4, 0, 4 },
	{ V4L2_PIX_FMT_RGBA444, 2, false, 12, 4, 8, 4, 4, 4 },
	{ V4L2_PIX_FMT_RGBX444, 2, false, 12, 4, 8, 4, 4, 4 },
	{ V4L2_PIX_FMT_ABGR444, 2, false, 0, 4, 4, 4, 8, 4 },
	{ V4L2_PIX_FMT_XBGR444, 2, false, 0, 4, 4, 4, 8, 4 },
	{ V4L2_PIX_FMT_BGRA444, 2, false, 4, 4, 8, 4, 12, 4 },
	{ V4L2_PIX_FMT_BGRX444, 2, false, 4, 4, 8, 4, 12, 4 },
	{ V4L2_PIX_FMT_ARGB555, 2, false, 10, 5, 5, 5, 0, 5 },
	{ V4L2_PIX_FMT_XRGB555, 2, false, 10, 5, 5, 5, 0, 5 },
	{ V4L2_PIX_FMT_RGBA555, 2, false, 11, 5, 6, 5, 1, 5 },
	{ V4L2_PIX_FMT_RGBX555, 2, false, 11, 5, 6, 5, 1, 5 },
	{ V4L2_PIX_FMT_ABGR555, 2, false, 0, 5, 5, 5, 10, 5 },
	{ V4L2_PIX_FMT_XBGR555, 2, false, 0, 5, 5, 5, 10, 5 },
	{ V4L2_PIX_FMT_BGRA555, 2, false, 1, 5, 6, 5, 11, 5 },
	{ V4L2_PIX_FMT_BGRX555, 2, false, 1, 5, 6, 5, 11, 5 },
	{ V4L2_PIX_FMT_RGB555X, 2, true, 10, 5, 5, 5, 0, 5 },
	{ V4L2_PIX_FMT_XRGB555X, 2, true, 10, 5, 5, 5, 0, 5 },
	{ V4L2_PIX_FMT_ARGB555X, 2, true, 10, 5, 5, 5, 0, 5 },
	{ V4L2_PIX_FMT_BGR666, 4, true, 14, 6, 20, 6, 26, 6 },
};

TEST(rgb_word_orders)
{
	/* Primaries, white, black and two mixtures, none symmetric. */
	static const uint8_t colours[][3] = {
		{ 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 255, 255, 255 }, { 0, 0, 0 },
		{ 255, 160, 0 }, { 40, 100, 220 },
	};
	enum { N = sizeof(colours) / sizeof(colours[0]) };
	struct hws_image_encoder *enc = new_encoder();
	uint8_t buf[N * 4];

	for (size_t k = 0; k < sizeof(rgbwords) / sizeof(rgbwords[0]); k++) {
		const struct rgbword *p = &rgbwords[k];
		char what[32];
		uint8_t *ppm;

		for (size_t i = 0; i < N; i++) {
			/* Unused bits set: they must not show. */
			uint32_t word = 0xffffffffu & ~(((1u << p->rb) - 1) << p->rs) &
					~(((1u << p->gb) - 1) << p->gs) & ~(((1u << p->bb) - 1) << p->bs);

			if (p->bytes < 4)
				word &= (1u << (8 * p->bytes)) - 1;
			word |= (uint32_t)(colours[i][0] >> (8 - p->rb)) << p->rs |
				(uint32_t)(colours[i][1] >> (8 - p->gb)) << p->gs |
				(uint32_t)(colours[i][2] >> (8 - p->bb)) << p->bs;
			for (unsigned b = 0; b < p->bytes; b++)
				buf[i * p->bytes + b] = (uint8_t)(word >> 8 * (p->be ? p->bytes - 1 - b : b));
		}
		struct hws_frame f = { .data = buf, .size = N * p->bytes, .width = N, .height = 1,
				       .fourcc = p->fourcc };

		ppm = ppm_of(enc, &f);
		for (uint32_t i = 0; i < N; i++) {
			int want[3] = {
				(int)widen(colours[i][0] >> (8 - p->rb), p->rb),
				(int)widen(colours[i][1] >> (8 - p->gb), p->gb),
				(int)widen(colours[i][2] >> (8 - p->bb), p->bb),
			};

			snprintf(what, sizeof(what), "%.4s%s", (const char *)&p->fourcc, p->be ? "-BE" : "");
			near(what, ppm, N, i, 0, want, 0);
		}
		free(ppm);
	}
	hws_image_encoder_free(enc);
}

/* ---- 16-bit samples ------------------------------------------------------- */

TEST(grey16_exact)
{
	static const struct {
		uint32_t fourcc;
		bool be;
		uint16_t in[4];
	} cases[] = {
		{ V4L2_PIX_FMT_Y10, false, { 0, 1023, 512, 0xfc00 | 1023 } },
		{ V4L2_PIX_FMT_Y12, false, { 0, 4095, 2048, 0xf000 | 4095 } },
		{ V4L2_PIX_FMT_Y16, false, { 0, 65535, 32768, 65535 } },
		{ V4L2_PIX_FMT_Y16_BE, true, { 0, 65535, 32768, 65535 } },
	};
	static const uint8_t want[4] = { 0, 255, 128, 255 };
	struct hws_image_encoder *enc = new_encoder();

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint8_t buf[2 * 4 * 2];
		uint8_t *ppm, *jpg;
		int subsamp;

		for (size_t i = 0; i < 8; i++) {
			uint16_t v = cases[k].in[i % 4];

			buf[2 * i] = (uint8_t)(cases[k].be ? v >> 8 : v);
			buf[2 * i + 1] = (uint8_t)(cases[k].be ? v : v >> 8);
		}
		struct hws_frame f = { .data = buf, .size = sizeof(buf), .width = 4, .height = 2,
				       .fourcc = cases[k].fourcc };

		ppm = ppm_of(enc, &f);
		for (uint32_t i = 0; i < 4; i++) {
			int w3[3] = { want[i], want[i], want[i] };

			near("grey16 PPM", ppm, 4, i, 1, w3, 0);
		}
		jpg = jpeg_of(enc, &f, &subsamp);
		ASSERT_EQ(subsamp, TJSAMP_GRAY);
		free(jpg);
		free(ppm);
	}
	hws_image_encoder_free(enc);
}

TEST(bayer16_flat)
{
	/* One colour over the whole mosaic demosaics to that colour exactly,
	 * in every order; the wrong order would swap red and blue or mix
	 * green in. */
	static const struct {
		uint32_t fourcc;
		unsigned bx, by, bits;   /* the blue site */
	} cases[] = {
		{ V4L2_PIX_FMT_SBGGR10, 0, 0, 10 }, { V4L2_PIX_FMT_SGBRG10, 1, 0, 10 },
		{ V4L2_PIX_FMT_SGRBG10, 0, 1, 10 }, { V4L2_PIX_FMT_SRGGB10, 1, 1, 10 },
		{ V4L2_PIX_FMT_SBGGR12, 0, 0, 12 }, { V4L2_PIX_FMT_SRGGB12, 1, 1, 12 },
		{ V4L2_PIX_FMT_SGBRG16, 1, 0, 16 }, { V4L2_PIX_FMT_SGRBG16, 0, 1, 16 },
	};
	static const int rgb[3] = { 200, 100, 50 };
	enum { W = 8, H = 6 };
	struct hws_image_encoder *enc = new_encoder();

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint8_t buf[W * H * 2];

		for (uint32_t y = 0; y < H; y++)
			for (uint32_t x = 0; x < W; x++) {
				bool bx = (x & 1) == cases[k].bx, by = (y & 1) == cases[k].by;
				int c = bx && by ? 2 : !bx && !by ? 0 : 1;
				unsigned v = (unsigned)rgb[c] << (cases[k].bits - 8);

				buf[2 * (y * W + x)] = (uint8_t)v;
				buf[2 * (y * W + x) + 1] = (uint8_t)(v >> 8);
			}
		struct hws_frame f = { .data = buf, .size = sizeof(buf), .width = W, .height = H,
				       .fourcc = cases[k].fourcc };
		uint8_t *ppm = ppm_of(enc, &f);

		for (uint32_t y = 0; y < H; y++)
			for (uint32_t x = 0; x < W; x++)
				near("bayer16", ppm, W, x, y, rgb, 0);
		free(ppm);
	}
	hws_image_encoder_free(enc);
}

/* ---- the list ------------------------------------------------------------- */

TEST(formats_list)
{
	uint32_t list[256];
	size_t n = hws_image_formats(NULL, 0);
	bool yvu420 = false, nv12 = false;

	ASSERT_UL_GE(n, 80);
	ASSERT_UL_LE(n, 256);
	ASSERT_UL_EQ(hws_image_formats(list, 256), n);
	for (size_t i = 0; i < n; i++) {
		ASSERT_TRUE(hws_image_can_encode(list[i], HWS_IMAGE_JPEG));
		ASSERT_TRUE(hws_image_can_encode(list[i], HWS_IMAGE_PNG));
		for (size_t j = 0; j < i; j++)
			ASSERT_NE(list[i], list[j]);
		yvu420 |= list[i] == V4L2_PIX_FMT_YVU420;
		nv12 |= list[i] == V4L2_PIX_FMT_NV12;
	}
	ASSERT_TRUE(yvu420 && nv12);
	/* A short list is filled as far as it goes. */
	list[1] = 0;
	ASSERT_UL_EQ(hws_image_formats(list, 1), n);
	ASSERT_EQ(list[1], 0);
	ASSERT_FALSE(hws_image_can_encode(V4L2_PIX_FMT_HSV24, HWS_IMAGE_JPEG));
	ASSERT_FALSE(hws_image_can_encode(V4L2_PIX_FMT_H264, HWS_IMAGE_JPEG));
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
