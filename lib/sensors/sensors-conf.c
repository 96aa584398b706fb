/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sensors config as it stood when a context was made. libsensors
 * learns the chips in sensors_init(), so a context loads it again whenever
 * the set of chips changes; it must then read the statements it accepted
 * at the start, not what the files hold now, or a sensors.conf broken
 * since would drop every chip at the next hotplug. A new context reads the
 * files again.
 *
 * The default config is what libsensors 3.6 reads without one:
 * /etc/sensors3.conf (or, missing that, /etc/sensors.conf), then every
 * regular file in /etc/sensors.d whose name does not start with a dot, in
 * alphabetical order. A file starts no new scope in its grammar, so the
 * files read one after the other are the same statements.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memstream-util.h"
#include "sensors/sensors-internal.h"

#define ETC_CONFIG     "/etc/sensors3.conf"
#define ETC_CONFIG_OLD "/etc/sensors.conf"
#define ETC_CONFIG_DIR "/etc/sensors.d"

/* Append the file at @path, and a newline in case it lacks one. */
static int append_file(FILE *out, const char *path)
{
	char buf[8192];
	size_t n;
	FILE *in;
	int r = 0;

	in = fopen(path, "re");
	if (!in)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			r = -ENOMEM;
			break;
		}
	if (r == 0 && ferror(in))
		r = -EIO;
	fclose(in);
	if (r == 0 && fputc('\n', out) == EOF)
		r = -ENOMEM;
	return r;
}

static int config_file(const struct dirent *e)
{
	char path[sizeof(ETC_CONFIG_DIR) + sizeof(e->d_name) + 1];
	struct stat st;

	if (e->d_name[0] == '.')
		return 0;
	snprintf(path, sizeof(path), "%s/%s", ETC_CONFIG_DIR, e->d_name);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int append_default(FILE *out)
{
	struct dirent **names;
	int n, r;

	r = append_file(out, ETC_CONFIG);
	if (r == -ENOENT)
		r = append_file(out, ETC_CONFIG_OLD);
	if (r < 0 && r != -ENOENT)
		return r;
	n = scandir(ETC_CONFIG_DIR, &names, config_file, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	r = 0;
	for (int i = 0; i < n; i++) {
		char path[sizeof(ETC_CONFIG_DIR) + sizeof(names[i]->d_name) + 1];

		snprintf(path, sizeof(path), "%s/%s", ETC_CONFIG_DIR, names[i]->d_name);
		if (r == 0)
			r = append_file(out, path);
		free(names[i]);
	}
	free(names);
	return r;
}

/* @path's statements, or the default config's (NULL), into @out. */
static int write_snapshot(FILE *out, void *path)
{
	int r = path ? append_file(out, path) : append_default(out);

	/* fmemopen() wants a buffer of at least one byte. */
	if (r == 0 && ftell(out) == 0 && fputc('\n', out) == EOF)
		r = -ENOMEM;
	return r;
}

int hws__sensors_conf_snapshot(const char *path, char **ret_text, size_t *ret_len)
{
	return hws__memstream_write(write_snapshot, (void *)path, ret_text, ret_len);
}
