/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight cameras: the V4L2 capture devices, what they are, and the
 * formats, sizes and frame rates they offer, with the 300 Hz-friendly rates
 * marked (see <hwsight/camera.h>).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsight/camera.h>

#include "commands.h"
#include "options.h"
#include "output.h"

#define WRAP_COLUMN 100

struct options {
	bool json;
	const char *dev; /* NULL: every camera */
};

static const struct hws__cli_command command = {
	.name = "cameras",
	.head = "Usage: hwsight cameras [-j] [DEVICE]\n"
		"\n"
		"List the V4L2 video capture devices (or only DEVICE, e.g. /dev/video0 or a\n"
		"/dev/v4l/by-id/ link): what each one is, and every format, size and frame\n"
		"rate it offers. Rates that are a whole number of 1/300 s ticks, the ones\n"
		"'hwsight capture' paces exactly, are marked with '*'.\n"
		"\n",
	.options = TOOL_OPTIONS(
		{ "json", 'j', NULL, "JSON output: a list of cameras, each with its modes" }),
	.column = 16,
	.tail = "\n"
		"Formats marked 'emulated' are converted from the device's own by libv4lconvert\n"
		"('hwsight capture --convert'). A usbvision grabber allows one program at a\n"
		"time: while another one captures from it, it is listed as busy.\n"
		"\n"
		"Exit status: 0 when every device was described; 1 when there is none, DEVICE\n"
		"is not a V4L2 capture device, or a device could not be asked; 2 for a usage\n"
		"error.\n",
};

/* Returns 0 to go on, -1 when --help was shown, 2 for a usage error. */
static int parse_options(int argc, char **argv, struct options *o)
{
	int c;

	*o = (struct options){ 0 };
	while ((c = hws__cli_next_option(&command, argc, argv)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		default: /* -h too */
			return tool_help_or_try_help(c, &command);
		}
	}
	if (optind < argc)
		o->dev = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "hwsight cameras: one device at a time, not '%s' too\n"
			"Try 'hwsight cameras --help'.\n", argv[optind]);
		return 2;
	}
	return 0;
}

/* Why a device could not be used, in the user's words. */
static const char *explain(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such device ('hwsight cameras' lists the capture devices)";
	case ENOTTY:
		return "not a V4L2 device";
	case ENODEV:
		return "not a video capture device (a V4L2 radio, VBI, output, metadata or "
		       "multi-planar-only node, or unplugged)";
	case EBUSY:
		return "device busy: another program has it open (a usbvision grabber allows one "
		       "at a time); close that program and run again";
	case EACCES:
	case EPERM:
		return "permission denied; run as root or join the group that owns the device "
		       "(usually 'video')";
	default:
		return strerror(-err);
	}
}

static double fps_of(struct hws_fract iv)
{
	return (double)iv.den / iv.num;
}

static bool same_format(const struct hws_camera_mode *a, const struct hws_camera_mode *b)
{
	return a->fourcc == b->fourcc && a->emulated == b->emulated &&
	       strcmp(a->description, b->description) == 0;
}

/* ---- text ------------------------------------------------------------------ */

/* Items separated by ", ", wrapped at WRAP_COLUMN under the first one. */
struct wrapped_line {
	int column;
	int indent;
	bool empty;
};

static void line_start(struct wrapped_line *ln, int column)
{
	*ln = (struct wrapped_line){ .column = column, .indent = column, .empty = true };
}

static void line_item(struct wrapped_line *ln, const char *item)
{
	int len = (int)strlen(item);

	if (!ln->empty && ln->column + 2 + len > WRAP_COLUMN) {
		printf(",\n%*s", ln->indent, "");
		ln->column = ln->indent;
	} else if (!ln->empty) {
		fputs(", ", stdout);
		ln->column += 2;
	}
	fputs(item, stdout);
	ln->column += len;
	ln->empty = false;
}

static void line_end(struct wrapped_line *ln)
{
	if (!ln->empty)
		putchar('\n');
}

/* The marks a listing can use; each one it used is explained below it,
 * in this order. */
enum mark { MARK_FRIENDLY, MARK_UNFRIENDLY, MARK_NO_RATES, MARK_EMULATED, N_MARKS };

