/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Frames to images. Pixels are compared exactly where the mathematics is
 * exact (white and black, bit widening, demosaicing of flat and linear
 * patterns), against the BT.601 formula in floating point elsewhere, and
 * every PNG and JPEG is read back by a decoder that is not ours: libpng,
 * TurboJPEG's decompressor and the djpeg program. Saving is checked on a
 * real directory, a missing one and a tiny full tmpfs.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <linux/videodev2.h>
#include <png.h>
#include <turbojpeg.h>

#include <hwsight/image.h>

#include "task.h"

extern char **environ;

/* ---- helpers ------------------------------------------------------------ */

static uint32_t rng_state = 12345;

static uint8_t rnd8(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return (uint8_t)(rng_state >> 7);
}

static struct hws_frame frame_of(uint32_t fourcc, uint32_t w, uint32_t h, uint32_t bpl,
				 const void *data, size_t size)
{
	return (struct hws_frame){
		.data = data, .size = size, .width = w, .height = h,
		.fourcc = fourcc, .bytesperline = bpl,
	};
}

static struct hws_image_encoder *new_encoder(void)
{
	struct hws_image_encoder *enc = NULL;

	ASSERT_EQ(hws_image_encoder_new(&enc), 0);
	ASSERT_NOT_NULL(enc);
	return enc;
}

/* The RGB bytes of a PPM, after checking its header; a copy the caller frees. */
static uint8_t *ppm_pixels(const void *data, size_t size, uint32_t w, uint32_t h)
{
	char header[64];
	int n = snprintf(header, sizeof(header), "P6\n%u %u\n255\n", w, h);
	uint8_t *px;

	ASSERT_EQ(size, (size_t)n + (size_t)w * h * 3);
	ASSERT_EQ(memcmp(data, header, (size_t)n), 0);
	px = malloc((size_t)w * h * 3);
	ASSERT_NOT_NULL(px);
	memcpy(px, (const uint8_t *)data + n, (size_t)w * h * 3);
	return px;
}

static uint8_t *encode_ppm(struct hws_image_encoder *enc, const struct hws_frame *f)
{
	const void *data;
	size_t size;

	ASSERT_EQ(hws_image_encode(enc, f, HWS_IMAGE_PPM, 0, &data, &size), 0);
	return ppm_pixels(data, size, f->width, f->height);
}

/* A JPEG decoded by TurboJPEG to RGB; a copy the caller frees. */
static uint8_t *tj_decode(const void *jpeg, size_t size, int *ret_w, int *ret_h, int *ret_subsamp)
{
	tjhandle tj = tjInitDecompress();
	int w, h, subsamp, cs;
	uint8_t *px;

	ASSERT_NOT_NULL(tj);
	if (tjDecompressHeader3(tj, jpeg, size, &w, &h, &subsamp, &cs) < 0)
		FAIL("tjDecompressHeader3: %s", tjGetErrorStr2(tj));
	px = malloc((size_t)w * h * 3);
	ASSERT_NOT_NULL(px);
	if (tjDecompress2(tj, jpeg, size, px, w, w * 3, h, TJPF_RGB, 0) < 0)
		FAIL("tjDecompress2: %s", tjGetErrorStr2(tj));
	tjDestroy(tj);
	*ret_w = w;
	*ret_h = h;
	if (ret_subsamp)
		*ret_subsamp = subsamp;
	return px;
}

static double psnr(const uint8_t *a, const uint8_t *b, size_t n)
{
	double se = 0;

	for (size_t i = 0; i < n; i++)
		se += (double)(a[i] - b[i]) * (a[i] - b[i]);
	if (se == 0)
		return 99.0;
	return 10 * log10(255.0 * 255.0 * (double)n / se);
}

/* A smooth 4:2:2 picture: luma ramps along the diagonal, chroma across. */
static uint8_t *yuyv_gradient(uint32_t w, uint32_t h)
{
	uint8_t *p = malloc((size_t)w * h * 2);

	ASSERT_NOT_NULL(p);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x += 2) {
			uint8_t *q = p + (size_t)y * w * 2 + x * 2;

			q[0] = (uint8_t)(16 + 219 * (x + y) / (w + h - 2));
			q[1] = (uint8_t)(48 + 160 * x / w);
			q[2] = (uint8_t)(16 + 219 * (x + 1 + y) / (w + h - 2));
			q[3] = (uint8_t)(208 - 160 * y / h);
		}
	return p;
}

static uint8_t *rgb_gradient(uint32_t w, uint32_t h)
{
	uint8_t *p = malloc((size_t)w * h * 3);

	ASSERT_NOT_NULL(p);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint8_t *q = p + ((size_t)y * w + x) * 3;

			q[0] = (uint8_t)(255 * x / (w - 1));
			q[1] = (uint8_t)(255 * y / (h - 1));
			q[2] = (uint8_t)(255 * (x + y) / (w + h - 2));
		}
	return p;
}

/* The 8-bit mosaic a Bayer sensor with its blue site at (bx, by) sees. */
static uint8_t *mosaic(const uint8_t *rgb, uint32_t w, uint32_t h, unsigned bx, unsigned by)
{
	uint8_t *p = malloc((size_t)w * h);

	ASSERT_NOT_NULL(p);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			const uint8_t *s = rgb + ((size_t)y * w + x) * 3;
			bool blue_row = (y & 1) == by, blue_col = (x & 1) == bx;
			int c = blue_row == blue_col ? (blue_row ? 2 : 0) : 1;

			p[(size_t)y * w + x] = s[c];
		}
	return p;
}

/* BT.601 limited range to 8-bit RGB, in floating point, rounded. */
static void bt601_reference(int y, int u, int v, int *rgb)
{
	double yy = (y - 16) * 255.0 / 219.0;
	double cb = (u - 128) * 255.0 / 224.0, cr = (v - 128) * 255.0 / 224.0;
	double c[3] = {
		yy + 1.402 * cr,
		yy - 0.344136 * cb - 0.714136 * cr,
		yy + 1.772 * cb,
	};

	for (int i = 0; i < 3; i++)
		rgb[i] = c[i] <= 0 ? 0 : c[i] >= 255 ? 255 : (int)(c[i] + 0.5);
}

struct seg {
	size_t at, len; /* the whole segment, marker included */
	uint8_t marker;
};

/* The marker segments of a JPEG up to and including its first SOS. */
static size_t jpeg_segments(const uint8_t *p, size_t n, struct seg *segs, size_t max)
{
	size_t i = 2, k = 0;

	ASSERT_TRUE(n > 4 && p[0] == 0xff && p[1] == 0xd8);
	while (k < max) {
		size_t len;

		ASSERT_TRUE(i + 4 <= n);
		ASSERT_EQ(p[i], 0xff);
		len = (size_t)p[i + 2] << 8 | p[i + 3];
		segs[k++] = (struct seg){ i, len + 2, p[i + 1] };
		if (p[i + 1] == 0xda)
			return k;
		i += len + 2;
	}
	FAIL("more than %zu segments before the scan", max);
}

/* The JPEG without its DHT segments, as some webcams send MJPEG. */
static uint8_t *strip_dht(const uint8_t *p, size_t n, size_t *ret_n)
{
	struct seg segs[32];
	size_t k = jpeg_segments(p, n, segs, 32), o = 2;
	uint8_t *q = malloc(n);

	ASSERT_NOT_NULL(q);
	memcpy(q, p, 2);
	for (size_t i = 0; i < k; i++) {
		if (segs[i].marker == 0xc4)
			continue;
		if (segs[i].marker == 0xda) {
			memcpy(q + o, p + segs[i].at, n - segs[i].at);
			o += n - segs[i].at;
			break;
		}
		memcpy(q + o, p + segs[i].at, segs[i].len);
		o += segs[i].len;
	}
	*ret_n = o;
	return q;
}

