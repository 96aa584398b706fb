/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who may read the HTTP side: the files [http] names (a TLS certificate
 * and its key, a file of USER:BCRYPT-HASH lines as htpasswd -B writes
 * them), read and checked when the config is, so that a bad one refuses
 * the config with FILE:LINE, and the password check of each request.
 *
 * bcrypt costs tens of milliseconds on purpose, and Prometheus sends the
 * same password every few seconds: a password that passed is remembered
 * as an HMAC-SHA256 under a key made for this load of the users file, so
 * that its next checks cost a hash. A new load (a reload) forgets them all.
 */
#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "../config.h"
#include "../http.h"

#define MAC_SIZE 32     /* HMAC-SHA256 */
/* "$2b$10$" and 53 characters of bcrypt's base64: 22 of salt, 31 of hash. */
#define BCRYPT_LEN 60

struct user {
	char *name;
	char *hash;
	bool cached;                    /* L: access->lock */
	uint8_t mac[MAC_SIZE];          /* L: access->lock; of the password that passed */
};

struct hwsd_http_access {
	atomic_uint refs;
	char *cert;                     /* PEM; NULL: plain HTTP */
	char *key;
	struct user *users;             /* NULL: no password asked */
	size_t n_users;
	bool auth;
	uint8_t mac_key[MAC_SIZE];
	pthread_mutex_t lock;
};

/* Compare without stopping at the first difference, so that the time
 * taken tells nothing of where it was. */
