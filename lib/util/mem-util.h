/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_UTIL_MEM_UTIL_H
#define HWS_UTIL_MEM_UTIL_H

#include <stdlib.h>

/*
 * free() on each of @n pointers. Through hws__free_all(), the memory an
 * object owns is released in one statement that names it all:
 * hws__free_all(c->path, c->exec, c->listen).
 */
static inline void hws__free_many(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

#define hws__free_all(...)                                  \
	hws__free_many((void *const[]){ __VA_ARGS__ },      \
		       sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

#endif
