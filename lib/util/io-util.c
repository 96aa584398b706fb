/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <unistd.h>

#include "io-util.h"

int hws__ioctl_retry(hws__ioctl_fn fn, int fd, unsigned long request, void *arg)
{
	int r;

	do
		r = fn(fd, request, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

int hws__safe_close(int fd)
{
	if (fd >= 0)
		close(fd);
	return -1;
}

ssize_t hws__pread_retry(int fd, void *buf, size_t size, off_t offset)
{
	ssize_t n;

	do
		n = pread(fd, buf, size, offset);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}
