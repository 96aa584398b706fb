/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Discovery of hwmon chips and classification of their attributes by the
 * kernel's hwmon sysfs ABI (Documentation/hwmon/sysfs-interface.rst),
 * from sysfs alone. libsensors.c then lays the config over what is found.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io-util.h"
#include "sensors/sensors-internal.h"
#include "sysfs-util.h"

#define HWMON_CLASS "/sys/class/hwmon"

/* Channel prefixes with a number ("temp1_input"), in libsensors' order. */
static const struct {
	const char *prefix;
	enum hws_sensor_kind kind;
	double scale; /* of the input and the limits */
} kinds[] = {
	{ "in", HWS_SENSOR_IN, 1000 },
	{ "fan", HWS_SENSOR_FAN, 1 },
	{ "temp", HWS_SENSOR_TEMP, 1000 },
	{ "power", HWS_SENSOR_POWER, 1000000 },
	{ "energy", HWS_SENSOR_ENERGY, 1000000 },
	{ "curr", HWS_SENSOR_CURR, 1000 },
	{ "humidity", HWS_SENSOR_HUMIDITY, 1000 },
	{ "intrusion", HWS_SENSOR_INTRUSION, 1 },
	{ "pwm", HWS_SENSOR_PWM, 1 },
};

/* Attribute suffixes. Order of the enum, which is the order shown. */
static const char *const item_suffix[HWS_ITEM_MAX_ITEM] = {
	[HWS_ITEM_INPUT] = "input",
	[HWS_ITEM_MIN] = "min",
	[HWS_ITEM_MAX] = "max",
	[HWS_ITEM_LCRIT] = "lcrit",
	[HWS_ITEM_CRIT] = "crit",
	[HWS_ITEM_EMERGENCY] = "emergency",
	[HWS_ITEM_MIN_HYST] = "min_hyst",
	[HWS_ITEM_MAX_HYST] = "max_hyst",
	[HWS_ITEM_LCRIT_HYST] = "lcrit_hyst",
	[HWS_ITEM_CRIT_HYST] = "crit_hyst",
	[HWS_ITEM_EMERGENCY_HYST] = "emergency_hyst",
	[HWS_ITEM_AVERAGE] = "average",
	[HWS_ITEM_LOWEST] = "lowest",
	[HWS_ITEM_HIGHEST] = "highest",
	[HWS_ITEM_ALARM] = "alarm",
	[HWS_ITEM_MIN_ALARM] = "min_alarm",
	[HWS_ITEM_MAX_ALARM] = "max_alarm",
	[HWS_ITEM_LCRIT_ALARM] = "lcrit_alarm",
	[HWS_ITEM_CRIT_ALARM] = "crit_alarm",
	[HWS_ITEM_EMERGENCY_ALARM] = "emergency_alarm",
	[HWS_ITEM_FAULT] = "fault",
	[HWS_ITEM_BEEP] = "beep",
	[HWS_ITEM_TYPE] = "type",
	[HWS_ITEM_ENABLE] = "enable",
	[HWS_ITEM_OFFSET] = "offset",
	[HWS_ITEM_DIV] = "div",
	[HWS_ITEM_MODE] = "mode",
	[HWS_ITEM_TARGET] = "target",
};

static const char *const kind_names[HWS_SENSOR_KIND_MAX] = {
	[HWS_SENSOR_IN] = "in", [HWS_SENSOR_FAN] = "fan", [HWS_SENSOR_TEMP] = "temp",
	[HWS_SENSOR_POWER] = "power", [HWS_SENSOR_ENERGY] = "energy",
	[HWS_SENSOR_CURR] = "curr", [HWS_SENSOR_HUMIDITY] = "humidity",
	[HWS_SENSOR_VID] = "vid", [HWS_SENSOR_INTRUSION] = "intrusion",
	[HWS_SENSOR_BEEP_ENABLE] = "beep_enable", [HWS_SENSOR_PWM] = "pwm",
	[HWS_SENSOR_LIGHT] = "light",
};

static const char *const kind_units[HWS_SENSOR_KIND_MAX] = {
	[HWS_SENSOR_IN] = "V", [HWS_SENSOR_FAN] = "RPM", [HWS_SENSOR_TEMP] = "°C",
	[HWS_SENSOR_POWER] = "W", [HWS_SENSOR_ENERGY] = "J", [HWS_SENSOR_CURR] = "A",
	[HWS_SENSOR_HUMIDITY] = "%RH", [HWS_SENSOR_VID] = "V",
	[HWS_SENSOR_INTRUSION] = "", [HWS_SENSOR_BEEP_ENABLE] = "", [HWS_SENSOR_PWM] = "",
	[HWS_SENSOR_LIGHT] = "",
};

