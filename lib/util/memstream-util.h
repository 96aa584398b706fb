/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_MEMSTREAM_UTIL_H
#define HWS_UTIL_MEMSTREAM_UTIL_H

/*
 * Text written with stdio into memory, for a writer that takes a FILE *
 * (a page, a config) and a caller that wants the bytes: the
 * open_memstream() set-up and the checks of its fclose() in one place.
 */

#include <stddef.h>
#include <stdio.h>

/*
 * hws__memstream_write - run @write on a memory stream
 * @write: writes to @f; returns 0 or a negative errno
 * @userdata: passed to @write
 *
 * Return: 0 with *ret_text (NUL-terminated, malloc()ed, the caller's to
 * free) and *ret_len, or the negative errno of @write, or -ENOMEM when the
 * stream could not be made or flushed; the out-parameters are untouched
 * then.
 */
int hws__memstream_write(int (*write)(FILE *f, void *userdata), void *userdata,
			 char **ret_text, size_t *ret_len);

#endif
