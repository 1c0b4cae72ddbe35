// SPDX-License-Identifier: MIT
/*
 * engine.c - libhixl-user: an engine's life: its options, init (SETUP, the
 * choice of the asynchronous path) and finalize; what it tells about
 * itself.  How the engine's parts fit together: lib/internal.h.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

static int parse_tc(const char *s, uint32_t *out)
{
	unsigned long v;

	if (!s || hixl_parse_uint(s, 255, &v) || v % 4)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int parse_sl(const char *s, uint32_t *out)
{
	unsigned long v;

	if (!s || hixl_parse_uint(s, 7, &v))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int parse_pool(const char *s, uint32_t *n, uint32_t *mb)
{
	char buf[32], *colon;
	unsigned long a, b;

	if (!s || strnlen(s, sizeof(buf)) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (hixl_parse_uint(buf, HIXL_MAX_POOL_BUFFERS, &a) ||
	    hixl_parse_uint(colon + 1, HIXL_MAX_POOL_BUFFER_MB, &b) || !a != !b)
		return -EINVAL;
	*n = (uint32_t)a;
	*mb = (uint32_t)b;
	return 0;
}

/* "Transport": "auto", "rdma" or "local" (HIXL_TRANSPORT_*) */
static int parse_transport(const char *v, uint32_t *out)
{
	if (!strcmp(v, "auto"))
		*out = HIXL_TRANSPORT_AUTO;
	else if (!strcmp(v, "rdma"))
		*out = HIXL_TRANSPORT_RDMA;
	else if (!strcmp(v, "local"))
		*out = HIXL_TRANSPORT_LOCAL;
	else
		return -EINVAL;
	return 0;
}

/*
 * "Rails": "auto" (HIXL_SETUP_RAILS_AUTO) or a comma-separated list of local
 * addresses, IPv4 or IPv6, no port, one per further RDMA device (at most
 * HIXL_MAX_RAILS - 1); "" is none.  The kernel checks them further.
 */
static int parse_rails(const char *v, struct hixl_setup *s, struct hixl_sockaddr *rails)
{
	char buf[64];
	uint32_t n = 0;

	s->flags &= ~(HIXL_SETUP_RAILS | HIXL_SETUP_RAILS_AUTO);
	s->rails = 0;
	s->nr_rails = 0;
	if (!strcmp(v, "auto")) {
		s->flags |= HIXL_SETUP_RAILS_AUTO;
		return 0;
	}
	while (*v) {
		size_t len = strcspn(v, ",");
		struct hixl_sockaddr *a = &rails[n];

		if (!len || len >= sizeof(buf) || n == HIXL_MAX_RAILS - 1)
			return -EINVAL;
		memcpy(buf, v, len);
		buf[len] = '\0';
		memset(a, 0, sizeof(*a));
		if (inet_pton(AF_INET, buf, a->addr) == 1)
			a->family = AF_INET;
		else if (inet_pton(AF_INET6, buf, a->addr) == 1)
			a->family = AF_INET6;
		else
			return -EINVAL;
		n++;
		v += len;
		if (*v == ',' && !*++v)
			return -EINVAL;		/* a trailing comma */
	}
	if (n) {
		s->flags |= HIXL_SETUP_RAILS;
		s->rails = (uint64_t)(uintptr_t)rails;
		s->nr_rails = n;
	}
	return 0;
}

/* the first of two environment variables that is set (*name: which), or NULL */
static const char *env2(const char *ours, const char *hccl, const char **name)
{
	const char *v = getenv(ours);

	*name = v ? ours : hccl;
	return v ? v : getenv(hccl);
}

/* "DeviceMemPath": "auto", "p2p" or "staged" (enum hixl_devmem_path) */
static int parse_devmem(const char *v, int *out)
{
	if (!strcmp(v, "auto"))
		*out = HIXL_DEVMEM_AUTO;
	else if (!strcmp(v, "p2p"))
		*out = HIXL_DEVMEM_P2P;
	else if (!strcmp(v, "staged"))
		*out = HIXL_DEVMEM_STAGED;
	else
		return -EINVAL;
	return 0;
}

/* "AutoConnect": "1"/"true" or "0"/"false" */
static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "true")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "0") || !strcmp(v, "false")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

