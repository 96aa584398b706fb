/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's HTTP side as a client on the network meets it: the real
 * server (daemon/http/, libmicrohttpd's pool of poll() threads),
 * started once on 127.0.0.1 with an ephemeral port and a chip's readings
 * to serve, and sent each input over a loopback connection:
 *  - first byte % 6 is 0 or 1: the rest is the whole request, raw;
 *  - 2, 3: the request target of a GET or HEAD, raw (so it may end the
 *    request line or add headers of its own);
 *  - 4, 5: the same with the bytes an HTTP client would escape
 *    percent-escaped, to reach the routes and their query parameters.
 * The server asks for a password (user "fuzz", password "fuzz", a bcrypt
 * hash of cost 4 in a users file made at the start): modes 2 to 5 send it,
 * so that they reach the pages, and a raw request brings its own
 * Authorization header, or none, to the basic-auth parser.
 * The answer must be a well-formed status line (after any 100 Continue)
 * with one of the statuses the daemon or libmicrohttpd give, and a header
 * block, or a closed connection; within 5 s. The server runs in this
 * process, so ASan, UBSan and LSan watch its threads too.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "events.h"
#include "http.h"
#include "live.h"
#include "log.h"
#include "motion-board.h"
#include "readings.h"
#include "view.h"

#include "fuzz.h"

#define ANSWER_MS 5000
#define MAX_FD 4096

/* What the daemon would publish: one chip, no camera, no history. */
static struct {
	struct hwsd_readings readings;
	struct hwsd_live_set live;
	struct hwsd_counters counters;
	struct hwsd_motion_board motion;
	struct hwsd_view view;
} published;
static struct hwsd_http *http;
static struct sockaddr_in server;
static bool verbose;  /* HWS_FUZZ_VERBOSE=1: each answer's status line */

/*
 * 200, and the errors of the daemon (400 bad query parameters or a body,
 * 401 no or a wrong password, 404, 405 not GET or HEAD, 503 not ready) and of libmicrohttpd (400 a
 * malformed request, 413 a body it will not take, 414 a request line and
 * 431 headers over the 16 KiB, 501 a transfer coding it lacks, 505 an
 * HTTP version it does not speak).
 */
static bool status_expected(int status)
{
	static const int statuses[] = { 200, 400, 401, 404, 405, 413, 414, 431, 501, 503, 505 };

	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		if (status == statuses[i])
			return true;
	return false;
}

/* A chip for the pages to show. */
static void publish_readings(void)
{
	static struct hws_subfeature subs[] = {
		{ .name = "temp1_input", .item = HWS_ITEM_INPUT, .value = 42.5 },
		{ .name = "temp1_max", .item = HWS_ITEM_MAX, .value = 75 },
		{ .name = "temp1_alarm", .item = HWS_ITEM_ALARM, .value = 1 },
	};
	static struct hws_feature features[] = {
		{ .name = "temp1", .label = "CPU \"A\"\\", .kind = HWS_SENSOR_TEMP, .n_subfeatures = 3,
		  .subfeatures = subs },
	};
	static const struct hws_chip chip = {
		.name = "w83793-i2c-0-2f", .prefix = "w83793", .adapter = "SMBus stub driver",
		.present = true, .n_features = 1, .features = features,
	};

	hwsd_readings_init(&published.readings);
	hwsd_live_set_init(&published.live);
	if (hwsd_readings_update(&published.readings, &chip, 1, NULL, NULL) < 0)
		abort();
	/* A guard watching sda, parked once. */
	hwsd_motion_board_init(&published.motion);
	hwsd_motion_board_watch(&published.motion, &(struct hws_motion_info){ .driver_name = "ams" }, 15, false);
	if (hwsd_motion_board_disks(&published.motion, (char[][HWSD_DISK_NAME_MAX + 1]){ "sda" }, 1) < 0)
		abort();
	hwsd_motion_board_park(&published.motion, false);
	hwsd_motion_board_parked(&published.motion, "sda");
	hwsd_motion_board_released(&published.motion);
	published.view = (struct hwsd_view){
		.readings = &published.readings, .live = &published.live,
		.counters = &published.counters, .motion = &published.motion,
	};
}

/* The users file, and the access that reads it, as the daemon would. */
static struct hwsd_http_access *users_access(void)
{
	char path[] = "/tmp/fuzz-http-users.XXXXXX", salt[CRYPT_GENSALT_OUTPUT_SIZE], *error = NULL;
	struct crypt_data data = { 0 };
	struct hwsd_config c = { .path = "fuzz-http", .http = { .basic_auth_users = path } };
	struct hwsd_http_access *a;
	const char *hash;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	if (fd < 0 || !crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)) ||
	    !(hash = crypt_r("fuzz", salt, &data)) || !(f = fdopen(fd, "w")))
		abort();
	fprintf(f, "fuzz:%s\n", hash);
	fclose(f);
	if (hwsd_http_access_load(&c, &a, &error) < 0) {
		fprintf(stderr, "fuzz-http: %s\n", error ? error : "cannot read the users file");
		abort();
	}
	unlink(path);
	return a;
}

