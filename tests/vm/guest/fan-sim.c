/*
 * fan-sim - fans and temperatures for the lab's emulated W83793 (issue 17).
 *
 * Runs in the lab guest beside the real w83793 driver, on the same i2c-stub
 * chip. Every tick it reads the duty registers the driver wrote for the
 * simulated PWM outputs, moves each simulated fan's speed toward what its
 * model says that duty gives (first-order lag), writes the tachometer
 * counts, sets the temperature registers from a scripted trace, and logs
 * the tick as one CSV line. See tests/vm/fans/README.md for the options
 * and the formats.
 *
 * Why C and not i2cget/i2cset in a shell loop: a tick touches up to two
 * dozen registers, and under TCG a fork+exec of i2cset costs several
 * milliseconds, so a shell loop could neither hold 10 Hz nor keep its
 * burst of accesses short -- and the burst's length is the window of the
 * bank race described at sim_burst().
 *
 * This is test equipment, not hwsight: it talks to /dev/i2c-N directly and
 * prints, as a tool may.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <i2c/smbus.h>
#include <limits.h>
#include <linux/i2c-dev.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define W83793_BANKSEL 0x00
#define W83793_FAN_HI(n) (0x23 + 2 * ((n) - 1)) /* n = 1..12 */
#define W83793_FAN_LO(n) (0x24 + 2 * ((n) - 1))
#define W83793_PWM(p) (0xb3 + (p) - 1)          /* p = 1..8, duty in bits 5:0 */
#define W83793_TEMP(m) (0x1c + (m) - 1)         /* m = 1..6, signed degrees C */
#define W83793_TEMP_LOW 0x22                    /* TD1-TD4: 2 bits each, 0.25 C */
#define FAN_COUNT_STOPPED 0x0fff                /* the driver reports 0 RPM */
#define FAN_CLOCK 1350000.0                     /* RPM = FAN_CLOCK / count */
#define MAX_FANS 12
#define MAX_TEMPS 6
#define FULL_DUTY 252                           /* register 0x3f, as pwmN reads it */

struct fan {
	int fan;        /* fanN, 1..12 */
	int pwm;        /* pwmP that drives it, 1..8 */
	int stop_duty;  /* below this a turning fan stops */
	int start_duty; /* at or above this a standing fan starts */
	double min_rpm; /* speed at stop_duty */
	double max_rpm; /* speed at FULL_DUTY */
	double tau;     /* time constant of the lag, seconds */
	bool running;
	double rpm;     /* the model's speed */
	int count;      /* tach count last written, -1 before the first */
	int duty;       /* duty read this tick, as the driver reports it */
};

struct point {
	double t;
	double temp[MAX_TEMPS];
};

struct trace {
	int nchan;
	int chan[MAX_TEMPS]; /* tempM of each column, 1..6 */
	int npoints;
	struct point *points;
};

struct unbind {
	double from, to;
	char dev[64];       /* i2c device name, e.g. 0-0048 */
	char driver[64];    /* the driver it was bound to, while unbound */
	bool done_unbind, done_bind;
};

