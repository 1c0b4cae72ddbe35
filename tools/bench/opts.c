// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c - hixl-bench's command line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

struct cfg C = {
	.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2,
	.block_tokens = 16, .tokens = 2048, .iters = 3, .inflight = 8,
	.timeout_ms = 30000, .seed = 42, .procs = 2,
	.local = "10.77.0.1:18100", .remote = "10.77.0.1:18101", .mode = "both",
	.port = BENCH_PORT, .connect_wait = 10,
};

static int usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: hixl-bench [options]                  both engines on this host\n"
		"       hixl-bench --server [--port P] [--local NAME] [--pool N:MB]\n"
		"       hixl-bench --client HOST[:P] [options]  the other engine on HOST\n"
		"  --layers N        transformer layers (32)\n"
		"  --kv-heads N      KV heads (8)\n"
		"  --head-dim N      head dimension (128)\n"
		"  --dtype-bytes N   bytes per element (2: bf16)\n"
		"  --block-tokens N  tokens per KV block (16)\n"
		"  --tokens N        prefill length in tokens (2048)\n"
		"  --mode M          write | read | both (both)\n"
		"  --iters N         transfers of the whole cache per mode (3)\n"
		"  --inflight N      layer transfers in flight (8: each layer submitted\n"
		"                    with hixl_transfer_async while the ones before it\n"
		"                    are on the wire, as a serving engine does; 1:\n"
		"                    synchronous, hixl_transfer_sync; at most 1024)\n"
		"  --timeout-ms N    per-transfer timeout, ms (30000)\n"
		"  --seed N          block-table shuffle and data seed (42)\n"
		"  --procs N         2: each engine in its own process (default); 1: one process\n"
		"  --local NAME      prefill engine name (10.77.0.1:18100)\n"
		"  --remote NAME     decode engine name (10.77.0.1:18101)\n"
		"  --pool N:MB       staging pool of both engines (HIXL BufferPool; N 0..256,\n"
		"                    MB 0..1024, both 0 or neither; default 4:8; the module\n"
		"                    stages a batch's blocks only when its cost model finds\n"
		"                    that faster, never the default 32 KiB ones; 0:0: no\n"
		"                    pool, every block its own RDMA work request)\n"
		"  --transport T     auto (default: engines of this host copy in the kernel),\n"
		"                    rdma (always through the RDMA device) or local\n"
		"two hosts (like perftest): the server sets up its engine (--local, with a\n"
		"port) and waits on TCP port P for one client; the client sends its model,\n"
		"the server registers a cache for it and sends back its engine name, cache\n"
		"address and block table; the client connects and runs the modes against\n"
		"it, the server filling (read) and verifying (write) its side.  The TCP\n"
		"socket carries only that (no secret: the engines' own AllowedPeers and\n"
		"secret options guard the RDMA side); anyone who can reach it may start a\n"
		"run, so keep P inside the cluster's network.\n"
		"  --server          serve one client, then exit\n"
		"  --client HOST[:P] run against the server on HOST (the model, --mode,\n"
		"                    --iters, --inflight, --timeout-ms are the client's)\n"
		"  --port P          the TCP port (%d)\n"
		"  --connect-wait S  client: retry the TCP connect for S seconds (10)\n"
		"  --json            one JSON object on stdout, nothing else (on a failure\n"
		"                    before any transfer: {\"ok\":false,\"error\":...,\"errno\":N})\n"
		"  --no-progress     no progress bar (it is drawn only on a tty)\n"
		"  -h, --help        this help\n"
		"  -V, --version     the version (the library's, hixl_version())\n"
		"exit status:\n"
		"  0   every mode moved and verified the cache\n"
		"  1   a failure or a verification mismatch\n"
		"  2   usage: a bad option (nothing was run)\n"
		"  77  skipped: no /dev/hixl (hixl.ko not loaded) or no RDMA device on the\n"
		"      engine's address\n"
		"See hixl-bench(1).\n", BENCH_PORT);
	return rc;
}

/*
 * A usage error: the message on stderr (and, with --json, the early-failure
 * object on stdout); returns EXIT_USAGE.
 */
static int bad_usage(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail_early(-EINVAL, "%s", msg);
	fprintf(stderr, "Try 'hixl-bench --help'.\n");
	return EXIT_USAGE;
}

/* "N:MB" as the library's BufferPool option takes it (lib/engine.c) */
static bool pool_ok(const char *s)
{
	unsigned long n, mb;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end != ':' || end[1] < '0' || end[1] > '9')
		return false;
	mb = strtoul(end + 1, &end, 10);
	return !errno && !*end && n <= HIXL_MAX_POOL_BUFFERS && mb <= HIXL_MAX_POOL_BUFFER_MB &&
	       !n == !mb;
}

