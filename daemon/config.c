/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsightd.conf: inih splits the file into sections and keys; this file
 * gives them meaning and refuses what makes none, with FILE:LINE.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mem-util.h"

#include "config.h"
#include "config-parse.h"
#include "log.h"


int conf_fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->error) {
		va_start(ap, fmt);
		if (vasprintf(&p->error, fmt, ap) < 0) {
			p->error = NULL;
			p->oom = true;
		}
		va_end(ap);
		p->error_line = p->line;
	}
	return 0;
}

/* Does the line start as a comment? @str holds its first @n bytes. */
static bool is_comment(const char *str, int n)
{
	int i = 0;

	while (i < n && (str[i] == ' ' || str[i] == '\t'))
		i++;
	return i < n && (str[i] == '#' || str[i] == ';');
}

/*
 * inih reads lines through this, so that the handler knows the line. A
 * line reaches inih whole or not at all: inih takes the rest of a line
 * longer than its buffer for a line of its own (the tail of a long exec=
 * would be read as a key), and C strings end at a NUL byte. Such a line is
 * refused here (a long comment is only skipped) and inih gets an empty
 * one, so that its line numbers stay ours.
 */
static char *read_line(char *str, int num, void *stream)
{
	struct parser *p = stream;
	bool nul = false;
	int ch, n = 0;

	ch = getc(p->f);
	if (ch == EOF)
		return NULL;
	p->line++;
	for (; ch != EOF; ch = getc(p->f)) {
		if (ch == '\0')
			nul = true;
		if (n < num - 1)
			str[n] = (char)ch;
		if (n < num)
			n++;
		if (ch == '\n')
			break;
	}
	if (n == num || (n == num - 1 && str[n - 1] != '\n')) {
		if (!is_comment(str, num - 1))
			conf_fail(p, "the line is longer than %d characters", num - 2);
		n = 0;
	} else if (nul) {
		conf_fail(p, "a NUL byte: this is not a text file");
		n = 0;
	}
	if (n == 0)
		str[n++] = '\n';
	str[n] = '\0';
	return str;
}

int hwsd_parse_duration(const char *text, unsigned *ret_ms)
{
	static const struct { const char *unit; double ms; } units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "sec", 1000 },
		{ "min", 60000 }, { "m", 60000 }, { "h", 3600000 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			double ms = v * units[i].ms;

			if (ms > 7 * 24 * 3600000.0)
				return -ERANGE;
			*ret_ms = (unsigned)lround(ms);
			return 0;
		}
	return -EINVAL;
}

static int parse_bool(const char *v)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}

bool conf_is_name(const char *name)
{
	return *name && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
				strlen(name);
}

bool conf_is_chip_pattern(const char *pattern)
{
	/* "*" is every chip, which libsensors spells "*-*". */
	return !strcmp(pattern, "*") || hws_sensors_chip_match(NULL, NULL, pattern) >= 0;
}

int conf_parse_number(const char *v, double *ret)
{
	char *end;

	errno = 0;
	*ret = strtod(v, &end);
	return end != v && !*end && !errno && isfinite(*ret) ? 0 : -EINVAL;
}

int conf_parse_uint(const char *v, unsigned max, unsigned *ret)
{
	char *end;
	unsigned long n;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (*end || errno || n > max)
		return -EINVAL;
	*ret = (unsigned)n;
	return 0;
}

int conf_duration(struct parser *p, const char *name, const char *v, unsigned min_ms,
			unsigned max_ms, bool zero_ok, unsigned *ret)
{
	unsigned ms;

	if (hwsd_parse_duration(v, &ms) < 0)
		return conf_fail(p, "%s: \"%s\" is not a duration (500ms, 2s, 5min, 1h)", name, v);
	if ((ms < min_ms || ms > max_ms) && !(zero_ok && ms == 0))
		return conf_fail(p, "%s: %s is out of range (%u ms to %u ms%s)", name, v, min_ms, max_ms,
			    zero_ok ? ", or 0" : "");
	*ret = ms;
	return 1;
}

