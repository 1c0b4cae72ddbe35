// SPDX-License-Identifier: MIT
/*
 * exchange.c - two processes (two hosts) agree on a buffer and move data into
 * it: the part every program on hixl writes before its first transfer.
 *
 * RDMA moves bytes to an address in the other process, but nothing in RDMA
 * tells you that address: the owner of the memory has to publish it, over
 * whatever channel the two programs already share (a TCP socket here; in a
 * serving system, the scheduler's RPC, etcd, a KV-cache metadata service).
 * What to publish is always the same three things:
 *
 *   1. the engine name to connect to (the owner's "IP:PORT"),
 *   2. the registered buffer's address in the owner's address space,
 *   3. its length (never write past it: hixl refuses with -ERANGE anyway).
 *
 * Process A (the owner, "serve") registers a buffer and publishes those over
 * a TCP socket.  Process B ("write") reads them, connects its engine to A's,
 * WRITEs a pattern into A's buffer with one RDMA transfer, and tells A with
 * a hixl notification.  A verifies the bytes and tells B the verdict.
 *
 * Usage:
 *   exchange serve ENGINE [TCP_PORT]      A: ENGINE is IP:PORT of an RDMA
 *                                         device of this host (it listens)
 *   exchange write LOCAL_IP HOST [TCP_PORT]
 *                                         B: LOCAL_IP is this host's RDMA
 *                                         address, HOST where A runs
 * TCP_PORT defaults to 18600.  Try it on one host (two terminals) with the
 * test VM's addresses: "exchange serve 10.77.0.1:18601" and "exchange write
 * 10.77.0.1 127.0.0.1".
 *
 * Exit status: 0 when A saw every byte B wrote; 77 when there is no hixl
 * device or no RDMA device on the address; 1 otherwise.
 *
 * The socket carries no secret, but it is not authenticated: whoever reaches
 * it learns where A's buffer is and may write into it (A accepts one
 * connection).  Real deployments restrict who may connect with the engine
 * options AllowedPeers and the engine secret (see hixl_engine_init(3)).
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <hixl/hixl.h>

#define LEN		(1 << 20)	/* the buffer A lends to B: 1 MiB */
#define TCP_PORT	"18600"
#define NOTE		"written"	/* B's notification: "the data is there" */

/* say what failed, what hixl means by it, and the fix when it is outside the program */
static int fail(const char *what, int err)
{
	fprintf(stderr, "exchange: %s: %s\n", what, hixl_strerror(err));
	fprintf(stderr, "exchange: %s\n", hixl_last_error());	/* the call, its object */
	if (*hixl_error_hint(err))
		fprintf(stderr, "hint: %s\n", hixl_error_hint(err));
	return err == -ENOPKG || err == -EADDRNOTAVAIL || err == -ENODEV ? 77 : 1;
}

/* the byte B writes at offset i (A checks the same) */
static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + 3);
}

/* one line from the socket, at most len - 1 bytes, without its '\n' */
static int read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		ssize_t got = read(fd, buf + n, 1);

		if (got <= 0)
			return -1;
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return 0;
		}
		n++;
	}
	return -1;	/* too long: not a line of ours */
}

/* ---- process A: own the buffer, publish it, wait, verify ---- */

static int serve(const char *engine_name, const char *tcp_port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct hixl_engine *eng = NULL;
	struct hixl_notify *notes = calloc(4, sizeof(*notes));
	unsigned char *buf = calloc(1, LEN);
	char line[256], name[HIXL_ENGINE_NAME_MAX];
	struct addrinfo *ai = NULL;
	uint64_t handle;
	int lfd = -1, fd = -1, ret, rc = 1, done = 0;
	size_t bad = 0;

	if (!buf || !notes)
		return 1;
	/* 1. An engine that listens: B connects to it. */
	ret = hixl_engine_init(&eng, engine_name, NULL, 0);
	if (ret)
		return fail("engine", ret);
	/*
	 * 2. Register the buffer BEFORE publishing it: the engine sends its
	 * region table to a peer when the peer connects, so B must not get an
	 * address the table does not hold yet.
	 */
	ret = hixl_register_mem(eng, &(struct hixl_mem_desc){ .addr = (uintptr_t)buf, .len = LEN },
				HIXL_MEM_HOST, &handle);
	if (ret) {
		rc = fail("register", ret);
		goto out;
	}
	/* 3. The side channel: a TCP socket B connects to. */
	if (getaddrinfo(NULL, tcp_port, &hints, &ai) ||
	    (lfd = socket(ai->ai_family, ai->ai_socktype, 0)) < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)) ||
	    bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 1)) {
		perror("exchange: TCP port");
		goto out;
	}
	printf("exchange: A: %zu bytes at %p registered on %s, waiting on TCP port %s\n",
	       (size_t)LEN, (void *)buf, engine_name, tcp_port);
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		perror("exchange: accept");
		goto out;
	}
	/*
	 * 4. Publish (engine name, address, length) as one text line.  The
	 * name comes from the engine itself (it has the port it listens on).
	 */
	hixl_engine_name(eng, name, sizeof(name));
	snprintf(line, sizeof(line), "HIXL-EXCHANGE 1 %s %#" PRIx64 " %u\n", name,
		 (uint64_t)(uintptr_t)buf, LEN);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		perror("exchange: publishing the buffer");
		goto out;
	}
	/*
	 * 5. Wait for B's notification (30 s).  RDMA WRITEs raise nothing on
	 * the target's side: A learns the data is there only because B says
	 * so, and B says so only after its WRITE completed.
	 */
	for (int i = 0; i < 3000 && !done; i++) {
		size_t count = 0;

		ret = hixl_get_notifies(eng, notes, 4, &count, NULL);
		if (ret) {
			rc = fail("get notifies", ret);
			goto out;
		}
		for (size_t k = 0; k < count; k++)
			done |= notes[k].name_len == strlen(NOTE) &&
				!memcmp(notes[k].name, NOTE, strlen(NOTE));
		if (!done)
			usleep(10000);
	}
	if (!done) {
		fprintf(stderr, "exchange: A: no \"%s\" notification from B in 30 s\n", NOTE);
		goto out;
	}
	/* 6. Verify, and tell B. */
	for (size_t i = 0; i < LEN; i++)
		bad += buf[i] != pattern(i);
	snprintf(line, sizeof(line), bad ? "mismatch %zu\n" : "verified\n", bad);
	if (write(fd, line, strlen(line)) < 0)
		perror("exchange: the verdict");
	printf("exchange: A: B's write %s (%zu bytes differ)\n", bad ? "differs" : "verified", bad);
	rc = bad ? 1 : 0;
