// SPDX-License-Identifier: MIT
/*
 * name.c - libhixl-user: engine names ("ip:port", "[ipv6%scope]:port"):
 * parsing them into a struct hixl_sockaddr and formatting one back.
 */
#include <arpa/inet.h>
#include <net/if.h>
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
		if (inet_pton(AF_INET, host, a.addr) != 1)
			return -EINVAL;
		a.family = AF_INET;
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
