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
 * --server and --client HOST put the two engines on two hosts (net.c).
 *
 * Exit status: 0 success; 1 a failure or a verification mismatch; 2 usage
 * (checked before anything runs); 77 skipped: no /dev/hixl or no RDMA device
 * on the address.  A failure before any transfer prints, with --json,
 * {"ok":false,"error":"...","errno":N} (report.c: fail_early()).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* what the passive side's process says once its engine is up, or why not */
struct child_hello {
	int32_t err;		/* 0: ready; else side_engine()'s -errno */
	char why[512];		/* err != 0: last_err */
};

/* read exactly @len bytes; false on EOF or an error */
static bool read_full(int fd, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	return true;
}

/* how the child @pid ended, as "exited with status N" / "was killed by signal N (NAME)" */
static void child_status(char *buf, size_t len, pid_t pid, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "the passive side's process %d exited with status %d", (int)pid,
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "the passive side's process %d was killed by signal %d (%s)",
			 (int)pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "the passive side's process %d ended with wait status %#x",
			 (int)pid, status);
}

/* the write mode's verifier: the child verifies its decode side (a pipe each way) */
struct pipe_pair {
	int rd, wr;
};

static int pipe_verify(void *ctx, size_t *bad, char *why, size_t len)
{
	const struct pipe_pair *p = ctx;

	if (write(p->wr, "V", 1) != 1 || !read_full(p->rd, bad, sizeof(*bad))) {
		snprintf(why, len, "the passive side's process did not answer");
		return -EPIPE;
	}
	return 0;
}

/*
 * One mode with the engines in two processes: a child owns the passive side
 * (decode for write, prefill for read) and the parent initiates.  Returns 0
 * (the mode's outcome in @res), or the exit status of a failure to set an
 * engine up, in either process, already reported with fail_early().
 */
static int run_two_procs(struct result *res, bool write_mode, struct side *prefill,
			 struct side *decode, uint64_t *sums)
{
	struct side *mine = write_mode ? prefill : decode;
	struct side *peer = write_mode ? decode : prefill;
	int to_child[2], from_child[2], status, ret;
	struct child_hello hello;
	pid_t pid;

	if (pipe(to_child))
		return fail_early(-errno, "pipe: %s", strerror(errno));
	if (pipe(from_child)) {
		ret = -errno;
		close(to_child[0]);
		close(to_child[1]);
		return fail_early(ret, "pipe: %s", strerror(-ret));
	}
	prefill_fill_sums(sums);	/* both processes need them */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(to_child[0]);
		close(to_child[1]);
		close(from_child[0]);
		close(from_child[1]);
		return fail_early(ret, "fork: %s", strerror(-ret));
	}
	if (pid == 0) {		/* the passive side */
		size_t bad;
		char c;

		close(to_child[1]);
		close(from_child[0]);
		memset(&hello, 0, sizeof(hello));
		hello.err = side_engine(peer);
		if (hello.err)
			snprintf(hello.why, sizeof(hello.why), "%s", last_err);
		else if (!write_mode)
			prefill_fill(prefill, sums);
		/* one write of < PIPE_BUF bytes: all of it or nothing */
		if (write(from_child[1], &hello, sizeof(hello)) != sizeof(hello) || hello.err)
			_exit(hello.err ? 0 : 1);
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
	if (!read_full(from_child[0], &hello, sizeof(hello))) {
		char why[160];

		close(to_child[1]);
		close(from_child[0]);
		waitpid(pid, &status, 0);
		child_status(why, sizeof(why), pid, status);
		return fail_early(0, "%s before its engine was up", why);
	}
	if (hello.err) {
		close(to_child[1]);
		close(from_child[0]);
		waitpid(pid, &status, 0);
		hello.why[sizeof(hello.why) - 1] = '\0';
		return fail_early(hello.err, "%s", hello.why);
	}
	ret = side_engine(mine);
	if (!ret) {
		struct pipe_pair pp = { from_child[0], to_child[1] };
		struct verifier v = { pipe_verify, &pp };

		if (write_mode)
			prefill_fill(prefill, sums);
		run_mode(res, mine, peer, write_mode ? HIXL_OP_WRITE : HIXL_OP_READ, decode, sums,
			 write_mode ? &v : NULL);
	}
	side_engine_end(mine);
	close(to_child[1]);
	close(from_child[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret)
		return fail_early(ret, "%s", last_err);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && !res->why[0])
		child_status(res->why, sizeof(res->why), pid, status);
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
		return ret < 0 ? 0 : ret;
	if (C.server)
		return net_server();
	if (C.client)
		return net_client();
	prefill.bytes = decode.bytes = C.layers * 2 * nblocks * block_bytes;
	sums = malloc(C.layers * 2 * nblocks * sizeof(*sums));
	if (!sums)
		return fail_early(-ENOMEM, "block sums: %s", strerror(ENOMEM));

	ret = side_map(&prefill, C.local, C.seed);
	if (!ret)
		ret = side_map(&decode, C.remote, C.seed ^ 0x5eed);
	if (ret) {
		rc = fail_early(ret, "%s", last_err);
		goto out;
	}

	if (C.procs == 1) {
		ret = side_engine(&prefill);
		if (!ret)
			ret = side_engine(&decode);
		if (ret) {
			rc = fail_early(ret, "%s", last_err);
			goto out;
		}
		prefill_fill(&prefill, sums);
		if (strcmp(C.mode, "read")) {
			res[nres].mode = "write";
			run_mode(&res[nres++], &prefill, &decode, HIXL_OP_WRITE, &decode, sums, NULL);
		}
		if (strcmp(C.mode, "write")) {
			res[nres].mode = "read";
			run_mode(&res[nres++], &decode, &prefill, HIXL_OP_READ, &decode, sums, NULL);
		}
	} else {
		for (int m = 0; m < 2; m++) {
			bool write_mode = m == 0;

			if (!strcmp(C.mode, write_mode ? "read" : "write"))
				continue;
			res[nres].mode = write_mode ? "write" : "read";
			ret = run_two_procs(&res[nres++], write_mode, &prefill, &decode, sums);
			if (ret) {
				rc = ret;
				goto out;
			}
		}
	}
	report(res, nres, &prefill);
	rc = 0;
	for (size_t i = 0; i < nres; i++)
		if (!result_ok(&res[i]))
			rc = 1;
out:
	side_unmap(&prefill);
	side_unmap(&decode);
	for (size_t i = 0; i < nres; i++)
		free(res[i].lat_ms);
	free(sums);
	return rc;
}
