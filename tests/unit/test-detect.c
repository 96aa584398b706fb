/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The W83793 identification and the bind line, without hardware: a fake
 * chip answers register reads from a table and records which registers
 * were read, because reading as little as possible of a foreign chip is
 * part of being safe. The real bus scan is tested in the lab
 * (tests/vm/checks/detect.sh).
 */
#include <hwsight/detect.h>

#include "task.h"

struct fake_chip {
	int regs[256];  /* value, or a negative errno to fail the read */
	uint8_t log[16];
	int nreads;
};

static int fake_read(void *ctx, uint8_t reg)
{
	struct fake_chip *f = ctx;

	if (f->nreads == (int)sizeof(f->log))
		FAIL("more than %zu reads", sizeof(f->log));
	f->log[f->nreads++] = reg;
	return f->regs[reg];
}

/* A W83793 at @addr with bank register @bank; the vendor ID register shows
 * the byte the bank register's bit 7 selects, as the real chip does. */
static void w83793_at(struct fake_chip *f, unsigned int addr, int bank)
{
	memset(f, 0, sizeof(*f));
	f->regs[0x00] = bank;
	f->regs[0x0d] = (bank & 0x80) ? 0x5c : 0xa3;
	f->regs[0x0e] = 0x7b;
	f->regs[0x0b] = (int)(addr << 1);
	/* Something plausible everywhere else. */
	f->regs[0x0c] = 0x88;
	f->regs[0x0f] = 0x01;
}

static bool was_read(const struct fake_chip *f, uint8_t reg)
{
	for (int i = 0; i < f->nreads; i++)
		if (f->log[i] == reg)
			return true;
	return false;
}

static int identify(unsigned int addr, struct fake_chip *f)
{
	return hws_detect_w83793_identify(addr, fake_read, f);
}

TEST(w83793_bank0)
{
	struct fake_chip f;

	w83793_at(&f, 0x2f, 0x00);
	ASSERT_EQ(identify(0x2f, &f), 1);
	/* In the driver's order, each once, nothing else. */
	ASSERT_EQ(f.nreads, 4);
	ASSERT_EQ(f.log[0], 0x00);
	ASSERT_EQ(f.log[1], 0x0d);
	ASSERT_EQ(f.log[2], 0x0b);
	ASSERT_EQ(f.log[3], 0x0e);
}

TEST(w83793_every_address)
{
	struct fake_chip f;

	for (unsigned int addr = 0x2c; addr <= 0x2f; addr++) {
		w83793_at(&f, addr, 0x00);
		ASSERT_EQ(identify(addr, &f), 1);
	}
}

TEST(w83793_high_vendor_byte)
{
	struct fake_chip f;

	/* Bank 0 with HBACS set: 0x0d shows 0x5c, and the address is checked. */
	w83793_at(&f, 0x2d, 0x80);
	ASSERT_EQ(identify(0x2d, &f), 1);
	ASSERT_TRUE(was_read(&f, 0x0b));

	/* The low byte where the high one is due is someone else's chip. */
	w83793_at(&f, 0x2d, 0x80);
	f.regs[0x0d] = 0xa3;
	ASSERT_EQ(identify(0x2d, &f), 0);

	w83793_at(&f, 0x2d, 0x00);
	f.regs[0x0d] = 0x5c;
	ASSERT_EQ(identify(0x2d, &f), 0);
}

TEST(w83793_other_bank_skips_address_register)
{
	struct fake_chip f;
	static const int banks[] = { 0x01, 0x02, 0x81, 0x82 };

	/* In banks 1 and 2 register 0x0b is something else: it must not be
	 * read, let alone decide, and the bank must not be switched. */
	for (size_t i = 0; i < sizeof(banks) / sizeof(banks[0]); i++) {
		w83793_at(&f, 0x2e, banks[i]);
		f.regs[0x0b] = 0x12;
		ASSERT_EQ(identify(0x2e, &f), 1);
		ASSERT_FALSE(was_read(&f, 0x0b));
		ASSERT_EQ(f.nreads, 3);
	}
}

TEST(w83793_wrong_vendor)
{
	struct fake_chip f;

	w83793_at(&f, 0x2f, 0x00);
	f.regs[0x0d] = 0x00;
	ASSERT_EQ(identify(0x2f, &f), 0);
	/* A foreign chip is left alone after the first mismatch. */
	ASSERT_EQ(f.nreads, 2);
	ASSERT_FALSE(was_read(&f, 0x0e));

	/* Another Winbond chip shows 0xa3 too, but a different chip ID. */
	w83793_at(&f, 0x2f, 0x00);
	f.regs[0x0d] = 0xa3;
	f.regs[0x0e] = 0xc1; /* W83627DHG-style ID, not 0x7b */
	ASSERT_EQ(identify(0x2f, &f), 0);
}

TEST(w83793_wrong_chip_id)
{
	struct fake_chip f;

	w83793_at(&f, 0x2f, 0x00);
	f.regs[0x0e] = 0x7a;
	ASSERT_EQ(identify(0x2f, &f), 0);
	w83793_at(&f, 0x2f, 0x02);
	f.regs[0x0e] = 0x00;
	ASSERT_EQ(identify(0x2f, &f), 0);
}