/* Every Huffman table in a JPEG's DHT segments, indexed by Tc << 1 | Th. */
struct tables {
	uint8_t bytes[4][17 + 256];
	size_t len[4];
	int n_dht;
};

static void huffman_tables(const uint8_t *p, size_t n, struct tables *t)
{
	struct seg segs[32];
	size_t k = jpeg_segments(p, n, segs, 32);

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < k; i++) {
		const uint8_t *q = p + segs[i].at + 4, *end = p + segs[i].at + segs[i].len;

		if (segs[i].marker != 0xc4)
			continue;
		t->n_dht++;
		while (q < end) {
			size_t count = 0, idx = (size_t)(q[0] >> 4) << 1 | (q[0] & 1);

			for (int j = 1; j <= 16; j++)
				count += q[j];
			ASSERT_TRUE(q + 17 + count <= end);
			memcpy(t->bytes[idx], q, 17 + count);
			t->len[idx] = 17 + count;
			q += 17 + count;
		}
	}
}

static uint8_t *make_jpeg(uint32_t w, uint32_t h, size_t *ret_size)
{
	uint8_t *rgb = rgb_gradient(w, h), *copy;
	tjhandle tj = tjInitCompress();
	unsigned char *jpeg = NULL;
	unsigned long size = 0;

	ASSERT_NOT_NULL(tj);
	ASSERT_EQ(tjCompress2(tj, rgb, (int)w, 0, (int)h, TJPF_RGB, &jpeg, &size, TJSAMP_422, 80, 0), 0);
	copy = malloc(size);
	ASSERT_NOT_NULL(copy);
	memcpy(copy, jpeg, size);
	tjFree(jpeg);
	tjDestroy(tj);
	free(rgb);
	*ret_size = size;
	return copy;
}

static uint8_t *read_file(const char *path, size_t *ret_size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (!f)
		FAIL("%s: %s", path, strerror(errno));
	ASSERT_EQ(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ASSERT_GE(n, 0);
	rewind(f);
	p = malloc((size_t)n + 1);
	ASSERT_NOT_NULL(p);
	ASSERT_EQ(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*ret_size = (size_t)n;
	return p;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT_NOT_NULL(f);
	fputs(text, f);
	ASSERT_EQ(fclose(f), 0);
}

/* The names in @dir, space-separated and sorted, "." and ".." left out. */
static void list_dir(const char *dir, char *out, size_t max)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	ASSERT_GE(n, 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
			if (out[0])
				strncat(out, " ", max - strlen(out) - 1);
			strncat(out, names[i]->d_name, max - strlen(out) - 1);
		}
		free(names[i]);
	}
	free(names);
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

/* ---- names and capabilities -------------------------------------------- */

TEST(type_from_path)
{
	static const struct {
		const char *path;
		int type;
	} ok[] = {
		{ "a.ppm", HWS_IMAGE_PPM },   { "/tmp/x/b.PNG", HWS_IMAGE_PNG },
		{ "c.jpg", HWS_IMAGE_JPEG },  { "dir.d/d.JpEg", HWS_IMAGE_JPEG },
		{ "e.raw", HWS_IMAGE_RAW },   { "f.tar.jpg", HWS_IMAGE_JPEG },
	};
	static const char *const bad[] = {
		"a.gif", "noext", "dir.jpg/file", ".jpg", "a.", "a.jpgx", "",
	};
	enum hws_image_type t;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		t = (enum hws_image_type)-1;
		ASSERT_EQ(hws_image_type_from_path(ok[i].path, &t), 0);
		ASSERT_EQ(t, ok[i].type);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = HWS_IMAGE_RAW;
		ASSERT_EQ(hws_image_type_from_path(bad[i], &t), -EINVAL);
		ASSERT_EQ(t, HWS_IMAGE_RAW); /* untouched on failure */
	}
	ASSERT_EQ(hws_image_type_from_path(NULL, &t), -EINVAL);
	ASSERT_EQ(hws_image_type_from_path("a.ppm", NULL), -EINVAL);
}

TEST(can_encode)
{
	static const uint32_t known[] = {
		V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_UYVY, V4L2_PIX_FMT_GREY, V4L2_PIX_FMT_RGB24,
		V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_RGB565, V4L2_PIX_FMT_RGB555, V4L2_PIX_FMT_RGB444,
		V4L2_PIX_FMT_RGB32, V4L2_PIX_FMT_BGR32, V4L2_PIX_FMT_XRGB32, V4L2_PIX_FMT_XBGR32,
		V4L2_PIX_FMT_ABGR32, V4L2_PIX_FMT_SBGGR8, V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_JPEG,
	};
	uint32_t unknown = V4L2_PIX_FMT_H264;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		for (int t = HWS_IMAGE_PPM; t <= HWS_IMAGE_RAW; t++)
			ASSERT_TRUE(hws_image_can_encode(known[i], (enum hws_image_type)t));
	ASSERT_FALSE(hws_image_can_encode(unknown, HWS_IMAGE_PPM));
	ASSERT_FALSE(hws_image_can_encode(unknown, HWS_IMAGE_PNG));
	ASSERT_FALSE(hws_image_can_encode(unknown, HWS_IMAGE_JPEG));
	ASSERT_TRUE(hws_image_can_encode(unknown, HWS_IMAGE_RAW));
}

/* ---- pixels ------------------------------------------------------------- */

TEST(yuyv_white_black_exact)
{
	/* Row 0: white (Y 235), row 1: black (Y 16), no chroma. */
	static const uint8_t yuyv[] = {
		235, 128, 235, 128, 235, 128, 235, 128,
		16, 128, 16, 128, 16, 128, 16, 128,
	};
	static const char want_header[] = "P6\n4 2\n255\n";
	struct hws_image_encoder *enc = new_encoder();
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, 4, 2, 8, yuyv, sizeof(yuyv));
	const uint8_t *p;
	const void *data;
	size_t size, hl = sizeof(want_header) - 1;

	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), 0);
	ASSERT_EQ(size, hl + 4 * 2 * 3);
	p = data;
	ASSERT_EQ(memcmp(p, want_header, hl), 0);
	for (size_t i = 0; i < 12; i++)
		ASSERT_EQ(p[hl + i], 255);
	for (size_t i = 12; i < 24; i++)
		ASSERT_EQ(p[hl + i], 0);
	hws_image_encoder_free(enc);
}

TEST(yuyv_matches_bt601)
{
	enum { W = 64, H = 64 };
	static uint8_t yuyv[W * H * 2];
	struct hws_image_encoder *enc = new_encoder();
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, W, H, W * 2, yuyv, sizeof(yuyv));
	uint8_t *px;
	int worst = 0;

	for (size_t i = 0; i < sizeof(yuyv); i++)
		yuyv[i] = rnd8();
	/* The corners of the legal range, where rounding and clamping bite. */
	memcpy(yuyv, (const uint8_t[]){ 81, 90, 81, 240, 145, 54, 145, 34, 41, 240, 41, 110 }, 12);
	px = encode_ppm(enc, &f);
	for (size_t j = 0; j < H; j++)
		for (size_t i = 0; i < W; i++) {
			const uint8_t *s = yuyv + j * W * 2 + (i / 2) * 4;
			int want[3];

			bt601_reference(s[(i & 1) * 2], s[1], s[3], want);
			for (int c = 0; c < 3; c++) {
				int d = abs(px[(j * W + i) * 3 + c] - want[c]);

				if (d > worst)
					worst = d;
			}
		}
	printf("largest difference from the BT.601 formula: %d\n", worst);
	ASSERT_LE(worst, 1);
	free(px);
	hws_image_encoder_free(enc);
}