const char *hws_sensor_kind_name(enum hws_sensor_kind kind)
{
	return (unsigned)kind < HWS_SENSOR_KIND_MAX ? kind_names[kind] : NULL;
}

const char *hws_sensor_unit(enum hws_sensor_kind kind)
{
	return (unsigned)kind < HWS_SENSOR_KIND_MAX ? kind_units[kind] : "";
}

const struct hws_subfeature *hws_subfeature_find(const struct hws_feature *feature,
						 enum hws_sensor_item item)
{
	if (!feature)
		return NULL;
	for (size_t i = 0; i < feature->n_subfeatures; i++)
		if (feature->subfeatures[i].item == item)
			return &feature->subfeatures[i];
	return NULL;
}

bool hws__item_is_live(enum hws_sensor_item item)
{
	switch (item) {
	case HWS_ITEM_INPUT:
	case HWS_ITEM_AVERAGE:
	case HWS_ITEM_LOWEST:
	case HWS_ITEM_HIGHEST:
	case HWS_ITEM_ALARM:
	case HWS_ITEM_MIN_ALARM:
	case HWS_ITEM_MAX_ALARM:
	case HWS_ITEM_LCRIT_ALARM:
	case HWS_ITEM_CRIT_ALARM:
	case HWS_ITEM_EMERGENCY_ALARM:
	case HWS_ITEM_FAULT:
		return true;
	default:
		return false;
	}
}

/*
 * Attribute values are decimal numbers, integers in practice. libsensors
 * reads them with fscanf("%lf"), which stops at the first bad character;
 * we refuse trailing garbage instead, so "12abc" is an error, not 12.
 */
int hws__parse_value(const char *text, double *ret)
{
	char *end;
	double v;

	text = hws__skip_blanks(text);
	errno = 0;
	v = strtod(text, &end);
	if (end == text || !hws__blank_tail(end) || !isfinite(v))
		return -EINVAL;
	/* Drivers print C longs: anything beyond is garbage, not a value. */
	if (errno == ERANGE || fabs(v) > 9223372036854775807.0)
		return -ERANGE;
	*ret = v;
	return 0;
}

/* applesmc's light sensors print "(left,right)"; @index picks one. */
int hws__parse_tuple(const char *text, int index, double *ret)
{
	long v[2];
	char *end;

	if (*text != '(')
		return -EINVAL;
	text++;
	for (int k = 0; k < 2; k++) {
		errno = 0;
		v[k] = strtol(text, &end, 10);
		if (end == text || (*end != (k ? ')' : ',')))
			return -EINVAL;
		if (errno == ERANGE)
			return -ERANGE;
		text = end + 1;
	}
	while (*text == '\n' || *text == ' ')
		text++;
	if (*text || index < 0 || index > 1)
		return -EINVAL;
	*ret = (double)v[index];
	return 0;
}

int hws__attr_classify(const char *name, struct hws__attr_class *c)
{
	const char *rest;
	char *end;

	memset(c, 0, sizeof(*c));
	c->scale = 1;
	if (!strcmp(name, "beep_enable")) {
		c->kind = HWS_SENSOR_BEEP_ENABLE;
		strcpy(c->feature, name);
		c->item = HWS_ITEM_INPUT;
		return 0;
	}
	if (!strncmp(name, "cpu", 3) && strstr(name, "_vid")) {
		long n = strtol(name + 3, &end, 10);
		if (end == name + 3 || strcmp(end, "_vid") || n < 0)
			return -EINVAL;
		c->kind = HWS_SENSOR_VID;
		if (strlen(name) >= sizeof(c->feature))
			return -EINVAL;
		strcpy(c->feature, name);
		c->item = HWS_ITEM_INPUT;
		c->scale = 1000;
		return 0;
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t len = strlen(kinds[k].prefix);
		long n;

		if (strncmp(name, kinds[k].prefix, len) || name[len] < '0' || name[len] > '9')
			continue;
		n = strtol(name + len, &end, 10);
		if (n < 0 || n > 9999)
			return -EINVAL;
		c->kind = kinds[k].kind;
		snprintf(c->feature, sizeof(c->feature), "%s%ld", kinds[k].prefix, n);
		if (*end == '\0' && c->kind == HWS_SENSOR_PWM) {
			c->item = HWS_ITEM_INPUT; /* "pwm1" is the duty cycle itself */
			return 0;
		}
		if (*end != '_')
			return -EINVAL;
		rest = end + 1;
		if (!strcmp(rest, "label")) {
			c->is_label = true;
			return 0;
		}
		c->item = HWS_ITEM_OTHER;
		for (int i = 0; i < HWS_ITEM_OTHER; i++)
			if (!strcmp(rest, item_suffix[i]))
				c->item = i;
		/* Alarms, beeps, faults, types and modes are flags, never scaled;
		 * the rest share the channel's unit (the ABI's millivolts ...). */
		switch (c->item) {
		case HWS_ITEM_ALARM: case HWS_ITEM_MIN_ALARM: case HWS_ITEM_MAX_ALARM:
		case HWS_ITEM_LCRIT_ALARM: case HWS_ITEM_CRIT_ALARM:
		case HWS_ITEM_EMERGENCY_ALARM: case HWS_ITEM_FAULT: case HWS_ITEM_BEEP:
		case HWS_ITEM_TYPE: case HWS_ITEM_ENABLE: case HWS_ITEM_MODE:
		case HWS_ITEM_DIV: case HWS_ITEM_OTHER:
			break;
		default:
			c->scale = kinds[k].scale;
		}
		return 0;
	}
	return -EINVAL;
}

