/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsight-bench-mjpeg-viewers - N viewers of one multipart MJPEG stream,
 * and what serving them cost the server (bench/http/in-lab).
 *
 *   hwsight-bench-mjpeg-viewers -n N -p PORT -u PATH [-s HEADER] [-w S] [-t S] PID
 *
 * Opens N connections to 127.0.0.1:PORT from 127.0.0.2, .3 ..., ten from
 * each address as viewers on several machines would come (hwsightd takes
 * 16 connections from one address), GET PATH, and reads every part of
 * every stream on one thread (epoll), noting for each part the time its
 * last byte arrived. After -w seconds of warm-up, a window of -t seconds
 * is measured: PID's utime+stime and the guest's busy and total ticks
 * (/proc/PID/stat, /proc/stat) at its edges, the parts each viewer
 * completed in it, and for each such part the delay from the time in its
 * HEADER (seconds on CLOCK_MONOTONIC, the server's capture time) to its
 * last byte here. The server runs on the same machine, so the clocks are
 * the same clock. One line of key=value goes to stdout; a viewer whose
 * stream ended or failed counts as lost. N = 0 measures an idle server.
 * A stream in HTTP/1.1's chunked encoding is taken out of it first.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

enum state { RESPONSE, PART_HEAD, PART_BODY };
enum chunk_state { CHUNK_SIZE, CHUNK_DATA, CHUNK_END };

struct viewer {
	int fd;
	enum state state;
	char line[1024];           /* the header line being read */
	size_t line_len;
	bool got_header;           /* of this part */
	size_t body_left;
	bool chunked;              /* Transfer-Encoding: chunked */
	enum chunk_state chunk_state;
	size_t chunk_left;         /* CHUNK_SIZE: the size read so far */
	bool chunk_ext;            /* CHUNK_SIZE: past the digits */
	double stamp;              /* the part's capture time, < 0: none */
	unsigned frames;           /* parts completed in the window */
	bool lost;
};

struct delays {
	double *v;
	size_t n, cap;
};

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "mjpeg-viewers: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* "ticks busy total": PID's utime+stime, the guest's busy and all ticks. */
static void cpu_read(int pid, unsigned long long ret[3])
{
	char path[64], buf[1024], *p;
	unsigned long long f[10] = { 0 };
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fp = fopen(path, "re");
	if (!fp || !fgets(buf, sizeof(buf), fp))
		die(path);
	fclose(fp);
	p = strrchr(buf, ')');
	/* After ") ": state, then fields 4..; utime and stime are 14 and 15. */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &f[0], &f[1]) != 2) {
		fprintf(stderr, "mjpeg-viewers: %s: cannot parse\n", path);
		exit(1);
	}
	ret[0] = f[0] + f[1];
	fp = fopen("/proc/stat", "re");
	if (!fp || !fgets(buf, sizeof(buf), fp))
		die("/proc/stat");
	fclose(fp);
	n = sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5],
		   &f[6], &f[7]);
	if (n != 8) {
		fprintf(stderr, "mjpeg-viewers: /proc/stat: cannot parse\n");
		exit(1);
	}
	ret[1] = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
	ret[2] = ret[1] + f[3] + f[4];
}

static void delay_add(struct delays *d, double x)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 4096;
		d->v = realloc(d->v, d->cap * sizeof(*d->v));
		if (!d->v)
			die("realloc");
	}
	d->v[d->n++] = x;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double percentile(const struct delays *d, double p)
{
	size_t i = (size_t)(p / 100 * (double)(d->n - 1) + 0.5);

	return d->v[i];
}