#define HIXL_STR_(x)	#x
#define HIXL_STR(x)	HIXL_STR_(x)
static_assert(HIXL_MAX_RAILS - 1 == 7, "ACCEPT_RAILS says 7 further rails");

/* what each option and its environment variable accept, for the error */
#define ACCEPT_POOL	"\"BUFFERS:MB\", BUFFERS 1.." HIXL_STR(HIXL_MAX_POOL_BUFFERS) \
			", MB 1.." HIXL_STR(HIXL_MAX_POOL_BUFFER_MB) ", or \"0:0\""
#define ACCEPT_TC	"0..255, a multiple of 4"
#define ACCEPT_SL	"0..7"
#define ACCEPT_TRANSPORT "auto, rdma or local"
#define ACCEPT_RAILS	"auto, \"\" or up to 7 IP addresses, comma-separated, no port"
#define ACCEPT_BOOL	"1, true, 0 or false"
#define ACCEPT_DEVMEM	"auto, p2p or staged"
#define ACCEPT_PEERS	"up to " HIXL_STR(HIXL_MAX_ALLOWED_PEERS) \
			" ADDRESS or ADDRESS/PREFIXLEN, comma-separated"
#define ACCEPT_SECRET	HIXL_STR(HIXL_SECRET_MIN) ".." HIXL_STR(HIXL_SECRET_MAX) " bytes"
#define ACCEPT_FILE	"a readable file of " ACCEPT_SECRET " (one trailing newline left out)"
#define KNOWN_OPTIONS	"BufferPool RdmaTrafficClass RdmaServiceLevel AutoConnect Transport " \
			"Rails AllowedPeers AuthSecret AuthSecretFile DeviceMemPath"

/* what an auth option or variable accepts */
static const char *auth_accepts(const char *key)
{
	if (!strcmp(key, HIXL_OPTION_ALLOWED_PEERS) || !strcmp(key, "HIXL_ALLOWED_PEERS"))
		return ACCEPT_PEERS;
	if (!strcmp(key, HIXL_OPTION_AUTH_SECRET))
		return ACCEPT_SECRET;
	return ACCEPT_FILE;
}

/*
 * Say in @why which option (@env false) or environment variable (@env true)
 * was refused, with its value unless it is a secret, and what it accepts;
 * return @err.
 */
static int bad_option(char *why, size_t len, bool env, const char *name, const char *value,
		      const char *accepts, int err)
{
	bool secret = !strcmp(name, HIXL_OPTION_AUTH_SECRET);

	snprintf(why, len, "%s %s%s%.32s%s: accepted: %s", env ? "environment" : "option",
		 name, env ? "=" : " \"", secret ? "..." : value, env ? "" : "\"", accepts);
	return err;
}

/*
 * The engine's options and, for what no option said, the environment.
 * On -EINVAL (or the key file's -errno) @why names the option or variable
 * and what it accepts.
 */
