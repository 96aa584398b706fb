/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fan outputs: the handle, the sysfs access the backends share, and the
 * saved line. What taking an output means is each driver's: see the
 * backends (w83793.c, pc87427.c, applesmc.c, hwmon-pwm.c).
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fan/fan-internal.h"
#include "util/sysfs-util.h"

#define assert_return(cond, r) \
	do {                   \
		if (!(cond))   \
			return (r); \
	} while (0)

static const struct {
	const char *name;
	long lo, hi;
} keys[HWS__FAN_NKEYS] = {
#define X(key, name, lo, hi) [HWS__FAN_##key] = { name, lo, hi },
	HWS__FAN_KEYS(X)
#undef X
};

static const struct hws__fan_ops *const backends[] = {
	&hws__fan_w83793_ops,
	&hws__fan_pc87427_ops,
	&hws__fan_applesmc_ops,
	&hws__fan_hwmon_ops, /* last: any other chip */
};

#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

const struct hws__fan_ops *hws__fan_ops_by_driver(const char *driver)
{
	for (size_t i = 0; i < N_BACKENDS; i++)
		if (!strcmp(backends[i]->driver, driver))
			return backends[i];
	return NULL;
}

const struct hws__fan_ops *hws__fan_ops_by_prefix(const char *prefix)
{
	const struct hws__fan_ops *ops = hws__fan_ops_by_driver(prefix);

	return ops ? ops : &hws__fan_hwmon_ops;
}

/* --- sysfs */

