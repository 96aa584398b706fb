/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /snapshot.jpg?camera=NAME, the latest frame, and /stream.mjpg?camera=NAME,
 * the frames as they come, as multipart/x-mixed-replace the way
 * mjpg-streamer serves them. Both take frames the camera's queue encoded
 * once (live.h): a viewer never opens the device, and ten cost the camera
 * what one does. NAME is only ever compared with the configured names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../live.h"
#include "../log.h"
#include "../view.h"
#include "pages.h"

#define BOUNDARY "hwsightframe"
/* How long a snapshot waits for a frame before saying so. */
#define SNAPSHOT_WAIT_MS 5000
/* How long a request waits for a reload to bring its camera back. */
#define RELOAD_WAIT_MS 5000

static enum MHD_Result find_camera(struct hwsd_http_request *req, struct hwsd_live **ret)
{
	const char *name = MHD_lookup_connection_value(req->c, MHD_GET_ARGUMENT_KIND, "camera");

	if (!name || !*name)
		return hwsd_http_fail(req->c, MHD_HTTP_BAD_REQUEST,
				      "%s needs camera=NAME (see /api/v1/cameras)\n", req->url);
	*ret = hwsd_live_set_find(req->view->live, name, RELOAD_WAIT_MS);
	if (!*ret)
		return hwsd_http_fail(req->c, MHD_HTTP_NOT_FOUND, "no camera called \"%.64s\"\n", name);
	return MHD_YES;
}

/* A viewer of the stream: the frame being sent, and how far. */
struct viewer {
	const struct hwsd_view *view;
	struct hwsd_http *http;
	struct hwsd_http_waiter waiter;  /* on live's list while suspended */
	struct hwsd_live *live;
	struct hwsd_jpeg *frame;
	uint64_t seq;
	char head[192];
	size_t head_len;
	size_t sent;               /* of head, then data, then "\r\n" */
};

/* A frame of @l newer than @after: a viewer @v of the stream polls, its
 * connection suspended until one comes; a snapshot (@v NULL) waits. */
static int try_frame(struct hwsd_live *l, uint64_t after, struct viewer *v, struct hwsd_jpeg **ret)
{
	if (v)
		return hwsd_http_poll_frame(v->http, &v->waiter, l, after, ret);
	return hwsd_live_next(l, after, SNAPSHOT_WAIT_MS, true, ret);
}

/*
 * A frame newer than *@after from camera *@l. A reload closes the camera
 * under its viewers: they follow the camera of the same name in the new
 * set (a viewer @v counting there instead) and start again from its first
 * frame. A viewer of the stream is counted, and keeps the camera going
 * only while it watches; a snapshot keeps it a while after.
 * Return: as try_frame(); -ESHUTDOWN once the camera is gone for good.
 */
static int next_frame(const struct hwsd_view *view, struct hwsd_live **l, uint64_t *after, struct viewer *v,
		      struct hwsd_jpeg **ret)
{
	struct hwsd_live *again;
	int r = try_frame(*l, *after, v, ret);

	if (r != -ESHUTDOWN)
		return r;
	again = hwsd_live_set_find(view->live, (*l)->name, RELOAD_WAIT_MS);
	if (!again || again == *l) {
		hwsd_live_unref(again);
		return -ESHUTDOWN;
	}
	if (v) {
		hwsd_live_viewers(again, +1);
		hwsd_live_viewers(*l, -1);
	}
	hwsd_live_unref(*l);
	*l = again;
	*after = 0;
	return try_frame(*l, 0, v, ret);
}

static enum MHD_Result no_frame(struct hwsd_http_request *req, struct hwsd_live *l, int r)
{
	struct hwsd_camera_status st;

	hwsd_live_status(l, &st);
	if (r == -ESHUTDOWN)
		return hwsd_http_fail(req->c, MHD_HTTP_SERVICE_UNAVAILABLE,
				      "camera %s: stopped (the daemon is stopping)\n", l->name);
	return hwsd_http_fail(req->c, MHD_HTTP_SERVICE_UNAVAILABLE, "camera %s: no frame in %d s%s%s\n",
			      l->name, SNAPSHOT_WAIT_MS / 1000, st.last_error ? ": " : "",
			      !st.present ? "its device is not there" :
			      st.last_error ? strerror(-st.last_error) : "");
}

enum MHD_Result hwsd_http_snapshot(struct hwsd_http_request *req)
{
	struct hwsd_live *l = NULL;
	struct hwsd_jpeg *j = NULL;
	enum MHD_Result ret;
	uint64_t after = 0;
	char *body;
	int r;