static int setup_options(struct hixl_setup *s, struct hixl_auth_opts *ao, bool *auto_connect,
			 int *devmem, struct hixl_sockaddr *rails, const struct hixl_option *opts, size_t nopts,
			 char *why, size_t wlen)
{
	bool have_tc = false, have_sl = false, have_ac = false, have_tr = false;
	bool have_rails = false, have_dm = false;
	const char *v, *name, *bad;
	int ret;

	if (nopts && !opts) {
		snprintf(why, wlen, "%zu options at NULL", nopts);
		return -EINVAL;
	}
	s->traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s->service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	s->pool_buffers = HIXL_DEFAULT_POOL_BUFFERS;
	s->pool_buffer_mb = HIXL_DEFAULT_POOL_BUFFER_MB;
	for (size_t i = 0; i < nopts; i++) {
		const char *k = opts[i].key;

		v = opts[i].value;
		if (!k || !v) {
			snprintf(why, wlen, "option %zu (%.32s): a NULL %s", i, k ? k : "",
				 k ? "value" : "key");
			return -EINVAL;
		}
		if (!strcmp(k, HIXL_OPTION_BUFFER_POOL)) {
			if (parse_pool(v, &s->pool_buffers, &s->pool_buffer_mb))
				return bad_option(why, wlen, false, k, v, ACCEPT_POOL, -EINVAL);
		} else if (!strcmp(k, HIXL_OPTION_RDMA_TRAFFIC_CLASS)) {
			if (parse_tc(v, &s->traffic_class))
				return bad_option(why, wlen, false, k, v, ACCEPT_TC, -EINVAL);
			have_tc = true;
		} else if (!strcmp(k, HIXL_OPTION_RDMA_SERVICE_LEVEL)) {
			if (parse_sl(v, &s->service_level))
				return bad_option(why, wlen, false, k, v, ACCEPT_SL, -EINVAL);
			have_sl = true;
		} else if (!strcmp(k, HIXL_OPTION_TRANSPORT)) {
			if (parse_transport(v, &s->transport))
				return bad_option(why, wlen, false, k, v, ACCEPT_TRANSPORT, -EINVAL);
			have_tr = true;
		} else if (!strcmp(k, HIXL_OPTION_RAILS)) {
			if (parse_rails(v, s, rails))
				return bad_option(why, wlen, false, k, v, ACCEPT_RAILS, -EINVAL);
			have_rails = true;
		} else if (!strcmp(k, HIXL_OPTION_DEVICE_MEM_PATH)) {
			if (parse_devmem(v, devmem))
				return bad_option(why, wlen, false, k, v, ACCEPT_DEVMEM, -EINVAL);
			have_dm = true;
		} else if (!strcmp(k, HIXL_OPTION_AUTO_CONNECT)) {
			if (parse_bool(v, auto_connect))
				return bad_option(why, wlen, false, k, v, ACCEPT_BOOL, -EINVAL);
			have_ac = true;
		} else {
			ret = hixl_auth_option(ao, k, v);
			if (!ret) {
				snprintf(why, wlen, "unknown option \"%.32s\" (known: " KNOWN_OPTIONS ")",
					 k);
				return -EINVAL;
			}
			if (ret < 0)
				return bad_option(why, wlen, false, k, v, auth_accepts(k), ret);
		}
	}
	if (!have_tc && (v = env2("HIXL_RDMA_TC", "HCCL_RDMA_TC", &name)) &&
	    parse_tc(v, &s->traffic_class))
		return bad_option(why, wlen, true, name, v, ACCEPT_TC, -EINVAL);
	if (!have_sl && (v = env2("HIXL_RDMA_SL", "HCCL_RDMA_SL", &name)) &&
	    parse_sl(v, &s->service_level))
		return bad_option(why, wlen, true, name, v, ACCEPT_SL, -EINVAL);
	if (!have_ac && (v = getenv("HIXL_AUTO_CONNECT")) && parse_bool(v, auto_connect))
		return bad_option(why, wlen, true, "HIXL_AUTO_CONNECT", v, ACCEPT_BOOL, -EINVAL);
	if (!have_tr && (v = getenv("HIXL_TRANSPORT")) && parse_transport(v, &s->transport))
		return bad_option(why, wlen, true, "HIXL_TRANSPORT", v, ACCEPT_TRANSPORT, -EINVAL);
	if (!have_dm && (v = getenv("HIXL_DEVICE_MEM_PATH")) && parse_devmem(v, devmem))
		return bad_option(why, wlen, true, "HIXL_DEVICE_MEM_PATH", v, ACCEPT_DEVMEM, -EINVAL);
	if (!have_rails && (v = getenv("HIXL_RAILS")) && parse_rails(v, s, rails))
		return bad_option(why, wlen, true, "HIXL_RAILS", v, ACCEPT_RAILS, -EINVAL);
	ret = hixl_auth_env(ao, &bad);
	if (ret)
		return bad_option(why, wlen, true, bad, getenv(bad) ?: "", auth_accepts(bad), ret);
	hixl_auth_apply(ao, s);
	return 0;
}

/*
 * Does the module take SETUP's flags: allowed peers and secret, any port?
 * (An older one: -EINVAL.)
 */
static int setup_supported(int fd, struct hixl_setup *s)
{
	struct hixl_info info;
	int ret;

	if (!s->flags && !s->transport)
		return 0;
	ret = hixl_dev_get_info(fd, &info);
	if (ret)
		return ret;
	if (s->transport && !(info.features & HIXL_FEAT_LOCAL)) {
		/* an older module: RDMA is all it does, and it refuses the field */
		if (s->transport != HIXL_TRANSPORT_RDMA)
			return -EOPNOTSUPP;
		s->transport = HIXL_TRANSPORT_AUTO;
	}
	if ((s->flags & (HIXL_SETUP_ALLOWED_PEERS | HIXL_SETUP_SECRET)) &&
	    !(info.features & HIXL_FEAT_AUTH))
		return -EOPNOTSUPP;
	if ((s->flags & HIXL_SETUP_LISTEN_ANY) && !(info.features & HIXL_FEAT_LISTEN_ANY))
		return -EOPNOTSUPP;
	if ((s->flags & (HIXL_SETUP_RAILS | HIXL_SETUP_RAILS_AUTO)) &&
	    !(info.features & HIXL_FEAT_RAILS))
		return -EOPNOTSUPP;	/* an older module: one rail */
	return 0;
}

