/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HTTP side: libmicrohttpd serving what the pollers and cameras
 * publish (readings.h, live.h), never touching a device. It listens on
 * 127.0.0.1:9787 unless told otherwise. Requests are small and bounded:
 * a connection gets 16 KiB for its request and headers (more is refused
 * by libmicrohttpd), 10 s of silence, and there are at most 64 at once,
 * 16 from one address.
 *
 * A pool of POOL_THREADS threads serves every connection, each with
 * poll(). A stream's viewer waiting for the next frame is suspended
 * (hwsd_http_poll_frame()) and resumed by the camera publishing it, so
 * that fifty viewers cost four threads and no wake-up between frames,
 * where a thread for each cost fifty threads waking in turn.
 *
 * poll(), not epoll: libmicrohttpd 0.9.75 (Debian 12) registers its
 * sockets edge-triggered without EPOLLRDHUP, so a client that sends its
 * request and its FIN together (shutdown(SHUT_WR), then waits for the
 * answer, as fuzz/fuzz-http.c and `nc -N` do) has the end of its input
 * noticed only at the 10 s timeout: the FIN's edge is spent on the read
 * that took the request. poll() is level-triggered: the next read sees
 * the end, as in the thread-per-connection mode. libmicrohttpd 1.0
 * (commit 08f933a6, its bug 7192) watches EPOLLRDHUP and would do.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>

#include <hwsight/workqueue.h>

#include "memstream-util.h"

#include "../http.h"
#include "../live.h"
#include "../log.h"
#include "../view.h"
#include "pages.h"

/* Sending is cheap (a frame is one send a viewer): threads are for the
 * requests that wait in theirs, a snapshot of an idle camera or a graph,
 * which hold up only the connections of their own thread. Idle, a
 * thread costs its stack's address space and nothing else. */
#define POOL_THREADS 4u

struct hwsd_http {
	const struct hwsd_view *view;
	struct MHD_Daemon *mhd;
	struct hwsd_http_access *tls;   /* what libmicrohttpd was started with */
	pthread_mutex_t lock;
	struct hwsd_http_access *access; /* L: lock */
	bool stopping;                  /* L: no viewer may be suspended any more */
};

static const char *const no_params[] = { NULL };
static const char *const camera_params[] = { "camera", NULL };
static const char *const graph_params[] = { "kind", "range", NULL };

/* Pages written whole into memory, then sent. */
static const struct page {
	const char *path;
	const char *type;
	int (*write)(const struct hwsd_view *view, FILE *f);
} pages[] = {
	{ "/", "text/html; charset=utf-8", hwsd_http_status },
	{ "/metrics", "text/plain; version=0.0.4; charset=utf-8", hwsd_http_metrics },
	{ "/api/v1/sensors", "application/json", hwsd_http_api_sensors },
	{ "/api/v1/alarms", "application/json", hwsd_http_api_alarms },
	{ "/api/v1/cameras", "application/json", hwsd_http_api_cameras },
	{ "/api/v1/fans", "application/json", hwsd_http_api_fans },
	{ "/api/v1/motion", "application/json", hwsd_http_api_motion },
};

/* Pages that answer by themselves: a path ending in '/' is a prefix. */
static const struct route {
	const char *path;
	const char *const *params;  /* the query parameters it takes */
	enum MHD_Result (*serve)(struct hwsd_http_request *req);
} routes[] = {
	{ "/snapshot.jpg", camera_params, hwsd_http_snapshot },
	{ "/stream.mjpg", camera_params, hwsd_http_stream },
	{ "/graph/", graph_params, hwsd_http_graph },
	{ .path = NULL }
};

enum MHD_Result hwsd_http_reply(struct MHD_Connection *c, unsigned status, const char *type,
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

enum MHD_Result hwsd_http_fail(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
	char *body;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&body, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MHD_NO;
	return hwsd_http_reply(c, status, "text/plain; charset=utf-8", body, (size_t)n);
}

struct args_check {
	const char *const *allowed;
	const char *bad;
};

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct args_check *a = cls;

	(void)kind, (void)value;
	for (const char *const *p = a->allowed; *p; p++)
		if (!strcmp(*p, key))
			return MHD_YES;
	a->bad = key;
	return MHD_NO;
}

struct page_write {
	const struct page *page;
	const struct hwsd_view *view;
};

static int page_write(FILE *f, void *userdata)
{
	const struct page_write *w = userdata;

	return w->page->write(w->view, f);
}

static enum MHD_Result serve_page(struct hwsd_http_request *req, const struct page *page)
{
	struct page_write w = { page, req->view };
	char *body;
	size_t len;

