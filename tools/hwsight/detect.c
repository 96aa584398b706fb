/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight detect: which monitor chips are there that no driver drives yet,
 * and the command that binds the driver, read-only (see <hwsight/detect.h>).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsight/detect.h>

#include "commands.h"
#include "options.h"
#include "output.h"

struct options {
	int bus; /* -1: every bus, and the Super-I/O chips */
	bool json;
};

enum bus_status { BUS_SCANNED, BUS_SKIPPED, BUS_FAILED };

struct bus_result {
	int bus;
	enum bus_status status;
	int error; /* negative errno, for BUS_SKIPPED and BUS_FAILED */
};

/* What the callbacks print into, and what they count. */
struct report {
	bool json;
	int last_bus;         /* header printed for, in text; INT_MIN for none */
	bool super_io_header; /* "Super-I/O:" printed */
	size_t chips;
	size_t found;
};

static const struct hws__cli_command command = {
	.name = "detect",
	.head = "Usage: hwsight detect [-b BUS] [-j]\n"
		"\n"
		"Find hardware monitor chips that no driver drives yet and print the command\n"
		"that binds their driver. Read-only: only ID registers are read, only at the\n"
		"addresses a chip can have, and an address a driver owns is reported, never\n"
		"read. Scanning /dev/i2c-N needs root and the i2c-dev module.\n"
		"\n",
	.options = TOOL_OPTIONS(
		{ "bus", 'b', "N",
		  "scan /dev/i2c-N only (default: every I2C bus, and the\n"
		  "Super-I/O chips the kernel found)" },
		{ "json", 'j', NULL, "JSON output" }),
	.column = 16,
	.tail = "\n"
		"Chips: Winbond W83793 (I2C 0x2c-0x2f, driver w83793). National PC87427\n"
		"sits on Super-I/O ports, which are not probed: it is reported once the\n"
		"pc87427 driver found it (try 'modprobe pc87427').\n"
		"\n"
		"Exit status: 0 when the scan ran, found chips or not; 1 when a bus could\n"
		"not be scanned or there is no I2C bus; 2 for a usage error.\n",
};

/* Returns 0 to go on, -1 when --help was shown, 2 for a usage error. */
static int parse_options(int argc, char **argv, struct options *o)
{
	long v;
	int c;

	*o = (struct options){ .bus = -1 };
	while ((c = hws__cli_next_option(&command, argc, argv)) != -1) {
		switch (c) {
		case 'b':
			if (tool_parse_long(optarg, 0, INT_MAX, &v) < 0) {
				fprintf(stderr, "hwsight detect: -b takes a bus number (N of /dev/i2c-N), not '%s'\n",
					optarg);
				return 2;
			}
			o->bus = (int)v;
			break;
		case 'j': o->json = true; break;
		default: /* -h too */
			return tool_help_or_try_help(c, &command);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwsight detect: unexpected argument '%s'\nTry 'hwsight detect --help'.\n",
			argv[optind]);
		return 2;
	}
	return 0;
}

static void print_chip_json(const struct hws_detected_chip *c, struct report *rep)
{
	printf("%s    {", rep->chips ? ",\n" : "");
	if (c->bus >= 0)
		printf("\"bus\": %d, \"address\": \"0x%02x\", ", c->bus, c->addr);
	else
		fputs("\"bus\": null, \"address\": null, ", stdout);
	printf("\"state\": \"%s\", \"chip\": ", c->state == HWS_DETECT_FOUND ? "found" : "bound");
	tool_json_value(stdout, c->chip);
	fputs(", \"description\": ", stdout);
	tool_json_value(stdout, c->description);
	fputs(", \"driver\": ", stdout);
	tool_json_value(stdout, c->driver);
	fputs(", \"adapter\": ", stdout);
	tool_json_value(stdout, c->adapter);
	fputs(", \"device\": ", stdout);
	tool_json_value(stdout, c->device);
	fputs(", \"device_name\": ", stdout);
	tool_json_value(stdout, c->device_name);
	fputs(", \"bound_driver\": ", stdout);
	tool_json_value(stdout, c->bound_driver);
	fputs(", \"hwmon\": ", stdout);
	tool_json_value(stdout, c->hwmon);
	fputs(", \"bind\": ", stdout);
	tool_json_value(stdout, c->bind_line);
	putchar('}');
}