static bool is_listening(int fd)
{
	int on = 0;
	socklen_t len = sizeof(on);

	return fcntl(fd, F_GETFD) >= 0 && getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on;
}

static void stop(void)
{
	http = hwsd_http_stop(http);
	hwsd_live_set_done(&published.live);
	hwsd_readings_done(&published.readings);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static bool before[MAX_FD];
	struct hwsd_http_access *access;
	int r;

	(void)argc, (void)argv;
	verbose = getenv("HWS_FUZZ_VERBOSE") != NULL;
	hwsd_log_setup(HWSD_LOG_STDERR, LOG_CRIT);
	publish_readings();

	/* libmicrohttpd does not say which port it took: find its socket. */
	for (int fd = 0; fd < MAX_FD; fd++)
		before[fd] = is_listening(fd);
	access = users_access();
	r = hwsd_http_start(&published.view, "127.0.0.1:0", access, &http);
	access = hwsd_http_access_unref(access);
	if (r < 0) {
		fprintf(stderr, "fuzz-http: cannot start the HTTP side: %s\n", strerror(-r));
		abort();
	}
	for (int fd = 0; fd < MAX_FD && !server.sin_port; fd++) {
		struct sockaddr_in a;
		socklen_t len = sizeof(a);

		if (!before[fd] && is_listening(fd) && getsockname(fd, (struct sockaddr *)&a, &len) == 0 &&
		    len == sizeof(a) && a.sin_family == AF_INET)
			server = a;
	}
	if (!server.sin_port) {
		fprintf(stderr, "fuzz-http: the HTTP side has no listening socket\n");
		abort();
	}
	atexit(stop);
	return 0;
}

static void put(char **buf, size_t *len, const void *p, size_t n)
{
	*buf = realloc(*buf, *len + n);
	if (!*buf)
		abort();
	memcpy(*buf + *len, p, n);
	*len += n;
}

static char *build_request(const uint8_t *data, size_t size, size_t *ret_len)
{
	static const char hex[] = "0123456789ABCDEF";
	/* "fuzz:fuzz" in base64. */
	static const char tail[] = " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ZnV6ejpmdXp6\r\n\r\n";
	unsigned mode = size ? data[0] % 6 : 0;
	char *req = NULL;
	size_t len = 0;

	if (size)
		data++, size--;
	if (mode < 2) {
		put(&req, &len, data, size);
		*ret_len = len;
		return req;
	}
	put(&req, &len, mode % 2 ? "HEAD " : "GET ", mode % 2 ? 5 : 4);
	for (size_t i = 0; i < size; i++) {
		uint8_t c = data[i];

		if (mode >= 4 && (c <= ' ' || c >= 0x7f || c == '#')) {
			char esc[3] = { '%', hex[c >> 4], hex[c & 15] };

			put(&req, &len, esc, 3);
		} else {
			put(&req, &len, &c, 1);
		}
	}
	put(&req, &len, tail, sizeof(tail) - 1);
	*ret_len = len;
	return req;
}

