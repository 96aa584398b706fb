/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's sensor history (daemon/history.c): what a poll records is
 * what librrd reads back; a file that no longer fits the chip, or that is
 * corrupt, is kept aside and a new one started; graphs are PNG images,
 * drawn by rrdtool in a child that is killed when it hangs or writes too
 * much, and whose failures are logged; names from a request never leave
 * the history directory. Chips are built by hand, as the library would
 * fill them after a read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rrd.h>

#include "history-internal.h"
#include "history.h"
#include "log.h"
#include "task.h"

#define CHIP "w83793-i2c-0-2f"
#define MAX_FEATURES 8

struct fake_chip {
	struct hws_chip chip;
	struct hws_feature features[MAX_FEATURES];
	struct hws_subfeature subs[MAX_FEATURES][4];
};

static char top[] = "/tmp/hwsightd-history-XXXXXX";
static char dir[sizeof(top) + 16];  /* top/history: made by hwsd_history_new() */

/* The array @buf names TOP/@name, a file of the case's own. */
#define IN_TOP(buf, name) snprintf((buf), sizeof(buf), "%s/%s", top, (name))

static void setup(void)
{
	if (!mkdtemp(top))
		FAIL("mkdtemp: %s", strerror(errno));
	snprintf(dir, sizeof(dir), "%s/history", top);
	hwsd_log_setup(HWSD_LOG_STDERR, LOG_INFO);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void teardown(void)
{
	nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void chip_init(struct fake_chip *f, const char *name)
{
	*f = (struct fake_chip){ .chip = { .name = name, .prefix = "w83793", .present = true } };
	f->chip.features = f->features;
}

/* A feature with an input of @value; NaN: a read that failed. */
static struct hws_feature *chip_add(struct fake_chip *f, const char *name, const char *label,
				    enum hws_sensor_kind kind, double value)
{
	size_t i = f->chip.n_features++;
	struct hws_feature *feat = &f->features[i];

	if (i >= MAX_FEATURES)
		FAIL("too many features");
	f->subs[i][0] = (struct hws_subfeature){
		.name = name, .item = HWS_ITEM_INPUT, .value = isnan(value) ? 0 : value,
		.error = isnan(value) ? -EIO : 0,
	};
	*feat = (struct hws_feature){ .name = name, .label = label, .kind = kind, .n_subfeatures = 1,
				      .subfeatures = f->subs[i] };
	return feat;
}

/* A limit (a setting) of @value for feature @i, or a new value for it. */
static void chip_limit(struct fake_chip *f, size_t i, enum hws_sensor_item item, double value)
{
	struct hws_feature *feat = &f->features[i];
	size_t k = 0;

	while (k < feat->n_subfeatures && f->subs[i][k].item != item)
		k++;
	if (k >= sizeof(f->subs[i]) / sizeof(f->subs[i][0]))
		FAIL("too many subfeatures");
	f->subs[i][k] = (struct hws_subfeature){ .name = "limit", .item = item, .value = value };
	if (k == feat->n_subfeatures)
		feat->n_subfeatures++;
}

static void chip_set(struct fake_chip *f, size_t i, double value)
{
	f->subs[i][0].value = value;
}

/* temp1, fan1, in0: the chip most cases use. */
static void chip_three_named(struct fake_chip *f, const char *name)
{
	chip_init(f, name);
	chip_add(f, "temp1", "CPU Temp", HWS_SENSOR_TEMP, 40);
	chip_add(f, "fan1", "CPU Fan", HWS_SENSOR_FAN, 1000);
	chip_add(f, "in0", "Vcore", HWS_SENSOR_IN, 1.25);
}

static void chip_three(struct fake_chip *f)
{
	chip_three_named(f, CHIP);
}

static char *path_of(const char *chip)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s.rrd", dir, chip);
	return buf;
}

/* The files in the history directory whose names start with @prefix. */
static int count_files(const char *prefix, char *ret_first, size_t size)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	ASSERT_NOT_NULL(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			if (n++ == 0 && ret_first)
				snprintf(ret_first, size, "%s/%s", dir, e->d_name);
		}
	closedir(d);
	return n;
}

struct last {
	time_t when;
	unsigned long n;
	char **names, **values;
};

static void last_get(const char *path, struct last *l)
{
	rrd_clear_error();
	if (rrd_lastupdate_r(path, &l->when, &l->n, &l->names, &l->values) != 0)
		FAIL("rrd_lastupdate_r(%s): %s", path, rrd_get_error());
}

static void last_free(struct last *l)
{
	for (unsigned long i = 0; i < l->n; i++) {
		rrd_freemem(l->names[i]);
		rrd_freemem(l->values[i]);
	}
	rrd_freemem(l->names);
	rrd_freemem(l->values);
}

/* Run @fn with stderr (where the daemon logs) going to a string. */
static char *logged(void (*fn)(void *), void *arg)
{
	char path[sizeof(top) + 16], *text = calloc(1, 65536);
	int saved, fd;
	FILE *f;

	snprintf(path, sizeof(path), "%s/log", top);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ASSERT_GE(fd, 0);
	dup2(fd, STDERR_FILENO);
	close(fd);
	fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	f = fopen(path, "r");
	ASSERT_NOT_NULL(f);
	(void)!fread(text, 1, 65535, f);
	fclose(f);
	unlink(path);
	return text;
}

static int64_t aligned_now(unsigned step)
{
	return (int64_t)time(NULL) / step * step;
}

/* A poll recorded, and the burst it queued, if any, written: the bursts
 * are written by the history's own thread, in the background. */
static int update_written(struct hwsd_history *h, const struct hws_chip *chip, unsigned step, int64_t when)
{
	int r = hwsd_history_update(h, chip, step, when);

	flush_delayed_work(&h->burst);
	return r;
}

TEST(records_what_was_polled)
{
	struct hwsd_history *h = NULL;
	int64_t base = aligned_now(10) - 600;
	struct fake_chip f;
	time_t start = (time_t)base + 100, end = (time_t)base + 200;
	unsigned long step = 10, n_ds;  /* in: the resolution wanted */
	char **names;
	rrd_value_t *data;
	struct stat st;
	struct last l;

	setup();
	chip_three(&f);
	ASSERT_EQ(hwsd_history_new(dir, 0, &h), 0);
	ASSERT_EQ(stat(dir, &st), 0);
	ASSERT_EQ(st.st_mode & 07777, 0750);
	for (int i = 0; i <= 30; i++) {
		chip_set(&f, 0, 40 + i);
		chip_set(&f, 1, 1000 + 10 * i);
		chip_set(&f, 2, 1.25);
		f.subs[2][0].error = i % 2 ? -EIO : 0;   /* in0 unreadable every other poll */
		ASSERT_EQ(update_written(h, &f.chip, 10, base + 10 * i), 0);
	}
	last_get(path_of(CHIP), &l);
	ASSERT_EQ(l.when, base + 300);
	ASSERT_EQ(l.n, 3);
	ASSERT_STR_EQ(l.names[0], "temp1");
	ASSERT_STR_EQ(l.names[1], "fan1");
	ASSERT_STR_EQ(l.names[2], "in0");
	ASSERT_STR_EQ(l.values[0], "70");
	ASSERT_STR_EQ(l.values[1], "1300");
	ASSERT_STR_EQ(l.values[2], "1.25");
	last_free(&l);

	/* Each poll of the day archive, at the poll step. */
	ASSERT_EQ(rrd_fetch_r(path_of(CHIP), "AVERAGE", &start, &end, &step, &n_ds, &names, &data), 0);
	ASSERT_EQ(step, 10);
	ASSERT_EQ(n_ds, 3);
	for (time_t t = start + (time_t)step; t <= end; t += (time_t)step) {
		const rrd_value_t *row = data + (size_t)((t - start) / (time_t)step - 1) * n_ds;
		int i = (int)((t - base) / 10);

		ASSERT_TRUE(row[0] == 40 + i);
		ASSERT_TRUE(row[1] == 1000 + 10 * i);
		if (i % 2)
			ASSERT_TRUE(isnan(row[2]));
		else
			ASSERT_TRUE(row[2] == 1.25);
	}
	for (unsigned long i = 0; i < n_ds; i++)
		rrd_freemem(names[i]);
	rrd_freemem(names);
	rrd_freemem(data);
	hwsd_history_free(h);
	teardown();
}