static int attr_path(char *path, size_t size, const char *dir, const char *fmt, unsigned nr)
{
	char name[64];
	int n;

	n = snprintf(name, sizeof(name), fmt, nr);
	if (n < 0 || (size_t)n >= sizeof(name))
		return -ENAMETOOLONG;
	n = snprintf(path, size, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A file that cannot be opened is a missing attribute while its chip is
 * there, and a vanished device once the directory is gone too. */
static int gone_or(const char *dir, int r)
{
	struct stat st;

	if (r != -ENOENT && r != -ENODEV && r != -ENXIO)
		return r;
	if (stat(dir, &st) < 0 && (errno == ENOENT || errno == ENOTDIR))
		return -ENODEV;
	return r == -ENXIO ? -ENODEV : r;
}

int hws__fan_read(const char *dir, const char *fmt, unsigned nr, long *ret)
{
	char path[PATH_MAX], buf[32];
	long v;
	int r;

	r = attr_path(path, sizeof(path), dir, fmt, nr);
	if (r < 0)
		return r;
	r = hws__read_attr(AT_FDCWD, path, buf, sizeof(buf));
	if (r == -EFBIG)
		return -EBADMSG;
	if (r < 0)
		return gone_or(dir, r);
	if (hws__parse_long(buf, &v) < 0)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int hws__fan_write(const char *dir, const char *fmt, unsigned nr, long value)
{
	char path[PATH_MAX], buf[24];
	int r;

	r = attr_path(path, sizeof(path), dir, fmt, nr);
	if (r < 0)
		return r;
	snprintf(buf, sizeof(buf), "%ld\n", value);
	r = hws__write_attr(AT_FDCWD, path, buf);
	return r < 0 ? gone_or(dir, r) : 0;
}

int hws__fan_writable(const char *dir, const char *fmt, unsigned nr)
{
	char path[PATH_MAX];
	struct stat st;
	int r;

	r = attr_path(path, sizeof(path), dir, fmt, nr);
	if (r < 0)
		return r;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : gone_or(dir, -errno);
	return S_ISREG(st.st_mode) && (st.st_mode & 0222) ? 1 : 0;
}

/* --- names */

/* "pwm12" with prefix "pwm": 12; 0 if it is not one. */
static unsigned output_nr(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	unsigned nr = 0;

	if (strncmp(name, prefix, len) || !name[len] || name[len] == '0')
		return 0;
	for (const char *p = name + len; *p; p++) {
		if (*p < '0' || *p > '9' || nr > HWS__FAN_MAX_NR)
			return 0;
		nr = nr * 10 + (unsigned)(*p - '0');
	}
	return nr <= HWS__FAN_MAX_NR ? nr : 0;
}

/* --- the API */

int hws_fan_outputs(const struct hws_chip *chip, const char **names, size_t max)
{
	const struct hws__fan_ops *ops;
	size_t n = 0;

	assert_return(chip && chip->prefix && chip->path, -EINVAL);
	assert_return(names || max == 0, -EINVAL);
	ops = hws__fan_ops_by_prefix(chip->prefix);
	for (size_t i = 0; i < chip->n_features; i++) {
		const char *name = chip->features[i].name;
		unsigned nr = output_nr(name, ops->prefix);
		int r;

		if (!nr)
			continue;
		r = ops->controllable(chip->path, nr);
		if (r < 0)
			return r;
		if (!r)
			continue;
		if (n < max)
			names[n] = name;
		n++;
	}
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

int hws_fan_open(const struct hws_chip *chip, const char *output, const struct hws_fan_options *opts,
		 struct hws_fan **ret)
{
	const struct hws__fan_ops *ops;
	enum hws_fan_hold hold = opts ? opts->hold : HWS_FAN_HOLD_MANUAL;
	struct hws_fan *f;
	unsigned nr;
	int r;

	assert_return(chip && chip->prefix && chip->path && output && ret, -EINVAL);
	assert_return(hold == HWS_FAN_HOLD_MANUAL || hold == HWS_FAN_HOLD_FLOOR, -EINVAL);
	assert_return(strlen(chip->path) < PATH_MAX, -ENAMETOOLONG);
	ops = hws__fan_ops_by_prefix(chip->prefix);
	nr = output_nr(output, ops->prefix);
	if (!nr)
		return -ENOENT;
	if (hold == HWS_FAN_HOLD_FLOOR && !ops->floor)
		return -EINVAL;
	if (opts && opts->tach && !output_nr(opts->tach, "fan"))
		return -EINVAL;
	r = ops->probe(chip->path, nr);
	if (r < 0)
		return r;

	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->ops = ops;
	snprintf(f->output, sizeof(f->output), "%s%u", ops->prefix, nr);
	snprintf(f->tach, sizeof(f->tach), "fan%u", nr);
	if (opts && opts->tach)
		snprintf(f->tach, sizeof(f->tach), "%s", opts->tach);
	f->saved.ops = ops;
	strcpy(f->saved.dir, chip->path);
	f->saved.nr = nr;
	f->saved.hold = hold;
	*ret = f;
	return 0;
}

struct hws_fan *hws_fan_free(struct hws_fan *f)
{
	free(f);
	return NULL;
}

int hws_fan_info(struct hws_fan *f, struct hws_fan_info *info)
{
	struct hws_fan_info i = { .driver = f ? f->ops->driver : NULL, .value = -1, .rpm = -1 };
	long rpm;
	int r;

	assert_return(f && info, -EINVAL);
	i.unit = f->ops->unit;
	r = f->ops->info(f, &i);
	if (r < 0)
		return r;
	/* The tach is an extra: a fan without one is still an output. */
	{
		char name[32];

		snprintf(name, sizeof(name), "%s_input", f->tach);
		r = hws__fan_read(f->saved.dir, name, 0, &rpm);
	}
	if (r == -ENODEV)
		return r;
	i.rpm = r < 0 || rpm < 0 ? -1 : rpm;
	if (f->taken) {
		r = f->ops->check(f);
		if (r == -ENODEV)
			return r;
		i.held = r > 0;
	}
	*info = i;
	return 0;
}

int hws_fan_save(struct hws_fan *f)
{
	struct hws__fan_saved s;
	int r;

	assert_return(f, -EINVAL);
	if (f->saved_valid)
		return 0;
	/* Into a copy, which only a whole save replaces the handle's with. */
	s = f->saved;
	s.keys = 0;
	r = f->ops->save(f, &s);
	if (r >= 0) {
		f->saved = s;
		f->saved_valid = true;
	}
	return r;
}

int hws_fan_take(struct hws_fan *f)
{
	bool saved_here;
	int r;

	assert_return(f, -EINVAL);
	saved_here = !f->saved_valid;
	r = hws_fan_save(f);
	if (r < 0)
		return r;
	r = f->ops->take(f);
	if (r < 0) {
		/* Nothing is held: a first take that failed keeps no save of
		 * its own (one the caller asked for stays, for release). */
		if (!f->taken && saved_here)
			f->saved_valid = false;
		return r;
	}
	f->taken = true;
	f->set_since_take = false;
	f->before = f->left;
	f->written = f->left;
	return 0;
}

static long clamp(long v, long lo, long hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int hws_fan_set(struct hws_fan *f, long value)
{
	struct hws_fan_info i = { .value = -1 };
	int r;

	assert_return(f, -EINVAL);
	if (!f->taken)
		return -EPERM;
	r = f->ops->info(f, &i);
	if (r < 0)
		return r;
	value = clamp(value, i.min, i.max);
	r = f->ops->set(f, value);
	if (r < 0)
		return r;
	f->written = value;
	f->set_since_take = true;
	return 0;
}

int hws_fan_check(struct hws_fan *f)
{
	assert_return(f, -EINVAL);
	if (!f->taken)
		return -EPERM;
	return f->ops->check(f);
}

int hws_fan_release(struct hws_fan *f)
{
	int r;

	assert_return(f, -EINVAL);
	if (!f->saved_valid)
		return 0;
	r = f->ops->restore(&f->saved);
	f->taken = false;
	f->saved_valid = false;
	return r;
}

/* --- the saved line: "v1 DRIVER DIR OUTPUT HOLD KEY=VALUE..." */

static const char *hold_name(enum hws_fan_hold hold)
{
	return hold == HWS_FAN_HOLD_FLOOR ? "floor" : "manual";
}

/* The directory with blanks, '%' and control bytes as %XX, so that the
 * line splits at blanks. */
static int escape_path(const char *path, char *buf, size_t size)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		bool plain = *p > ' ' && *p < 0x7f && *p != '%';

		if (n + (plain ? 1 : 3) >= size)
			return -ENOSPC;
		if (plain)
			buf[n++] = (char)*p;
		else
			n += (size_t)sprintf(buf + n, "%%%02X", *p);
	}
	buf[n] = '\0';
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int unescape_path(const char *s, size_t len, char *buf, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '%') {
			int hi, lo;

			if (i + 2 >= len)
				return -EINVAL;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0 || !(hi | lo))
				return -EINVAL;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (n + 1 >= size)
			return -EINVAL;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return 0;
}

static long key_max(const struct hws__fan_ops *ops, enum hws__fan_key k)
{
	return ops->key_max[k] ? ops->key_max[k] : keys[k].hi;
}

int hws__fan_saved_format(const struct hws__fan_saved *s, char *buf, size_t size)
{
	char dir[PATH_MAX * 3];
	size_t n;
	int r;

	assert(s->ops);
	r = escape_path(s->dir, dir, sizeof(dir));
	if (r < 0)
		return r;
	r = snprintf(buf, size, "v1 %s %s %s%u %s", s->ops->driver, dir, s->ops->prefix, s->nr,
		     hold_name(s->hold));
	if (r < 0)
		return -EINVAL;
	n = (size_t)r;
	for (int k = 0; k < HWS__FAN_NKEYS; k++) {
		if (!(s->keys & (1u << k)))
			continue;
		r = snprintf(n < size ? buf + n : NULL, n < size ? size - n : 0, " %s=%ld", keys[k].name, s->v[k]);
		if (r < 0)
			return -EINVAL;
		n += (size_t)r;
	}
	if (n >= size)
		return -ENOSPC;
	return n > INT32_MAX ? -ENOSPC : (int)n;
}

/* The next blank-separated word of *p: its start and length, or 0. */
static size_t next_word(const char **p, const char **ret_word)
{
	const char *s = *p, *e;

	while (*s == ' ')
		s++;
	for (e = s; *e && *e != ' '; e++)
		;
	*ret_word = s;
	*p = e;
	return (size_t)(e - s);
}

/* The next word into @buf, if it fits. */
static int next_name(const char **p, char *buf, size_t size)
{
	const char *w;
	size_t len = next_word(p, &w);

	if (!len || len >= size)
		return -EINVAL;
	memcpy(buf, w, len);
	buf[len] = '\0';
	return 0;
}

static bool word_is(const char *w, size_t len, const char *s)
{
	return strlen(s) == len && !strncmp(w, s, len);
}

/* A value of the line: decimal digits only, as formatted, in range. */
static int parse_key_value(const char *w, size_t len, long lo, long hi, long *ret)
{
	long v = 0;

	if (!len || len > 9)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (w[i] < '0' || w[i] > '9')
			return -EINVAL;
		v = v * 10 + (w[i] - '0');
	}
	if (v < lo || v > hi)
		return -EINVAL;
	*ret = v;
	return 0;
}

int hws__fan_saved_parse(const char *line, struct hws__fan_saved *ret)
{
	struct hws__fan_saved s = { 0 };
	const char *p = line, *w;
	char name[32];
	size_t len;

	/* Exactly as hws__fan_saved_format() writes it: one blank between
	 * words, none around them, nothing but printable text. */
	if (!line || line[0] == ' ' || strstr(line, "  ") || (*line && line[strlen(line) - 1] == ' '))
		return -EINVAL;
	for (const char *c = line; *c; c++)
		if ((unsigned char)*c < ' ' || (unsigned char)*c >= 0x7f)
			return -EINVAL;
	len = next_word(&p, &w);
	if (!word_is(w, len, "v1"))
		return -EINVAL;

	if (next_name(&p, name, sizeof(name)) < 0)
		return -EINVAL;
	s.ops = hws__fan_ops_by_driver(name);
	if (!s.ops)
		return -EINVAL;

	len = next_word(&p, &w);
	if (!len || w[0] != '/' || unescape_path(w, len, s.dir, sizeof(s.dir)) < 0)
		return -EINVAL;

	if (next_name(&p, name, sizeof(name)) < 0)
		return -EINVAL;
	s.nr = output_nr(name, s.ops->prefix);
	if (!s.nr)
		return -EINVAL;

	len = next_word(&p, &w);
	if (word_is(w, len, "manual"))
		s.hold = HWS_FAN_HOLD_MANUAL;
	else if (word_is(w, len, "floor") && s.ops->floor)
		s.hold = HWS_FAN_HOLD_FLOOR;
	else
		return -EINVAL;

	while ((len = next_word(&p, &w))) {
		const char *eq = memchr(w, '=', len);
		int k;

		if (!eq)
			return -EINVAL;
		for (k = 0; k < HWS__FAN_NKEYS; k++)
			if (word_is(w, (size_t)(eq - w), keys[k].name))
				break;
		if (k == HWS__FAN_NKEYS || (s.keys & (1u << k)) ||
		    !((s.ops->keys | s.ops->optional_keys) & (1u << k)))
			return -EINVAL;
		if (parse_key_value(eq + 1, len - (size_t)(eq + 1 - w), keys[k].lo, key_max(s.ops, k), &s.v[k]) < 0)
			return -EINVAL;
		s.keys |= 1u << k;
	}
	if ((s.keys & s.ops->keys) != s.ops->keys)
		return -EINVAL;
	*ret = s;
	return 0;
}

int hws_fan_saved(const struct hws_fan *f, char *buf, size_t size)
{
	char line[PATH_MAX * 3 + 256];
	int r;

	assert_return(f && (buf || size == 0), -EINVAL);
	if (!f->saved_valid)
		return -ENODATA;
	r = hws__fan_saved_format(&f->saved, line, sizeof(line));
	if (r < 0)
		return r;
	if ((size_t)r >= size)
		return -ENOSPC;
	memcpy(buf, line, (size_t)r + 1);
	return r;
}

/* Only a chip's directory may be written to: under /sys, or under the
 * umockdev testbed that stands in for /sys. */
static bool dir_allowed(const char *dir)
{
	const char *mock = getenv("UMOCKDEV_DIR");
	const char *rest = NULL;
	size_t len;

	if (!strncmp(dir, "/sys/", 5))
		rest = dir + 5;
	else if (mock && mock[0] == '/' && getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "umockdev") &&
		 (len = strlen(mock)) && !strncmp(dir, mock, len) && !strncmp(dir + len, "/sys/", 5))
		rest = dir + len + 5;
	if (!rest || !*rest)
		return false;
	/* No way out of it again. */
	for (const char *c = dir; *c; c++)
		if (c[0] == '/' && c[1] == '.' &&
		    (c[2] == '/' || !c[2] || (c[2] == '.' && (c[3] == '/' || !c[3]))))
			return false;
	return true;
}

int hws_fan_restore_saved(const char *line)
{
	struct hws__fan_saved s;
	struct stat st;
	int r;

	assert_return(line, -EINVAL);
	r = hws__fan_saved_parse(line, &s);
	if (r < 0)
		return r;
	if (!dir_allowed(s.dir))
		return -EINVAL;
	if (stat(s.dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENODEV;
	r = s.ops->probe(s.dir, s.nr);
	if (r < 0)
		return r == -ENOENT ? -ENODEV : r;
	return s.ops->restore(&s);
}
