/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_TOOL_OUTPUT_H
#define HWSIGHT_TOOL_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

/* Output helpers the subcommands share. */

/* A JSON string with the escapes JSON needs; NULL prints null. */
void tool_json_string(FILE *f, const char *s);

/* The same for a value where "" means unknown: NULL and "" print null. */
void tool_json_value(FILE *f, const char *s);

/* "YUYV", "Y16 -BE": a V4L2 fourcc, anything unprintable as '.'. */
void tool_fourcc_str(uint32_t fourcc, char out[8]);

#endif
