/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Chip detection (lib/detect/detect.c) on what a foreign chip and sysfs can
 * say:
 *  - hws_detect_w83793_identify() against a chip answering any register
 *    with any value or error. Whatever it answers, only the four ID
 *    registers are read, each at most once, nothing at an address a W83793
 *    cannot have, and "yes" needs the ID bytes the kernel driver checks;
 *  - hws_detect_bind_line() with any driver and device name and buffer
 *    size. A command comes out only for a plain driver name, is as long as
 *    it says, holds nothing a shell would treat specially, and a buffer too
 *    small is left untouched.
 *
 * Input: addr:1 bus:2 flags:1 size:1, then four register answers (ctl:1
 * value:1; ctl 0xf0 and above is an error), then "driver\0device".
 */
#include <ctype.h>
#include <errno.h>

#include <hwsight/detect.h>

#include "fuzz.h"

struct chip {
	const uint8_t *answers;  /* 4 x (ctl, value) */
	int n_reads;
	int reads[256];          /* per register */
	int value[256];          /* what it answered */
	int last;                /* the last answer */
};

static int read_reg(void *ctx, uint8_t reg)
{
	struct chip *c = ctx;
	const uint8_t *a;

	FUZZ_CHECK(c->n_reads < 4, "a fifth read (register %#x)", reg);
	a = &c->answers[2 * c->n_reads++];
	c->reads[reg]++;
	if (a[0] >= 0xf0)
		c->last = a[0] & 1 ? -EIO : -ENXIO;
	else
		c->last = a[1];
	c->value[reg] = c->last;
	return c->last;
}

static void check_identify(unsigned addr, const uint8_t answers[8])
{
	struct chip c = { .answers = answers };
	int r = hws_detect_w83793_identify(addr, read_reg, &c);

	for (int reg = 0; reg < 256; reg++) {
		FUZZ_CHECK(c.reads[reg] <= 1, "register %#x read %d times", reg, c.reads[reg]);
		if (c.reads[reg])
			FUZZ_CHECK(reg == 0x00 || reg == 0x0b || reg == 0x0d || reg == 0x0e,
				   "register %#x read: not an ID register", reg);
	}
	if (addr < 0x2c || addr > 0x2f) {
		FUZZ_CHECK(r == 0 && c.n_reads == 0, "address %#x: %d after %d reads", addr, r, c.n_reads);
		return;
	}
	FUZZ_CHECK(r == 0 || r == 1 || (r < 0 && r == c.last), "address %#x: %d, last read %d", addr, r,
		   c.last);
	if (r == 1) {
		int bank = c.value[0x00];

		FUZZ_CHECK(c.reads[0x00] && c.reads[0x0d] && c.reads[0x0e], "a W83793 without its ID read");
		FUZZ_CHECK(c.value[0x0e] == 0x7b, "chip ID %#x", c.value[0x0e]);
		FUZZ_CHECK(c.value[0x0d] == ((bank & 0x80) ? 0x5c : 0xa3), "vendor %#x in bank %#x",
			   c.value[0x0d], bank);
		if ((bank & 0x07) == 0)
			FUZZ_CHECK(c.reads[0x0b] && c.value[0x0b] == (int)(addr << 1),
				   "address register %#x at %#x", c.value[0x0b], addr);
	}
}

static bool plain_name(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == strlen(s);
}

static void check_bind_line(const char *driver, int bus, unsigned addr, const char *device, bool loaded,
			    size_t size)
{
	char buf[512];
	int r;

	memset(buf, '#', sizeof(buf));
	r = hws_detect_bind_line(driver, bus, addr, device, loaded, buf, size);
	if (!plain_name(driver) || bus < 0 || addr < 0x03 || addr > 0x77 || size == 0) {
		FUZZ_CHECK(r == -EINVAL, "driver \"%s\", bus %d, address %#x, %zu bytes: %d", driver, bus, addr,
			   size, r);
		return;
	}
	if (r == -ENOBUFS) {
		for (size_t i = 0; i < sizeof(buf); i++)
			FUZZ_CHECK(buf[i] == '#', "a buffer of %zu bytes changed at %zu", size, i);
		return;
	}
	FUZZ_CHECK(r >= 0, "driver \"%s\", bus %d, address %#x: %d", driver, bus, addr, r);
	FUZZ_CHECK((size_t)r < size && buf[r] == '\0' && strlen(buf) == (size_t)r,
		   "%d bytes said, \"%.*s\" written in %zu", r, (int)size, buf, size);
	FUZZ_CHECK(strspn(buf, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./ >&") ==
			   (size_t)r,
		   "\"%s\" has a character a shell treats specially", buf);
	FUZZ_CHECK(strstr(buf, driver), "\"%s\" does not name the driver %s", buf, driver);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned addr = (unsigned)fuzz_take(&in, 1);
	int bus = (int16_t)fuzz_take(&in, 2);
	unsigned flags = (unsigned)fuzz_take(&in, 1);
	size_t bufsize = (size_t)fuzz_take(&in, 1) * 2;
	uint8_t answers[8];
	char *names, *device;

	for (size_t i = 0; i < sizeof(answers); i++)
		answers[i] = (uint8_t)fuzz_take(&in, 1);
	check_identify(addr, answers);

	names = fuzz_string(in.p, in.n);
	device = in.n > strlen(names) ? names + strlen(names) + 1 : NULL;
	check_bind_line(names, bus, addr & 0x7f, (flags & 2) ? device : NULL, flags & 1, bufsize);
	free(names);
	return 0;
}
