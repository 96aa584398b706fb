/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"

int hwsd_mkdir_p(const char *path, mode_t mode)
{
	char *p;
	int r = 0;

	if (!*path)
		return -EINVAL;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; ; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return r;
}