struct sim {
	int bus, addr, fd;
	double tick;        /* seconds */
	double duration;    /* seconds, 0: until SIGTERM */
	struct fan fans[MAX_FANS];
	int nfans;
	struct trace trace;
	int temp_reg[MAX_TEMPS + 1]; /* last written, -1 before the first */
	int temp_low;                /* register 0x22 as we keep it */
	int temp_low_written;
	unsigned races;
	unsigned io_errors;
	struct unbind unbinds[8];
	int nunbinds;
	FILE *log;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("fan-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool parse_int(const char *s, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < INT_MIN || v > INT_MAX)
		return false;
	*ret = (int)v;
	return true;
}

static bool parse_double(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return false;
	*ret = v;
	return true;
}

/* --fan N[:key=value,...] */
static void parse_fan(struct sim *sim, char *arg)
{
	struct fan *f;
	char *opts, *tok, *save;

	if (sim->nfans == MAX_FANS)
		die("at most %d fans", MAX_FANS);
	f = &sim->fans[sim->nfans++];
	*f = (struct fan){ .stop_duty = 60, .start_duty = 100, .min_rpm = 600,
			   .max_rpm = 3000, .tau = 1.5, .count = -1 };
	opts = strchr(arg, ':');
	if (opts)
		*opts++ = '\0';
	if (!parse_int(arg, &f->fan) || f->fan < 1 || f->fan > MAX_FANS)
		die("--fan %s: the fan number is 1 to %d", arg, MAX_FANS);
	f->pwm = f->fan <= 8 ? f->fan : 1;
	for (tok = opts ? strtok_r(opts, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');
		double d;

		if (!val || !parse_double(val + 1, &d))
			die("--fan %d: '%s' is not KEY=NUMBER", f->fan, tok);
		*val = '\0';
		if (!strcmp(tok, "pwm"))
			f->pwm = (int)d;
		else if (!strcmp(tok, "stop"))
			f->stop_duty = (int)d;
		else if (!strcmp(tok, "start"))
			f->start_duty = (int)d;
		else if (!strcmp(tok, "min"))
			f->min_rpm = d;
		else if (!strcmp(tok, "max"))
			f->max_rpm = d;
		else if (!strcmp(tok, "tau"))
			f->tau = d;
		else
			die("--fan %d: unknown key '%s' (pwm, stop, start, min, max, tau)", f->fan, tok);
	}
	if (f->pwm < 1 || f->pwm > 8)
		die("--fan %d: pwm is 1 to 8", f->fan);
	if (f->stop_duty < 0 || f->start_duty <= f->stop_duty || f->start_duty > 255)
		die("--fan %d: need 0 <= stop < start <= 255 (stop %d, start %d)", f->fan,
		    f->stop_duty, f->start_duty);
	if (f->min_rpm < 0 || f->max_rpm < f->min_rpm)
		die("--fan %d: need 0 <= min <= max RPM", f->fan);
	if (f->tau < 0)
		die("--fan %d: tau is a time in seconds, >= 0", f->fan);
}

/*
 * A trace: a header "time tempM..." naming the channels, then one line per
 * point, "SECONDS DEGREES...". '#' starts a comment. Times must not go
 * back; two points at the same time make a step.
 */
static void load_trace(struct trace *tr, const char *path)
{
	FILE *fp = fopen(path, "re");
	char line[512];
	int lineno = 0, cap = 0;

	if (!fp)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		char *hash = strchr(line, '#'), *tok, *save;
		int col = 0;
		struct point p = { 0 };

		lineno++;
		if (hash)
			*hash = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		if (tr->nchan == 0) {
			if (strcmp(tok, "time"))
				die("%s:%d: the first line must be the header \"time tempM...\"", path, lineno);
			while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
				int m;

				if (strncmp(tok, "temp", 4) || !parse_int(tok + 4, &m) || m < 1 || m > MAX_TEMPS)
					die("%s:%d: '%s' is not temp1 to temp%d", path, lineno, tok, MAX_TEMPS);
				if (tr->nchan == MAX_TEMPS)
					die("%s:%d: too many channels", path, lineno);
				tr->chan[tr->nchan++] = m;
			}
			if (tr->nchan == 0)
				die("%s:%d: the header names no channel", path, lineno);
			continue;
		}
		if (!parse_double(tok, &p.t) || p.t < 0)
			die("%s:%d: '%s' is not a time in seconds", path, lineno, tok);
		if (tr->npoints && p.t < tr->points[tr->npoints - 1].t)
			die("%s:%d: time %g goes back", path, lineno, p.t);
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			if (col == tr->nchan || !parse_double(tok, &p.temp[col]) ||
			    p.temp[col] < -128 || p.temp[col] > 127)
				die("%s:%d: expected %d temperatures in -128..127", path, lineno, tr->nchan);
			col++;
		}
		if (col != tr->nchan)
			die("%s:%d: expected %d temperatures, found %d", path, lineno, tr->nchan, col);
		if (tr->npoints == cap) {
			cap = cap ? 2 * cap : 64;
			tr->points = realloc(tr->points, cap * sizeof(*tr->points));
			if (!tr->points)
				die("out of memory");
		}
		tr->points[tr->npoints++] = p;
	}
	fclose(fp);
	if (tr->npoints == 0)
		die("%s: no points", path);
}