static void print_chip_text(const struct hws_detected_chip *c, struct report *rep)
{
	const char *indent = "  ";

	if (c->bus >= 0 && c->bus != rep->last_bus) {
		printf("i2c-%d%s%s%s:\n", c->bus, c->adapter[0] ? " (" : "", c->adapter,
		       c->adapter[0] ? ")" : "");
		rep->last_bus = c->bus;
	} else if (c->bus < 0 && !rep->super_io_header) {
		puts("Super-I/O:");
		rep->super_io_header = true;
	}
	if (c->bus >= 0)
		printf("%s0x%02x  ", indent, c->addr);
	else
		printf("%s%s  ", indent, c->device);

	if (c->state == HWS_DETECT_FOUND) {
		printf("%s (driver %s), no driver bound\n", c->description, c->driver);
		printf("%s      %s\n", indent, c->bind_line);
		return;
	}
	if (c->description)
		printf("%s, ", c->description);
	if (c->bound_driver[0])
		printf("in use by driver %s", c->bound_driver);
	else
		fputs("in use by a kernel driver (the kernel refused the address)", stdout);
	if (c->device[0] && c->bus >= 0) {
		printf(" (%s", c->device);
		if (c->device_name[0] && !c->description)
			printf(" \"%s\"", c->device_name);
		printf("%s%s)", c->hwmon[0] ? ", " : "", c->hwmon);
	} else if (c->hwmon[0]) {
		printf(" (%s)", c->hwmon);
	}
	putchar('\n');
}

static int print_chip(const struct hws_detected_chip *c, void *userdata)
{
	struct report *rep = userdata;

	if (rep->json)
		print_chip_json(c, rep);
	else
		print_chip_text(c, rep);
	rep->chips++;
	if (c->state == HWS_DETECT_FOUND)
		rep->found++;
	return 0;
}

