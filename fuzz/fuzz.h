/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_FUZZ_H
#define HWS_FUZZ_H

/*
 * What the fuzz targets share: the entry point libFuzzer calls, a check
 * that says what broke before it aborts (libFuzzer then keeps the input),
 * and readers for the binary inputs.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                          \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                  \
			fputc('\n', stderr);                                           \
			abort();                                                       \
		}                                                                      \
	} while (0)

/* The input as a C string; it ends at its first NUL byte, as the text a
 * read() put into a buffer does for the parsers. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Binary inputs: little-endian fields, zeros once the input runs out. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline bool fuzz_more(const struct fuzz_in *in)
{
	return in->n > 0;
}

static inline uint64_t fuzz_take(struct fuzz_in *in, size_t bytes)
{
	uint64_t v = 0;

	for (size_t i = 0; i < bytes; i++) {
		if (in->n) {
			v |= (uint64_t)in->p[0] << (8 * i);
			in->p++;
			in->n--;
		}
	}
	return v;
}

#endif
