/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Binary PPM (P6): a text header, then the RGB24 rows. The pixels are
 * converted straight into the output buffer, behind the header: no
 * intermediate copy.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "image/image-internal.h"

int hws__ppm_encode(struct hws_image_encoder *enc, const struct hws__pixfmt *pf,
		    const struct hws_frame *frame, size_t stride,
		    const void **ret_data, size_t *ret_size)
{
	char header[32];
	size_t row = (size_t)frame->width * 3, total;
	int n, r;

	n = snprintf(header, sizeof(header), "P6\n%u %u\n255\n", frame->width, frame->height);
	if (n < 0 || (size_t)n >= sizeof(header))
		return -EINVAL;
	total = (size_t)n + row * frame->height;
	if (hws__buf_reserve(&enc->out, total) < 0)
		return -ENOMEM;
	memcpy(enc->out.data, header, (size_t)n);
	r = hws__frame_to_rgb24(enc, pf, frame, stride, enc->out.data + n, row);
	if (r < 0)
		return r;
	*ret_data = enc->out.data;
	*ret_size = total;
	return 0;
}
