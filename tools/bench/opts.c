// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c - hixl-bench's command line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

struct cfg C = {
	.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2,
	.block_tokens = 16, .tokens = 2048, .iters = 3, .inflight = 1,
	.timeout_ms = 30000, .seed = 42, .procs = 2,
	.local = "10.77.0.1:18100", .remote = "10.77.0.1:18101", .mode = "both",
};

static int usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: hixl-bench [options]\n"
		"  --layers N        transformer layers (32)\n"
		"  --kv-heads N      KV heads (8)\n"
		"  --head-dim N      head dimension (128)\n"
		"  --dtype-bytes N   bytes per element (2: bf16)\n"
		"  --block-tokens N  tokens per KV block (16)\n"
		"  --tokens N        prefill length in tokens (2048)\n"
		"  --mode M          write | read | both (both)\n"
		"  --iters N         transfers of the whole cache per mode (3)\n"
		"  --inflight N      layer transfers in flight (1: synchronous;\n"
		"                    > 1: hixl_transfer_async)\n"
		"  --timeout-ms N    per-transfer timeout, ms (30000)\n"
		"  --seed N          block-table shuffle and data seed (42)\n"
		"  --procs N         2: each engine in its own process (default); 1: one process\n"
		"  --local NAME      prefill engine name (10.77.0.1:18100)\n"
		"  --remote NAME     decode engine name (10.77.0.1:18101)\n"
		"  --pool N:MB       staging pool of both engines (HIXL BufferPool; default\n"
		"                    4:8: blocks < 256 KiB are staged; 0:0 posts every\n"
		"                    block as its own RDMA work request)\n"
		"  --json            one JSON object on stdout, nothing else\n"
		"  --no-progress     no progress bar (it is drawn only on a tty)\n"
		"  -h, --help        this help\n"
		"  -V, --version     the version (the library's, hixl_version())\n"
		"exit status: 0 success; 1 a failure or a verification mismatch; 2 usage;\n"
		"77 no /dev/hixl or no RDMA device on the address.  See hixl-bench(1).\n");
	return rc;
}

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
		{ "version", 0, NULL, 'V' }, { NULL, 0, NULL, 0 },
	};
	unsigned long *num;
	int c;

	C.progress = isatty(STDERR_FILENO);
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		num = NULL;
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
		case 'm': C.mode = optarg; break;
		case 'l': C.local = optarg; break;
		case 'r': C.remote = optarg; break;
		case 'o': C.pool = optarg; break;
		case 'j': C.json = true; break;
		case 'P': C.progress = false; break;
		case 'h': exit(usage(0));
		case 'V': printf("hixl-bench (hixl) %s\n", hixl_version()); exit(0);
		default: return usage(2);
		}
		if (num) {
			char *end;

			errno = 0;
			*num = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-') {
				fprintf(stderr, "hixl-bench: bad number '%s'\n", optarg);
				return 2;
			}
		}
	}
	if (optind != argc)
		return usage(2);
	if (strcmp(C.mode, "write") && strcmp(C.mode, "read") && strcmp(C.mode, "both")) {
		fprintf(stderr, "hixl-bench: --mode write|read|both\n");
		return 2;
	}
	if (!C.layers || !C.kv_heads || !C.head_dim || !C.dtype_bytes || !C.block_tokens ||
	    !C.tokens || !C.iters || !C.inflight || !C.timeout_ms || C.timeout_ms > INT32_MAX ||
	    C.tokens % C.block_tokens || C.inflight > 1024 || C.procs > 2) {
		fprintf(stderr, "hixl-bench: every number must be > 0, --tokens a multiple of "
			"--block-tokens, --inflight <= 1024, --procs 1 or 2\n");
		return 2;
	}
	if (C.json)
		C.progress = false;
	return 0;
}

