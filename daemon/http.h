/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HTTP_H
#define HWSD_HTTP_H

/*
 * The HTTP side (http/): libmicrohttpd's threads serving what @view
 * publishes; the pages themselves are in http/pages.h.
 */

struct hwsd_http;
struct hwsd_view;

/* Listen on @listen ("ADDRESS:PORT"); @view must outlive the server.
 * Failures are logged. Return: 0 or -errno. */
int hwsd_http_start(const struct hwsd_view *view, const char *listen, struct hwsd_http **ret);
struct hwsd_http *hwsd_http_stop(struct hwsd_http *h);

#endif
