// SPDX-License-Identifier: MIT
/*
 * name.c - libhixl-user: engine names ("ip:port", "[ipv6%scope]:port",
 * "host:port"): parsing them into a struct hixl_sockaddr and formatting one
 * back.  A host name is resolved with getaddrinfo() and the answer cached
 * (every transfer parses its peer's name); a failed CONNECT to an address
 * drops the names cached for it (hixl_name_forget()), so the next use asks
 * again: a peer that moved is found at its new address.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>

#include "internal.h"

/* s: only decimal digits, 1..10 of them, value <= max */
int hixl_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	size_t n = 0;

	for (; s[n]; n++) {
		if (s[n] < '0' || s[n] > '9' || n >= 10)
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[n] - '0');
	}
	if (!n || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * The name cache: host name -> address, at most NAME_CACHE entries (the
 * least recently used one replaced), shared by every engine of the process.
 */
#define NAME_CACHE	64

static struct name_entry {
	char host[HIXL_ENGINE_NAME_MAX];
	int family;
	uint8_t addr[16];
	unsigned long long used;	/* name_clock when last looked up */
} name_cache[NAME_CACHE];
static unsigned long long name_clock;
static pthread_mutex_t name_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * host: letters, digits, '-' and '.', with a letter somewhere, and not a
 * number inet_aton() takes ("10.77.0", "0x0a.1", which getaddrinfo() would
 * turn into an address): an IPv4 address is written a.b.c.d.
 */
static bool is_host_name(const char *host)
{
	struct in_addr ia;
	bool letter = false;

	if (!*host || *host == '-' || *host == '.')
		return false;
	for (const char *c = host; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))
			letter = true;
		else if (!(*c >= '0' && *c <= '9') && *c != '-' && *c != '.')
			return false;
	}
	return letter && !inet_aton(host, &ia);
}

/*
 * A name that does not resolve is an invalid name, whatever the resolver's
 * reason: EAI_NONAME, EAI_NODATA, EAI_FAIL, and EAI_AGAIN too (no DNS
 * server reachable, as in a test VM without a network: "nope" must stay
 * -EINVAL there as on a host with DNS).  Nothing is cached, so the next
 * call asks again.
 */
static int eai_errno(int eai)
{
	switch (eai) {
	case EAI_MEMORY:
		return -ENOMEM;
	case EAI_SYSTEM:
		return errno > 0 && errno != EAGAIN ? -errno : -EINVAL;
	default:
		return -EINVAL;
	}
}

/*
 * Resolve a host name to an address: the cached answer, else
 * getaddrinfo()'s first IPv4 address, else its first IPv6 one.
 */