/* 127.0.0.0/8 or ::1 */
static bool is_loopback(const struct hixl_sockaddr *a)
{
	static const uint8_t v6_lo[16] = { [15] = 1 };

	if (a->family == AF_INET)
		return a->addr[0] == 127;
	return a->family == AF_INET6 && !memcmp(a->addr, v6_lo, 16);
}

/* "ip:0" / "[ipv6]:0": listen on any port (a name without a port: client only) */
static bool any_port(const char *name)
{
	const char *c = strrchr(name, ':');

	if (!c || strcmp(c, ":0"))
		return false;
	return name[0] == '[' ? c > name && c[-1] == ']' : strchr(name, ':') == c;
}

static int engine_init(struct hixl_engine **engp, const char *local_engine,
		       const struct hixl_option *opts, size_t nopts, bool *at_open,
		       char *why, size_t wlen)
{
	struct hixl_sockaddr rails[HIXL_MAX_RAILS - 1];
	struct hixl_auth_opts ao = { 0 };
	struct hixl_info info;
	struct hixl_engine *eng;
	struct hixl_setup s;
	pthread_condattr_t ca;
	bool auto_connect = false;
	int devmem = HIXL_DEVMEM_AUTO;
	int ret, fd;

	if (!engp)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	ret = hixl_parse_name(local_engine, &s.local);
	if (ret) {
		if (local_engine)
			snprintf(why, wlen, "not an engine name (IPV4:PORT, [IPV6]:PORT or "
				 "HOST:PORT with a HOST that resolves, PORT 0..65535, 0 for any)");
		return ret;
	}
	if (any_port(local_engine))
		s.flags |= HIXL_SETUP_LISTEN_ANY;
	ret = setup_options(&s, &ao, &auto_connect, &devmem, rails, opts, nopts, why, wlen);
	if (ret) {
		hixl_auth_opts_clear(&ao);
		return ret;
	}
	eng = calloc(1, sizeof(*eng));
	if (!eng) {
		hixl_auth_opts_clear(&ao);
		return -ENOMEM;
	}
	fd = hixl_dev_open(NULL);
	if (fd < 0) {
		*at_open = true;
		hixl_auth_opts_clear(&ao);
		free(eng);
		return fd;
	}
	ret = setup_supported(fd, &s);
	if (!ret)
		ret = hixl_ioctl(fd, HIXL_IOC_SETUP, &s);
	hixl_auth_opts_clear(&ao);	/* the kernel has its keyed hash: wipe ours */
	if (ret) {
		close(fd);
		free(eng);
		return ret;
	}
	eng->fd = fd;
	eng->evfd = eng->epfd = -1;
	if (hixl_dev_get_info(fd, &info) == 0)
		eng->features = info.features;	/* else 0: nothing optional is used */
	eng->auto_connect = auto_connect;
	eng->devmem_path = devmem;
	eng->local = s.local;
	memcpy(eng->device, s.device, sizeof(eng->device));
	eng->device[sizeof(eng->device) - 1] = '\0';
	pthread_mutex_init(&eng->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&eng->cond, &ca);
	pthread_cond_init(&eng->qcond, &ca);
	pthread_condattr_destroy(&ca);
	hixl_uring_setup(eng);
	*engp = eng;
	return 0;
}