int conf_bool(struct parser *p, const char *name, const char *v, bool *ret)
{
	int b = parse_bool(v);

	if (b < 0)
		return conf_fail(p, "%s: \"%s\" is not a boolean (yes or no)", name, v);
	*ret = b;
	return 1;
}

int conf_string(struct parser *p, const char *name, const char *v, char **ret)
{
	char *s;

	if (!*v)
		return conf_fail(p, "%s: empty value", name);
	s = strdup(v);
	if (!s) {
		p->oom = true;
		return 0;
	}
	free(*ret);
	*ret = s;
	return 1;
}

int conf_path(struct parser *p, const char *name, const char *v, const char *what, char **ret)
{
	if (*v != '/')
		return conf_fail(p, "%s: \"%s\" is not %s", name, v, what);
	return conf_string(p, name, v, ret);
}

int conf_word(struct parser *p, const char *name, const char *v, const struct conf_word *words)
{
	const char *listed[8];
	char list[256];
	size_t n = 0, len = 0;

	for (const struct conf_word *w = words; w->word; w++) {
		if (!strcmp(v, w->word))
			return w->value;
		if (w == words || w->value != w[-1].value) {
			assert(n < sizeof(listed) / sizeof(listed[0]));
			listed[n++] = w->word;
		}
	}
	list[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					!i ? "" : i + 1 < n ? ", " : " or ", listed[i]);
	conf_fail(p, "%s: \"%s\" is not %s", name, v, list);
	return -1;
}

CONF_WORD_KEY(conf_reader, enum hws_sensors_reader)
CONF_WORD_KEY(conf_image_type, enum hws_image_type)
CONF_WORD_KEY(conf_chroma, enum hws_image_chroma)

static int daemon_key(struct parser *p, const char *name, const char *v)
{
	static const struct conf_word readers[] = {
		{ "fast", HWS_READER_FAST }, { "pread", HWS_READER_PREAD },
		{ "libsensors", HWS_READER_LIBSENSORS }, { NULL, 0 },
	};
	struct hwsd_config *c = p->c;
	int n;

	if (!strcmp(name, "poll_interval"))
		return conf_duration(p, name, v, 100, 24 * 3600000, false, &c->poll_ms);
	if (!strcmp(name, "reader"))
		return conf_reader(p, name, v, readers, &c->reader);
	if (!strcmp(name, "sensors_config"))
		return conf_string(p, name, v, &c->sensors_config);
	if (!strcmp(name, "state_directory"))
		return conf_path(p, name, v, "an absolute path", &c->state_dir);
	if (!strcmp(name, "exec"))
		return conf_string(p, name, v, &c->exec);
	if (!strcmp(name, "fan_state"))
		return conf_path(p, name, v, "an absolute path", &c->fan_state);
	if (!strcmp(name, "dry_run"))
		return conf_bool(p, name, v, &c->dry_run);
	if (!strcmp(name, "listen")) {
		if (!strcmp(v, "off")) {
			free(c->listen);
			c->listen = NULL;
			return 1;
		}
		if (!strchr(v, ':'))
			return conf_fail(p, "listen: \"%s\" is not ADDRESS:PORT or off", v);
		c->listen_line = p->line;
		return conf_string(p, name, v, &c->listen);
	}
	if (!strcmp(name, "log_target")) {
		n = hwsd_log_target_from_string(v);
		if (n < 0 || n == HWSD_LOG_SYSLOG)
			return conf_fail(p, "log_target: \"%s\" is not auto, journal or stderr", v);
		c->log_target = n;
		return 1;
	}
	if (!strcmp(name, "log_level")) {
		n = hwsd_log_level_from_string(v);
		if (n < 0)
			return conf_fail(p, "log_level: \"%s\" is not debug, info, notice, warning or err", v);
		c->log_level = n;
		return 1;
	}
	return conf_fail(p, "unknown key \"%s\" in [daemon]", name);
}

