// SPDX-License-Identifier: GPL-2.0
/*
 * hixl-bench - move a real KV-cache layout between two engines with the
 * library's engine API, verify it, and report throughput and latency.
 *
 * Modes: write (the prefill engine pushes into the decode engine) and read
 * (the decode engine pulls from the prefill engine).  Before each mode the
 * decode side is zeroed; after it, every block is checked against the
 * prefill side's per-block checksums (the model: kv.c).
 *
 * The two engines live in two processes (--procs 2, the default): for each
 * mode a child process holds the passive side (decode for write, prefill for
 * read) and the parent the initiating one; they agree on addresses because
 * both buffers are mapped before the fork and the block tables come from the
 * seed.  --procs 1 keeps both engines in one process.  Either way they talk
 * over one RDMA device's loopback path in the test VM (or over a real fabric
 * with --local/--remote on two hosts' addresses... of one host here).
 *
 * Exit status: 0 success; 1 a failure or a verification mismatch; 2 usage;
 * 77 no /dev/hixl or no RDMA device on the address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/*
 * One mode with the engines in two processes: a child owns the passive side
 * (decode for write, prefill for read) and the parent initiates.  Returns 77
 * when there is no device, else 0 (errors are in @res).
 */
static int run_two_procs(struct result *res, bool write_mode, struct side *prefill,
			 struct side *decode, uint64_t *sums)
{
	struct side *mine = write_mode ? prefill : decode;
	struct side *peer = write_mode ? decode : prefill;
	int to_child[2], from_child[2], status, ret;
	char c = 0;
	pid_t pid;

	if (pipe(to_child) || pipe(from_child)) {
		res->err = -errno;
		return 0;
	}
	prefill_fill_sums(sums);	/* both processes need them */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		res->err = -errno;
		return 0;
	}
	if (pid == 0) {		/* the passive side */
		size_t bad;

		close(to_child[1]);
		close(from_child[0]);
		ret = side_engine(peer);
		if (!ret && !write_mode)
			prefill_fill(prefill, sums);
		c = ret ? (ret == -ENOENT || ret == -EADDRNOTAVAIL || ret == -ENODEV ? 'S' : 'E')
			: 'R';
		if (write(from_child[1], &c, 1) != 1 || c != 'R')
			_exit(1);
		/* serve until the parent asks to verify (write) or closes (read) */
		while (read(to_child[0], &c, 1) == 1) {
			if (c != 'V')
				continue;
			bad = decode_verify(decode, sums);
			if (write(from_child[1], &bad, sizeof(bad)) != sizeof(bad))
				_exit(1);
		}
		side_engine_end(peer);
		_exit(0);
	}
	close(to_child[0]);
	close(from_child[1]);
	if (read(from_child[0], &c, 1) != 1 || c != 'R') {
		waitpid(pid, &status, 0);
		if (c == 'S')
			return 77;
		res->err = -ECHILD;
		return 0;
	}
	ret = side_engine(mine);
	if (ret) {
		res->err = ret;
	} else {
		if (write_mode)
			prefill_fill(prefill, sums);
		run_mode(res, mine, peer, write_mode ? HIXL_WRITE : HIXL_READ, decode, sums,
			 write_mode ? (int[2]){ from_child[0], to_child[1] } : NULL);
	}
	side_engine_end(mine);
	close(to_child[1]);
	close(from_child[0]);
	waitpid(pid, &status, 0);
	if (!res->err && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		res->err = -ECHILD;
	return 0;
}

int main(int argc, char **argv)
{
	struct side prefill = { 0 }, decode = { 0 };
	struct result res[2] = { { 0 } };
	size_t nres = 0;
	uint64_t *sums = NULL;
	int ret, rc = 1;

	ret = parse_args(argc, argv);
	if (ret)
		return ret;
	block_bytes = C.block_tokens * C.kv_heads * C.head_dim * C.dtype_bytes;
	nblocks = C.tokens / C.block_tokens;
	if (block_bytes / C.dtype_bytes / C.head_dim / C.kv_heads != C.block_tokens ||
	    nblocks > UINT32_MAX || 2 * nblocks > HIXL_MAX_DESCS ||
	    C.layers * 2 * nblocks > SIZE_MAX / block_bytes) {
		fprintf(stderr, "hixl-bench: layout too large (at most %d descriptors per layer)\n",
			HIXL_MAX_DESCS);
		return 2;
	}
	prefill.bytes = decode.bytes = C.layers * 2 * nblocks * block_bytes;
	sums = malloc(C.layers * 2 * nblocks * sizeof(*sums));
	if (!sums)
		return 1;

	ret = side_map(&prefill, C.local, C.seed);
	if (!ret)
		ret = side_map(&decode, C.remote, C.seed ^ 0x5eed);
	if (ret)
		goto out;

	if (C.procs == 1) {
		ret = side_engine(&prefill);
		if (!ret)
			ret = side_engine(&decode);
		if (ret) {
			rc = ret == -ENOENT || ret == -EADDRNOTAVAIL || ret == -ENODEV ? 77 : 1;
			goto out;
		}
		prefill_fill(&prefill, sums);
		if (strcmp(C.mode, "read")) {
			res[nres].mode = "write";
			run_mode(&res[nres++], &prefill, &decode, HIXL_WRITE, &decode, sums, NULL);
		}
		if (strcmp(C.mode, "write")) {
			res[nres].mode = "read";
			run_mode(&res[nres++], &decode, &prefill, HIXL_READ, &decode, sums, NULL);
		}
	} else {
		for (int m = 0; m < 2; m++) {
			bool write_mode = m == 0;

			if (!strcmp(C.mode, write_mode ? "read" : "write"))
				continue;
			res[nres].mode = write_mode ? "write" : "read";
			ret = run_two_procs(&res[nres++], write_mode, &prefill, &decode, sums);
			if (ret == 77) {
				rc = 77;
				goto out;
			}
		}
	}
	report(res, nres, &prefill);
	rc = 0;
	for (size_t i = 0; i < nres; i++)
		if (res[i].err || res[i].bad_blocks)
			rc = 1;
out:
	hixl_engine_finalize(prefill.eng);
	hixl_engine_finalize(decode.eng);
	for (size_t i = 0; i < nres; i++)
		free(res[i].lat_ms);
	if (prefill.base)
		munmap(prefill.base, prefill.bytes);
	if (decode.base)
		munmap(decode.base, decode.bytes);
	free(prefill.table);
	free(decode.table);
	free(sums);
	return rc;
}
