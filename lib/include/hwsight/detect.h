/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_DETECT_H
#define HWSIGHT_DETECT_H

/*
 * Finding hardware monitor chips that no driver drives yet, and saying how
 * to bind one, in the manner of lm-sensors' sensors-detect but read-only.
 *
 * I2C chips are identified over /dev/i2c-N (the i2c-dev module) with SMBus
 * byte reads of ID registers only, and only at the addresses a chip can
 * have. Nothing is ever written to a chip. An address that a kernel driver
 * already owns is not touched at all: it is reported as in use, with the
 * driver's name from sysfs, and the kernel itself refuses such addresses
 * (I2C_SLAVE fails with EBUSY), so a race with a driver binding is safe too.
 *
 * Chips known here:
 *  - Winbond W83793, I2C 0x2c-0x2f (driver w83793);
 *  - National PC87427, on Super-I/O ports rather than I2C: it cannot be
 *    probed without port I/O, so it is reported only when its platform
 *    device exists, which the pc87427 driver creates once it found the chip.
 *
 * Scanning needs read-write access to /dev/i2c-N (root, usually).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsight/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HWS_DETECT_NAME_MAX 64
#define HWS_DETECT_BIND_LINE_MAX 256

enum hws_detect_state {
	HWS_DETECT_FOUND,       /* identified, no driver bound: see bind_line */
	HWS_DETECT_BOUND,       /* a driver owns it; its registers were not read */
};

/*
 * One chip, or one address in use. Strings are NUL-terminated; an empty
 * string means "none" or "unknown".
 */
struct hws_detected_chip {
	enum hws_detect_state state;
	int bus;                /* I2C bus number, -1 for a Super-I/O chip */
	int addr;               /* 7-bit I2C address, -1 for a Super-I/O chip */
	/* The chip ("w83793"), a description ("Winbond W83793") and the kernel
	 * driver that supports it, static strings; NULL for an address in use
	 * by a driver hwsight does not know. */
	const char *chip;
	const char *description;
	const char *driver;
	char adapter[HWS_DETECT_NAME_MAX];      /* I2C adapter name */
	char device[HWS_DETECT_NAME_MAX];       /* sysfs device: "0-002f", "pc87427.2048" */
	char device_name[HWS_DETECT_NAME_MAX];  /* that device's "name" attribute */
	char bound_driver[HWS_DETECT_NAME_MAX]; /* driver bound to the device */
	char hwmon[HWS_DETECT_NAME_MAX];        /* "hwmon3", when bound and registered */
	char bind_line[HWS_DETECT_BIND_LINE_MAX]; /* shell command; "" when bound */
};

/*
 * Called once per chip found or address in use, in address order. Return 0
 * to go on; a negative errno stops the scan, and the scanning call returns
 * it. The chip is only valid during the call.
 */
typedef int (*hws_detect_cb)(const struct hws_detected_chip *chip, void *userdata);

/* Reads one register of the chip under test: its value (0-255) or a
 * negative errno. */
typedef int (*hws_detect_read_fn)(void *ctx, uint8_t reg);

/**
 * hws_detect_w83793_identify - decide from its ID registers whether a chip
 * is a Winbond W83793
 * @addr: the 7-bit address the chip answers at
 * @read_reg: reads one register of that chip
 * @ctx: passed to @read_reg
 *
 * The same test as the kernel driver's detection: the vendor ID register
 * (0x0d) shows 0xa3 or, when bit 7 of the bank register (0x00) is set, 0x5c;
 * in bank 0 the address register (0x0b) holds @addr << 1; the chip ID
 * register (0x0e) is 0x7b. Only these four registers are read, each at most
 * once, and reading stops at the first mismatch, so that a foreign chip is
 * touched as little as possible. Nothing is written: the bank is never
 * switched (register 0x0b is read only when bank 0 happens to be selected).
 * Addresses other than 0x2c-0x2f are rejected without a read.
 *
 * Return: 1 if the chip is a W83793, 0 if not, or the negative errno of the
 * first read that failed.
 */
