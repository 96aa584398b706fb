/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sensor history: one RRD file per chip under STATE/history, written in
 * bursts by rrdtool, RRD's own program, run as a child
 * (history-rrdtool.c), and drawn for /graph by it too.
 *
 * Bursts. A laptop's disk must be able to sleep, so a poll is only added
 * to its chip's batch in memory, one "when:v1:v2..." line, and the
 * batches are written together every flush_interval seconds ([history],
 * 300 by default): one "rrdtool -" child takes an "update
 * --skip-past-updates FILE LINE..." per chip on its stdin, then each
 * file written gets one fdatasync(), all within a second or so. A chip
 * whose file fails is logged (a file locked by another program keeps its
 * polls for the next burst); the others are written all the same. They are written too before a graph is drawn
 * (that chip alone, so that it shows the last poll), and at the freeze
 * before the system sleeps, at a reload and at the stop
 * (hwsd_history_flush(), from main.c), which cancel the burst pending and
 * write in the caller. A crash loses at most the polls since the last
 * burst; a clean stop loses none. A batch is bounded
 * (HISTORY_BATCH_MAX, some hours of 1 s polls of a big chip): while a
 * file cannot be written, its oldest polls are dropped, with a warning.
 *
 * Crash safety. rrdtool writes an update in place, through a shared
 * mapping of the file (rrd_open.c, rrd_write()): the live header
 * (last update time, the step being built, the consolidation state, the
 * archive pointers) and one row per archive. The layout of the file --
 * its size, its data sources, its archives -- is written once, by
 * rrdtool create, into a temporary file renamed into place (rrd_create.c,
 * write_rrd()), and no update rewrites it. rrdtool never syncs, so we
 * fsync() a new file and its directory, and fdatasync() after each
 * burst. A crash or a power cut can then cost only the burst being
 * written, which may be left half written -- a file that rrdtool still
 * reads. Should the disk lose more than that, the file no longer reads
 * and is set aside at the next start, like any corrupt one.
 *
 * Threads. Polls are batched on the poll queue alone, under h->lock for
 * an append. The bursts run on a workqueue of their own (h->writer, one
 * thread): when one is due the poll queue queues h->burst and goes on, so
 * that no poll waits for rrdtool, however slow it is (seconds, on a busy
 * machine under emulation). A burst holds h->write_lock while rrdtool
 * runs, so that the writer, a graph (on an HTTP thread) and the main
 * thread never write a file at once; the poll queue takes it only when a
 * chip's sensors change. The drawing copies what it needs of a chip under
 * h->lock and has rrdtool read the files (history-graph.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "time-util.h"

#include "fs.h"
#include "history-internal.h"
#include "log.h"
#include "readings.h"

#define CHIP_NAME_MAX 128
#define HEARTBEAT_STEPS 3       /* polls missed before a gap shows */
#define HEARTBEAT_MIN_S 5       /* ... but not less, for 1 s polls */

/* What every file keeps: each poll for a day, then consolidated rows for
 * the week and year graphs, with the extremes that an average hides. */
static const struct archive {
	const char *cf;
	unsigned resolution;    /* seconds per row; 0: one poll step */
	unsigned span;          /* seconds kept, at least */
} archives[] = {
	{ "AVERAGE", 0, DAY },
	{ "AVERAGE", 5 * MINUTE, WEEK },
	{ "MIN", 5 * MINUTE, WEEK },
	{ "MAX", 5 * MINUTE, WEEK },
	{ "AVERAGE", HOUR, YEAR },
	{ "MIN", HOUR, YEAR },
	{ "MAX", HOUR, YEAR },
};

#define N_ARCHIVES (sizeof(archives) / sizeof(archives[0]))

static void burst_work(struct work_struct *work);

void hwsd_history__args_add(struct history_args *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->error)
		return;
	if (a->n + 2 > a->size) {
		size_t size = a->size ? 2 * a->size : 32;
		char **v = realloc(a->v, size * sizeof(*v));

		if (!v) {
			a->error = -ENOMEM;
			return;
		}
		a->v = v;
		a->size = size;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		a->error = -ENOMEM;
	else
		a->v[a->n++] = s;
	a->v[a->n] = NULL;
	va_end(ap);
}

void hwsd_history__args_free(struct history_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* The chip names libsensors makes ("w83793-i2c-0-2f") use [a-z0-9_-];
 * anything else, and a leading dot ("..") in particular, is refused
 * rather than mapped, so that no two chips share a file. */
bool hwsd_history__name_ok(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > CHIP_NAME_MAX || name[0] == '.')
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-") == len;
}

/* Kernel feature names ("temp1", "cpu0_vid") are valid DS names as they
 * are; a feature whose name is not is not recorded. */
static bool ds_name_ok(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len <= HISTORY_DS_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == len;
}

static bool recorded(const struct hws_feature *f)
{
	return hws_subfeature_find(f, HWS_ITEM_INPUT) && ds_name_ok(f->name);
}

/* The value to record: a faulty sensor's reading means nothing. */
static double input_value(const struct hws_feature *f)
{
	if (hwsd_feature_value(f, HWS_ITEM_FAULT) > 0)
		return NAN;
	return hwsd_feature_value(f, HWS_ITEM_INPUT);
}

/* @s truncated to at most @size - 1 bytes without splitting a UTF-8
 * character, which Pango would draw as a box. */
static void copy_utf8(char *dst, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (len >= size) {
		len = size - 1;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
}

static unsigned heartbeat(unsigned step)
{
	unsigned hb = HEARTBEAT_STEPS * step;

	return hb < HEARTBEAT_MIN_S ? HEARTBEAT_MIN_S : hb;
}

static unsigned long archive_pdp_per_row(const struct archive *a, unsigned step)
{
	unsigned long n = a->resolution / step;

	return n ? n : 1;
}

static unsigned long archive_rows(const struct archive *a, unsigned step)
{
	unsigned long row_s = archive_pdp_per_row(a, step) * step;

	return (a->span + row_s - 1) / row_s;
}

static void chip_free(struct chip_history *c)
{
	free(c->name);
	free(c->path);
	free(c->series);
	free(c->batch);
	for (size_t g = 0; g < HISTORY_GRAPHS; g++)
		for (size_t i = 0; i < HISTORY_RANGES; i++)
			free(c->drawn[g][i].data);
	free(c);
}

int hwsd_history_new(const char *dir, unsigned flush_interval, struct hwsd_history **ret_history)
{
	struct hwsd_history *h;
	int r;

	r = hwsd_mkdir_p(dir, 0750);
	if (r < 0)
		return r;
	if (access(dir, W_OK | X_OK) < 0)
		return -errno;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->dir = strdup(dir);
	if (!h->dir) {
		free(h);
		return -ENOMEM;
	}
	h->writer = create_singlethread_workqueue("hwsight-history");
	if (!h->writer) {
		free(h->dir);
		free(h);
		return -ENOMEM;
	}
	INIT_DELAYED_WORK(&h->burst, burst_work);
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->write_lock, NULL);
	pthread_mutex_init(&h->draw_lock, NULL);
	pthread_cond_init(&h->drawn, NULL);
	h->flush_interval = flush_interval;
	h->rrdtool = HISTORY_RRDTOOL;
	h->draw_timeout_ms = HISTORY_DRAW_TIMEOUT_MS;
	h->png_max = HISTORY_PNG_MAX;
	*ret_history = h;
	return 0;
}

struct hwsd_history *hwsd_history_free(struct hwsd_history *h)
{
	struct chip_history *next;

	if (!h)
		return NULL;
	cancel_delayed_work_sync(&h->burst);
	destroy_workqueue(h->writer);
	for (struct chip_history *c = h->chips; c; c = next) {
		next = c->next;
		chip_free(c);
	}
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->write_lock);
	pthread_mutex_destroy(&h->draw_lock);
	pthread_cond_destroy(&h->drawn);
	free(h->dir);
	free(h);
	return NULL;
}