static bool same_bytes(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t d = 0;

	for (size_t i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

static bool is_bcrypt(const char *hash)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	return strlen(hash) == BCRYPT_LEN && hash[0] == '$' && hash[1] == '2' &&
	       strchr("aby", hash[2]) && hash[3] == '$' && hash[4] >= '0' && hash[4] <= '3' &&
	       hash[5] >= '0' && hash[5] <= '9' && hash[6] == '$' &&
	       strspn(hash + 7, b64) == BCRYPT_LEN - 7;
}

/* The whole of @path, which must be a text file of at most 1 MiB. Return:
 * 0, -errno, -EFBIG, -EBADMSG (a NUL byte). */
static int read_file(const char *path, char **ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	buf = malloc(1024 * 1024 + 1);
	if (!buf)
		r = -ENOMEM;
	else {
		len = fread(buf, 1, 1024 * 1024 + 1, f);
		if (ferror(f))
			r = -EIO;
		else if (len > 1024 * 1024)
			r = -EFBIG;
		else if (memchr(buf, '\0', len))
			r = -EBADMSG;
	}
	fclose(f);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	return 0;
}

static const char *read_error(int r)
{
	return r == -EFBIG ? "larger than 1 MiB" : r == -EBADMSG ? "a NUL byte: not a text file" : strerror(-r);
}

/* "user:hash" lines; blank lines and "#" comments are skipped. */
static int parse_users(struct hwsd_http_access *a, const char *path, char *text, char **ret_error)
{
	unsigned line = 0;

	for (char *s = text, *next; s && *s; s = next) {
		char *colon, *end = strchr(s, '\n');
		struct user *u;

		next = end ? end + 1 : NULL;
		if (end)
			*end = '\0';
		line++;
		if (end && end > s && end[-1] == '\r')
			end[-1] = '\0';
		if (!*s || *s == '#')
			continue;
		colon = strchr(s, ':');
		if (!colon || colon == s || !is_bcrypt(colon + 1))
			return asprintf(ret_error, "%s:%u: not USER:BCRYPT-HASH (htpasswd -nbB USER PASSWORD writes one)",
					path, line) < 0 ? -ENOMEM : -EINVAL;
		*colon = '\0';
		for (size_t i = 0; i < a->n_users; i++)
			if (!strcmp(a->users[i].name, s))
				return asprintf(ret_error, "%s:%u: user \"%s\" again", path, line, s) < 0
					       ? -ENOMEM : -EINVAL;
		u = realloc(a->users, (a->n_users + 1) * sizeof(*u));
		if (!u)
			return -ENOMEM;
		a->users = u;
		u = &a->users[a->n_users];
		*u = (struct user){ .name = strdup(s), .hash = strdup(colon + 1) };
		a->n_users++;
		if (!u->name || !u->hash)
			return -ENOMEM;
	}
	if (!a->n_users)
		return asprintf(ret_error, "%s: no user: nobody could log in", path) < 0 ? -ENOMEM : -EINVAL;
	return 0;
}

/* GnuTLS takes the pair only if both parse and the key is the
 * certificate's: the same check libmicrohttpd's start makes, made here so
 * that it can say which file is wrong. */
static int check_tls(const char *config, const struct hwsd_http_conf *h, const char *cert, const char *key,
		     char **ret_error)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t c = { (unsigned char *)cert, (unsigned)strlen(cert) };
	gnutls_datum_t k = { (unsigned char *)key, (unsigned)strlen(key) };
	int r;

	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return -ENOMEM;
	r = gnutls_certificate_set_x509_key_mem2(cred, &c, &k, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_certificate_free_credentials(cred);
	if (r >= 0)
		return 0;
	if (r == GNUTLS_E_MEMORY_ERROR)
		return -ENOMEM;
	if (r == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
		r = asprintf(ret_error, "%s:%u: tls_key_file: %s is not the key of %s", config, h->tls_key_line,
			     h->tls_key_file, h->tls_cert_file);
	else
		r = asprintf(ret_error, "%s:%u: tls_cert_file: %s and %s are not a PEM certificate and its unencrypted key (%s)",
			     config, h->tls_cert_line, h->tls_cert_file, h->tls_key_file, gnutls_strerror(r));
	if (r < 0)
		*ret_error = NULL;
	return -EINVAL;
}

int hwsd_http_access_load(const struct hwsd_config *c, struct hwsd_http_access **ret, char **ret_error)
{
	const struct hwsd_http_conf *h = &c->http;
	struct hwsd_http_access *a;
	const char *config = c->path ? c->path : "(defaults)";
	char *users = NULL;
	int r = 0;

	*ret_error = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	atomic_init(&a->refs, 1);
	pthread_mutex_init(&a->lock, NULL);
	if (h->tls_cert_file) {
		r = read_file(h->tls_cert_file, &a->cert);
		if (r < 0) {
			if (asprintf(ret_error, "%s:%u: tls_cert_file: %s: %s", config, h->tls_cert_line,
				     h->tls_cert_file, read_error(r)) < 0)
				*ret_error = NULL;
			goto fail;
		}
		r = read_file(h->tls_key_file, &a->key);
		if (r < 0) {
			if (asprintf(ret_error, "%s:%u: tls_key_file: %s: %s", config, h->tls_key_line,
				     h->tls_key_file, read_error(r)) < 0)
				*ret_error = NULL;
			goto fail;
		}
		r = check_tls(config, h, a->cert, a->key, ret_error);
		if (r < 0)
			goto fail;
	}
	if (h->basic_auth_users) {
		r = read_file(h->basic_auth_users, &users);
		if (r < 0) {
			if (asprintf(ret_error, "%s:%u: basic_auth_users: %s: %s", config, h->basic_auth_users_line,
				     h->basic_auth_users, read_error(r)) < 0)
				*ret_error = NULL;
			goto fail;
		}
		r = parse_users(a, h->basic_auth_users, users, ret_error);
		if (r == -EINVAL && *ret_error) {
			/* Which key named the file, too. */
			char *why = *ret_error;

			if (asprintf(ret_error, "%s (%s:%u: basic_auth_users)", why, config,
				     h->basic_auth_users_line) < 0)
				*ret_error = NULL;
			free(why);
		}
		if (r < 0)
			goto fail;
		a->auth = true;
		if (getrandom(a->mac_key, sizeof(a->mac_key), 0) != sizeof(a->mac_key)) {
			r = -EIO;
			goto fail;
		}
	}
	free(users);
	*ret = a;
	return 0;
fail:
	free(users);
	hwsd_http_access_unref(a);
	/* A file that cannot be read refuses the config as a bad one does. */
	return *ret_error ? -EINVAL : r;
}

struct hwsd_http_access *hwsd_http_access_ref(struct hwsd_http_access *a)
{
	atomic_fetch_add(&a->refs, 1);
	return a;
}

struct hwsd_http_access *hwsd_http_access_unref(struct hwsd_http_access *a)
{
	if (!a || atomic_fetch_sub(&a->refs, 1) > 1)
		return NULL;
	for (size_t i = 0; i < a->n_users; i++) {
		free(a->users[i].name);
		/* The hash and what stands for a password leave no copy behind. */
		if (a->users[i].hash)
			gnutls_memset(a->users[i].hash, 0, strlen(a->users[i].hash));
		free(a->users[i].hash);
	}
	gnutls_memset(a->users, 0, a->n_users * sizeof(*a->users));
	free(a->users);
	free(a->cert);
	if (a->key)
		gnutls_memset(a->key, 0, strlen(a->key));
	free(a->key);
	pthread_mutex_destroy(&a->lock);
	gnutls_memset(a->mac_key, 0, sizeof(a->mac_key));
	free(a);
	return NULL;
}

const char *hwsd_http_access_cert(const struct hwsd_http_access *a)
{
	return a->cert;
}

const char *hwsd_http_access_key(const struct hwsd_http_access *a)
{
	return a->key;
}

bool hwsd_http_access_same_tls(const struct hwsd_http_access *a, const struct hwsd_http_access *b)
{
	return !a->cert == !b->cert && (!a->cert || (!strcmp(a->cert, b->cert) && !strcmp(a->key, b->key)));
}

bool hwsd_http_access_asks_password(const struct hwsd_http_access *a)
{
	return a->auth;
}

/* Does @password match the bcrypt @hash? Always a whole bcrypt. */
static bool bcrypt_matches(const char *password, const char *hash)
{
	struct crypt_data *data = calloc(1, sizeof(*data));
	const char *out;
	bool ok;

	if (!data)
		return false;
	out = crypt_rn(password, hash, data, (int)sizeof(*data));
	ok = out && strlen(out) == BCRYPT_LEN && same_bytes(out, hash, BCRYPT_LEN);
	gnutls_memset(data, 0, sizeof(*data));
	free(data);
	return ok;
}

bool hwsd_http_access_check(struct hwsd_http_access *a, const char *user, const char *password)
{
	uint8_t mac[MAC_SIZE];
	struct user *u = NULL;
	bool ok;

	if (!a->auth)
		return true;
	if (!user || !password)
		return false;
	for (size_t i = 0; i < a->n_users; i++)
		if (!strcmp(a->users[i].name, user))
			u = &a->users[i];
	if (!u) {
		/* As long as a known user's check, so that the time does not
		 * say which names exist. */
		bcrypt_matches(password, a->users[0].hash);
		return false;
	}
	if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, a->mac_key, sizeof(a->mac_key), password, strlen(password),
			     mac) < 0)
		return false;
	pthread_mutex_lock(&a->lock);
	ok = u->cached && same_bytes(u->mac, mac, MAC_SIZE);
	pthread_mutex_unlock(&a->lock);
	if (ok)
		return true;
	/* Outside the lock: other requests need not wait for this one. */
	ok = bcrypt_matches(password, u->hash);
	if (ok) {
		pthread_mutex_lock(&a->lock);
		memcpy(u->mac, mac, MAC_SIZE);
		u->cached = true;
		pthread_mutex_unlock(&a->lock);
	}
	return ok;
}