HWS_EXPORT int hws_detect_w83793_identify(unsigned int addr, hws_detect_read_fn read_reg, void *ctx);

/**
 * hws_detect_bind_line - the shell command that binds a driver to a chip
 * @driver: kernel driver (module) name, "w83793"
 * @bus: I2C bus number
 * @addr: 7-bit I2C address
 * @device_name: the "name" of the I2C device already at @addr, or NULL or
 *               "" when there is none
 * @driver_loaded: whether @driver is registered (/sys/bus/i2c/drivers/@driver)
 * @buf: where to write the command
 * @size: size of @buf
 *
 * With no device at @addr the command instantiates one and then loads the
 * driver ("echo w83793 0x2f > /sys/bus/i2c/devices/i2c-0/new_device &&
 * modprobe w83793"): in that order it also works on adapters of class
 * hwmon, where loading the driver first would let its own detection claim
 * the address and make the new_device write fail with EBUSY. A device
 * already at @addr is bound as it is (driver loaded: "echo 0-002f >
 * .../drivers/w83793/bind"; not loaded: "modprobe w83793", which binds it)
 * or, if it has another name, deleted and instantiated again.
 *
 * Return: the length of the command, -EINVAL for a bad argument, or
 * -ENOBUFS if it does not fit in @size bytes.
 */
HWS_EXPORT int hws_detect_bind_line(const char *driver, int bus, unsigned int addr,
				    const char *device_name, bool driver_loaded,
				    char *buf, size_t size);

/**
 * hws_detect_list_buses - the I2C buses that have a /dev/i2c-N node
 * @buses: where to store the bus numbers, lowest first; may be NULL if
 *         @size is 0
 * @size: room in @buses
 *
 * Like snprintf(), stores at most @size numbers and returns how many there
 * are in all, so a caller can call again with more room.
 *
 * Return: the number of buses (0 if there are none), -ENOENT if i2c-dev is
 * not loaded (/sys/class/i2c-dev is missing), or another negative errno.
 */
HWS_EXPORT int hws_detect_list_buses(int *buses, size_t size);

/**
 * hws_detect_bus - find supported chips on one I2C bus
 * @bus: bus number, as in /dev/i2c-N
 * @cb: called for each chip found or address in use
 * @userdata: passed to @cb
 *
 * The whole bus is scanned before @cb runs, so on failure @cb never runs.
 * An address that does not answer, or answers with other IDs, is skipped
 * silently.
 *
 * Return: the number of chips reported, -ENOENT if /dev/i2c-@bus does not
 * exist, -EACCES if it cannot be opened read-write, -EOPNOTSUPP if the
 * adapter cannot do SMBus byte-data reads, a negative errno from @cb, or
 * another negative errno.
 */
HWS_EXPORT int hws_detect_bus(int bus, hws_detect_cb cb, void *userdata);

/**
 * hws_detect_platform - report supported chips that the kernel found on
 * Super-I/O ports (PC87427), from their platform devices
 * @cb: called for each chip
 * @userdata: passed to @cb
 *
 * Return: the number of chips reported, a negative errno from @cb, or
 * another negative errno (then @cb never ran).
 */
HWS_EXPORT int hws_detect_platform(hws_detect_cb cb, void *userdata);

/**
 * hws_detect_all - hws_detect_bus() on every bus, then hws_detect_platform()
 * @cb: called for each chip found or address in use
 * @userdata: passed to @cb
 *
 * Buses whose adapter cannot do SMBus byte-data reads are skipped; any
 * other failure fails the whole call, before @cb has run. Having no I2C
 * bus, or no i2c-dev, is not an error: the platform devices are still
 * reported.
 *
 * Return: the number of chips reported, a negative errno from @cb, or the
 * first bus's negative errno (-EACCES when not root).
 */
HWS_EXPORT int hws_detect_all(hws_detect_cb cb, void *userdata);

#ifdef __cplusplus
}
#endif

#endif