TEST(archives_for_a_day_a_week_and_a_year)
{
	struct hwsd_history *h = NULL;
	unsigned long rows[8] = { 0 }, ppr[8] = { 0 };
	char cf[8][16] = { { 0 } };
	struct fake_chip f;
	rrd_info_t *info;
	int n_rra = 0;

	setup();
	chip_three(&f);
	ASSERT_EQ(hwsd_history_new(dir, 0, &h), 0);
	ASSERT_EQ(update_written(h, &f.chip, 2, aligned_now(2)), 0);
	info = rrd_info_r(path_of(CHIP));
	ASSERT_NOT_NULL(info);
	for (rrd_info_t *i = info; i; i = i->next) {
		unsigned r;
		char field[32];

		if (!strcmp(i->key, "step"))
			ASSERT_EQ(i->value.u_cnt, 2);
		if (!strcmp(i->key, "ds[temp1].type"))
			ASSERT_STR_EQ(i->value.u_str, "GAUGE");
		if (sscanf(i->key, "rra[%u].%31s", &r, field) != 2 || r >= 8)
			continue;
		n_rra = (int)r + 1 > n_rra ? (int)r + 1 : n_rra;
		if (!strcmp(field, "cf"))
			snprintf(cf[r], sizeof(cf[r]), "%s", i->value.u_str);
		else if (!strcmp(field, "rows"))
			rows[r] = i->value.u_cnt;
		else if (!strcmp(field, "pdp_per_row"))
			ppr[r] = i->value.u_cnt;
	}
	rrd_info_free(info);
	/* Every poll for a day; averages and extremes for a week, a year. */
	ASSERT_STR_EQ(cf[0], "AVERAGE");
	ASSERT_EQ(ppr[0], 1);
	ASSERT_GE(rows[0] * ppr[0] * 2, 86400);
	for (int r = 1; r < n_rra; r++)
		ASSERT_GE(rows[r] * ppr[r] * 2, 7 * 86400);
	for (const char *want = "AVERAGE MIN MAX"; *want; ) {
		size_t len = strcspn(want, " ");
		bool week = false, year = false;

		for (int r = 1; r < n_rra; r++) {
			if (strlen(cf[r]) != len || strncmp(cf[r], want, len))
				continue;
			week = week || rows[r] * ppr[r] * 2 >= 7 * 86400;
			year = year || rows[r] * ppr[r] * 2 >= 365 * 86400;
		}
		ASSERT_TRUE(week);
		ASSERT_TRUE(year);
		want += len + (want[len] == ' ');
	}
	hwsd_history_free(h);
	teardown();
}

struct twice {
	struct hwsd_history *h;
	struct fake_chip *f;
	int64_t when;
	int r[3];
};

static void update_thrice(void *arg)
{
	struct twice *t = arg;

	t->r[0] = update_written(t->h, &t->f->chip, 1, t->when);
	chip_set(t->f, 0, 99);
	t->r[1] = update_written(t->h, &t->f->chip, 1, t->when);      /* same second */
	t->r[2] = update_written(t->h, &t->f->chip, 1, t->when - 5);  /* clock went back */
}

TEST(same_second_skipped_quietly)
{
	struct fake_chip f;
	struct twice t = { .f = &f, .when = aligned_now(1) };
	struct last l;
	char *log;

	setup();
	chip_three(&f);
	ASSERT_EQ(hwsd_history_new(dir, 0, &t.h), 0);
	log = logged(update_thrice, &t);
	ASSERT_EQ(t.r[0], 0);
	ASSERT_EQ(t.r[1], 0);
	ASSERT_EQ(t.r[2], 0);
	/* The new file is all there is to say. */
	ASSERT_NOT_NULL(strstr(log, "new file"));
	ASSERT_STR_EQ(strchr(log, '\n') + 1, "");
	last_get(path_of(CHIP), &l);
	ASSERT_EQ(l.when, t.when);
	ASSERT_STR_EQ(l.values[0], "40");
	last_free(&l);
	free(log);
	hwsd_history_free(t.h);
	teardown();
}

struct change {
	struct hwsd_history *h;
	struct fake_chip *f;
	unsigned step;
	int64_t when;
	int r;
};

static void update_once(void *arg)
{
	struct change *c = arg;

	c->r = update_written(c->h, &c->f->chip, c->step, c->when);
}

/* The history opened on dir, with the first update of c made. */
static void history_started(struct change *c)
{
	ASSERT_EQ(hwsd_history_new(dir, 0, &c->h), 0);
	update_once(c);
	ASSERT_EQ(c->r, 0);
}

/* The chip's file holds the update of c->when as its last. */
static void expect_last_update(const struct change *c)
{
	struct last l;

	last_get(path_of(CHIP), &l);
	ASSERT_EQ(l.when, c->when);
	last_free(&l);
}

/* A poll c->step after the last: its burst writes it. */
static void next_poll_recorded(struct change *c)
{
	c->when += c->step;
	update_once(c);
	ASSERT_EQ(c->r, 0);
	expect_last_update(c);
}

/*
 * A child process that holds a lock of type (F_WRLCK, F_RDLCK) on the
 * chip's file, as another program would; returns once it holds it. The
 * child lets go when it reads a byte from release_fd, or after 15 ms if
 * release_fd is -1.
 */