static int resolve_host(const char *host, struct hixl_sockaddr *a)
{
	struct addrinfo hints, *res, *ai, *pick = NULL;
	struct name_entry *e, *victim = &name_cache[0];
	int saved = errno, ret;

	pthread_mutex_lock(&name_lock);
	for (e = name_cache; e < name_cache + NAME_CACHE; e++) {
		if (e->family && !strcmp(e->host, host)) {
			e->used = ++name_clock;
			a->family = (uint16_t)e->family;
			memcpy(a->addr, e->addr, sizeof(a->addr));
			pthread_mutex_unlock(&name_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&name_lock);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	ret = getaddrinfo(host, NULL, &hints, &res);
	if (ret) {
		ret = eai_errno(ret);
		errno = saved;
		return ret;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET) {
			pick = ai;
			break;
		}
		if (ai->ai_family == AF_INET6 && !pick)
			pick = ai;
	}
	if (!pick) {
		freeaddrinfo(res);
		errno = saved;
		return -EINVAL;
	}
	memset(a->addr, 0, sizeof(a->addr));
	if (pick->ai_family == AF_INET) {
		a->family = AF_INET;
		memcpy(a->addr, &((struct sockaddr_in *)(void *)pick->ai_addr)->sin_addr, 4);
	} else {
		a->family = AF_INET6;
		memcpy(a->addr, &((struct sockaddr_in6 *)(void *)pick->ai_addr)->sin6_addr, 16);
	}
	freeaddrinfo(res);
	errno = saved;

	pthread_mutex_lock(&name_lock);
	for (e = name_cache; e < name_cache + NAME_CACHE; e++) {
		if (!e->family || !strcmp(e->host, host)) {
			victim = e;
			break;
		}
		if (e->used < victim->used)
			victim = e;
	}
	snprintf(victim->host, sizeof(victim->host), "%s", host);
	victim->family = a->family;
	memcpy(victim->addr, a->addr, sizeof(victim->addr));
	victim->used = ++name_clock;
	pthread_mutex_unlock(&name_lock);
	return 0;
}

void hixl_name_forget(const struct hixl_sockaddr *a)
{
	pthread_mutex_lock(&name_lock);
	for (struct name_entry *e = name_cache; e < name_cache + NAME_CACHE; e++)
		if (e->family == a->family && !memcmp(e->addr, a->addr, sizeof(e->addr)))
			e->family = 0;
	pthread_mutex_unlock(&name_lock);
}

int hixl_parse_name(const char *name, struct hixl_sockaddr *out)
{
	char buf[HIXL_ENGINE_NAME_MAX], *host, *port = NULL, *end;
	struct hixl_sockaddr a;
	unsigned long v;
	size_t len;

	if (!name || !out)
		return -EINVAL;
	len = strnlen(name, sizeof(buf));
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, name, len + 1);
	memset(&a, 0, sizeof(a));
	if (buf[0] == '[') {
		char *scope;

		host = buf + 1;
		end = strchr(host, ']');
		if (!end)
			return -EINVAL;
		*end++ = '\0';
		if (*end == ':')
			port = end + 1;
		else if (*end)
			return -EINVAL;
		scope = strchr(host, '%');
		if (scope) {
			*scope++ = '\0';
			if (!*scope)
				return -EINVAL;
			if (hixl_parse_uint(scope, UINT32_MAX, &v) == 0) {
				a.scope_id = (uint32_t)v;
			} else {
				a.scope_id = if_nametoindex(scope);
				if (!a.scope_id)
					return -EINVAL;
			}
		}
		if (inet_pton(AF_INET6, host, a.addr) != 1)
			return -EINVAL;
		a.family = AF_INET6;
	} else {
		host = buf;
		port = strchr(buf, ':');
		if (port) {
			*port++ = '\0';
			if (strchr(port, ':'))	/* an IPv6 address without brackets */
				return -EINVAL;
		}
		if (port && hixl_parse_uint(port, 65535, &v))
			return -EINVAL;
		if (inet_pton(AF_INET, host, a.addr) == 1) {
			a.family = AF_INET;
		} else {
			int ret;

			if (!is_host_name(host))
				return -EINVAL;
			ret = resolve_host(host, &a);
			if (ret)
				return ret;
		}
	}
	if (port) {
		if (hixl_parse_uint(port, 65535, &v))
			return -EINVAL;
		a.port = (uint16_t)v;
	}
	*out = a;
	return 0;
}

HIXL_EXPORT int hixl_parse_engine_name(const char *name, struct hixl_sockaddr *out)
{
	return HIXL_KEEP_ERRNO(hixl_parse_name(name, out));
}

HIXL_EXPORT int hixl_format_engine_name(const struct hixl_sockaddr *addr, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN], scope[16] = "", port[8] = "";
	int saved = errno, n;

	if (!addr || !buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	if (addr->family != AF_INET && addr->family != AF_INET6)
		return -EAFNOSUPPORT;
	inet_ntop(addr->family, addr->addr, host, sizeof(host));
	errno = saved;
	if (addr->port)
		snprintf(port, sizeof(port), ":%u", addr->port);
	if (addr->family == AF_INET6) {
		if (addr->scope_id)
			snprintf(scope, sizeof(scope), "%%%u", addr->scope_id);
		n = snprintf(buf, len, "[%s%s]%s", host, scope, port);
	} else {
		n = snprintf(buf, len, "%s%s", host, port);
	}
	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	return 0;
}