static void print_buses_json(const struct bus_result *res, size_t n)
{
	static const char *const status[] = { "scanned", "skipped", "failed" };

	fputs("\n  ],\n  \"buses\": [", stdout);
	for (size_t i = 0; i < n; i++) {
		printf("%s\n    {\"bus\": %d, \"status\": \"%s\", \"error\": ", i ? "," : "",
		       res[i].bus, status[res[i].status]);
		tool_json_value(stdout, res[i].error ? strerror(-res[i].error) : NULL);
		putchar('}');
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", stdout);
}

/* One line per failed bus, but one line for all the permission errors:
 * a desktop has a dozen display buses, and they all say the same. */
static void report_bus_errors(const struct bus_result *res, size_t n, bool one_bus)
{
	size_t denied = 0;
	int first_denied = -1;

	for (size_t i = 0; i < n; i++) {
		int e = -res[i].error;

		if (res[i].status == BUS_SKIPPED && one_bus)
			fprintf(stderr, "hwsight detect: /dev/i2c-%d: the adapter cannot do SMBus byte reads; "
				"no chip can be identified on it\n", res[i].bus);
		if (res[i].status != BUS_FAILED)
			continue;
		if (e == EACCES || e == EPERM) {
			if (!denied++)
				first_denied = res[i].bus;
		} else if (e == ENOENT) {
			fprintf(stderr, "hwsight detect: /dev/i2c-%d: no such bus (is i2c-dev loaded? "
				"'ls /sys/class/i2c-dev' lists the buses)\n", res[i].bus);
		} else {
			fprintf(stderr, "hwsight detect: /dev/i2c-%d: %s\n", res[i].bus, strerror(e));
		}
	}
	if (denied == 1)
		fprintf(stderr, "hwsight detect: /dev/i2c-%d: permission denied; detection must run as root\n",
			first_denied);
	else if (denied > 1)
		fprintf(stderr, "hwsight detect: /dev/i2c-%d and %zu more buses: permission denied; "
			"detection must run as root\n", first_denied, denied - 1);
}

/* The buses to scan, or a negative errno. */
static int list_buses(int **ret_buses)
{
	int n = hws_detect_list_buses(NULL, 0), m;
	int *buses;

	if (n <= 0) {
		*ret_buses = NULL;
		return n;
	}
	buses = calloc((size_t)n, sizeof(*buses));
	if (!buses)
		return -ENOMEM;
	m = hws_detect_list_buses(buses, (size_t)n);
	if (m < 0) {
		free(buses);
		return m;
	}
	*ret_buses = buses;
	return m < n ? m : n;
}

int hws_cmd_detect(int argc, char **argv)
{
	struct report rep = { .last_bus = INT_MIN };
	struct bus_result *res = NULL;
	struct options o;
	int *buses = NULL, nbuses, r, status = 0;
	int no_buses = 1; /* 0 or -ENOENT when there is no bus to scan */
	bool scanned = false;

	r = parse_options(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r; /* --help, or a usage error */
	rep.json = o.json;

	if (o.bus >= 0) {
		buses = malloc(sizeof(*buses));
		if (!buses) {
			fprintf(stderr, "hwsight detect: out of memory\n");
			return 1;
		}
		buses[0] = o.bus;
		nbuses = 1;
	} else {
		nbuses = list_buses(&buses);
		if (nbuses < 0 && nbuses != -ENOENT) {
			fprintf(stderr, "hwsight detect: cannot list the I2C buses in /sys/class/i2c-dev: %s\n",
				strerror(-nbuses));
			return 1;
		}
		/* Said after the Super-I/O chips, which are still reported. */
		if (nbuses <= 0) {
			no_buses = nbuses;
			nbuses = 0;
			status = 1;
		}
	}
	res = calloc(nbuses ? (size_t)nbuses : 1, sizeof(*res));
	if (!res) {
		fprintf(stderr, "hwsight detect: out of memory\n");
		free(buses);
		return 1;
	}

	if (rep.json)
		fputs("{\n  \"chips\": [\n", stdout);
	for (int i = 0; i < nbuses; i++) {
		res[i].bus = buses[i];
		r = hws_detect_bus(buses[i], print_chip, &rep);
		if (r >= 0) {
			res[i].status = BUS_SCANNED;
			scanned = true;
		} else if (r == -EOPNOTSUPP) {
			res[i].status = BUS_SKIPPED;
			res[i].error = r;
			/* Nothing to scan on it, but asked for by name: say so. */
			if (o.bus >= 0)
				status = 1;
			else
				scanned = true;
		} else {
			res[i].status = BUS_FAILED;
			res[i].error = r;
			status = 1;
		}
	}
	if (o.bus < 0) {
		r = hws_detect_platform(print_chip, &rep);
		if (r < 0) {
			fprintf(stderr, "hwsight detect: cannot read the platform devices in sysfs: %s\n",
				strerror(-r));
			status = 1;
		}
	}
	if (rep.json)
		print_buses_json(res, (size_t)nbuses);
	fflush(stdout);
	report_bus_errors(res, (size_t)nbuses, o.bus >= 0);
	if (no_buses == -ENOENT)
		fprintf(stderr, "hwsight detect: no I2C buses: /dev/i2c-* needs the i2c-dev module; "
			"load it with 'modprobe i2c-dev' and run again\n");
	else if (no_buses == 0)
		fprintf(stderr, "hwsight detect: no I2C buses; load the driver of your SMBus "
			"controller (i2c-i801, i2c-piix4...) and run again\n");

	if (!rep.json) {
		if (scanned && rep.chips == 0)
			puts("no supported chips found");
		else if (rep.found)
			puts("To bind a driver, run the command under its chip as root.");
	}
	free(res);
	free(buses);
	return status;
}
