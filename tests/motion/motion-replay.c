/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * motion-replay: plays a motion trace (tests/traces/motion/README.md) into
 * a umockdev testbed at the trace's own rate, while a program under test
 * (hdapsd, hwsightd, hwsight motion) reads the sensor, and prints what
 * that program says, each line stamped with the trace's time.
 *
 *   umockdev-wrapper motion-replay [OPTION...] TRACE -- COMMAND [ARG...]
 *
 * The testbed holds the sensor as its driver shows it, with the trace's
 * first sample:
 *  - ams: /sys/devices/ams (where hdapsd looks; hwsight looks there too)
 *    with "current" ("%d %d %d\n" of s8) and "joystick"; with --input the
 *    joystick is on and the "Apple Motion Sensor" input device sits below
 *    it, as ams-input.c makes it: ABS_X/Y/Z of (s8)(value - the value at
 *    the time the joystick was switched on), range -50..50, fuzz 3;
 *  - applesmc: /sys/devices/platform/applesmc.768 with "position"
 *    ("(%d,%d,%d)\n") and "calibrate" ("(%d,%d)\n" of the rest position
 *    taken at load, x negated, as applesmc.c keeps it);
 *  - lis3lv02d: /sys/devices/platform/lis3lv02d with "position"
 *    ("(%d,%d,%d)\n" in mg) and "rate" (the trace's); with --input the
 *    "ST LIS3LV02DL Accelerometer" input device below it, as
 *    lis3lv02d.c's joystick poll makes it every 50 ms: the same mg,
 *    fuzz 3;
 *  - hdaps: /sys/devices/platform/hdaps with "position" ("(%d,%d)\n"),
 *    "calibrate" (the first sample), "sampling_rate" (the trace's) and
 *    keyboard_activity and mouse_activity (0, read by hdapsd); with
 *    --input tp_smapi's "ThinkPad HDAPS accelerometer data" (phys
 *    "hdaps/input1", where hdapsd looks) below it: the counts as they
 *    are, X and Y only, at the trace's rate.
 * With --disk NAME, a SATA disk NAME with device/unload_heads, for a
 * daemon that parks heads; its writes land in the testbed.
 *
 * COMMAND runs with its stdout and stderr on a pipe read here. Once a line
 * of it contains the --ready text, the first sample is held for --lead
 * seconds, then sample i is put in place at lead + t_i: the sysfs
 * attribute replaced whole (as a read of the real one returns a whole
 * value), and, with --input, the input events the kernel would send for
 * it (only axes whose value changed past the fuzz filter, then
 * SYN_REPORT, stamped on CLOCK_REALTIME as evdev does unless asked
 * otherwise). After the last sample and --tail seconds, COMMAND gets
 * SIGTERM.
 *
 * Output, on stdout: "# key: value" lines (the trace's header, and the
 * replay's), then one line per line of COMMAND, "T TEXT", T in seconds of
 * the trace's time (negative before its first sample), then "# late: ..."
 * (how late the samples were put in place, at most), "# late-at-event:
 * MS" (the same from half a second before the marked event to a second
 * after it), "# ran: S"
 * (how long COMMAND ran), "# cpu: S" (its user and system time) and
 * "# exit: N".
 * Exit status: 0, 1 if the replay could not be made, 2 for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <umockdev.h>

#include "evdev-tree.h"
#include "trace.h"

#define PROG "motion-replay: "
#define INPUT_NODE "/dev/input/event5"
struct sensor {
	const char *name;
	const char *device;       /* sysfs path in the testbed */
	const char *attribute;    /* what holds the position */
	const char *description;  /* the device in umockdev's format, %s: its extra attributes */
	int (*format)(char *buf, size_t size, const int v[3]);
	int axes;
	const char *input_name;   /* NULL: no input device emulated */
	const char *input_phys;
	unsigned short input_bus;
	bool input_s8_less_rest;  /* ams: (s8)(value - the value at switch-on) */
	bool input_btn_touch;
	int input_min, input_max, input_fuzz;
	unsigned input_period_ms; /* the driver's poll, when slower than the trace */
};

static int format_ams(char *buf, size_t size, const int v[3])
{
	return snprintf(buf, size, "%d %d %d\n", v[0], v[1], v[2]);
}

static int format_applesmc(char *buf, size_t size, const int v[3])
{
	return snprintf(buf, size, "(%d,%d,%d)\n", v[0], v[1], v[2]);
}

static int format_hdaps(char *buf, size_t size, const int v[3])
{
	return snprintf(buf, size, "(%d,%d)\n", v[0], v[1]);
}

static const struct sensor sensors[] = {
	{
		.name = "ams",
		.device = "/sys/devices/ams",
		.attribute = "current",
		.description = "P: /devices/ams\n"
			       "E: SUBSYSTEM=platform\n"
			       "E: DRIVER=ams\n"
			       "E: OF_NAME=accelerometer\n"
			       "E: OF_COMPATIBLE_0=AAPL,accelerometer_1\n"
			       "A: modalias=ams\\n\n"
			       "%s",
		.format = format_ams,
		.axes = 3,
		.input_name = "Apple Motion Sensor",
		.input_bus = BUS_I2C,
		.input_s8_less_rest = true,
		.input_btn_touch = true,
		.input_min = -50, .input_max = 50, .input_fuzz = 3,
	},
	{
		.name = "applesmc",
		.device = "/sys/devices/platform/applesmc.768",
		.attribute = "position",
		.description = "P: /devices/platform/applesmc.768\n"
			       "E: DRIVER=applesmc\n"
			       "E: MODALIAS=platform:applesmc\n"
			       "E: SUBSYSTEM=platform\n"
			       "A: modalias=platform:applesmc\\n\n"
			       "A: name=applesmc\\n\n"
			       "%s",
		.format = format_applesmc,
		.axes = 3,
	},
	{
		.name = "lis3lv02d",
		.device = "/sys/devices/platform/lis3lv02d",
		.attribute = "position",
		.description = "P: /devices/platform/lis3lv02d\n"
			       "E: DRIVER=lis3lv02d\n"
			       "E: MODALIAS=platform:lis3lv02d\n"
			       "E: SUBSYSTEM=platform\n"
			       "A: modalias=platform:lis3lv02d\\n\n"
			       "%s",
		.format = format_applesmc,
		.axes = 3,
		.input_name = "ST LIS3LV02DL Accelerometer",
		.input_phys = "lis3lv02d/input0",
		.input_bus = BUS_HOST,
		.input_min = -2048, .input_max = 2048, .input_fuzz = 3,
		.input_period_ms = 50,
	},
	{
		.name = "hdaps",
		.device = "/sys/devices/platform/hdaps",
		.attribute = "position",
		.description = "P: /devices/platform/hdaps\n"
			       "E: DRIVER=hdaps\n"
			       "E: MODALIAS=platform:hdaps\n"
			       "E: SUBSYSTEM=platform\n"
			       "A: modalias=platform:hdaps\\n\n"
			       "A: keyboard_activity=0\\n\n"
			       "A: mouse_activity=0\\n\n"
			       "%s",
		.format = format_hdaps,
		.axes = 2,
		.input_name = "ThinkPad HDAPS accelerometer data",
		.input_phys = "hdaps/input1",
		.input_bus = BUS_ISA,
		.input_min = -32768, .input_max = 32767,
	},
};

struct args {
	const char *trace_path, *ready, *disk;
	bool input;
	double lead, tail;
	char **command;
};

struct replay {
	const struct args *args;
	const struct sensor *sensor;
	struct trace trace;
	UMockdevTestbed *tb;
	int out;                   /* COMMAND's stdout and stderr */
	pid_t pid;
	uint64_t spawned;          /* CLOCK_MONOTONIC ns */
	char attribute_path[4096]; /* the sensor's attribute in the testbed */
	char line[4096];
	size_t line_len;
	bool ready;
	uint64_t t0;               /* CLOCK_MONOTONIC ns of the trace's t = 0 */
	int calib[3];              /* ams-input: the value when the joystick was switched on */
	int reported[3];           /* the last value the input core passed on */
	long last_poll;            /* the input driver's last poll, in its periods */
};

__attribute__((format(printf, 1, 2)))
static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ams does its arithmetic in s8. */
static int wrap_s8(int v)
{
	v &= 0xff;
	return v >= 128 ? v - 256 : v;
}

/* The input core's filter of small changes on an axis with a fuzz
 * (input_defuzz_abs_event() in drivers/input/input.c). */
static int defuzz(int value, int old, int fuzz)
{
	if (value > old - fuzz / 2 && value < old + fuzz / 2)
		return old;
	if (value > old - fuzz && value < old + fuzz)
		return (old * 3 + value) / 4;
	if (value > old - fuzz * 2 && value < old + fuzz * 2)
		return (old + value) / 2;
	return value;
}

/* Axis @i of sample @v as the driver reports it, before the input core. */
static int input_value(const struct replay *rp, const int v[3], int i)
{
	if (rp->sensor->input_s8_less_rest)
		return wrap_s8(v[i] - rp->calib[i]);
	return v[i];
}

static int add_devices(struct replay *rp)
{
	const int *first = rp->trace.v[0];
	char value[64], extra[256], description[2048], path[4096];
	gchar *root = umockdev_testbed_get_root_dir(rp->tb);
	GError *error = NULL;
	int r = -1;

	snprintf(rp->attribute_path, sizeof(rp->attribute_path), "%s%s/%s", root,
		 rp->sensor->device, rp->sensor->attribute);
	rp->sensor->format(value, sizeof(value), first);
	value[strcspn(value, "\n")] = 0;
	if (!strcmp(rp->sensor->name, "applesmc"))
		snprintf(extra, sizeof(extra), "A: %s=%s\\n\nA: calibrate=(%d,%d)\\n\n",
			 rp->sensor->attribute, value, -first[0], first[1]);
	else if (!strcmp(rp->sensor->name, "lis3lv02d"))
		/* hdapsd polls at the rate the driver says. */
		snprintf(extra, sizeof(extra), "A: %s=%s\\n\nA: rate=%s\\n\n",
			 rp->sensor->attribute, value, trace_header(&rp->trace, "rate") ?: "40");
	else if (!strcmp(rp->sensor->name, "hdaps"))
		snprintf(extra, sizeof(extra), "A: %s=%s\\n\nA: calibrate=(%d,%d)\\n\nA: sampling_rate=%s\\n\n",
			 rp->sensor->attribute, value, first[0], first[1],
			 trace_header(&rp->trace, "rate") ?: "50");
	else
		snprintf(extra, sizeof(extra), "A: %s=%s\\n\nA: joystick=%d\\n\n",
			 rp->sensor->attribute, value, rp->args->input);
	snprintf(description, sizeof(description), rp->sensor->description, extra);
	if (!umockdev_testbed_add_from_string(rp->tb, description, &error))
		goto fail;

	if (rp->args->input) {
		snprintf(description, sizeof(description),
			 "P: %s/input/input5\n"
			 "E: SUBSYSTEM=input\n"
			 "E: NAME=\"%s\"\n"
			 "A: name=%s\\n\n"
			 "A: phys=%s\\n\n"
			 "\n"
			 "P: %s/input/input5/event5\n"
			 "N: input/event5\n"
			 "E: DEVNAME=" INPUT_NODE "\n"
			 "E: MAJOR=13\n"
			 "E: MINOR=69\n"
			 "E: SUBSYSTEM=input\n"
			 "A: dev=13:69\\n\n",
			 rp->sensor->device + strlen("/sys"), rp->sensor->input_name, rp->sensor->input_name,
			 rp->sensor->input_phys ?: "", rp->sensor->device + strlen("/sys"));
		if (!umockdev_testbed_add_from_string(rp->tb, description, &error))
			goto fail;
		/* ams' joystick was switched on with the machine at rest. */
		if (rp->sensor->input_s8_less_rest)
			memcpy(rp->calib, first, sizeof(rp->calib));
		for (int i = 0; i < 3; i++)
			rp->reported[i] = input_value(rp, first, i);
		rp->last_poll = -1;
		snprintf(path, sizeof(path), "%s/event5.ioctl", root);
		r = evdev_tree_write(path, &(struct evdev_tree){
			.name = rp->sensor->input_name, .phys = rp->sensor->input_phys,
			.bustype = rp->sensor->input_bus, .btn_touch = rp->sensor->input_btn_touch,
			.min = rp->sensor->input_min, .max = rp->sensor->input_max,
			.fuzz = rp->sensor->input_fuzz, .axes = rp->sensor->axes,
			.value = { rp->reported[0], rp->reported[1], rp->reported[2] },
		});
		if (r < 0) {
			fail("%s: %s", path, strerror(-r));
			r = -1;
			goto out;
		}
		if (!umockdev_testbed_load_ioctl(rp->tb, INPUT_NODE, path, &error))
			goto fail;
	}

	if (rp->args->disk) {
		snprintf(description, sizeof(description),
			 "P: /devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0\n"
			 "E: SUBSYSTEM=scsi\n"
			 "E: DEVTYPE=scsi_device\n"
			 "A: unload_heads=0\\n\n"
			 "\n"
			 "P: /devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/%s\n"
			 "E: SUBSYSTEM=block\n"
			 "E: DEVTYPE=disk\n"
			 "E: DEVNAME=/dev/%s\n"
			 "L: device=../..\n"
			 "A: removable=0\\n\n"
			 "A: queue/rotational=1\\n\n",
			 rp->args->disk, rp->args->disk);
		if (!umockdev_testbed_add_from_string(rp->tb, description, &error))
			goto fail;
	}
	r = 0;
	goto out;
fail:
	fail("testbed: %s", error->message);
	g_error_free(error);
out:
	g_free(root);
	return r;
}

/* What the input driver's poll would send for sample @v. */
static int send_input(struct replay *rp, const int v[3])
{
	static const unsigned short codes[3] = { ABS_X, ABS_Y, ABS_Z };
	struct input_event ev[4];
	struct timespec ts;
	int n = 0, fd = umockdev_testbed_get_dev_fd(rp->tb, INPUT_NODE);

	if (fd < 0)
		return -ENODEV;
	clock_gettime(CLOCK_REALTIME, &ts);
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < rp->sensor->axes; i++) {
		int value = defuzz(input_value(rp, v, i), rp->reported[i], rp->sensor->input_fuzz);

		if (value == rp->reported[i])
			continue;
		rp->reported[i] = value;
		ev[n].type = EV_ABS;
		ev[n].code = codes[i];
		ev[n].value = value;
		n++;
	}
	if (n == 0)
		return 0; /* the input core sends no empty frame */
	ev[n].type = EV_SYN;
	ev[n].code = SYN_REPORT;
	n++;
	for (int i = 0; i < n; i++) {
		ev[i].input_event_sec = ts.tv_sec;
		ev[i].input_event_usec = ts.tv_nsec / 1000;
	}
	if (write(fd, ev, (size_t)n * sizeof(ev[0])) != (ssize_t)((size_t)n * sizeof(ev[0])))
		return -errno;
	return 0;
}