TEST(yuv422_orders)
{
	enum { W = 16, H = 4 };
	static const struct {
		uint32_t fourcc;
		uint8_t y0, u, y1, v;
	} orders[] = {
		{ V4L2_PIX_FMT_YVYU, 0, 3, 2, 1 },
		{ V4L2_PIX_FMT_UYVY, 1, 0, 3, 2 },
		{ V4L2_PIX_FMT_VYUY, 1, 2, 3, 0 },
	};
	static uint8_t yuyv[W * H * 2], other[W * H * 2];
	struct hws_image_encoder *enc = new_encoder();
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, W, H, 0, yuyv, sizeof(yuyv));
	uint8_t *want;

	for (size_t i = 0; i < sizeof(yuyv); i++)
		yuyv[i] = rnd8();
	want = encode_ppm(enc, &f);
	for (size_t k = 0; k < sizeof(orders) / sizeof(orders[0]); k++) {
		for (size_t i = 0; i < sizeof(yuyv); i += 4) {
			other[i + orders[k].y0] = yuyv[i];
			other[i + orders[k].u] = yuyv[i + 1];
			other[i + orders[k].y1] = yuyv[i + 2];
			other[i + orders[k].v] = yuyv[i + 3];
		}
		struct hws_frame g = frame_of(orders[k].fourcc, W, H, 0, other, sizeof(other));
		uint8_t *got = encode_ppm(enc, &g);

		ASSERT_EQ(memcmp(got, want, sizeof(yuyv) / 2 * 3), 0);
		free(got);
	}
	free(want);
	hws_image_encoder_free(enc);
}

TEST(yuyv_odd_width)
{
	/* 3 pixels: a full pair, then one pixel with its pair's chroma. */
	static const uint8_t yuyv[] = { 235, 128, 16, 128, 126, 128, 99, 128 };
	struct hws_image_encoder *enc = new_encoder();
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, 3, 1, 8, yuyv, sizeof(yuyv));
	uint8_t *px = encode_ppm(enc, &f), *dec;
	const void *jpeg;
	size_t size;
	int w, h, ref[3];

	bt601_reference(126, 128, 128, ref);
	ASSERT_EQ(px[0], 255);
	ASSERT_EQ(px[3], 0);
	ASSERT_EQ(px[6], ref[0]);
	ASSERT_EQ(px[8], ref[2]);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 90, &jpeg, &size), 0);
	dec = tj_decode(jpeg, size, &w, &h, NULL);
	ASSERT_EQ(w, 3);
	ASSERT_EQ(h, 1);
	free(dec);
	free(px);
	hws_image_encoder_free(enc);
}

/* The same picture, rows padded with junk, must give the same image. */
TEST(bytesperline_padding)
{
	static const struct {
		uint32_t fourcc;
		uint32_t row; /* bytes of pixels in a 10-pixel row */
	} fmts[] = {
		{ V4L2_PIX_FMT_YUYV, 20 }, { V4L2_PIX_FMT_UYVY, 20 }, { V4L2_PIX_FMT_GREY, 10 },
		{ V4L2_PIX_FMT_RGB24, 30 }, { V4L2_PIX_FMT_BGR24, 30 }, { V4L2_PIX_FMT_XBGR32, 40 },
		{ V4L2_PIX_FMT_RGB565, 20 }, { V4L2_PIX_FMT_SBGGR8, 10 },
	};
	enum { W = 10, H = 6, PAD = 13 };
	struct hws_image_encoder *enc = new_encoder();

	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		uint32_t row = fmts[k].row, bpl = row + PAD;
		uint8_t *packed = malloc(row * H), *padded = malloc(bpl * H), *a, *b;

		ASSERT_NOT_NULL(packed);
		ASSERT_NOT_NULL(padded);
		memset(padded, 0xaa, bpl * H);
		for (uint32_t j = 0; j < H; j++)
			for (uint32_t i = 0; i < row; i++)
				packed[j * row + i] = padded[j * bpl + i] = rnd8();
		struct hws_frame fp = frame_of(fmts[k].fourcc, W, H, row, packed, row * H);
		struct hws_frame fq = frame_of(fmts[k].fourcc, W, H, bpl, padded, bpl * H);
		struct hws_frame f0 = frame_of(fmts[k].fourcc, W, H, 0, packed, row * H);

		a = encode_ppm(enc, &fp);
		b = encode_ppm(enc, &fq);
		ASSERT_EQ(memcmp(a, b, W * H * 3), 0);
		free(b);
		b = encode_ppm(enc, &f0); /* bytesperline 0: packed rows */
		ASSERT_EQ(memcmp(a, b, W * H * 3), 0);
		free(a);
		free(b);
		free(packed);
		free(padded);
	}
	hws_image_encoder_free(enc);
}

TEST(rgb565_exact)
{
	/* Little-endian words: red, green, blue, white, black, mid grey,
	 * and one bit of each (bit widening repeats the top bits). */
	static const uint16_t words[] = { 0xf800, 0x07e0, 0x001f, 0xffff, 0x0000, 0x8410, 0x0821 };
	static const uint8_t want[][3] = {
		{ 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 255, 255, 255 }, { 0, 0, 0 },
		{ 132, 130, 132 }, { 8, 4, 8 },
	};
	enum { N = sizeof(words) / sizeof(words[0]) };
	uint8_t bytes[N * 2];
	struct hws_image_encoder *enc = new_encoder();
	struct hws_frame f = frame_of(V4L2_PIX_FMT_RGB565, N, 1, 0, bytes, sizeof(bytes));
	uint8_t *px;

	for (size_t i = 0; i < N; i++) {
		bytes[2 * i] = (uint8_t)words[i];
		bytes[2 * i + 1] = (uint8_t)(words[i] >> 8);
	}
	px = encode_ppm(enc, &f);
	ASSERT_EQ(memcmp(px, want, sizeof(want)), 0);
	free(px);
	hws_image_encoder_free(enc);
}

TEST(rgb555_rgb444_exact)
{
	/* 555: x r5 g5 b5; 444: x r4 g4 b4. The unused top bits set, to
	 * show they are ignored. */
	static const uint16_t w555[] = { 0xfc00, 0x83e0, 0x801f, 0x4210 };
	static const uint8_t want555[][3] = {
		{ 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 132, 132, 132 },
	};
	static const uint16_t w444[] = { 0xff00, 0xf0f0, 0xf00f, 0x0123 };
	static const uint8_t want444[][3] = {
		{ 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 17, 34, 51 },
	};
	static const uint32_t f555[] = { V4L2_PIX_FMT_RGB555, V4L2_PIX_FMT_XRGB555, V4L2_PIX_FMT_ARGB555 };
	static const uint32_t f444[] = { V4L2_PIX_FMT_RGB444, V4L2_PIX_FMT_XRGB444, V4L2_PIX_FMT_ARGB444 };
	struct hws_image_encoder *enc = new_encoder();
	uint8_t bytes[8];

	for (size_t k = 0; k < 3; k++) {
		for (size_t i = 0; i < 4; i++) {
			bytes[2 * i] = (uint8_t)w555[i];
			bytes[2 * i + 1] = (uint8_t)(w555[i] >> 8);
		}
		struct hws_frame f = frame_of(f555[k], 4, 1, 0, bytes, 8);
		uint8_t *px = encode_ppm(enc, &f);

		ASSERT_EQ(memcmp(px, want555, sizeof(want555)), 0);
		free(px);
		for (size_t i = 0; i < 4; i++) {
			bytes[2 * i] = (uint8_t)w444[i];
			bytes[2 * i + 1] = (uint8_t)(w444[i] >> 8);
		}
		f = frame_of(f444[k], 4, 1, 0, bytes, 8);
		px = encode_ppm(enc, &f);
		ASSERT_EQ(memcmp(px, want444, sizeof(want444)), 0);
		free(px);
	}
	hws_image_encoder_free(enc);
}

