/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io-util.h"
#include "sysfs-util.h"

int hws__pread_attr(int fd, char *buf, size_t size)
{
	ssize_t n;

	if (size < 2)
		return -EINVAL;
	/* Ask for one byte more than fits, to tell "full" from "too long". */
	n = hws__pread_retry(fd, buf, size, 0);
	if (n < 0)
		return (int)n;
	if ((size_t)n >= size)
		return -EFBIG;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return (int)n;
}

int hws__read_attr(int dirfd, const char *name, char *buf, size_t size)
{
	int fd, r;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = hws__pread_attr(fd, buf, size);
	close(fd);
	return r;
}

int hws__write_attr(int dirfd, const char *name, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, r = 0;

	/* O_TRUNC as echo(1) has it: sysfs ignores it, a plain file (a
	 * testbed) then holds only the new value. */
	fd = openat(dirfd, name, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs hands the whole buffer to store() once: a retry after EINTR
	 * is a second store, which is what the caller asked for anyway. */
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	close(fd);
	return r;
}

const char *hws__skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

bool hws__blank_tail(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return !*s;
}

int hws__parse_long(const char *s, long *ret)
{
	char *end;
	long v;

	/* strtol() would skip any white space, a newline before the number
	 * included: only blanks are padding. */
	s = hws__skip_blanks(s);
	if (!isdigit((unsigned char)*s) && *s != '-' && *s != '+')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	/* The shape first: "99999999999999999999abc" is garbage, not too big. */
	if (end == s || !isdigit((unsigned char)end[-1]) || !hws__blank_tail(end))
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*ret = v;
	return 0;
}
