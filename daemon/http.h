/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_HTTP_H
#define HWSD_HTTP_H

/*
 * The HTTP side (http/): libmicrohttpd's threads serving what @view
 * publishes; the pages themselves are in http/pages.h.
 */

#include <stdbool.h>

struct hwsd_config;
struct hwsd_http;
struct hwsd_http_access;
struct hwsd_view;

/*
 * hwsd_http_access_load - read the files @c's [http] section names
 *
 * The certificate must parse and its key be its own; the users file is
 * USER:BCRYPT-HASH lines. Return: 0, -EINVAL with @ret_error
 * "FILE:LINE: reason" (to be freed; NULL if out of memory), -ENOMEM.
 */
int hwsd_http_access_load(const struct hwsd_config *c, struct hwsd_http_access **ret, char **ret_error);
struct hwsd_http_access *hwsd_http_access_ref(struct hwsd_http_access *a);
struct hwsd_http_access *hwsd_http_access_unref(struct hwsd_http_access *a);
/* The PEM certificate and key (NULL: plain HTTP). */
const char *hwsd_http_access_cert(const struct hwsd_http_access *a);
const char *hwsd_http_access_key(const struct hwsd_http_access *a);
bool hwsd_http_access_same_tls(const struct hwsd_http_access *a, const struct hwsd_http_access *b);
bool hwsd_http_access_asks_password(const struct hwsd_http_access *a);
/* May @user (NULL: none sent) with @password in? Any thread. */
bool hwsd_http_access_check(struct hwsd_http_access *a, const char *user, const char *password);

/*
 * Listen on @listen ("ADDRESS:PORT") with @access's TLS and passwords;
 * @view must outlive the server, which takes a reference to @access.
 * Failures are logged. Return: 0 or -errno.
 */
int hwsd_http_start(const struct hwsd_view *view, const char *listen, struct hwsd_http_access *access,
		    struct hwsd_http **ret);
/* The users of @access from the next request on, @access's TLS being the
 * server's (hwsd_http_access_same_tls()). */
void hwsd_http_set_access(struct hwsd_http *h, struct hwsd_http_access *access);
/* The access the server was started or last set with. */
const struct hwsd_http_access *hwsd_http_access(const struct hwsd_http *h);
struct hwsd_http *hwsd_http_stop(struct hwsd_http *h);

#endif
