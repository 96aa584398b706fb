/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Graphs of the sensor history for /graph, drawn by rrdtool, RRD's own
 * program, in a child process (history-rrdtool.c): "rrdtool graph -
 * ARGS..." writes the PNG to a pipe. The chip's batch is written first
 * (a burst), so that the graph shows the last poll.
 *
 * Why a child. librrd 1.7 (Debian 12 has 1.7.2) cannot draw for long in
 * a process with threads: rrd_graph() leaks two small strings per legend
 * entry it draws (rrd_graph.c, graph_paint(): the "legend[]" and
 * "coords[]" values given to rrd_info_push(), which copies them; still
 * so upstream), and it shares one Pango font map between all threads,
 * locked around only a few of its uses (rrd_graph_init(); upstream gave
 * each thread its own map in 1.8.0, commit b13bffba, after graphs drawn
 * at once came out with boxes for text, or crashed). What a child leaks
 * goes with it, and children drawing at once share nothing.
 *
 * The child has h->draw_timeout_ms to end and may write h->png_max
 * bytes; past either it is killed.
 *
 * Reading while a burst writes. rrdtool reads a file with a read lock
 * (rrd_fetch.c) and writes it with a write lock (rrd_update.c), both
 * taken with fcntl(F_SETLK), which does not wait: whichever comes second
 * fails with "could not lock RRD", and is run again a moment later
 * (HISTORY_LOCK_TRIES: a burst holds the lock for some milliseconds).
 * Should a burst find the file locked all the same, its polls wait for
 * the next one (history.c). Every row rrdtool reads is bounded by the
 * layout, which an update never changes (rrd_fetch.c takes the archive
 * pointer modulo the row count), and a file is set aside by renaming it,
 * never by truncating it.
 *
 * One graph per kind of sensor (temperatures, fans, voltages, outputs
 * ...), in its unit, with each sensor's limits (lcrit, min, max, crit, as
 * the last poll read them) as dashed lines of the sensor's colour; and
 * the chip's older graph of every kind at once, on two axes, without the
 * limits. Settings that have an input file (beep_enable, intrusion0,
 * cpuN_vid) are recorded but never drawn: a line at 0 or 1 says nothing.
 *
 * The legend's figures (now, min, avg, max) are computed here from
 * "rrdtool fetch" rather than by GPRINT entries: the axes need them
 * before the graph is drawn (fan_scale()), and an unknown value is
 * shown as "-".
 *
 * Cost. A child costs some tens of milliseconds, so a graph is drawn
 * again only when the one drawn last is older than a 120th of its range
 * (30 s for an hour) or the chip's sensors changed: a status page that
 * reloads every 10 s, or a client asking in a loop, costs a copy. When
 * a draw fails (too slow on a loaded machine, say), the last graph of
 * the same sensors is given instead, however old. A
 * request for a graph being drawn waits for it, and at most
 * HISTORY_DRAWING_MAX children draw at once, so that graphs take no more
 * than that many cores however many clients ask.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "time-util.h"

#include "history-internal.h"
#include "log.h"

#define GRAPH_WIDTH 720         /* pixels of the plot, legend aside */
#define GRAPH_HEIGHT 240
#define NAME_WIDTH 28           /* characters for "temp1 CPU Temp" */
#define REDRAW_DIVISOR 120      /* a graph is redrawn after range / this */
#define FETCH_MAX (4u << 20)    /* bytes of "rrdtool fetch" output, at most */

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

/* What the graph of a kind is called, with its unit on the axis. */
static const char *const kind_titles[HWS_SENSOR_KIND_MAX] = {
	[HWS_SENSOR_IN] = "voltages", [HWS_SENSOR_FAN] = "fans", [HWS_SENSOR_TEMP] = "temperatures",
	[HWS_SENSOR_POWER] = "power", [HWS_SENSOR_ENERGY] = "energy", [HWS_SENSOR_CURR] = "currents",
	[HWS_SENSOR_HUMIDITY] = "humidity", [HWS_SENSOR_PWM] = "outputs (PWM duty, % of 255)",
	[HWS_SENSOR_LIGHT] = "light",
};

