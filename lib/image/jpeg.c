/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JPEG through libturbojpeg, and MJPEG frames passed through.
 *
 * Each source layout takes the shortest road into the codec:
 *  - YUV of every layout (packed 4:2:2 such as YUYV, planar YU12, YV12,
 *    422P, semi-planar NV12, NV21, NV16 ..., packed 4:4:4) is only taken
 *    apart into Y, Cb and Cr planes (planes.c) and compressed from them
 *    at its own subsampling: no colour conversion, no chroma resampling,
 *    and about half the work of going through RGB (what fswebcam does);
 *  - GREY is compressed as a one-component image, straight from the frame
 *    (16-bit grey narrowed first);
 *  - 24- and 32-bit RGB are handed to TurboJPEG as they are, rows padded or
 *    not, and subsampled 4:2:0 as cameras and other tools do;
 *  - the rest (16-bit and smaller RGB, Bayer) is converted to RGB24 first.
 *
 * MJPEG from many webcams leaves out the Huffman tables (DHT), relying on
 * the decoder to assume the example tables of ITU-T T.81 Annex K, as the
 * AVI MJPEG convention says. A file must carry them, so a frame without
 * DHT gets them inserted before its first scan; every other byte is kept.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "image/image-internal.h"

/* ---- the Annex K tables ------------------------------------------------- */

struct huff_table {
	uint8_t class_id;        /* Tc << 4 | Th: 0x00 DC0, 0x10 AC0, 0x01 DC1, 0x11 AC1 */
	uint8_t counts[16];      /* number of codes of each length 1..16 */
	const uint8_t *values;   /* symbols in order of increasing code length */
};

/* Table K.3: luminance DC differences. Table K.4: chrominance. */
static const uint8_t dc_values[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };

/* Table K.5: luminance AC coefficients, run/size symbols by code length. */
static const uint8_t ac_luma_values[162] = {
	0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06,
	0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08,
	0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
	0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
	0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45,
	0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
	0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75,
	0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
	0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
	0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
	0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
	0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
	0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4,
	0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
};

/* Table K.6: chrominance AC coefficients. */
static const uint8_t ac_chroma_values[162] = {
	0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41,
	0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91,
	0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1,
	0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
	0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44,
	0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
	0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74,
	0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
	0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a,
	0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4,
	0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
	0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
	0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4,
	0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
};

/* Luminance uses tables 0, chrominance tables 1, as in every MJPEG frame. */
static const struct huff_table std_tables[4] = {
	{ 0x00, { 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0 }, dc_values },
	{ 0x10, { 0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d }, ac_luma_values },
	{ 0x01, { 0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0 }, dc_values },
	{ 0x11, { 0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77 }, ac_chroma_values },
};

/* FF C4, a 2-byte length, then per table: Tc/Th, 16 counts, 12 or 162 symbols. */
#define STD_DHT_SIZE (2 + 2 + 4 * (1 + 16) + 2 * 12 + 2 * 162)

static size_t put_std_dht(uint8_t *d)
{
	uint8_t *p = d;

	*p++ = 0xff;
	*p++ = 0xc4;
	*p++ = (STD_DHT_SIZE - 2) >> 8;
	*p++ = (STD_DHT_SIZE - 2) & 0xff;
	for (size_t t = 0; t < 4; t++) {
		size_t n = 0;

		*p++ = std_tables[t].class_id;
		for (size_t i = 0; i < 16; i++) {
			*p++ = std_tables[t].counts[i];
			n += std_tables[t].counts[i];
		}
		memcpy(p, std_tables[t].values, n);
		p += n;
	}
	return (size_t)(p - d);
}

/*
 * find_tables - walk the markers of a JPEG up to its first scan
 * Return: 0 if there is a DHT before the scan, 1 if not (@ret_sos is where
 * the SOS marker starts), -EINVAL if the bytes are not a JPEG image.
 */
static int find_tables(const uint8_t *p, size_t n, size_t *ret_sos)
{
	size_t i = 2;

	if (n < 4 || p[0] != 0xff || p[1] != 0xd8)
		return -EINVAL;
	for (;;) {
		size_t start = i, len;
		uint8_t m;

		if (i >= n || p[i] != 0xff)
			return -EINVAL;
		while (i < n && p[i] == 0xff) /* fill bytes */
			i++;
		if (i >= n)
			return -EINVAL;
		m = p[i++];
		if (m == 0x00 || m == 0xd8 || m == 0xd9) /* no image before the scan */
			return -EINVAL;
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd7)) /* markers without a length */
			continue;
		if (n - i < 2)
			return -EINVAL;
		len = (size_t)p[i] << 8 | p[i + 1];
		if (len < 2 || len > n - i)
			return -EINVAL;
		if (m == 0xc4)
			return 0;
		if (m == 0xda) {
			*ret_sos = start;
			return 1;
		}
		i += len;
	}
}

/*
 * The frame's bytes as a complete JPEG: the frame itself when it carries
 * its tables and @borrow allows, else a copy in @buf, with the standard
 * tables inserted if missing.
 */