/* One header line of the response or of a part (without its CRLF). */
static void header_line(struct viewer *v, const char *stamp_header)
{
	char *l = v->line, *colon;
	size_t name_len;

	l[v->line_len] = '\0';
	if (v->state == RESPONSE) {
		if (!v->got_header && strncmp(l, "HTTP/1.", 7) == 0 && strncmp(l + 8, " 200", 4) != 0) {
			fprintf(stderr, "mjpeg-viewers: the server answered \"%s\"\n", l);
			exit(1);
		}
		v->got_header = true;
		if (!strncasecmp(l, "Transfer-Encoding:", 18) && strstr(l + 18, "chunked"))
			v->chunked = true;
		return;
	}
	colon = strchr(l, ':');
	if (!colon)
		return;                    /* the boundary line */
	v->got_header = true;
	name_len = (size_t)(colon - l);
	for (colon++; *colon == ' '; colon++)
		;
	if (name_len == 14 && !strncasecmp(l, "Content-Length", 14))
		v->body_left = strtoull(colon, NULL, 10);
	else if (stamp_header && name_len == strlen(stamp_header) && !strncasecmp(l, stamp_header, name_len))
		v->stamp = strtod(colon, NULL);
}

/* Bytes of the response: a part whose last byte is among them ends at @t.
 * Return: how many were taken, all but those after the response's
 * header (which may be chunked). */