/* The trace's temperature of column c at time t: linear between points,
 * the first point's before it, the last point's after it. */
static double trace_at(const struct trace *tr, int c, double t)
{
	int k = -1;

	for (int i = 0; i < tr->npoints && tr->points[i].t <= t; i++)
		k = i;
	if (k < 0)
		return tr->points[0].temp[c];
	if (k == tr->npoints - 1)
		return tr->points[k].temp[c];
	const struct point *a = &tr->points[k], *b = &tr->points[k + 1];
	return a->temp[c] + (b->temp[c] - a->temp[c]) * (t - a->t) / (b->t - a->t);
}

static void parse_unbind(struct sim *sim, const char *arg)
{
	struct unbind *u;
	char dev[64];
	int n = 0;

	if (sim->nunbinds == (int)(sizeof(sim->unbinds) / sizeof(sim->unbinds[0])))
		die("too many --unbind");
	u = &sim->unbinds[sim->nunbinds++];
	*u = (struct unbind){ 0 };
	if (sscanf(arg, "%lf:%lf:%63[^:]%n", &u->from, &u->to, dev, &n) != 3 || arg[n] ||
	    u->from < 0 || u->to <= u->from || strchr(dev, '/'))
		die("--unbind %s: expected FROM:TO:DEVICE, seconds FROM < TO, DEVICE an i2c device such as 0-0048", arg);
	snprintf(u->dev, sizeof(u->dev), "%s", dev);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Unbinding removes every sysfs file of the device: the only way to make a
 * w83793 temperature unreadable, since the driver reports whatever the
 * register holds (see README.md). */
static void run_unbinds(struct sim *sim, double t)
{
	for (int i = 0; i < sim->nunbinds; i++) {
		struct unbind *u = &sim->unbinds[i];
		char path[PATH_MAX], link[PATH_MAX];
		ssize_t n;
		int r;

		if (!u->done_unbind && t >= u->from) {
			u->done_unbind = true;
			snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/driver", u->dev);
			n = readlink(path, link, sizeof(link) - 1);
			if (n < 0) {
				fprintf(stderr, "fan-sim: %s has no driver to unbind: %s\n", u->dev, strerror(errno));
				u->done_bind = true;
				continue;
			}
			link[n] = '\0';
			{
				const char *base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;

				if (strlen(base) >= sizeof(u->driver)) {
					fprintf(stderr, "fan-sim: %s: driver name too long\n", u->dev);
					u->done_bind = true;
					continue;
				}
				memcpy(u->driver, base, strlen(base) + 1);
			}
			snprintf(path, sizeof(path), "/sys/bus/i2c/drivers/%s/unbind", u->driver);
			r = write_file(path, u->dev);
			fprintf(stderr, "fan-sim: %.3f s: unbind %s from %s: %s\n", t, u->dev, u->driver,
				r ? strerror(-r) : "done");
		}
		if (u->done_unbind && !u->done_bind && (t >= u->to || stop_requested)) {
			u->done_bind = true;
			snprintf(path, sizeof(path), "/sys/bus/i2c/drivers/%s/bind", u->driver);
			r = write_file(path, u->dev);
			fprintf(stderr, "fan-sim: %.3f s: bind %s to %s: %s\n", t, u->dev, u->driver,
				r ? strerror(-r) : "done");
		}
	}
}

static int rd(struct sim *sim, int reg)
{
	int v = i2c_smbus_read_byte_data(sim->fd, reg);

	if (v < 0)
		sim->io_errors++;
	return v;
}

static void wr(struct sim *sim, int reg, int val)
{
	if (i2c_smbus_write_byte_data(sim->fd, reg, val) < 0)
		sim->io_errors++;
}

static int rpm_to_count(double rpm)
{
	long c;

	/* The slowest speed the driver can show is FAN_CLOCK / 0xffe. */
	if (rpm < FAN_CLOCK / 0xffe)
		return FAN_COUNT_STOPPED;
	c = lround(FAN_CLOCK / rpm);
	return c < 1 ? 1 : c > 0xffe ? 0xffe : (int)c;
}

static int count_to_rpm(int count)
{
	return count == 0 || count >= 0xfff ? 0 : (int)(FAN_CLOCK / count);
}

/* Degrees to the TEMP register and the two TD low bits, as show_temp()
 * reads them back: reg + low/4 for positive, reg - low/4 otherwise. */
static void temp_to_reg(double deg, bool has_low, int *ret_reg, int *ret_low)
{
	long q = lround(deg * (has_low ? 4 : 1));
	long mag = labs(q), whole = has_low ? mag / 4 : mag;
	int low = has_low ? (int)(mag % 4) : 0;

	*ret_reg = (int)(q < 0 ? -whole : whole) & 0xff;
	*ret_low = low;
}

static double reg_to_temp(int reg, int low)
{
	int whole = (signed char)reg;
	double t = whole;

	return t > 0 ? t + low * 0.25 : t - low * 0.25;
}

/*
 * One short burst of register accesses, all in bank 0.
 *
 * The driver caches the bank it selected last and never re-reads register
 * 0x00, so the burst starts by reading it, switches to bank 0 only when the
 * driver left another bank selected (only after a write to a bank 1 or 2
 * attribute, such as tempM_auto_channels_pwm), and puts the driver's bank
 * back at the end. The residual race: i2c-dev and the driver share no lock
 * beyond one transfer, so if the driver changes banks during the burst
 * (switching itself, or reading while we had bank 0 selected), one side's
 * accesses land in the wrong bank. The burst re-reads 0x00 at its end and
 * counts a change as a race (the CSV's "races" column); with the driver
 * idle in bank 0, as it is after every refresh, there is no switch and no
 * window wider than the burst itself (a few hundred microseconds).
 */
static void sim_burst(struct sim *sim, const int *want_temp, const bool *drive_temp, int want_low)
{
	int bank = rd(sim, W83793_BANKSEL), ours, after;
	bool switched = false;

	if (bank < 0)
		return;
	ours = bank & ~0x03;
	if (bank != ours) {
		wr(sim, W83793_BANKSEL, ours);
		switched = true;
	}
	for (int i = 0; i < sim->nfans; i++) {
		struct fan *f = &sim->fans[i];
		int v = rd(sim, W83793_PWM(f->pwm));

		if (v >= 0)
			f->duty = (v & 0x3f) << 2;
	}
	for (int i = 0; i < sim->nfans; i++) {
		struct fan *f = &sim->fans[i];
		int c = rpm_to_count(f->rpm);

		if (c != f->count) {
			wr(sim, W83793_FAN_HI(f->fan), c >> 8);
			wr(sim, W83793_FAN_LO(f->fan), c & 0xff);
			f->count = c;
		}
	}
	for (int m = 1; m <= MAX_TEMPS; m++) {
		if (drive_temp[m] && want_temp[m] != sim->temp_reg[m]) {
			wr(sim, W83793_TEMP(m), want_temp[m]);
			sim->temp_reg[m] = want_temp[m];
		}
	}
	if (want_low != sim->temp_low_written) {
		wr(sim, W83793_TEMP_LOW, want_low);
		sim->temp_low_written = want_low;
	}
	after = rd(sim, W83793_BANKSEL);
	if (after >= 0 && after != ours)
		sim->races++;
	if (switched)
		wr(sim, W83793_BANKSEL, bank);
}

/* The model: a standing fan starts at start_duty, a turning one stops
 * below stop_duty; turning, its speed is linear from min_rpm at stop_duty
 * to max_rpm at FULL_DUTY, and it gets there with a first-order lag. */
static void model_step(struct fan *f, double dt)
{
	double target, k;

	if (f->running && f->duty < f->stop_duty)
		f->running = false;
	else if (!f->running && f->duty >= f->start_duty)
		f->running = true;
	if (!f->running) {
		target = 0;
	} else {
		double span = FULL_DUTY - f->stop_duty, x = span > 0 ? (f->duty - f->stop_duty) / span : 1;

		if (x > 1)
			x = 1;
		target = f->min_rpm + (f->max_rpm - f->min_rpm) * x;
	}
	k = f->tau > 0 ? 1 - exp(-dt / f->tau) : 1;
	f->rpm += (target - f->rpm) * k;
	if (!f->running && f->rpm < 1)
		f->rpm = 0;
}

static void log_header(struct sim *sim)
{
	fprintf(sim->log, "time");
	for (int i = 0; i < sim->nfans; i++)
		fprintf(sim->log, ",pwm%d,fan%d", sim->fans[i].pwm, sim->fans[i].fan);
	for (int c = 0; c < sim->trace.nchan; c++)
		fprintf(sim->log, ",temp%d", sim->trace.chan[c]);
	fprintf(sim->log, ",races\n");
	fflush(sim->log);
}

static void log_row(struct sim *sim, double t)
{
	fprintf(sim->log, "%.3f", t);
	for (int i = 0; i < sim->nfans; i++)
		fprintf(sim->log, ",%d,%d", sim->fans[i].duty, count_to_rpm(sim->fans[i].count));
	for (int c = 0; c < sim->trace.nchan; c++) {
		int m = sim->trace.chan[c];
		int low = m <= 4 ? (sim->temp_low_written >> (2 * (m - 1))) & 3 : 0;

		fprintf(sim->log, ",%.2f", reg_to_temp(sim->temp_reg[m], low));
	}
	fprintf(sim->log, ",%u\n", sim->races);
	fflush(sim->log);
}

/* Startup: the fans' speeds and the TD low bits as the preset left them. */
static void sim_init_from_chip(struct sim *sim)
{
	int bank = rd(sim, W83793_BANKSEL);

	if (bank < 0)
		die("cannot read register 0x00 of 0x%02x on i2c-%d: %s", sim->addr, sim->bus, strerror(errno));
	if (bank & 3)
		wr(sim, W83793_BANKSEL, bank & ~3);
	for (int i = 0; i < sim->nfans; i++) {
		struct fan *f = &sim->fans[i];
		int hi = rd(sim, W83793_FAN_HI(f->fan)), lo = rd(sim, W83793_FAN_LO(f->fan));
		int pwm = rd(sim, W83793_PWM(f->pwm));

		if (hi >= 0 && lo >= 0) {
			f->count = ((hi << 8) | lo) & 0xfff;
			f->rpm = count_to_rpm(f->count);
		}
		f->running = f->rpm > 0;
		f->duty = pwm >= 0 ? (pwm & 0x3f) << 2 : 0;
	}
	for (int m = 1; m <= MAX_TEMPS; m++)
		sim->temp_reg[m] = rd(sim, W83793_TEMP(m));
	sim->temp_low = rd(sim, W83793_TEMP_LOW);
	if (sim->temp_low < 0)
		sim->temp_low = 0;
	sim->temp_low_written = sim->temp_low;
	if (bank & 3)
		wr(sim, W83793_BANKSEL, bank);
}

static void usage(FILE *fp)
{
	fputs("usage: fan-sim [-b BUS] [-a ADDR] [--fan N[:pwm=P,stop=D,start=D,min=RPM,max=RPM,tau=S]]...\n"
	      "               [--trace FILE] [--tick MS] [--log FILE] [--duration S]\n"
	      "               [--unbind FROM:TO:DEVICE]...\n"
	      "Simulates fans and temperatures on the lab's W83793 (tests/vm/fans/README.md).\n", fp);
}

/* The command line into sim; the log and trace paths come back apart. */
static void parse_options(struct sim *sim, int argc, char **argv, const char **ret_log,
			  const char **ret_trace)
{
	static const struct option longopts[] = {
		{ "bus", required_argument, NULL, 'b' },
		{ "addr", required_argument, NULL, 'a' },
		{ "fan", required_argument, NULL, 'f' },
		{ "trace", required_argument, NULL, 't' },
		{ "tick", required_argument, NULL, 'i' },
		{ "log", required_argument, NULL, 'l' },
		{ "duration", required_argument, NULL, 'd' },
		{ "unbind", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *env;
	int opt, ms;

	env = getenv("HWS_LAB_I2C_BUS");
	if (env && *env && !parse_int(env, &sim->bus))
		die("HWS_LAB_I2C_BUS=%s is not a number", env);
	env = getenv("HWS_LAB_W83793_ADDRS");
	if (env && *env)
		sim->addr = (int)strtol(env, NULL, 0);
	while ((opt = getopt_long(argc, argv, "b:a:f:t:i:l:d:u:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			if (!parse_int(optarg, &sim->bus) || sim->bus < 0)
				die("-b %s: not a bus number", optarg);
			break;
		case 'a':
			if (!parse_int(optarg, &sim->addr) || sim->addr < 0x03 || sim->addr > 0x77)
				die("-a %s: not a 7-bit address", optarg);
			break;
		case 'f':
			parse_fan(sim, optarg);
			break;
		case 't':
			*ret_trace = optarg;
			break;
		case 'i':
			if (!parse_int(optarg, &ms) || ms < 10 || ms > 10000)
				die("--tick %s: milliseconds, 10 to 10000", optarg);
			sim->tick = ms / 1000.0;
			break;
		case 'l':
			*ret_log = optarg;
			break;
		case 'd':
			if (!parse_double(optarg, &sim->duration) || sim->duration < 0)
				die("--duration %s: seconds, >= 0", optarg);
			break;
		case 'u':
			parse_unbind(sim, optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc) {
		usage(stderr);
		exit(2);
	}
	if (sim->nfans == 0 && !*ret_trace && sim->nunbinds == 0)
		die("nothing to simulate: give --fan, --trace or --unbind");
}

int main(int argc, char **argv)
{
	struct sim sim = { .bus = 0, .addr = 0x2f, .fd = -1, .tick = 0.1 };
	const char *log_path = "-", *trace_path = NULL;
	char devpath[32];
	struct sigaction sa = { .sa_handler = on_signal };
	struct timespec next;
	double t0, last;

	parse_options(&sim, argc, argv, &log_path, &trace_path);
	if (trace_path)
		load_trace(&sim.trace, trace_path);

	snprintf(devpath, sizeof(devpath), "/dev/i2c-%d", sim.bus);
	sim.fd = open(devpath, O_RDWR | O_CLOEXEC);
	if (sim.fd < 0)
		die("%s: %s (is i2c-dev loaded?)", devpath, strerror(errno));
	/* FORCE: the w83793 driver holds the address. */
	if (ioctl(sim.fd, I2C_SLAVE_FORCE, sim.addr) < 0)
		die("%s: cannot address 0x%02x: %s", devpath, sim.addr, strerror(errno));
	if (strcmp(log_path, "-")) {
		sim.log = fopen(log_path, "we");
		if (!sim.log)
			die("%s: %s", log_path, strerror(errno));
	} else {
		sim.log = stdout;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	sim_init_from_chip(&sim);
	log_header(&sim);
	t0 = last = now_s();
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop_requested) {
		int want_temp[MAX_TEMPS + 1] = { 0 }, want_low = sim.temp_low_written;
		bool drive[MAX_TEMPS + 1] = { false };
		double now = now_s(), t = now - t0;

		if (sim.duration > 0 && t >= sim.duration)
			break;
		run_unbinds(&sim, t);
		for (int c = 0; c < sim.trace.nchan; c++) {
			int m = sim.trace.chan[c], reg, low;

			temp_to_reg(trace_at(&sim.trace, c, t), m <= 4, &reg, &low);
			want_temp[m] = reg;
			drive[m] = true;
			if (m <= 4)
				want_low = (want_low & ~(3 << (2 * (m - 1)))) | (low << (2 * (m - 1)));
		}
		/* Duties first (read in the burst), then the model moves on
		 * them, and the next burst writes where it got to. */
		sim_burst(&sim, want_temp, drive, want_low);
		for (int i = 0; i < sim.nfans; i++)
			model_step(&sim.fans[i], now - last);
		last = now;
		log_row(&sim, t);

		next.tv_nsec += (long)(sim.tick * 1e9);
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		/* Fallen more than a tick behind (a stalled guest): start
		 * the grid again from now rather than catch up in a rush. */
		if (now_s() > next.tv_sec + next.tv_nsec / 1e9 + sim.tick)
			clock_gettime(CLOCK_MONOTONIC, &next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop_requested)
			;
	}
	run_unbinds(&sim, now_s() - t0); /* a device still unbound is bound again */
	if (sim.log != stdout)
		fclose(sim.log);
	if (sim.races || sim.io_errors)
		fprintf(stderr, "fan-sim: %u bank race(s), %u i2c error(s)\n", sim.races, sim.io_errors);
	close(sim.fd);
	return 0;
}
