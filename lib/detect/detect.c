/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Read-only identification of hardware monitor chips over /dev/i2c-N, and
 * of the Super-I/O ones the kernel already found, from sysfs.
 *
 * Safety, in the order the scan meets it:
 *  - only the addresses a known chip can have are visited (0x2c-0x2f);
 *  - an address whose sysfs device has a driver is reported, never read;
 *    I2C_SLAVE (never I2C_SLAVE_FORCE) makes the kernel refuse the ones
 *    sysfs did not tell us about, with EBUSY;
 *  - there is no separate presence probe: the first ID read is the probe,
 *    and an address that does not answer receives no byte at all;
 *  - only SMBus read-byte-data transactions are used, on ID registers only,
 *    stopping at the first register that does not match.
 *
 * The W83793 keeps most registers in banks selected through register 0x00,
 * and its driver switches banks freely. Switching them here would be a
 * write, and could leave a chip in a bank that a driver bound later does
 * not expect (the driver caches the bank it selected). So the bank register
 * is read, never written, as the kernel's own detection does: bit 7 of it
 * tells which vendor ID byte register 0x0d shows, and the address register
 * 0x0b, which is banked, is checked only when bank 0 is selected already.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <i2c/smbus.h>
#include <linux/i2c-dev.h>

#include <hwsight/detect.h>

#include "array-util.h"
#include "sysfs-util.h"

#define W83793_REG_BANKSEL  0x00
#define W83793_REG_I2C_ADDR 0x0b
#define W83793_REG_VENDORID 0x0d
#define W83793_REG_CHIPID   0x0e
#define W83793_BANK_MASK    0x07
#define W83793_HBACS        0x80 /* vendor ID register shows the high byte */
#define W83793_VENDOR_LOW   0xa3 /* Winbond, 0x5ca3 */
#define W83793_VENDOR_HIGH  0x5c
#define W83793_CHIP_ID      0x7b

#define I2C_SYSFS      "/sys/bus/i2c"
#define PLATFORM_SYSFS "/sys/bus/platform"
#define I2C_DEV_CLASS  "/sys/class/i2c-dev"

int hws_detect_w83793_identify(unsigned int addr, hws_detect_read_fn read_reg, void *ctx)
{
	int bank, v;

	if (!read_reg)
		return -EINVAL;
	if (addr < 0x2c || addr > 0x2f)
		return 0;

	bank = read_reg(ctx, W83793_REG_BANKSEL);
	if (bank < 0)
		return bank;
	v = read_reg(ctx, W83793_REG_VENDORID);
	if (v < 0)
		return v;
	if (v != ((bank & W83793_HBACS) ? W83793_VENDOR_HIGH : W83793_VENDOR_LOW))
		return 0;
	if ((bank & W83793_BANK_MASK) == 0) {
		v = read_reg(ctx, W83793_REG_I2C_ADDR);
		if (v < 0)
			return v;
		if (v != (int)(addr << 1))
			return 0;
	}
	v = read_reg(ctx, W83793_REG_CHIPID);
	if (v < 0)
		return v;
	return v == W83793_CHIP_ID;
}

/* What the scan knows about each chip. */
struct i2c_chip {
	const char *chip, *description, *driver;
	unsigned int first, last; /* the addresses it can have */
	int (*identify)(unsigned int addr, hws_detect_read_fn read_reg, void *ctx);
};

static const struct i2c_chip i2c_chips[] = {
	{ "w83793", "Winbond W83793", "w83793", 0x2c, 0x2f, hws_detect_w83793_identify },
};

struct platform_chip {
	const char *chip, *description, *driver;
	const char *hwmon_name;
};

/* The platform device is named DRIVER.ID (the pc87427 driver uses the
 * first I/O base as the id) and exists only once the driver found the chip. */
