/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What hwsight knows about particular chips beyond the sysfs ABI: the
 * names their datasheets and drivers give to channels that carry no label
 * file, and what their pwmN_enable values mean. A config label, or a label
 * the driver exports, always wins over these.
 */
#include <string.h>

#include "sensors/sensors-internal.h"

struct chip_label {
	const char *prefix;
	const char *feature;
	const char *label;
};

/*
 * W83793: the ten voltage inputs, named as in the driver and datasheet.
 * PC87427 and applesmc need none: the PC87427 channels are plain fans and
 * temperatures, and applesmc exports a label file (the SMC key, or the fan
 * name) for every channel.
 */
static const struct chip_label labels[] = {
	{ "w83793", "in0", "VcoreA" },
	{ "w83793", "in1", "VcoreB" },
	{ "w83793", "in2", "Vtt" },
	{ "w83793", "in3", "VSEN1" },
	{ "w83793", "in4", "VSEN2" },
	{ "w83793", "in5", "+3VSEN" },
	{ "w83793", "in6", "+12VSEN" },
	{ "w83793", "in7", "5VDD" },
	{ "w83793", "in8", "5VSB" },
	{ "w83793", "in9", "VBAT" },
};

const char *hws__chip_default_label(const char *prefix, const char *feature)
{
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(labels[i].prefix, prefix) && !strcmp(labels[i].feature, feature))
			return labels[i].label;
	return NULL;
}

const char *hws_chip_pwm_mode_name(const struct hws_chip *chip, long enable)
{
	if (!chip)
		return NULL;
	/* The ABI: 0 no control (full speed), 1 manual, 2 and up automatic.
	 * The PC87427 follows it exactly: 2 is its thermal (auto) mode. */
	switch (enable) {
	case 0:
		return "full speed";
	case 1:
		return "manual";
	case 2:
		return "automatic";
	default:
		return enable > 2 ? "automatic" : NULL;
	}
}