static int complete_jpeg(const struct hws_frame *frame, struct hws__buf *buf, bool borrow,
			 const void **ret_data, size_t *ret_size)
{
	const uint8_t *src = frame->data;
	size_t sos = 0, n = frame->size;
	int r;

	r = find_tables(src, n, &sos);
	if (r < 0)
		return r;
	if (r == 0 && borrow) {
		*ret_data = src;
		*ret_size = n;
		return 0;
	}
	if (r == 0) {
		if (hws__buf_reserve(buf, n) < 0)
			return -ENOMEM;
		memcpy(buf->data, src, n);
		*ret_data = buf->data;
		*ret_size = n;
		return 0;
	}
	if (hws__buf_reserve(buf, n + STD_DHT_SIZE) < 0)
		return -ENOMEM;
	memcpy(buf->data, src, sos);
	put_std_dht(buf->data + sos);
	memcpy(buf->data + sos + STD_DHT_SIZE, src + sos, n - sos);
	*ret_data = buf->data;
	*ret_size = n + STD_DHT_SIZE;
	return 0;
}

tjhandle hws__tj_decompressor(struct hws_image_encoder *enc)
{
	if (!enc->tj_decompress)
		enc->tj_decompress = tjInitDecompress();
	return enc->tj_decompress;
}

int hws__jpeg_decode_rgb24(struct hws_image_encoder *enc, const struct hws_frame *frame,
			   uint8_t *dst, size_t dst_stride)
{
	const void *jpeg;
	size_t size;
	int w, h, subsamp, colorspace, r;

	/* Decoders differ in whether they assume missing tables; give ours
	 * a complete image rather than find out. */
	r = complete_jpeg(frame, &enc->fixed, true, &jpeg, &size);
	if (r < 0)
		return r;
	if (!hws__tj_decompressor(enc))
		return -ENOMEM;
	if (tjDecompressHeader3(enc->tj_decompress, jpeg, size, &w, &h, &subsamp, &colorspace) < 0)
		return -EINVAL;
	if ((uint32_t)w != frame->width || (uint32_t)h != frame->height)
		return -EINVAL;
	/* A warning (a frame cut short, say) still leaves a whole image to
	 * show, as every viewer shows it; only an error fails. */
	if (tjDecompress2(enc->tj_decompress, jpeg, size, dst, w, (int)dst_stride, h, TJPF_RGB, 0) < 0 &&
	    tjGetErrorCode(enc->tj_decompress) != TJERR_WARNING)
		return -EINVAL;
	return 0;
}

static int reserve_jpeg(struct hws_image_encoder *enc, uint32_t w, uint32_t h, int subsamp)
{
	unsigned long need = tjBufSize((int)w, (int)h, subsamp);

	if (need == (unsigned long)-1 || need > INT_MAX)
		return -ENOMEM;
	if (need <= enc->jpeg_cap)
		return 0;
	tjFree(enc->jpeg);
	enc->jpeg_cap = 0;
	enc->jpeg = tjAlloc((int)need);
	if (!enc->jpeg)
		return -ENOMEM;
	enc->jpeg_cap = need;
	return 0;
}

int hws__jpeg_encode(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
		     const struct hws_frame *frame, size_t stride, int quality, bool borrow,
		     const void **ret_data, size_t *ret_size)
{
	uint32_t w = frame->width, h = frame->height;
	/* RGB is subsampled 4:2:0, as cameras and other tools do. */
	int subsamp = TJSAMP_420, tj_format = pf->tj_format, r = 0;
	const uint8_t *src = frame->data;
	size_t src_stride = stride;
	struct hws__planes planes;
	unsigned long size;

	if (pf->kind == HWS__PIX_JPEG)
		return complete_jpeg(frame, &enc->out, borrow, ret_data, ret_size);

	if (!enc->tj_compress) {
		enc->tj_compress = tjInitCompress();
		if (!enc->tj_compress)
			return -ENOMEM;
	}
	if (hws__pixfmt_is_yuv(pf)) {
		r = hws__frame_to_planes(enc, pf, frame, stride, &planes);
		subsamp = planes.subsamp;
	} else if (pf->kind == HWS__PIX_GREY || pf->kind == HWS__PIX_GREY16) {
		src = hws__frame_to_grey8(enc, pf, frame, stride, &src_stride);
		r = src ? 0 : -ENOMEM;
		tj_format = TJPF_GRAY;
		subsamp = TJSAMP_GRAY;
	} else if (pf->tj_format < 0) {
		src_stride = (size_t)w * 3;
		tj_format = TJPF_RGB;
		r = hws__buf_reserve(&enc->pixels, src_stride * h);
		if (r == 0)
			r = hws__frame_to_rgb24(enc, pf, frame, stride, enc->pixels.data, src_stride);
		src = enc->pixels.data;
	}
	if (r == 0)
		r = reserve_jpeg(enc, w, h, subsamp);
	if (r < 0)
		return r;
	size = enc->jpeg_cap;
	/*
	 * With the inputs checked and the output buffer as large as
	 * tjBufSize() says, what is left to fail inside TurboJPEG is memory.
	 */
	if (hws__pixfmt_is_yuv(pf))
		r = tjCompressFromYUVPlanes(enc->tj_compress, planes.plane, (int)w, planes.stride, (int)h,
					    subsamp, &enc->jpeg, &size, quality, TJFLAG_NOREALLOC);
	else
		r = tjCompress2(enc->tj_compress, src, (int)w, (int)src_stride, (int)h, tj_format,
				&enc->jpeg, &size, subsamp, quality, TJFLAG_NOREALLOC);
	if (r < 0)
		return -ENOMEM;
	*ret_data = enc->jpeg;
	*ret_size = size;
	return 0;
}
