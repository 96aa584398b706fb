/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sensors context against testbeds changed under it, as hardware and
 * admins change a running machine: an attribute that goes away while its
 * chip stays, and a chip that appears after sensors.conf was broken. Every
 * reader must give the same answer. (A chip that goes away whole is the
 * lab's to test: files unlinked under umockdev stay readable through the
 * descriptors the fast readers keep, where sysfs says ENODEV.)
 */
#include <fcntl.h>
#include <sys/stat.h>

#include <hwsight/sensors.h>

#include "testbed.h"

#define CHIP_A "/devices/platform/it87.656"
#define CHIP_B "/devices/platform/coretemp.0"

/* A platform chip as drivers/hwmon/it87.c registers it: the attributes on
 * the hwmon class device, which points back at its platform device. */
static void add_it87(UMockdevTestbed *tb)
{
	add(tb, "P: " CHIP_A "\n"
		"E: SUBSYSTEM=platform\n"
		"E: DRIVER=it87\n"
		"A: modalias=platform:it87\\n\n"
		"\n"
		"P: " CHIP_A "/hwmon/hwmon2\n"
		"E: SUBSYSTEM=hwmon\n"
		"L: device=../../../it87.656\n"
		"A: name=it8728\\n\n"
		"A: temp1_input=40000\\n\n"
		"A: temp1_max=70000\\n\n"
		"A: temp2_input=35000\\n\n"
		"A: temp2_max=75000\\n\n");
}

static void add_coretemp(UMockdevTestbed *tb)
{
	add(tb, "P: " CHIP_B "\n"
		"E: SUBSYSTEM=platform\n"
		"E: DRIVER=coretemp\n"
		"A: modalias=platform:coretemp\\n\n"
		"\n"
		"P: " CHIP_B "/hwmon/hwmon3\n"
		"E: SUBSYSTEM=hwmon\n"
		"L: device=../../../coretemp.0\n"
		"A: name=coretemp\\n\n"
		"A: temp1_input=52000\\n\n"
		"A: temp1_crit=100000\\n\n");
}

static const struct hws_subfeature *sub(const struct hws_chip *chip, const char *name)
{
	for (size_t f = 0; f < chip->n_features; f++)
		for (size_t i = 0; i < chip->features[f].n_subfeatures; i++)
			if (!strcmp(chip->features[f].subfeatures[i].name, name))
				return &chip->features[f].subfeatures[i];
	FAIL("%s has no %s", chip->name, name);
	return NULL;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fputs(text, f) >= 0, 1);
	ASSERT_EQ(fclose(f), 0);
}

/* A context on the it87 alone, temp1 labelled "CPU" by a config in a file
 * of its own (@conf, a mkstemp() template) that the case rewrites. */
static struct hws_sensors *it87_labelled(UMockdevTestbed *tb, char *conf, struct hws_sensors_options *o)
{
	struct hws_sensors *s;
	int fd = mkstemp(conf);

	ASSERT_TRUE(fd >= 0);
	close(fd);
	write_file(conf, "chip \"it8728-*\"\n    label temp1 \"CPU\"\n");
	o->config = conf;
	add_it87(tb);
	ASSERT_EQ(hws_sensors_new(o, &s), 0);
	ASSERT_EQ(hws_sensors_chip_count(s), 1);
	ASSERT_STR_EQ(hws_sensors_chip(s, 0)->features[0].label, "CPU");
	return s;
}

/* A context made by it87_labelled() with the fast reader, and then what
 * an admin and the hardware do to it: a line added to its sensors.conf
 * that libsensors refuses, and a chip that appears. */
struct broken_conf {
	UMockdevTestbed *tb;
	struct hws_sensors_options o;
	char conf[sizeof("/tmp/hwsight-sensors-conf-XXXXXX")];
	struct hws_sensors *s;
};

static void broken_conf_start(struct broken_conf *b)
{
	*b = (struct broken_conf){
		.tb = testbed(),
		.o = { .reader = HWS_READER_FAST },
		.conf = "/tmp/hwsight-sensors-conf-XXXXXX",
	};
	b->s = it87_labelled(b->tb, b->conf, &b->o);
	/* (Not an unclosed quote: libsensors 3.6 leaks a token on that.) */
	write_file(b->conf, "chip \"it8728-*\"\n    label temp1 \"CPU\"\n    nonsense here\n");
	add_coretemp(b->tb);
}

/* The context must have been freed. */
static void broken_conf_end(struct broken_conf *b)
{
	unlink(b->conf);
	g_object_unref(b->tb);
}