static long elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/*
 * libFuzzer's timer (SIGALRM, for -timeout) may interrupt connect(); the
 * connection then goes on by itself, and is there once writable.
 */
static int connect_server(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int error = 0;

	if (connect(fd, (struct sockaddr *)&server, sizeof(server)) == 0)
		return 0;
	if (errno != EINTR)
		return -1;
	while (poll(&pfd, 1, ANSWER_MS) < 0)
		if (errno != EINTR)
			return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) < 0)
		return -1;
	errno = error;
	return error ? -1 : 0;
}

/* Send the request, read the answer to the end: its length, the answer
 * in @buf (NUL-terminated, cut at @size - 1), and whether it ended cleanly. */
static size_t exchange(const char *req, size_t req_len, char *buf, size_t size, bool *ret_clean)
{
	struct timespec start;
	size_t sent = 0, got = 0;
	int fd;

	*ret_clean = false;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect_server(fd) < 0) {
		perror("fuzz-http: connect");
		abort();
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* The server may answer and close before it has read everything. */
	while (sent < req_len) {
		ssize_t n = send(fd, req + sent, req_len - sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			FUZZ_CHECK(errno == EPIPE || errno == ECONNRESET, "send: %s", strerror(errno));
			break;
		}
		sent += (size_t)n;
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long left = ANSWER_MS - elapsed_ms(&start);
		char chunk[4096];
		ssize_t n;

		FUZZ_CHECK(left > 0, "no end of the answer within %d ms (%zu bytes so far)", ANSWER_MS, got);
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = recv(fd, chunk, sizeof(chunk), 0);
		if (n < 0) {
			FUZZ_CHECK(errno == ECONNRESET || errno == EINTR, "recv: %s", strerror(errno));
			if (errno == ECONNRESET)
				break;
			continue;
		}
		if (n == 0) {
			*ret_clean = true;
			break;
		}
		if (got < size - 1)
			memcpy(buf + got, chunk, (size_t)n < size - 1 - got ? (size_t)n : size - 1 - got);
		got += (size_t)n;
	}
	close(fd);
	buf[got < size - 1 ? got : size - 1] = '\0';
	return got;
}

static void check_answer(const char *answer, size_t len, bool clean)
{
	const char *p = answer;

	if (len == 0)
		return;  /* closed without a word: libmicrohttpd's answer to some garbage */
	for (;;) {
		const char *eol = strstr(p, "\r\n"), *end;
		int status;

		if (!eol) {
			/* A reset may cut the status line short; a clean end may not. */
			FUZZ_CHECK(!clean, "no whole status line: \"%.80s\"", p);
			return;
		}
		FUZZ_CHECK(!strncmp(p, "HTTP/1.", 7) && (p[7] == '0' || p[7] == '1') && p[8] == ' ' &&
			   p[9] >= '1' && p[9] <= '5' && p[10] >= '0' && p[10] <= '9' && p[11] >= '0' &&
			   p[11] <= '9' && p[12] == ' ', "not a status line: \"%.*s\"", (int)(eol - p), p);
		status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
		end = strstr(p, "\r\n\r\n");
		if (!end) {
			FUZZ_CHECK(!clean, "status %d without the end of its headers", status);
			return;
		}
		if (status >= 100 && status < 200) {
			p = end + 4;
			if (!*p)
				return;
			continue;
		}
		FUZZ_CHECK(status_expected(status), "status %d: \"%.*s\"", status, (int)(eol - p), p);
		return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char answer[1 << 16];
	size_t req_len, len;
	char *req = build_request(data, size, &req_len);
	bool clean;

	len = exchange(req, req_len, answer, sizeof(answer), &clean);
	if (verbose)
		fprintf(stderr, "fuzz-http: %zu bytes in, %zu out%s: %.*s\n", req_len, len, clean ? "" : " (reset)",
			(int)strcspn(answer, "\r\n"), answer);
	check_answer(answer, len, clean);
	free(req);
	return 0;
}