HIXL_EXPORT int hixl_engine_init(struct hixl_engine **eng, const char *local_engine,
				 const struct hixl_option *opts, size_t nopts)
{
	bool at_open = false;
	char why[512] = "";
	int ret = HIXL_KEEP_ERRNO(engine_init(eng, local_engine, opts, nopts, &at_open,
					      why, sizeof(why)));
	struct hixl_sockaddr a;

	if (ret && why[0])	/* an option or environment variable refused */
		return hixl_failf(ret, "hixl_engine_init(%.*s): %s", HIXL_ENGINE_NAME_MAX,
				  local_engine, why);

	if (at_open && (ret == -ENOPKG || ret == -EPERM))
		return hixl_failf(ret, "hixl_engine_init(%.*s): %s", HIXL_ENGINE_NAME_MAX,
				  local_engine, ret == -ENOPKG ?
				  "no " HIXL_DEVICE_PATH ": the kernel module hixl.ko is not loaded "
				  "(sudo modprobe hixl; install it with sudo make install-module)" :
				  HIXL_DEVICE_PATH ": not in its group hixl (sudo usermod -aG hixl "
				  "$USER, then log in again)");

	if ((ret == -ENODEV || ret == -EADDRNOTAVAIL) && !hixl_parse_name(local_engine, &a))
		return hixl_failf(ret, "hixl_engine_init(%.*s): no RDMA device has this address%s",
				  HIXL_ENGINE_NAME_MAX, local_engine,
				  is_loopback(&a) ? " (a loopback engine has none: Transport rdma is "
				  "refused; an older module needs an RDMA device's address)" : "");
	return hixl_fail("hixl_engine_init", local_engine, ret);
}

HIXL_EXPORT void hixl_engine_finalize(struct hixl_engine *eng)
{
	struct hixl_request *r;
	int saved = errno;

	if (!eng)
		return;
	pthread_mutex_lock(&eng->lock);
	eng->stopping = true;
	while (eng->connect_threads)
		pthread_cond_wait(&eng->cond, &eng->lock);
	for (r = eng->qhead; r; r = r->qnext) {
		r->st = HIXL_TRANSFER_FAILED;
		r->err = -ECANCELED;
		r->failed = hixl_req_not_done(r, -ECANCELED);
	}
	eng->qhead = eng->qtail = NULL;
	pthread_cond_broadcast(&eng->qcond);
	hixl_cancel_running(eng);
	hixl_staged_wait(eng);
	if (eng->reaper_on)
		hixl_reaper_stop(eng);
	pthread_mutex_unlock(&eng->lock);
	for (int i = 0; i < eng->nworkers; i++)
		pthread_join(eng->workers[i], NULL);
	if (eng->reaper_on)
		pthread_join(eng->reaper, NULL);
	if (eng->uring)
		hixl_ring_exit(&eng->ring);

	/* no other thread is left: no lock needed from here on */
	hixl_links_release(eng);
	hixl_staged_release(eng);
	hixl_handles_release(eng);
	hixl_requests_release(eng);
	hixl_event_release(eng);
	close(eng->fd);
	pthread_cond_destroy(&eng->qcond);
	pthread_cond_destroy(&eng->cond);
	pthread_mutex_destroy(&eng->lock);
	free(eng);
	errno = saved;
}

HIXL_EXPORT int hixl_engine_name(const struct hixl_engine *eng, char *buf, size_t len)
{
	if (!eng)
		return -EINVAL;
	return hixl_format_engine_name(&eng->local, buf, len);
}

HIXL_EXPORT int hixl_engine_caps(struct hixl_engine *eng, struct hixl_info *info)
{
	if (!eng || !info)
		return -EINVAL;
	return hixl_dev_get_info(eng->fd, info);
}

HIXL_EXPORT int hixl_engine_async_path(const struct hixl_engine *eng)
{
	if (!eng)
		return -EINVAL;
	return eng->uring ? HIXL_ASYNC_URING : HIXL_ASYNC_THREADS;
}

HIXL_EXPORT int hixl_engine_fd(const struct hixl_engine *eng)
{
	return eng ? eng->fd : -EINVAL;
}

HIXL_EXPORT const char *hixl_engine_device(const struct hixl_engine *eng)
{
	return eng ? eng->device : "";
}

HIXL_EXPORT int hixl_engine_stats(const struct hixl_engine *eng, struct hixl_stats *st)
{
	if (!eng || !st)
		return -EINVAL;
	return hixl_dev_get_stats(eng->fd, st);
}

HIXL_EXPORT int hixl_engine_link_stats(const struct hixl_engine *eng, struct hixl_link_stat *buf,
				       uint32_t count, uint32_t *total)
{
	if (!eng)
		return -EINVAL;
	return hixl_dev_link_stats(eng->fd, 0, buf, count, total);
}