/* an engine name as hixl_engine_init() and hixl_connect() parse it */
static bool name_ok(const char *s, bool need_port)
{
	struct hixl_sockaddr a;

	return !hixl_parse_engine_name(s, &a) && (!need_port || a.port);
}

/*
 * --server / --client: which options go with which, and HOST[:PORT].
 * 0 or EXIT_USAGE.
 */
static int net_args(const bool *given)
{
	/* the client's alone (the server takes the model from the client) */
	static const char client_only[] = "LHDBNTmiftsp";
	const char *h = C.client, *colon;
	char *end;

	if (C.server && C.client)
		return bad_usage("--server or --client, not both");
	if (given['r'])
		return bad_usage("--remote: with --server/--client the peer's engine name "
				 "comes over the side socket");
	if (given['p'])
		return bad_usage("--procs: with --server/--client each host runs one engine");
	if (C.server)
		for (const char *o = client_only; *o; o++)
			if (given[(unsigned char)*o])
				return bad_usage("--server takes the model, --mode, --iters, "
						 "--inflight, --timeout-ms and --seed from the client: "
						 "give them there");
	if (C.server && given['w'])
		return bad_usage("--connect-wait is the client's");
	if (!C.port || C.port > 65535)
		return bad_usage("--port is 1..65535");
	if (C.connect_wait > 3600)
		return bad_usage("--connect-wait at most 3600 seconds");
	if (!C.client)
		return 0;
	/* HOST, HOST:PORT, [V6], [V6]:PORT, or a bare V6 address */
	if (h[0] == '[') {
		const char *rb = strchr(h, ']');

		if (!rb || rb == h + 1 || (rb[1] && rb[1] != ':'))
			return bad_usage("--client: bad host '%s' ([IPV6]:PORT)", h);
		snprintf(C.host, sizeof(C.host), "%.*s", (int)(rb - h - 1), h + 1);
		colon = rb[1] ? rb + 1 : NULL;
	} else {
		colon = strchr(h, ':');
		if (colon && strchr(colon + 1, ':'))	/* a bare IPv6 address */
			colon = NULL;
		snprintf(C.host, sizeof(C.host), "%.*s", colon ? (int)(colon - h) : (int)strlen(h), h);
	}
	if (!C.host[0] || strlen(h) >= sizeof(C.host))
		return bad_usage("--client: bad host '%s'", h);
	if (colon) {
		if (given['O'])
			return bad_usage("--client HOST:PORT and --port: one port, please");
		errno = 0;
		C.port = strtoul(colon + 1, &end, 10);
		if (errno || *end || colon[1] < '0' || colon[1] > '9' || !C.port || C.port > 65535)
			return bad_usage("--client: bad port in '%s' (1..65535)", h);
	}
	return 0;
}

/*
 * The KV layout's sizes from C's model (block_bytes, nblocks): 0, or
 * -EINVAL with @why when it overflows or a layer needs more than
 * HIXL_MAX_DESCS descriptors.  Also net.c's check of a client's model.
 */
int layout_check(char *why, size_t len)
{
	block_bytes = C.block_tokens * C.kv_heads * C.head_dim * C.dtype_bytes;
	nblocks = C.tokens / C.block_tokens;
	if (block_bytes / C.dtype_bytes / C.head_dim / C.kv_heads != C.block_tokens ||
	    nblocks > UINT32_MAX || 2 * nblocks > HIXL_MAX_DESCS ||
	    C.layers * 2 * nblocks > SIZE_MAX / block_bytes / 2) {
		snprintf(why, len, "layout too large (at most %d descriptors per layer: "
			 "2 * --tokens / --block-tokens)", HIXL_MAX_DESCS);
		return -EINVAL;
	}
	return 0;
}

/* layout_check() of the command line's model: 0 or a usage error */
static int layout_init(void)
{
	char why[160];

	return layout_check(why, sizeof(why)) ? bad_usage("%s", why) : 0;
}

/*
 * Parse and check every option before anything runs.  Returns 0, or the
 * exit status of a usage error (EXIT_USAGE; the message is printed) or of
 * --help/--version (-1 meaning exit 0).
 */
