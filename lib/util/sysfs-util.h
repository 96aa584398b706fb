/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_SYSFS_UTIL_H
#define HWS_UTIL_SYSFS_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Small sysfs attribute helpers shared by the sensor, motion and detection
 * code. Attribute files hold one short line; a value that does not parse
 * is an error for that value alone, never a crash.
 */

/* Read a whole attribute (relative to dirfd, or absolute) into buf as a
 * NUL-terminated string without its trailing newline. Returns its length or
 * a negative errno (-EFBIG if it does not fit in size - 1 bytes). */
int hws__read_attr(int dirfd, const char *name, char *buf, size_t size);

/* The same for an attribute that is already open: one pread() at offset 0,
 * which makes sysfs run the driver's show() again. */
int hws__pread_attr(int fd, char *buf, size_t size);

/* Write @value to an attribute (relative to dirfd, or absolute) in one
 * write(), as echo does. Returns 0 or a negative errno: what the driver's
 * store() answered, or -EIO for a short write. */
int hws__write_attr(int dirfd, const char *name, const char *value);

/* Numbers in attribute files may be padded: blanks (' ', '\t') before,
 * blanks or a newline after. hws__skip_blanks() returns @s past the leading
 * ones; hws__blank_tail() is true when nothing but trailing ones is left. */
const char *hws__skip_blanks(const char *s);
bool hws__blank_tail(const char *s);

/* Parse a decimal integer as sysfs prints it: optional leading blanks and
 * sign, digits, optional trailing blanks or newline, nothing else. Returns 0,
 * -EINVAL for anything else (empty included) or -ERANGE. */
int hws__parse_long(const char *s, long *ret);

#endif
