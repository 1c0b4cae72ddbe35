// SPDX-License-Identifier: GPL-2.0
/*
 * bench-gpu.c - one measurement of `make bench-gpu`: the KV job's shape
 * (layers of scattered blocks, one asynchronous request a layer, all
 * layers in flight) between two engines of this VM over RDMA, the
 * initiator's KV cache in host memory, in device memory registered
 * peer-to-peer, or in device memory registered staged (lib/staged.c).
 *
 *   bench-gpu --mem host|p2p|staged --op write|read [--layers 4]
 *             [--descs 256] [--block-kib 32] [--rep N] [--port 29400] [--sync]
 *
 * Device memory is the stand-in CUDA driver's (tests/gpu/fake_cuda.c, its
 * path in HIXL_BENCH_FAKE_CUDA or build/fake-cuda/libcuda.so.1 beside this
 * program's bench/): a memfd the process sees only PROT_NONE, exported as a
 * udmabuf for p2p, its copies (cuMemcpy*Async) pread/pwrite on a thread
 * per stream: under TCG a staged round's two copies are CPU copies, which
 * a GPU's copy engine would not charge the CPU.
 *
 * Engine A (initiator, --port; DeviceMemPath "p2p" or "staged") and B
 * (--port + 1, host memory) on 10.77.0.1 (rxe0 in the test VM), Transport
 * "rdma", BufferPool "0:0" (every descriptor a work request).  Each side
 * holds LAYERS x 2 x DESCS blocks of BLOCK bytes; a layer's request moves
 * DESCS of its 2 x DESCS blocks, scattered on both sides (the picks seeded
 * by REP).  Timed: the LAYERS hixl_transfer_async() calls and the waits
 * for all of them (--sync: one hixl_transfer_sync() a layer, the layers
 * one after another, as Mooncake's batch_transfer_sync_* loop in
 * bench/mcbench.py), after one untimed pass of the same requests (the link,
 * the ring, the staged bounce buffers and request threads made; the
 * destination zeroed again after it).  Every moved
 * block is compared with its source afterwards (device memory through
 * cuMemcpyDtoH); with staged memory the engine's staged-bytes counter must
 * have grown by the bytes moved.
 *
 * Output (stdout), one line each:
 *   res REP TOOL OP BLOCK BATCH BYTES SECONDS CPU_SECONDS   (BATCH: descriptors in all)
 *   verified REP TOOL OP BYTES_EQUAL BYTES
 *   staged REP TOOL OP BYTES_THROUGH_BOUNCE_BUFFERS
 *   na REP TOOL OP BLOCK BATCH REASON...
 * TOOL is gpu-host, gpu-p2p or gpu-staged; CPU the whole VM's busy time.
 * Exit status 0 when every request completed and every byte matched, 1
 * when not, 2 on a usage error, 77 without /dev/hixl, /dev/udmabuf or the
 * stand-in driver.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "bench_blocks.h"
#include "bench_clock.h"
#include "../tests/gpu/fake_cuda.h"

#define IP	"10.77.0.1"

static struct {
	fake_cuInit init;
	fake_cuMemAlloc_v2 alloc;
	fake_cuMemcpyHtoD_v2 htod;
	fake_cuMemcpyDtoH_v2 dtoh;
} cu;

/* the stand-in driver, loaded before the library's dlopen("libcuda.so.1") */
static const char *cuda_load(void)
{
	static char path[PATH_MAX + 64];
	const char *env = getenv("HIXL_BENCH_FAKE_CUDA");
	char exe[PATH_MAX];
	ssize_t n;
	void *h;

	if (access("/dev/udmabuf", R_OK | W_OK))
		return "no /dev/udmabuf: the stand-in GPU exports udmabufs";
	if (env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return "no /proc/self/exe";
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		snprintf(path, sizeof(path), "%s/../build/fake-cuda/libcuda.so.1", exe);
	}
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h)
		return "the stand-in CUDA driver is not built (make tests)";
	cu.init = (fake_cuInit)dlsym(h, "cuInit");
	cu.alloc = (fake_cuMemAlloc_v2)dlsym(h, "cuMemAlloc_v2");
	cu.htod = (fake_cuMemcpyHtoD_v2)dlsym(h, "cuMemcpyHtoD_v2");
	cu.dtoh = (fake_cuMemcpyDtoH_v2)dlsym(h, "cuMemcpyDtoH_v2");
	if (!cu.init || !cu.alloc || !cu.htod || !cu.dtoh || cu.init(0))
		return "the stand-in CUDA driver does not initialize";
	return NULL;
}