static pid_t lock_elsewhere(short type, int release_fd)
{
	int ready[2];
	char x = 0;
	pid_t pid;

	ASSERT_EQ(pipe(ready), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct flock lk = { .l_type = type, .l_whence = SEEK_SET };
		int fd = open(path_of(CHIP), type == F_WRLCK ? O_RDWR : O_RDONLY);

		if (fd < 0 || fcntl(fd, F_SETLK, &lk) < 0 || write(ready[1], "", 1) != 1)
			_exit(1);
		if (release_fd >= 0)
			(void)!read(release_fd, &x, 1);
		else
			usleep(15 * 1000);
		_exit(0);
	}
	ASSERT_EQ(read(ready[0], &x, 1), 1);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

/* The chip's file holds @v (NAN: unknown) for temp1 at @when. */
static void expect_value_at(int64_t when, double v)
{
	time_t start = (time_t)when - 1, end = (time_t)when;
	unsigned long step = 1, n_ds;
	char **names;
	rrd_value_t *data;

	rrd_clear_error();
	if (rrd_fetch_r(path_of(CHIP), "AVERAGE", &start, &end, &step, &n_ds, &names, &data) != 0)
		FAIL("rrd_fetch_r: %s", rrd_get_error());
	ASSERT_STR_EQ(names[0], "temp1");
	if (isnan(v))
		ASSERT_TRUE(isnan(data[((time_t)when - start) / (time_t)step - 1]));
	else
		ASSERT_EQ(data[((time_t)when - start) / (time_t)step - 1], v);
	for (unsigned long i = 0; i < n_ds; i++)
		rrd_freemem(names[i]);
	rrd_freemem(names);
	rrd_freemem(data);
}

/* The file's mtime, to the nanosecond: whether anything wrote it. */
static struct timespec mtime_of(const char *path)
{
	struct stat st;

	ASSERT_EQ(stat(path, &st), 0);
	return st.st_mtim;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* With a flush interval, polls wait in memory: the file is made and
 * written only when the interval has passed since the last burst, and
 * then holds every poll since. */
TEST(polls_are_written_in_bursts)
{
	struct fake_chip f;
	struct change c = { .f = &f, .step = 10, .when = aligned_now(10) - 600 };
	struct timespec written;
	int64_t first = c.when;
	struct last l;

	setup();
	chip_three(&f);
	ASSERT_EQ(hwsd_history_new(dir, 60, &c.h), 0);
	for (int i = 0; i < 6; i++, c.when += 10) {
		chip_set(&f, 0, 30 + i);
		update_once(&c);
		ASSERT_EQ(c.r, 0);
	}
	/* 50 s since the first poll: nothing written yet. */
	ASSERT_EQ(count_files(CHIP, NULL, 0), 0);
	chip_set(&f, 0, 36);
	update_once(&c);
	ASSERT_EQ(c.r, 0);
	last_get(path_of(CHIP), &l);
	ASSERT_EQ(l.when, first + 60);
	ASSERT_STR_EQ(l.values[0], "36");
	last_free(&l);
	expect_value_at(first + 10, 31);
	/* The next polls change nothing on the disk until the next burst. */
	written = mtime_of(path_of(CHIP));
	for (int i = 1; i < 6; i++) {
		c.when += 10;
		chip_set(&f, 0, 40 + i);
		update_once(&c);
		ASSERT_EQ(c.r, 0);
		ASSERT_TRUE(same_time(mtime_of(path_of(CHIP)), written));
	}
	next_poll_recorded(&c);
	hwsd_history_free(c.h);
	teardown();
}

/* hwsd_history_flush() (the stop, a reload, the freeze) writes every
 * chip's polls, however early. */
TEST(a_flush_writes_every_poll)
{
	struct fake_chip f, g;
	struct change c = { .f = &f, .step = 10, .when = aligned_now(10) - 600 };
	struct last l;

	setup();
	chip_three(&f);
	chip_three_named(&g, "lm75-i2c-0-48");
	ASSERT_EQ(hwsd_history_new(dir, 300, &c.h), 0);
	for (int i = 0; i < 3; i++, c.when += 10) {
		update_once(&c);
		ASSERT_EQ(c.r, 0);
		ASSERT_EQ(update_written(c.h, &g.chip, 10, c.when), 0);
	}
	c.when -= 10;
	ASSERT_EQ(count_files(CHIP, NULL, 0) + count_files("lm75", NULL, 0), 0);
	ASSERT_EQ(hwsd_history_flush(c.h), 0);
	expect_last_update(&c);
	last_get(path_of("lm75-i2c-0-48"), &l);
	ASSERT_EQ(l.when, c.when);
	last_free(&l);
	/* Nothing left to write: a second flush leaves the files alone. */
	{
		struct timespec t = mtime_of(path_of(CHIP));

		ASSERT_EQ(hwsd_history_flush(c.h), 0);
		ASSERT_TRUE(same_time(mtime_of(path_of(CHIP)), t));
	}
	hwsd_history_free(c.h);
	teardown();
}

/* Polls of a chip, one a second from c->when on, c->r the last result. */
static struct change *burst_of;
static int burst_n;

static void polls(void *arg)
{
	(void)arg;
	for (int i = 0; i < burst_n; i++, burst_of->when++) {
		update_once(burst_of);
		ASSERT_EQ(burst_of->r, 0);
	}
	burst_of->when--;
}

/* Polls no burst wrote for long: the batch keeps the newest within its
 * bound and says once that it drops the oldest. */
TEST(a_full_batch_drops_the_oldest_polls)
{
	struct fake_chip f;
	struct change c = { .f = &f, .step = 1, .when = aligned_now(1) - 100000 };
	int64_t first = c.when;
	char line[64], *log;

	setup();
	chip_three(&f);
	ASSERT_EQ(hwsd_history_new(dir, 24 * 3600, &c.h), 0);
	burst_of = &c;
	burst_n = (int)(HISTORY_BATCH_MAX / (size_t)snprintf(line, sizeof(line), "%lld:40:1000:1.25\n",
							       (long long)first)) + 100;
	log = logged(polls, NULL);
	ASSERT_NOT_NULL(strstr(log, "KiB of polls not yet written; dropping the oldest"));
	ASSERT_NULL(strstr(strstr(log, "dropping") + 1, "dropping"));
	free(log);
	ASSERT_EQ(hwsd_history_flush(c.h), 0);
	expect_last_update(&c);
	expect_value_at(c.when - 10, 40);
	/* The oldest polls were dropped. */
	expect_value_at(first, NAN);
	hwsd_history_free(c.h);
	teardown();
}

TEST(changed_sensors_set_the_old_file_aside)
{
	struct fake_chip f;
	struct change c = { .f = &f, .step = 10, .when = aligned_now(10) - 100 };
	char old[512];
	struct last l;
	char *log;

	setup();
	chip_init(&f, CHIP);
	chip_add(&f, "temp1", "CPU Temp", HWS_SENSOR_TEMP, 40);
	chip_add(&f, "fan1", "CPU Fan", HWS_SENSOR_FAN, 1000);
	history_started(&c);

	/* A sensor more (a driver update, a new sensors.conf). */
	chip_add(&f, "in0", "Vcore", HWS_SENSOR_IN, 1.25);
	c.when += 10;
	log = logged(update_once, &c);
	ASSERT_EQ(c.r, 0);
	ASSERT_NOT_NULL(strstr(log, "other sensors or another poll interval"));
	free(log);
	ASSERT_EQ(count_files(CHIP ".rrd.old-", old, sizeof(old)), 1);
	last_get(old, &l);
	ASSERT_EQ(l.n, 2);
	ASSERT_EQ(l.when, c.when - 10);
	last_free(&l);
	last_get(path_of(CHIP), &l);
	ASSERT_EQ(l.n, 3);
	ASSERT_EQ(l.when, c.when);
	ASSERT_STR_EQ(l.values[2], "1.25");
	last_free(&l);

	/* Another poll interval: the steps no longer fit. */
	c.step = 5;
	c.when += 10;
	update_once(&c);
	ASSERT_EQ(c.r, 0);
	ASSERT_EQ(count_files(CHIP ".rrd.old-", NULL, 0), 2);

	/* A new label is no new file. */
	f.features[0].label = "Case Temp";
	c.when += 5;
	update_once(&c);
	ASSERT_EQ(c.r, 0);
	ASSERT_EQ(count_files(CHIP ".rrd", NULL, 0), 3);

	/* Nor is a restart. */
	hwsd_history_free(c.h);
	ASSERT_EQ(hwsd_history_new(dir, 0, &c.h), 0);
	c.when += 5;
	update_once(&c);
	ASSERT_EQ(c.r, 0);
	ASSERT_EQ(count_files(CHIP ".rrd", NULL, 0), 3);
	expect_last_update(&c);
	hwsd_history_free(c.h);
	teardown();
}

/* A sensor set that keeps changing: the three newest files set aside are
 * kept, the older ones removed. */
TEST(only_the_newest_files_set_aside_are_kept)
{
	static const char *const names[] = { "in0", "in1", "in2", "in3", "in4", "in5" };
	struct fake_chip f;
	struct change c = { .f = &f, .step = 10, .when = aligned_now(10) - 100 };
	unsigned long fewest = ~0ul;
	struct dirent *e;
	struct last l;
	char *log;
	DIR *d;
	int n = 0;

	setup();
	chip_init(&f, CHIP);
	ASSERT_EQ(hwsd_history_new(dir, 0, &c.h), 0);
	/* Files of 1, 2 ... 5 sensors are set aside in turn. */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		chip_add(&f, names[i], NULL, HWS_SENSOR_IN, 1.0 + (double)i);
		c.when += 10;
		log = logged(update_once, &c);
		ASSERT_EQ(c.r, 0);
		if (i >= 4)
			ASSERT_NOT_NULL(strstr(log, "the 3 newest files set aside are kept"));
		free(log);
	}
	d = opendir(dir);
	ASSERT_NOT_NULL(d);
	while ((e = readdir(d))) {
		char path[512];

		if (strncmp(e->d_name, CHIP ".rrd.old-", strlen(CHIP ".rrd.old-")))
			continue;
		n++;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		last_get(path, &l);
		if (l.n < fewest)
			fewest = l.n;
		last_free(&l);
	}
	closedir(d);
	ASSERT_EQ(n, 3);
	ASSERT_EQ(fewest, 3);
	hwsd_history_free(c.h);
	teardown();
}

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static size_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ASSERT_GE(fd, 0);
	n = read(fd, buf, size);
	close(fd);
	ASSERT_GE(n, 0);
	return (size_t)n;
}