static const char *const mark_legend[N_MARKS] = {
	[MARK_FRIENDLY] = "*             300 Hz-friendly: a whole number of 1/300 s ticks per frame;\n"
			  "              'hwsight capture' paces these exactly.",
	[MARK_UNFRIENDLY] = "no *          not a whole number of ticks: 'hwsight capture' does not pace at\n"
			    "              these, but can capture faster and keep frames on the grid.",
	[MARK_NO_RATES] = "no rate list  the driver lists no frame rates: a TV input runs at the rate of\n"
			  "              its standard (PAL 25 fps, NTSC 29.97 fps).",
	[MARK_EMULATED] = "emulated      converted from the device's own format by libv4lconvert\n"
			  "              ('hwsight capture --convert').",
};

struct legend {
	bool used[N_MARKS];
};

/* The modes of one format all have the same fourcc, description and
 * emulated flag; [start, end) of @modes. */
static size_t format_end(const struct hws_camera_mode *modes, size_t n, size_t start)
{
	size_t end = start + 1;

	while (end < n && same_format(&modes[start], &modes[end]))
		end++;
	return end;
}

/* Same sizes, in the same order, with the same intervals. */
static bool same_table(const struct hws_camera_mode *a, const struct hws_camera_mode *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i].width != b[i].width || a[i].height != b[i].height ||
		    a[i].n_intervals != b[i].n_intervals)
			return false;
		for (size_t k = 0; k < a[i].n_intervals; k++)
			if (a[i].intervals[k].num != b[i].intervals[k].num ||
			    a[i].intervals[k].den != b[i].intervals[k].den)
				return false;
	}
	return true;
}

/* The first format before @start whose table is the same as its own: the
 * one printed in full (a later match would itself refer to it). */
static const struct hws_camera_mode *earlier_same(const struct hws_camera_mode *modes, size_t start,
						  size_t end)
{
	for (size_t s = 0, e; s < start; s = e) {
		e = format_end(modes, start, s);
		if (e - s == end - start && same_table(&modes[s], &modes[start], end - start))
			return &modes[s];
	}
	return NULL;
}

static void print_sizes_without_rates(const struct hws_camera_mode *m, size_t n, struct legend *lg)
{
	struct wrapped_line ln;
	char item[32];

	fputs("      ", stdout);
	line_start(&ln, 6);
	for (size_t i = 0; i < n; i++) {
		snprintf(item, sizeof(item), "%ux%u", m[i].width, m[i].height);
		line_item(&ln, item);
	}
	line_item(&ln, "no rate list");
	line_end(&ln);
	lg->used[MARK_NO_RATES] = true;
}

static void print_size_with_rates(const struct hws_camera_mode *m, struct legend *lg)
{
	struct wrapped_line ln;
	char item[64];

	snprintf(item, sizeof(item), "%ux%u", m->width, m->height);
	printf("      %-11s", item);
	line_start(&ln, 17);
	for (size_t k = 0; k < m->n_intervals; k++) {
		long ticks = hws_interval_ticks(m->intervals[k]);

		if (hws_interval_is_friendly(m->intervals[k]) && ticks > 0) {
			snprintf(item, sizeof(item), "%.3f fps (%ld tick%s) *", fps_of(m->intervals[k]), ticks,
				 ticks == 1 ? "" : "s");
			lg->used[MARK_FRIENDLY] = true;
		} else {
			snprintf(item, sizeof(item), "%.3f fps", fps_of(m->intervals[k]));
			lg->used[MARK_UNFRIENDLY] = true;
		}
		line_item(&ln, item);
	}
	line_end(&ln);
}

/*
 * One header line per format, then a line per size with its rates. A
 * format whose sizes and rates are those of one above says so instead of
 * repeating them: libv4lconvert's formats and a device's many raw formats
 * usually share one table.
 */
