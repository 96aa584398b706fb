/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /graph/CHIP.png?kind=KIND&range=1h|1d|1w: a chip's history of one kind
 * of sensor (temp, fan, in, pwm ...), drawn by rrdtool (history-graph.c);
 * without kind=, every kind on one graph, as before there were kinds, so
 * that links made then still work. The chip must be one the pollers have published: the name
 * from the URL is compared with those, never used to build a path before
 * it matched one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../history.h"
#include "../log.h"
#include "../readings.h"
#include "../view.h"
#include "pages.h"

#define PREFIX "/graph/"
#define SUFFIX ".png"

/* Does the daemon know a chip of that name, the @len bytes at @name? */
static bool chip_known(struct hwsd_readings *r, const char *name, size_t len)
{
	bool known = false;

	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->n_chips && !known; i++)
		known = strlen(r->chips[i].name) == len && !memcmp(r->chips[i].name, name, len);
	pthread_mutex_unlock(&r->lock);
	return known;
}

enum MHD_Result hwsd_http_graph(struct hwsd_http_request *req)
{
	const char *name = req->url + strlen(PREFIX);
	const char *range = MHD_lookup_connection_value(req->c, MHD_GET_ARGUMENT_KIND, "range");
	const char *kind = MHD_lookup_connection_value(req->c, MHD_GET_ARGUMENT_KIND, "kind");
	size_t len = strlen(name);
	char *chip;
	void *png;
	size_t size;
	int r;

	if (len <= strlen(SUFFIX) || strcmp(name + len - strlen(SUFFIX), SUFFIX))
		return hwsd_http_fail(req->c, MHD_HTTP_NOT_FOUND, "graphs are /graph/CHIP.png\n");
	len -= strlen(SUFFIX);
	if (hwsd_history_range(range) < 0)
		return hwsd_http_fail(req->c, MHD_HTTP_BAD_REQUEST,
				      "range: \"%.16s\" is not 1h, 1d or 1w\n", range);
	if (kind && hwsd_history_kind(kind) < 0)
		return hwsd_http_fail(req->c, MHD_HTTP_BAD_REQUEST,
				      "kind: \"%.16s\" is not a kind of sensor graphs draw "
				      "(temp, fan, in, pwm, power, energy, curr, humidity, light)\n", kind);
	if (!chip_known(req->view->readings, name, len))
		return hwsd_http_fail(req->c, MHD_HTTP_NOT_FOUND, "no chip \"%.*s\"\n",
				      (int)(len > 64 ? 64 : len), name);
	if (!req->view->history)
		return hwsd_http_fail(req->c, MHD_HTTP_NOT_FOUND,
				      "no history: the state directory cannot be written\n");
	chip = strndup(name, len);
	if (!chip)
		return hwsd_http_fail(req->c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	r = hwsd_history_graph(req->view->history, chip, kind, range, &png, &size);
	if (r == -ENOENT || r == -EINVAL || r == -ENODATA) {
		/* -EINVAL: a known chip whose name cannot name a file. */
		r = r == -ENODATA ? hwsd_http_fail(req->c, MHD_HTTP_NOT_FOUND, "%s has no %s sensor to draw\n",
						   chip, kind ? kind : "measured")
				  : hwsd_http_fail(req->c, MHD_HTTP_NOT_FOUND, "%s: no history yet\n", chip);
		free(chip);
		return r;
	}
	free(chip);
	if (r == -ETIMEDOUT || r == -EBUSY)
		return hwsd_http_fail(req->c, MHD_HTTP_SERVICE_UNAVAILABLE,
				      "drawing the graph took too long; try again later\n");
	if (r < 0)
		return hwsd_http_fail(req->c, MHD_HTTP_INTERNAL_SERVER_ERROR, "drawing the graph failed\n");
	return hwsd_http_reply(req->c, MHD_HTTP_OK, "image/png", png, size);
}
