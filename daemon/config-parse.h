/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_CONFIG_PARSE_H
#define HWSD_CONFIG_PARSE_H

/*
 * What the parsers of hwsightd.conf's sections share (config.c, and
 * fan-config.c for [fan NAME]). A key handler returns 1 when the key was
 * taken, 0 after conf_fail() or on OOM (p->oom): inih stops at the first.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

struct parser {
	struct hwsd_config *c;
	FILE *f;
	unsigned line;          /* the line inih is handling */
	char *error;            /* the first reason, without FILE:LINE */
	unsigned error_line;
	bool oom;
};

/* Keep the first reason (later ones follow from it). Return: 0. */
int conf_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int conf_parse_number(const char *v, double *ret);
int conf_parse_uint(const char *v, unsigned max, unsigned *ret);

/* A duration key in [min_ms, max_ms] (0 also allowed if @zero_ok). */
int conf_duration(struct parser *p, const char *name, const char *v, unsigned min_ms,
		  unsigned max_ms, bool zero_ok, unsigned *ret);
int conf_bool(struct parser *p, const char *name, const char *v, bool *ret);
int conf_string(struct parser *p, const char *name, const char *v, char **ret);

/* Grow an array of @size-byte elements by one zeroed element. */
void *conf_push(struct parser *p, void **array, size_t *n, size_t size);

/* fan-config.c: a key of [fan NAME], and the checks of a whole section. */
int conf_fan_key(struct parser *p, const char *fan, const char *name, const char *v);
void conf_fan_check(struct parser *p, struct hwsd_fan_conf *fan);
void conf_fan_free(struct hwsd_fan_conf *fan);

#endif