int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "layers", 1, NULL, 'L' }, { "kv-heads", 1, NULL, 'H' },
		{ "head-dim", 1, NULL, 'D' }, { "dtype-bytes", 1, NULL, 'B' },
		{ "block-tokens", 1, NULL, 'N' }, { "tokens", 1, NULL, 'T' },
		{ "mode", 1, NULL, 'm' }, { "iters", 1, NULL, 'i' },
		{ "inflight", 1, NULL, 'f' }, { "timeout-ms", 1, NULL, 't' },
		{ "seed", 1, NULL, 's' }, { "local", 1, NULL, 'l' },
		{ "remote", 1, NULL, 'r' }, { "json", 0, NULL, 'j' },
		{ "no-progress", 0, NULL, 'P' }, { "help", 0, NULL, 'h' },
		{ "procs", 1, NULL, 'p' }, { "pool", 1, NULL, 'o' },
		{ "version", 0, NULL, 'V' }, { "server", 0, NULL, 'S' },
		{ "client", 1, NULL, 'c' }, { "port", 1, NULL, 'O' },
		{ "connect-wait", 1, NULL, 'w' }, { "transport", 1, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	bool given[128] = { false };
	unsigned long *num;
	int c;

	/* --json anywhere makes even an error about an earlier option JSON */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			C.json = true;
	C.progress = isatty(STDERR_FILENO);
	opterr = 0;	/* getopt's own messages would not be JSON: ours below */
	while ((c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		num = NULL;
		if (c > 0 && c < 128)
			given[c] = true;
		switch (c) {
		case 'L': num = &C.layers; break;
		case 'H': num = &C.kv_heads; break;
		case 'D': num = &C.head_dim; break;
		case 'B': num = &C.dtype_bytes; break;
		case 'N': num = &C.block_tokens; break;
		case 'T': num = &C.tokens; break;
		case 'i': num = &C.iters; break;
		case 'f': num = &C.inflight; break;
		case 't': num = &C.timeout_ms; break;
		case 's': num = &C.seed; break;
		case 'p': num = &C.procs; break;
		case 'O': num = &C.port; break;
		case 'w': num = &C.connect_wait; break;
		case 'S': C.server = true; break;
		case 'c': C.client = optarg; break;
		case 'm': C.mode = optarg; break;
		case 'l': C.local = optarg; break;
		case 'r': C.remote = optarg; break;
		case 'o': C.pool = optarg; break;
		case 'x': C.transport = optarg; break;
		case 'j': C.json = true; break;
		case 'P': C.progress = false; break;
		case 'h': usage(0); return -1;
		case 'V': printf("hixl-bench (hixl) %s\n", hixl_version()); return -1;
		case ':': return bad_usage("%s needs an argument", argv[optind - 1]);
		default:
			return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
		if (num) {
			char *end;

			errno = 0;
			*num = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] < '0' || optarg[0] > '9')
				return bad_usage("bad number '%s' for %s", optarg, argv[optind - 2]);
		}
	}
	if (optind != argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (C.server || C.client) {
		int ret = net_args(given);

		if (ret)
			return ret;
	} else if (given['O'] || given['w']) {
		return bad_usage("--port and --connect-wait go with --server or --client");
	}
	if (strcmp(C.mode, "write") && strcmp(C.mode, "read") && strcmp(C.mode, "both"))
		return bad_usage("--mode is write, read or both, not '%s'", C.mode);
	if (!C.layers || !C.kv_heads || !C.head_dim || !C.dtype_bytes || !C.block_tokens ||
	    !C.tokens || !C.iters || !C.inflight || !C.timeout_ms)
		return bad_usage("every number must be > 0");
	if (C.timeout_ms > INT32_MAX)
		return bad_usage("--timeout-ms at most %d", INT32_MAX);
	if (C.tokens % C.block_tokens)
		return bad_usage("--tokens (%lu) must be a multiple of --block-tokens (%lu)",
				 C.tokens, C.block_tokens);
	if (C.inflight > 1024)
		return bad_usage("--inflight at most 1024");
	if (C.procs != 1 && C.procs != 2)
		return bad_usage("--procs is 1 or 2");
	if (C.transport && strcmp(C.transport, "auto") && strcmp(C.transport, "rdma") &&
	    strcmp(C.transport, "local"))
		return bad_usage("--transport is auto, rdma or local, not '%s'", C.transport);
	if (C.pool && !pool_ok(C.pool))
		return bad_usage("--pool is N:MB (N 0..%d, MB 0..%d, both 0 or neither), not '%s'",
				 HIXL_MAX_POOL_BUFFERS, HIXL_MAX_POOL_BUFFER_MB, C.pool);
	/* the prefill engine listens when the decode engine reads from it;
	 * the server's engine always does, a client's need not */
	if (!name_ok(C.local, C.server || (!C.client && strcmp(C.mode, "write"))))
		return bad_usage("--local: not an engine name (IP:PORT; IP alone for "
				 "--mode write): '%s'", C.local);
	if (!name_ok(C.remote, true))
		return bad_usage("--remote: not an engine name with a port (IP:PORT): '%s'",
				 C.remote);
	if (!C.server && !C.client && !strcmp(C.local, C.remote))
		return bad_usage("--local and --remote are the same engine '%s'", C.local);
	if (C.json)
		C.progress = false;
	return layout_init();
}
