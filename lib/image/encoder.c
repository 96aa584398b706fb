/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The encoder object, the dispatch from (fourcc, type) to a writer, and
 * saving to a file all or nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "image/image-internal.h"
#include "time-util.h"

int hws__buf_reserve(struct hws__buf *b, size_t size)
{
	if (size <= b->cap)
		return 0;
	/* Nothing to keep: free first, so the peak is one buffer, not two. */
	free(b->data);
	b->cap = 0;
	b->data = malloc(size);
	if (!b->data)
		return -ENOMEM;
	b->cap = size;
	return 0;
}

int hws__buf_grow(struct hws__buf *b, size_t size, size_t keep)
{
	uint8_t *p;

	if (size <= b->cap)
		return 0;
	if (keep == 0)
		return hws__buf_reserve(b, size);
	p = realloc(b->data, size);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = size;
	return 0;
}

void hws__buf_free(struct hws__buf *b)
{
	free(b->data);
	b->data = NULL;
	b->cap = 0;
}

int hws_image_encoder_new(struct hws_image_encoder **ret_encoder)
{
	struct hws_image_encoder *enc;

	if (!ret_encoder)
		return -EINVAL;
	/* The TurboJPEG handles wait for the first frame that needs them, so
	 * that a PPM-only user never pays for them. */
	enc = calloc(1, sizeof(*enc));
	if (!enc)
		return -ENOMEM;
	hws__yuv_tables_init(&enc->yuv);
	*ret_encoder = enc;
	return 0;
}

struct hws_image_encoder *hws_image_encoder_free(struct hws_image_encoder *enc)
{
	if (!enc)
		return NULL;
	if (enc->tj_compress)
		tjDestroy(enc->tj_compress);
	if (enc->tj_decompress)
		tjDestroy(enc->tj_decompress);
	tjFree(enc->jpeg);
	hws__buf_free(&enc->out);
	hws__buf_free(&enc->pixels);
	hws__buf_free(&enc->planes);
	hws__buf_free(&enc->fixed);
	free(enc);
	return NULL;
}

int hws_image_encoder_set_chroma(struct hws_image_encoder *enc, enum hws_image_chroma chroma)
{
	if (!enc || (chroma != HWS_IMAGE_CHROMA_SOURCE && chroma != HWS_IMAGE_CHROMA_420))
		return -EINVAL;
	enc->chroma = chroma;
	return 0;
}

int hws_image_type_from_path(const char *path, enum hws_image_type *ret_type)
{
	static const struct {
		const char *ext;
		enum hws_image_type type;
	} exts[] = {
		{ "ppm", HWS_IMAGE_PPM },
		{ "png", HWS_IMAGE_PNG },
		{ "jpg", HWS_IMAGE_JPEG },
		{ "jpeg", HWS_IMAGE_JPEG },
		{ "raw", HWS_IMAGE_RAW },
	};
	const char *base, *dot;

	if (!path || !ret_type)
		return -EINVAL;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	/* ".jpg" alone is a hidden file without an extension. */
	if (!dot || dot == base)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (strcasecmp(dot + 1, exts[i].ext) == 0) {
			*ret_type = exts[i].type;
			return 0;
		}
	return -EINVAL;
}

bool hws_image_can_encode(uint32_t fourcc, enum hws_image_type type)
{
	switch (type) {
	case HWS_IMAGE_RAW:
		return true;
	case HWS_IMAGE_PPM:
	case HWS_IMAGE_PNG:
	case HWS_IMAGE_JPEG:
		/* Every known layout converts to RGB24, and JPEG frames decode. */
		return hws__pixfmt_find(fourcc) != NULL;
	}
	return false;
}