const char *hwsd_history_dir(const struct hwsd_history *h)
{
	return h->dir;
}

void hwsd_history_set_flush_interval(struct hwsd_history *h, unsigned flush_interval)
{
	atomic_store(&h->flush_interval, flush_interval);
}

struct chip_history *hwsd_history__find(struct hwsd_history *h, const char *name)
{
	for (struct chip_history *c = h->chips; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* The chip's entry, made on its first poll. */
static int chip_get(struct hwsd_history *h, const char *name, struct chip_history **ret)
{
	struct chip_history *c;

	pthread_mutex_lock(&h->lock);
	c = hwsd_history__find(h, name);
	pthread_mutex_unlock(&h->lock);
	if (c) {
		*ret = c;
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strdup(name))) {
		free(c);
		return -ENOMEM;
	}
	if (!hwsd_history__name_ok(name))
		log_warning("history: chip \"%s\": not recorded, its name cannot name a file", name);
	else if (asprintf(&c->path, "%s/%s.rrd", h->dir, name) < 0) {
		chip_free(c);
		return -ENOMEM;
	}
	/* Only this thread adds chips: no one else can have added it. */
	pthread_mutex_lock(&h->lock);
	c->next = h->chips;
	h->chips = c;
	pthread_mutex_unlock(&h->lock);
	*ret = c;
	return 0;
}

/* Do the chip's series (and their labels) still describe @chip? */
static bool series_match(const struct chip_history *c, const struct hws_chip *chip, unsigned step)
{
	size_t k = 0;

	if (c->step != step)
		return false;
	for (size_t i = 0; i < chip->n_features; i++) {
		const struct hws_feature *f = &chip->features[i];
		char label[HISTORY_LABEL_MAX + 1];

		if (!recorded(f))
			continue;
		if (k == c->n_series || strcmp(c->series[k].ds, f->name) || c->series[k].kind != f->kind)
			return false;
		copy_utf8(label, sizeof(label), f->label ? f->label : "");
		if (strcmp(c->series[k].label, label))
			return false;
		k++;
	}
	return k == c->n_series;
}

/* Describe @chip anew; its file is checked again before the next update. */
static int series_set(struct hwsd_history *h, struct chip_history *c, const struct hws_chip *chip,
		      unsigned step)
{
	struct history_series *s = calloc(chip->n_features ? chip->n_features : 1, sizeof(*s)), *old;
	size_t n = 0;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < chip->n_features; i++) {
		const struct hws_feature *f = &chip->features[i];

		if (!recorded(f))
			continue;
		strcpy(s[n].ds, f->name);
		copy_utf8(s[n].label, sizeof(s[n].label), f->label ? f->label : "");
		s[n].kind = f->kind;
		n++;
	}
	pthread_mutex_lock(&h->lock);
	old = c->series;
	c->series = s;
	c->n_series = n;
	c->step = step;
	c->generation++;
	c->has_file = false;
	/* Polls a burst could not write were made for the old series. */
	c->batch_len = 0;
	pthread_mutex_unlock(&h->lock);
	free(old);
	return 0;
}

