/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSIGHT_COMMON_H
#define HWSIGHT_COMMON_H

/*
 * Everything libhwsight exports carries HWS_EXPORT; the library is built
 * with -fvisibility=hidden so that internal hws__ functions stay private.
 */
#if defined(HWS_BUILDING_LIBRARY)
#define HWS_EXPORT __attribute__((visibility("default")))
#else
#define HWS_EXPORT
#endif

#endif
