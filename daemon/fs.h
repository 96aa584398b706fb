/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_FS_H
#define HWSD_FS_H

/* Small file system helpers shared by the daemon's writers. */

#include <sys/types.h>

/*
 * hwsd_mkdir_p - create a directory and its missing parents, like mkdir -p
 * @path: the directory
 * @mode: for each directory created (before the umask)
 *
 * Return: 0 (also when it exists already) or a negative errno.
 */
int hwsd_mkdir_p(const char *path, mode_t mode);

#endif