out:
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
	if (ai)
		freeaddrinfo(ai);
	hixl_engine_finalize(eng);	/* deregisters, disconnects */
	free(notes);
	free(buf);
	return rc;
}

/* ---- process B: learn where A's buffer is, write into it, notify ---- */

static int write_to(const char *local_ip, const char *host, const char *tcp_port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct hixl_engine *eng = NULL;
	struct hixl_sockaddr check;
	unsigned char *src = malloc(LEN);
	char line[256], name[HIXL_ENGINE_NAME_MAX];
	uint64_t addr, len, handle;
	int fd = -1, ret, rc = 1;

	if (!src)
		return 1;
	for (size_t i = 0; i < LEN; i++)
		src[i] = pattern(i);
	/* 1. Reach A's side channel (retrying while A starts: 30 s). */
	if (getaddrinfo(host, tcp_port, &hints, &ai)) {
		fprintf(stderr, "exchange: cannot resolve %s\n", host);
		goto out;
	}
	for (int i = 0; i < 300; i++) {
		fd = socket(ai->ai_family, ai->ai_socktype, 0);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		usleep(100000);
	}
	if (fd < 0) {
		fprintf(stderr, "exchange: B: nothing listens on %s port %s\n", host, tcp_port);
		goto out;
	}
	/*
	 * 2. Read what A published, and check it like any input from the
	 * network: the format, a parsable engine name with a port, and a
	 * length we can fill.
	 */
	if (read_line(fd, line, sizeof(line)) ||
	    sscanf(line, "HIXL-EXCHANGE 1 %63s %" SCNx64 " %" SCNu64, name, &addr, &len) != 3 ||
	    hixl_parse_engine_name(name, &check) || !check.port || !addr || !len ||
	    len > LEN) {
		fprintf(stderr, "exchange: B: A published something else: \"%.100s\"\n", line);
		goto out;
	}
	printf("exchange: B: A's buffer: %" PRIu64 " bytes at %#" PRIx64 " on engine %s\n", len,
	       addr, name);
	/* 3. Our own engine: an address without a port only connects out. */
	ret = hixl_engine_init(&eng, local_ip, NULL, 0);
	if (ret) {
		rc = fail("engine", ret);
		goto out;
	}
	/* 4. Register the source: RDMA reads it from our memory. */
	ret = hixl_register_mem(eng, &(struct hixl_mem_desc){ .addr = (uintptr_t)src, .len = LEN },
				HIXL_MEM_HOST, &handle);
	if (ret) {
		rc = fail("register", ret);
		goto out;
	}
	/* 5. Connect to A's engine: the engines exchange region tables. */
	ret = hixl_connect(eng, name, 5000);
	if (ret) {
		rc = fail("connect", ret);
		goto out;
	}
	/* 6. One WRITE: our src -> A's buffer, at the address A published. */
	ret = hixl_transfer_sync(eng, name, HIXL_OP_WRITE,
				 &(struct hixl_op_desc){ (uintptr_t)src, addr, len }, 1, 5000, NULL);
	if (ret) {
		rc = fail("write", ret);
		goto out;
	}
	/* 7. Tell A the data is there. */
	ret = hixl_send_notify(eng, name, NOTE, NULL, 0, 5000);
	if (ret) {
		rc = fail("notify", ret);
		goto out;
	}
	/* 8. A's verdict, over the side channel. */
	if (read_line(fd, line, sizeof(line))) {
		fprintf(stderr, "exchange: B: A closed the socket without a verdict\n");
		goto out;
	}
	printf("exchange: B: wrote %" PRIu64 " bytes; A says: %.100s\n", len, line);
	rc = strcmp(line, "verified") ? 1 : 0;
out:
	if (fd >= 0)
		close(fd);
	if (ai)
		freeaddrinfo(ai);
	hixl_engine_finalize(eng);
	free(src);
	return rc;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "serve"))
		return serve(argv[2], argc == 4 ? argv[3] : TCP_PORT);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "write"))
		return write_to(argv[2], argv[3], argc == 5 ? argv[4] : TCP_PORT);
	fprintf(stderr, "usage: exchange serve ENGINE [TCP_PORT]\n"
			"       exchange write LOCAL_IP HOST [TCP_PORT]\n");
	return 2;
}