/* A pseudo-random pattern of seed. */
static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1);

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

static struct hixl_engine *engine(unsigned long port, const char *path, int *err)
{
	struct hixl_option o[3] = {
		{ HIXL_OPTION_TRANSPORT, "rdma" }, { HIXL_OPTION_BUFFER_POOL, "0:0" },
		{ HIXL_OPTION_DEVICE_MEM_PATH, path },
	};
	struct hixl_engine *e = NULL;
	char name[64];

	snprintf(name, sizeof(name), IP ":%lu", port);
	*err = hixl_engine_init(&e, name, o, path ? 3 : 2);
	return *err ? NULL : e;
}

/*
 * One pass: LAYERS asynchronous requests of DESCS descriptors each, all in
 * flight, then the waits for all of them.  0 or the first error.
 */
static int pass(struct hixl_engine *a, const char *peer, enum hixl_op op,
		const struct hixl_op_desc *d, size_t layers, size_t descs,
		struct hixl_request **req, bool sync)
{
	int err = 0;

	for (size_t l = 0; sync && l < layers && !err; l++)
		err = hixl_transfer_sync(a, peer, op, d + l * descs, descs, 300000, NULL);
	for (size_t l = 0; !sync && l < layers && !err; l++) {
		struct hixl_transfer_args args = { .timeout_ms = 300000 };

		err = hixl_transfer_async(a, peer, op, d + l * descs, descs, &args, &req[l]);
	}
	for (size_t l = 0; l < layers; l++) {
		enum hixl_transfer_status st;
		int e;

		if (!req[l])
			continue;
		e = hixl_request_wait(a, req[l], 300000, &st);
		if (!e)
			e = hixl_request_result(req[l], NULL);
		if (!err)
			err = e;
		hixl_request_free(req[l]);
		req[l] = NULL;
	}
	return err;
}