static void print_modes_text(const struct hws_camera_mode *modes, size_t n, struct legend *lg)
{
	for (size_t start = 0, end; start < n; start = end) {
		const struct hws_camera_mode *m = &modes[start], *same;
		char cc[8], ref[8];

		end = format_end(modes, n, start);
		tool_fourcc_str(m->fourcc, cc);
		printf("    %-7s %s%s", cc, m->description, m->emulated ? " (emulated)" : "");
		lg->used[MARK_EMULATED] |= m->emulated;
		same = earlier_same(modes, start, end);
		if (same) {
			tool_fourcc_str(same->fourcc, ref);
			printf(": sizes and rates as %s\n", ref);
			continue;
		}
		putchar('\n');
		for (size_t i = start, j; i < end; i = j) {
			if (modes[i].n_intervals) {
				print_size_with_rates(&modes[i], lg);
				j = i + 1;
				continue;
			}
			/* Sizes without rates share one line. */
			for (j = i; j < end && modes[j].n_intervals == 0; j++)
				;
			print_sizes_without_rates(&modes[i], j - i, lg);
		}
	}
}

static void print_camera_text(const struct hws_camera_info *c, const struct hws_camera_mode *modes,
			      int n_modes, struct legend *lg)
{
	printf("%s\n", c->devnode);
	printf("  model          %s\n", c->model[0] ? c->model : "-");
	if (c->card[0] && strcmp(c->card, c->model) != 0)
		printf("  card           %s\n", c->card);
	printf("  driver         %s\n", c->driver[0] ? c->driver : "-");
	printf("  bus            %s\n", c->bus_info[0] ? c->bus_info : "-");
	printf("  stable name    %s\n", c->stable[0] ? c->stable : "- (no /dev/v4l link from udev)");
	if (c->usb_vendor || c->usb_product)
		printf("  USB id         %04x:%04x\n", c->usb_vendor, c->usb_product);
	else
		printf("  USB id         - (not a USB device)\n");
	printf("  usbvision      %s\n", c->usbvision ? "yes" : "no");
	if (c->device_caps)
		printf("  set interval   %s\n",
		       c->can_set_interval ? "yes" : "no (the rate follows the driver or the TV standard)");
	if (n_modes < 0) {
		printf("  modes          cannot list: %s\n", explain(n_modes));
		return;
	}
	if (n_modes == 0) {
		printf("  modes          none listed by the driver\n");
		return;
	}
	printf("  modes\n");
	print_modes_text(modes, (size_t)n_modes, lg);
}

static void print_legend(const struct legend *lg)
{
	bool any = false;

	for (int k = 0; k < N_MARKS; k++) {
		if (!lg->used[k])
			continue;
		/* A blank line between the listing and its legend. */
		if (!any)
			putchar('\n');
		any = true;
		puts(mark_legend[k]);
	}
}

/* ---- JSON ------------------------------------------------------------------ */

static void print_interval_json(struct hws_fract iv)
{
	long ticks = hws_interval_ticks(iv);
	bool friendly = hws_interval_is_friendly(iv) && ticks > 0;

	printf("{\"num\": %u, \"den\": %u, \"fps\": %.6g, \"ticks\": ", iv.num, iv.den, fps_of(iv));
	if (friendly)
		printf("%ld", ticks);
	else
		fputs("null", stdout);
	printf(", \"friendly\": %s}", friendly ? "true" : "false");
}