/* @content in place of the chip's file: set aside as it is, a new file
 * started, the poll recorded. */
static void expect_set_aside(const char *content, size_t len)
{
	struct fake_chip f;
	struct change c = { .f = &f, .step = 1, .when = aligned_now(1) };
	static char back[4 << 20];
	char aside[512];
	struct last l;
	char *log;

	chip_three(&f);
	ASSERT_EQ(hwsd_history_new(dir, 0, &c.h), 0);
	write_file(path_of(CHIP), content, len);
	log = logged(update_once, &c);
	ASSERT_EQ(c.r, 0);
	ASSERT_NOT_NULL(strstr(log, "unreadable"));
	ASSERT_NOT_NULL(strstr(log, "kept as "));
	ASSERT_NOT_NULL(strstr(log, ".rrd.corrupt-"));
	free(log);
	ASSERT_EQ(count_files(CHIP ".rrd.corrupt-", aside, sizeof(aside)), 1);
	ASSERT_EQ(read_file(aside, back, sizeof(back)), len);
	ASSERT_EQ(memcmp(back, content, len), 0);
	last_get(path_of(CHIP), &l);
	ASSERT_EQ(l.when, c.when);
	ASSERT_STR_EQ(l.values[1], "1000");
	last_free(&l);
	hwsd_history_free(c.h);
}

TEST(garbage_is_set_aside)
{
	char garbage[4096];

	setup();
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 7 + 3);
	expect_set_aside(garbage, sizeof(garbage));
	teardown();
}

TEST(empty_file_is_set_aside)
{
	setup();
	expect_set_aside("", 0);
	teardown();
}

TEST(truncated_file_is_set_aside)
{
	struct hwsd_history *h = NULL;
	static char good[4 << 20];
	struct fake_chip f;
	size_t len;

	setup();
	chip_three(&f);
	ASSERT_EQ(hwsd_history_new(dir, 0, &h), 0);
	ASSERT_EQ(update_written(h, &f.chip, 10, aligned_now(10) - 10), 0);
	hwsd_history_free(h);
	len = read_file(path_of(CHIP), good, sizeof(good));
	ASSERT_GT(len, 4096);
	ASSERT_LT(len, sizeof(good));
	/* A header whole, the rows cut off: librrd's size check. */
	expect_set_aside(good, len / 2);
	teardown();
}

/* The burst of c finds the file locked; the lock held by @pid is let go
 * (a byte on @release_fd); the next poll writes it all. */
static void unlocked_then_written(struct change *c, int release_fd, pid_t pid)
{
	ASSERT_EQ(hwsd_history_flush(c->h), -EBUSY);
	ASSERT_EQ(write(release_fd, "", 1), 1);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	next_poll_recorded(c);
}

/* Another program (rrdtool dump, a backup) holding the file locked: the
 * polls wait in memory for the next burst, quietly, and the file is not
 * taken for a corrupt one, not even when it is checked anew (a restart). */
TEST(a_file_locked_elsewhere_is_left_alone)
{
	struct fake_chip f;
	struct change c = { .f = &f, .step = 10, .when = aligned_now(10) - 100 };
	int64_t locked_at;
	int done[2];
	char *log;
	pid_t pid;

	setup();
	chip_three(&f);
	history_started(&c);
	ASSERT_EQ(pipe(done), 0);
	pid = lock_elsewhere(F_WRLCK, done[0]);
	c.when += 10;
	locked_at = c.when;
	chip_set(&f, 0, 41);
	log = logged(update_once, &c);
	ASSERT_EQ(c.r, 0);
	ASSERT_STR_EQ(log, "");
	free(log);
	unlocked_then_written(&c, done[1], pid);
	expect_value_at(locked_at, 41);

	pid = lock_elsewhere(F_WRLCK, done[0]);
	hwsd_history_free(c.h);
	ASSERT_EQ(hwsd_history_new(dir, 0, &c.h), 0);
	c.when += 10;
	log = logged(update_once, &c);
	ASSERT_EQ(c.r, 0);
	ASSERT_STR_EQ(log, "");
	free(log);
	unlocked_then_written(&c, done[1], pid);
	ASSERT_EQ(count_files(CHIP ".rrd", NULL, 0), 1);
	hwsd_history_free(c.h);
	teardown();
}

/* rrdtool drawing a graph holds a read lock while it fetches: a poll
 * that comes then waits for it rather than being lost. */
TEST(an_update_waits_for_a_reader)
{
	struct fake_chip f;
	struct change c = { .f = &f, .step = 10, .when = aligned_now(10) - 100 };
	pid_t pid;

	setup();
	chip_three(&f);
	history_started(&c);
	pid = lock_elsewhere(F_RDLCK, -1);
	c.when += 10;
	update_once(&c);
	ASSERT_EQ(c.r, 0);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);
	expect_last_update(&c);
	hwsd_history_free(c.h);
	teardown();
}

static bool is_png(const unsigned char *p, size_t len, unsigned *ret_w, unsigned *ret_h)
{
	if (len < 24 || memcmp(p, "\x89PNG\r\n\x1a\n", 8) || memcmp(p + 12, "IHDR", 4))
		return false;
	*ret_w = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
	*ret_h = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
	return true;
}