void *conf_push(struct parser *p, void **array, size_t *n, size_t size)
{
	char *a = realloc(*array, (*n + 1) * size);

	if (!a) {
		p->oom = true;
		return NULL;
	}
	memset(a + *n * size, 0, size);
	*array = a;
	return a + (*n)++ * size;
}

void *conf_section(struct parser *p, void **array, size_t *n, const struct conf_section_kind *kind,
		   const char *name)
{
	char *sections = *array, *section;
	char **section_name;

	for (size_t i = 0; i < *n; i++) {
		/* A struct's first member is where the struct is. */
		section_name = (char **)(sections + i * kind->size);
		if (!strcmp(*section_name, name))
			return section_name;
	}
	if (!kind->valid(name)) {
		conf_fail(p, "[%s %s]: %s", kind->kind, name, kind->invalid);
		return NULL;
	}
	section = conf_push(p, array, n, kind->size);
	if (!section)
		return NULL;
	memcpy(section, kind->defaults, kind->size);
	memcpy(section + kind->line, &p->line, sizeof(p->line));
	section_name = (char **)section;
	if (!(*section_name = strdup(name))) {
		p->oom = true;
		return NULL;
	}
	return section;
}

static const struct conf_section_kind chip_kind = CONF_SECTION_KIND(struct hwsd_chip_conf, "chip",
	conf_is_chip_pattern, "not a chip name pattern (\"w83793-*\", \"applesmc-isa-0300\")",
	.chip_alarms = true, .hysteresis = 2, .hysteresis_percent = true);

static int chip_key(struct parser *p, const char *pattern, const char *name, const char *v)
{
	struct hwsd_chip_conf *chip = conf_section(p, (void **)&p->c->chips, &p->c->n_chips,
						   &chip_kind, pattern);
	struct hwsd_threshold *t;
	const char *dot;
	double limit;

	if (!chip)
		return 0;
	if (!strcmp(name, "poll_interval"))
		return conf_duration(p, name, v, 100, 24 * 3600000, false, &chip->poll_ms);
	if (!strcmp(name, "chip_alarms"))
		return conf_bool(p, name, v, &chip->chip_alarms);
	if (!strcmp(name, "hysteresis")) {
		char *end;

		errno = 0;
		chip->hysteresis = strtod(v, &end);
		chip->hysteresis_percent = *end == '%';
		if (end == v || errno || chip->hysteresis < 0 || !isfinite(chip->hysteresis) ||
		    end[chip->hysteresis_percent] != '\0')
			return conf_fail(p, "hysteresis: \"%s\" is not a number or a percentage", v);
		return 1;
	}
	dot = strrchr(name, '.');
	if (!dot || dot == name || (strcmp(dot, ".min") && strcmp(dot, ".max")))
		return conf_fail(p, "unknown key \"%s\" in [chip %s] (thresholds are FEATURE.min and FEATURE.max)",
			    name, pattern);
	if (conf_parse_number(v, &limit) < 0)
		return conf_fail(p, "%s: \"%s\" is not a number", name, v);
	t = conf_push(p, (void **)&chip->thresholds, &chip->n_thresholds, sizeof(*t));
	if (!t)
		return 0;
	t->is_max = !strcmp(dot, ".max");
	t->limit = limit;
	t->line = p->line;
	if (!(t->feature = strndup(name, (size_t)(dot - name))))
		p->oom = true;
	return !p->oom;
}

/* The name goes into file names and (later) URLs. */
static const struct conf_section_kind camera_kind = CONF_SECTION_KIND(struct hwsd_camera_conf, "camera",
	conf_is_name, "a camera name is letters, digits, '-' and '_'",
	.on_alarm = true, .on_motion = true, .type = HWS_IMAGE_JPEG, .quality = 85,
	.stream_chroma = HWS_IMAGE_CHROMA_420, .skip_frames = 2, .keep = 100);

