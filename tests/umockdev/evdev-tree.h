/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_TEST_EVDEV_TREE_H
#define HWS_TEST_EVDEV_TREE_H

/*
 * umockdev answers the ioctls of an emulated input device from a file in
 * its ioctl-tree format. This writes one for a three-axis accelerometer
 * as the kernel's input core would answer what libevdev (and hdapsd's
 * EVIOCGNAME scan) asks at open: EV_SYN, EV_KEY (BTN_TOUCH, which ams
 * sets and others do not), EV_ABS with X, Y and Z. Sizes are those of the
 * kernel's bitmaps, which libevdev asks for.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/input.h>

struct evdev_tree {
	const char *name;   /* EVIOCGNAME */
	const char *phys;   /* EVIOCGPHYS, or NULL */
	unsigned short bustype;
	bool btn_touch;
	int min, max, fuzz; /* of each axis */
	int value[3];       /* the state at open */
	int axes;           /* ABS_X, Y and Z (0 means 3), or X and Y only (2) */
};

static inline void evdev_tree_hex(FILE *f, const void *data, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02X", ((const unsigned char *)data)[i]);
	fputc('\n', f);
}

/* Return: 0, or a negative errno if @path cannot be written. */
static inline int evdev_tree_write(const char *path, const struct evdev_tree *t)
{
	unsigned char name[1024] = { 0 }, phys[1024] = { 0 }, keys[96] = { 0 }, zero[96] = { 0 };
	const unsigned char ev_bits[8] = { 1u << EV_SYN | (t->btn_touch ? 1u << EV_KEY : 0) | 1u << EV_ABS };
	const unsigned char abs_bits[8] = { 1u << ABS_X | 1u << ABS_Y | (t->axes == 2 ? 0 : 1u << ABS_Z) };
	const struct input_id id = { .bustype = t->bustype };
	const int version = EV_VERSION;
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	snprintf((char *)name, sizeof(name), "%s", t->name);
	if (t->btn_touch)
		keys[BTN_TOUCH / 8] |= 1u << (BTN_TOUCH % 8);
	fprintf(f, "EVIOCGVERSION 0 "), evdev_tree_hex(f, &version, sizeof(version));
	fprintf(f, "EVIOCGID 0 "), evdev_tree_hex(f, &id, sizeof(id));
	/* umockdev answers a string ioctl only for the buffer size it was
	 * recorded with: libevdev asks with 255 bytes, hdapsd with 1024. */
	for (size_t size = 255; size <= 1024; size = size == 255 ? 1024 : 2048) {
		fprintf(f, "EVIOCGNAME(0) %zu ", strlen(t->name) + 1), evdev_tree_hex(f, name, size);
		if (t->phys) {
			snprintf((char *)phys, sizeof(phys), "%s", t->phys);
			fprintf(f, "EVIOCGPHYS(0) %zu ", strlen(t->phys) + 1), evdev_tree_hex(f, phys, size);
		}
	}
	fprintf(f, "EVIOCGPROP(0) 0 "), evdev_tree_hex(f, zero, 8);
	fprintf(f, "EVIOCGBIT(0) 8 "), evdev_tree_hex(f, ev_bits, 8);
	fprintf(f, "EVIOCGBIT(%d) 96 ", EV_KEY), evdev_tree_hex(f, keys, 96);
	fprintf(f, "EVIOCGBIT(%d) 8 ", EV_ABS), evdev_tree_hex(f, abs_bits, 8);
	fprintf(f, "EVIOCGBIT(%d) 8 ", EV_REL), evdev_tree_hex(f, zero, 8);
	fprintf(f, "EVIOCGBIT(%d) 8 ", EV_MSC), evdev_tree_hex(f, zero, 8);
	fprintf(f, "EVIOCGBIT(%d) 8 ", EV_SW), evdev_tree_hex(f, zero, 8);
	fprintf(f, "EVIOCGBIT(%d) 8 ", EV_LED), evdev_tree_hex(f, zero, 8);
	fprintf(f, "EVIOCGBIT(%d) 8 ", EV_SND), evdev_tree_hex(f, zero, 8);
	fprintf(f, "EVIOCGBIT(%d) 16 ", EV_FF), evdev_tree_hex(f, zero, 16);
	fprintf(f, "EVIOCGKEY(0) 96 "), evdev_tree_hex(f, zero, 96);
	fprintf(f, "EVIOCGLED(0) 8 "), evdev_tree_hex(f, zero, 8);
	fprintf(f, "EVIOCGSW(0) 8 "), evdev_tree_hex(f, zero, 8);
	for (int i = 0; i < (t->axes == 2 ? 2 : 3); i++) {
		const struct input_absinfo a = {
			.value = t->value[i], .minimum = t->min, .maximum = t->max, .fuzz = t->fuzz,
		};

		fprintf(f, "EVIOCGABS(%d) 0 ", i), evdev_tree_hex(f, &a, sizeof(a));
	}
	return fclose(f) == 0 ? 0 : -errno;
}

#endif
