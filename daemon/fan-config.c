/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * [fan NAME] sections of hwsightd.conf: which output, driven from which
 * temperatures, along which curve. Values in the output's own unit are
 * checked against its range when it is taken; everything else here.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config-parse.h"

/* The name is a journal field and a line of the state file. */
static const struct conf_section_kind fan_kind = CONF_SECTION_KIND(struct hwsd_fan_conf, "fan",
	conf_is_name, "a fan name is letters, digits, '-' and '_'",
	.hysteresis = 2, .max_output = { 100, true }, .start_output = { 100, true }, .start_ms = 1000,
	.failsafe_after = 3, .retake = true);

/* "40%" or "120": a percentage of the output's range, or a raw value. */
static int parse_level(const char *v, struct hwsd_fan_level *ret)
{
	size_t len = strlen(v);
	char buf[64];
	double x;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, v, len + 1);
	ret->percent = buf[len - 1] == '%';
	if (ret->percent)
		buf[len - 1] = '\0';
	if (conf_parse_number(buf, &x) < 0 || x < 0 || (ret->percent && x > 100) || x > 1e6)
		return -EINVAL;
	ret->value = x;
	return 0;
}

static int level_key(struct parser *p, const char *name, const char *v, struct hwsd_fan_level *ret)
{
	if (parse_level(v, ret) < 0)
		return conf_fail(p, "%s: \"%s\" is not an output level (a value such as 128, or 0%% to 100%%)",
				 name, v);
	return 1;
}

/* "CHIP-PATTERN/NAME": the pattern is checked, NAME is what follows. */
static int split_chip(struct parser *p, const char *key, const char *v, char **ret_chip,
		      char **ret_name)
{
	const char *slash = strchr(v, '/');
	char *chip;

	if (!slash || slash == v || !slash[1])
		return conf_fail(p, "%s: \"%s\" is not CHIP/NAME (w83793-*/pwm1)", key, v);
	chip = strndup(v, (size_t)(slash - v));
	if (!chip) {
		p->oom = true;
		return 0;
	}
	if (!conf_is_chip_pattern(chip)) {
		conf_fail(p, "%s: \"%s\" is not a chip name pattern (\"w83793-*\")", key, chip);
		free(chip);
		return 0;
	}
	if (!(*ret_name = strdup(slash + 1))) {
		free(chip);
		p->oom = true;
		return 0;
	}
	*ret_chip = chip;
	return 1;
}

/* "pwm3" or "fan2": @prefix then a number from 1. */
static bool is_channel(const char *v, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(v, prefix, n) && v[n] >= '1' && v[n] <= '9' &&
	       strspn(v + n, "0123456789") == strlen(v + n) && strlen(v + n) <= 3;
}

static int output_key(struct parser *p, struct hwsd_fan_conf *fan, const char *v)
{
	char *chip = NULL, *output = NULL;

	if (!split_chip(p, "output", v, &chip, &output))
		return 0;
	if (!is_channel(output, "pwm") && !is_channel(output, "fan")) {
		conf_fail(p, "output: \"%s\" is not pwmN, or fanN on applesmc", output);
		free(chip);
		free(output);
		return 0;
	}
	free(fan->chip);
	free(fan->output);
	fan->chip = chip;
	fan->output = output;
	return 1;
}

static void sources_free(struct hwsd_fan_conf *fan)
{
	for (size_t i = 0; i < fan->n_sources; i++) {
		free(fan->sources[i].chip);
		free(fan->sources[i].feature);
	}
	free(fan->sources);
	fan->sources = NULL;
	fan->n_sources = 0;
}

/* "CHIP/FEATURE, CHIP/FEATURE": a feature by name or label, which may hold spaces. */
static int sources_key(struct parser *p, struct hwsd_fan_conf *fan, const char *v)
{
	const char *s = v;

	sources_free(fan);
	while (*s) {
		size_t len = strcspn(s, ",");
		struct hwsd_fan_source *src;
		char *one;
		int r;

		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (!len)
			return conf_fail(p, "sources: an empty source in \"%s\"", v);
		if (!(one = strndup(s, len)) ||
		    !(src = conf_push(p, (void **)&fan->sources, &fan->n_sources, sizeof(*src)))) {
			free(one);
			p->oom = true;
			return 0;
		}
		r = split_chip(p, "sources", one, &src->chip, &src->feature);
		free(one);
		if (!r)
			return 0;
		s += strcspn(s, ",");
		if (*s == ',')
			s++;
		s += strspn(s, " \t");
	}
	if (!fan->n_sources)
		return conf_fail(p, "sources: empty value");
	return 1;
}