static const struct platform_chip platform_chips[] = {
	{ "pc87427", "National PC87427", "pc87427", "pc87427" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool is_alnum(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* Driver, module and device names go into shell commands: allow only what
 * kernel names use, so that nothing in them needs quoting, and nothing
 * reads as an option or a relative path. */
static bool is_plain_name(const char *s)
{
	if (!s || !is_alnum(*s))
		return false;
	for (; *s; s++)
		if (!is_alnum(*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

/* Copy a command formatted into @line (snprintf() returned @n) to @buf,
 * which is left untouched if it does not fit. */
static int finish_line(const char *line, int n, size_t line_size, char *buf, size_t size)
{
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= line_size || (size_t)n >= size)
		return -ENOBUFS;
	memcpy(buf, line, (size_t)n + 1);
	return n;
}

int hws_detect_bind_line(const char *driver, int bus, unsigned int addr,
			 const char *device_name, bool driver_loaded,
			 char *buf, size_t size)
{
	char line[2 * HWS_DETECT_BIND_LINE_MAX];
	int n;

	if (!is_plain_name(driver) || bus < 0 || addr < 0x03 || addr > 0x77 || !buf || size == 0)
		return -EINVAL;

	if (!device_name || !*device_name)
		n = snprintf(line, sizeof(line),
			     "echo %s 0x%02x > " I2C_SYSFS "/devices/i2c-%d/new_device && modprobe %s",
			     driver, addr, bus, driver);
	else if (strcmp(device_name, driver) != 0)
		n = snprintf(line, sizeof(line),
			     "echo 0x%02x > " I2C_SYSFS "/devices/i2c-%d/delete_device && "
			     "echo %s 0x%02x > " I2C_SYSFS "/devices/i2c-%d/new_device && modprobe %s",
			     addr, bus, driver, addr, bus, driver);
	else if (driver_loaded)
		n = snprintf(line, sizeof(line), "echo %d-%04x > " I2C_SYSFS "/drivers/%s/bind",
			     bus, addr, driver);
	else
		n = snprintf(line, sizeof(line), "modprobe %s", driver);
	return finish_line(line, n, sizeof(line), buf, size);
}

static bool driver_registered(const char *bus_sysfs, const char *driver)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/drivers/%s", bus_sysfs, driver);

	return n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0;
}

static int platform_bind_line(const char *driver, const char *device, char *buf, size_t size)
{
	char line[2 * HWS_DETECT_BIND_LINE_MAX];
	int n;

	if (!is_plain_name(device))
		return -EINVAL;
	if (driver_registered(PLATFORM_SYSFS, driver))
		n = snprintf(line, sizeof(line), "echo %s > " PLATFORM_SYSFS "/drivers/%s/bind",
			     device, driver);
	else
		n = snprintf(line, sizeof(line), "modprobe %s", driver);
	return finish_line(line, n, sizeof(line), buf, size);
}

/* Copy a string into a fixed field, or leave the field empty if it does
 * not fit: a cut name would be a wrong name. */
static void set_field(char *field, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (len < size)
		memcpy(field, s, len + 1);
	else
		field[0] = '\0';
}

/* The last component of the symlink @dir/@name, e.g. a device's driver. */
static int read_link_base(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;
	int len = snprintf(path, sizeof(path), "%s/%s", dir, name);

	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	set_field(buf, size, base ? base + 1 : target);
	return 0;
}

/* Whether the hwmon class device @hwmon under @devpath is named @want.
 * Drivers that predate the hwmon attribute groups (w83793, and pc87427 for
 * a long time) keep "name" on the device itself, as libsensors knows. */
static bool hwmon_named(const char *devpath, const char *hwmon, const char *want)
{
	char path[PATH_MAX], name[HWS_DETECT_NAME_MAX];
	int n = snprintf(path, sizeof(path), "%s/hwmon/%s/name", devpath, hwmon);

	if (n < 0 || (size_t)n >= sizeof(path))
		return false;
	if (hws__read_attr(AT_FDCWD, path, name, sizeof(name)) < 0) {
		n = snprintf(path, sizeof(path), "%s/name", devpath);
		if (n < 0 || (size_t)n >= sizeof(path) ||
		    hws__read_attr(AT_FDCWD, path, name, sizeof(name)) < 0)
			return false;
	}
	return strcmp(name, want) == 0;
}

/* The hwmon class device under @devpath ("hwmon3"), if it has one named
 * @want (any name when @want is NULL). */
static void find_hwmon(const char *devpath, const char *want, char *buf, size_t size)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = snprintf(path, sizeof(path), "%s/hwmon", devpath);

	buf[0] = '\0';
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5) != 0)
			continue;
		if (want && !hwmon_named(devpath, de->d_name, want))
			continue;
		set_field(buf, size, de->d_name);
		break;
	}
	closedir(d);
}

/*
 * Fill @c's device fields from the sysfs device @devname under @sysdir.
 * Return: true if the device exists.
 */
static bool read_device(struct hws_detected_chip *c, const char *sysdir,
			const char *devname, const char *hwmon_name)
{
	char path[PATH_MAX], name_path[PATH_MAX + 8];
	int n = snprintf(path, sizeof(path), "%s/%s", sysdir, devname);

	if (n < 0 || (size_t)n >= sizeof(path) || access(path, F_OK) != 0)
		return false;
	set_field(c->device, sizeof(c->device), devname);
	snprintf(name_path, sizeof(name_path), "%s/name", path);
	if (hws__read_attr(AT_FDCWD, name_path, c->device_name, sizeof(c->device_name)) < 0)
		c->device_name[0] = '\0';
	if (read_link_base(path, "driver", c->bound_driver, sizeof(c->bound_driver)) < 0)
		c->bound_driver[0] = '\0';
	if (c->bound_driver[0])
		find_hwmon(path, hwmon_name, c->hwmon, sizeof(c->hwmon));
	return true;
}