static int encode(struct hws_image_encoder *enc, const struct hws_frame *frame,
		  enum hws_image_type type, int quality, bool borrow,
		  const void **ret_data, size_t *ret_size)
{
	const struct hws__pixfmt *pf;
	const void *data = NULL;
	size_t stride, size = 0;
	int r;

	if (!enc || !frame || !ret_data || !ret_size)
		return -EINVAL;
	if (type != HWS_IMAGE_PPM && type != HWS_IMAGE_PNG && type != HWS_IMAGE_JPEG &&
	    type != HWS_IMAGE_RAW)
		return -EINVAL;
	if (type == HWS_IMAGE_JPEG && (quality < 1 || quality > 100))
		return -EINVAL;

	if (type == HWS_IMAGE_RAW) {
		if (!frame->data || frame->size == 0)
			return -EINVAL;
		if (!borrow) {
			if (hws__buf_reserve(&enc->out, frame->size) < 0)
				return -ENOMEM;
			memcpy(enc->out.data, frame->data, frame->size);
		}
		*ret_data = borrow ? frame->data : enc->out.data;
		*ret_size = frame->size;
		return 0;
	}

	pf = hws__pixfmt_find(frame->fourcc);
	if (!pf)
		return -EOPNOTSUPP;
	r = hws__frame_stride(pf, frame, &stride);
	if (r < 0)
		return r;
	switch (type) {
	case HWS_IMAGE_PPM:
		r = hws__ppm_encode(enc, pf, frame, stride, &data, &size);
		break;
	case HWS_IMAGE_PNG:
		r = hws__png_encode(enc, pf, frame, stride, &data, &size);
		break;
	case HWS_IMAGE_JPEG:
	default:
		r = hws__jpeg_encode(enc, pf, frame, stride, quality, borrow, &data, &size);
		break;
	}
	if (r < 0)
		return r;
	*ret_data = data;
	*ret_size = size;
	return 0;
}

int hws_image_encode(struct hws_image_encoder *enc, const struct hws_frame *frame,
		     enum hws_image_type type, int quality,
		     const void **ret_data, size_t *ret_size)
{
	return encode(enc, frame, type, quality, false, ret_data, ret_size);
}

/* ---- saving ------------------------------------------------------------- */

/* Names longer than this are cut in the temporary name, so that
 * ".name.XXXXXX" stays within NAME_MAX. */
#define TEMP_BASE_MAX 200
#define TEMP_SUFFIX 6

static void random_suffix(char *s, unsigned attempt)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint8_t bytes[TEMP_SUFFIX];

	if (getrandom(bytes, sizeof(bytes), GRND_NONBLOCK) != (ssize_t)sizeof(bytes)) {
		/* No entropy yet (early boot): unique is all we need, and
		 * O_EXCL catches a collision. */
		uint64_t x = hws__now_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 20 ^ attempt;

		for (size_t i = 0; i < sizeof(bytes); i++, x >>= 8)
			bytes[i] = (uint8_t)x;
	}
	for (size_t i = 0; i < TEMP_SUFFIX; i++)
		s[i] = alphabet[bytes[i] % (sizeof(alphabet) - 1)];
	s[TEMP_SUFFIX] = '\0';
}

/*
 * Create ".<name>.XXXXXX" beside @path. It is created with mode 0666 and
 * the umask, as the final file would be by open(): mkstemp()'s 0600 would
 * end up on the saved image.
 */
static int temp_create(const char *path, char **ret_name, int *ret_fd)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dir_len;
	size_t base_len = strlen(base);
	char *name, *suffix;

	if (base_len == 0)
		return -EISDIR;
	if (base_len > TEMP_BASE_MAX)
		base_len = TEMP_BASE_MAX;
	name = malloc(dir_len + 1 + base_len + 1 + TEMP_SUFFIX + 1);
	if (!name)
		return -ENOMEM;
	memcpy(name, path, dir_len);
	name[dir_len] = '.';
	memcpy(name + dir_len + 1, base, base_len);
	name[dir_len + 1 + base_len] = '.';
	suffix = name + dir_len + 1 + base_len + 1;

	for (unsigned attempt = 0; attempt < 100; attempt++) {
		int fd;

		random_suffix(suffix, attempt);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			*ret_name = name;
			*ret_fd = fd;
			return 0;
		}
		if (errno != EEXIST) {
			int r = -errno;

			free(name);
			return r;
		}
	}
	free(name);
	return -EEXIST;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int hws_image_save(struct hws_image_encoder *enc, const char *path,
		   const struct hws_frame *frame, enum hws_image_type type, int quality)
{
	const void *data;
	char *temp = NULL;
	size_t size;
	int fd = -EBADF, r;

	if (!enc || !path || !*path)
		return -EINVAL;
	/* Encode before touching the file system: a bad frame leaves nothing. */
	r = encode(enc, frame, type, quality, true, &data, &size);
	if (r < 0)
		return r;
	r = temp_create(path, &temp, &fd);
	if (r < 0)
		return r;

	r = write_all(fd, data, size);
	/* A file system that reserves space late (NFS, a full quota on some)
	 * reports ENOSPC at fsync() or close(), not at write(). */
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0 && errno != EINTR)
		r = -errno;
	if (r == 0 && rename(temp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(temp);
	free(temp);
	return r;
}
