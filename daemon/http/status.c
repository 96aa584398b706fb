/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /, the status page: every chip's readings with their alarm states, the
 * cameras' latest frames, the disk protection with its last park, each
 * controlled fan on its curve, and the history graphs. Plain HTML that reloads
 * itself, readable without JavaScript and without a network (no external
 * style or font).
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../events.h"
#include "../fan-board.h"
#include "../history.h"
#include "../live.h"
#include "../log.h"
#include "../motion-board.h"
#include "../readings.h"
#include "../view.h"
#include "pages.h"

#define REFRESH_S 10

static void html(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A value in a URL's query: names are configured or come from sysfs, but
 * are escaped all the same. */
static void url(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-_.~", c))
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

/* As sensors(1) shows them: whole RPM, tenths of a degree, millivolts. */
static void number(FILE *f, double v, enum hws_sensor_kind kind)
{
	int decimals = kind == HWS_SENSOR_FAN || kind == HWS_SENSOR_PWM ? 0 :
		       kind == HWS_SENSOR_TEMP ? 1 : kind == HWS_SENSOR_IN ? 3 : 2;

	if (isnan(v))
		fputs("<td></td>", f);
	else
		fprintf(f, "<td class=n>%.*f %s</td>", decimals, v, hws_sensor_unit(kind));
}

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}"
	"table{border-collapse:collapse}td,th{padding:.15em .8em;border-bottom:1px solid #ddd;text-align:left}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	".ok{color:#070}.alarm{color:#fff;background:#c00;font-weight:bold}.fault{color:#fff;background:#850}"
	".gone{color:#888}.graph{margin:.5em 0}img{max-width:100%;border:1px solid #ccc}"
	"figure{display:inline-block;margin:0 1em 1em 0}"
	"svg.curve{vertical-align:middle}svg.curve polyline{fill:none;stroke:#36c;stroke-width:1.5}"
	"svg.curve circle{fill:#e70}svg.curve rect{fill:none;stroke:#ccc}";

/* The kinds' graphs on the page, top to bottom: temperatures and the fans
 * they drive first. */
static const enum hws_sensor_kind graph_order[] = {
	HWS_SENSOR_TEMP, HWS_SENSOR_FAN, HWS_SENSOR_PWM, HWS_SENSOR_IN, HWS_SENSOR_CURR,
	HWS_SENSOR_POWER, HWS_SENSOR_ENERGY, HWS_SENSOR_HUMIDITY, HWS_SENSOR_LIGHT,
};

static bool has_kind(const struct hwsd_chip_reading *c, enum hws_sensor_kind kind)
{
	for (size_t i = 0; i < c->n_features; i++)
		if (c->features[i].kind == kind)
			return true;
	return false;
}

/* The last hour of a kind's sensors, and links to the day and the week. */
static void kind_graph(FILE *f, const char *chip, enum hws_sensor_kind kind)
{
	static const char *const longer[][2] = { { "1d", "day" }, { "1w", "week" } };
	const char *name = hws_sensor_kind_name(kind);

	fprintf(f, "<figure><img alt=\"%s history of ", name);
	html(f, chip);
	fputs("\" src=\"/graph/", f);
	url(f, chip);
	fprintf(f, ".png?kind=%s&amp;range=1h\"><figcaption>%s: last hour", name, name);
	for (size_t r = 0; r < sizeof(longer) / sizeof(longer[0]); r++) {
		fputs(" &middot; <a href=\"/graph/", f);
		url(f, chip);
		fprintf(f, ".png?kind=%s&amp;range=%s\">%s</a>", name, longer[r][0], longer[r][1]);
	}
	fputs("</figcaption></figure>\n", f);
}

static void chip_section(FILE *f, const struct hwsd_chip_reading *c, bool graphs)
{
	fputs("<h2>", f);
	html(f, c->name);
	fputs("</h2>\n<p>", f);
	html(f, c->adapter);
	if (!c->present)
		fputs(" &middot; <span class=gone>not there now</span>", f);
	fprintf(f, " &middot; %llu polls</p>\n", (unsigned long long)c->polls);
	fputs("<table><tr><th>sensor</th><th>label</th><th>value</th><th>min</th><th>max</th>"
	      "<th>crit</th><th>state</th></tr>\n", f);
	for (size_t i = 0; i < c->n_features; i++) {
		const struct hwsd_feature_reading *fr = &c->features[i];

		fputs("<tr><td>", f);
		html(f, fr->name);
		fputs("</td><td>", f);
		html(f, fr->label);
		fputs("</td>", f);
		number(f, fr->input, fr->kind);
		number(f, fr->min, fr->kind);
		number(f, fr->max, fr->kind);
		number(f, fr->crit, fr->kind);
		if (fr->fault)
			fputs("<td class=fault>FAULT</td>", f);
		else if (fr->alarms[0] || fr->alarm) {
			fputs("<td class=alarm>ALARM ", f);
			html(f, fr->alarms[0] ? fr->alarms : "alarm");
			fputs("</td>", f);
		} else
			fputs("<td class=ok>ok</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (!graphs)
		return;
	fputs("<div class=graph>", f);
	for (size_t k = 0; k < sizeof(graph_order) / sizeof(graph_order[0]); k++)
		if (hwsd_history_plotted(graph_order[k]) && has_kind(c, graph_order[k]))
			kind_graph(f, c->name, graph_order[k]);
	fputs("</div>\n", f);
}

static void camera_section(FILE *f, struct hwsd_live *l)
{
	struct hwsd_camera_status st;

	hwsd_live_status(l, &st);
	fputs("<figure><img width=320 alt=\"latest frame of ", f);
	html(f, l->name);
	fputs("\" src=\"/snapshot.jpg?camera=", f);
	url(f, l->name);
	fputs("\"><figcaption><b>", f);
	html(f, l->name);
	fputs("</b> ", f);
	if (!st.present)
		fputs("<span class=gone>not there</span>", f);
	else {
		fputs("<a href=\"/stream.mjpg?camera=", f);
		url(f, l->name);
		fprintf(f, "\">live</a> &middot; %llu frames, %llu dropped",
			(unsigned long long)st.kept, (unsigned long long)st.dropped);
	}
	if (st.last_error) {
		fputs(" &middot; <span class=alarm>", f);
		html(f, strerror(-st.last_error));
		fputs("</span>", f);
	}
	fputs("</figcaption></figure>\n", f);
}

enum { CURVE_W = 160, CURVE_H = 60 };

/* The curve, and where the fan is on it, as a small SVG: temperature
 * across, the output's range (0 to full) up. */
static void fan_curve(FILE *f, const struct hwsd_fan_status *st)
{
	double lo, hi;

	if (!st->n_curve || !(st->full > 0))
		return;
	lo = st->curve[0].temp - 5;
	hi = st->curve[st->n_curve - 1].temp + 5;
	fprintf(f, "<svg class=\"curve\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
		"<title>curve from %.0f to %.0f \u00b0C</title><rect width=\"%d\" height=\"%d\"/><polyline points=\"",
		CURVE_W, CURVE_H, CURVE_W, CURVE_H, lo, hi, CURVE_W, CURVE_H);
#define X(t) (((t) - lo) / (hi - lo) * CURVE_W)
#define Y(v) (CURVE_H - (v) / st->full * CURVE_H)
	fprintf(f, "0,%.1f ", Y(st->curve[0].value));
	for (size_t i = 0; i < st->n_curve; i++) {
		/* A step holds its value up to the next point. */
		if (st->steps && i)
			fprintf(f, "%.1f,%.1f ", X(st->curve[i].temp), Y(st->curve[i - 1].value));
		fprintf(f, "%.1f,%.1f ", X(st->curve[i].temp), Y(st->curve[i].value));
	}
	fprintf(f, "%d,%.1f\"/>", CURVE_W, Y(st->curve[st->n_curve - 1].value));
	if (!isnan(st->temp) && !isnan(st->target))
		fprintf(f, "<circle r=\"3.5\" cx=\"%.1f\" cy=\"%.1f\"/>",
			fmin(fmax(X(st->temp), 0), CURVE_W), Y(st->target));
#undef X
#undef Y
	fputs("</svg>", f);
}

static void fan_row(FILE *f, const struct hwsd_fan_status *st)
{
	const char *unit = st->rpm ? " RPM" : "";

	fputs("<tr><td>", f);
	html(f, st->name);
	fputs("</td><td>", f);
	html(f, st->chip ? st->chip : "?");
	fputc('/', f);
	html(f, st->output);
	fprintf(f, " (%s)</td>", st->floor ? "floor" : "manual");
	if (st->failsafe)
		fputs("<td class=alarm>FAILSAFE</td>", f);
	else if (st->held)
		fprintf(f, "<td class=ok>%s</td>", st->dry_run ? "dry run" : "driven");
	else
		fprintf(f, "<td class=gone>%s</td>", st->yielded ? "yielded" : "not held");
	number(f, st->temp, HWS_SENSOR_TEMP);
	if (isnan(st->target))
		fputs("<td></td>", f);
	else
		fprintf(f, "<td class=n>%.0f%s</td>", st->target, unit);
	if (isnan(st->value))
		fputs("<td></td>", f);
	else
		fprintf(f, "<td class=n>%.0f%s / %.0f</td>", st->value, unit, st->full);
	fputs("<td>", f);
	fan_curve(f, st);
	fputs("</td></tr>\n", f);
}

static int fan_section(FILE *f, const struct hwsd_view *view)
{
	struct hwsd_fan_status *st;
	int n = view->fans ? hwsd_fan_board_copy(view->fans, &st) : 0;

	if (n <= 0)
		return n;
	fputs("<h2>Fan control</h2>\n<table><tr><th>fan</th><th>output</th><th>state</th>"
	      "<th>temperature</th><th>target</th><th>output</th><th>curve</th></tr>\n", f);
	for (int i = 0; i < n; i++)
		fan_row(f, &st[i]);
	fputs("</table>\n", f);
	hwsd_fan_board_free_copy(st, (size_t)n);
	return 0;
}

static void disk_row(FILE *f, const struct hwsd_disk_status *d)
{
	fputs("<tr><td>", f);
	html(f, d->name);
	fputs("</td>", f);
	if (d->parked)
		fputs("<td class=alarm>parked</td>", f);
	else if (d->protected)
		fputs("<td class=ok>watching</td>", f);
	else
		fputs("<td class=gone>not there</td>", f);
	fprintf(f, "<td class=n>%llu</td><td class=n>%.1f s</td></tr>\n", (unsigned long long)d->parks,
		(double)d->parked_ms / 1000);
}

/* The last park: when, why, for how long. */
static void last_park(FILE *f, const struct hwsd_motion_status *st)
{
	time_t t = (time_t)(st->last_park_time_ms / 1000);
	char stamp[64];
	struct tm tm;

	if (!st->last_park_time_ms) {
		fputs("<p>No park yet.</p>\n", f);
		return;
	}
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "<p>Last park: %s, on a %s; ", stamp, st->last_park_free_fall ? "free fall" : "sudden motion");
	if (st->last_park_ongoing)
		fputs("<span class=alarm>parked now</span>", f);
	else
		fprintf(f, "the heads stayed parked %.1f s", (double)st->last_park_ms / 1000);
	fputs("</p>\n", f);
}

/* The motion guard, while one runs: its sensor, its state, each disk and
 * the last park. */
static int disk_section(FILE *f, const struct hwsd_view *view)
{
	struct hwsd_motion_status st;
	int r;
	bool parked = false;

	if ((r = hwsd_motion_board_copy(view->motion, &st)) <= 0)
		return r;
	for (size_t i = 0; i < st.n_disks; i++)
		parked |= st.disks[i].parked;
	fputs("<h2>Disk protection</h2>\n<p>", f);
	html(f, st.driver);
	fprintf(f, " motion sensor, read through %s &middot; sensitivity %u &middot; ",
		st.input ? "its input device" : "sysfs", st.threshold_base);
	if (parked)
		fputs("<span class=alarm>parked</span>", f);
	else if (st.sampling)
		fputs("<span class=ok>watching</span>", f);
	else
		fputs("<span class=gone>idle: no disk to protect</span>", f);
	if (st.dry_run)
		fputs(" &middot; dry run: no heads are parked", f);
	fputs("</p>\n", f);
	if (st.n_disks) {
		fputs("<table><tr><th>disk</th><th>state</th><th>parks</th><th>parked in all</th></tr>\n", f);
		for (size_t i = 0; i < st.n_disks; i++)
			disk_row(f, &st.disks[i]);
		fputs("</table>\n", f);
	}
	last_park(f, &st);
	hwsd_motion_board_free_copy(&st);
	return 0;
}

int hwsd_http_status(const struct hwsd_view *view, FILE *f)
{
	struct hwsd_readings *r = view->readings;
	struct hwsd_live **lives;
	char host[256] = "", stamp[64];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	gethostname(host, sizeof(host) - 1);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
		"<meta http-equiv=refresh content=%d>"
		"<meta name=viewport content=\"width=device-width\">"
		"<title>hwsight on ", REFRESH_S);
	html(f, host);
	fprintf(f, "</title><style>%s</style></head>\n<body>\n<h1>hwsight on ", style);
	html(f, host);
	fprintf(f, "</h1>\n<p>%s &middot; %u alarm%s active &middot; "
		"<a href=\"/metrics\">metrics</a> &middot; <a href=\"/api/v1/sensors\">JSON</a></p>\n",
		stamp, atomic_load(&view->counters->alarms_active),
		atomic_load(&view->counters->alarms_active) == 1 ? "" : "s");
	n = hwsd_live_set_list(view->live, &lives);
	if (n > 0) {
		fputs("<h2>Cameras</h2>\n", f);
		for (int i = 0; i < n; i++)
			camera_section(f, lives[i]);
	}
	if (n >= 0)
		hwsd_live_set_release(lives, (size_t)n);
	if (disk_section(f, view) < 0 || fan_section(f, view) < 0)
		return -ENOMEM;
	pthread_mutex_lock(&r->lock);
	if (!r->n_chips)
		fputs("<p>No hardware monitor chip has been read yet.</p>\n", f);
	for (size_t c = 0; c < r->n_chips; c++)
		chip_section(f, &r->chips[c], true);
	pthread_mutex_unlock(&r->lock);
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