TEST(rgb24_rgb32_orders)
{
	/* Where R, G and B sit in each layout, per the V4L2 tables. */
	static const struct {
		uint32_t fourcc;
		unsigned bpp, r, g, b;
	} fmts[] = {
		{ V4L2_PIX_FMT_RGB24, 3, 0, 1, 2 },  { V4L2_PIX_FMT_BGR24, 3, 2, 1, 0 },
		{ V4L2_PIX_FMT_RGB32, 4, 1, 2, 3 },  { V4L2_PIX_FMT_BGR32, 4, 2, 1, 0 },
		{ V4L2_PIX_FMT_XRGB32, 4, 1, 2, 3 }, { V4L2_PIX_FMT_ARGB32, 4, 1, 2, 3 },
		{ V4L2_PIX_FMT_XBGR32, 4, 2, 1, 0 }, { V4L2_PIX_FMT_ABGR32, 4, 2, 1, 0 },
		{ V4L2_PIX_FMT_RGBX32, 4, 0, 1, 2 }, { V4L2_PIX_FMT_RGBA32, 4, 0, 1, 2 },
		{ V4L2_PIX_FMT_BGRX32, 4, 3, 2, 1 }, { V4L2_PIX_FMT_BGRA32, 4, 3, 2, 1 },
	};
	enum { W = 7, H = 3 };
	uint8_t rgb[W * H * 3], src[W * H * 4];
	struct hws_image_encoder *enc = new_encoder();

	for (size_t i = 0; i < sizeof(rgb); i++)
		rgb[i] = rnd8();
	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		unsigned bpp = fmts[k].bpp;

		memset(src, 0x5a, sizeof(src)); /* the unused byte: junk */
		for (size_t i = 0; i < W * H; i++) {
			src[i * bpp + fmts[k].r] = rgb[i * 3];
			src[i * bpp + fmts[k].g] = rgb[i * 3 + 1];
			src[i * bpp + fmts[k].b] = rgb[i * 3 + 2];
		}
		struct hws_frame f = frame_of(fmts[k].fourcc, W, H, 0, src, (size_t)W * H * bpp);
		uint8_t *px = encode_ppm(enc, &f);

		ASSERT_EQ(memcmp(px, rgb, sizeof(rgb)), 0);
		free(px);
	}
	hws_image_encoder_free(enc);
}

TEST(grey_exact)
{
	static const uint8_t grey[] = { 0, 1, 127, 128, 254, 255 };
	struct hws_image_encoder *enc = new_encoder();
	struct hws_frame f = frame_of(V4L2_PIX_FMT_GREY, 3, 2, 3, grey, sizeof(grey));
	uint8_t *px = encode_ppm(enc, &f);

	for (size_t i = 0; i < 6; i++)
		for (size_t c = 0; c < 3; c++)
			ASSERT_EQ(px[i * 3 + c], grey[i]);
	free(px);
	hws_image_encoder_free(enc);
}

static const struct {
	uint32_t fourcc;
	unsigned bx, by; /* the blue site in the 2x2 tile */
} bayer_orders[] = {
	{ V4L2_PIX_FMT_SBGGR8, 0, 0 },
	{ V4L2_PIX_FMT_SGBRG8, 1, 0 },
	{ V4L2_PIX_FMT_SGRBG8, 0, 1 },
	{ V4L2_PIX_FMT_SRGGB8, 1, 1 },
};

TEST(bayer_flat_exact)
{
	/* Odd sizes too: the mirrored edges must keep the pattern. */
	static const uint32_t sizes[][2] = { { 2, 2 }, { 8, 6 }, { 7, 5 }, { 3, 9 } };
	struct hws_image_encoder *enc = new_encoder();

	for (size_t s = 0; s < 4; s++)
		for (size_t k = 0; k < 4; k++) {
			uint32_t w = sizes[s][0], h = sizes[s][1];
			uint8_t *rgb = malloc((size_t)w * h * 3), *raw, *px;

			ASSERT_NOT_NULL(rgb);
			for (size_t i = 0; i < (size_t)w * h; i++) {
				rgb[3 * i] = 200;
				rgb[3 * i + 1] = 100;
				rgb[3 * i + 2] = 30;
			}
			raw = mosaic(rgb, w, h, bayer_orders[k].bx, bayer_orders[k].by);
			struct hws_frame f = frame_of(bayer_orders[k].fourcc, w, h, 0, raw, (size_t)w * h);

			px = encode_ppm(enc, &f);
			ASSERT_EQ(memcmp(px, rgb, (size_t)w * h * 3), 0);
			free(px);
			free(raw);
			free(rgb);
		}
	hws_image_encoder_free(enc);
}

TEST(bayer_ramp_interior)
{
	/* Linear ramps, steps of 4 so every mean is an integer: bilinear
	 * interpolation reproduces them exactly away from the edges. */
	enum { W = 12, H = 10 };
	struct hws_image_encoder *enc = new_encoder();
	uint8_t rgb[W * H * 3];

	for (size_t y = 0; y < H; y++)
		for (size_t x = 0; x < W; x++) {
			rgb[(y * W + x) * 3] = (uint8_t)(10 + 4 * x);
			rgb[(y * W + x) * 3 + 1] = (uint8_t)(20 + 4 * y);
			rgb[(y * W + x) * 3 + 2] = (uint8_t)(30 + 4 * x + 4 * y);
		}
	for (size_t k = 0; k < 4; k++) {
		uint8_t *raw = mosaic(rgb, W, H, bayer_orders[k].bx, bayer_orders[k].by), *px;
		struct hws_frame f = frame_of(bayer_orders[k].fourcc, W, H, W, raw, W * H);

		px = encode_ppm(enc, &f);
		for (size_t y = 1; y < H - 1; y++)
			for (size_t x = 1; x < W - 1; x++)
				for (size_t c = 0; c < 3; c++)
					if (px[(y * W + x) * 3 + c] != rgb[(y * W + x) * 3 + c])
						FAIL("order %zu at (%zu,%zu) channel %zu: %u, want %u", k, x, y,
						     c, px[(y * W + x) * 3 + c], rgb[(y * W + x) * 3 + c]);
		free(px);
		free(raw);
	}
	hws_image_encoder_free(enc);
}

/* ---- PNG ---------------------------------------------------------------- */