/*
 * The scans gather their results in @l (a struct hws__array of struct
 * hws_detected_chip) before any callback runs, so that a call that fails
 * has not reported anything. Hand what they found to @cb, unless they
 * failed (@r < 0), and free the list either way: every public entry point
 * ends here.
 * Return: the number of chips handed over, the scans' error @r, or the
 * first negative return of @cb.
 */
static int chip_list_finish(int r, struct hws__array *l, hws_detect_cb cb, void *userdata)
{
	const struct hws_detected_chip *chips = l->v;

	for (size_t i = 0; r >= 0 && i < l->n; i++) {
		int q = cb(&chips[i], userdata);

		if (q < 0)
			r = q;
	}
	if (r >= 0)
		r = l->n > INT_MAX ? INT_MAX : (int)l->n;
	free(l->v);
	return r;
}

static int smbus_read(void *ctx, uint8_t reg)
{
	/* libi2c returns the byte or a negative errno. */
	return i2c_smbus_read_byte_data(*(const int *)ctx, reg);
}

static void set_known_chip(struct hws_detected_chip *c, const struct i2c_chip *k)
{
	c->chip = k->chip;
	c->description = k->description;
	c->driver = k->driver;
}

/* An address a driver owns: say which driver, and which chip if we know it. */
static void describe_bound(struct hws_detected_chip *c)
{
	c->state = HWS_DETECT_BOUND;
	c->bind_line[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(i2c_chips); i++)
		if (!strcmp(c->bound_driver, i2c_chips[i].driver) ||
		    !strcmp(c->device_name, i2c_chips[i].chip)) {
			set_known_chip(c, &i2c_chips[i]);
			return;
		}
}

static int probe_address(int fd, int bus, unsigned int addr, const char *adapter,
			 struct hws__array *out)
{
	struct hws_detected_chip c = { .bus = bus, .addr = (int)addr };
	char devname[32];

	snprintf(devname, sizeof(devname), "%d-%04x", bus, addr);
	set_field(c.adapter, sizeof(c.adapter), adapter);
	read_device(&c, I2C_SYSFS "/devices", devname, NULL);
	if (c.bound_driver[0]) {
		describe_bound(&c);
		return hws__array_push(out, &c);
	}
	if (ioctl(fd, I2C_SLAVE, (unsigned long)addr) < 0) {
		if (errno != EBUSY)
			return -errno;
		/* Bound since we looked, or by a client sysfs does not show. */
		read_device(&c, I2C_SYSFS "/devices", devname, NULL);
		describe_bound(&c);
		return hws__array_push(out, &c);
	}

	for (size_t i = 0; i < ARRAY_SIZE(i2c_chips); i++) {
		const struct i2c_chip *k = &i2c_chips[i];
		int r;

		if (addr < k->first || addr > k->last)
			continue;
		/* A read error is what an empty or foreign address looks like
		 * (ENXIO: no acknowledge); it ends the probe of this address,
		 * not the scan. */
		r = k->identify(addr, smbus_read, &fd);
		if (r < 0)
			return 0;
		if (r == 0)
			continue;
		c.state = HWS_DETECT_FOUND;
		set_known_chip(&c, k);
		r = hws_detect_bind_line(k->driver, bus, addr, c.device_name,
					 driver_registered(I2C_SYSFS, k->driver),
					 c.bind_line, sizeof(c.bind_line));
		if (r < 0)
			return r;
		return hws__array_push(out, &c);
	}
	return 0;
}

static bool address_wanted(unsigned int addr)
{
	for (size_t i = 0; i < ARRAY_SIZE(i2c_chips); i++)
		if (addr >= i2c_chips[i].first && addr <= i2c_chips[i].last)
			return true;
	return false;
}

