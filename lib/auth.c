// SPDX-License-Identifier: MIT
/*
 * auth.c - libhixl-user: the engine options that say who may connect
 * ("AllowedPeers", "AuthSecret", "AuthSecretFile" and their environment
 * variables), turned into SETUP's HIXL_SETUP_ALLOWED_PEERS and
 * HIXL_SETUP_SECRET (uapi/rdma/hixl.h).  The secret is held only until SETUP
 * returns and is wiped then (hixl_auth_opts_clear()).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "internal.h"

/* One "ADDR" or "ADDR/LEN" entry (IPv6 without brackets). */
static int parse_prefix(const char *s, size_t n, struct hixl_peer_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	unsigned long len, bits;
	char *end;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	memset(p, 0, sizeof(*p));
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, p->addr) == 1) {
		p->family = AF_INET;
		bits = 32;
	} else if (inet_pton(AF_INET6, buf, p->addr) == 1) {
		p->family = AF_INET6;
		bits = 128;
	} else {
		return -EINVAL;
	}
	len = bits;
	if (slash) {
		if (*slash < '0' || *slash > '9' || strlen(slash) > 3)
			return -EINVAL;
		len = strtoul(slash, &end, 10);
		if (*end || len > bits)
			return -EINVAL;
	}
	p->prefix_len = (uint8_t)len;
	/* host bits must be zero, as the kernel checks: catch the typo here */
	for (unsigned long i = len; i < bits; i++)
		if (p->addr[i / 8] & (0x80 >> (i % 8)))
			return -EINVAL;
	return 0;
}

static int parse_allowed(const char *v, struct hixl_auth_opts *o)
{
	const char *s = v;
	uint32_t n = 0;

	if (!*v)
		return -EINVAL;
	while (*s) {
		size_t len = strcspn(s, ",");

		while (len && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (n >= HIXL_MAX_ALLOWED_PEERS || parse_prefix(s, len, &o->allowed[n]))
			return -EINVAL;
		n++;
		s += strcspn(s, ",");
		if (*s == ',' && !*++s)
			return -EINVAL;		/* a trailing comma */
	}
	o->nr_allowed = n;
	return 0;
}

static int set_secret(struct hixl_auth_opts *o, const void *key, size_t len)
{
	if (len < HIXL_SECRET_MIN || len > HIXL_SECRET_MAX)
		return -EINVAL;
	memcpy(o->secret, key, len);
	o->secret_len = (uint32_t)len;
	return 0;
}

/* The key file's bytes, one trailing "\n" or "\r\n" left out. */
static int read_secret_file(const char *path, struct hixl_auth_opts *o)
{
	uint8_t buf[HIXL_SECRET_MAX + 3];
	size_t got = 0;
	ssize_t r;
	int fd, ret;

	if (!*path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < sizeof(buf)) {
		r = read(fd, buf + got, sizeof(buf) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			close(fd);
			explicit_bzero(buf, sizeof(buf));
			return ret;
		}
		if (!r)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got && buf[got - 1] == '\n') {
		got--;
		if (got && buf[got - 1] == '\r')
			got--;
	}
	ret = got > HIXL_SECRET_MAX ? -EINVAL : set_secret(o, buf, got);
	explicit_bzero(buf, sizeof(buf));
	return ret;
}

/**
 * hixl_auth_option() - take one option if it is one of ours
 * @o:     the options gathered so far
 * @key:   the option's key
 * @value: its value
 *
 * Return: 1 taken; 0 not one of ours; -EINVAL malformed; -errno of reading
 * the key file.
 */
int hixl_auth_option(struct hixl_auth_opts *o, const char *key, const char *value)
{
	if (!strcmp(key, HIXL_OPTION_ALLOWED_PEERS)) {
		o->have_allowed = true;
		return parse_allowed(value, o) ?: 1;
	}
	if (!strcmp(key, HIXL_OPTION_AUTH_SECRET)) {
		o->have_secret = true;
		return set_secret(o, value, strlen(value)) ?: 1;
	}
	if (!strcmp(key, HIXL_OPTION_AUTH_SECRET_FILE)) {
		o->have_secret = true;
		return read_secret_file(value, o) ?: 1;
	}
	return 0;
}

/**
 * hixl_auth_env() - the environment's say, for what no option said
 * @o: the options gathered
 *
 * @bad: on failure, the name of the variable refused
 *
 * HIXL_ALLOWED_PEERS and HIXL_AUTH_SECRET_FILE; a variable that is set
 * (even to "") must be valid.
 *
 * Return: 0, -EINVAL, or -errno of reading the key file.
 */
int hixl_auth_env(struct hixl_auth_opts *o, const char **bad)
{
	const char *allowed = o->have_allowed ? NULL : getenv("HIXL_ALLOWED_PEERS");
	const char *file = o->have_secret ? NULL : getenv("HIXL_AUTH_SECRET_FILE");
	int ret = 0;

	if (allowed) {
		ret = parse_allowed(allowed, o);
		*bad = "HIXL_ALLOWED_PEERS";
	}
	if (!ret && file) {
		ret = read_secret_file(file, o);
		*bad = "HIXL_AUTH_SECRET_FILE";
	}
	return ret;
}

/**
 * hixl_auth_apply() - point SETUP's fields at the gathered options
 * @o: the options; must live until SETUP returns
 * @s: the SETUP argument
 */
void hixl_auth_apply(struct hixl_auth_opts *o, struct hixl_setup *s)
{
	if (o->nr_allowed) {
		s->flags |= HIXL_SETUP_ALLOWED_PEERS;
		s->allowed = (uintptr_t)o->allowed;
		s->nr_allowed = o->nr_allowed;
	}
	if (o->secret_len) {
		s->flags |= HIXL_SETUP_SECRET;
		s->secret = (uintptr_t)o->secret;
		s->secret_len = o->secret_len;
	}
}

/** hixl_auth_opts_clear() - wipe the secret (after SETUP, or on failure) */
void hixl_auth_opts_clear(struct hixl_auth_opts *o)
{
	explicit_bzero(o->secret, sizeof(o->secret));
	o->secret_len = 0;
}
