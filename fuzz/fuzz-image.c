/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Camera frames into image files (lib/image/): a frame as a driver hands
 * it over, any of the pixel formats hwsight converts (MJPEG and JPEG among
 * them: their markers are walked to insert missing Huffman tables, and
 * they are decoded for PNG and PPM), with any size, row stride and byte
 * count, encoded as PPM, PNG, JPEG or raw, then again as the next type
 * with the same encoder (its buffers are reused from frame to frame),
 * JPEGs at the source's chroma subsampling or at 4:2:0. What comes out
 * must be a file of that type and of the frame's size.
 *
 * Input: format:1 type:1 (bit 2: 4:2:0) quality:1 width:2 height:2
 * bytesperline:2, then the frame's bytes.
 */
#include <errno.h>
#include <linux/videodev2.h>
#include <turbojpeg.h>

#include <hwsight/image.h>

#include "fuzz.h"

/* Every format the library converts (its own list, so that a new one is
 * fuzzed the day it is added), and two it does not. */
static uint32_t fourccs[256];
static size_t n_fourccs;

static void fill_fourccs(void)
{
	n_fourccs = hws_image_formats(fourccs, sizeof(fourccs) / sizeof(fourccs[0]) - 2);
	if (n_fourccs > sizeof(fourccs) / sizeof(fourccs[0]) - 2)
		abort();
	fourccs[n_fourccs++] = V4L2_PIX_FMT_HSV24;
	fourccs[n_fourccs++] = V4L2_PIX_FMT_H264;
}

static bool is_jpeg(uint32_t fourcc)
{
	return fourcc == V4L2_PIX_FMT_MJPEG || fourcc == V4L2_PIX_FMT_JPEG;
}

static void check_output(const struct hws_frame *frame, enum hws_image_type type, bool to_420,
			 const uint8_t *out, size_t size)
{
	char header[64];
	int n, w = 0, h = 0, subsamp, colorspace;
	tjhandle tj;

	FUZZ_CHECK(out && size > 0, "type %d: nothing", type);
	switch (type) {
	case HWS_IMAGE_RAW:
		FUZZ_CHECK(size == frame->size && !memcmp(out, frame->data, size), "raw: not the frame");
		break;
	case HWS_IMAGE_PPM:
		n = snprintf(header, sizeof(header), "P6\n%u %u\n255\n", frame->width, frame->height);
		FUZZ_CHECK(size == (size_t)n + (size_t)frame->width * frame->height * 3 &&
			   !memcmp(out, header, (size_t)n), "PPM of %ux%u: %zu bytes", frame->width,
			   frame->height, size);
		break;
	case HWS_IMAGE_PNG:
		FUZZ_CHECK(size > 24 && !memcmp(out, "\x89PNG\r\n\x1a\n", 8) && !memcmp(out + 12, "IHDR", 4),
			   "PNG: no signature and header");
		w = out[16] << 24 | out[17] << 16 | out[18] << 8 | out[19];
		h = out[20] << 24 | out[21] << 16 | out[22] << 8 | out[23];
		FUZZ_CHECK((uint32_t)w == frame->width && (uint32_t)h == frame->height,
			   "PNG of %ux%u says %dx%d", frame->width, frame->height, w, h);
		break;
	case HWS_IMAGE_JPEG:
		FUZZ_CHECK(size >= 4 && out[0] == 0xff && out[1] == 0xd8, "JPEG: no SOI");
		if (is_jpeg(frame->fourcc))
			break;  /* the frame's own bytes, tables added */
		tj = tjInitDecompress();
		FUZZ_CHECK(tj, "tjInitDecompress");
		n = tjDecompressHeader3(tj, out, size, &w, &h, &subsamp, &colorspace);
		tjDestroy(tj);
		FUZZ_CHECK(n == 0 && (uint32_t)w == frame->width && (uint32_t)h == frame->height,
			   "JPEG of %ux%u says %dx%d (%d)", frame->width, frame->height, w, h, n);
		FUZZ_CHECK(!to_420 || subsamp == TJSAMP_420 || subsamp == TJSAMP_GRAY,
			   "%.4s asked for 4:2:0 is subsampled %d", (const char *)&frame->fourcc, subsamp);
		break;
	}
}

static void encode(struct hws_image_encoder *enc, const struct hws_frame *frame, enum hws_image_type type,
		   bool to_420, int quality)
{
	const void *out = NULL;
	size_t size = 0;
	int r;

	r = hws_image_encode(enc, frame, type, quality, &out, &size);
	if (r == -EOPNOTSUPP) {
		FUZZ_CHECK(!hws_image_can_encode(frame->fourcc, type), "%.4s to %d: -EOPNOTSUPP, yet can encode",
			   (const char *)&frame->fourcc, type);
		return;
	}
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL, "%.4s %ux%u to %d: %d", (const char *)&frame->fourcc, frame->width,
			   frame->height, type, r);
		return;
	}
	FUZZ_CHECK(hws_image_can_encode(frame->fourcc, type), "%.4s to %d: encoded, yet cannot encode",
		   (const char *)&frame->fourcc, type);
	check_output(frame, type, to_420, out, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct hws_image_encoder *enc;
	struct hws_frame frame = { 0 };
	enum hws_image_type type;
	bool to_420;
	unsigned t;
	int quality;

	if (!n_fourccs)
		fill_fourccs();
	frame.fourcc = fourccs[fuzz_take(&in, 1) % n_fourccs];
	t = (unsigned)fuzz_take(&in, 1);
	type = (enum hws_image_type)(t % 4);
	to_420 = t & 4;
	quality = (int)fuzz_take(&in, 1) % 102;
	frame.width = (uint32_t)fuzz_take(&in, 2);
	frame.height = (uint32_t)fuzz_take(&in, 2);
	frame.bytesperline = (uint32_t)fuzz_take(&in, 2);
	/* A copy of its own, so that ASan sees a read past the frame. */
	frame.size = in.n;
	frame.data = in.n ? fuzz_string(in.p, in.n) : NULL;
	/*
	 * A JPEG header can claim any size up to the library's 16384x16384
	 * with a few bytes; decoding one that big takes 800 MB and minutes.
	 * The size checks themselves are still fuzzed beyond the limit.
	 */
	if (is_jpeg(frame.fourcc) && frame.width <= 16384 && frame.height <= 16384 &&
	    (uint64_t)frame.width * frame.height > (1u << 22)) {
		free((void *)frame.data);
		return 0;
	}

	if (hws_image_encoder_new(&enc) < 0 ||
	    hws_image_encoder_set_chroma(enc, to_420 ? HWS_IMAGE_CHROMA_420 : HWS_IMAGE_CHROMA_SOURCE) < 0)
		abort();
	encode(enc, &frame, type, to_420, quality);
	encode(enc, &frame, (type + 1) % 4, to_420, quality ? quality : 85);
	hws_image_encoder_free(enc);
	free((void *)frame.data);
	return 0;
}
