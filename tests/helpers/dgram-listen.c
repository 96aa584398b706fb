/*
 * dgram-listen PATH - print what arrives on an AF_UNIX datagram socket
 *
 * A stand-in for the two datagram sockets a service talks to: the one in
 * $NOTIFY_SOCKET (sd_notify) and /run/systemd/journal/socket (journald's
 * native protocol). The tests bind it where the daemon under test will send,
 * and read back what the daemon said.
 *
 * Output, on stdout and flushed after each datagram: one "FIELD=value" line
 * per field, then an empty line. Both protocols are lists of FIELD=value
 * lines; journald's also has a binary form for values that contain
 * newlines (FIELD, '\n', a 64-bit little-endian length, the data, '\n'),
 * which is decoded here. In printed values a newline is written "\n", a
 * backslash "\\" and any other control byte "\xHH", so a record never
 * spans more lines than it has fields. A native message that holds several
 * entries (separated by an empty line) prints as several records.
 *
 * File descriptors passed along with a datagram are closed once it is
 * printed: sd_notify_barrier() waits for exactly that. An empty datagram
 * carrying a descriptor is how sd_journal_send() delivers a message too big
 * for one datagram (a sealed memfd), so then the file's content is the
 * payload.
 *
 * "ready" is printed once the socket is bound. SIGTERM or SIGINT unlinks
 * PATH and exits 0.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The kernel's SCM_MAX_FD: more never arrive in one message. */
#define MAX_FDS 253

static const char *prog = "dgram-listen";

static void put_escaped(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\\')
			fputs("\\\\", stdout);
		else if (c < 0x20 || c == 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static void put_field(const char *name, size_t name_len, const char *value, size_t value_len)
{
	put_escaped(name, name_len);
	putchar('=');
	put_escaped(value, value_len);
	putchar('\n');
}

static uint64_t read_le64(const char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | (unsigned char)p[i];
	return v;
}

/*
 * Print one payload. A line without '=' is a binary field if a length and
 * a '\n'-terminated value follow it; otherwise (a malformed message, or an
 * sd_notify line that is not an assignment) it is printed as it is.
 */
static void print_payload(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	bool in_record = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(line_end - p));

		if (line_end == p) {
			/* An empty line ends an entry of the native protocol. */
			if (in_record)
				putchar('\n');
			in_record = false;
			p++;
			continue;
		}
		in_record = true;
		if (eq) {
			put_field(p, (size_t)(eq - p), eq + 1, (size_t)(line_end - eq - 1));
			p = nl ? nl + 1 : end;
			continue;
		}
		if (nl && (size_t)(end - nl - 1) >= 8) {
			const char *data = nl + 1 + 8;
			uint64_t n = read_le64(nl + 1);

			if (n < (uint64_t)(end - data) && data[n] == '\n') {
				put_field(p, (size_t)(line_end - p), data, (size_t)n);
				p = data + n + 1;
				continue;
			}
		}
		put_escaped(p, (size_t)(line_end - p));
		putchar('\n');
		p = nl ? nl + 1 : end;
	}
	putchar('\n');
}

/* The whole content of a passed file, from offset 0 whatever its position. */
static int read_fd_content(int fd, char **ret_buf, size_t *ret_len)
{
	struct stat st;
	size_t size, len = 0;
	char *buf;

	if (fstat(fd, &st) < 0)
		return -errno;
	size = st.st_size > 0 ? (size_t)st.st_size : 4096;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == size) {
			char *bigger = realloc(buf, size * 2);

			if (!bigger) {
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
			size *= 2;
		}
		n = pread(fd, buf + len, size - len, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

static int receive_one(int sock)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
	} control;
	int fds[MAX_FDS];
	size_t n_fds = 0;
	struct msghdr mh = { 0 };
	struct iovec iov;
	ssize_t size, n;
	char *buf;

	/* Learn the datagram's size first; no control buffer, so a peek
	 * installs no descriptors. */
	size = recv(sock, NULL, 0, MSG_PEEK | MSG_TRUNC);
	if (size < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	buf = malloc((size_t)size + 1);
	if (!buf)
		return -ENOMEM;
	iov = (struct iovec){ .iov_base = buf, .iov_len = (size_t)size + 1 };
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control.buf;
	mh.msg_controllen = sizeof(control.buf);
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0) {
		int r = errno == EINTR || errno == EAGAIN ? 0 : -errno;

		free(buf);
		return r;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; i < k && n_fds < MAX_FDS; i++)
			memcpy(&fds[n_fds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}

	if (n == 0 && n_fds > 0) {
		char *content = NULL;
		size_t len = 0;
		int q = read_fd_content(fds[0], &content, &len);

		/* A file that cannot be read loses this message, not the run. */
		if (q < 0)
			fprintf(stderr, "%s: cannot read the file passed with an empty datagram: %s\n",
				prog, strerror(-q));
		else {
			print_payload(content, len);
			free(content);
		}
	} else
		print_payload(buf, (size_t)n);
	free(buf);

	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	if (fflush(stdout) != 0)
		return -errno;
	return 0;
}

static int bind_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: %s: path too long for a socket (at most %zu bytes)\n",
			prog, path, sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(sa.sun_path, path);

	/* A socket left by a previous run goes; anything else stays. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "%s: %s: exists and is not a socket; not removing it\n", prog, path);
			return -1;
		}
		if (unlink(path) < 0) {
			fprintf(stderr, "%s: %s: cannot remove the stale socket: %m\n", prog, path);
			return -1;
		}
	}

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "%s: socket: %m\n", prog);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "%s: %s: cannot bind: %m\n", prog, path);
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	sigset_t mask;
	int sock, sfd, ret = EXIT_SUCCESS;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s PATH\n"
			"Bind an AF_UNIX datagram socket at PATH and print each datagram\n"
			"(sd_notify or journald native protocol) as FIELD=value lines\n"
			"followed by an empty line, until SIGTERM or SIGINT.\n", prog);
		return argc == 2 && strcmp(argv[1], "--help") == 0 ? EXIT_SUCCESS : 2;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		fprintf(stderr, "%s: sigprocmask: %m\n", prog);
		return EXIT_FAILURE;
	}
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "%s: signalfd: %m\n", prog);
		return EXIT_FAILURE;
	}
	/* A reader that went away is reported by the write, not by a signal. */
	signal(SIGPIPE, SIG_IGN);

	sock = bind_socket(argv[1]);
	if (sock < 0) {
		close(sfd);
		return EXIT_FAILURE;
	}
	if (puts("ready") == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "%s: stdout: %m\n", prog);
		ret = EXIT_FAILURE;
		goto out;
	}

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = sock, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int r;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: poll: %m\n", prog);
			ret = EXIT_FAILURE;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[0].revents) {
			r = receive_one(sock);
			if (r < 0) {
				fprintf(stderr, "%s: %s: %s\n", prog, argv[1], strerror(-r));
				ret = EXIT_FAILURE;
				break;
			}
		}
	}
out:
	close(sock);
	close(sfd);
	if (unlink(argv[1]) < 0 && errno != ENOENT) {
		fprintf(stderr, "%s: %s: cannot remove: %m\n", prog, argv[1]);
		ret = EXIT_FAILURE;
	}
	return ret;
}