/* temp1_max removed before its first read: the chip stays, the value says
 * ENOENT, the rest reads on. The io_uring reader used to drop the chip. */
static void missing_attribute(enum hws_sensors_reader reader)
{
	UMockdevTestbed *tb = testbed();
	struct hws_sensors_options o = { .config = "/dev/null", .reader = reader };
	const struct hws_chip *chip;
	struct hws_sensors *s;
	gchar *sys, *path;

	add_it87(tb);
	ASSERT_EQ(hws_sensors_new(&o, &s), 0);
	ASSERT_EQ(hws_sensors_chip_count(s), 1);
	/* The testbed hands its directory over as a string of our own. */
	sys = umockdev_testbed_get_sys_dir(tb);
	path = g_strconcat(sys, CHIP_A "/hwmon/hwmon2/temp1_max", NULL);
	ASSERT_EQ(unlink(path), 0);
	g_free(path);
	g_free(sys);

	ASSERT_EQ(hws_sensors_read(s, 0), 3);
	chip = hws_sensors_chip(s, 0);
	ASSERT_TRUE(chip->present);
	ASSERT_EQ(sub(chip, "temp1_max")->error, -ENOENT);
	ASSERT_EQ(sub(chip, "temp1_input")->error, 0);
	ASSERT_EQ(sub(chip, "temp1_input")->value, 40.0);
	ASSERT_EQ(sub(chip, "temp2_max")->value, 75.0);
	ASSERT_EQ(hws_sensors_read_chip(s, 0, HWS_READ_SETTINGS), 3);
	hws_sensors_free(s);
	g_object_unref(tb);
}

TEST(missing_attribute_fast) { missing_attribute(HWS_READER_FAST); }
TEST(missing_attribute_pread) { missing_attribute(HWS_READER_PREAD); }
TEST(missing_attribute_libsensors) { missing_attribute(HWS_READER_LIBSENSORS); }

/* The config that was accepted at the start stays in force until the
 * caller makes a new context: a sensors.conf broken since then must not
 * drop every chip when a new one appears. */
TEST(rescan_keeps_the_config_it_started_with)
{
	struct broken_conf b;

	broken_conf_start(&b);
	ASSERT_EQ(hws_sensors_rescan(b.s), 1);
	ASSERT_EQ(hws_sensors_chip_count(b.s), 2);
	for (size_t i = 0; i < 2; i++) {
		const struct hws_chip *chip = hws_sensors_chip(b.s, i);

		if (!strncmp(chip->name, "it8728-", 7))
			ASSERT_STR_EQ(chip->features[0].label, "CPU");
		else
			ASSERT_STR_EQ(chip->name, "coretemp-isa-0000");
	}
	ASSERT_EQ(hws_sensors_read(b.s, 0), 6);
	hws_sensors_free(b.s);

	/* A new context reads the config again, and refuses it now. */
	ASSERT_EQ(hws_sensors_new(&b.o, &b.s), -EINVAL);
	broken_conf_end(&b);
}

/* A reload told to use a broken config goes on with the one it had; a
 * good one, and another reader, come into force. */
TEST(reconfigure_is_all_or_nothing)
{
	struct broken_conf b;

	broken_conf_start(&b);
	b.o.reader = HWS_READER_LIBSENSORS;
	ASSERT_EQ(hws_sensors_reconfigure(b.s, &b.o), -EINVAL);
	ASSERT_EQ(hws_sensors_chip_count(b.s), 2);
	ASSERT_STR_EQ(hws_sensors_chip(b.s, 0)->features[0].label, "CPU");
	ASSERT_EQ(hws_sensors_read(b.s, 0), 6);

	write_file(b.conf, "chip \"it8728-*\"\n    label temp1 \"Board\"\n");
	ASSERT_EQ(hws_sensors_reconfigure(b.s, &b.o), 0);
	ASSERT_EQ(hws_sensors_chip_count(b.s), 2);
	ASSERT_STR_EQ(hws_sensors_chip(b.s, 0)->features[0].label, "Board");
	ASSERT_EQ(hws_sensors_read(b.s, 0), 6);

	b.o.config = "/nonexistent/sensors.conf";
	ASSERT_EQ(hws_sensors_reconfigure(b.s, &b.o), -ENOENT);
	ASSERT_STR_EQ(hws_sensors_chip(b.s, 0)->features[0].label, "Board");
	hws_sensors_free(b.s);
	broken_conf_end(&b);
}

int main(int argc, char **argv) { return hws_test_main(argc, argv); }