static void print_camera_json(const struct hws_camera_info *c, const struct hws_camera_mode *modes,
			      int n_modes, bool first)
{
	char hex[8];

	printf("%s  {\n    \"devnode\": ", first ? "" : ",\n");
	tool_json_value(stdout, c->devnode);
	fputs(",\n    \"stable\": ", stdout);
	tool_json_value(stdout, c->stable);
	fputs(",\n    \"driver\": ", stdout);
	tool_json_value(stdout, c->driver);
	fputs(",\n    \"card\": ", stdout);
	tool_json_value(stdout, c->card);
	fputs(",\n    \"model\": ", stdout);
	tool_json_value(stdout, c->model);
	fputs(",\n    \"bus_info\": ", stdout);
	tool_json_value(stdout, c->bus_info);
	if (c->usb_vendor || c->usb_product) {
		snprintf(hex, sizeof(hex), "%04x", c->usb_vendor);
		printf(",\n    \"usb_vendor\": \"%s\"", hex);
		snprintf(hex, sizeof(hex), "%04x", c->usb_product);
		printf(", \"usb_product\": \"%s\"", hex);
	} else {
		fputs(",\n    \"usb_vendor\": null, \"usb_product\": null", stdout);
	}
	printf(",\n    \"usbvision\": %s", c->usbvision ? "true" : "false");
	printf(",\n    \"device_caps\": %u", (unsigned)c->device_caps);
	if (c->device_caps)
		printf(",\n    \"can_set_interval\": %s", c->can_set_interval ? "true" : "false");
	else
		fputs(",\n    \"can_set_interval\": null", stdout);
	fputs(",\n    \"error\": ", stdout);
	tool_json_value(stdout, n_modes < 0 ? explain(n_modes) : "");
	fputs(",\n    \"modes\": [", stdout);
	for (int i = 0; i < n_modes; i++) {
		const struct hws_camera_mode *m = &modes[i];
		char cc[8];

		tool_fourcc_str(m->fourcc, cc);
		printf("%s\n      {\"fourcc\": ", i ? "," : "");
		tool_json_value(stdout, cc);
		fputs(", \"description\": ", stdout);
		tool_json_value(stdout, m->description);
		printf(", \"emulated\": %s, \"width\": %u, \"height\": %u, \"intervals\": [",
		       m->emulated ? "true" : "false", m->width, m->height);
		for (size_t k = 0; k < m->n_intervals; k++) {
			fputs(k ? ", " : "", stdout);
			print_interval_json(m->intervals[k]);
		}
		fputs("]}", stdout);
	}
	fputs(n_modes > 0 ? "\n    ]\n  }" : "]\n  }", stdout);
}

/* ---- the command ------------------------------------------------------------ */

/* Prints one camera; returns 0, or 1 when its modes could not be listed
 * (said in the output, where the reader looks for them). */
static int show_camera(const struct hws_camera_info *c, const struct options *o, bool first,
		       struct legend *lg)
{
	struct hws_camera_mode *modes = NULL;
	int n = hws_camera_modes(c->devnode, &modes);

	if (o->json) {
		print_camera_json(c, modes, n, first);
	} else {
		if (!first)
			putchar('\n');
		print_camera_text(c, modes, n, lg);
	}
	if (n > 0)
		hws_camera_modes_free(modes, (size_t)n);
	return n < 0;
}

/*
 * usbvision grabbers the kernel gave no video node: on kernels since the
 * driver left mainline (2020) a plugged-in grabber is otherwise invisible.
 * Told on stderr with -j, so that the JSON stays a list of cameras.
 */
static int report_grabbers(bool json)
{
	struct hws_usb_grabber *g;
	FILE *f = json ? stderr : stdout;
	int n, shown = 0;

	n = hws_camera_usb_grabbers(&g);
	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (g[i].devnode[0])
			continue;
		if (!shown++)
			fputs("USB video grabbers without a video node:\n", f);
		fprintf(f, "  %04x:%04x %s on USB bus %03u device %03u: %s\n",
			g[i].vendor, g[i].product, g[i].model, g[i].bus, g[i].address,
			g[i].driver[0] ? "its driver made no capture node" :
			"no driver (usbvision, which drives it, left mainline Linux in 2020)");
	}
	free(g);
	return shown;
}

int hws_cmd_cameras(int argc, char **argv)
{
	struct hws_camera_info *list = NULL, one;
	struct legend lg = { 0 };
	struct options o;
	int n, r, status = 0;

	r = parse_options(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r; /* --help, or a usage error */

	if (o.dev) {
		r = hws_camera_info_get(o.dev, &one);
		if (r < 0) {
			fprintf(stderr, "hwsight cameras: %s: %s\n", o.dev, explain(r));
			return 1;
		}
		list = &one;
		n = 1;
	} else {
		n = hws_camera_list(&list);
		if (n < 0) {
			fprintf(stderr, "hwsight cameras: cannot list the V4L2 devices: %s\n", explain(n));
			return 1;
		}
		if (n == 0) {
			free(list);
			report_grabbers(true);
			fprintf(stderr, "hwsight cameras: no V4L2 capture devices found\n");
			return 1;
		}
	}

	if (o.json)
		fputs("[\n", stdout);
	for (int i = 0; i < n; i++)
		status |= show_camera(&list[i], &o, i == 0, &lg);
	if (o.json)
		fputs("\n]\n", stdout);
	else
		print_legend(&lg);
	if (!o.dev)
		report_grabbers(o.json);
	if (list != &one)
		free(list);
	return status;
}
