/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Graphs of the sensor history, drawn by librrd in memory for /graph.
 *
 * Threads. librrd keeps its error text per thread and its file functions
 * (*_r) are reentrant, but rrd_graph() in librrd 1.7 (Debian 12 has
 * 1.7.2) shares one Pango font map between all threads and locks it
 * around only a few of its uses (rrd_graph.c, rrd_graph_init(); upstream
 * gave each thread its own map in 1.8.0, commit b13bffba, after graphs
 * drawn at once came out with boxes for text, or crashed). Graphs are
 * therefore drawn one at a time, under h->render_lock, which the poller
 * never takes: it shares only h->lock, which a graph holds for a copy.
 *
 * A graph and an update may use one file at once: librrd's fcntl() locks
 * belong to the process, not to a thread, so they do not keep the two
 * apart. The graph may then read one step with some values from before
 * the update and some from after, nothing worse: every row it reads is
 * bounded by the layout, which an update never changes (rrd_fetch.c
 * takes the archive pointer modulo the row count), and a file is set
 * aside by renaming it, never by truncating it.
 *
 * Memory. rrd_graph() leaks two small strings per legend entry it draws
 * (rrd_graph.c, graph_paint(): the "legend[]" and "coords[]" values
 * given to rrd_info_push(), which copies them; still so upstream). So
 * each line gets one legend entry, its figures (now, min, avg, max)
 * computed here from rrd_fetch() rather than by GPRINT entries, and a
 * graph is drawn again only when the one drawn last is older than a
 * 120th of its range (30 s for an hour): what leaks is bounded by time,
 * not by requests, and a client asking in a loop costs a copy.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rrd.h>

#include "history-internal.h"
#include "log.h"

#define GRAPH_WIDTH 720         /* pixels of the plot, legend aside */
#define GRAPH_HEIGHT 240
#define NAME_WIDTH 28           /* characters for "temp1 CPU Temp" */
#define REDRAW_DIVISOR 120      /* a graph is redrawn after range / this */

/*
 * The sanitizers, told what is not ours: AddressSanitizer's leak checker
 * looks away from librrd's allocations while it draws, and from what
 * Pango's font thread leaves to fontconfig; ThreadSanitizer from that
 * thread handing fontconfig's caches over under GLib's locks, which it
 * cannot see (GLib is not built with it).
 */
#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__SANITIZE_THREAD__)
#define HAVE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#elif __has_feature(thread_sanitizer)
#define HAVE_TSAN 1
#endif
#endif

#ifdef HAVE_ASAN
#include <sanitizer/lsan_interface.h>

const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n";
}
#define leak_check_off() __lsan_disable()
#define leak_check_on() __lsan_enable()
#else
#define leak_check_off() do { } while (0)
#define leak_check_on() do { } while (0)
#endif

#ifdef HAVE_TSAN
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
	return "race:libfontconfig.so\nrace:libglib-2.0.so\n";
}
#endif

static const struct range {
	const char *name;
	unsigned seconds;
	const char *title;
} ranges[] = {
	{ "1h", HOUR, "last hour" },
	{ "1d", DAY, "last day" },
	{ "1w", WEEK, "last week" },
};

_Static_assert(sizeof(ranges) / sizeof(ranges[0]) == HISTORY_RANGES, "one drawn graph per range");

/* What a graph needs of a chip, copied so that the poller can go on. */
struct snapshot {
	struct chip_history *chip;      /* for its drawn graphs alone */
	char *path;
	struct history_series *series;
	size_t n;
	unsigned generation;
};

/* A line's figures over the range, in the units drawn. */
struct stats {
	double now, min, avg, max;
};

static void snapshot_free(struct snapshot *s)
{
	free(s->path);
	free(s->series);
}

static int snapshot_take(struct hwsd_history *h, const char *name, struct snapshot *s)
{
	struct chip_history *c;
	int r = 0;

	*s = (struct snapshot){ 0 };
	pthread_mutex_lock(&h->lock);
	c = hwsd_history__find(h, name);
	if (!c || !c->has_file || !c->n_series) {
		r = -ENOENT;
		goto out;
	}
	s->chip = c;
	s->path = strdup(c->path);
	s->series = malloc(c->n_series * sizeof(*s->series));
	if (!s->path || !s->series) {
		snapshot_free(s);
		r = -ENOMEM;
		goto out;
	}
	memcpy(s->series, c->series, c->n_series * sizeof(*s->series));
	s->n = c->n_series;
	s->generation = c->generation;
out:
	pthread_mutex_unlock(&h->lock);
	return r;
}