static int play_sample(struct replay *rp, size_t i)
{
	char value[64], tmp[4200];
	int len = rp->sensor->format(value, sizeof(value), rp->trace.v[i]);
	int fd;

	/* A new file renamed over the old one, so that a reader never sees
	 * half a value; not umockdev_testbed_set_attribute(), whose
	 * g_file_set_contents() syncs the disk and makes the replay late. */
	snprintf(tmp, sizeof(tmp), "%s.new", rp->attribute_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, value, (size_t)len) != len) {
		int r = -errno;

		close(fd);
		return r;
	}
	close(fd);
	if (rename(tmp, rp->attribute_path) < 0)
		return -errno;
	if (!rp->args->input)
		return 0;
	/* A driver that polls slower than the trace sends the sample its
	 * poll finds: the first of each of its periods. */
	if (rp->sensor->input_period_ms) {
		long poll = (long)(rp->trace.t[i] * 1000) / (long)rp->sensor->input_period_ms;

		if (poll == rp->last_poll)
			return 0;
		rp->last_poll = poll;
	}
	return send_input(rp, rp->trace.v[i]);
}

static void print_line(struct replay *rp, uint64_t at)
{
	rp->line[rp->line_len] = 0;
	if (rp->t0)
		printf("%.3f %s\n", ((double)at - (double)rp->t0) / 1e9, rp->line);
	else
		printf("- %s\n", rp->line);
	if (!rp->ready && rp->args->ready && strstr(rp->line, rp->args->ready))
		rp->ready = true;
	rp->line_len = 0;
}