/* What a graph needs of a chip, copied so that the poller can go on. */
struct snapshot {
	struct chip_history *chip;      /* for its drawn graphs alone */
	char *path;
	struct history_series *series;  /* those the graph draws */
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

bool hwsd_history_plotted(enum hws_sensor_kind kind)
{
	return kind < HWS_SENSOR_KIND_MAX && kind_titles[kind];
}

int hwsd_history_kind(const char *name)
{
	for (int k = 0; name && k < HWS_SENSOR_KIND_MAX; k++)
		if (hwsd_history_plotted(k) && !strcmp(hws_sensor_kind_name(k), name))
			return k;
	return -EINVAL;
}

static bool in_graph(const struct history_series *se, unsigned graph)
{
	return graph == HISTORY_ALL_KINDS ? hwsd_history_plotted(se->kind) : se->kind == graph;
}

/* The chip's series that @graph (a kind, or HISTORY_ALL_KINDS) draws. */
static int snapshot_take(struct hwsd_history *h, const char *name, unsigned graph, struct snapshot *s)
{
	struct chip_history *c;
	int r = 0;

	*s = (struct snapshot){ 0 };
	pthread_mutex_lock(&h->lock);
	c = hwsd_history__find(h, name);
	if (!c || !c->n_series) {
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
	for (size_t i = 0; i < c->n_series; i++)
		if (in_graph(&c->series[i], graph))
			s->series[s->n++] = c->series[i];
	s->generation = c->generation;
	if (!s->n) {
		snapshot_free(s);
		r = -ENODATA;
	}
out:
	pthread_mutex_unlock(&h->lock);
	return r;
}

static bool has_file(struct hwsd_history *h, const struct chip_history *c)
{
	bool has;

	pthread_mutex_lock(&h->lock);
	has = c->has_file;
	pthread_mutex_unlock(&h->lock);
	return has;
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

/* The column of each series in "rrdtool fetch"'s head line (its DS
 * names), or -1. */
static void fetch_columns(const struct snapshot *s, char *head, long *col)
{
	char *save = NULL;
	long n = 0;

	for (size_t i = 0; i < s->n; i++)
		col[i] = -1;
	for (char *name = strtok_r(head, " \t", &save); name; name = strtok_r(NULL, " \t", &save), n++)
		for (size_t i = 0; i < s->n; i++)
			if (!strcmp(name, s->series[i].ds))
				col[i] = n;
}

/*
 * The figures of every line over @span seconds to @end, as the graph will
 * show them: averages at about the graph's resolution, from "rrdtool
 * fetch": a head line of DS names, a blank line, then "TIME: v1 v2 ..."
 * rows with "nan" for unknown.
 */
static int stats_fetch(const struct hwsd_history *h, const struct snapshot *s, unsigned span,
		       time_t end, uint64_t deadline, struct stats *st)
{
	struct history_args a = { 0 };
	struct history_output o = { 0 };
	long *col = calloc(s->n ? s->n : 1, sizeof(*col));
	size_t *n = calloc(s->n ? s->n : 1, sizeof(*n));
	char *save = NULL, *line;
	int r = col && n ? 0 : -ENOMEM;

	hwsd_history__args_add(&a, "rrdtool");
	hwsd_history__args_add(&a, "fetch");
	hwsd_history__args_add(&a, "%s", s->path);
	hwsd_history__args_add(&a, "AVERAGE");
	hwsd_history__args_add(&a, "--start=%lld", (long long)end - span);
	hwsd_history__args_add(&a, "--end=%lld", (long long)end);
	hwsd_history__args_add(&a, "--resolution=%u", span / GRAPH_WIDTH);
	if (r >= 0)
		r = a.error;
	if (r >= 0)
		r = hwsd_history__rrdtool_retry(h, NULL, a.v, deadline, FETCH_MAX, &o);
	hwsd_history__args_free(&a);
	if (r < 0) {
		if (r != -ENOMEM)
			log_warning("history: %s: %s", s->path, o.why);
		goto out;
	}
	for (size_t i = 0; i < s->n; i++)
		st[i] = (struct stats){ NAN, NAN, 0, NAN };
	line = o.data ? strtok_r(o.data, "\n", &save) : NULL;
	if (line)
		fetch_columns(s, line, col);
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *p = strchr(line, ':');
		long k = 0;

		if (!p)
			continue;
		for (p++; *p; k++) {
			char *next;
			double v = strtod(p, &next);

			if (next == p)
				break;
			for (size_t i = 0; i < s->n; i++)
				if (col[i] == k)
					stats_add(&st[i], &n[i], v * display_factor(s->series[i].kind));
			p = next;
		}
	}
	for (size_t i = 0; i < s->n; i++)
		st[i].avg = n[i] ? st[i].avg / (double)n[i] : NAN;
out:
	free(o.data);
	free(col);
	free(n);
	return r;
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

static const char *color_of(size_t i)
{
	return colors[i % (sizeof(colors) / sizeof(colors[0]))];
}

/* One line and its legend entry, which holds its figures. */
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
	hwsd_history__args_add(a, "LINE2:%s#%s:%s\\l", line, color_of(i), legend ? legend : "");
	free(legend);
}

/*
 * Each sensor's limits as dashed lines of its colour. rrdtool leaves a
 * line outside the plotted values out of the graph, so the axis is
 * stretched to show the limits near the values: those within one and a
 * half times the largest value's size of them (a temperature at 40 °C
 * shows a crit at 100, not the -128 of an unset minimum).
 */
static bool add_limits(struct history_args *a, const struct snapshot *s, const struct stats *st)
{
	double lo = INFINITY, hi = -INFINITY, reach, low = NAN, high = NAN;
	bool any = false;

	for (size_t i = 0; i < s->n; i++) {
		if (!isnan(st[i].min))
			lo = fmin(lo, st[i].min);
		if (!isnan(st[i].max))
			hi = fmax(hi, st[i].max);
	}
	reach = 1.5 * fmax(fabs(lo), fabs(hi));
	for (size_t i = 0; i < s->n; i++)
		for (size_t l = 0; l < HISTORY_LIMITS; l++) {
			double v = s->series[i].limits[l] * display_factor(s->series[i].kind);

			if (isnan(v))
				continue;
			any = true;
			hwsd_history__args_add(a, "HRULE:%.10g#%s::dashes=6,4", v, color_of(i));
			if (lo <= hi && v >= lo - reach && v <= hi + reach) {
				low = isnan(low) ? v : fmin(low, v);
				high = isnan(high) ? v : fmax(high, v);
			}
		}
	if (!isnan(low))
		hwsd_history__args_add(a, "--lower-limit=%.10g", fmin(low, lo));
	if (!isnan(high))
		hwsd_history__args_add(a, "--upper-limit=%.10g", fmax(high, hi));
	return any;
}

static int graph_args(const char *chip, unsigned graph, const struct range *range,
		      const struct snapshot *s, const struct stats *st, time_t end,
		      struct history_args *a)
{
	double scale = fan_scale(s, st);
	char units[64], *path = rrd_escape(s->path, false);
	bool limits;

	if (!path)
		return -ENOMEM;
	left_units(s, scale, units, sizeof(units));
	hwsd_history__args_add(a, "rrdtool");
	hwsd_history__args_add(a, "graph");
	hwsd_history__args_add(a, "-");
	hwsd_history__args_add(a, "--imgformat=PNG");
	hwsd_history__args_add(a, "--start=%lld", (long long)end - range->seconds);
	hwsd_history__args_add(a, "--end=%lld", (long long)end);
	hwsd_history__args_add(a, "--width=%d", GRAPH_WIDTH);
	hwsd_history__args_add(a, "--height=%d", GRAPH_HEIGHT);
	hwsd_history__args_add(a, "--slope-mode");
	if (graph == HISTORY_ALL_KINDS)
		hwsd_history__args_add(a, "--title=%s \xe2\x80\x94 %s", chip, range->title);
	else
		hwsd_history__args_add(a, "--title=%s \xe2\x80\x94 %s \xe2\x80\x94 %s", chip,
				       kind_titles[graph], range->title);
	if (*units)
		hwsd_history__args_add(a, "--vertical-label=%s", units);
	if (scale > 0) {
		hwsd_history__args_add(a, "--right-axis=%g:0", scale);
		hwsd_history__args_add(a, "--right-axis-label=RPM");
		hwsd_history__args_add(a, "--right-axis-format=%%.0lf");
	}
	/* Before the lines, which are drawn over them. */
	limits = graph != HISTORY_ALL_KINDS && add_limits(a, s, st);
	/* The heads over the figures; the legend's colour box takes
	 * about two characters. */
	hwsd_history__args_add(a, "COMMENT:%*s%9s%9s%9s%9s\\l", NAME_WIDTH + 2, "", "now", "min", "avg",
			       "max");
	for (size_t i = 0; i < s->n; i++)
		add_line(a, &s->series[i], i, path, &st[i], scale);
	if (limits)
		hwsd_history__args_add(a, "COMMENT:dashed\\: each sensor's limits (lcrit, min, max, crit)\\l");
	free(path);
	return a->error;
}

/* Draw @range of the chip in @s anew, into @ret_png. */
static int draw(const struct hwsd_history *h, const char *chip, unsigned graph,
		const struct range *range, const struct snapshot *s, struct history_png *ret_png)
{
	uint64_t deadline = hws__now_ms() + h->draw_timeout_ms;
	struct history_args a = { 0 };
	struct stats *st = calloc(s->n, sizeof(*st));
	struct history_output o = { 0 };
	time_t now = time(NULL);
	int r;

	if (!st)
		return -ENOMEM;
	r = stats_fetch(h, s, range->seconds, now, deadline, st);
	if (r >= 0)
		r = graph_args(chip, graph, range, s, st, now, &a);
	if (r >= 0)
		r = hwsd_history__rrdtool_retry(h, NULL, a.v, deadline, h->png_max, &o);
	if (r >= 0 && (o.len < 8 || memcmp(o.data, "\x89PNG\r\n\x1a\n", 8))) {
		r = -EIO;
		snprintf(o.why, sizeof(o.why), "rrdtool wrote no PNG (%zu bytes)%s%s", o.len,
			 *o.err ? ": " : "", o.err);
	}
	if (r == -ETIMEDOUT)
		snprintf(o.why, sizeof(o.why), "rrdtool took over %u ms; killed it", h->draw_timeout_ms);
	if (r >= 0) {
		void *fit = realloc(o.data, o.len);    /* kept for a while */

		*ret_png = (struct history_png){ .data = fit ? fit : o.data, .len = o.len, .made = now,
					      .generation = s->generation };
		o.data = NULL;
	} else if (r != -ENOMEM && *o.why) {
		log_warning("history: %s: %s", chip, o.why);
	}
	free(o.data);
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

/* May @png be given again for @rg of a chip of that @generation? */
static bool png_fresh(const struct history_png *png, const struct range *rg, unsigned generation)
{
	time_t now = time(NULL);

	return png->data && png->generation == generation && now >= png->made &&
	       now - png->made < (time_t)(rg->seconds / REDRAW_DIVISOR);
}

int hwsd_history_graph(struct hwsd_history *h, const char *chip, const char *kind, const char *range,
		       void **ret_png, size_t *ret_len)
{
	const struct range *rg = range_find(range);
	int graph = kind ? hwsd_history_kind(kind) : HISTORY_ALL_KINDS;
	struct history_png *png, drawn;
	struct snapshot s;
	void *copy = NULL;
	size_t len = 0;
	int r;

	if (!h || !chip || !ret_png || !ret_len || !rg || graph < 0 || !hwsd_history__name_ok(chip))
		return -EINVAL;
	r = snapshot_take(h, chip, (unsigned)graph, &s);
	if (r < 0)
		return r;
	png = &s.chip->drawn[graph][rg - ranges];
	pthread_mutex_lock(&h->draw_lock);
	while (!png_fresh(png, rg, s.generation) &&
	       (png->drawing || h->n_drawing >= HISTORY_DRAWING_MAX))
		pthread_cond_wait(&h->drawn, &h->draw_lock);
	if (!png_fresh(png, rg, s.generation)) {
		png->drawing = true;
		h->n_drawing++;
		pthread_mutex_unlock(&h->draw_lock);
		/* It shows the polls still in memory too. */
		hwsd_history__flush_chip(h, s.chip);   /* it logs its own failures */
		r = has_file(h, s.chip) ? draw(h, chip, (unsigned)graph, rg, &s, &drawn) : -ENOENT;
		pthread_mutex_lock(&h->draw_lock);
		png->drawing = false;
		h->n_drawing--;
		if (r >= 0) {
			free(png->data);
			*png = drawn;
		} else if (png->data && png->generation == s.generation) {
			/* Too slow under load, say: the last one is better
			 * than none, and it shows how old it is. */
			log_debug("history: %s: giving the graph drawn %lld s ago", chip,
				  (long long)(time(NULL) - png->made));
			r = 0;
		}
		pthread_cond_broadcast(&h->drawn);
	}
	if (r >= 0) {
		len = png->len;
		copy = malloc(len ? len : 1);
		if (copy)
			memcpy(copy, png->data, len);
		else
			r = -ENOMEM;
	}
	pthread_mutex_unlock(&h->draw_lock);
	snapshot_free(&s);
	if (r < 0)
		return r;
	*ret_png = copy;
	*ret_len = len;
	return 0;
}
