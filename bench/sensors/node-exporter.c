/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Prometheus' node_exporter (Debian: prometheus-node-exporter) with only its
 * hwmon collector, scraped over one kept-alive HTTP/1.1 connection as
 * Prometheus does. Its CPU is the server's own (utime + stime from
 * /proc/PID/stat, in clock ticks); ours, the client's, is not counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

struct exporter {
	pid_t pid;
	int fd;          /* the kept-alive connection, or -1 */
	char *buf;       /* received, not yet consumed: buf[pos..len) */
	size_t len, pos, size;
	char *body;      /* the last response's body */
	size_t body_len, body_size;
	char log[4096];  /* its stderr, to say why it did not start */
};

static const char *const names[] = { "prometheus-node-exporter", "node_exporter" };

static int find_binary(char *file, size_t size)
{
	const char *path = getenv("PATH");

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
			size_t len = strcspn(p, ":");

			snprintf(file, size, "%.*s/%s", (int)len, p, names[i]);
			if (access(file, X_OK) == 0)
				return 0;
			p += len + (p[len] == ':');
		}
	return -ENOENT;
}

static int connect_to(unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/* Make room and read more; 0 at end of stream. */
static int fill(struct exporter *e)
{
	ssize_t n;

	if (e->pos == e->len)
		e->pos = e->len = 0;
	if (e->len == e->size) {
		size_t size = e->size ? e->size * 2 : 65536;
		char *b = realloc(e->buf, size + 1);
		if (!b)
			return -ENOMEM;
		e->buf = b;
		e->size = size;
	}
	do
		n = read(e->fd, e->buf + e->len, e->size - e->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	e->len += n;
	e->buf[e->len] = '\0';
	return n > 0;
}

/* The next CRLF-terminated line, NUL-terminated in place. */
static int read_line(struct exporter *e, char **ret)
{
	for (;;) {
		char *nl = e->len > e->pos ? memchr(e->buf + e->pos, '\n', e->len - e->pos) : NULL;
		int r;

		if (nl) {
			*ret = e->buf + e->pos;
			e->pos = nl + 1 - e->buf;
			*nl = '\0';
			if (nl > *ret && nl[-1] == '\r')
				nl[-1] = '\0';
			return 0;
		}
		if (e->pos) {
			memmove(e->buf, e->buf + e->pos, e->len - e->pos);
			e->len -= e->pos;
			e->pos = 0;
		}
		r = fill(e);
		if (r <= 0)
			return r < 0 ? r : -EPROTO;
	}
}

/* Count the hwmon samples: every node_hwmon_* line but the two info
 * metrics that carry names, not readings. */
static int count_values(const char *p, size_t n)
{
	const char *end = p + n;
	int count = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!strncmp(p, "node_hwmon_", 11) && strncmp(p, "node_hwmon_chip_names", 21) &&
		    strncmp(p, "node_hwmon_sensor_label", 23))
			count++;
		if (!nl)
			break;
		p = nl + 1;
	}
	return count;
}

/* Append the next n bytes of the stream to e->body. */
static int read_body(struct exporter *e, size_t n)
{
	if (e->body_len + n + 1 > e->body_size) {
		size_t size = (e->body_len + n + 1) * 2;
		char *b = realloc(e->body, size);
		if (!b)
			return -ENOMEM;
		e->body = b;
		e->body_size = size;
	}
	while (n) {
		size_t take;
		int r;

		if (e->pos == e->len) {
			r = fill(e);
			if (r <= 0)
				return r < 0 ? r : -EPROTO;
		}
		take = e->len - e->pos < n ? e->len - e->pos : n;
		memcpy(e->body + e->body_len, e->buf + e->pos, take);
		e->body_len += take;
		e->pos += take;
		n -= take;
	}
	e->body[e->body_len] = '\0';
	return 0;
}

static int scrape(struct variant *v, struct exporter *e)
{
	char req[256], *line;
	long length = -1;
	bool chunked = false, close_after = false;
	int len, r, status;

	if (e->fd < 0) {
		e->fd = connect_to(v->opts->port);
		if (e->fd < 0)
			return e->fd;
		e->pos = e->len = 0;
	}
	e->body_len = 0;
	len = snprintf(req, sizeof(req),
		       "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
		       "User-Agent: hwsight-bench-sensors\r\nAccept: text/plain\r\n\r\n",
		       v->opts->port);
	if (write(e->fd, req, len) != len)
		return -EIO;
	r = read_line(e, &line);
	if (r < 0)
		return r;
	if (sscanf(line, "HTTP/1.%*d %d", &status) != 1 || status != 200) {
		variant_error(v, "GET /metrics: %s", line);
		return -EPROTO;
	}
	for (;;) {
		r = read_line(e, &line);
		if (r < 0)
			return r;
		if (!*line)
			break;
		if (!strncasecmp(line, "Content-Length:", 15))
			length = strtol(line + 15, NULL, 10);
		else if (!strncasecmp(line, "Transfer-Encoding:", 18) && strstr(line, "chunked"))
			chunked = true;
		else if (!strncasecmp(line, "Connection:", 11) && strstr(line, "close"))
			close_after = true;
	}
	if (chunked) {
		for (;;) {
			long n;

			r = read_line(e, &line);
			if (r < 0)
				return r;
			n = strtol(line, NULL, 16);
			if (n <= 0)
				break;
			r = read_body(e, n);
			if (r == 0)
				r = read_line(e, &line);
			if (r < 0)
				return r;
		}
		do /* trailers, then the empty line */
			r = read_line(e, &line);
		while (r == 0 && *line);
		if (r < 0)
			return r;
	} else if (length >= 0) {
		r = read_body(e, length);
		if (r < 0)
			return r;
	} else
		return -EPROTO;
	if (close_after) {
		close(e->fd);
		e->fd = -1;
	}
	return count_values(e->body, e->body_len);
}