static size_t consume(struct viewer *v, const char *p, size_t n, double t, bool in_window,
		      const char *stamp_header, struct delays *d)
{
	const char *start = p;

	while (n) {
		if (v->state == PART_BODY) {
			size_t k = n < v->body_left ? n : v->body_left;

			p += k;
			n -= k;
			v->body_left -= k;
			if (v->body_left)
				continue;
			if (in_window) {
				v->frames++;
				if (v->stamp > 0)
					delay_add(d, t - v->stamp);
			}
			v->state = PART_HEAD;
			v->got_header = false;
			v->stamp = -1;
			continue;
		}
		if (*p == '\n') {
			if (v->line_len && v->line[v->line_len - 1] == '\r')
				v->line_len--;
			if (v->line_len) {
				header_line(v, stamp_header);
			} else if (v->got_header) {
				/* The blank line after headers. */
				if (v->state == RESPONSE) {
					v->state = PART_HEAD;
					v->got_header = false;
					v->line_len = 0;
					return (size_t)(p + 1 - start);
				} else {
					v->state = v->body_left ? PART_BODY : PART_HEAD;
					if (!v->body_left) {
						fprintf(stderr, "mjpeg-viewers: a part without Content-Length\n");
						exit(1);
					}
				}
				v->got_header = false;
			}
			v->line_len = 0;
		} else if (v->line_len < sizeof(v->line) - 1) {
			v->line[v->line_len++] = *p;
		}
		p++;
		n--;
	}
	return (size_t)(p - start);
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The bytes a read gave, through the chunked encoding if there is one. */
static void feed(struct viewer *v, const char *p, size_t n, double t, bool in_window,
		 const char *stamp_header, struct delays *d)
{
	while (n) {
		size_t k;
		int x;

		if (v->state == RESPONSE || !v->chunked) {
			k = consume(v, p, n, t, in_window, stamp_header, d);
			p += k;
			n -= k;
			continue;
		}
		switch (v->chunk_state) {
		case CHUNK_SIZE:
			if (*p == '\n') {
				v->chunk_state = v->chunk_left ? CHUNK_DATA : CHUNK_END;
				v->chunk_ext = false;
			} else if (!v->chunk_ext && (x = hex_digit(*p)) >= 0) {
				v->chunk_left = v->chunk_left * 16 + (size_t)x;
			} else {
				v->chunk_ext = true; /* ";ext" or the CR */
			}
			p++;
			n--;
			break;
		case CHUNK_DATA:
			k = n < v->chunk_left ? n : v->chunk_left;
			consume(v, p, k, t, in_window, stamp_header, d);
			p += k;
			n -= k;
			v->chunk_left -= k;
			if (!v->chunk_left)
				v->chunk_state = CHUNK_END;
			break;
		case CHUNK_END:
			/* The CRLF after a chunk (a last chunk of 0 ends the
			 * stream, and the server closes it). */
			if (*p == '\n')
				v->chunk_state = CHUNK_SIZE;
			p++;
			n--;
			break;
		}
	}
}

#define VIEWERS_PER_ADDRESS 10

static int connect_to(int port, const char *path, int i)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in from = { .sin_family = AF_INET };
	char req[512];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), len;

	if (fd < 0)
		die("socket");
	from.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1 + (uint32_t)(i / VIEWERS_PER_ADDRESS));
	if (bind(fd, (struct sockaddr *)&from, sizeof(from)) < 0)
		die("bind");
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect");
	len = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: */*\r\n\r\n", path, port);
	if (write(fd, req, (size_t)len) != len)
		die("write");
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static void usage(void)
{
	fprintf(stderr, "usage: hwsight-bench-mjpeg-viewers -n N -p PORT -u PATH [-s HEADER] [-w SECONDS] "
			"[-t SECONDS] SERVER-PID\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *stamp_header = NULL;
	double warmup = 2, window = 5, start, w0 = 0, w1 = 0, t;
	unsigned long long c0[3], c1[3];
	int n = -1, port = 0, pid, ep = -1, opt, lost = 0;
	struct viewer *vs;
	struct delays d = { 0 };
	static char buf[256 * 1024];
	enum { WARMUP, WINDOW, END } phase = WARMUP;

	while ((opt = getopt(argc, argv, "n:p:u:s:w:t:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 'u': path = optarg; break;
		case 's': stamp_header = optarg; break;
		case 'w': warmup = atof(optarg); break;
		case 't': window = atof(optarg); break;
		default: usage();
		}
	}
	if (n < 0 || port <= 0 || !path || optind != argc - 1 || window <= 0 || warmup < 0)
		usage();
	pid = atoi(argv[optind]);
	vs = calloc(n ? (size_t)n : 1, sizeof(*vs));
	if (!vs)
		die("calloc");
	if (n) {
		ep = epoll_create1(EPOLL_CLOEXEC);
		if (ep < 0)
			die("epoll_create1");
	}
	for (int i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		vs[i].fd = connect_to(port, path, i);
		vs[i].stamp = -1;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, vs[i].fd, &ev) < 0)
			die("epoll_ctl");
	}
	start = now_mono();
	while (phase != END) {
		struct epoll_event evs[64];
		double edge = phase == WARMUP ? start + warmup : w0 + window;
		int k, ms;

		t = now_mono();
		if (t >= edge) {
			if (phase == WARMUP) {
				cpu_read(pid, c0);
				w0 = now_mono();
				phase = WINDOW;
			} else {
				cpu_read(pid, c1);
				w1 = now_mono();
				phase = END;
			}
			continue;
		}
		ms = (int)((edge - t) * 1000) + 1;
		if (!n) {
			usleep((useconds_t)ms * 1000);
			continue;
		}
		k = epoll_wait(ep, evs, 64, ms);
		if (k < 0 && errno != EINTR)
			die("epoll_wait");
		for (int e = 0; e < k; e++) {
			struct viewer *v = &vs[evs[e].data.u32];
			ssize_t got = read(v->fd, buf, sizeof(buf));

			if (got > 0) {
				t = now_mono();
				feed(v, buf, (size_t)got, t, phase == WINDOW, stamp_header, &d);
				continue;
			}
			if (got < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			/* The stream ended or failed: this viewer is lost. */
			epoll_ctl(ep, EPOLL_CTL_DEL, v->fd, NULL);
			close(v->fd);
			v->fd = -1;
			v->lost = true;
		}
	}
	qsort(d.v, d.n, sizeof(*d.v), by_value);
	printf("viewers=%d seconds=%.3f cpu_ticks=%llu busy=%llu total=%llu fps=", n, w1 - w0, c1[0] - c0[0],
	       c1[1] - c0[1], c1[2] - c0[2]);
	for (int i = 0; i < n; i++) {
		printf("%s%.3f", i ? "," : "", vs[i].frames / (w1 - w0));
		lost += vs[i].lost;
	}
	printf(" lost=%d delays=%zu", lost, d.n);
	if (d.n)
		printf(" delay_p50_ms=%.2f delay_p99_ms=%.2f delay_max_ms=%.2f", percentile(&d, 50) * 1000,
		       percentile(&d, 99) * 1000, d.v[d.n - 1] * 1000);
	printf("\n");
	for (int i = 0; i < n; i++)
		if (vs[i].fd >= 0)
			close(vs[i].fd);
	free(vs);
	free(d.v);
	if (ep >= 0)
		close(ep);
	return 0;
}