/* PWM duty cycles (0..255) are drawn in percent. */
static double display_factor(enum hws_sensor_kind kind)
{
	return kind == HWS_SENSOR_PWM ? 100 / 255.0 : 1;
}

static const char *kind_unit(enum hws_sensor_kind kind)
{
	return kind == HWS_SENSOR_PWM ? "%" : hws_sensor_unit(kind);
}

static int kind_digits(enum hws_sensor_kind kind)
{
	switch (kind) {
	case HWS_SENSOR_FAN:
	case HWS_SENSOR_PWM:
		return 0;
	case HWS_SENSOR_TEMP:
		return 1;
	case HWS_SENSOR_IN:
	case HWS_SENSOR_VID:
		return 3;
	default:
		return 2;
	}
}

static void stats_add(struct stats *st, size_t *n, double v)
{
	if (isnan(v))
		return;
	st->now = v;
	st->min = *n ? fmin(st->min, v) : v;
	st->max = *n ? fmax(st->max, v) : v;
	st->avg += v;
	++*n;
}

/* The figures of every line over @span seconds to @end, as the graph will
 * show them: averages at about the graph's resolution. */
static int stats_fetch(const struct snapshot *s, unsigned span, time_t end, struct stats *st)
{
	time_t start = end - span;
	unsigned long step = span / GRAPH_WIDTH, n_ds, rows;
	rrd_value_t *data;
	char **names;

	rrd_clear_error();
	if (rrd_fetch_r(s->path, "AVERAGE", &start, &end, &step, &n_ds, &names, &data) != 0) {
		log_debug("history: %s: %s", s->path, rrd_get_error());
		return -EIO;
	}
	rows = step ? (unsigned long)(end - start) / step : 0;
	for (size_t i = 0; i < s->n; i++) {
		size_t n = 0;

		st[i] = (struct stats){ NAN, NAN, 0, NAN };
		for (unsigned long d = 0; d < n_ds; d++) {
			if (strcmp(names[d], s->series[i].ds))
				continue;
			for (unsigned long row = 0; row < rows; row++)
				stats_add(&st[i], &n, data[row * n_ds + d] * display_factor(s->series[i].kind));
		}
		st[i].avg = n ? st[i].avg / (double)n : NAN;
	}
	for (unsigned long d = 0; d < n_ds; d++)
		rrd_freemem(names[d]);
	rrd_freemem(names);
	rrd_freemem(data);
	return 0;
}

