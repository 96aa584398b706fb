/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * encode: libhwsight's JPEG encoder on the raw frames of a file, CPU time
 * per frame.
 *
 * Each frame is read with pread() and handed to hws_image_encode(), the
 * call "hwsight capture -o frame-%04d.jpg" makes for each frame the driver
 * gives it, minus the file write. The reading and the encoding are timed
 * per frame with CLOCK_THREAD_CPUTIME_ID: the peers read their frames from
 * a file too, and the figure leaves out the program's start-up, which run
 * measures around the whole process. The median is robust to the odd frame
 * that an interrupt or a page fault makes slow.
 *
 * --synthetic N encodes N generated frames instead (no file, no read): the
 * host smoke test, where there is no camera.
 *
 * Prints one line:
 *   frames=N quality=Q bytes=MEAN read_encode_us=MEDIAN encode_us=MEDIAN mean_us=MEAN
 * and fails if a frame does not encode to a whole JPEG.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hwsight/camera.h>
#include <hwsight/image.h>

#include "bench.h"

#define FOURCC(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

static double thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Packed 4:2:2 only: two bytes a pixel, as the lab's camera gives them. */
static int parse_fourcc(const char *s, uint32_t *ret)
{
	static const char *const packed422[] = { "YUYV", "UYVY", "YVYU", "VYUY" };

	for (size_t i = 0; i < sizeof(packed422) / sizeof(packed422[0]); i++)
		if (!strcmp(s, packed422[i])) {
			*ret = FOURCC(s[0], s[1], s[2], s[3]);
			return 0;
		}
	return -1;
}

/*
 * A deterministic YUYV frame with edges, gradients and detail that moves
 * from frame to frame, so the encoder has real work and no two frames are
 * alike.
 */
static void synthesize(uint8_t *p, uint32_t w, uint32_t h, unsigned k)
{
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x += 2) {
			unsigned bar = (x + 4 * k) * 8 / w % 8;
			uint8_t luma = (uint8_t)(16 + bar * 27 + ((x ^ (y + k)) & 15));

			p[0] = luma;
			p[1] = (uint8_t)(16 + (y * 224 / h + k) % 224);
			p[2] = (uint8_t)(luma + ((x * y + k) & 7));
			p[3] = (uint8_t)(16 + (x * 224 / w + 3 * k) % 224);
			p += 4;
		}
	}
}

static int whole_jpeg(const uint8_t *d, size_t n)
{
	return n >= 4 && d[0] == 0xff && d[1] == 0xd8 && d[n - 2] == 0xff && d[n - 1] == 0xd9;
}

