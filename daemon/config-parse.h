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

/* A section's name that goes into file names, URLs or journal fields:
 * letters, digits, '-' and '_'. */
bool conf_is_name(const char *name);
/* A libsensors chip name pattern, or "*" for every chip. */
bool conf_is_chip_pattern(const char *pattern);

int conf_parse_number(const char *v, double *ret);
int conf_parse_uint(const char *v, unsigned max, unsigned *ret);

/* A duration key in [min_ms, max_ms] (0 also allowed if @zero_ok). */
int conf_duration(struct parser *p, const char *name, const char *v, unsigned min_ms,
		  unsigned max_ms, bool zero_ok, unsigned *ret);
int conf_bool(struct parser *p, const char *name, const char *v, bool *ret);
int conf_string(struct parser *p, const char *name, const char *v, char **ret);
/* conf_string() of an absolute path; else "NAME: "V" is not @what". */
int conf_path(struct parser *p, const char *name, const char *v, const char *what, char **ret);

/* A word of a key's closed list, and the value it stands for (>= 0). */
struct conf_word {
	const char *word;
	int value;
};

/*
 * One of @words (ended by { NULL }) as @name's value. Return: its value,
 * or -1 after conf_fail() "NAME: "V" is not A, B or C", which lists the
 * words but for aliases (a word with the value of the word before it).
 */
int conf_word(struct parser *p, const char *name, const char *v, const struct conf_word *words);

/*
 * Defines fn(), a key handler that stores conf_word()'s value in a @type
 * (an enum, or bool): 1, or 0 when the value was refused. One is defined
 * for each type a closed-list key fills.
 */
#define CONF_WORD_KEY(fn, type)                                                         \
	static int fn(struct parser *p, const char *name, const char *v,                  \
		      const struct conf_word *words, type *ret)                            \
	{                                                                                 \
		int w = conf_word(p, name, v, words);                                     \
                                                                                          \
		if (w >= 0)                                                               \
			*ret = (type)w;                                                   \
		return w >= 0;                                                            \
	}

/* Grow an array of @size-byte elements by one zeroed element. */
void *conf_push(struct parser *p, void **array, size_t *n, size_t size);

/*
 * A kind of [KIND NAME] section (chip, camera, fan). Its struct starts
 * with the name (char *) and has an unsigned line, the line that opened
 * the section; a new one starts as a copy of @defaults.
 */
struct conf_section_kind {
	const char *kind;
	bool (*valid)(const char *name);
	const char *invalid;    /* why a name is refused: "[KIND NAME]: INVALID" */
	size_t size;
	size_t line;            /* offsetof() the line */
	const void *defaults;
};

/* The conf_section_kind of sections held in @type, which start as
 * (@type){ __VA_ARGS__ }. */
#define CONF_SECTION_KIND(type, kind_, valid_, invalid_, ...)                                \
	{ .kind = (kind_), .valid = (valid_), .invalid = (invalid_), .size = sizeof(type),      \
	  .line = offsetof(type, line), .defaults = &(const type){ __VA_ARGS__ } }

/*
 * The section named @name among the @n in @array, or a new one opened at
 * this line. Return: it, or NULL after conf_fail() (a name @kind refuses)
 * or on OOM.
 */
void *conf_section(struct parser *p, void **array, size_t *n, const struct conf_section_kind *kind,
		   const char *name);

/* fan-config.c: a key of [fan NAME], and the checks of a whole section. */
int conf_fan_key(struct parser *p, const char *fan, const char *name, const char *v);
void conf_fan_check(struct parser *p, struct hwsd_fan_conf *fan);
void conf_fan_free(struct hwsd_fan_conf *fan);

#endif