	ret = find_camera(req, &l);
	if (!l)
		return ret;
	r = next_frame(req->view, &l, &after, NULL, &j);
	if (r < 0) {
		ret = no_frame(req, l, r);
		hwsd_live_unref(l);
		return ret;
	}
	body = malloc(j->size);
	if (body)
		memcpy(body, j->data, j->size);
	ret = body ? hwsd_http_reply(req->c, MHD_HTTP_OK, "image/jpeg", body, j->size) : MHD_NO;
	hwsd_jpeg_unref(j);
	hwsd_live_unref(l);
	return ret;
}

static size_t copy_part(char *buf, size_t max, const void *part, size_t len, size_t *off)
{
	size_t n = len - *off < max ? len - *off : max;

	memcpy(buf, (const char *)part + *off, n);
	*off += n;
	return n;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct viewer *v = cls;
	size_t n = 0, off;
	int r;

	(void)pos;
	if (!v->frame) {
		r = next_frame(v->view, &v->live, &v->seq, v, &v->frame);
		/* Nothing yet: suspended until a frame comes. */
		if (r == -EAGAIN)
			return 0;
		if (r < 0)
			return MHD_CONTENT_READER_END_OF_STREAM;
		v->seq = v->frame->seq;
		v->sent = 0;
		/* X-Timestamp is the wall clock, for people; X-Capture-Timestamp
		 * the driver's own on CLOCK_MONOTONIC, so that a client on this
		 * machine can tell how long a frame took to reach it. */
		v->head_len = (size_t)snprintf(v->head, sizeof(v->head),
					       "--" BOUNDARY "\r\nContent-Type: image/jpeg\r\n"
					       "Content-Length: %zu\r\nX-Timestamp: %lld.%03lld\r\n"
					       "X-Capture-Timestamp: %llu.%06llu\r\n\r\n",
					       v->frame->size, (long long)(v->frame->time_ms / 1000),
					       (long long)(v->frame->time_ms % 1000),
					       (unsigned long long)(v->frame->capture_ns / 1000000000u),
					       (unsigned long long)(v->frame->capture_ns % 1000000000u / 1000u));
	}
	if (v->sent < v->head_len) {
		off = v->sent;
		n += copy_part(buf, max, v->head, v->head_len, &off);
		v->sent = off;
	}
	if (n < max && v->sent >= v->head_len && v->sent < v->head_len + v->frame->size) {
		off = v->sent - v->head_len;
		n += copy_part(buf + n, max - n, v->frame->data, v->frame->size, &off);
		v->sent = v->head_len + off;
	}
	if (n < max && v->sent >= v->head_len + v->frame->size) {
		off = v->sent - v->head_len - v->frame->size;
		n += copy_part(buf + n, max - n, "\r\n", 2, &off);
		v->sent = v->head_len + v->frame->size + off;
		if (off == 2)
			v->frame = hwsd_jpeg_unref(v->frame);
	}
	return (ssize_t)n;
}

static void stream_free(void *cls)
{
	struct viewer *v = cls;

	/* Off the list by now: libmicrohttpd frees no suspended
	 * connection, and a woken viewer was taken off. Leaving it here
	 * too makes that this file's rule rather than libmicrohttpd's. */
	hwsd_live_unwait(v->live, &v->waiter.w);
	hwsd_live_viewers(v->live, -1);
	hwsd_jpeg_unref(v->frame);
	hwsd_live_unref(v->live);
	free(v);
}

enum MHD_Result hwsd_http_stream(struct hwsd_http_request *req)
{
	struct MHD_Response *resp;
	struct hwsd_live *l = NULL;
	enum MHD_Result ret;
	struct viewer *v;

	ret = find_camera(req, &l);
	if (!l)
		return ret;
	v = calloc(1, sizeof(*v));
	if (!v) {
		hwsd_live_unref(l);
		return MHD_NO;
	}
	v->view = req->view;
	v->http = req->http;
	hwsd_http_waiter_init(&v->waiter, req->c);
	v->live = l;
	hwsd_live_viewers(l, +1);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, stream_read, v, stream_free);
	if (!resp) {
		stream_free(v);
		return MHD_NO;
	}
	/* Answered as HTTP/1.0, as mjpg-streamer does: a stream that never
	 * ends gains nothing from HTTP/1.1, whose chunked encoding has
	 * libmicrohttpd fill a chunk at a time into the connection's 16 KiB,
	 * four calls and four sends a frame for each viewer; this way a
	 * frame takes one call into the response's own 64 KiB block. */
	MHD_set_response_options(resp, MHD_RF_HTTP_1_0_SERVER, MHD_RO_END);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				"multipart/x-mixed-replace;boundary=" BOUNDARY);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(req->c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}
