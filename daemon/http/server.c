/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HTTP side: libmicrohttpd on its own thread, serving what the
 * pollers publish (readings.h), never touching a device. It listens on
 * 127.0.0.1:9787 unless told otherwise. Requests are small and bounded:
 * a connection gets 16 KiB for its request and headers (more is refused
 * by libmicrohttpd), 10 s of silence, and there are at most 64 at once,
 * 16 from one address.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "../hwsightd.h"
#include "http.h"

struct hwsd_http {
	struct hwsd *d;
	struct MHD_Daemon *mhd;
};

static const struct page {
	const char *path;
	const char *type;
	int (*write)(struct hwsd *d, FILE *f);
} pages[] = {
	{ "/metrics", "text/plain; version=0.0.4; charset=utf-8", hwsd_http_metrics },
	{ "/api/v1/sensors", "application/json", hwsd_http_api_sensors },
	{ "/api/v1/alarms", "application/json", hwsd_http_api_alarms },
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     char *body, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result r;

	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	r = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result fail(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum MHD_Result fail(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
	char *body;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&body, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MHD_NO;
	return reply(c, status, "text/plain; charset=utf-8", body, (size_t)n);
}

/* The first query parameter, if any: these pages take none. */
static enum MHD_Result first_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	const char **ret = cls;

	(void)kind, (void)value;
	*ret = key;
	return MHD_NO;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size,
			      void **req_cls)
{
	struct hwsd_http *h = cls;
	const struct page *page = NULL;
	const char *arg = NULL;
	char *body = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	(void)version, (void)upload_data;
	/* The first call is for the headers alone; answer on the second. */
	if (!*req_cls) {
		*req_cls = h;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return fail(c, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: only GET and HEAD\n", method);
	if (*upload_data_size)
		return fail(c, MHD_HTTP_BAD_REQUEST, "a GET has no body\n");
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]) && !page; i++)
		if (!strcmp(url, pages[i].path))
			page = &pages[i];
	if (!page)
		return fail(c, MHD_HTTP_NOT_FOUND, "no such page\n");
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, first_arg, &arg);
	if (arg)
		return fail(c, MHD_HTTP_BAD_REQUEST, "%s takes no parameter (got \"%.64s\")\n", page->path, arg);
	f = open_memstream(&body, &len);
	if (!f)
		return fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	r = page->write(h->d, f);
	if (fclose(f) != 0 || r < 0) {
		free(body);
		return fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	return reply(c, MHD_HTTP_OK, page->type, body, len);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_debug("http: %s", msg);
}

/* "127.0.0.1:9787", "[::1]:9787" into an address. */
static int parse_listen(const char *listen, struct addrinfo **ret)
{
	const struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
		.ai_socktype = SOCK_STREAM,
	};
	char host[64];
	const char *colon, *port;
	size_t len;

	if (listen[0] == '[') {
		const char *end = strchr(listen, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		len = (size_t)(end - listen - 1);
		port = end + 2;
		listen++;
	} else {
		colon = strrchr(listen, ':');
		if (!colon)
			return -EINVAL;
		len = (size_t)(colon - listen);
		port = colon + 1;
	}
	if (len == 0 || len >= sizeof(host) || !*port)
		return -EINVAL;
	memcpy(host, listen, len);
	host[len] = '\0';
	return getaddrinfo(host, port, &hints, ret) == 0 ? 0 : -EINVAL;
}

int hwsd_http_start(struct hwsd *d, const char *listen, struct hwsd_http **ret)
{
	struct addrinfo *ai;
	struct hwsd_http *h;
	int r;

	r = parse_listen(listen, &ai);
	if (r < 0) {
		log_error("listen: \"%s\" is not ADDRESS:PORT (127.0.0.1:9787, [::1]:9787)", listen);
		return r;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		freeaddrinfo(ai);
		return -ENOMEM;
	}
	h->d = d;
	h->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
				  (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, handle, h,
				  MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				  MHD_OPTION_CONNECTION_LIMIT, 64u,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, 16u,
				  MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!h->mhd) {
		r = errno ? -errno : -EADDRINUSE;
		log_error("listen: cannot serve HTTP on %s: %s", listen, strerror(-r));
		free(h);
		return r;
	}
	/* Port 0 takes any free port: say which. */
	log_info("serving HTTP on %s (port %u)", listen,
		 (unsigned)MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT)->port);
	*ret = h;
	return 0;
}

struct hwsd_http *hwsd_http_stop(struct hwsd_http *h)
{
	if (!h)
		return NULL;
	MHD_stop_daemon(h->mhd);
	free(h);
	return NULL;
}
