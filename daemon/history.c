/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sensor history: one RRD file per chip under STATE/history, written by
 * the chip's poller with librrd, drawn for /graph by rrdtool, librrd's
 * own program.
 *
 * Crash safety. librrd writes an update in place, through a shared
 * mapping of the file (rrd_open.c, rrd_write()): the live header
 * (last update time, the step being built, the consolidation state, the
 * archive pointers) and one row per archive. The layout of the file --
 * its size, its data sources, its archives -- is written once, by
 * rrd_create(), into a temporary file renamed into place (rrd_create.c,
 * write_rrd()), and no update rewrites it. librrd never syncs, so we
 * fsync() a new file and its directory, and fdatasync() after each update:
 * when a poll returns, its update is on the disk. A crash or a power cut
 * can then cost only the update being written, which may be left half
 * written -- one step with some values old and some new -- in a file
 * that librrd still reads. Should the disk lose more than that, the file
 * no longer reads and is set aside at the next start, like any corrupt
 * one. The price is one small synchronous write per chip and poll.
 *
 * Threads. Updates run on the poll queue alone; the drawing, on the HTTP
 * threads, copies what it needs of a chip under h->lock and has rrdtool
 * read the files (history-graph.c says why that is safe, and why an
 * update may have to wait a moment for rrdtool: record()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rrd.h>

#include "fs.h"
#include "history-internal.h"
#include "log.h"
#include "readings.h"

#define CHIP_NAME_MAX 128
#define HEARTBEAT_STEPS 3       /* polls missed before a gap shows */
#define HEARTBEAT_MIN_S 5       /* ... but not less, for 1 s polls */
#define UPDATE_TRIES 6          /* while the file is locked: 2+4+...+32 ms */

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
	free(c->line);
	for (size_t i = 0; i < HISTORY_RANGES; i++)
		free(c->drawn[i].data);
	free(c);
}

int hwsd_history_new(const char *dir, struct hwsd_history **ret_history)
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
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->draw_lock, NULL);
	pthread_cond_init(&h->drawn, NULL);
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
	for (struct chip_history *c = h->chips; c; c = next) {
		next = c->next;
		chip_free(c);
	}
	pthread_mutex_destroy(&h->lock);
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
	size_t n = 0, line_size;
	char *line;

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
	/* "%lld" and ":%.10g" per value: 21 and 18 bytes at most. */
	line_size = 24 + n * 20;
	line = malloc(line_size);
	if (!line) {
		free(s);
		return -ENOMEM;
	}
	pthread_mutex_lock(&h->lock);
	old = c->series;
	c->series = s;
	c->n_series = n;
	c->step = step;
	c->generation++;
	c->has_file = false;
	pthread_mutex_unlock(&h->lock);
	free(old);
	free(c->line);
	c->line = line;
	c->line_size = line_size;
	return 0;
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
	log_warning("history: %s: %s; retrying at each poll", c->path, msg);
	return r;
}

/* librrd says why it failed only in words; a lock another program holds
 * (rrdtool, a backup) is no corruption, and passes. */
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

static int file_create(struct hwsd_history *h, struct chip_history *c, int64_t when)
{
	struct history_args a = { 0 };
	int r;

	for (size_t i = 0; i < c->n_series; i++)
		hwsd_history__args_add(&a, "DS:%s:GAUGE:%u:U:U", c->series[i].ds, heartbeat(c->step));
	for (size_t i = 0; i < N_ARCHIVES; i++)
		hwsd_history__args_add(&a, "RRA:%s:0.5:%lu:%lu", archives[i].cf,
				       archive_pdp_per_row(&archives[i], c->step),
				       archive_rows(&archives[i], c->step));
	if (a.error) {
		hwsd_history__args_free(&a);
		return a.error;
	}
	rrd_clear_error();
	/* The first update, at @when, must come after the "last" one. */
	r = rrd_create_r(c->path, c->step, (time_t)when - 1, (int)a.n, (const char **)a.v);
	hwsd_history__args_free(&a);
	if (r != 0)
		return fail(c, -EIO, "cannot create it: %s", rrd_get_error());
	/* The rename that made it, too. */
	r = sync_path(c->path, 0, false);
	if (r >= 0)
		r = sync_path(h->dir, O_DIRECTORY, false);
	if (r < 0)
		return fail(c, r, "cannot write it to the disk: %s", strerror(-r));
	log_info("history: %s: new file, %zu sensor%s every %u s", c->path, c->n_series,
		 c->n_series == 1 ? "" : "s", c->step);
	c->last_update = when - 1;
	return 0;
}

static bool info_is(const rrd_info_t *i, const char *key, rrd_info_type_t type)
{
	return i->type == type && !strcmp(i->key, key);
}

/* Does the file described by @info hold exactly what @c records? */
static bool file_matches(const struct chip_history *c, const rrd_info_t *info)
{
	size_t ds_seen = 0, rra_seen = 0;
	bool step_ok = false;

	for (const rrd_info_t *i = info; i; i = i->next) {
		char name[HISTORY_DS_MAX + 2], field[32];
		unsigned rra;
		int end = 0;

		if (info_is(i, "step", RD_I_CNT)) {
			step_ok = i->value.u_cnt == c->step;
		} else if (sscanf(i->key, "ds[%20[^]]].index%n", name, &end) == 1 && !i->key[end] &&
			   i->type == RD_I_CNT) {
			if (i->value.u_cnt >= c->n_series || strcmp(c->series[i->value.u_cnt].ds, name))
				return false;
			ds_seen++;
		} else if (sscanf(i->key, "rra[%u].%31s", &rra, field) == 2) {
			const struct archive *a = &archives[rra];

			if (rra >= N_ARCHIVES)
				return false;
			if ((!strcmp(field, "cf") && (i->type != RD_I_STR || strcmp(i->value.u_str, a->cf))) ||
			    (!strcmp(field, "rows") && i->value.u_cnt != archive_rows(a, c->step)) ||
			    (!strcmp(field, "pdp_per_row") && i->value.u_cnt != archive_pdp_per_row(a, c->step)))
				return false;
			rra_seen += !strcmp(field, "cf");
		}
	}
	return step_ok && ds_seen == c->n_series && rra_seen == N_ARCHIVES;
}

