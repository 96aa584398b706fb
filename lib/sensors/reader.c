/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The two readers. The fast one keeps every attribute open and re-reads it
 * with one pread() at offset 0 (sysfs runs the driver's show() again for
 * it); the libsensors one asks sensors_get_value(), which opens, reads and
 * closes the file each time. Values libsensors does not know (pwm ...) are
 * read the same way by both.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "io-util.h"
#include "sensors/sensors-internal.h"

/*
 * One rule for every reader: ENOENT or ENODEV from an attribute whose chip
 * directory is gone means the chip is (unbound, unplugged): -ENODEV. In a
 * directory that still exists they are that value's error, and ENODEV
 * becomes -ENXIO there, because -ENODEV is what tells callers the chip
 * went away.
 */
int hws__attr_error(const struct hws__chip *chip, int err)
{
	if (err != -ENOENT && err != -ENODEV)
		return err;
	if (access(chip->pub.path, F_OK) < 0)
		return -ENODEV;
	return err == -ENODEV ? -ENXIO : err;
}

/* Open the attribute on first use. */
int hws__attr_fd(struct hws__chip *chip, size_t f, size_t i)
{
	struct hws__sub_priv *p = &chip->features[f].subs[i];
	char path[PATH_MAX];

	if (p->fd >= 0)
		return p->fd;
	snprintf(path, sizeof(path), "%s/%s", chip->pub.path, p->file ? p->file : chip->pub.features[f].subfeatures[i].name);
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0)
		return hws__attr_error(chip, -errno);
	return p->fd;
}

bool hws__needs_libsensors(const struct hws__chip *chip, size_t f, size_t i)
{
	return (chip->pub.features[f].subfeatures[i].flags & HWS_SUB_COMPUTED) &&
	       chip->features[f].compute == HWS_COMPUTE_OPAQUE;
}

/* The bytes of one read of the attribute, into its raw buffer, become the
 * value: parsed strictly, scaled to the kind's unit, compute applied. */
int hws__finish_value(struct hws__chip *chip, size_t f, size_t i, size_t len, double *ret)
{
	struct hws__sub_priv *p = &chip->features[f].subs[i];
	double x;
	int r;

	if (len >= HWS_RAW_READ)
		return -EFBIG;
	p->raw[len] = '\0';
	r = p->tuple >= 0 ? hws__parse_tuple(p->raw, p->tuple, &x) : hws__parse_value(p->raw, &x);
	if (r < 0)
		return r;
	*ret = hws__compute_apply(chip, f, i, x / p->scale);
	return 0;
}

static int read_sysfs(struct hws__chip *chip, size_t f, size_t i, double *ret)
{
	struct hws__sub_priv *p = &chip->features[f].subs[i];
	ssize_t n;
	int fd;

	fd = hws__attr_fd(chip, f, i);
	if (fd < 0)
		return fd;
	n = hws__pread_retry(fd, p->raw, HWS_RAW_READ, 0);
	if (n < 0)
		return hws__attr_error(chip, (int)n);
	return hws__finish_value(chip, f, i, (size_t)n, ret);
}

static int fast_read_value(struct hws__chip *chip, size_t f, size_t i, double *ret)
{
	if (hws__needs_libsensors(chip, f, i))
		return hws__libsensors_read(chip, f, i, ret);
	return read_sysfs(chip, f, i, ret);
}

/*
 * libsensors reads with fscanf("%lf"), which takes "12abc" for 12 and
 * reports an empty file as a permission error. The file is checked with
 * the strict parser first, so that both readers call the same values
 * broken; the value itself then comes from libsensors.
 */
static int libsensors_read_value(struct hws__chip *chip, size_t f, size_t i, double *ret)
{
	double x;
	int r;

	r = read_sysfs(chip, f, i, &x);
	if (r < 0 || chip->features[f].subs[i].sensors_nr < 0) {
		if (r == 0)
			*ret = x;
		return r;
	}
	return hws__libsensors_read(chip, f, i, ret);
}

static void close_chip(struct hws__chip *chip)
{
	for (size_t f = 0; f < chip->pub.n_features; f++)
		for (size_t i = 0; i < chip->pub.features[f].n_subfeatures; i++) {
			struct hws__sub_priv *p = &chip->features[f].subs[i];
			p->fd = hws__safe_close(p->fd);
		}
}

const struct hws__reader_ops hws__reader_fast = {
	.name = "fast",
	.read_value = fast_read_value,
	.close_chip = close_chip,
};

const struct hws__reader_ops hws__reader_libsensors = {
	.name = "libsensors",
	.read_value = libsensors_read_value,
	.close_chip = close_chip,
};

int hws__read_chip(const struct hws__reader_ops *ops, struct hws__chip *chip, bool settings)
{
	int ok = 0;

	for (size_t f = 0; f < chip->pub.n_features; f++) {
		struct hws_feature *feature = &chip->pub.features[f];

		for (size_t i = 0; i < feature->n_subfeatures; i++) {
			struct hws_subfeature *sub = &feature->subfeatures[i];
			double v;
			int r;

			if (!settings && !(sub->flags & HWS_SUB_LIVE))
				continue;
			r = ops->read_value(chip, f, i, &v);
			if (r == -ENODEV)
				return r;
			sub->error = r < 0 ? r : 0;
			if (r == 0) {
				sub->value = v;
				ok++;
			}
		}
	}
	return ok;
}