	if (hws__memstream_write(page_write, &w, &body, &len) < 0)
		return hwsd_http_fail(req->c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return hwsd_http_reply(req->c, MHD_HTTP_OK, page->type, body, len);
}

static bool path_matches(const char *pattern, const char *url)
{
	size_t len = strlen(pattern);

	if (len > 1 && pattern[len - 1] == '/')
		return !strncmp(pattern, url, len) && url[len];
	return !strcmp(pattern, url);
}

static bool has_body(struct MHD_Connection *c)
{
	const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	return (len && strcmp(len, "0")) ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/* A password asked and not given, or wrong: 401, and the header that
 * makes a browser or curl ask for one. */
static enum MHD_Result unauthorized(struct MHD_Connection *c)
{
	static const char body[] = "a user and password are needed (HTTP basic auth)\n";
	struct MHD_Response *resp;
	enum MHD_Result r;

	resp = MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	r = MHD_queue_basic_auth_fail_response(c, "hwsightd", resp);
	MHD_destroy_response(resp);
	return r;
}

static bool authorized(struct hwsd_http *h, struct MHD_Connection *c)
{
	struct hwsd_http_access *a;
	char *user, *password = NULL;
	bool ok;

	pthread_mutex_lock(&h->lock);
	a = hwsd_http_access_ref(h->access);
	pthread_mutex_unlock(&h->lock);
	if (!hwsd_http_access_asks_password(a)) {
		hwsd_http_access_unref(a);
		return true;
	}
	user = MHD_basic_auth_get_username_password(c, &password);
	ok = hwsd_http_access_check(a, user, password);
	hwsd_http_access_unref(a);
	if (!ok)
		log_debug("http: %s%s%s: refused", user ? "user \"" : "no user", user ? user : "", user ? "\"" : "");
	MHD_free(user);
	if (password) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size,
			      void **req_cls)
{
	struct hwsd_http *h = cls;
	struct hwsd_http_request req = { .view = h->view, .http = h, .c = c, .url = url };
	const struct page *page = NULL;
	const struct route *route = NULL;
	struct args_check args = { .allowed = no_params };

	(void)version, (void)upload_data, (void)upload_data_size;
	/* Refusals come on the first call, with the headers alone:
	 * libmicrohttpd takes no answer once a body is arriving. A good
	 * request is answered on the second call, which keeps the
	 * connection alive (an answer on the first call closes it). */
	if (!*req_cls) {
		if (!authorized(h, c))
			return unauthorized(c);
		if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
			return hwsd_http_fail(c, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: only GET and HEAD\n", method);
		if (has_body(c))
			return hwsd_http_fail(c, MHD_HTTP_BAD_REQUEST, "a %s has no body\n", method);
		*req_cls = h;
		return MHD_YES;
	}
	req.head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]) && !page; i++)
		if (!strcmp(url, pages[i].path))
			page = &pages[i];
	for (const struct route *r = routes; r->path && !page && !route; r++)
		if (path_matches(r->path, url))
			route = r;
	if (!page && !route)
		return hwsd_http_fail(c, MHD_HTTP_NOT_FOUND, "no such page\n");
	if (route)
		args.allowed = route->params;
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_arg, &args);
	if (args.bad)
		return hwsd_http_fail(c, MHD_HTTP_BAD_REQUEST, "%s takes no parameter \"%.64s\"\n",
				      page ? page->path : route->path, args.bad);
	return page ? serve_page(&req, page) : route->serve(&req);
}

/*
 * libmicrohttpd's resume is undefined on a connection that is not
 * suspended, and a frame may come between a viewer joining the waiters
 * and its suspension. A wake that finds the viewer still SUSPENDING
 * leaves the resume to it, once suspended.
 */
enum { WAITER_AWAKE, WAITER_SUSPENDING, WAITER_SUSPENDED, WAITER_WOKEN };

static void waiter_wake(struct hwsd_live_waiter *w)
{
	struct hwsd_http_waiter *hw = container_of(w, struct hwsd_http_waiter, w);
	struct MHD_Connection *c = hw->c;   /* hw may be gone once resumed */

	if (atomic_exchange(&hw->state, WAITER_WOKEN) == WAITER_SUSPENDED)
		MHD_resume_connection(c);
}

void hwsd_http_waiter_init(struct hwsd_http_waiter *hw, struct MHD_Connection *c)
{
	*hw = (struct hwsd_http_waiter){ .w.wake = waiter_wake, .c = c };
	atomic_init(&hw->state, WAITER_AWAKE);
}