static int kind_rank(enum hws_sensor_kind kind)
{
	/* libsensors' order: in, fan, temp, power, energy, curr, humidity,
	 * vid, intrusion, beep_enable; pwm, unknown to it, last. */
	static const int rank[HWS_SENSOR_KIND_MAX] = {
		[HWS_SENSOR_IN] = 0, [HWS_SENSOR_FAN] = 1, [HWS_SENSOR_TEMP] = 2,
		[HWS_SENSOR_POWER] = 3, [HWS_SENSOR_ENERGY] = 4, [HWS_SENSOR_CURR] = 5,
		[HWS_SENSOR_HUMIDITY] = 6, [HWS_SENSOR_VID] = 7, [HWS_SENSOR_INTRUSION] = 8,
		[HWS_SENSOR_BEEP_ENABLE] = 9, [HWS_SENSOR_PWM] = 10, [HWS_SENSOR_LIGHT] = 11,
	};
	return rank[kind];
}

static long feature_number(const char *name)
{
	while (*name && (*name < '0' || *name > '9'))
		name++;
	return strtol(name, NULL, 10);
}

static int feature_cmp(const void *a, const void *b)
{
	const struct hws_feature *fa = a, *fb = b;

	if (fa->kind != fb->kind)
		return kind_rank(fa->kind) - kind_rank(fb->kind);
	return (int)(feature_number(fa->name) - feature_number(fb->name));
}

static int sub_cmp(const void *a, const void *b)
{
	const struct hws_subfeature *sa = a, *sb = b;

	if (sa->item != sb->item)
		return (int)sa->item - (int)sb->item;
	return strcmp(sa->name, sb->name);
}

void hws__feature_clear(struct hws_feature *f, struct hws__feature_priv *p)
{
	for (size_t i = 0; i < f->n_subfeatures; i++) {
		free((char *)f->subfeatures[i].name);
		if (p && p->subs)
			hws__safe_close(p->subs[i].fd);
	}
	free(f->subfeatures);
	free((char *)f->name);
	free((char *)f->label);
	free((char *)f->sensors_label);
	if (p)
		free(p->subs);
	memset(f, 0, sizeof(*f));
}

void hws__chip_free(struct hws__chip *chip)
{
	if (!chip)
		return;
	for (size_t i = 0; i < chip->pub.n_features; i++)
		hws__feature_clear(&chip->pub.features[i], chip->features ? &chip->features[i] : NULL);
	free(chip->pub.features);
	free(chip->features);
	free((char *)chip->pub.name);
	free((char *)chip->pub.prefix);
	free((char *)chip->pub.adapter);
	free((char *)chip->pub.path);
	free(chip->hwmon);
	free(chip);
}

/* The beep switch and the VID are settings whatever their item says; a
 * PWM duty cycle moves on its own under automatic fan control. */
static bool is_live(const struct hws__attr_class *c)
{
	if (c->kind == HWS_SENSOR_BEEP_ENABLE || c->kind == HWS_SENSOR_VID)
		return false;
	return hws__item_is_live(c->item) || (c->kind == HWS_SENSOR_PWM && c->item == HWS_ITEM_INPUT);
}

static struct hws_feature *feature_get(struct hws__chip *chip, const struct hws__attr_class *c)
{
	struct hws_feature *f;

