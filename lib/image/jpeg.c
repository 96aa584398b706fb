/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JPEG through libturbojpeg, and MJPEG frames passed through.
 *
 * Each source layout takes the shortest road into the codec:
 *  - YUV of every layout (packed 4:2:2 such as YUYV, planar YU12, YV12,
 *    422P, semi-planar NV12, NV21, NV16 ..., packed 4:4:4) is only taken
 *    apart into Y, Cb and Cr planes (planes.c) and compressed from them
 *    at its own subsampling, or at 4:2:0 if the encoder is set so: no
 *    colour conversion, and about half the work of going through RGB
 *    (what fswebcam does);
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
	const uint8_t *values;   /* symbols in order of increasing code length, up to 15 bits */
};

/* Table K.3: luminance DC differences. Table K.4: chrominance. */
static const uint8_t dc_values[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };

/*
 * Tables K.5 and K.6 give a 16-bit code to every AC symbol that has no
 * shorter one, in increasing order (put_ac_rest()), so only the shorter
 * codes are listed here: a line per code length.
 */
static const uint8_t ac_luma_values[37] = {
	0x01, 0x02,                     /*  2 bits */
	0x03,                           /*  3 */
	0x00, 0x04, 0x11,               /*  4 */
	0x05, 0x12, 0x21,               /*  5 */
	0x31, 0x41,                     /*  6 */
	0x06, 0x13, 0x51, 0x61,         /*  7 */
	0x07, 0x22, 0x71,               /*  8 */
	0x14, 0x32, 0x81, 0x91, 0xa1,   /*  9 */
	0x08, 0x23, 0x42, 0xb1, 0xc1,   /* 10 */
	0x15, 0x52, 0xd1, 0xf0,         /* 11 */
	0x24, 0x33, 0x62, 0x72,         /* 12 */
	0x82,                           /* 15 */
};

static const uint8_t ac_chroma_values[43] = {
	0x00, 0x01,                                 /*  2 bits */
	0x02,                                       /*  3 */
	0x03, 0x11,                                 /*  4 */
	0x04, 0x05, 0x21, 0x31,                     /*  5 */
	0x06, 0x12, 0x41, 0x51,                     /*  6 */
	0x07, 0x61, 0x71,                           /*  7 */
	0x13, 0x22, 0x32, 0x81,                     /*  8 */
	0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1,   /*  9 */
	0x09, 0x23, 0x33, 0x52, 0xf0,               /* 10 */
	0x15, 0x62, 0x72, 0xd1,                     /* 11 */
	0x0a, 0x16, 0x24, 0x34,                     /* 12 */
	0xe1,                                       /* 14 */
	0x25, 0xf1,                                 /* 15 */
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

/*
 * The AC symbols not in @listed, in increasing order: end of block (0x00),
 * sixteen zeros (0xf0), and a run of 0 to 15 zeros before a coefficient
 * of 1 to 10 bits (run << 4 | size).
 */
static uint8_t *put_ac_rest(uint8_t *p, const uint8_t *listed, size_t n_listed)
{
	bool taken[256] = { false };

	for (size_t i = 0; i < n_listed; i++)
		taken[listed[i]] = true;
	for (unsigned s = 0; s < 256; s++) {
		unsigned size = s & 0xf;

		if ((s == 0x00 || s == 0xf0 || (size >= 1 && size <= 10)) && !taken[s])
			*p++ = (uint8_t)s;
	}
	return p;
}

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
		for (size_t i = 0; i < 16; i++)
			*p++ = std_tables[t].counts[i];
		for (size_t i = 0; i < 15; i++)
			n += std_tables[t].counts[i];
		memcpy(p, std_tables[t].values, n);
		p += n;
		if (std_tables[t].counts[15])
			p = put_ac_rest(p, std_tables[t].values, n);
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
		r = hws__frame_to_planes(enc, pf, frame, stride,
					  enc->chroma == HWS_IMAGE_CHROMA_420, &planes);
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