static int64_t info_last_update(const rrd_info_t *info)
{
	for (const rrd_info_t *i = info; i; i = i->next)
		if (info_is(i, "last_update", RD_I_CNT))
			return (int64_t)i->value.u_cnt;
	return 0;
}

/*
 * Make sure the chip has a file that records its series: keep the one
 * there if it does, set aside one that does not or that librrd cannot
 * read, and create a new one.
 */
static int file_check(struct hwsd_history *h, struct chip_history *c, int64_t when)
{
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);
	rrd_info_t *info;
	int r = fd < 0 ? -errno : 0;

	if (r < 0 && r != -ENOENT)
		return fail(c, r, "cannot open it: %s", strerror(-r));
	if (fd >= 0) {
		/* It opens, so a failure from here on is in its content. */
		close(fd);
		rrd_clear_error();
		info = rrd_info_r(c->path);
		if (!info && locked_by_another(c->path, F_RDLCK)) {
			log_debug("history: %s: locked by another program; skipped", c->path);
			return -EBUSY;
		}
		if (!info) {
			char why[300];

			snprintf(why, sizeof(why), "unreadable (%s)", rrd_get_error());
			r = set_aside(h, c, "corrupt", why);
		} else if (!file_matches(c, info)) {
			rrd_info_free(info);
			r = set_aside(h, c, "old", "made for other sensors or another poll interval");
		} else {
			c->last_update = info_last_update(info);
			rrd_info_free(info);
			r = 1;
		}
		if (r < 0)
			return r;
	}
	if (r <= 0) {
		r = file_create(h, c, when);
		if (r < 0)
			return r;
	}
	pthread_mutex_lock(&h->lock);
	c->has_file = true;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

/* The update of @chip's values: "when:v1:v2...", U for unknown. */
static void line_build(struct chip_history *c, const struct hws_chip *chip, int64_t when)
{
	size_t pos = (size_t)snprintf(c->line, c->line_size, "%lld", (long long)when), k = 0;

	for (size_t i = 0; i < chip->n_features && k < c->n_series; i++) {
		const struct hws_feature *f = &chip->features[i];
		double v;

		if (!recorded(f))
			continue;
		v = input_value(f);
		k++;
		if (isfinite(v))
			pos += (size_t)snprintf(c->line + pos, c->line_size - pos, ":%.10g", v);
		else
			pos += (size_t)snprintf(c->line + pos, c->line_size - pos, ":U");
	}
}

/*
 * Write the update. rrdtool drawing a graph holds a read lock on the file
 * while it fetches (history-graph.c), a few milliseconds for a day of
 * 1 s polls, and librrd does not wait for a lock (F_SETLK): it fails. So
 * an update that finds the file locked is tried again a few times, some
 * 60 ms in all, before the poll is skipped as for any other program
 * holding the file.
 */
static int record(struct hwsd_history *h, struct chip_history *c, const struct hws_chip *chip,
		  int64_t when)
{
	const char *argv[] = { c->line, NULL };
	bool locked = false;
	int r = 0;

	line_build(c, chip, when);
	for (unsigned i = 0; i < UPDATE_TRIES; i++) {
		if (i)
			nanosleep(&(struct timespec){ .tv_nsec = (1L << i) * 1000000 }, NULL);
		rrd_clear_error();
		r = rrd_update_r(c->path, NULL, 1, argv);
		/* rrd_open.c says no more than this when fcntl() fails. */
		locked = r != 0 && !strcmp(rrd_get_error(), "could not lock RRD");
		if (!locked)
			break;
	}
	if (r != 0) {
		if (locked || locked_by_another(c->path, F_WRLCK)) {
			log_debug("history: %s: locked by another program; skipped", c->path);
			return -EBUSY;
		}
		/* Look at the file again at the next poll: set aside if it
		 * has gone bad, made anew if it has gone. */
		pthread_mutex_lock(&h->lock);
		c->has_file = false;
		pthread_mutex_unlock(&h->lock);
		return fail(c, -EIO, "update failed: %s", rrd_get_error());
	}
	c->last_update = when;
	r = sync_path(c->path, 0, true);
	if (r < 0)
		return fail(c, r, "cannot write it to the disk: %s", strerror(-r));
	return 0;
}

int hwsd_history_update(struct hwsd_history *h, const struct hws_chip *chip, unsigned step_s,
			int64_t when)
{
	struct chip_history *c;
	int r;

	if (!h || !chip || !chip->name)
		return -EINVAL;
	r = chip_get(h, chip->name, &c);
	if (r < 0)
		return r;
	if (!c->path)
		return -EINVAL;
	if (!series_match(c, chip, step_s ? step_s : 1)) {
		r = series_set(h, c, chip, step_s ? step_s : 1);
		if (r < 0)
			return r;
	}
	if (c->n_series == 0)
		return 0;
	if (!c->has_file) {
		r = file_check(h, c, when);
		if (r < 0)
			return r;
	}
	/* librrd refuses a second update in the same second, and one from
	 * before the last (the clock went back): skip them. */
	if (when <= c->last_update)
		return 0;
	r = record(h, c, chip, when);
	if (r < 0)
		return r;
	if (c->failing)
		log_info("history: %s: recording again", c->path);
	c->failing = false;
	return 0;
}