/* The smallest 1, 2 or 5 times a power of ten that is at least @x > 0. */
static double round_up_125(double x)
{
	double p = pow(10, floor(log10(x)));

	return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/*
 * Fans turn at thousands of RPM where temperatures and voltages are tens
 * and units: with both, fans go on a right axis, scaled to sit in the
 * band of the others. Return: the scale, or 0 for a single axis.
 */
static double fan_scale(const struct snapshot *s, const struct stats *st)
{
	double fans = 0, others = 0;
	bool has_fans = false, has_others = false;

	for (size_t i = 0; i < s->n; i++) {
		double v = isnan(st[i].max) ? 0 : fabs(st[i].max);

		if (s->series[i].kind == HWS_SENSOR_FAN) {
			has_fans = true;
			fans = fmax(fans, v);
		} else {
			has_others = true;
			others = fmax(others, v);
		}
	}
	if (!has_fans || !has_others)
		return 0;
	if (fans <= 0 || others <= 0)
		return 100;
	return round_up_125(fans / others);
}

static bool on_left_axis(const struct history_series *se, double scale)
{
	return se->kind != HWS_SENSOR_FAN || scale == 0;
}

/* "°C, %": the units on the left axis, each once. */
static void left_units(const struct snapshot *s, double scale, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		const char *unit = kind_unit(s->series[i].kind);
		bool seen = false;

		if (!on_left_axis(&s->series[i], scale) || !*unit)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = on_left_axis(&s->series[j], scale) &&
			       !strcmp(kind_unit(s->series[j].kind), unit);
		if (!seen && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", unit);
	}
}

/*
 * Text for a graph argument, where ':' separates fields unless escaped.
 * In a legend a backslash escapes too (a final "\l" aligns), so a label
 * gets none.
 */
static char *rrd_escape(const char *s, bool legend)
{
	char *out = malloc(2 * strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (*s == ':')
			*o++ = '\\';
		*o++ = *s == '\\' && legend ? '/' : *s;
	}
	*o = '\0';
	return out;
}

/* Characters, not bytes: the legend font is monospaced. */
static int utf8_width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static int figure(char *buf, size_t size, double v, int digits)
{
	return isnan(v) ? snprintf(buf, size, "%9s", "-") : snprintf(buf, size, "%9.*f", digits, v);
}

/* "temp1 CPU Temp      39.1     35.0     45.1     55.0 °C" */
static char *legend_row(const struct history_series *se, const struct stats *st)
{
	int digits = kind_digits(se->kind);
	char row[256];
	int len;

	/* libsensors labels an unnamed feature with its name: once will do. */
	if (!*se->label || !strcmp(se->label, se->ds))
		len = snprintf(row, sizeof(row), "%s", se->ds);
	else
		len = snprintf(row, sizeof(row), "%s %s", se->ds, se->label);
	len += snprintf(row + len, sizeof(row) - (size_t)len, "%*s",
			NAME_WIDTH > utf8_width(row) ? NAME_WIDTH - utf8_width(row) : 1, "");
	len += figure(row + len, sizeof(row) - (size_t)len, st->now, digits);
	len += figure(row + len, sizeof(row) - (size_t)len, st->min, digits);
	len += figure(row + len, sizeof(row) - (size_t)len, st->avg, digits);
	len += figure(row + len, sizeof(row) - (size_t)len, st->max, digits);
	snprintf(row + len, sizeof(row) - (size_t)len, " %s", kind_unit(se->kind));
	return rrd_escape(row, true);
}

static const char *const colors[] = {
	"1f77b4", "d62728", "2ca02c", "ff7f0e", "9467bd", "8c564b",
	"e377c2", "7f7f7f", "bcbd22", "17becf", "393b79", "637939",
};

/* One line and its legend entry (see the top of the file: one only). */
static void add_line(struct history_args *a, const struct history_series *se, size_t i,
		     const char *path, const struct stats *st, double scale)
{
	const char *ds = se->ds, *line = ds;
	char line_s[HISTORY_DS_MAX + 3];
	char *legend = legend_row(se, st);

	hwsd_history__args_add(a, "DEF:%s=%s:%s:AVERAGE", ds, path, ds);
	if (se->kind == HWS_SENSOR_PWM || !on_left_axis(se, scale)) {
		snprintf(line_s, sizeof(line_s), "%s_s", ds);
		hwsd_history__args_add(a, "CDEF:%s=%s,%g,*", line_s, ds,
				       display_factor(se->kind) / (on_left_axis(se, scale) ? 1 : scale));
		line = line_s;
	}
	if (!legend)
		a->error = -ENOMEM;
	hwsd_history__args_add(a, "LINE2:%s#%s:%s\\l", line, colors[i % (sizeof(colors) / sizeof(colors[0]))],
			       legend ? legend : "");
	free(legend);
}

static int graph_args(const char *chip, const struct range *range, const struct snapshot *s,
		      const struct stats *st, time_t end, struct history_args *a)
{
	double scale = fan_scale(s, st);
	char units[64], *path = rrd_escape(s->path, false);

	if (!path)
		return -ENOMEM;
	left_units(s, scale, units, sizeof(units));
	hwsd_history__args_add(a, "graph");
	hwsd_history__args_add(a, "-");
	hwsd_history__args_add(a, "--imgformat=PNG");
	hwsd_history__args_add(a, "--start=%lld", (long long)end - range->seconds);
	hwsd_history__args_add(a, "--end=%lld", (long long)end);
	hwsd_history__args_add(a, "--width=%d", GRAPH_WIDTH);
	hwsd_history__args_add(a, "--height=%d", GRAPH_HEIGHT);
	hwsd_history__args_add(a, "--slope-mode");
	hwsd_history__args_add(a, "--title=%s \xe2\x80\x94 %s", chip, range->title);
	if (*units)
		hwsd_history__args_add(a, "--vertical-label=%s", units);
	if (scale > 0) {
		hwsd_history__args_add(a, "--right-axis=%g:0", scale);
		hwsd_history__args_add(a, "--right-axis-label=RPM");
		hwsd_history__args_add(a, "--right-axis-format=%%.0lf");
	}
	/* The heads over the figures; the legend's colour box takes
	 * about two characters. */
	hwsd_history__args_add(a, "COMMENT:%*s%9s%9s%9s%9s\\l", NAME_WIDTH + 2, "", "now", "min", "avg",
			       "max");
	for (size_t i = 0; i < s->n; i++)
		add_line(a, &s->series[i], i, path, &st[i], scale);
	free(path);
	return a->error;
}

/* Draw, and keep the image for the next request. Called under
 * h->render_lock. */
static int draw(const char *chip, const struct range *range, const struct snapshot *s,
		struct history_png *png)
{
	struct history_args a = { 0 };
	struct stats *st = calloc(s->n, sizeof(*st));
	time_t now = time(NULL);
	rrd_info_t *info = NULL;
	int r;

	if (!st)
		return -ENOMEM;
	r = stats_fetch(s, range->seconds, now, st);
	if (r >= 0)
		r = graph_args(chip, range, s, st, now, &a);
	if (r >= 0) {
		rrd_clear_error();
		leak_check_off();
		info = rrd_graph_v((int)a.n, a.v);
		leak_check_on();
		if (!info)
			log_debug("history: %s: drawing failed: %s", chip, rrd_get_error());
		r = -EIO;
	}
	for (const rrd_info_t *i = info; i; i = i->next) {
		void *data;

		if (i->type != RD_I_BLO || strcmp(i->key, "image"))
			continue;
		data = malloc(i->value.u_blo.size ? i->value.u_blo.size : 1);
		if (!data) {
			r = -ENOMEM;
			break;
		}
		memcpy(data, i->value.u_blo.ptr, i->value.u_blo.size);
		free(png->data);
		*png = (struct history_png){ data, i->value.u_blo.size, now, s->generation };
		r = 0;
		break;
	}
	rrd_info_free(info);
	hwsd_history__args_free(&a);
	free(st);
	return r;
}

static const struct range *range_find(const char *name)
{
	for (size_t i = 0; i < HISTORY_RANGES; i++)
		if (!strcmp(ranges[i].name, name ? name : "1d"))
			return &ranges[i];
	return NULL;
}

int hwsd_history_range(const char *range)
{
	const struct range *r = range_find(range);

	return r ? (int)r->seconds : -EINVAL;
}

int hwsd_history_graph(struct hwsd_history *h, const char *chip, const char *range, void **ret_png,
		       size_t *ret_len)
{
	const struct range *rg = range_find(range);
	struct history_png *png;
	struct snapshot s;
	void *copy = NULL;
	size_t len = 0;
	time_t now;
	int r;

	if (!h || !chip || !ret_png || !ret_len || !rg || !hwsd_history__name_ok(chip))
		return -EINVAL;
	r = snapshot_take(h, chip, &s);
	if (r < 0)
		return r;
	pthread_mutex_lock(&h->render_lock);
	png = &s.chip->drawn[rg - ranges];
	now = time(NULL);
	if (!png->data || png->generation != s.generation || now < png->made ||
	    now - png->made >= (time_t)(rg->seconds / REDRAW_DIVISOR))
		r = draw(chip, rg, &s, png);
	if (r >= 0) {
		len = png->len;
		copy = malloc(len ? len : 1);
		if (copy)
			memcpy(copy, png->data, len);
		else
			r = -ENOMEM;
	}
	pthread_mutex_unlock(&h->render_lock);
	snapshot_free(&s);
	if (r < 0)
		return r;
	*ret_png = copy;
	*ret_len = len;
	return 0;
}