int hwsd_http_poll_frame(struct hwsd_http *h, struct hwsd_http_waiter *hw, struct hwsd_live *l,
			 uint64_t after_seq, struct hwsd_jpeg **ret)
{
	int expected = WAITER_SUSPENDING;
	int r;

	/* Before it can be woken: set before it joins the list. */
	atomic_store(&hw->state, WAITER_SUSPENDING);
	/* Under the lock that hwsd_http_stop() sets stopping with: a viewer
	 * either sees it, or is on a list that hwsd_http_stop() wakes. */
	pthread_mutex_lock(&h->lock);
	r = h->stopping ? -ECANCELED : hwsd_live_poll(l, after_seq, &hw->w, ret);
	pthread_mutex_unlock(&h->lock);
	if (r != -EAGAIN) {
		atomic_store(&hw->state, WAITER_AWAKE);
		return r;
	}
	MHD_suspend_connection(hw->c);
	if (!atomic_compare_exchange_strong(&hw->state, &expected, WAITER_SUSPENDED))
		MHD_resume_connection(hw->c);   /* woken before it was suspended */
	return r;
}

/* Set while this thread starts libmicrohttpd: what it says then is why
 * it did not start. */
static _Thread_local bool starting;

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	hwsd_log(starting ? LOG_ERR : LOG_DEBUG, "http: %s", msg);
}

/*
 * libmicrohttpd returns NULL without a reason, and errno after it is
 * whatever its last system call left. Bind the address once ourselves,
 * with the options it uses (SO_REUSEADDR, and IPV6_V6ONLY for an IPv6
 * address), so that the usual failures get the kernel's own reason.
 * Return: 0 or -errno.
 */
static int try_bind(const struct addrinfo *ai)
{
	const int one = 1;
	int fd, r = 0;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (ai->ai_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		r = -errno;
	close(fd);
	return r;
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

int hwsd_http_start(const struct hwsd_view *view, const char *listen, struct hwsd_http_access *access,
		    struct hwsd_http **ret)
{
	const char *cert = hwsd_http_access_cert(access);
	struct addrinfo *ai;
	struct hwsd_http *h;
	int r;

	r = parse_listen(listen, &ai);
	if (r < 0) {
		log_error("listen: \"%s\" is not ADDRESS:PORT (127.0.0.1:9787, [::1]:9787)", listen);
		return r;
	}
	r = try_bind(ai);
	if (r < 0) {
		freeaddrinfo(ai);
		log_error("listen: cannot serve HTTP on %s: %s%s", listen, strerror(-r),
			  r == -EADDRINUSE ? " (another program listens there; stop it, or set listen=)" : "");
		return r;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		freeaddrinfo(ai);
		return -ENOMEM;
	}
	h->view = view;
	h->tls = hwsd_http_access_ref(access);
	h->access = hwsd_http_access_ref(access);
	pthread_mutex_init(&h->lock, NULL);
	starting = true;
	/* Suspend and resume bring an ITC: a resumed viewer, and a
	 * connection that ends, are seen at once, not at the next event. */
	h->mhd = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
				  MHD_USE_ERROR_LOG | (cert ? MHD_USE_TLS : 0) |
				  (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, handle, h,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				  MHD_OPTION_THREAD_POOL_SIZE, POOL_THREADS,
				  MHD_OPTION_CONNECTION_LIMIT, 64u,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, 16u,
				  MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
				  MHD_OPTION_THREAD_STACK_SIZE, (size_t)512 * 1024,
				  /* Without TLS, the list ends here. */
				  cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cert,
				  MHD_OPTION_HTTPS_MEM_KEY, hwsd_http_access_key(access),
				  MHD_OPTION_END);
	starting = false;
	freeaddrinfo(ai);
	if (!h->mhd) {
		log_error("listen: cannot serve HTTP on %s: libmicrohttpd would not start (its reason, if it gave one, is logged above)",
			  listen);
		hwsd_http_stop(h);
		return -EIO;
	}
	/* Port 0 takes any free port: say which. */
	log_info("serving %s on %s (port %u)%s", cert ? "HTTPS" : "HTTP", listen,
		 (unsigned)MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT)->port,
		 hwsd_http_access_asks_password(access) ? " with basic auth" : "");
	*ret = h;
	return 0;
}

void hwsd_http_set_access(struct hwsd_http *h, struct hwsd_http_access *access)
{
	struct hwsd_http_access *old;

	pthread_mutex_lock(&h->lock);
	old = h->access;
	h->access = hwsd_http_access_ref(access);
	pthread_mutex_unlock(&h->lock);
	hwsd_http_access_unref(old);
}

const struct hwsd_http_access *hwsd_http_access(const struct hwsd_http *h)
{
	/* Only the main thread sets it, and only the main thread asks. */
	return h->access;
}

struct hwsd_http *hwsd_http_stop(struct hwsd_http *h)
{
	if (!h)
		return NULL;
	if (h->mhd) {
		/* libmicrohttpd will not stop with a connection suspended:
		 * the waiting viewers are woken, and no more wait. */
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		hwsd_live_set_wake(h->view->live);
		pthread_mutex_unlock(&h->lock);
		MHD_stop_daemon(h->mhd);
	}
	hwsd_http_access_unref(h->access);
	hwsd_http_access_unref(h->tls);
	pthread_mutex_destroy(&h->lock);
	free(h);
	return NULL;
}