TEST(png_matches_ppm)
{
	enum { W = 37, H = 23 };
	static const struct {
		uint32_t fourcc;
		uint32_t bpp;
	} fmts[] = {
		{ V4L2_PIX_FMT_YUYV, 2 }, { V4L2_PIX_FMT_GREY, 1 }, { V4L2_PIX_FMT_RGB24, 3 },
		{ V4L2_PIX_FMT_BGR24, 3 }, { V4L2_PIX_FMT_RGB565, 2 }, { V4L2_PIX_FMT_SBGGR8, 1 },
		{ V4L2_PIX_FMT_XRGB32, 4 },
	};
	struct hws_image_encoder *enc = new_encoder();

	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		/* Odd width: YUYV rows hold a whole last pair; pad them all. */
		uint32_t bpl = (W + 1) * fmts[k].bpp + 8;
		uint8_t *src = malloc((size_t)bpl * H), *want, *got;
		png_image img = { .version = PNG_IMAGE_VERSION };
		const void *data;
		size_t size;

		ASSERT_NOT_NULL(src);
		for (size_t i = 0; i < (size_t)bpl * H; i++)
			src[i] = rnd8();
		struct hws_frame f = frame_of(fmts[k].fourcc, W, H, bpl, src, (size_t)bpl * H);

		want = encode_ppm(enc, &f);
		ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PNG, 0, &data, &size), 0);
		ASSERT_TRUE(png_image_begin_read_from_memory(&img, data, size));
		ASSERT_EQ(img.width, W);
		ASSERT_EQ(img.height, H);
		ASSERT_EQ(!!(img.format & PNG_FORMAT_FLAG_COLOR), fmts[k].fourcc != V4L2_PIX_FMT_GREY);
		img.format = PNG_FORMAT_RGB;
		got = malloc(PNG_IMAGE_SIZE(img));
		ASSERT_NOT_NULL(got);
		ASSERT_TRUE(png_image_finish_read(&img, NULL, got, 0, NULL));
		ASSERT_EQ(memcmp(got, want, W * H * 3), 0);
		free(got);
		free(want);
		free(src);
	}
	hws_image_encoder_free(enc);
}

/* ---- JPEG --------------------------------------------------------------- */

/* The camera's chroma is kept as it is, unless 4:2:0 is asked for (as the
 * live stream does): then the file is 4:2:0, near the PPM still, and
 * smaller. */
TEST(jpeg_yuyv_psnr)
{
	enum { W = 640, H = 480 };
	static const struct {
		enum hws_image_chroma chroma;
		int subsamp;
	} settings[] = {
		{ HWS_IMAGE_CHROMA_SOURCE, TJSAMP_422 }, /* the default, not set */
		{ HWS_IMAGE_CHROMA_420, TJSAMP_420 },
	};
	struct hws_image_encoder *enc = new_encoder();
	uint8_t *yuyv = yuyv_gradient(W, H), *want, *got;
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, W, H, W * 2, yuyv, (size_t)W * H * 2);
	const void *jpeg;
	size_t size, sizes[2];
	int w, h, subsamp;
	double db;

	want = encode_ppm(enc, &f);
	for (size_t k = 0; k < 2; k++) {
		if (k)
			ASSERT_EQ(hws_image_encoder_set_chroma(enc, settings[k].chroma), 0);
		ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &jpeg, &size), 0);
		got = tj_decode(jpeg, size, &w, &h, &subsamp);
		ASSERT_EQ(w, W);
		ASSERT_EQ(h, H);
		ASSERT_EQ(subsamp, settings[k].subsamp);
		db = psnr(got, want, (size_t)W * H * 3);
		printf("YUYV 640x480 q85 at %s: %zu bytes, PSNR %.1f dB\n", k ? "4:2:0" : "4:2:2", size, db);
		ASSERT_GT(db, 30.0);
		sizes[k] = size;
		free(got);
	}
	ASSERT_UL_LE(sizes[1], sizes[0] - sizes[0] / 10);
	free(want);
	free(yuyv);
	hws_image_encoder_free(enc);
}

/* The setting is checked, survives a refusal, and going back to the
 * source's subsampling leaves nothing of 4:2:0 behind. */
TEST(chroma_setting)
{
	enum { W = 64, H = 48 };
	struct hws_image_encoder *enc = new_encoder(), *fresh = new_encoder();
	uint8_t *yuyv = yuyv_gradient(W, H);
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, W, H, 0, yuyv, (size_t)W * H * 2);
	const void *a, *b;
	size_t na, nb;
	int w, h, subsamp;
	uint8_t *px;

	ASSERT_EQ(hws_image_encoder_set_chroma(enc, (enum hws_image_chroma)2), -EINVAL);
	ASSERT_EQ(hws_image_encoder_set_chroma(enc, (enum hws_image_chroma)-1), -EINVAL);
	ASSERT_EQ(hws_image_encoder_set_chroma(NULL, HWS_IMAGE_CHROMA_420), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &a, &na), 0);
	px = tj_decode(a, na, &w, &h, &subsamp);
	ASSERT_EQ(subsamp, TJSAMP_422);
	free(px);

	ASSERT_EQ(hws_image_encoder_set_chroma(enc, HWS_IMAGE_CHROMA_420), 0);
	ASSERT_EQ(hws_image_encoder_set_chroma(enc, (enum hws_image_chroma)2), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &a, &na), 0);
	px = tj_decode(a, na, &w, &h, &subsamp);
	ASSERT_EQ(subsamp, TJSAMP_420);
	free(px);

	ASSERT_EQ(hws_image_encoder_set_chroma(enc, HWS_IMAGE_CHROMA_SOURCE), 0);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &a, &na), 0);
	ASSERT_EQ(hws_image_encode(fresh, &f, HWS_IMAGE_JPEG, 85, &b, &nb), 0);
	ASSERT_UL_EQ(na, nb);
	ASSERT_EQ(memcmp(a, b, na), 0);
	free(yuyv);
	hws_image_encoder_free(fresh);
	hws_image_encoder_free(enc);
}

/* JFIF is full range: a black or white V4L2 frame must stay black or white. */
TEST(jpeg_yuyv_levels)
{
	enum { W = 32, H = 16 };
	static const uint8_t levels[][2] = { { 16, 0 }, { 235, 255 } };
	struct hws_image_encoder *enc = new_encoder();
	uint8_t yuyv[W * H * 2];

	for (size_t k = 0; k < 2; k++) {
		const void *jpeg;
		size_t size;
		uint8_t *px;
		int w, h;

		for (size_t i = 0; i < sizeof(yuyv); i += 2) {
			yuyv[i] = levels[k][0];
			yuyv[i + 1] = 128;
		}
		struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, W, H, 0, yuyv, sizeof(yuyv));

		ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &jpeg, &size), 0);
		px = tj_decode(jpeg, size, &w, &h, NULL);
		for (size_t i = 0; i < (size_t)w * h * 3; i++)
			ASSERT_LE(abs(px[i] - levels[k][1]), 1);
		free(px);
	}
	hws_image_encoder_free(enc);
}