TEST(w83793_wrong_address_register)
{
	struct fake_chip f;

	/* A chip at 0x2f that says it is at 0x2e is not a W83793 at 0x2f. */
	w83793_at(&f, 0x2e, 0x00);
	ASSERT_EQ(identify(0x2f, &f), 0);
	ASSERT_FALSE(was_read(&f, 0x0e));

	/* Unshifted address: a common mistake in a register dump. */
	w83793_at(&f, 0x2f, 0x00);
	f.regs[0x0b] = 0x2f;
	ASSERT_EQ(identify(0x2f, &f), 0);
}

TEST(w83793_only_its_addresses)
{
	struct fake_chip f;
	static const unsigned int elsewhere[] = { 0x03, 0x2b, 0x30, 0x48, 0x77 };

	for (size_t i = 0; i < sizeof(elsewhere) / sizeof(elsewhere[0]); i++) {
		w83793_at(&f, elsewhere[i], 0x00);
		ASSERT_EQ(identify(elsewhere[i], &f), 0);
		ASSERT_EQ(f.nreads, 0);
	}
}

TEST(w83793_read_errors)
{
	struct fake_chip f;

	/* Nobody home: the first read is not acknowledged. */
	w83793_at(&f, 0x2c, 0x00);
	f.regs[0x00] = -ENXIO;
	ASSERT_EQ(identify(0x2c, &f), -ENXIO);
	ASSERT_EQ(f.nreads, 1);

	w83793_at(&f, 0x2c, 0x00);
	f.regs[0x0e] = -EIO;
	ASSERT_EQ(identify(0x2c, &f), -EIO);

	ASSERT_EQ(hws_detect_w83793_identify(0x2c, NULL, NULL), -EINVAL);
}

static void bind_line_is(const char *driver, int bus, unsigned int addr, const char *device_name,
			 bool loaded, const char *want)
{
	char buf[HWS_DETECT_BIND_LINE_MAX];
	int n = hws_detect_bind_line(driver, bus, addr, device_name, loaded, buf, sizeof(buf));

	ASSERT_EQ(n, (int64_t)strlen(want));
	ASSERT_STR_EQ(buf, want);
}

TEST(bind_line_new_device)
{
	/* Instantiate first, then load: on a class-hwmon adapter the driver's
	 * own detection would otherwise take the address first. */
	bind_line_is("w83793", 0, 0x2f, NULL, false,
		     "echo w83793 0x2f > /sys/bus/i2c/devices/i2c-0/new_device && modprobe w83793");
	bind_line_is("w83793", 12, 0x2c, "", true,
		     "echo w83793 0x2c > /sys/bus/i2c/devices/i2c-12/new_device && modprobe w83793");
}

TEST(bind_line_existing_device)
{
	/* Unbound by hand: bind it back. */
	bind_line_is("w83793", 0, 0x2f, "w83793", true,
		     "echo 0-002f > /sys/bus/i2c/drivers/w83793/bind");
	/* Driver not loaded: loading it binds the device. */
	bind_line_is("w83793", 1, 0x2e, "w83793", false, "modprobe w83793");
	/* Someone instantiated it as something else. */
	bind_line_is("w83793", 1, 0x2e, "lm75", true,
		     "echo 0x2e > /sys/bus/i2c/devices/i2c-1/delete_device && "
		     "echo w83793 0x2e > /sys/bus/i2c/devices/i2c-1/new_device && modprobe w83793");
}

TEST(bind_line_errors)
{
	char buf[HWS_DETECT_BIND_LINE_MAX], small[16];

	/* The driver name goes into a shell command. */
	ASSERT_EQ(hws_detect_bind_line("w83793; reboot", 0, 0x2f, NULL, false, buf, sizeof(buf)), -EINVAL);
	ASSERT_EQ(hws_detect_bind_line("-r", 0, 0x2f, NULL, false, buf, sizeof(buf)), -EINVAL);
	ASSERT_EQ(hws_detect_bind_line("..", 0, 0x2f, "x", true, buf, sizeof(buf)), -EINVAL);
	ASSERT_EQ(hws_detect_bind_line("", 0, 0x2f, NULL, false, buf, sizeof(buf)), -EINVAL);
	ASSERT_EQ(hws_detect_bind_line(NULL, 0, 0x2f, NULL, false, buf, sizeof(buf)), -EINVAL);
	ASSERT_EQ(hws_detect_bind_line("w83793", -1, 0x2f, NULL, false, buf, sizeof(buf)), -EINVAL);
	ASSERT_EQ(hws_detect_bind_line("w83793", 0, 0x78, NULL, false, buf, sizeof(buf)), -EINVAL);
	ASSERT_EQ(hws_detect_bind_line("w83793", 0, 0x2f, NULL, false, NULL, 0), -EINVAL);
	/* Too small: an error, and the buffer as it was, not a cut command. */
	strcpy(small, "untouched");
	ASSERT_EQ(hws_detect_bind_line("w83793", 0, 0x2f, NULL, false, small, sizeof(small)), -ENOBUFS);
	ASSERT_STR_EQ(small, "untouched");
}

static int count_calls(const struct hws_detected_chip *chip, void *userdata)
{
	(void)chip;
	(*(int *)userdata)++;
	return 0;
}

TEST(bus_errors_run_no_callback)
{
	int calls = 0;

	ASSERT_EQ(hws_detect_bus(-1, count_calls, &calls), -EINVAL);
	ASSERT_EQ(hws_detect_bus(0, NULL, NULL), -EINVAL);
	/* No machine has this many buses. */
	ASSERT_EQ(hws_detect_bus(2147483647, count_calls, &calls), -ENOENT);
	ASSERT_EQ(calls, 0);
	ASSERT_EQ(hws_detect_list_buses(NULL, 3), -EINVAL);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