	for (size_t i = 0; i < chip->pub.n_features; i++)
		if (!strcmp(chip->pub.features[i].name, c->feature))
			return &chip->pub.features[i];
	f = realloc(chip->pub.features, (chip->pub.n_features + 1) * sizeof(*f));
	if (!f)
		return NULL;
	chip->pub.features = f;
	f = &f[chip->pub.n_features];
	memset(f, 0, sizeof(*f));
	f->kind = c->kind;
	f->name = strdup(c->feature);
	if (!f->name)
		return NULL;
	chip->pub.n_features++;
	return f;
}

/* applesmc's ambient light: one "light" file holding both sensors, shown
 * as light_left and light_right (hwsight's names: the ABI has none). */
static int add_light(struct hws__chip *chip, int dirfd)
{
	static const char *const names[] = { "light_left", "light_right" };
	struct hws__attr_class c = { .kind = HWS_SENSOR_LIGHT, .feature = "light", .item = HWS_ITEM_INPUT };
	struct hws_feature *f;
	struct hws_subfeature *sub;

	if (faccessat(dirfd, "light", R_OK, 0) < 0)
		return 0;
	f = feature_get(chip, &c);
	if (!f)
		return -ENOMEM;
	sub = realloc(f->subfeatures, (f->n_subfeatures + 2) * sizeof(*sub));
	if (!sub)
		return -ENOMEM;
	f->subfeatures = sub;
	for (int k = 0; k < 2; k++) {
		sub[f->n_subfeatures] = (struct hws_subfeature){
			.name = strdup(names[k]),
			.item = HWS_ITEM_INPUT,
			.flags = HWS_SUB_LIVE,
			.value = NAN,
			.error = -ENODATA,
		};
		if (!sub[f->n_subfeatures].name)
			return -ENOMEM;
		f->n_subfeatures++;
	}
	return 0;
}

static int add_attribute(struct hws__chip *chip, int dirfd, const char *name)
{
	struct hws__attr_class c;
	struct hws_feature *f;
	struct hws_subfeature *sub;
	struct stat st;
	char buf[128];

	if (!strcmp(name, "light"))
		return add_light(chip, dirfd);
	if (hws__attr_classify(name, &c) < 0)
		return 0; /* not a channel attribute: name, uevent, update_interval ... */
	if (fstatat(dirfd, name, &st, 0) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IRUSR))
		return 0;
	f = feature_get(chip, &c);
	if (!f)
		return -ENOMEM;
	if (c.is_label) {
		/* Kept as the driver writes it (applesmc pads fan names with
		 * blanks), as libsensors keeps it, so both name it the same. */
		if (hws__read_attr(dirfd, name, buf, sizeof(buf)) > 0) {
			free((char *)f->label);
			f->label = strdup(buf);
			if (!f->label)
				return -ENOMEM;
		}
		return 0;
	}
	sub = realloc(f->subfeatures, (f->n_subfeatures + 1) * sizeof(*sub));
	if (!sub)
		return -ENOMEM;
	f->subfeatures = sub;
	sub = &sub[f->n_subfeatures];
	*sub = (struct hws_subfeature){
		.name = strdup(name),
		.item = c.item,
		.flags = is_live(&c) ? HWS_SUB_LIVE : 0,
		.value = NAN,
		.error = -ENODATA,
	};
	if (!sub->name)
		return -ENOMEM;
	f->n_subfeatures++;
	return 0;
}

/* Where the attributes are: the hwmon directory (current drivers) or its
 * device/ (drivers registered the old way, w83793 among them). */
