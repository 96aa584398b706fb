/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <hwsight/version.h>

const char *hws_version(void)
{
	return HWS_VERSION_STRING;
}