TEST(jpeg_other_formats_psnr)
{
	enum { W = 320, H = 240 };
	static const uint32_t fmts[] = {
		V4L2_PIX_FMT_RGB24, V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_XBGR32, V4L2_PIX_FMT_RGB32,
		V4L2_PIX_FMT_RGB565, V4L2_PIX_FMT_SBGGR8, V4L2_PIX_FMT_GREY, V4L2_PIX_FMT_UYVY,
	};
	struct hws_image_encoder *enc = new_encoder();
	uint8_t *rgb = rgb_gradient(W, H), *src = malloc((size_t)W * H * 4);

	ASSERT_NOT_NULL(src);
	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		size_t n = (size_t)W * H, bytes = 0;
		const void *jpeg;
		uint8_t *want, *got, *tmp = NULL;
		size_t size;
		int w, h, subsamp;
		double db;

		/* Fill the frame with the gradient in that layout. */
		for (size_t i = 0; i < n; i++) {
			const uint8_t *p = rgb + 3 * i;

			switch (fmts[k]) {
			case V4L2_PIX_FMT_RGB24:
				memcpy(src + 3 * i, p, 3);
				bytes = 3 * n;
				break;
			case V4L2_PIX_FMT_BGR24:
				src[3 * i] = p[2], src[3 * i + 1] = p[1], src[3 * i + 2] = p[0];
				bytes = 3 * n;
				break;
			case V4L2_PIX_FMT_XBGR32:
				src[4 * i] = p[2], src[4 * i + 1] = p[1], src[4 * i + 2] = p[0];
				src[4 * i + 3] = 0x77;
				bytes = 4 * n;
				break;
			case V4L2_PIX_FMT_RGB32:
				src[4 * i] = 0x77, src[4 * i + 1] = p[0], src[4 * i + 2] = p[1];
				src[4 * i + 3] = p[2];
				bytes = 4 * n;
				break;
			case V4L2_PIX_FMT_RGB565: {
				unsigned word = (p[0] >> 3) << 11 | (p[1] >> 2) << 5 | p[2] >> 3;

				src[2 * i] = (uint8_t)word, src[2 * i + 1] = (uint8_t)(word >> 8);
				bytes = 2 * n;
				break;
			}
			case V4L2_PIX_FMT_GREY:
				src[i] = p[0];
				bytes = n;
				break;
			case V4L2_PIX_FMT_UYVY:
				src[2 * i] = (i & 1) ? 100 : 160;
				src[2 * i + 1] = (uint8_t)(16 + p[0] * 219 / 255);
				bytes = 2 * n;
				break;
			default:
				break;
			}
		}
		if (fmts[k] == V4L2_PIX_FMT_SBGGR8) {
			tmp = mosaic(rgb, W, H, 0, 0);
			memcpy(src, tmp, n);
			bytes = n;
			free(tmp);
		}
		struct hws_frame f = frame_of(fmts[k], W, H, 0, src, bytes);

		want = encode_ppm(enc, &f);
		ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &jpeg, &size), 0);
		got = tj_decode(jpeg, size, &w, &h, &subsamp);
		ASSERT_EQ(w, W);
		ASSERT_EQ(h, H);
		if (fmts[k] == V4L2_PIX_FMT_GREY)
			ASSERT_EQ(subsamp, TJSAMP_GRAY);
		db = psnr(got, want, n * 3);
		printf("%.4s q85: %zu bytes, PSNR %.1f dB\n", (const char *)&fmts[k], size, db);
		ASSERT_GT(db, 30.0);
		free(got);
		free(want);
	}
	free(src);
	free(rgb);
	hws_image_encoder_free(enc);
}

TEST(jpeg_quality_changes_size)
{
	enum { W = 320, H = 240 };
	struct hws_image_encoder *enc = new_encoder();
	uint8_t *yuyv = yuyv_gradient(W, H);
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, W, H, 0, yuyv, (size_t)W * H * 2);
	const void *data;
	size_t low, high;

	for (size_t i = 0; i < (size_t)W * H * 2; i += 7)
		yuyv[i] ^= rnd8() & 15; /* detail for the quantiser to drop */
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 10, &data, &low), 0);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 95, &data, &high), 0);
	ASSERT_LT(low * 2, high);
	free(yuyv);
	hws_image_encoder_free(enc);
}

TEST(mjpeg_passthrough)
{
	struct hws_image_encoder *enc = new_encoder();
	size_t n, size;
	uint8_t *jpeg = make_jpeg(160, 120, &n), *want, *got;
	struct hws_frame f = frame_of(V4L2_PIX_FMT_MJPEG, 160, 120, 0, jpeg, n);
	const void *data;
	int w, h;

	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), 0);
	ASSERT_EQ(size, n);
	ASSERT_EQ(memcmp(data, jpeg, n), 0);
	ASSERT_PTR_NE(data, jpeg); /* owned by the encoder, as documented */

	/* As PPM and PNG it is decoded. */
	want = tj_decode(jpeg, n, &w, &h, NULL);
	got = encode_ppm(enc, &f);
	ASSERT_EQ(memcmp(got, want, 160 * 120 * 3), 0);
	free(got);
	f.fourcc = V4L2_PIX_FMT_JPEG;
	got = encode_ppm(enc, &f);
	ASSERT_EQ(memcmp(got, want, 160 * 120 * 3), 0);
	free(got);
	free(want);
	free(jpeg);
	hws_image_encoder_free(enc);
}

TEST(mjpeg_dht_inserted)
{
	struct hws_image_encoder *enc = new_encoder();
	size_t n, n_stripped, size;
	uint8_t *jpeg = make_jpeg(160, 120, &n), *stripped = strip_dht(jpeg, n, &n_stripped);
	struct hws_frame f = frame_of(V4L2_PIX_FMT_MJPEG, 160, 120, 0, stripped, n_stripped);
	struct tables std, ours;
	struct seg segs[32];
	size_t k, sos;
	const uint8_t *out;
	const void *data;
	uint8_t *want, *got;
	int w, h;

	huffman_tables(jpeg, n, &std);
	ASSERT_EQ(std.n_dht, 4); /* TurboJPEG writes the Annex K tables, one per DHT */
	huffman_tables(stripped, n_stripped, &ours);
	ASSERT_EQ(ours.n_dht, 0);

	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), 0);
	out = data;
	ASSERT_EQ(size, n_stripped + 420);
	huffman_tables(out, size, &ours);
	ASSERT_EQ(ours.n_dht, 1);
	for (int t = 0; t < 4; t++) {
		ASSERT_EQ(ours.len[t], std.len[t]);
		ASSERT_EQ(memcmp(ours.bytes[t], std.bytes[t], std.len[t]), 0);
	}
	/* Inserted just before the scan; every other byte kept. */
	k = jpeg_segments(stripped, n_stripped, segs, 32);
	sos = segs[k - 1].at;
	ASSERT_EQ(memcmp(out, stripped, sos), 0);
	ASSERT_EQ(out[sos], 0xff);
	ASSERT_EQ(out[sos + 1], 0xc4);
	ASSERT_EQ(memcmp(out + sos + 420, stripped + sos, n_stripped - sos), 0);

	/* The same picture as the frame the tables were taken from. */
	want = tj_decode(jpeg, n, &w, &h, NULL);
	got = tj_decode(out, size, &w, &h, NULL);
	ASSERT_EQ(memcmp(got, want, 160 * 120 * 3), 0);
	free(got);
	got = encode_ppm(enc, &f);
	ASSERT_EQ(memcmp(got, want, 160 * 120 * 3), 0);
	free(got);
	free(want);
	free(stripped);
	free(jpeg);
	hws_image_encoder_free(enc);
}