/* The limits the graph of @f's kind draws; a fan minimum of 0 is none. */
static void limits_of(const struct hws_feature *f, double *ret_limits)
{
	static const enum hws_sensor_item items[HISTORY_LIMITS] = {
		[LIMIT_LCRIT] = HWS_ITEM_LCRIT, [LIMIT_MIN] = HWS_ITEM_MIN,
		[LIMIT_MAX] = HWS_ITEM_MAX, [LIMIT_CRIT] = HWS_ITEM_CRIT,
	};

	for (size_t l = 0; l < HISTORY_LIMITS; l++) {
		double v = hwsd_feature_value(f, items[l]);

		ret_limits[l] = isfinite(v) && !(f->kind == HWS_SENSOR_FAN && v == 0) ? v : NAN;
	}
}

static bool same_value(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

/*
 * Take the limits @chip reports now into its series (which match it), so
 * that a graph shows those: a limit written since changes the series'
 * generation, and the graphs are drawn again.
 */
static void limits_set(struct hwsd_history *h, struct chip_history *c, const struct hws_chip *chip)
{
	size_t k = 0;

	pthread_mutex_lock(&h->lock);
	for (size_t i = 0; i < chip->n_features && k < c->n_series; i++) {
		double limits[HISTORY_LIMITS];
		bool changed = false;

		if (!recorded(&chip->features[i]))
			continue;
		limits_of(&chip->features[i], limits);
		for (size_t l = 0; l < HISTORY_LIMITS; l++)
			changed |= !same_value(limits[l], c->series[k].limits[l]);
		if (changed) {
			memcpy(c->series[k].limits, limits, sizeof(limits));
			c->generation++;
		}
		k++;
	}
	pthread_mutex_unlock(&h->lock);
}

/* Log a failure of @c once, until an update works again. */
__attribute__((format(printf, 3, 4)))
static int fail(struct chip_history *c, int r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (c->failing)
		return r;
	c->failing = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warning("history: %s: %s; trying again at the next write", c->path, msg);
	return r;
}

/* rrdtool says why it failed only in words; a lock another program holds
 * (rrdtool drawing, a backup) is no corruption, and passes. */
static bool locked_by_another(const char *path, short type)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool locked;

	if (fd < 0)
		return false;
	locked = fcntl(fd, F_GETLK, &l) == 0 && l.l_type != F_UNLCK;
	close(fd);
	return locked;
}