static int camera_key(struct parser *p, const char *camera, const char *name, const char *v)
{
	static const struct conf_word formats[] = {
		{ "jpg", HWS_IMAGE_JPEG }, { "jpeg", HWS_IMAGE_JPEG }, { "png", HWS_IMAGE_PNG },
		{ "ppm", HWS_IMAGE_PPM }, { NULL, 0 },
	};
	static const struct conf_word chromas[] = {
		{ "420", HWS_IMAGE_CHROMA_420 }, { "source", HWS_IMAGE_CHROMA_SOURCE }, { NULL, 0 },
	};
	struct hwsd_camera_conf *cam = conf_section(p, (void **)&p->c->cameras, &p->c->n_cameras,
						    &camera_kind, camera);
	unsigned n;

	if (!cam)
		return 0;
	if (!strcmp(name, "device"))
		return conf_path(p, name, v, "a device path (/dev/video0)", &cam->device);
	if (!strcmp(name, "directory"))
		return conf_path(p, name, v, "an absolute path", &cam->directory);
	if (!strcmp(name, "size")) {
		unsigned w, h;
		char x;

		if (sscanf(v, "%u%c%u", &w, &x, &h) != 3 || (x != 'x' && x != 'X') || !w || !h ||
		    w > 16384 || h > 16384)
			return conf_fail(p, "size: \"%s\" is not WIDTHxHEIGHT", v);
		cam->width = w;
		cam->height = h;
		return 1;
	}
	if (!strcmp(name, "fps")) {
		struct hws_fract iv, slower, faster;

		if (hws_fps_parse(v, &iv) < 0)
			return conf_fail(p, "fps: \"%s\" is not a frame rate", v);
		if (!hws_interval_is_friendly(iv)) {
			hws_friendly_neighbours(iv, &slower, &faster);
			/* Above 300 fps there is no faster neighbour ({0, 0}). */
			if (!faster.num)
				return conf_fail(p, "fps: %s fps is faster than one 1/300 s tick; at most 300 fps", v);
			return conf_fail(p, "fps: %s fps is not a whole number of 1/300 s ticks; %g or %g fps are",
				    v, (double)slower.den / slower.num, (double)faster.den / faster.num);
		}
		cam->interval = iv;
		return 1;
	}
	if (!strcmp(name, "snapshot_interval"))
		return conf_duration(p, name, v, 1000, 24 * 3600000, true, &cam->snapshot_ms);
	if (!strcmp(name, "snapshot_on_alarm"))
		return conf_bool(p, name, v, &cam->on_alarm);
	if (!strcmp(name, "snapshot_on_motion"))
		return conf_bool(p, name, v, &cam->on_motion);
	if (!strcmp(name, "format"))
		return conf_image_type(p, name, v, formats, &cam->type);
	if (!strcmp(name, "quality")) {
		if (conf_parse_uint(v, 100, &n) < 0 || n < 1)
			return conf_fail(p, "quality: \"%s\" is not 1 to 100", v);
		cam->quality = (int)n;
		return 1;
	}
	if (!strcmp(name, "stream_chroma"))
		return conf_chroma(p, name, v, chromas, &cam->stream_chroma);
	if (!strcmp(name, "skip_frames")) {
		if (conf_parse_uint(v, 100, &cam->skip_frames) < 0)
			return conf_fail(p, "skip_frames: \"%s\" is not 0 to 100", v);
		return 1;
	}
	if (!strcmp(name, "keep")) {
		if (conf_parse_uint(v, 1000000, &cam->keep) < 0)
			return conf_fail(p, "keep: \"%s\" is not a number of files (0 keeps all)", v);
		return 1;
	}
	return conf_fail(p, "unknown key \"%s\" in [camera %s]", name, camera);
}