/* Zero the destination side of op: the peer's buffer or the local KV cache. */
static int zero_dest(enum hixl_op op, unsigned char *rb, unsigned char *host_a, CUdeviceptr dev,
		     unsigned char *zeros, size_t len)
{
	if (op == HIXL_OP_WRITE) {
		memset(rb, 0, len);
		return 0;
	}
	if (dev)
		return cu.htod(dev, zeros, len);
	memset(host_a, 0, len);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-gpu --mem host|p2p|staged --op write|read [--layers N] "
		"[--descs N] [--block-kib N] [--rep N] [--port P] [--sync]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mem", 1, NULL, 'M' }, { "op", 1, NULL, 'o' }, { "layers", 1, NULL, 'l' },
		{ "descs", 1, NULL, 'd' }, { "block-kib", 1, NULL, 'b' }, { "rep", 1, NULL, 'r' },
		{ "port", 1, NULL, 'p' }, { "sync", 0, NULL, 's' }, { NULL, 0, NULL, 0 },
	};
	unsigned long layers = 4, descs = 256, block_kib = 32, rep = 0, port = 29400;
	const char *mem = NULL, *opname = NULL, *why, *tool;
	struct hixl_engine *a = NULL, *b = NULL;
	struct hixl_request **req = NULL;
	struct hixl_op_desc *d = NULL;
	struct hixl_staged_stats s0 = { 0 }, s1 = { 0 };
	struct hixl_mem_info info;
	struct hixl_mem_desc md;
	unsigned char *host_a = NULL, *rb, *pat, *back = NULL, *zeros = NULL;
	unsigned int *lid, *rid, seed;
	size_t len, block, per_layer, n, moved, equal = 0;
	CUdeviceptr dev = 0;
	uint64_t base_a, h;
	double t0, t1, c0, c1;
	enum hixl_op op;
	bool device, sync = false;
	char peer[64];
	int c, err = 0, ret = 1;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'M': mem = optarg; break;
		case 'o': opname = optarg; break;
		case 'l': layers = strtoul(optarg, NULL, 0); break;
		case 'd': descs = strtoul(optarg, NULL, 0); break;
		case 'b': block_kib = strtoul(optarg, NULL, 0); break;
		case 'r': rep = strtoul(optarg, NULL, 0); break;
		case 'p': port = strtoul(optarg, NULL, 0); break;
		case 's': sync = true; break;
		default: usage();
		}
	}
	if (!mem || !opname || optind != argc || !layers || layers > 64 || !descs ||
	    descs > 4096 || !block_kib || block_kib > 4096 || !port || port > 65534)
		usage();
	if (!strcmp(opname, "write"))
		op = HIXL_OP_WRITE;
	else if (!strcmp(opname, "read"))
		op = HIXL_OP_READ;
	else
		usage();
	if (!strcmp(mem, "host"))
		tool = "gpu-host";
	else if (!strcmp(mem, "p2p"))
		tool = "gpu-p2p";
	else if (!strcmp(mem, "staged"))
		tool = "gpu-staged";
	else
		usage();
	device = strcmp(mem, "host") != 0;
	block = block_kib * 1024;
	per_layer = 2 * descs * block;
	len = layers * per_layer;
	n = layers * descs;
	moved = n * block;

	if (device) {
		why = cuda_load();
		if (why) {
			printf("na %lu %s %s %zu %zu %s\n", rep, tool, opname, block, n, why);
			return 77;
		}
	}
	b = engine(port + 1, NULL, &err);
	if (b)
		a = engine(port, device ? mem : NULL, &err);
	if (!a || !b) {
		printf("na %lu %s %s %zu %zu engine: %s\n", rep, tool, opname, block, n,
		       strerror(-err));
		ret = err == -ENOPKG || err == -EOPNOTSUPP || err == -EADDRNOTAVAIL ||
		      err == -ENODEV ? 77 : 1;
		goto out;
	}
	rb = bench_map(len);
	pat = bench_map(len);
	d = calloc(n, sizeof(*d));
	req = calloc(layers, sizeof(*req));
	lid = calloc(n, sizeof(*lid));
	rid = calloc(n, sizeof(*rid));
	if (!rb || !pat || !d || !req || !lid || !rid) {
		fprintf(stderr, "bench-gpu: out of memory\n");
		goto out;
	}
	if (device) {
		back = bench_map(len);
		if (!back || cu.alloc(&dev, len)) {
			fprintf(stderr, "bench-gpu: device allocation of %zu bytes failed\n", len);
			goto out;
		}
		base_a = dev;
	} else {
		host_a = bench_map(len);
		if (!host_a)
			goto out;
		base_a = (uintptr_t)host_a;
	}
	md = (struct hixl_mem_desc){ .addr = base_a, .len = len, .dmabuf_fd = -1 };
	err = hixl_register_mem(a, &md, device ? HIXL_MEM_DEVICE : HIXL_MEM_HOST, &h);
	if (!err && device) {
		err = hixl_mem_get_info(a, h, &info);
		if (!err && info.source != (strcmp(mem, "staged") ? HIXL_MEM_SOURCE_CUDA :
					    HIXL_MEM_SOURCE_STAGED)) {
			printf("na %lu %s %s %zu %zu registered as source %u, not %s\n", rep, tool,
			       opname, block, n, info.source, mem);
			goto out;
		}
	}
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)rb, .len = len };
	if (!err)
		err = hixl_register_mem(b, &md, HIXL_MEM_HOST, &h);
	if (err) {
		printf("na %lu %s %s %zu %zu register: %s\n", rep, tool, opname, block, n,
		       strerror(-err));
		goto out;
	}
	snprintf(peer, sizeof(peer), IP ":%lu", port + 1);
	err = hixl_connect(a, peer, 10000);
	if (err) {
		printf("na %lu %s %s %zu %zu connect: %s\n", rep, tool, opname, block, n,
		       strerror(-err));
		goto out;
	}
	/* each layer: DESCS of its 2 x DESCS blocks on each side, scattered */
	seed = (unsigned int)rep * 7919 + 1;
	for (size_t l = 0; l < layers; l++) {
		if (bench_pick(lid + l * descs, 2 * descs, descs, &seed) ||
		    bench_pick(rid + l * descs, 2 * descs, descs, &seed)) {
			fprintf(stderr, "bench-gpu: out of memory\n");
			goto out;
		}
		for (size_t i = 0; i < descs; i++) {
			size_t k = l * descs + i;

			d[k] = (struct hixl_op_desc){ base_a + l * per_layer + lid[k] * block,
						      (uintptr_t)rb + l * per_layer + rid[k] * block,
						      block };
		}
	}
	/* the source side gets the pattern, the destination zeroes */
	fill(pat, len, (unsigned int)rep);
	if (op == HIXL_OP_WRITE) {
		memset(rb, 0, len);
		if (device ? cu.htod(dev, pat, len) : (memcpy(host_a, pat, len), 0))
			goto out;
	} else {
		memcpy(rb, pat, len);
		memset(pat, 0, len);
		if (device ? cu.htod(dev, pat, len) : (memset(host_a, 0, len), 0))
			goto out;
		memcpy(pat, rb, len);
	}
	/* warm-up: the same pass, untimed; then the destination zeroed again */
	err = pass(a, peer, op, d, layers, descs, req, sync);
	if (err) {
		printf("na %lu %s %s %zu %zu warm-up: %s\n", rep, tool, opname, block, n,
		       strerror(-err));
		goto out;
	}
	zeros = calloc(1, len);
	if (!zeros || zero_dest(op, rb, host_a, dev, zeros, len))
		goto out;
	if (device)
		hixl_engine_staged_stats(a, &s0);

	c0 = busy_s();
	t0 = now_s();
	err = pass(a, peer, op, d, layers, descs, req, sync);
	t1 = now_s();
	c1 = busy_s();
	if (device)
		hixl_engine_staged_stats(a, &s1);

	/* every moved block against its source */
	if (device && cu.dtoh(back, dev, len))
		goto out;
	for (size_t k = 0; k < n; k++) {
		size_t l = k / descs;
		const unsigned char *la = (device ? back : host_a) + l * per_layer + lid[k] * block;
		const unsigned char *ra = rb + l * per_layer + rid[k] * block;
		const unsigned char *want = pat + (op == HIXL_OP_WRITE ?
					    l * per_layer + lid[k] * block : l * per_layer + rid[k] * block);
		const unsigned char *got = op == HIXL_OP_WRITE ? ra : la;

		equal += bench_equal_bytes(got, want, block);
	}
	printf("verified %lu %s %s %zu %zu\n", rep, tool, opname, equal, moved);
	if (device && !strcmp(mem, "staged"))
		printf("staged %lu %s %s %llu\n", rep, tool, opname,
		       op == HIXL_OP_WRITE ?
		       (unsigned long long)(s1.bytes_written - s0.bytes_written) :
		       (unsigned long long)(s1.bytes_read - s0.bytes_read));
	if (err)
		printf("na %lu %s %s %zu %zu transfer: %s (%.3f s)\n", rep, tool, opname, block, n,
		       strerror(-err), t1 - t0);
	else
		printf("res %lu %s %s %zu %zu %zu %.6f %.3f\n", rep, tool, opname, block, n, moved,
		       t1 - t0, c1 - c0);
	ret = !err && equal == moved ? 0 : 1;
out:
	for (size_t l = 0; req && l < layers; l++)
		if (req[l])
			hixl_request_free(req[l]);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	free(d);
	free(req);
	free(zeros);
	return ret;
}
