/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "output.h"

/* V4L2's flag for a big-endian variant of a fourcc (videodev2.h), kept here
 * so that the tool needs no kernel header. */
#define FOURCC_BE_FLAG (1u << 31)

void tool_json_value(FILE *f, const char *s)
{
	tool_json_string(f, s && *s ? s : NULL);
}

void tool_json_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void tool_fourcc_str(uint32_t fourcc, char out[8])
{
	for (int i = 0; i < 4; i++) {
		char ch = (char)((fourcc >> (8 * i)) & (i == 3 ? 0x7f : 0xff));

		out[i] = ch >= 0x20 && ch < 0x7f ? ch : '.';
	}
	strcpy(out + 4, fourcc & FOURCC_BE_FLAG ? "-BE" : "");
}
