// SPDX-License-Identifier: MIT
/*
 * kv_transfer.c - the smallest complete use of the engine API: a "prefill"
 * engine pushes a KV-cache block into a "decode" engine and the result is
 * checked.  Two engines in one process on the loopback path of one RDMA
 * device.
 *
 * Usage: kv_transfer [IP [PORT]]   (default 10.77.0.1 18999)
 * Exit status: 0 when the data arrived intact, 77 when there is no hixl
 * device (hixl.ko not loaded) or no RDMA device on IP, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hixl/hixl.h>

#define LEN (1 << 20)	/* one 1 MiB block */

/* what failed, what hixl means by the error, and what to do about it */
static int fail(const char *what, int err)
{
	fprintf(stderr, "kv_transfer: %s: %s: %s\n", what,
		hixl_status_str(hixl_status_from_errno(err)), hixl_strerror(err));
	fprintf(stderr, "kv_transfer: %s\n", hixl_last_error());	/* the call, its object */
	if (*hixl_error_hint(err))
		fprintf(stderr, "hint: %s\n", hixl_error_hint(err));
	return err == -ENOPKG || err == -EADDRNOTAVAIL || err == -ENODEV ? 77 : 1;
}

int main(int argc, char **argv)
{
	const char *ip = argc > 1 ? argv[1] : "10.77.0.1";
	const char *port = argc > 2 ? argv[2] : "18999";
	char prefill_name[64], decode_name[64];
	struct hixl_engine *prefill = NULL, *decode = NULL;
	unsigned char *src = malloc(LEN), *dst = calloc(1, LEN);
	uint64_t hs, hd;
	int ret, rc = 1;

	if (!src || !dst)
		return 1;
	for (size_t i = 0; i < LEN; i++)
		src[i] = (unsigned char)(i * 31 + 7);
	snprintf(prefill_name, sizeof(prefill_name), "%s", ip);		/* client only */
	snprintf(decode_name, sizeof(decode_name), "%s:%s", ip, port);	/* listens */

	/* 1. an engine per side (HIXL Initialize) */
	ret = hixl_engine_init(&decode, decode_name, NULL, 0);
	if (ret)
		return fail("init decode", ret);
	ret = hixl_engine_init(&prefill, prefill_name, NULL, 0);
	if (ret) {
		rc = fail("init prefill", ret);
		goto out;
	}
	/* 2. register the memory each side transfers (HIXL RegisterMem) */
	ret = hixl_register_mem(prefill, &(struct hixl_mem_desc){ .addr = (uintptr_t)src, .len = LEN },
				HIXL_MEM_HOST, &hs);
	if (!ret)
		ret = hixl_register_mem(decode, &(struct hixl_mem_desc){ .addr = (uintptr_t)dst, .len = LEN },
					HIXL_MEM_HOST, &hd);
	if (ret) {
		rc = fail("register", ret);
		goto out;
	}
	/* 3. connect prefill -> decode (HIXL Connect) */
	ret = hixl_connect(prefill, decode_name, 5000);
	if (ret) {
		rc = fail("connect", ret);
		goto out;
	}
	/* 4. write the block (HIXL TransferSync) */
	ret = hixl_transfer_sync(prefill, decode_name, HIXL_OP_WRITE,
				 &(struct hixl_op_desc){ (uintptr_t)src, (uintptr_t)dst, LEN }, 1,
				 5000, NULL);
	if (ret) {
		rc = fail("transfer", ret);
		goto out;
	}
	/* 5. verify */
	if (memcmp(src, dst, LEN)) {
		fprintf(stderr, "kv_transfer: data differs\n");
		goto out;
	}
	printf("kv_transfer: %d bytes written from %s to %s on %s and verified\n", LEN,
	       prefill_name, decode_name, hixl_engine_device(prefill));
	rc = 0;
out:
	/* 6. HIXL Finalize: disconnects and deregisters what is left */
	hixl_engine_finalize(prefill);
	hixl_engine_finalize(decode);
	free(src);
	free(dst);
	return rc;
}
