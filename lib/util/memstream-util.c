/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "memstream-util.h"

int hws__memstream_write(int (*write)(FILE *f, void *userdata), void *userdata,
			 char **ret_text, size_t *ret_len)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	r = write(f, userdata);
	/* fclose() makes the buffer final; a failed one leaves it short. */
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		free(text);
		return r;
	}
	*ret_text = text;
	*ret_len = len;
	return 0;
}