/* A chip with a bit of everything, polled every 10 s for the last hour. */
static void add_an_hour(struct hwsd_history *h, struct fake_chip *f, const char *name)
{
	int64_t now = aligned_now(10);

	chip_three_named(f, name);
	chip_add(f, "fan2", "Case Fan", HWS_SENSOR_FAN, 2100);
	chip_add(f, "temp2", "", HWS_SENSOR_TEMP, 55);
	chip_add(f, "pwm1", "", HWS_SENSOR_PWM, 128);
	/* A setting with an input file: recorded, never drawn. */
	chip_add(f, "beep_enable", "", HWS_SENSOR_BEEP_ENABLE, 1);
	chip_limit(f, 0, HWS_ITEM_MAX, 60);
	chip_limit(f, 0, HWS_ITEM_CRIT, 80);
	chip_limit(f, 1, HWS_ITEM_MIN, 600);
	chip_limit(f, 2, HWS_ITEM_MIN, 1.1);
	chip_limit(f, 2, HWS_ITEM_MAX, 1.3);
	chip_limit(f, 3, HWS_ITEM_MIN, 0);      /* no minimum */
	for (int i = 360; i >= 0; i--) {
		chip_set(f, 0, 45 + 10 * sin(i / 30.0));
		chip_set(f, 1, 1000 + 200 * cos(i / 40.0));
		chip_set(f, 2, 1.2 + 0.05 * sin(i / 10.0));
		ASSERT_EQ(hwsd_history_update(h, &f->chip, 10, now - 10 * i), 0);
	}
	ASSERT_EQ(hwsd_history_flush(h), 0);
}

static struct hwsd_history *history_with_an_hour(struct fake_chip *f)
{
	struct hwsd_history *h = NULL;

	ASSERT_EQ(hwsd_history_new(dir, HOUR, &h), 0);
	add_an_hour(h, f, CHIP);
	return h;
}

TEST(graphs_are_png)
{
	static const char *const ranges[] = { "1h", "1d", "1w", NULL };
	struct fake_chip f;
	struct hwsd_history *h;
	const char *keep = getenv("HWS_TEST_KEEP_PNG");

	setup();
	h = history_with_an_hour(&f);
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		void *png = NULL;
		size_t len = 0;
		unsigned w, ht;

		ASSERT_EQ(hwsd_history_graph(h, CHIP, NULL, ranges[i], &png, &len), 0);
		ASSERT_TRUE(is_png(png, len, &w, &ht));
		ASSERT_GE(w, 720);
		ASSERT_GE(ht, 240);
		/* Lines, text and a legend, not a blank frame. */
		ASSERT_GT(len, 10000);
		if (keep && ranges[i] && !strcmp(ranges[i], "1h"))
			write_file(keep, png, len);
		free(png);
	}
	hwsd_history_free(h);
	teardown();
}

TEST(graph_refusals)
{
	static const char *const bad_ranges[] = { "", "1y", "1H", "1h ", "3600", "1d&range=1w" };
	static const char *const bad_names[] = { "", ".", "..", "../" CHIP, CHIP "/..", "a/b", ".hidden",
						 "x:y", "/etc/passwd" };
	struct fake_chip f;
	struct hwsd_history *h;
	void *png = NULL;
	size_t len = 0;

	setup();
	h = history_with_an_hour(&f);
	for (size_t i = 0; i < sizeof(bad_ranges) / sizeof(bad_ranges[0]); i++)
		ASSERT_EQ(hwsd_history_graph(h, CHIP, NULL, bad_ranges[i], &png, &len), -EINVAL);
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		ASSERT_EQ(hwsd_history_graph(h, bad_names[i], NULL, "1h", &png, &len), -EINVAL);
	ASSERT_EQ(hwsd_history_graph(h, "nct6775-isa-0290", NULL, "1h", &png, &len), -ENOENT);
	ASSERT_EQ(hwsd_history_range(NULL), 86400);
	ASSERT_EQ(hwsd_history_range("1w"), 7 * 86400);
	ASSERT_EQ(hwsd_history_range("2w"), -EINVAL);
	ASSERT_NULL(png);
	hwsd_history_free(h);
	teardown();
}

TEST(names_stay_in_the_directory)
{
	static const char *const bad[] = { "../evil", "a/b", ".hidden", "..", "" };
	struct hwsd_history *h = NULL;
	char outside[sizeof(top) + 32];
	struct fake_chip f;

	setup();
	ASSERT_EQ(hwsd_history_new(dir, 0, &h), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		chip_three(&f);
		f.chip.name = bad[i];
		ASSERT_EQ(update_written(h, &f.chip, 1, aligned_now(1)), -EINVAL);
	}
	snprintf(outside, sizeof(outside), "%s/evil.rrd", top);
	ASSERT_EQ(access(outside, F_OK), -1);
	ASSERT_EQ(count_files("", NULL, 0), 2);  /* "." and ".." alone */
	hwsd_history_free(h);
	teardown();
}

/* Two images alike: the second was not drawn again. */
static bool same_png(const void *a, size_t a_len, const void *b, size_t b_len)
{
	return a_len == b_len && !memcmp(a, b, a_len);
}

TEST(graphs_are_drawn_again_only_when_due)
{
	struct fake_chip f;
	struct hwsd_history *h;
	void *png[3] = { NULL };
	size_t len[3] = { 0 };

	setup();
	h = history_with_an_hour(&f);
	ASSERT_EQ(hwsd_history_graph(h, CHIP, NULL, "1h", &png[0], &len[0]), 0);
	/* A client asking in a loop gets the image drawn a moment ago. */
	ASSERT_EQ(hwsd_history_graph(h, CHIP, NULL, "1h", &png[1], &len[1]), 0);
	ASSERT_TRUE(same_png(png[0], len[0], png[1], len[1]));
	/* A sensor more: a new file, a new graph at once. */
	chip_add(&f, "in1", "+12V", HWS_SENSOR_IN, 12.1);
	ASSERT_EQ(update_written(h, &f.chip, 10, aligned_now(10) + 10), 0);
	ASSERT_EQ(hwsd_history_graph(h, CHIP, NULL, "1h", &png[2], &len[2]), 0);
	ASSERT_FALSE(same_png(png[0], len[0], png[2], len[2]));
	for (int i = 0; i < 3; i++)
		free(png[i]);
	hwsd_history_free(h);
	teardown();
}

/* A program in place of rrdtool, in TOP/@name: a shell script that runs
 * @body for the rrdtool command @cmd ("graph", or "-" for a burst's
 * rrdtool), and is the real one for the rest. */
static void fake_rrdtool_for(char *path, size_t size, const char *name, const char *cmd, const char *body)
{
	char script[2048];
	int n = snprintf(script, sizeof(script),
			 "#!/bin/sh\n[ \"$1\" = %s ] || exec " HISTORY_RRDTOOL " \"$@\"\n%s\n", cmd, body);

	ASSERT_LT(n, sizeof(script));
	snprintf(path, size, "%s/%s", top, name);
	write_file(path, script, (size_t)n);
	ASSERT_EQ(chmod(path, 0755), 0);
}

/* An rrdtool that runs @body to draw a graph (the fetch before a graph
 * and the bursts are the real one's). */
static void fake_rrdtool(char *path, size_t size, const char *name, const char *body)
{
	fake_rrdtool_for(path, size, name, "graph", body);
}

/* Every child has been waited for. */
static void no_child_left(void)
{
	errno = 0;
	ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ASSERT_EQ(errno, ECHILD);
}

struct graph_call {
	struct hwsd_history *h;
	const char *kind;
	const char *range;
	void *png;
	size_t len;
	int r;
};

static void graph_once(void *arg)
{
	struct graph_call *g = arg;

	free(g->png);
	g->png = NULL;
	g->r = hwsd_history_graph(g->h, CHIP, g->kind, g->range, &g->png, &g->len);
}