static int attr_dir(const char *hwmon, char *path, size_t size)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), HWMON_CLASS "/%s/name", hwmon);
	if (access(p, R_OK) == 0)
		snprintf(p, sizeof(p), HWMON_CLASS "/%s", hwmon);
	else
		snprintf(p, sizeof(p), HWMON_CLASS "/%s/device", hwmon);
	if (!realpath(p, path))
		return -errno;
	(void)size;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int chip_load(const char *hwmon, struct hws__chip **ret)
{
	struct hws__chip *chip;
	char path[PATH_MAX], buf[128];
	struct dirent *de;
	DIR *dir;
	int fd, r;

	chip = calloc(1, sizeof(*chip));
	if (!chip)
		return -ENOMEM;
	chip->pub.present = true;
	chip->hwmon = strdup(hwmon);
	fd = attr_dir(hwmon, path, sizeof(path));
	if (fd < 0) {
		r = fd;
		goto fail;
	}
	chip->pub.path = strdup(path);
	r = hws__read_attr(fd, "name", buf, sizeof(buf));
	if (r <= 0) {
		close(fd);
		r = r < 0 ? r : -EINVAL;
		goto fail;
	}
	chip->pub.prefix = strdup(buf);
	dir = fdopendir(fd);
	if (!dir) {
		r = -errno;
		close(fd);
		goto fail;
	}
	r = 0;
	while (r == 0 && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			r = add_attribute(chip, dirfd(dir), de->d_name);
	closedir(dir);
	if (r == 0 && (!chip->hwmon || !chip->pub.path || !chip->pub.prefix))
		r = -ENOMEM;
	if (r < 0)
		goto fail;

	/* A label file without values is no channel. */
	for (size_t i = 0; i < chip->pub.n_features;) {
		if (chip->pub.features[i].n_subfeatures) {
			i++;
			continue;
		}
		hws__feature_clear(&chip->pub.features[i], NULL);
		memmove(&chip->pub.features[i], &chip->pub.features[i + 1],
			(--chip->pub.n_features - i) * sizeof(chip->pub.features[0]));
	}
	if (chip->pub.n_features)
		qsort(chip->pub.features, chip->pub.n_features, sizeof(chip->pub.features[0]), feature_cmp);

	chip->features = calloc(chip->pub.n_features ? chip->pub.n_features : 1, sizeof(*chip->features));
	if (!chip->features)
		goto nomem;
	for (size_t i = 0; i < chip->pub.n_features; i++) {
		struct hws_feature *f = &chip->pub.features[i];
		const char *def;

		if (f->n_subfeatures)
			qsort(f->subfeatures, f->n_subfeatures, sizeof(f->subfeatures[0]), sub_cmp);
		chip->features[i].subs = calloc(f->n_subfeatures, sizeof(struct hws__sub_priv));
		if (!chip->features[i].subs)
			goto nomem;
		for (size_t j = 0; j < f->n_subfeatures; j++) {
			struct hws__attr_class c;

			chip->features[i].subs[j] = (struct hws__sub_priv){
				.fd = -1, .sensors_nr = -1, .scale = 1, .tuple = -1,
			};
			if (f->kind == HWS_SENSOR_LIGHT) {
				chip->features[i].subs[j].file = "light";
				chip->features[i].subs[j].tuple = !strcmp(f->subfeatures[j].name, "light_right");
			} else if (hws__attr_classify(f->subfeatures[j].name, &c) == 0)
				chip->features[i].subs[j].scale = c.scale;
		}
		def = hws__chip_default_label(chip->pub.prefix, f->name);
		if (!f->label)
			f->label = strdup(def ? def : f->name);
		if (!f->label)
			goto nomem;
	}
	*ret = chip;
	return 0;
nomem:
	r = -ENOMEM;
fail:
	hws__chip_free(chip);
	return r;
}

static int name_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	size_t lx = strlen(*x), ly = strlen(*y);

	/* hwmon2 before hwmon10 */
	return lx != ly ? (int)lx - (int)ly : strcmp(*x, *y);
}

void hws__hwmon_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int hws__hwmon_list(char ***ret_names, size_t *ret_n)
{
	char **names = NULL, **n;
	size_t count = 0;
	struct dirent *de;
	DIR *dir;
	int r = 0;

	dir = opendir(HWMON_CLASS);
	if (!dir) {
		if (errno != ENOENT)
			return -errno;
		*ret_names = NULL;
		*ret_n = 0;
		return 0;
	}
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		n = realloc(names, (count + 1) * sizeof(*names));
		if (!n || !(n[count] = strdup(de->d_name))) {
			names = n ? n : names;
			r = -ENOMEM;
			break;
		}
		names = n;
		count++;
	}
	closedir(dir);
	if (r < 0) {
		hws__hwmon_names_free(names, count);
		return r;
	}
	if (count)
		qsort(names, count, sizeof(*names), name_cmp);
	*ret_names = names;
	*ret_n = count;
	return 0;
}

int hws__hwmon_scan(struct hws__chip ***ret_chips, size_t *ret_n)
{
	struct hws__chip **chips = NULL;
	size_t n_names, n = 0;
	char **names;
	int r;

	r = hws__hwmon_list(&names, &n_names);
	if (r < 0)
		return r;
	if (n_names) {
		chips = calloc(n_names, sizeof(*chips));
		if (!chips)
			r = -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && i < n_names; i++) {
		/* A chip that vanishes while we look, or has no name file, is
		 * simply not there. */
		int q = chip_load(names[i], &chips[n]);
		if (q == -ENOMEM)
			r = q;
		else if (q == 0)
			n++;
	}
	hws__hwmon_names_free(names, n_names);
	if (r < 0) {
		while (n)
			hws__chip_free(chips[--n]);
		free(chips);
		return r;
	}
	*ret_chips = chips;
	*ret_n = n;
	return 0;
}