static int scan_bus(int bus, struct hws__array *out)
{
	char path[64], adapter[HWS_DETECT_NAME_MAX] = "";
	unsigned long funcs;
	int fd, r = 0;

	if (bus < 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/dev/i2c-%d", bus);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, I2C_FUNCS, &funcs) < 0) {
		r = -errno;
		goto out;
	}
	if (!(funcs & I2C_FUNC_SMBUS_READ_BYTE_DATA)) {
		r = -EOPNOTSUPP;
		goto out;
	}
	snprintf(path, sizeof(path), I2C_SYSFS "/devices/i2c-%d/name", bus);
	if (hws__read_attr(AT_FDCWD, path, adapter, sizeof(adapter)) < 0)
		adapter[0] = '\0';

	for (unsigned int addr = 0x03; addr <= 0x77; addr++) {
		if (!address_wanted(addr))
			continue;
		r = probe_address(fd, bus, addr, adapter, out);
		if (r < 0)
			break;
	}
out:
	close(fd);
	return r;
}

static int compare_device(const void *a, const void *b)
{
	const struct hws_detected_chip *x = a, *y = b;

	return strverscmp(x->device, y->device);
}

static int scan_platform(struct hws__array *out)
{
	size_t first = out->n;
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(PLATFORM_SYSFS "/devices");
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (r == 0 && (de = readdir(d))) {
		for (size_t i = 0; i < ARRAY_SIZE(platform_chips); i++) {
			const struct platform_chip *k = &platform_chips[i];
			struct hws_detected_chip c = { .bus = -1, .addr = -1 };
			size_t len = strlen(k->driver);

			if (strncmp(de->d_name, k->driver, len) != 0 || de->d_name[len] != '.')
				continue;
			if (!read_device(&c, PLATFORM_SYSFS "/devices", de->d_name, k->hwmon_name))
				continue;
			c.chip = k->chip;
			c.description = k->description;
			c.driver = k->driver;
			if (c.bound_driver[0]) {
				c.state = HWS_DETECT_BOUND;
			} else {
				c.state = HWS_DETECT_FOUND;
				r = platform_bind_line(k->driver, c.device, c.bind_line,
						       sizeof(c.bind_line));
				if (r < 0)
					break;
			}
			r = hws__array_push(out, &c);
			break;
		}
	}
	closedir(d);
	if (r < 0)
		return r;
	/* readdir() order is the file system's; report in a stable one. */
	qsort(out->v + first, out->n - first, sizeof(*out->v), compare_device);
	return 0;
}

int hws_detect_list_buses(int *buses, size_t size)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if (!buses && size)
		return -EINVAL;
	d = opendir(I2C_DEV_CLASS);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long nr;
		size_t i;

		if (strncmp(de->d_name, "i2c-", 4) != 0 || !de->d_name[4])
			continue;
		errno = 0;
		nr = strtol(de->d_name + 4, &end, 10);
		if (*end || errno || nr < 0 || nr > INT_MAX)
			continue;
		/* Insertion keeps the lowest @size numbers, sorted. */
		for (i = n < size ? n : size; i > 0 && buses[i - 1] > nr; i--)
			if (i < size)
				buses[i] = buses[i - 1];
		if (i < size)
			buses[i] = (int)nr;
		n++;
	}
	closedir(d);
	return n > INT_MAX ? -EOVERFLOW : (int)n;
}

int hws_detect_bus(int bus, hws_detect_cb cb, void *userdata)
{
	struct hws__array l = HWS__ARRAY_INIT(struct hws_detected_chip);

	if (bus < 0 || !cb)
		return -EINVAL;
	return chip_list_finish(scan_bus(bus, &l), &l, cb, userdata);
}

int hws_detect_platform(hws_detect_cb cb, void *userdata)
{
	struct hws__array l = HWS__ARRAY_INIT(struct hws_detected_chip);

	if (!cb)
		return -EINVAL;
	return chip_list_finish(scan_platform(&l), &l, cb, userdata);
}

int hws_detect_all(hws_detect_cb cb, void *userdata)
{
	struct hws__array l = HWS__ARRAY_INIT(struct hws_detected_chip);
	int *buses = NULL;
	int n, r;

	if (!cb)
		return -EINVAL;
	n = hws_detect_list_buses(NULL, 0);
	if (n == -ENOENT)
		n = 0;
	if (n < 0)
		return n;
	if (n > 0) {
		buses = calloc((size_t)n, sizeof(*buses));
		if (!buses)
			return -ENOMEM;
		r = hws_detect_list_buses(buses, (size_t)n);
		if (r < 0)
			goto out;
		/* Buses that came or went since the count: scan what is here. */
		if (r < n)
			n = r;
	}
	for (int i = 0; i < n; i++) {
		r = scan_bus(buses[i], &l);
		if (r == -EOPNOTSUPP)
			continue;
		if (r < 0)
			goto out;
	}
	r = scan_platform(&l);
out:
	free(buses);
	return chip_list_finish(r, &l, cb, userdata);
}