/* Draws g, which must fail with err and log said. */
static void expect_graph_error(struct graph_call *g, int err, const char *said)
{
	char *log = logged(graph_once, g);

	ASSERT_EQ(g->r, err);
	ASSERT_NOT_NULL(strstr(log, said));
	free(log);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* A graph case: setup() and an hour of history, drawn by g for a range. */
struct graph_test {
	struct fake_chip f;
	struct graph_call g;
	char prog[sizeof(top) + 32]; /* the fake rrdtool, if the case has one */
};

static void graph_test_start(struct graph_test *t, const char *range)
{
	setup();
	t->g = (struct graph_call){ .range = range, .h = history_with_an_hour(&t->f) };
}

/* g draws with a fake rrdtool, a shell script of body. */
static void graph_test_fake(struct graph_test *t, const char *name, const char *body)
{
	fake_rrdtool(t->prog, sizeof(t->prog), name, body);
	t->g.h->rrdtool = t->prog;
}

/* Every rrdtool the case ran has been waited for. */
static void graph_test_end(struct graph_test *t)
{
	no_child_left();
	hwsd_history_free(t->g.h);
	teardown();
}

/* The arguments the last graph was drawn with, one a line after "graph",
 * by an rrdtool that writes them to PROG.args. */
static void drawn_args(const struct graph_test *t, char *buf, size_t size)
{
	char path[sizeof(t->prog) + 8];

	snprintf(path, sizeof(path), "%s.args", t->prog);
	buf[read_file(path, buf, size - 1)] = '\0';
}

/* What a kind's graph must hold and leave out. */
struct kind_case {
	const char *kind;
	const char *label;                      /* the vertical one */
	const char *drawn[3], *left_out[6];     /* sensors, as "\nDEF:NAME=" */
	const char *hrules[3];                  /* "\nHRULE:...\n" */
};

static void expect_kind_graph(struct graph_test *t, const struct kind_case *k)
{
	char args[16384], want[96];
	unsigned w, ht;

	t->g.kind = k->kind;
	graph_once(&t->g);
	ASSERT_EQ(t->g.r, 0);
	ASSERT_TRUE(is_png(t->g.png, t->g.len, &w, &ht));
	drawn_args(t, args, sizeof(args));
	for (size_t i = 0; i < 3 && k->drawn[i]; i++) {
		snprintf(want, sizeof(want), "\nDEF:%s=", k->drawn[i]);
		ASSERT_NOT_NULL(strstr(args, want));
	}
	for (size_t i = 0; i < 6 && k->left_out[i]; i++) {
		snprintf(want, sizeof(want), "\nDEF:%s=", k->left_out[i]);
		ASSERT_NULL(strstr(args, want));
	}
	/* Settings are no series, in any graph. */
	ASSERT_NULL(strstr(args, "beep_enable"));
	for (size_t i = 0; i < 3 && k->hrules[i]; i++)
		ASSERT_NOT_NULL(strstr(args, k->hrules[i]));
	if (!k->hrules[0])
		ASSERT_NULL(strstr(args, "HRULE"));
	ASSERT_NULL(strstr(args, "\nHRULE:0#"));
	snprintf(want, sizeof(want), "\n--vertical-label=%s\n", k->label);
	ASSERT_NOT_NULL(strstr(args, want));
}

/* A graph per kind: its sensors alone, in its unit, with their limits as
 * dashed lines of their colour (the first colour is the first sensor's);
 * the graph of every kind draws no limit; settings are never drawn. */
TEST(one_graph_per_kind_with_its_limits)
{
	static const struct kind_case cases[] = {
		{ "temp", "°C", { "temp1", "temp2" }, { "fan1", "fan2", "in0", "pwm1" },
		  { "\nHRULE:60#1f77b4::dashes=6,4\n", "\nHRULE:80#1f77b4::dashes=6,4\n" } },
		/* fan2's minimum of 0 is none. */
		{ "fan", "RPM", { "fan1", "fan2" }, { "temp1", "temp2", "in0", "pwm1" },
		  { "\nHRULE:600#1f77b4::dashes=6,4\n" } },
		{ "in", "V", { "in0" }, { "temp1", "fan1", "pwm1" },
		  { "\nHRULE:1.1#1f77b4::dashes=6,4\n", "\nHRULE:1.3#1f77b4::dashes=6,4\n" } },
		{ "pwm", "%", { "pwm1" }, { "temp1", "fan1", "in0" }, { NULL } },
		{ NULL, "°C, V, %", { "temp1", "in0", "pwm1" }, { NULL }, { NULL } },
	};
	struct graph_test t;
	char args[16384];

	graph_test_start(&t, "1h");
	graph_test_fake(&t, "args", "printf '%s\\n' \"$@\" >\"$0.args\"\nexec " HISTORY_RRDTOOL " \"$@\"");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_kind_graph(&t, &cases[i]);
	/* A limit written since: the graph is drawn again, with it. */
	chip_limit(&t.f, 0, HWS_ITEM_MAX, 70);
	ASSERT_EQ(update_written(t.g.h, &t.f.chip, 10, aligned_now(10) + 10), 0);
	t.g.kind = "temp";
	graph_once(&t.g);
	ASSERT_EQ(t.g.r, 0);
	drawn_args(&t, args, sizeof(args));
	ASSERT_NOT_NULL(strstr(args, "\nHRULE:70#1f77b4::dashes=6,4\n"));
	ASSERT_NULL(strstr(args, "\nHRULE:60#"));
	/* Kinds that are settings, or that the chip does not have. */
	t.g.kind = "beep_enable";
	graph_once(&t.g);
	ASSERT_EQ(t.g.r, -EINVAL);
	t.g.kind = "tmp";
	graph_once(&t.g);
	ASSERT_EQ(t.g.r, -EINVAL);
	t.g.kind = "curr";
	graph_once(&t.g);
	ASSERT_EQ(t.g.r, -ENODATA);
	ASSERT_NULL(t.g.png);
	graph_test_end(&t);
}

/* A drawing that hangs is killed at its time limit, and the next one is
 * drawn as if nothing had happened. */
TEST(a_hanging_rrdtool_is_killed)
{
	struct graph_test t;
	char *log;
	struct timespec t0;
	unsigned w, ht;

	graph_test_start(&t, "1h");
	graph_test_fake(&t, "hang", "exec sleep 60");
	t.g.h->draw_timeout_ms = 300;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	log = logged(graph_once, &t.g);
	ASSERT_EQ(t.g.r, -ETIMEDOUT);
	ASSERT_LT(seconds_since(&t0), 5);
	ASSERT_NOT_NULL(strstr(log, "rrdtool took over 300 ms; killed it"));
	no_child_left();
	free(log);
	t.g.h->rrdtool = HISTORY_RRDTOOL;
	t.g.h->draw_timeout_ms = HISTORY_DRAW_TIMEOUT_MS;
	graph_once(&t.g);
	ASSERT_EQ(t.g.r, 0);
	ASSERT_TRUE(is_png(t.g.png, t.g.len, &w, &ht));
	free(t.g.png);
	graph_test_end(&t);
}

/* A graph due again that cannot be drawn (rrdtool too slow on a loaded
 * machine): the last one is given; with none, the failure. */
TEST(a_failed_draw_gives_the_last_graph)
{
	struct graph_test t;
	char *log;
	void *first;
	size_t first_len;

	graph_test_start(&t, "1h");
	graph_once(&t.g);
	ASSERT_EQ(t.g.r, 0);
	first = t.g.png;
	first_len = t.g.len;
	t.g.png = NULL;
	graph_test_fake(&t, "hang", "exec sleep 60");
	t.g.h->draw_timeout_ms = 300;
	/* An hour later, it is due. */
	pthread_mutex_lock(&t.g.h->lock);
	for (size_t i = 0; i < HISTORY_RANGES; i++)
		hwsd_history__find(t.g.h, CHIP)->drawn[HISTORY_ALL_KINDS][i].made -= 3600;
	pthread_mutex_unlock(&t.g.h->lock);
	log = logged(graph_once, &t.g);
	ASSERT_EQ(t.g.r, 0);
	ASSERT_TRUE(same_png(first, first_len, t.g.png, t.g.len));
	ASSERT_NOT_NULL(strstr(log, "rrdtool took over 300 ms; killed it"));
	free(log);
	t.g.range = "1w";
	log = logged(graph_once, &t.g);
	ASSERT_EQ(t.g.r, -ETIMEDOUT);
	ASSERT_NULL(t.g.png);
	free(log);
	free(first);
	graph_test_end(&t);
}

TEST(an_rrdtool_writing_too_much_is_killed)
{
	struct graph_test t;

	graph_test_start(&t, "1d");
	graph_test_fake(&t, "flood", "exec cat /dev/zero");
	t.g.h->png_max = 100000;
	expect_graph_error(&t.g, -EFBIG, "rrdtool wrote over 100000 bytes; killed it");
	ASSERT_NULL(t.g.png);
	graph_test_end(&t);
}

/* What rrdtool says first is logged, and a failure is not kept. */
TEST(rrdtool_failures_are_logged)
{
	struct graph_test t;
	char *log;

	graph_test_start(&t, "1w");
	graph_test_fake(&t, "fail",
		     "echo \"ERROR: opening 'x.rrd': No such file or directory\" >&2\n"
		     "echo 'not this line' >&2\n"
		     "exit 1");
	log = logged(graph_once, &t.g);
	ASSERT_EQ(t.g.r, -EIO);
	ASSERT_NOT_NULL(strstr(log, CHIP ": rrdtool graph failed (status 1): ERROR: opening 'x.rrd': No such file"));
	ASSERT_NULL(strstr(log, "not this line"));
	free(log);
	graph_test_fake(&t, "fail", "echo 'a picture'");
	expect_graph_error(&t.g, -EIO, "rrdtool wrote no PNG");
	snprintf(t.prog, sizeof(t.prog), "%s/missing", top);
	expect_graph_error(&t.g, -EIO, "missing: No such file or directory");
	graph_test_end(&t);
}

/* rrdtool finds the file locked while the poller writes it: it is run
 * again a moment later, a few times. */
TEST(a_locked_file_is_drawn_again)
{
	struct graph_test t;
	char body[1024], runs[sizeof(top) + 32], *log;
	unsigned w, ht;

	graph_test_start(&t, "1h");
	IN_TOP(runs, "runs");
	snprintf(body, sizeof(body),
		 "echo run >>'%s'\n"
		 "[ $(wc -l <'%s') -ge 3 ] && exec " HISTORY_RRDTOOL " \"$@\"\n"
		 "echo 'ERROR: could not lock RRD' >&2\n"
		 "exit 1", runs, runs);
	graph_test_fake(&t, "locked-twice", body);
	log = logged(graph_once, &t.g);
	ASSERT_EQ(t.g.r, 0);
	ASSERT_TRUE(is_png(t.g.png, t.g.len, &w, &ht));
	ASSERT_STR_EQ(log, "");
	free(log);
	/* Locked for good (a backup, say): given up. */
	t.g.range = "1d";
	unlink(runs);
	graph_test_fake(&t, "locked",
		     "echo 'ERROR: could not lock RRD' >&2\n"
		     "exit 1");
	expect_graph_error(&t.g, -EBUSY, "could not lock RRD");
	free(t.g.png);
	graph_test_end(&t);
}

/* The child gets /dev/null, two pipes, none of our descriptors and an
 * environment of its own. */
TEST(rrdtool_gets_only_what_it_needs)
{
	struct graph_test t;
	char body[1024], *log;
	unsigned w, ht;

	graph_test_start(&t, "1h");
	ASSERT_EQ(dup2(STDIN_FILENO, 50), 50);  /* no O_CLOEXEC, as librrd opens */
	setenv("HWS_TEST_SECRET", "1", 1);
	snprintf(body, sizeof(body),
		 "[ \"$(readlink /proc/self/fd/0)\" = /dev/null ] || { echo 'ERROR: stdin' >&2; exit 1; }\n"
		 "[ -e /proc/self/fd/50 ] && { echo 'ERROR: descriptor 50' >&2; exit 1; }\n"
		 "[ \"$LC_ALL\" = C.UTF-8 ] && [ -z \"${HWS_TEST_SECRET+set}\" ] ||"
		 " { echo \"ERROR: environment $(env | tr '\\n' ' ')\" >&2; exit 1; }\n"
		 "exec " HISTORY_RRDTOOL " \"$@\"");
	graph_test_fake(&t, "check", body);
	log = logged(graph_once, &t.g);
	ASSERT_STR_EQ(log, "");
	ASSERT_EQ(t.g.r, 0);
	ASSERT_TRUE(is_png(t.g.png, t.g.len, &w, &ht));
	free(log);
	free(t.g.png);
	unsetenv("HWS_TEST_SECRET");
	close(50);
	graph_test_end(&t);
}

static void *graph_thread(void *arg)
{
	graph_once(arg);
	return NULL;
}

/* The lines of a file, as a string. */
static void read_text(const char *path, char *buf, size_t size)
{
	buf[read_file(path, buf, size - 1)] = '\0';
}

/* Clients asking for one graph at once get one drawing, and no more
 * than two are drawn at once however many are asked for. */
TEST(graphs_asked_for_at_once)
{
	static const char *const ranges[] = { "1h", "1h", "1h", "1d", "1w" };
	enum { N = sizeof(ranges) / sizeof(ranges[0]) };
	struct graph_call g[N];
	struct fake_chip f;
	struct hwsd_history *h;
	char prog[sizeof(top) + 32], body[1024], runs[sizeof(top) + 32], most[sizeof(top) + 32];
	pthread_t t[N];
	int n_runs = 0, n_1h = 0, max = 0;
	char buf[4096], *line, *save;

	setup();
	h = history_with_an_hour(&f);
	IN_TOP(runs, "runs");
	IN_TOP(most, "running");
	/* Each run counts the runs under way, itself included, while it
	 * sleeps before drawing. */
	snprintf(body, sizeof(body),
		 "echo \"$*\" >>'%s'\n"
		 "mkdir '%s/run-'$$\n"
		 "ls -d '%s'/run-* | wc -l >>'%s'\n"
		 "sleep 0.3\n"
		 "rmdir '%s/run-'$$\n"
		 "exec " HISTORY_RRDTOOL " \"$@\"", runs, top, top, most, top);
	fake_rrdtool(prog, sizeof(prog), "slow", body);
	h->rrdtool = prog;
	for (int i = 0; i < N; i++) {
		g[i] = (struct graph_call){ .h = h, .range = ranges[i] };
		ASSERT_EQ(pthread_create(&t[i], NULL, graph_thread, &g[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		ASSERT_EQ(g[i].r, 0);
		ASSERT_TRUE(same_png(g[i].png, g[i].len, g[0].png, g[0].len) == !strcmp(ranges[i], "1h"));
	}
	read_text(runs, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n_runs++;
		n_1h += strstr(line, "last hour") != NULL;
	}
	ASSERT_EQ(n_runs, 3);
	ASSERT_EQ(n_1h, 1);
	read_text(most, buf, sizeof(buf));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		max = atoi(line) > max ? atoi(line) : max;
	ASSERT_GE(max, 1);
	ASSERT_LE(max, 2);
	for (int i = 0; i < N; i++)
		free(g[i].png);
	no_child_left();
	hwsd_history_free(h);
	teardown();
}

struct drawer {
	struct hwsd_history *h;
	const char *chip;
	int drawn;
	int r;
};

static void *draw_loop(void *arg)
{
	static const char *const ranges[] = { "1h", "1d", "1w" };
	struct drawer *d = arg;

	for (int i = 0; i < 6 && d->r == 0; i++) {
		void *png = NULL;
		size_t len = 0;

		d->r = hwsd_history_graph(d->h, d->chip, NULL, ranges[i % 3], &png, &len);
		d->drawn += d->r == 0 && len > 8 && !memcmp(png, "\x89PNG", 4);
		free(png);
	}
	return NULL;
}

/* Graphs of two chips drawn on two HTTP threads while the poller records
 * both: run under TSan too. */
TEST_TIMEOUT(graphs_while_polling, 120)
{
	struct drawer d[2] = { { .chip = CHIP }, { .chip = "pc87427-isa-0900" } };
	struct fake_chip f[2];
	struct hwsd_history *h = NULL;
	int64_t now = aligned_now(10) + 10;
	pthread_t t[2];

	setup();
	ASSERT_EQ(hwsd_history_new(dir, 0, &h), 0);
	for (int i = 0; i < 2; i++)
		add_an_hour(h, &f[i], d[i].chip);
	for (int i = 0; i < 2; i++) {
		d[i].h = h;
		ASSERT_EQ(pthread_create(&t[i], NULL, draw_loop, &d[i]), 0);
	}
	for (int i = 0; i < 300; i++) {
		chip_set(&f[i % 2], 0, 40 + i % 20);
		ASSERT_EQ(hwsd_history_update(h, &f[i % 2].chip, 10, now + 10 * (i / 2)), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		ASSERT_EQ(d[i].r, 0);
		ASSERT_EQ(d[i].drawn, 6);
	}
	hwsd_history_free(h);
	teardown();
}

/* TOP/@name, which a fake rrdtool makes, is there within 10 s. */
static void wait_for_file(const char *path)
{
	for (int i = 0; i < 1000 && access(path, F_OK) < 0; i++)
		usleep(10 * 1000);
	ASSERT_EQ(access(path, F_OK), 0);
}

/* A burst's rrdtool held up (a loaded machine, a slow disk): the polls go
 * on meanwhile, batched, and are all written in the end. */
TEST(polls_do_not_wait_for_a_slow_rrdtool)
{
	char prog[sizeof(top) + 32], body[1024], writing[sizeof(top) + 32], go[sizeof(top) + 32],
	     released[sizeof(top) + 32];
	struct fake_chip f;
	struct change c = { .f = &f, .step = 1, .when = aligned_now(1) - 100 };

	setup();
	chip_three(&f);
	IN_TOP(writing, "writing");
	IN_TOP(go, "go");
	IN_TOP(released, "released");
	/* It waits for TOP/go, 30 s at most, before it starts rrdtool. */
	snprintf(body, sizeof(body),
		 ": >'%s'\n"
		 "i=0; while [ ! -e '%s' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done\n"
		 ": >'%s'\n"
		 "exec " HISTORY_RRDTOOL " \"$@\"", writing, go, released);
	fake_rrdtool_for(prog, sizeof(prog), "held", "-", body);
	ASSERT_EQ(hwsd_history_new(dir, 0, &c.h), 0);
	c.h->rrdtool = prog;
	ASSERT_EQ(hwsd_history_update(c.h, &f.chip, 1, c.when), 0);
	wait_for_file(writing);
	for (int i = 1; i <= 5; i++) {
		chip_set(&f, 0, 40 + i);
		ASSERT_EQ(hwsd_history_update(c.h, &f.chip, 1, c.when + i), 0);
	}
	/* Five polls taken while the burst's rrdtool was held. */
	ASSERT_EQ(access(released, F_OK), -1);
	write_file(go, "", 0);
	ASSERT_EQ(hwsd_history_flush(c.h), 0);
	c.when += 5;
	expect_last_update(&c);
	expect_value_at(c.when - 2, 43);
	hwsd_history_free(c.h);
	teardown();
}

struct flush_call {
	struct hwsd_history *h;
	int r;
};

static void flush_once(void *arg)
{
	struct flush_call *fc = arg;

	fc->r = hwsd_history_flush(fc->h);
}

/* c's chip and d's polled, at the same time, c->step after c's last poll. */
static void both_polled(struct change *c, struct change *d)
{
	c->when += c->step;
	d->when = c->when;
	update_once(c);
	update_once(d);
	ASSERT_EQ(c->r, 0);
	ASSERT_EQ(d->r, 0);
}

/* Lines in @path. */
static int count_lines(const char *path)
{
	char buf[4096];
	int n = 0;

	buf[read_file(path, buf, sizeof(buf) - 1)] = '\0';
	for (char *p = buf; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

/* One chip's file cannot be written: that is logged, naming it, and the
 * other chip's polls are written all the same, by the same rrdtool; the
 * next burst sets the bad file aside and records the chip again. */
TEST(a_failing_chip_holds_up_no_other)
{
	static char good[4 << 20];
	char prog[sizeof(top) + 32], runs[sizeof(top) + 32], body[256], *log;
	struct fake_chip f, g;
	/* No burst falls due within the hour: hwsd_history_flush() alone writes. */
	struct change c = { .f = &f, .step = 10, .when = aligned_now(10) - 100 };
	struct change d = { .f = &g, .step = 10 };
	struct flush_call fc;
	struct last l;
	size_t len;

	setup();
	chip_three(&f);
	chip_three_named(&g, "lm75-i2c-0-48");
	IN_TOP(runs, "runs");
	snprintf(body, sizeof(body), "echo \"$1\" >>'%s'\nexec " HISTORY_RRDTOOL " \"$@\"", runs);
	fake_rrdtool_for(prog, sizeof(prog), "counted", "-", body);
	ASSERT_EQ(hwsd_history_new(dir, HOUR, &c.h), 0);
	c.h->rrdtool = prog;
	fc.h = d.h = c.h;
	both_polled(&c, &d);
	ASSERT_EQ(hwsd_history_flush(c.h), 0);
	ASSERT_EQ(count_lines(runs), 1);

	/* The header whole, the rows cut off: rrdtool refuses to update it. */
	len = read_file(path_of(CHIP), good, sizeof(good));
	write_file(path_of(CHIP), good, len / 2);
	chip_set(&g, 0, 42);
	both_polled(&c, &d);
	log = logged(flush_once, &fc);
	ASSERT_EQ(fc.r, -EIO);
	ASSERT_NOT_NULL(strstr(log, CHIP ".rrd: cannot update it: rrdtool update failed: "));
	ASSERT_NULL(strstr(log, "lm75"));
	free(log);
	ASSERT_EQ(count_lines(runs), 2);
	last_get(path_of("lm75-i2c-0-48"), &l);
	ASSERT_EQ(l.when, d.when);
	ASSERT_STR_EQ(l.values[0], "42");
	last_free(&l);

	both_polled(&c, &d);
	log = logged(flush_once, &fc);
	ASSERT_EQ(fc.r, 0);
	ASSERT_NOT_NULL(strstr(log, ".rrd.corrupt-"));
	ASSERT_NOT_NULL(strstr(log, "recording again"));
	free(log);
	expect_last_update(&c);
	ASSERT_EQ(count_lines(runs), 3);
	hwsd_history_free(c.h);
	teardown();
}

int main(int argc, char **argv)
{
	return hws_test_main(argc, argv);
}