/* fsync() (@data_only: fdatasync()) what @path names. */
static int sync_path(const char *path, int flags, bool data_only)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags), r = 0;

	if (fd < 0)
		return -errno;
	if ((data_only ? fdatasync(fd) : fsync(fd)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* The files set aside that are kept for each chip, the newest: enough to
 * look into what happened, and a sensor set that keeps changing cannot
 * fill the disk with them (one is some megabytes). */
#define ASIDE_KEEP 3

struct aside {
	char *name;
	struct timespec set;       /* when it was set aside: its ctime */
};

/* rename() sets the file's ctime, and nothing else here changes it: the
 * names alone cannot tell, as a name freed by a removal may be reused. */
static int aside_cmp(const void *a, const void *b)
{
	const struct aside *x = a, *y = b;

	if (x->set.tv_sec != y->set.tv_sec)
		return x->set.tv_sec < y->set.tv_sec ? -1 : 1;
	if (x->set.tv_nsec != y->set.tv_nsec)
		return x->set.tv_nsec < y->set.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Is @f, in the chip's directory, "BASE.corrupt-STAMP" or "BASE.old-STAMP"? */
static bool is_aside(const char *f, const char *base, size_t base_len)
{
	if (strncmp(f, base, base_len) || f[base_len] != '.')
		return false;
	f += base_len + 1;
	return !strncmp(f, "corrupt-", 8) || !strncmp(f, "old-", 4);
}

/* Remove the chip's set-aside files beyond the ASIDE_KEEP newest. */
static void aside_prune(const char *dir, const char *path)
{
	const char *base = path + strlen(dir) + 1;
	size_t base_len = strlen(base), n = 0, size = 0;
	struct aside *list = NULL;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct aside *grown;
		struct stat st;

		if (!is_aside(e->d_name, base, base_len) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (n == size) {
			size = size ? 2 * size : 8;
			grown = realloc(list, size * sizeof(*list));
			if (!grown)
				break;
			list = grown;
		}
		list[n].name = strdup(e->d_name);
		if (!list[n].name)
			break;
		list[n].set = st.st_ctim;
		n++;
	}
	qsort(list, n, sizeof(*list), aside_cmp);
	for (size_t i = 0; i + ASIDE_KEEP < n; i++) {
		if (unlinkat(dirfd(d), list[i].name, 0) == 0)
			log_info("history: removed %s/%s; the %d newest files set aside are kept", dir,
				 list[i].name, ASIDE_KEEP);
		else if (errno != ENOENT)
			log_warning("history: cannot remove %s/%s: %s", dir, list[i].name, strerror(errno));
	}
	for (size_t i = 0; i < n; i++)
		free(list[i].name);
	free(list);
	closedir(d);
}

/* Rename the chip's file to PATH.TAG-YYYYmmdd-HHMMSS, never over another,
 * and drop the oldest such files beyond ASIDE_KEEP. */
static int set_aside(struct hwsd_history *h, struct chip_history *c, const char *tag, const char *why)
{
	time_t now = time(NULL);
	char stamp[32], *aside = NULL;
	struct tm tm;
	int r = -EEXIST;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (unsigned i = 0; i < 10 && r == -EEXIST; i++) {
		free(aside);
		if ((i ? asprintf(&aside, "%s.%s-%s-%u", c->path, tag, stamp, i)
		       : asprintf(&aside, "%s.%s-%s", c->path, tag, stamp)) < 0)
			return -ENOMEM;
		r = renameat2(AT_FDCWD, c->path, AT_FDCWD, aside, RENAME_NOREPLACE) < 0 ? -errno : 0;
		/* A file system without RENAME_NOREPLACE: the name is new
		 * enough that a plain rename will not replace anything. */
		if (r == -EINVAL)
			r = rename(c->path, aside) < 0 ? -errno : 0;
	}
	if (r < 0) {
		fail(c, r, "%s, and it cannot be set aside: %s", why, strerror(-r));
	} else {
		log_warning("history: %s: %s; kept as %s, starting a new file", c->path, why, aside);
		aside_prune(h->dir, c->path);
	}
	free(aside);
	return r;
}

/* A write's deadline: rrdtool is killed past it. */
static uint64_t write_deadline(void)
{
	return hws__now_ms() + HISTORY_WRITE_TIMEOUT_MS;
}

/* Run "rrdtool ARGS" for @c in the burst's @s; a failure is logged once. */
static int run(struct hwsd_history *h, struct history_session *s, struct chip_history *c,
	       struct history_args *a, size_t max, struct history_output *o, const char *what)
{
	int r = a->error;

	if (r >= 0)
		r = hwsd_history__rrdtool_retry(h, s, a->v, write_deadline(), max, o);
	if (r == -EBUSY)
		log_debug("history: %s: locked by another program; kept for the next write", c->path);
	else if (r < 0)
		fail(c, r, "cannot %s it: %s", what, *o->why ? o->why : strerror(-r));
	return r;
}

static int file_create(struct hwsd_history *h, struct history_session *s, struct chip_history *c,
		       int64_t when)
{
	struct history_args a = { 0 };
	struct history_output o = { 0 };
	int r;

	hwsd_history__args_add(&a, "rrdtool");
	hwsd_history__args_add(&a, "create");
	hwsd_history__args_add(&a, "%s", c->path);
	hwsd_history__args_add(&a, "--step=%u", c->step);
	/* The first update, at @when, must come after the "last" one. */
	hwsd_history__args_add(&a, "--start=%lld", (long long)when - 1);
	for (size_t i = 0; i < c->n_series; i++)
		hwsd_history__args_add(&a, "DS:%s:GAUGE:%u:U:U", c->series[i].ds, heartbeat(c->step));
	for (size_t i = 0; i < N_ARCHIVES; i++)
		hwsd_history__args_add(&a, "RRA:%s:0.5:%lu:%lu", archives[i].cf,
				       archive_pdp_per_row(&archives[i], c->step),
				       archive_rows(&archives[i], c->step));
	r = run(h, s, c, &a, 4096, &o, "create");
	hwsd_history__args_free(&a);
	free(o.data);
	if (r < 0)
		return r;
	/* The rename that made it, too. */
	r = sync_path(c->path, 0, false);
	if (r >= 0)
		r = sync_path(h->dir, O_DIRECTORY, false);
	if (r < 0)
		return fail(c, r, "cannot write it to the disk: %s", strerror(-r));
	log_info("history: %s: new file, %zu sensor%s every %u s", c->path, c->n_series,
		 c->n_series == 1 ? "" : "s", c->step);
	return 0;
}

/*
 * Does the file described by @info, rrdtool info's "key = value" lines,
 * hold exactly what @c records?
 */
static bool file_matches(const struct chip_history *c, char *info)
{
	size_t ds_seen = 0, rra_seen = 0;
	bool step_ok = false;
	char *save = NULL;

	for (char *line = strtok_r(info, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[HISTORY_DS_MAX + 2], field[32], value[32];
		unsigned long n = 0;
		unsigned rra;
		int end = 0;

		if (sscanf(line, "step = %lu%n", &n, &end) == 1 && !line[end]) {
			step_ok = n == c->step;
		} else if (sscanf(line, "ds[%20[^]]].index = %lu%n", name, &n, &end) == 2 && !line[end]) {
			if (n >= c->n_series || strcmp(c->series[n].ds, name))
				return false;
			ds_seen++;
		} else if (sscanf(line, "rra[%u].%31[a-z_] = %31s", &rra, field, value) == 3) {
			const struct archive *a;

			if (rra >= N_ARCHIVES)
				return false;
			a = &archives[rra];
			n = strtoul(value, NULL, 10);
			if (!strcmp(field, "cf")) {
				char cf[16];

				snprintf(cf, sizeof(cf), "\"%s\"", a->cf);
				if (strcmp(value, cf))
					return false;
				rra_seen++;
			} else if ((!strcmp(field, "rows") && n != archive_rows(a, c->step)) ||
				   (!strcmp(field, "pdp_per_row") && n != archive_pdp_per_row(a, c->step))) {
				return false;
			}
		}
	}
	return step_ok && ds_seen == c->n_series && rra_seen == N_ARCHIVES;
}

/*
 * Make sure the chip has a file that records its series: keep the one
 * there if it does, set aside one that does not or that rrdtool cannot
 * read, and create a new one. Called with W held.
 */
static int file_check(struct hwsd_history *h, struct history_session *s, struct chip_history *c,
		      int64_t when)
{
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);
	int r = fd < 0 ? -errno : 0;

	if (r < 0 && r != -ENOENT)
		return fail(c, r, "cannot open it: %s", strerror(-r));
	if (fd >= 0) {
		struct history_args a = { 0 };
		struct history_output o = { 0 };

		/* It opens, so a failure from here on is in its content. */
		close(fd);
		hwsd_history__args_add(&a, "rrdtool");
		hwsd_history__args_add(&a, "info");
		hwsd_history__args_add(&a, "%s", c->path);
		r = a.error;
		if (r >= 0)
			r = hwsd_history__rrdtool_retry(h, s, a.v, write_deadline(), 1u << 20, &o);
		hwsd_history__args_free(&a);
		if (r == -EIO && locked_by_another(c->path, F_RDLCK))
			r = -EBUSY;
		if (r == -EBUSY) {
			log_debug("history: %s: locked by another program; skipped", c->path);
		} else if (r == -EIO && *o.err) {
			char why[300];

			snprintf(why, sizeof(why), "unreadable (%s)", o.err);
			r = set_aside(h, c, "corrupt", why);
		} else if (r < 0) {
			fail(c, r, "cannot read it: %s", o.why);
		} else if (!o.data || !file_matches(c, o.data)) {
			r = set_aside(h, c, "old", "made for other sensors or another poll interval");
		} else {
			r = 1;
		}
		free(o.data);
		if (r < 0)
			return r;
	}
	if (r <= 0) {
		r = file_create(h, s, c, when);
		if (r < 0)
			return r;
	}
	pthread_mutex_lock(&h->lock);
	c->has_file = true;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

/* Add @chip's values to the batch: "when:v1:v2...\n", U for unknown. */
static int batch_add(struct hwsd_history *h, struct chip_history *c, const struct hws_chip *chip,
		     int64_t when)
{
	/* "%lld" and ":%.10g" per value: 21 and 18 bytes at most. */
	char line[24 + 20 * (c->n_series + 1)];
	size_t len = (size_t)snprintf(line, sizeof(line), "%lld", (long long)when), k = 0, drop = 0;

	for (size_t i = 0; i < chip->n_features && k < c->n_series; i++) {
		const struct hws_feature *f = &chip->features[i];
		double v;

		if (!recorded(f))
			continue;
		v = input_value(f);
		k++;
		if (isfinite(v))
			len += (size_t)snprintf(line + len, sizeof(line) - len, ":%.10g", v);
		else
			len += (size_t)snprintf(line + len, sizeof(line) - len, ":U");
	}
	line[len++] = '\n';
	pthread_mutex_lock(&h->lock);
	/* Full: drop the oldest polls, whole lines, to make room. */
	while (c->batch_len - drop + len > HISTORY_BATCH_MAX && drop < c->batch_len)
		drop += strcspn(c->batch + drop, "\n") + 1;
	if (drop) {
		memmove(c->batch, c->batch + drop, c->batch_len - drop);
		c->batch_len -= drop;
		if (!c->dropping)
			log_warning("history: %s: %u KiB of polls not yet written; dropping the oldest "
				    "until a write works", c->path, HISTORY_BATCH_MAX >> 10);
		c->dropping = true;
	}
	if (c->batch_len + len > c->batch_size) {
		size_t size = c->batch_size ? 2 * c->batch_size : 4096;
		char *b;

		while (size < c->batch_len + len)
			size *= 2;
		b = realloc(c->batch, size);
		if (!b) {
			pthread_mutex_unlock(&h->lock);
			return -ENOMEM;
		}
		c->batch = b;
		c->batch_size = size;
	}
	memcpy(c->batch + c->batch_len, line, len);
	c->batch_len += len;
	pthread_mutex_unlock(&h->lock);
	c->last_queued = when;
	return 0;
}

/* Put polls taken for a burst that could not be written back in front
 * of those batched since. */
static void batch_return(struct hwsd_history *h, struct chip_history *c, char *taken, size_t len)
{
	pthread_mutex_lock(&h->lock);
	if (c->batch_len + len <= HISTORY_BATCH_MAX) {
		size_t size = len + c->batch_len;
		char *b = realloc(taken, size ? size : 1);

		if (b) {
			if (c->batch_len)       /* c->batch may be NULL */
				memcpy(b + len, c->batch, c->batch_len);
			free(c->batch);
			c->batch = b;
			c->batch_len = c->batch_size = size;
			taken = NULL;
		}
	}
	pthread_mutex_unlock(&h->lock);
	if (taken)
		log_warning("history: %s: %zu bytes of polls dropped, the batch is full", c->path, len);
	free(taken);
}

/*
 * A chip's part of a burst: "rrdtool update --skip-past-updates FILE
 * LINE...", each line a poll. --skip-past-updates: the file may already
 * hold some of them (a burst killed after it wrote, a clock that went
 * back). The file is synced by the caller.
 */
static int write_batch(struct hwsd_history *h, struct history_session *s, struct chip_history *c,
		       const char *batch, size_t len)
{
	struct history_args a = { 0 };
	struct history_output o = { 0 };
	int r;

	hwsd_history__args_add(&a, "rrdtool");
	hwsd_history__args_add(&a, "update");
	hwsd_history__args_add(&a, "--skip-past-updates");
	hwsd_history__args_add(&a, "%s", c->path);
	for (size_t pos = 0, n; pos < len; pos += n + 1) {
		n = strcspn(batch + pos, "\n");
		hwsd_history__args_add(&a, "%.*s", (int)n, batch + pos);
	}
	r = run(h, s, c, &a, 4096, &o, "update");
	hwsd_history__args_free(&a);
	free(o.data);
	return r;
}

/* The polls of a chip that a burst writes, taken out of its batch. */
struct burst_part {
	struct chip_history *c;
	char *batch;
	size_t len;
	bool has_file;
	int r;
};

/* Take the batches of @only, or of every chip if NULL. Called with L held. */
static size_t burst_take(struct hwsd_history *h, struct chip_history *only, struct burst_part *parts)
{
	size_t n = 0;

	for (struct chip_history *c = only ? only : h->chips; c; c = only ? NULL : c->next) {
		if (!c->batch_len || !c->path)
			continue;
		parts[n++] = (struct burst_part){ .c = c, .batch = c->batch, .len = c->batch_len,
						  .has_file = c->has_file };
		c->batch = NULL;
		c->batch_len = c->batch_size = 0;
	}
	return n;
}

/* After the burst: the chip's file synced, or its polls kept for the next
 * (a lock held elsewhere), or its file looked at again (a failure). */
static void burst_end_part(struct hwsd_history *h, struct burst_part *p)
{
	struct chip_history *c = p->c;

	if (p->r >= 0) {
		p->r = sync_path(c->path, 0, true);
		if (p->r < 0)
			fail(c, p->r, "cannot write it to the disk: %s", strerror(-p->r));
	}
	if (p->r == -EBUSY) {
		batch_return(h, c, p->batch, p->len);
		p->batch = NULL;
		return;
	}
	if (p->r == -EIO) {
		/* Look at the file again at the next burst: set aside if it
		 * has gone bad, made anew if it has gone. */
		pthread_mutex_lock(&h->lock);
		c->has_file = false;
		pthread_mutex_unlock(&h->lock);
	}
	if (p->r >= 0 && c->failing)
		log_info("history: %s: recording again", c->path);
	if (p->r >= 0) {
		c->failing = false;
		pthread_mutex_lock(&h->lock);
		c->dropping = false;
		pthread_mutex_unlock(&h->lock);
	}
}

int hwsd_history__flush_chip(struct hwsd_history *h, struct chip_history *only)
{
	struct history_session s = HISTORY_SESSION_INIT(h);
	struct burst_part *parts;
	size_t n = 0, n_chips = 1;
	int ret = 0;

	pthread_mutex_lock(&h->write_lock);
	pthread_mutex_lock(&h->lock);
	if (!only)
		for (struct chip_history *c = h->chips; c; c = c->next)
			n_chips++;
	parts = calloc(n_chips, sizeof(*parts));
	if (parts)
		n = burst_take(h, only, parts);
	pthread_mutex_unlock(&h->lock);
	if (!parts) {
		/* The polls stay in their batches, for the next burst. */
		pthread_mutex_unlock(&h->write_lock);
		return -ENOMEM;
	}
	/* Every file written, then every one synced: a burst's syncs come
	 * together, however slowly rrdtool goes. */
	for (size_t i = 0; i < n; i++) {
		struct burst_part *p = &parts[i];

		p->r = p->has_file ? 0 : file_check(h, &s, p->c, strtoll(p->batch, NULL, 10));
		if (p->r >= 0)
			p->r = write_batch(h, &s, p->c, p->batch, p->len);
	}
	hwsd_history__session_end(&s, false);
	for (size_t i = 0; i < n; i++) {
		burst_end_part(h, &parts[i]);
		if (parts[i].r < 0 && ret == 0)
			ret = parts[i].r;
		free(parts[i].batch);
	}
	pthread_mutex_unlock(&h->write_lock);
	free(parts);
	return ret;
}

/* The burst due, on h->writer: its failures are logged per chip. */
static void burst_work(struct work_struct *work)
{
	struct hwsd_history *h = container_of(work, struct hwsd_history, burst.work);

	hwsd_history__flush_chip(h, NULL);
}

int hwsd_history_flush(struct hwsd_history *h)
{
	if (!h)
		return 0;
	/* Written here, now, rather than by the writer: whoever flushes is
	 * about to stop, sleep or change the chips. */
	cancel_delayed_work_sync(&h->burst);
	return hwsd_history__flush_chip(h, NULL);
}

int hwsd_history_update(struct hwsd_history *h, const struct hws_chip *chip, unsigned step_s,
			int64_t when)
{
	struct chip_history *c;
	unsigned interval;
	int r;

	if (!h || !chip || !chip->name)
		return -EINVAL;
	r = chip_get(h, chip->name, &c);
	if (r < 0)
		return r;
	if (!c->path)
		return -EINVAL;
	if (!series_match(c, chip, step_s ? step_s : 1)) {
		/* The polls batched so far go to the file made for them. */
		hwsd_history__flush_chip(h, c);
		/* A graph's burst must not check a file for half-changed series. */
		pthread_mutex_lock(&h->write_lock);
		r = series_set(h, c, chip, step_s ? step_s : 1);
		pthread_mutex_unlock(&h->write_lock);
		if (r < 0)
			return r;
	}
	if (c->n_series == 0)
		return 0;
	limits_set(h, c, chip);
	/* rrdtool refuses a second update in the same second, and one from
	 * before the last (the clock went back): skip them. */
	if (when <= c->last_queued)
		return 0;
	r = batch_add(h, c, chip, when);
	if (r < 0)
		return r;
	if (h->last_flush == 0)
		h->last_flush = when;
	interval = atomic_load(&h->flush_interval);
	if (interval && when - h->last_flush < (int64_t)interval && when >= h->last_flush)
		return 0;
	h->last_flush = when;
	/* Already pending: that burst will write this poll too. */
	r = queue_delayed_work(h->writer, &h->burst, msecs_to_jiffies(HISTORY_BURST_DELAY_MS));
	return r < 0 ? r : 0;
}