int bench_encode(int argc, char **argv)
{
	enum { OPT_SYNTHETIC = 256 };
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "quality", required_argument, NULL, 'q' },
		{ "count", required_argument, NULL, 'n' },
		{ "synthetic", required_argument, NULL, OPT_SYNTHETIC },
		{}
	};
	uint32_t w = 640, h = 480, fourcc = FOURCC('Y', 'U', 'Y', 'V');
	long quality = 85, limit = LONG_MAX, synthetic = 0;
	struct hws_image_encoder *enc = NULL;
	double *both = NULL, *encode = NULL, sum = 0, bytes = 0;
	const char *path = NULL;
	size_t frame_size, n_frames;
	uint8_t *frame = NULL;
	int fd = -1, c, r, ret = 1;
	char *end;

	while ((c = getopt_long(argc, argv, "s:f:q:n:", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (bench_parse_size(optarg, &w, &h) < 0 || w % 2) {
				fprintf(stderr, PROG " encode: -s takes an even WIDTHxHEIGHT, e.g. 640x480, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'f':
			if (parse_fourcc(optarg, &fourcc) < 0) {
				fprintf(stderr, PROG " encode: -f takes a packed 4:2:2 format (YUYV, UYVY, YVYU, VYUY), not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'q':
			quality = strtol(optarg, &end, 10);
			if (*end || end == optarg || quality < 1 || quality > 100) {
				fprintf(stderr, PROG " encode: -q takes a JPEG quality from 1 to 100, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
		case OPT_SYNTHETIC:
			errno = 0;
			limit = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || limit < 1) {
				fprintf(stderr, PROG " encode: %s takes a positive count, not '%s'\n",
					c == 'n' ? "-n" : "--synthetic", optarg);
				return 2;
			}
			if (c == OPT_SYNTHETIC)
				synthetic = limit;
			break;
		default:
			fputs("Usage: " PROG " encode [-s WxH] [-f FOURCC] [-q Q] [-n N] FILE | --synthetic N\n", stderr);
			return 2;
		}
	}
	if (synthetic ? optind != argc : optind != argc - 1) {
		fputs(PROG " encode: give one file of raw frames, or --synthetic N\n", stderr);
		return 2;
	}
	frame_size = (size_t)w * h * 2;

	if (synthetic) {
		n_frames = (size_t)synthetic;
	} else {
		struct stat st;

		path = argv[optind];
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			fprintf(stderr, PROG " encode: %s: %s\n", path, strerror(errno));
			goto out;
		}
		n_frames = (size_t)st.st_size / frame_size;
		if (n_frames == 0 || (size_t)st.st_size % frame_size) {
			fprintf(stderr, PROG " encode: %s: %lld bytes is not a whole number of %ux%u frames (%zu bytes each)\n",
				path, (long long)st.st_size, w, h, frame_size);
			goto out;
		}
		if ((size_t)limit < n_frames)
			n_frames = (size_t)limit;
	}

	frame = malloc(frame_size);
	both = calloc(n_frames, sizeof(*both));
	encode = calloc(n_frames, sizeof(*encode));
	if (!frame || !both || !encode) {
		fputs(PROG " encode: out of memory\n", stderr);
		goto out;
	}
	r = hws_image_encoder_new(&enc);
	if (r < 0) {
		fprintf(stderr, PROG " encode: cannot make an encoder: %s\n", strerror(-r));
		goto out;
	}

	for (size_t i = 0; i < n_frames; i++) {
		struct hws_frame f = {
			.data = frame, .size = frame_size, .width = w, .height = h,
			.fourcc = fourcc, .bytesperline = w * 2, .sequence = (uint32_t)i,
		};
		const void *jpeg;
		size_t jpeg_size;
		double t0, t1, t2;

		if (synthetic)
			synthesize(frame, w, h, (unsigned)i);
		t0 = thread_cpu_us();
		if (!synthetic) {
			ssize_t got = pread(fd, frame, frame_size, (off_t)(i * frame_size));

			if (got != (ssize_t)frame_size) {
				fprintf(stderr, PROG " encode: %s: frame %zu: %s\n", path, i,
					got < 0 ? strerror(errno) : "short read");
				goto out;
			}
		}
		t1 = thread_cpu_us();
		r = hws_image_encode(enc, &f, HWS_IMAGE_JPEG, (int)quality, &jpeg, &jpeg_size);
		t2 = thread_cpu_us();
		if (r < 0) {
			fprintf(stderr, PROG " encode: frame %zu: %s\n", i, strerror(-r));
			goto out;
		}
		if (!whole_jpeg(jpeg, jpeg_size)) {
			fprintf(stderr, PROG " encode: frame %zu: the encoder gave %zu bytes that are not a whole JPEG\n",
				i, jpeg_size);
			goto out;
		}
		both[i] = t2 - t0;
		encode[i] = t2 - t1;
		sum += t2 - t0;
		bytes += (double)jpeg_size;
	}

	printf("frames=%zu quality=%ld bytes=%.0f read_encode_us=%.1f encode_us=%.1f mean_us=%.1f\n", n_frames,
	       quality, bytes / (double)n_frames, bench_median(both, n_frames), bench_median(encode, n_frames),
	       sum / (double)n_frames);
	ret = 0;
out:
	hws_image_encoder_free(enc);
	if (fd >= 0)
		close(fd);
	free(frame);
	free(both);
	free(encode);
	return ret;
}