TEST(bad_input)
{
	enum { W = 8, H = 4 };
	static uint8_t buf[W * H * 4];
	struct hws_image_encoder *enc = new_encoder();
	const void *data = &data;
	size_t size = 12345;
	struct hws_frame f;

	/* Too small for bytesperline * height, or for the packed rows. */
	f = frame_of(V4L2_PIX_FMT_YUYV, W, H, W * 2, buf, W * 2 * H - 1);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PNG, 0, &data, &size), -EINVAL);
	f = frame_of(V4L2_PIX_FMT_RGB24, W, H, 0, buf, W * 3 * H - 1);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EINVAL);
	/* bytesperline shorter than a row */
	f = frame_of(V4L2_PIX_FMT_RGB24, W, H, W * 3 - 1, buf, sizeof(buf));
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EINVAL);
	/* zero width, zero height, no data */
	f = frame_of(V4L2_PIX_FMT_YUYV, 0, H, W * 2, buf, sizeof(buf));
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), -EINVAL);
	f = frame_of(V4L2_PIX_FMT_YUYV, W, 0, W * 2, buf, sizeof(buf));
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PNG, 0, &data, &size), -EINVAL);
	f = frame_of(V4L2_PIX_FMT_YUYV, W, H, W * 2, NULL, sizeof(buf));
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EINVAL);
	/* A Bayer frame needs two rows and two columns to demosaic. */
	f = frame_of(V4L2_PIX_FMT_SBGGR8, 1, H, 0, buf, sizeof(buf));
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EINVAL);
	/* no conversion from H.264 */
	f = frame_of(V4L2_PIX_FMT_H264, W, H, W, buf, sizeof(buf));
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EOPNOTSUPP);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PNG, 0, &data, &size), -EOPNOTSUPP);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), -EOPNOTSUPP);
	/* quality: 1..100 for JPEG, ignored otherwise */
	f = frame_of(V4L2_PIX_FMT_GREY, W, H, 0, buf, W * H);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 0, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 101, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, -5, &data, &size), -EINVAL);
	/* out-parameters untouched by all of the above */
	ASSERT_PTR_EQ(data, &data);
	ASSERT_EQ(size, 12345);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 1, &data, &size), 0);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 100, &data, &size), 0);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), 0);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PNG, 555, &data, &size), 0);
	/* a bad type, missing arguments */
	ASSERT_EQ(hws_image_encode(enc, &f, (enum hws_image_type)42, 85, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(NULL, &f, HWS_IMAGE_PPM, 85, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, NULL, HWS_IMAGE_PPM, 85, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 85, NULL, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 85, &data, NULL), -EINVAL);
	ASSERT_EQ(hws_image_encoder_new(NULL), -EINVAL);
	ASSERT_NULL(hws_image_encoder_free(NULL));
	hws_image_encoder_free(enc);
}

TEST(bad_mjpeg)
{
	struct hws_image_encoder *enc = new_encoder();
	size_t n, size;
	uint8_t *jpeg = make_jpeg(64, 48, &n), junk[256];
	const void *data;
	struct hws_frame f;

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = rnd8();
	junk[0] = 0x12; /* no SOI */
	f = frame_of(V4L2_PIX_FMT_MJPEG, 64, 48, 0, junk, sizeof(junk));
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EINVAL);
	/* Cut off before the scan: no image in it. */
	f = frame_of(V4L2_PIX_FMT_MJPEG, 64, 48, 0, jpeg, 100);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_JPEG, 85, &data, &size), -EINVAL);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PNG, 0, &data, &size), -EINVAL);
	/* A JPEG whose size is not the frame's. */
	f = frame_of(V4L2_PIX_FMT_MJPEG, 640, 480, 0, jpeg, n);
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_PPM, 0, &data, &size), -EINVAL);
	free(jpeg);
	hws_image_encoder_free(enc);
}

TEST(raw_is_the_frame)
{
	uint8_t bytes[100];
	struct hws_image_encoder *enc = new_encoder();
	struct hws_frame f = frame_of(v4l2_fourcc('N', 'V', '1', '2'), 8, 8, 8, bytes, sizeof(bytes));
	const void *data;
	size_t size;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = rnd8();
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_RAW, 0, &data, &size), 0);
	ASSERT_EQ(size, sizeof(bytes));
	ASSERT_EQ(memcmp(data, bytes, sizeof(bytes)), 0);
	ASSERT_PTR_NE(data, bytes);
	f.size = 0;
	ASSERT_EQ(hws_image_encode(enc, &f, HWS_IMAGE_RAW, 0, &data, &size), -EINVAL);
	hws_image_encoder_free(enc);
}

/* One encoder, frames of changing sizes and types: each result must be what
 * a fresh encoder gives (and ASan watches the reused buffers). */
TEST(encoder_reuse)
{
	static const uint32_t sizes[][2] = { { 64, 48 }, { 640, 480 }, { 16, 8 }, { 320, 240 } };
	struct hws_image_encoder *enc = new_encoder();

	for (int round = 0; round < 2; round++)
		for (size_t s = 0; s < 4; s++)
			for (int t = HWS_IMAGE_PPM; t <= HWS_IMAGE_RAW; t++) {
				uint32_t w = sizes[s][0], h = sizes[s][1];
				uint8_t *yuyv = yuyv_gradient(w, h);
				struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, w, h, 0, yuyv,
							      (size_t)w * h * 2);
				struct hws_image_encoder *fresh = new_encoder();
				const void *a, *b;
				size_t na, nb;

				ASSERT_EQ(hws_image_encode(enc, &f, (enum hws_image_type)t, 85, &a, &na), 0);
				ASSERT_EQ(hws_image_encode(fresh, &f, (enum hws_image_type)t, 85, &b, &nb), 0);
				ASSERT_EQ(na, nb);
				ASSERT_EQ(memcmp(a, b, na), 0);
				hws_image_encoder_free(fresh);
				free(yuyv);
			}
	hws_image_encoder_free(enc);
}

/* ---- saving ------------------------------------------------------------- */

TEST(save_complete)
{
	static const struct {
		const char *name;
		enum hws_image_type type;
	} files[] = {
		{ "a.ppm", HWS_IMAGE_PPM }, { "b.png", HWS_IMAGE_PNG },
		{ "c.jpg", HWS_IMAGE_JPEG }, { "d.raw", HWS_IMAGE_RAW },
	};
	enum { W = 160, H = 120 };
	char dir[] = "/tmp/hws-image-XXXXXX", path[512], names[1024], longname[256];
	struct hws_image_encoder *enc = new_encoder();
	uint8_t *yuyv = yuyv_gradient(W, H), *got;
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, W, H, 0, yuyv, (size_t)W * H * 2);
	const void *want;
	size_t size, n;
	struct stat st;

	ASSERT_NOT_NULL(mkdtemp(dir));
	umask(022);
	for (int pass = 0; pass < 2; pass++) /* the second pass replaces */
		for (size_t k = 0; k < 4; k++) {
			snprintf(path, sizeof(path), "%s/%s", dir, files[k].name);
			ASSERT_EQ(hws_image_save(enc, path, &f, files[k].type, 80), 0);
			ASSERT_EQ(hws_image_encode(enc, &f, files[k].type, 80, &want, &size), 0);
			got = read_file(path, &n);
			ASSERT_EQ(n, size);
			ASSERT_EQ(memcmp(got, want, n), 0);
			free(got);
			ASSERT_EQ(stat(path, &st), 0);
			ASSERT_EQ(st.st_mode & 0777, 0644); /* 0666 and the umask, like open() */
			yuyv[0] ^= 0xff; /* a different frame next time */
		}
	list_dir(dir, names, sizeof(names));
	ASSERT_STR_EQ(names, "a.ppm b.png c.jpg d.raw");

	/* A name as long as a name can be: the temporary one is cut short. */
	memset(longname, 'x', 251);
	strcpy(longname + 251, ".ppm");
	snprintf(path, sizeof(path), "%s/%s", dir, longname);
	ASSERT_EQ(hws_image_save(enc, path, &f, HWS_IMAGE_PPM, 0), 0);
	ASSERT_EQ(unlink(path), 0);

	/* A bad frame or quality creates nothing. */
	snprintf(path, sizeof(path), "%s/e.jpg", dir);
	ASSERT_EQ(hws_image_save(enc, path, &f, HWS_IMAGE_JPEG, 0), -EINVAL);
	f.size = 10;
	ASSERT_EQ(hws_image_save(enc, path, &f, HWS_IMAGE_JPEG, 85), -EINVAL);
	ASSERT_EQ(hws_image_save(enc, NULL, &f, HWS_IMAGE_JPEG, 85), -EINVAL);
	ASSERT_EQ(hws_image_save(enc, "", &f, HWS_IMAGE_JPEG, 85), -EINVAL);
	list_dir(dir, names, sizeof(names));
	ASSERT_STR_EQ(names, "a.ppm b.png c.jpg d.raw");

	/* Over a directory: refused, and no temporary left behind. */
	f.size = (size_t)W * H * 2;
	snprintf(path, sizeof(path), "%s/sub", dir);
	ASSERT_EQ(mkdir(path, 0755), 0);
	ASSERT_LT(hws_image_save(enc, path, &f, HWS_IMAGE_PPM, 0), 0);
	ASSERT_EQ(rmdir(path), 0);
	list_dir(dir, names, sizeof(names));
	ASSERT_STR_EQ(names, "a.ppm b.png c.jpg d.raw");

	remove_dir(dir);
	free(yuyv);
	hws_image_encoder_free(enc);
}

