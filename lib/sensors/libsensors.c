/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bridge to libsensors: it owns the config (sensors3.conf, sensors.d),
 * so chip names, labels, ignore and compute statements are libsensors' own
 * and users' configs keep working. hwsight never parses that grammar.
 *
 * Compute statements are not readable through libsensors' API, only
 * applicable. The fast reader therefore probes each computed feature once:
 * it hands sensors_get_value() a copy of the chip name whose path points at
 * a private directory holding chosen raw values, and looks at what comes
 * back. A mapping that is affine (nearly all are: "@*12", "(@-0.5)*2") is
 * then applied per poll without a syscall; any other (one that reads other
 * channels, or a non-linear one) stays with libsensors for that feature.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sensors/error.h>

#include "sensors/sensors-internal.h"

/* libsensors reports config errors through process-wide hooks, so they can
 * only reach the one context that exists; they are put back as they were
 * when it goes. */
static struct hws_sensors *current;
static void (*saved_parse_error)(const char *err, int lineno);
static void (*saved_parse_error_wfn)(const char *err, const char *file, int lineno);
static void (*saved_fatal_error)(const char *proc, const char *err);

static void logf_(const struct hws_sensors *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(const struct hws_sensors *s, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!s || !s->opts.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->opts.log(s->opts.log_userdata, msg);
}

/* libsensors reports some config errors and goes on with the rest of the
 * file; hwsight refuses a config with any error, so that a typo never
 * silently drops a label or a compute statement. */
static void parse_error(const char *err, const char *file, int line)
{
	if (!current)
		return;
	current->config_errors++;
	logf_(current, "%s:%d: %s", file ? file : current->config ? current->config : "/etc/sensors3.conf",
	      line, err);
}

static void parse_error_nofile(const char *err, int line)
{
	parse_error(err, NULL, line);
}

/* libsensors' default exits the process; a library must not. It is only
 * called when libsensors cannot allocate memory, where it cannot go on. */
static void fatal_error(const char *proc, const char *err)
{
	logf_(current, "libsensors: %s: %s", proc, err);
	abort();
}

static void restore_hooks(void)
{
	sensors_parse_error = saved_parse_error;
	sensors_parse_error_wfn = saved_parse_error_wfn;
	sensors_fatal_error = saved_fatal_error;
	current = NULL;
}

int hws__libsensors_load(struct hws_sensors *s, bool again)
{
	FILE *f = NULL;
	int r;

	current = s;
	saved_parse_error = sensors_parse_error;
	saved_parse_error_wfn = sensors_parse_error_wfn;
	saved_fatal_error = sensors_fatal_error;
	sensors_parse_error = parse_error_nofile;
	sensors_parse_error_wfn = parse_error;
	sensors_fatal_error = fatal_error;
	/* The first load reads the files, so that errors name them; later
	 * ones (hws_sensors_rescan) read what the first one read. */
	if (again)
		f = fmemopen(s->config_text, s->config_len, "r");
	else if (s->config)
		f = fopen(s->config, "re");
	if (!f && (again || s->config)) {
		r = -errno;
		restore_hooks();
		return r;
	}
	s->config_errors = 0;
	r = sensors_init(f);
	if (f)
		fclose(f);
	if (r || s->config_errors) {
		if (r)
			logf_(s, "libsensors: %s", sensors_strerror(r));
		sensors_cleanup();
		restore_hooks();
		return r == SENSORS_ERR_KERNEL ? -ENODEV : -EINVAL;
	}
	s->libsensors_loaded = true;
	return 0;
}

void hws__libsensors_unload(struct hws_sensors *s)
{
	if (s->libsensors_loaded) {
		sensors_cleanup();
		restore_hooks();
	}
	s->libsensors_loaded = false;
}

/* libsensors divides the file's number by this for a subfeature type:
 * the main value and limits of a channel share its unit, flags do not. */
static double type_scale(sensors_subfeature_type type)
{
	switch (type & 0xff80) {
	case SENSORS_SUBFEATURE_IN_INPUT:
	case SENSORS_SUBFEATURE_TEMP_INPUT:
	case SENSORS_SUBFEATURE_CURR_INPUT:
	case SENSORS_SUBFEATURE_HUMIDITY_INPUT:
		return 1000;
	case SENSORS_SUBFEATURE_FAN_INPUT:
		return 1;
	case SENSORS_SUBFEATURE_POWER_AVERAGE:
	case SENSORS_SUBFEATURE_ENERGY_INPUT:
		return 1000000;
	}
	if (type == SENSORS_SUBFEATURE_VID || type == SENSORS_SUBFEATURE_TEMP_OFFSET)
		return 1000;
	return 1;
}

/* sensors_get_value() loses errno; tell a vanished chip from a bad value. */
static int map_error(const struct hws__chip *chip, const char *attr, int err)
{
	char path[PATH_MAX];

	switch (-err) {
	case SENSORS_ERR_ACCESS_R:
		/* also what libsensors says for a file it cannot parse */
		snprintf(path, sizeof(path), "%s/%s", chip->pub.path, attr);
		return access(path, R_OK) < 0 ? -EACCES : -EINVAL;
	case SENSORS_ERR_IO:
		return -EIO;
	case SENSORS_ERR_NO_ENTRY:
		return -ENOENT;
	default:
		return access(chip->pub.path, F_OK) < 0 ? -ENODEV : -ENODATA;
	}
}

int hws__libsensors_read(struct hws__chip *chip, size_t f, size_t i, double *ret)
{
	int r = sensors_get_value(chip->sensors, chip->features[f].subs[i].sensors_nr, ret);

	return r ? map_error(chip, chip->pub.features[f].subfeatures[i].name, r) : 0;
}

double hws__compute_apply(const struct hws__chip *chip, size_t f, size_t i, double x)
{
	const struct hws__feature_priv *p = &chip->features[f];

	if (p->compute != HWS_COMPUTE_AFFINE || !(chip->pub.features[f].subfeatures[i].flags & HWS_SUB_COMPUTED))
		return x;
	return p->b == 0 ? x * p->a : p->a * x + p->b;
}

static int probe_one(const sensors_chip_name *fake, const char *dir, const sensors_subfeature *ss,
		     double x, double *ret)
{
	char path[PATH_MAX], text[64];
	int fd, len, r;

	if (snprintf(path, sizeof(path), "%s/%s", dir, ss->name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	len = snprintf(text, sizeof(text), "%.0f\n", x * type_scale(ss->type));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = write(fd, text, len) == len ? 0 : -EIO;
	close(fd);
	if (r == 0 && sensors_get_value(fake, ss->number, ret))
		r = -EINVAL;
	unlink(path);
	return r;
}

/* Learn what the config's compute statement (if any) does to a feature. */
static void probe_compute(struct hws__chip *chip, size_t fi, const sensors_subfeature *ss, const char *dir)
{
	static const double xs[] = { 0, 1, 2, -3, 1000 };
	struct hws__feature_priv *p = &chip->features[fi];
	sensors_chip_name fake = *chip->sensors;
	double y[5];
	bool identity = true;

	fake.path = (char *)dir;
	for (size_t k = 0; k < 5; k++) {
		if (probe_one(&fake, dir, ss, xs[k], &y[k]) < 0) {
			p->compute = HWS_COMPUTE_OPAQUE;
			return;
		}
		identity = identity && y[k] == xs[k];
	}
	if (identity) {
		p->compute = HWS_COMPUTE_NONE;
		return;
	}
	p->a = y[1] - y[0];
	p->b = y[0];
	p->compute = HWS_COMPUTE_AFFINE;
	for (size_t k = 2; k < 5; k++)
		if (fabs(p->a * xs[k] + p->b - y[k]) > 1e-9 * fmax(1, fabs(y[k])))
			p->compute = HWS_COMPUTE_OPAQUE;
}

static const sensors_chip_name *find_chip(const char *path)
{
	const sensors_chip_name *name;
	char real[PATH_MAX];
	int nr = 0;

	while ((name = sensors_get_detected_chips(NULL, &nr)))
		if (name->path && realpath(name->path, real) && !strcmp(real, path))
			return name;
	return NULL;
}

/* Our own name for a chip libsensors does not list (a bus it does not
 * know): the same shape, so patterns still have something to match. */
static int fallback_name(struct hws__chip *chip)
{
	char buf[256], link[PATH_MAX], dev[PATH_MAX];
	const char *bus = "virtual", *adapter = "Virtual device";
	unsigned nr = 0, addr = 0;
	ssize_t n;

	snprintf(dev, sizeof(dev), "/sys/class/hwmon/%s/device/subsystem", chip->hwmon);
	n = readlink(dev, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		bus = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		adapter = "Unknown adapter";
	}
	if (!strcmp(bus, "i2c") && sscanf(strrchr(chip->pub.path, '/') + 1, "%u-%x", &nr, &addr) == 2)
		snprintf(buf, sizeof(buf), "%s-i2c-%u-%02x", chip->pub.prefix, nr, addr);
	else if (!strcmp(bus, "platform")) {
		if (sscanf(strrchr(chip->pub.path, '/') + 1, "%*[a-z0-9_].%u", &addr) != 1)
			addr = 0;
		snprintf(buf, sizeof(buf), "%s-isa-%04x", chip->pub.prefix, addr);
		adapter = "ISA adapter";
	} else if (snprintf(buf, sizeof(buf), "%s-%s-0", chip->pub.prefix, bus) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	chip->pub.name = strdup(buf);
	chip->pub.adapter = strdup(adapter);
	return chip->pub.name && chip->pub.adapter ? 0 : -ENOMEM;
}

static ssize_t find_sub(const struct hws_feature *f, const char *name)
{
	for (size_t i = 0; i < f->n_subfeatures; i++)
		if (!strcmp(f->subfeatures[i].name, name))
			return (ssize_t)i;
	return -1;
}

/* Reorder a feature's subfeatures as libsensors lists them, drop the ones
 * it does not show, and mark ours that it does not know as extras. */
static int merge_subfeatures(struct hws__chip *chip, size_t fi, const sensors_feature *sf)
{
	struct hws_feature *f = &chip->pub.features[fi];
	struct hws__feature_priv *p = &chip->features[fi];
	size_t n = f->n_subfeatures, out = 0;
	struct hws_subfeature *subs;
	struct hws__sub_priv *privs;
	const sensors_subfeature *ss;
	bool *taken;
	int nr = 0;

	subs = calloc(n + 1, sizeof(*subs));
	privs = calloc(n + 1, sizeof(*privs));
	taken = calloc(n + 1, sizeof(*taken));
	if (!subs || !privs || !taken) {
		free(subs);
		free(privs);
		free(taken);
		return -ENOMEM;
	}
	while ((ss = sensors_get_all_subfeatures(chip->sensors, sf, &nr))) {
		ssize_t k = find_sub(f, ss->name);

		if (k < 0 || taken[k] || !(ss->flags & SENSORS_MODE_R))
			continue;
		taken[k] = true;
		subs[out] = f->subfeatures[k];
		privs[out] = p->subs[k];
		privs[out].sensors_nr = ss->number;
		privs[out].scale = type_scale(ss->type);
		if (ss->flags & SENSORS_COMPUTE_MAPPING)
			subs[out].flags |= HWS_SUB_COMPUTED;
		out++;
	}
	for (size_t k = 0; k < n; k++) {
		if (taken[k])
			continue;
		subs[out] = f->subfeatures[k];
		subs[out].flags |= HWS_SUB_EXTRA;
		privs[out++] = p->subs[k];
	}
	free(taken);
	free(f->subfeatures);
	free(p->subs);
	f->subfeatures = subs;
	p->subs = privs;
	return 0;
}

/* Kinds libsensors 3.6 lists: one of those missing from its list was
 * ignored by the config. */
static bool libsensors_knows(enum hws_sensor_kind kind)
{
	return kind != HWS_SENSOR_PWM && kind != HWS_SENSOR_LIGHT;
}

static void drop_feature(struct hws__chip *chip, size_t fi)
{
	hws__feature_clear(&chip->pub.features[fi], &chip->features[fi]);
	chip->pub.n_features--;
	memmove(&chip->pub.features[fi], &chip->pub.features[fi + 1],
		(chip->pub.n_features - fi) * sizeof(chip->pub.features[0]));
	memmove(&chip->features[fi], &chip->features[fi + 1],
		(chip->pub.n_features - fi) * sizeof(chip->features[0]));
}

static void swap_features(struct hws__chip *chip, size_t a, size_t b)
{
	struct hws_feature tf = chip->pub.features[a];
	struct hws__feature_priv tp = chip->features[a];

	chip->pub.features[a] = chip->pub.features[b];
	chip->features[a] = chip->features[b];
	chip->pub.features[b] = tf;
	chip->features[b] = tp;
}

int hws__libsensors_merge(struct hws_sensors *s, struct hws__chip *chip)
{
	const sensors_feature *sf;
	char buf[256], dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	bool have_dir = false;
	size_t placed = 0;
	int nr = 0, r = 0;

	chip->sensors = s->libsensors_loaded ? find_chip(chip->pub.path) : NULL;
	if (!chip->sensors)
		return fallback_name(chip);

	if (sensors_snprintf_chip_name(buf, sizeof(buf), chip->sensors) < 0)
		return -EINVAL;
	chip->pub.listed = true;
	chip->pub.name = strdup(buf);
	chip->pub.adapter = strdup(sensors_get_adapter_name(&chip->sensors->bus) ?: "Unknown adapter");
	if (!chip->pub.name || !chip->pub.adapter)
		return -ENOMEM;

	/* libsensors' features first, in its order; what it does not list is
	 * either ignored by the config (dropped) or a kind it does not know
	 * (pwm, light: kept, as extras). */
	while (r == 0 && (sf = sensors_get_features(chip->sensors, &nr))) {
		size_t fi;
		char *label;

		for (fi = placed; fi < chip->pub.n_features; fi++)
			if (!strcmp(chip->pub.features[fi].name, sf->name))
				break;
		if (fi == chip->pub.n_features)
			continue;
		swap_features(chip, placed, fi);
		fi = placed++;
		chip->features[fi].sf = sf;
		r = merge_subfeatures(chip, fi, sf);
		/* sensors -j keys the feature by libsensors' label exactly;
		 * hwsight's own default (w83793's "Vtt") gives way only to a
		 * label libsensors found (config or driver), not to its bare
		 * feature name. */
		label = sensors_get_label(chip->sensors, sf);
		chip->pub.features[fi].sensors_label = label;
		if (!label)
			r = -ENOMEM;
		else if (strcmp(label, sf->name)) {
			free((char *)chip->pub.features[fi].label);
			chip->pub.features[fi].label = strdup(label);
			if (!chip->pub.features[fi].label)
				r = -ENOMEM;
		}
	}
	for (size_t fi = placed; r == 0 && fi < chip->pub.n_features;) {
		if (libsensors_knows(chip->pub.features[fi].kind)) {
			drop_feature(chip, fi);
			continue;
		}
		for (size_t i = 0; i < chip->pub.features[fi].n_subfeatures; i++)
			chip->pub.features[fi].subfeatures[i].flags |= HWS_SUB_EXTRA;
		fi++;
	}
	if (r < 0)
		return r;

	/* Probe compute mappings, once per computed feature. */
	snprintf(dir, sizeof(dir), "%s/hwsight-compute-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	have_dir = mkdtemp(dir) != NULL;
	for (size_t fi = 0; fi < placed; fi++) {
		struct hws_feature *f = &chip->pub.features[fi];
		const sensors_subfeature *ss;
		int k = 0;

		while ((ss = sensors_get_all_subfeatures(chip->sensors, chip->features[fi].sf, &k)))
			if ((ss->flags & SENSORS_COMPUTE_MAPPING) && (ss->flags & SENSORS_MODE_R))
				break;
		if (!ss)
			continue;
		if (have_dir)
			probe_compute(chip, fi, ss, dir);
		else
			chip->features[fi].compute = HWS_COMPUTE_OPAQUE;
		if (chip->features[fi].compute == HWS_COMPUTE_NONE)
			for (size_t i = 0; i < f->n_subfeatures; i++)
				f->subfeatures[i].flags &= ~HWS_SUB_COMPUTED;
	}
	if (have_dir)
		rmdir(dir);
	return 0;
}

int hws_sensors_chip_match(const struct hws_sensors *s, const struct hws_chip *chip, const char *pattern)
{
	const struct hws__chip *c = chip ? hws__chip_of(chip) : NULL;
	const sensors_chip_name *name;
	sensors_chip_name match;
	int nr = 0, r = 0;

	if (!pattern || (chip && !s))
		return -EINVAL;
	if (sensors_parse_chip_name(pattern, &match))
		return -EINVAL;
	if (!chip) {
		sensors_free_chip_name(&match);
		return 0;
	}
	if (c->sensors) {
		while (!r && (name = sensors_get_detected_chips(&match, &nr)))
			r = name == c->sensors;
	} else
		/* Not a libsensors chip: only the exact name or any chip. */
		r = !strcmp(pattern, chip->name) || !strcmp(pattern, "*");
	sensors_free_chip_name(&match);
	return r;
}

int hws_sensors_apply_sets(struct hws_sensors *s, const struct hws_chip *chip)
{
	const struct hws__chip *c;
	int r;

	if (!s || !chip)
		return -EINVAL;
	c = hws__chip_of(chip);
	if (!c->sensors)
		return -EOPNOTSUPP;
	r = sensors_do_chip_sets(c->sensors);
	if (r == 0)
		return 0;
	return r == -SENSORS_ERR_ACCESS_W ? -EACCES : -EIO;
}
