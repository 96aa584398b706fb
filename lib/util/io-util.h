/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_IO_UTIL_H
#define HWS_UTIL_IO_UTIL_H

/*
 * System calls retried when a signal interrupts them. The library never
 * owns the program's signal handlers, so a handler installed without
 * SA_RESTART must not turn into a spurious error for the caller.
 */

#include <sys/types.h>

/* ioctl() and v4l2_ioctl() share this type: the retry serves both. */
typedef int (*hws__ioctl_fn)(int fd, unsigned long request, ...);

/* @fn(@fd, @request, @arg) until it is not interrupted.
 * Returns 0 or a negative errno. */
int hws__ioctl_retry(hws__ioctl_fn fn, int fd, unsigned long request, void *arg);

/*
 * Closes @fd if it is a descriptor (>= 0) and returns -1, so that
 * "fd = hws__safe_close(fd);" closes it once and leaves it marked closed.
 * close() is not retried on EINTR: Linux has released the descriptor even
 * then, and a retry could close one another thread just opened.
 */
int hws__safe_close(int fd);

/* pread() until it is not interrupted. Returns the bytes read or a
 * negative errno. */
ssize_t hws__pread_retry(int fd, void *buf, size_t size, off_t offset);

#endif