/*
 * Read what COMMAND says until @deadline (CLOCK_MONOTONIC ns), or until
 * it is ready when @until_ready. Return: 1 at the deadline, 0 at EOF.
 */
static int pump(struct replay *rp, uint64_t deadline, bool until_ready)
{
	while (!(until_ready && rp->ready)) {
		uint64_t now = now_ns();
		struct pollfd pfd = { .fd = rp->out, .events = POLLIN };
		char buf[1024];
		ssize_t n;
		int r;

		if (now >= deadline)
			return 1;
		r = poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue; /* the clock decides */
		n = read(rp->out, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (rp->line_len)
				print_line(rp, now_ns());
			return 0;
		}
		now = now_ns();
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n' || rp->line_len == sizeof(rp->line) - 1)
				print_line(rp, now);
			if (buf[i] != '\n')
				rp->line[rp->line_len++] = buf[i];
		}
	}
	return 1;
}

static int spawn(struct replay *rp)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0) {
		fail("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	rp->pid = fork();
	if (rp->pid < 0) {
		fail("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (rp->pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		execvp(rp->args->command[0], rp->args->command);
		fprintf(stderr, PROG "%s: %s\n", rp->args->command[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	rp->out = fds[0];
	rp->spawned = now_ns();
	return 0;
}

/* Ends COMMAND: SIGTERM, then SIGKILL if it lingers; prints the CPU time
 * it used, user and system, from its start. Return: its status. */
static int finish(struct replay *rp)
{
	struct rusage ru = { .ru_utime.tv_sec = 0 };
	int status = 0;

	kill(rp->pid, SIGTERM);
	if (pump(rp, now_ns() + 5000000000u, false) > 0)
		kill(rp->pid, SIGKILL);
	while (wait4(rp->pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	close(rp->out);
	printf("# ran: %.3f\n", (double)(now_ns() - rp->spawned) / 1e9);
	printf("# cpu: %.3f\n", (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
				 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int replay(struct replay *rp)
{
	const struct trace *tr = &rp->trace;
	double period = tr->t[tr->n - 1] / (double)(tr->n - 1);
	double event = atof(trace_header(tr, "event"));
	uint64_t max_late = 0, event_late = 0;
	unsigned n_late = 0;
	int r;

	for (size_t i = 0; i < tr->n_header; i++)
		printf("# %s: %s\n", tr->key[i], tr->value[i]);
	printf("# mode: %s\n", rp->args->input ? "input" : "sysfs");
	printf("# duration: %.3f\n", tr->t[tr->n - 1] + period);
	printf("# command:");
	for (char **a = rp->args->command; *a; a++)
		printf(" %s", *a);
	printf("\n");
	if (spawn(rp) < 0)
		return -1;
	if (rp->args->ready) {
		r = pump(rp, now_ns() + 15000000000u, true);
		if (!rp->ready) {
			fail("%s %s before saying '%s'", rp->args->command[0],
			     r ? "took 15 s" : "ended", rp->args->ready);
			printf("# exit: %d\n", finish(rp));
			return -1;
		}
	}
	rp->t0 = now_ns() + (uint64_t)(rp->args->lead * 1e9);
	for (size_t i = 1; i < tr->n; i++) {
		uint64_t due = rp->t0 + (uint64_t)(tr->t[i] * 1e9), late;

		pump(rp, due, false);
		r = play_sample(rp, i);
		if (r < 0) {
			fail("sample %zu: %s", i, strerror(-r));
			printf("# exit: %d\n", finish(rp));
			return -1;
		}
		/* A starved replay puts samples in place in a burst, and the
		 * reader sees only the last: say how late they were. */
		late = now_ns() - due;
		if (late > max_late)
			max_late = late;
		if (late > period * 1e9 / 2)
			n_late++;
		if (tr->t[i] >= event - 0.5 && tr->t[i] <= event + 1 && late > event_late)
			event_late = late;
	}
	pump(rp, rp->t0 + (uint64_t)((tr->t[tr->n - 1] + period + rp->args->tail) * 1e9), false);
	printf("# late: %.1f ms at most, %u samples by half a period or more\n", (double)max_late / 1e6, n_late);
	printf("# late-at-event: %.1f\n", (double)event_late / 1e6);
	printf("# exit: %d\n", finish(rp));
	return 0;
}

static void usage(FILE *f)
{
	fputs("Usage: umockdev-wrapper motion-replay [OPTION...] TRACE -- COMMAND [ARG...]\n"
	      "Play a motion trace into a umockdev testbed at its rate while COMMAND runs;\n"
	      "print COMMAND's lines stamped with the trace's time.\n"
	      "\n"
	      "  --input        also emulate the sensor's input device and send its events\n"
	      "  --disk=NAME    add a rotational disk NAME with device/unload_heads\n"
	      "  --ready=TEXT   start the trace once COMMAND printed a line with TEXT\n"
	      "  --lead=S       hold the first sample S seconds first (default 1)\n"
	      "  --tail=S       hold the last sample S seconds after the end (default 1.5)\n", f);
}

static int parse_seconds(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || v > 60)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	enum { OPT_INPUT = 256, OPT_DISK, OPT_READY, OPT_LEAD, OPT_TAIL };
	static const struct option longopts[] = {
		{ "input", no_argument, NULL, OPT_INPUT },
		{ "disk", required_argument, NULL, OPT_DISK },
		{ "ready", required_argument, NULL, OPT_READY },
		{ "lead", required_argument, NULL, OPT_LEAD },
		{ "tail", required_argument, NULL, OPT_TAIL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*a = (struct args){ .lead = 1, .tail = 1.5 };
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_INPUT:
			a->input = true;
			break;
		case OPT_DISK:
			a->disk = optarg;
			break;
		case OPT_READY:
			a->ready = optarg;
			break;
		case OPT_LEAD:
		case OPT_TAIL:
			if (parse_seconds(optarg, c == OPT_LEAD ? &a->lead : &a->tail) < 0) {
				fail("invalid time '%s' (expected 0 to 60 s)", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 2 > argc || strcmp(argv[optind + 1], "--") != 0 || optind + 2 == argc) {
		usage(stderr);
		return 2;
	}
	a->trace_path = argv[optind];
	a->command = argv + optind + 2;
	return -1;
}

int main(int argc, char **argv)
{
	struct args args;
	struct replay rp = { .args = &args, .out = -1 };
	const char *sensor;
	char why[4200];
	int r;

	r = parse_args(argc, argv, &args);
	if (r >= 0)
		return r;
	if (trace_load(args.trace_path, &rp.trace, why, sizeof(why)) < 0) {
		fail("%s", why);
		trace_free(&rp.trace);
		return 1;
	}
	sensor = trace_header(&rp.trace, "sensor");
	for (size_t i = 0; i < sizeof(sensors) / sizeof(sensors[0]); i++)
		if (!strncmp(sensor, sensors[i].name, strlen(sensors[i].name)) &&
		    (sensor[strlen(sensors[i].name)] == 0 || sensor[strlen(sensors[i].name)] == ' '))
			rp.sensor = &sensors[i];
	if (!rp.sensor || (args.input && !rp.sensor->input_name)) {
		fail("%s: cannot emulate sensor '%s'%s", args.trace_path, sensor,
		     rp.sensor ? " with an input device" : "");
		trace_free(&rp.trace);
		return 1;
	}
	/* Lines from COMMAND must reach the reader now, not at exit. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	rp.tb = umockdev_testbed_new();
	/* The preload library must be there for COMMAND to see the testbed. */
	if (!umockdev_in_mock_environment() || !getenv("LD_PRELOAD")) {
		fail("not in a umockdev environment; run me under umockdev-wrapper");
		r = -1;
	} else {
		r = add_devices(&rp) < 0 ? -1 : replay(&rp);
	}
	g_object_unref(rp.tb);
	trace_free(&rp.trace);
	return r < 0 ? 1 : 0;
}
