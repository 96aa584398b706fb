/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fan-script CHIP STEP...: drives <hwsight/fan.h> step by step for the
 * lab's fan check, holding several outputs of one chip in one process so
 * that the order of takes and releases is the test's to choose. Steps:
 *
 *   take:pwmN  set:pwmN:VALUE  check:pwmN  release:pwmN  saved:pwmN
 *   restore:LINE  write:ATTR:VALUE (another program writes the chip's ATTR)
 *   die (exit holding everything, as kill -9 would leave it)
 *
 * Each step prints one line ("check pwm1 1", "set pwm1 177 176" with the
 * value read back, "saved pwm1 v1 ..."); the first failure prints what
 * failed on stderr and exits 1. A test tool, never installed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsight/fan.h>
#include <hwsight/sensors.h>

#define MAX_FANS 8

static struct hws_fan *fans[MAX_FANS];
static char names[MAX_FANS][16];

static struct hws_fan *fan(const struct hws_chip *chip, const char *name)
{
	int r;

	for (int i = 0; i < MAX_FANS; i++)
		if (fans[i] && !strcmp(names[i], name))
			return fans[i];
	for (int i = 0; i < MAX_FANS; i++) {
		if (fans[i])
			continue;
		r = hws_fan_open(chip, name, NULL, &fans[i]);
		if (r < 0) {
			fprintf(stderr, "fan-script: open %s: %s\n", name, strerror(-r));
			exit(1);
		}
		snprintf(names[i], sizeof(names[i]), "%s", name);
		return fans[i];
	}
	fprintf(stderr, "fan-script: more than %d outputs\n", MAX_FANS);
	exit(1);
}

static int step(const struct hws_chip *chip, char *arg)
{
	char *verb = arg, *name = strchr(arg, ':'), *value;
	struct hws_fan_info info;
	char line[4096];
	int r;

	if (!strcmp(arg, "die"))
		_exit(0);
	if (!name)
		return -EINVAL;
	*name++ = '\0';
	if (!strcmp(verb, "restore")) {
		r = hws_fan_restore_saved(name);
		printf("restore %d\n", r);
		return r;
	}
	value = strchr(name, ':');
	if (value)
		*value++ = '\0';
	if (!strcmp(verb, "write") && value) {
		FILE *f;

		snprintf(line, sizeof(line), "%s/%s", chip->path, name);
		f = fopen(line, "w");
		r = f && fprintf(f, "%s\n", value) > 0 ? 0 : -EIO;
		if (f && fclose(f) != 0)
			r = -errno;
		printf("write %d\n", r);
	} else if (!strcmp(verb, "take")) {
		r = hws_fan_take(fan(chip, name));
		printf("take %s %d\n", name, r);
	} else if (!strcmp(verb, "set") && value) {
		r = hws_fan_set(fan(chip, name), atol(value));
		if (r >= 0)
			r = hws_fan_info(fan(chip, name), &info);
		printf("set %s %s %ld\n", name, value, r < 0 ? -1L : info.value);
	} else if (!strcmp(verb, "check")) {
		r = hws_fan_check(fan(chip, name));
		printf("check %s %d\n", name, r);
	} else if (!strcmp(verb, "release")) {
		r = hws_fan_release(fan(chip, name));
		printf("release %s %d\n", name, r);
	} else if (!strcmp(verb, "saved")) {
		r = hws_fan_saved(fan(chip, name), line, sizeof(line));
		if (r >= 0)
			printf("saved %s %s\n", name, line);
	} else {
		return -EINVAL;
	}
	return r < 0 ? r : 0;
}

int main(int argc, char **argv)
{
	const struct hws_chip *chip = NULL;
	struct hws_sensors *s;
	int r, status = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: fan-script CHIP STEP...\n");
		return 2;
	}
	r = hws_sensors_new(NULL, &s);
	if (r < 0) {
		fprintf(stderr, "fan-script: sensors: %s\n", strerror(-r));
		return 1;
	}
	for (size_t i = 0; i < hws_sensors_chip_count(s); i++)
		if (hws_sensors_chip_match(s, hws_sensors_chip(s, i), argv[1]) > 0)
			chip = hws_sensors_chip(s, i);
	if (!chip) {
		fprintf(stderr, "fan-script: no chip %s\n", argv[1]);
		hws_sensors_free(s);
		return 1;
	}
	for (int i = 2; i < argc && !status; i++) {
		r = step(chip, argv[i]);
		fflush(stdout);
		if (r < 0) {
			fprintf(stderr, "fan-script: %s: %s\n", argv[i], strerror(-r));
			status = 1;
		}
	}
	for (int i = 0; i < MAX_FANS; i++)
		hws_fan_free(fans[i]);
	hws_sensors_free(s);
	return status;
}