/* "sda sdb", "sda, sdb", "auto" or "none" (also an empty value). */
static int add_disks(struct parser *p, const char *v)
{
	struct hwsd_motion_conf *m = &p->c->motion;
	const char *s = v, *word = NULL;

	for (size_t i = 0; i < m->n_disks; i++)
		free(m->disks[i]);
	m->n_disks = 0;
	m->auto_disks = false;
	while (*s) {
		size_t len = strcspn(s, " \t,");
		char *disk, **slot;

		if (len) {
			disk = strndup(s, len);
			if (!disk || !(slot = conf_push(p, (void **)&m->disks, &m->n_disks, sizeof(*slot)))) {
				free(disk);
				p->oom = true;
				return 0;
			}
			*slot = disk;
			if (!strcmp(disk, "auto") || !strcmp(disk, "none"))
				word = disk;
			/* A name under /sys/block, never a path. */
			else if (disk[0] == '.' || len > HWSD_DISK_NAME_MAX || strspn(disk, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != len)
				return conf_fail(p, "disks: \"%s\" is not a disk name (sda, nvme0n1), auto or none", disk);
		}
		s += len;
		s += strspn(s, " \t,");
	}
	if (word && m->n_disks > 1)
		return conf_fail(p, "disks: \"%s\" stands alone, without disk names", word);
	if (word) {
		m->auto_disks = !strcmp(word, "auto");
		free(m->disks[0]);
		m->n_disks = 0;
	}
	return 1;
}

static int motion_key(struct parser *p, const char *name, const char *v)
{
	struct hwsd_motion_conf *m = &p->c->motion;

	if (!strcmp(name, "enabled"))
		return conf_bool(p, name, v, &m->enabled);
	if (!strcmp(name, "sensitivity")) {
		if (conf_parse_uint(v, 1000, &m->sensitivity) < 0 || !m->sensitivity)
			return conf_fail(p, "sensitivity: \"%s\" is not 1 to 1000", v);
		return 1;
	}
	if (!strcmp(name, "interval"))
		return conf_duration(p, name, v, 10, 1000, false, &m->interval_ms);
	if (!strcmp(name, "disks"))
		return add_disks(p, v);
	if (!strcmp(name, "park_time"))
		/* The kernel refuses more than 30 s in unload_heads. */
		return conf_duration(p, name, v, 1000, 30000, false, &m->park_ms);
	return conf_fail(p, "unknown key \"%s\" in [motion]", name);
}

static int history_key(struct parser *p, const char *name, const char *v)
{
	unsigned ms;

	if (!strcmp(name, "flush_interval")) {
		if (hwsd_parse_duration(v, &ms) < 0)
			return conf_fail(p, "flush_interval: \"%s\" is not a duration (300, 5min, 1h) or 0", v);
		/* Whole seconds: the bursts follow the polls' time stamps. */
		if (ms % 1000 || ms > 24 * 3600000)
			return conf_fail(p, "flush_interval: %s is not 0 or whole seconds up to 1 day", v);
		p->c->history_flush_s = ms / 1000;
		return 1;
	}
	return conf_fail(p, "unknown key \"%s\" in [history]", name);
}

static int http_key(struct parser *p, const char *name, const char *v)
{
	struct hwsd_http_conf *h = &p->c->http;

	if (!strcmp(name, "tls_cert_file")) {
		h->tls_cert_line = p->line;
		return conf_path(p, name, v, "an absolute path", &h->tls_cert_file);
	}
	if (!strcmp(name, "tls_key_file")) {
		h->tls_key_line = p->line;
		return conf_path(p, name, v, "an absolute path", &h->tls_key_file);
	}
	if (!strcmp(name, "basic_auth_users")) {
		h->basic_auth_users_line = p->line;
		return conf_path(p, name, v, "an absolute path", &h->basic_auth_users);
	}
	if (!strcmp(name, "cameras_without_auth"))
		return conf_bool(p, name, v, &h->cameras_without_auth);
	return conf_fail(p, "unknown key \"%s\" in [http]", name);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parser *p = user;

	if (p->error || p->oom)
		return 0;
	if (!strcmp(section, "daemon"))
		return daemon_key(p, name, value);
	if (!strncmp(section, "chip ", 5))
		return chip_key(p, section + 5 + strspn(section + 5, " "), name, value);
	if (!strncmp(section, "camera ", 7))
		return camera_key(p, section + 7 + strspn(section + 7, " "), name, value);
	if (!strcmp(section, "motion"))
		return motion_key(p, name, value);
	if (!strcmp(section, "history"))
		return history_key(p, name, value);
	if (!strcmp(section, "http"))
		return http_key(p, name, value);
	if (!strncmp(section, "fan ", 4))
		return conf_fan_key(p, section + 4 + strspn(section + 4, " "), name, value);
	if (!*section)
		return conf_fail(p, "\"%s\" is outside a section ([daemon], [chip PATTERN], [camera NAME], [motion], [history], [fan NAME], [http])", name);
	return conf_fail(p, "unknown section [%s]", section);
}

int hwsd_listen_is_loopback(const char *listen)
{
	char host[INET6_ADDRSTRLEN];
	const char *end;
	struct in6_addr a6;
	struct in_addr a4;
	size_t len;

	if (listen[0] == '[') {
		listen++;
		end = strchr(listen, ']');
	} else
		end = strrchr(listen, ':');
	if (!end || (len = (size_t)(end - listen)) >= sizeof(host))
		return -EINVAL;
	memcpy(host, listen, len);
	host[len] = '\0';
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return -EINVAL;
}

bool hwsd_config_exposed_cameras(const struct hwsd_config *c, const char *listen)
{
	/* An address that is none is refused when the server starts. */
	return listen && strcmp(listen, "off") && c->n_cameras && !c->http.basic_auth_users &&
	       !c->http.cameras_without_auth && hwsd_listen_is_loopback(listen) == 0;
}

/* TLS takes a certificate and its key; cameras beyond this machine take a
 * password, or the config's word that they need none. */
static void check_http(struct parser *p)
{
	const struct hwsd_http_conf *h = &p->c->http;

	if (p->error)
		return;
	if (!h->tls_cert_file != !h->tls_key_file) {
		p->line = h->tls_cert_file ? h->tls_cert_line : h->tls_key_line;
		conf_fail(p, "%s without %s: TLS needs both the certificate and its key",
			  h->tls_cert_file ? "tls_cert_file" : "tls_key_file",
			  h->tls_cert_file ? "tls_key_file" : "tls_cert_file");
		return;
	}
	if (hwsd_config_exposed_cameras(p->c, p->c->listen)) {
		p->line = p->c->listen_line;
		conf_fail(p, "listen = %s serves the cameras' frames to every machine that can reach it; "
			  "set [http] basic_auth_users (and tls_cert_file, tls_key_file), listen on 127.0.0.1, "
			  "or say [http] cameras_without_auth = yes", p->c->listen);
	}
}

/* What no single key can say. */
static void check(struct parser *p)
{
	for (size_t i = 0; i < p->c->n_cameras && !p->error; i++) {
		struct hwsd_camera_conf *cam = &p->c->cameras[i];

		p->line = cam->line;
		if (!cam->device)
			conf_fail(p, "[camera %s]: no device", cam->name);
	}
	for (size_t i = 0; i < p->c->n_fans && !p->error; i++)
		conf_fan_check(p, &p->c->fans[i]);
	check_http(p);
}

static struct hwsd_config *config_new(void)
{
	struct hwsd_config *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->poll_ms = 2000;
	c->reader = HWS_READER_PREAD;
	c->log_target = HWSD_LOG_AUTO;
	c->log_level = LOG_INFO;
	/* Local only, unless the config says otherwise. */
	c->listen = strdup("127.0.0.1:9787");
	c->fan_state = strdup(HWSD_DEFAULT_FAN_STATE);
	if (!c->listen || !c->fan_state) {
		free(c->listen);
		free(c->fan_state);
		free(c);
		return NULL;
	}
	c->motion.sensitivity = 15;
	c->motion.interval_ms = 20;
	c->motion.park_ms = 5000;
	c->motion.auto_disks = true;
	/* Twelve bursts an hour: the disk may sleep in between. */
	c->history_flush_s = 300;
	return c;
}

int hwsd_config_parse(FILE *f, const char *name, struct hwsd_config **ret_config, char **ret_error)
{
	struct parser p = { .f = f };
	int line, r;

	p.c = config_new();
	if (!p.c)
		return -ENOMEM;
	if (!(p.c->path = strdup(name))) {
		r = -ENOMEM;
		goto fail;
	}
	line = ini_parse_stream(read_line, &p, handler, &p);
	if (line == -2 || p.oom) {
		r = -ENOMEM;
		goto fail;
	}
	if (line == -1 || ferror(p.f)) {
		r = -EIO;
		goto fail;
	}
	if (!p.error)
		check(&p);
	if (line > 0 && (!p.error || (unsigned)line < p.error_line)) {
		/* inih itself refused an earlier line. */
		free(p.error);
		p.error_line = (unsigned)line;
		if (!(p.error = strdup("not a [section] or a key = value line"))) {
			r = -ENOMEM;
			goto fail;
		}
	}
	if (p.error) {
		if (ret_error && asprintf(ret_error, "%s:%u: %s", name, p.error_line, p.error) < 0)
			*ret_error = NULL;
		r = -EINVAL;
		goto fail;
	}
	*ret_config = p.c;
	return 0;
fail:
	free(p.error);
	hwsd_config_free(p.c);
	return r;
}

int hwsd_config_load(const char *path, struct hwsd_config **ret_config, char **ret_error)
{
	struct hwsd_config *c;
	FILE *f;
	int r;

	if (!path) {
		c = config_new();
		if (!c)
			return -ENOMEM;
		*ret_config = c;
		return 0;
	}
	f = fopen(path, "re");
	if (!f)
		return -errno;
	r = hwsd_config_parse(f, path, ret_config, ret_error);
	fclose(f);
	return r;
}

struct hwsd_config *hwsd_config_free(struct hwsd_config *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_chips; i++) {
		for (size_t t = 0; t < c->chips[i].n_thresholds; t++)
			free(c->chips[i].thresholds[t].feature);
		hws__free_all(c->chips[i].thresholds, c->chips[i].pattern);
	}
	for (size_t i = 0; i < c->n_cameras; i++)
		hws__free_all(c->cameras[i].name, c->cameras[i].device, c->cameras[i].directory);
	for (size_t i = 0; i < c->motion.n_disks; i++)
		free(c->motion.disks[i]);
	for (size_t i = 0; i < c->n_fans; i++)
		conf_fan_free(&c->fans[i]);
	hws__free_all(c->chips, c->cameras, c->motion.disks, c->fans);
	hws__free_all(c->path, c->sensors_config, c->state_dir, c->exec, c->listen, c->fan_state);
	hws__free_all(c->http.tls_cert_file, c->http.tls_key_file, c->http.basic_auth_users, c);
	return NULL;
}

const struct hwsd_chip_conf *hwsd_config_chip(const struct hwsd_config *c,
					      const struct hws_sensors *s,
					      const struct hws_chip *chip)
{
	for (size_t i = 0; i < c->n_chips; i++)
		if (!strcmp(c->chips[i].pattern, "*") ||
		    hws_sensors_chip_match(s, chip, c->chips[i].pattern) > 0)
			return &c->chips[i];
	return NULL;
}