static int ne_poll(struct variant *v)
{
	struct exporter *e = v->priv;
	int r = scrape(v, e);

	if (r < 0) {
		if (!v->error[0])
			variant_error(v, "GET http://127.0.0.1:%u/metrics: %s", v->opts->port, strerror(-r));
		if (e->fd >= 0)
			close(e->fd);
		e->fd = -1;
	}
	return r;
}

static void ne_fini(struct variant *v)
{
	struct exporter *e = v->priv;

	if (!e)
		return;
	if (e->fd >= 0)
		close(e->fd);
	if (e->pid > 0) {
		kill(e->pid, SIGTERM);
		waitpid(e->pid, NULL, 0);
	}
	if (e->log[0])
		unlink(e->log);
	free(e->buf);
	free(e->body);
	free(e);
	v->priv = NULL;
}

/* The last line node_exporter logged: why it stopped or did not listen. */
static void last_log_line(const struct exporter *e, char *buf, size_t size)
{
	char line[512];
	FILE *f;

	buf[0] = '\0';
	f = fopen(e->log, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, size, ": %.200s", line);
		}
	fclose(f);
}

static int ne_init(struct variant *v)
{
	char file[4096], listen[64];
	char *argv[] = { file, "--collector.disable-defaults", "--collector.hwmon",
			 "--web.disable-exporter-metrics", listen, NULL };
	posix_spawn_file_actions_t fa;
	struct exporter *e;
	const char *tmp = getenv("TMPDIR");
	char why[300];
	int r, fd, status;

	if (find_binary(file, sizeof(file)) < 0) {
		variant_error(v, "not installed (Debian: prometheus-node-exporter)");
		return -ENOENT;
	}
	/* Someone else on the port would answer our scrapes. */
	fd = connect_to(v->opts->port);
	if (fd >= 0) {
		close(fd);
		variant_error(v, "127.0.0.1:%u is already in use (--port)", v->opts->port);
		return -EADDRINUSE;
	}
	if (fd != -ECONNREFUSED) {
		variant_error(v, "cannot reach 127.0.0.1: %s (is the loopback interface up? ip link set lo up)",
			      strerror(-fd));
		return fd;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fd = -1;
	v->priv = e;
	snprintf(e->log, sizeof(e->log), "%s/hwsight-bench-node-exporter-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(e->log);
	if (fd < 0) {
		r = -errno;
		variant_error(v, "%s: %s", e->log, strerror(-r));
		e->log[0] = '\0';
		ne_fini(v);
		return r;
	}
	snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%u", v->opts->port);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd, STDERR_FILENO);
	r = posix_spawn(&e->pid, file, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	if (r) {
		e->pid = 0;
		variant_error(v, "%s: %s", file, strerror(r));
		ne_fini(v);
		return -r;
	}
	/* Go starts slowly under emulation: give it a minute to listen. */
	for (int i = 0; i < 600; i++) {
		struct timespec ts = { 0, 100000000 };

		if (waitpid(e->pid, &status, WNOHANG) == e->pid) {
			e->pid = 0;
			last_log_line(e, why, sizeof(why));
			variant_error(v, "%s exited with status %d before listening%s", file,
				      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), why);
			ne_fini(v);
			return -EIO;
		}
		fd = connect_to(v->opts->port);
		if (fd >= 0) {
			e->fd = fd;
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	last_log_line(e, why, sizeof(why));
	variant_error(v, "%s did not listen on 127.0.0.1:%u within 60 s%s", file, v->opts->port, why);
	ne_fini(v);
	return -ETIMEDOUT;
}

static int ne_begin(struct variant *v)
{
	int r = ne_poll(v);

	return r < 0 ? r : 0;
}

static int64_t ne_cpu(struct variant *v)
{
	struct exporter *e = v->priv;
	unsigned long long utime, stime;
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)e->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold anything: fields count from its ')'.
	 * After it: state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
		return -1;
	return (int64_t)(utime + stime) * (1000000000 / sysconf(_SC_CLK_TCK));
}

static pid_t ne_pid(struct variant *v)
{
	return ((struct exporter *)v->priv)->pid;
}

const struct variant_ops variant_node_exporter = {
	.name = "node-exporter",
	.what = "GET /metrics of prometheus-node-exporter --collector.disable-defaults "
		"--collector.hwmon --web.disable-exporter-metrics, one kept-alive connection",
	.external = true,
	.init = ne_init,
	.begin = ne_begin,
	.poll = ne_poll,
	.fini = ne_fini,
	.cpu_ns = ne_cpu,
	.server_pid = ne_pid,
};
