/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HTTP_PAGES_H
#define HWSD_HTTP_PAGES_H

/*
 * The pages of the HTTP side. A few threads serve every connection
 * (server.c), so a page that waits holds up the others on its thread: a
 * stream waits for its frames suspended (hwsd_http_poll_frame()), and
 * only a snapshot of an idle camera waits in its thread, for the
 * camera's start. None may touch a device or take a lock a poller holds
 * for longer than a copy.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <microhttpd.h>

#include "../live.h"

struct hwsd_http;
struct hwsd_jpeg;
struct hwsd_live;
struct hwsd_live_waiter;
struct hwsd_view;

struct hwsd_http_request {
	const struct hwsd_view *view;
	struct hwsd_http *http;
	struct MHD_Connection *c;
	const char *url;
	bool head;                  /* HEAD: headers only */
};

/* Queue a reply; @body (malloc'd) is freed by libmicrohttpd, or here. */
enum MHD_Result hwsd_http_reply(struct MHD_Connection *c, unsigned status, const char *type,
				char *body, size_t len);
/* A text/plain error reply saying why. */
enum MHD_Result hwsd_http_fail(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A stream's viewer waiting for a frame with its connection suspended. */
struct hwsd_http_waiter {
	struct hwsd_live_waiter w;
	struct MHD_Connection *c;
	atomic_int state;          /* server.c: where it is in the suspension */
};

void hwsd_http_waiter_init(struct hwsd_http_waiter *hw, struct MHD_Connection *c);

/*
 * hwsd_http_poll_frame - for a stream's content reader on @hw's
 * connection: a frame of @l newer than @after_seq (hwsd_live_poll()), or
 * the connection suspended until the next frame or the camera's close.
 * Return: 0 with a reference in @ret; -EAGAIN, suspended (the reader
 * answers 0 bytes, and is called again once resumed); -ESHUTDOWN, the
 * camera closed; -ECANCELED, the server stopping.
 */
int hwsd_http_poll_frame(struct hwsd_http *h, struct hwsd_http_waiter *hw, struct hwsd_live *l,
			 uint64_t after_seq, struct hwsd_jpeg **ret);

/* metrics.c: the Prometheus text exposition format, version 0.0.4. */
int hwsd_http_metrics(const struct hwsd_view *view, FILE *f);

/* api.c: JSON. */
int hwsd_http_api_sensors(const struct hwsd_view *view, FILE *f);
int hwsd_http_api_alarms(const struct hwsd_view *view, FILE *f);
int hwsd_http_api_cameras(const struct hwsd_view *view, FILE *f);
int hwsd_http_api_fans(const struct hwsd_view *view, FILE *f);
/* {"motion": null} while no motion guard runs. */
int hwsd_http_api_motion(const struct hwsd_view *view, FILE *f);

/* status.c: the status page, HTML. */
int hwsd_http_status(const struct hwsd_view *view, FILE *f);

/* camera.c: /snapshot.jpg and /stream.mjpg. */
enum MHD_Result hwsd_http_snapshot(struct hwsd_http_request *req);
enum MHD_Result hwsd_http_stream(struct hwsd_http_request *req);

/* graph.c: /graph/CHIP.png, the sensor history. */
enum MHD_Result hwsd_http_graph(struct hwsd_http_request *req);

#endif
