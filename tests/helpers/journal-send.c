/*
 * journal-send FIELD=VALUE|FIELD<FILE... - one journal entry through libsystemd
 *
 * Sends the fields with sd_journal_sendv(), so what reaches
 * /run/systemd/journal/socket is libsystemd's own encoding: a value with a
 * newline goes in the binary form, and a message too big for a datagram
 * goes as a memfd. FIELD<FILE takes the value from FILE, for values longer
 * than a command-line argument may be. Used by test-helpers.sh to check
 * dgram-listen against the real thing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* Only the fields given: no CODE_FILE=journal-send.c and friends. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

static const char *prog = "journal-send";

/* "NAME=" followed by FILE's content, in one allocation. */
static int field_from_file(const char *name, size_t name_len, const char *path, struct iovec *ret)
{
	FILE *f = fopen(path, "re");
	size_t len = name_len + 1, size = len + 4096;
	char *buf;

	if (!f)
		return -errno;
	buf = malloc(size);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	memcpy(buf, name, name_len);
	buf[name_len] = '=';
	for (;;) {
		size_t n;

		if (len == size) {
			char *bigger = realloc(buf, size * 2);

			if (!bigger) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = bigger;
			size *= 2;
		}
		n = fread(buf + len, 1, size - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*ret = (struct iovec){ .iov_base = buf, .iov_len = len };
	return 0;
}

int main(int argc, char **argv)
{
	struct iovec *iov;
	char **owned;
	int n = argc - 1, r, ret = EXIT_FAILURE;

	if (n < 1 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s FIELD=VALUE|FIELD<FILE...\n", prog);
		return 2;
	}
	iov = calloc((size_t)n, sizeof(*iov));
	owned = calloc((size_t)n, sizeof(*owned));
	if (!iov || !owned) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *arg = argv[i + 1];
		size_t name_len = strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		if (name_len > 0 && arg[name_len] == '=')
			iov[i] = (struct iovec){ .iov_base = (void *)arg, .iov_len = strlen(arg) };
		else if (name_len > 0 && arg[name_len] == '<') {
			r = field_from_file(arg, name_len, arg + name_len + 1, &iov[i]);
			if (r < 0) {
				fprintf(stderr, "%s: %s: %s\n", prog, arg + name_len + 1, strerror(-r));
				goto out;
			}
			owned[i] = iov[i].iov_base;
		} else {
			fprintf(stderr, "%s: '%s' is neither FIELD=VALUE nor FIELD<FILE "
				"(FIELD is upper case letters, digits and '_')\n", prog, arg);
			goto out;
		}
	}
	r = sd_journal_sendv(iov, n);
	if (r < 0) {
		fprintf(stderr, "%s: sd_journal_sendv: %s\n", prog, strerror(-r));
		goto out;
	}
	ret = EXIT_SUCCESS;
out:
	if (owned)
		for (int i = 0; i < n; i++)
			free(owned[i]);
	free(owned);
	free(iov);
	return ret;
}