TEST(save_no_directory)
{
	char dir[] = "/tmp/hws-image-XXXXXX", path[256];
	struct hws_image_encoder *enc = new_encoder();
	uint8_t grey[16] = { 0 };
	struct hws_frame f = frame_of(V4L2_PIX_FMT_GREY, 4, 4, 0, grey, sizeof(grey));

	ASSERT_NOT_NULL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/missing/a.ppm", dir);
	ASSERT_EQ(hws_image_save(enc, path, &f, HWS_IMAGE_PPM, 0), -ENOENT);
	ASSERT_EQ(rmdir(dir), 0); /* and it is still empty */
	hws_image_encoder_free(enc);
}

TEST(save_full_disk)
{
	enum { W = 320, H = 240 }; /* 230 kB of PPM for a 64 kB file system */
	char dir[] = "/tmp/hws-image-full-XXXXXX", path[256], names[256];
	struct hws_image_encoder *enc = new_encoder();
	uint8_t *rgb = rgb_gradient(W, H), *got;
	struct hws_frame f = frame_of(V4L2_PIX_FMT_RGB24, W, H, 0, rgb, (size_t)W * H * 3);
	size_t n;

	ASSERT_NOT_NULL(mkdtemp(dir));
	/* A mount namespace of our own: the tmpfs goes away with this
	 * process, even if an assertion fails before the umount. */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("none", dir, "tmpfs", 0, "size=64k") < 0) {
		printf("skipped: cannot mount a small tmpfs (%s); run as root to test a full disk\n",
		       strerror(errno));
		rmdir(dir);
		hws_image_encoder_free(enc);
		free(rgb);
		return;
	}
	snprintf(path, sizeof(path), "%s/old.ppm", dir);
	write_text(path, "the previous snapshot");
	ASSERT_EQ(hws_image_save(enc, path, &f, HWS_IMAGE_PPM, 0), -ENOSPC);
	snprintf(path, sizeof(path), "%s/new.ppm", dir);
	ASSERT_EQ(hws_image_save(enc, path, &f, HWS_IMAGE_PPM, 0), -ENOSPC);
	/* The old file whole, no new one, no temporary. */
	list_dir(dir, names, sizeof(names));
	ASSERT_STR_EQ(names, "old.ppm");
	snprintf(path, sizeof(path), "%s/old.ppm", dir);
	got = read_file(path, &n);
	ASSERT_EQ(n, strlen("the previous snapshot"));
	ASSERT_EQ(memcmp(got, "the previous snapshot", n), 0);
	free(got);
	/* What fits still saves. */
	f.width = f.height = 16;
	f.bytesperline = W * 3;
	ASSERT_EQ(hws_image_save(enc, path, &f, HWS_IMAGE_PNG, 0), 0);
	ASSERT_EQ(umount2(dir, MNT_DETACH), 0);
	ASSERT_EQ(rmdir(dir), 0);
	free(rgb);
	hws_image_encoder_free(enc);
}

/* Run djpeg on @jpeg; Return: 1 if it wrote a PPM to @ppm, 0 if djpeg
 * is missing. */
static int run_djpeg(const char *jpeg, const char *ppm)
{
	char *argv[] = { "djpeg", "-pnm", "-outfile", (char *)ppm, (char *)jpeg, NULL };
	pid_t pid;
	int status, r;

	r = posix_spawnp(&pid, "djpeg", NULL, NULL, argv, environ);
	if (r == ENOENT)
		return 0;
	ASSERT_EQ(r, 0);
	while (waitpid(pid, &status, 0) < 0)
		ASSERT_EQ(errno, EINTR);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("djpeg %s: exit status %d", jpeg, status);
	return 1;
}

TEST(djpeg_decodes_saved)
{
	enum { W = 640, H = 480 };
	char dir[] = "/tmp/hws-image-XXXXXX", jpg[256], ppm[256];
	struct hws_image_encoder *enc = new_encoder();
	uint8_t *yuyv = yuyv_gradient(W, H), *want, *file;
	struct hws_frame f = frame_of(V4L2_PIX_FMT_YUYV, W, H, 0, yuyv, (size_t)W * H * 2);
	size_t n, n_jpeg, n_stripped;
	uint8_t *jpeg, *stripped;
	int w, h, off;

	ASSERT_NOT_NULL(mkdtemp(dir));
	snprintf(jpg, sizeof(jpg), "%s/snap.jpg", dir);
	snprintf(ppm, sizeof(ppm), "%s/snap.ppm", dir);
	ASSERT_EQ(hws_image_save(enc, jpg, &f, HWS_IMAGE_JPEG, 85), 0);
	if (!run_djpeg(jpg, ppm)) {
		printf("skipped: djpeg not found (apt install libjpeg-turbo-progs)\n");
		remove_dir(dir);
		free(yuyv);
		hws_image_encoder_free(enc);
		return;
	}
	want = encode_ppm(enc, &f);
	file = read_file(ppm, &n);
	ASSERT_EQ(sscanf((char *)file, "P6 %d %d 255%n", &w, &h, &off), 2);
	ASSERT_EQ(w, W);
	ASSERT_EQ(h, H);
	ASSERT_EQ(n, (size_t)off + 1 + (size_t)W * H * 3);
	printf("djpeg: PSNR %.1f dB\n", psnr(file + off + 1, want, (size_t)W * H * 3));
	ASSERT_GT(psnr(file + off + 1, want, (size_t)W * H * 3), 30.0);
	free(file);
	free(want);

	/* An MJPEG frame without tables, saved: a file djpeg reads. */
	jpeg = make_jpeg(320, 240, &n_jpeg);
	stripped = strip_dht(jpeg, n_jpeg, &n_stripped);
	f = frame_of(V4L2_PIX_FMT_MJPEG, 320, 240, 0, stripped, n_stripped);
	ASSERT_EQ(hws_image_save(enc, jpg, &f, HWS_IMAGE_JPEG, 85), 0);
	ASSERT_EQ(run_djpeg(jpg, ppm), 1);
	file = read_file(jpg, &n);
	ASSERT_EQ(n, n_stripped + 420);
	free(file);
	/* And one with them, saved byte for byte. */
	f = frame_of(V4L2_PIX_FMT_MJPEG, 320, 240, 0, jpeg, n_jpeg);
	ASSERT_EQ(hws_image_save(enc, jpg, &f, HWS_IMAGE_JPEG, 85), 0);
	file = read_file(jpg, &n);
	ASSERT_EQ(n, n_jpeg);
	ASSERT_EQ(memcmp(file, jpeg, n), 0);
	free(file);
	free(stripped);
	free(jpeg);
	remove_dir(dir);
	free(yuyv);
	hws_image_encoder_free(enc);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