/* "40:0 50:30% 60:100%": TEMP:LEVEL points by rising temperature. */
static int curve_key(struct parser *p, struct hwsd_fan_conf *fan, const char *v)
{
	const char *s = v + strspn(v, " \t");

	free(fan->points);
	fan->points = NULL;
	fan->n_points = 0;
	while (*s) {
		size_t len = strcspn(s, " \t");
		struct hwsd_fan_point *pt;
		char buf[64], *colon;

		if (len >= sizeof(buf))
			return conf_fail(p, "curve: \"%.*s\" is not TEMP:LEVEL", (int)len, s);
		memcpy(buf, s, len);
		buf[len] = '\0';
		colon = strchr(buf, ':');
		if (!(pt = conf_push(p, (void **)&fan->points, &fan->n_points, sizeof(*pt))))
			return 0;
		if (!colon)
			return conf_fail(p, "curve: \"%s\" is not TEMP:LEVEL (50:40%%)", buf);
		*colon = '\0';
		if (conf_parse_number(buf, &pt->temp) < 0 || pt->temp < -100 || pt->temp > 300)
			return conf_fail(p, "curve: \"%s\" is not a temperature in degrees Celsius", buf);
		if (parse_level(colon + 1, &pt->level) < 0)
			return conf_fail(p, "curve: \"%s\" is not an output level (128, or 0%% to 100%%)",
					 colon + 1);
		if (fan->n_points > 1 && pt->temp < fan->points[fan->n_points - 2].temp)
			return conf_fail(p, "curve: the points go by rising temperature (%g after %g)",
					 pt->temp, fan->points[fan->n_points - 2].temp);
		/* Two points at one temperature are a step; three say nothing more. */
		if (fan->n_points > 2 && pt->temp == fan->points[fan->n_points - 3].temp)
			return conf_fail(p, "curve: three points at %g degrees", pt->temp);
		s += len;
		s += strspn(s, " \t");
	}
	if (!fan->n_points)
		return conf_fail(p, "curve: empty value");
	return 1;
}

CONF_WORD_KEY(conf_either, bool)

/* A key of two words, such as "mode = manual" or "mode = floor". */
static int choice_key(struct parser *p, const char *name, const char *v, const char *yes,
		      const char *no, bool *ret)
{
	const struct conf_word words[] = { { no, false }, { yes, true }, { NULL, 0 } };

	return conf_either(p, name, v, words, ret);
}

int conf_fan_key(struct parser *p, const char *section, const char *name, const char *v)
{
	struct hwsd_fan_conf *fan = conf_section(p, (void **)&p->c->fans, &p->c->n_fans, &fan_kind,
						 section);
	double x;

	if (!fan)
		return 0;
	if (!strcmp(name, "output"))
		return output_key(p, fan, v);
	if (!strcmp(name, "mode"))
		return choice_key(p, name, v, "floor", "manual", &fan->floor);
	if (!strcmp(name, "tach")) {
		if (!is_channel(v, "fan"))
			return conf_fail(p, "tach: \"%s\" is not fanN", v);
		return conf_string(p, name, v, &fan->tach);
	}
	if (!strcmp(name, "sources"))
		return sources_key(p, fan, v);
	if (!strcmp(name, "combine"))
		return choice_key(p, name, v, "average", "max", &fan->average);
	if (!strcmp(name, "curve"))
		return curve_key(p, fan, v);
	if (!strcmp(name, "curve_type"))
		return choice_key(p, name, v, "steps", "linear", &fan->steps);
	if (!strcmp(name, "hysteresis")) {
		if (conf_parse_number(v, &x) < 0 || x < 0 || x > 50)
			return conf_fail(p, "hysteresis: \"%s\" is not 0 to 50 degrees", v);
		fan->hysteresis = x;
		return 1;
	}
	if (!strcmp(name, "min_output"))
		return level_key(p, name, v, &fan->min_output);
	if (!strcmp(name, "max_output"))
		return level_key(p, name, v, &fan->max_output);
	if (!strcmp(name, "start_output"))
		return level_key(p, name, v, &fan->start_output);
	if (!strcmp(name, "max_step")) {
		fan->has_max_step = true;
		return level_key(p, name, v, &fan->max_step);
	}
	if (!strcmp(name, "start_time"))
		return conf_duration(p, name, v, 100, 10000, true, &fan->start_ms);
	if (!strcmp(name, "spin_down"))
		return conf_duration(p, name, v, 1000, 3600000, true, &fan->spin_down_ms);
	if (!strcmp(name, "interval"))
		return conf_duration(p, name, v, 100, 3600000, false, &fan->interval_ms);
	if (!strcmp(name, "failsafe_after")) {
		if (conf_parse_uint(v, 100, &fan->failsafe_after) < 0 || !fan->failsafe_after)
			return conf_fail(p, "failsafe_after: \"%s\" is not 1 to 100 readings", v);
		return 1;
	}
	if (!strcmp(name, "on_conflict"))
		return choice_key(p, name, v, "retake", "yield", &fan->retake);
	return conf_fail(p, "unknown key \"%s\" in [fan %s]", name, section);
}

void conf_fan_check(struct parser *p, struct hwsd_fan_conf *fan)
{
	p->line = fan->line;
	if (!fan->output)
		conf_fail(p, "[fan %s]: no output", fan->name);
	else if (!fan->n_sources)
		conf_fail(p, "[fan %s]: no sources", fan->name);
	else if (!fan->n_points)
		conf_fail(p, "[fan %s]: no curve", fan->name);
	else if (fan->floor && !is_channel(fan->output, "fan"))
		conf_fail(p, "[fan %s]: mode = floor is for applesmc's fanN outputs, not %s",
			  fan->name, fan->output);
	else if (fan->min_output.percent == fan->max_output.percent &&
		 fan->min_output.value > fan->max_output.value)
		conf_fail(p, "[fan %s]: min_output is above max_output", fan->name);
	for (size_t i = 0; i < p->c->n_fans && !p->error; i++) {
		const struct hwsd_fan_conf *o = &p->c->fans[i];

		if (o != fan && o->output && o->chip && !strcmp(o->chip, fan->chip) &&
		    !strcmp(o->output, fan->output) && o < fan)
			conf_fail(p, "[fan %s]: %s/%s is [fan %s]'s output already", fan->name,
				  fan->chip, fan->output, o->name);
	}
}

void conf_fan_free(struct hwsd_fan_conf *fan)
{
	sources_free(fan);
	free(fan->points);
	free(fan->name);
	free(fan->chip);
	free(fan->output);
	free(fan->tach);
}
