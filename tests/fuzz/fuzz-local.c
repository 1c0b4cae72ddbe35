// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-local.c - same-host links in hixl-fuzz.
 *
 * Every engine of the fuzzer lives on the same rxe0 address of this
 * kernel, so two engines that both allow it pair in the handshake and move
 * registered memory (host pages and the udmabuf regions) with the kernel's
 * CPU copy (kmod/local.c, kmod/local_dmabuf.c) instead of RDMA.  This file
 * decides the transport of each good SETUP (fl_pick_transport(): auto
 * 40%, rdma 40%, local 20%, so that about as many links pair as do not;
 * hixl-fuzz's random SETUPs add unknown values)
 * and, around each well-formed ioctl TRANSFER, reads the engine's
 * LINK_STATS before and after: the links to the peer, their
 * HIXL_LINK_STAT_LOCAL flag and local_ops.  Contracts (VIOLATION lines):
 *
 *   - an engine set up with transport "rdma" never has a LOCAL link, and
 *     its successful TRANSFERs move no local_ops;
 *   - an engine set up with transport "local" whose TRANSFER succeeded
 *     copied it locally: local_ops grew by at least its descriptors
 *     (io_uring transfers of the same engine, still in flight, may add
 *     more, never less).
 *
 * At the end (fl_final()), a run in which 3 or more well-formed TRANSFERs
 * succeeded on a link that was paired (HIXL_LINK_STAT_LOCAL before the
 * call) must have reached the copy path: at least one of them moved
 * local_ops.  (A paired link may still send a batch over RDMA - a local
 * region invalidated under it goes to staging - so not every one must.)
 * How many went over RDMA is printed; which path a run reaches depends on
 * the links its random CONNECTs made, so that is not required: the RDMA
 * success path's own proof stays hixl-fuzz's "some well-formed TRANSFER
 * succeeded", and the transport-rdma contract above.  Engine
 * close, DEREG_MEM, munmap and the rest of hixl-fuzz's calls between
 * TRANSFERs apply to these links as to any other, and the final check
 * (nothing registered or pinned once every fd is closed) covers them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "fuzz-local.h"

#define FL_ENG_MAX	4	/* NENG_MAX of hixl-fuzz.c */
#define FL_LINKS	16	/* more than an engine of the fuzzer can have */

static int64_t fl_transport[FL_ENG_MAX] = { -1, -1, -1, -1 };	/* -1: unknown */
static struct hixl_link_stat fl_buf[FL_LINKS];
static bool fl_have_before, fl_paired_before;
static uint64_t fl_local_before;
static struct hixl_sockaddr fl_peer;
static unsigned long fl_local_ok, fl_rdma_ok, fl_paired_ok, fl_checked_local, fl_checked_rdma;

/**
 * fl_pick_transport() - the transport of a good SETUP
 * @r100: a random number 0..99
 *
 * A link pairs when neither end says rdma (0.6 x 0.6 of them); a TRANSFER
 * goes over RDMA when its engine says rdma, or says auto and the peer rdma.
 *
 * Return: HIXL_TRANSPORT_AUTO, _RDMA (40% each) or _LOCAL (20%).
 */
uint32_t fl_pick_transport(uint32_t r100)
{
	if (r100 < 40)
		return HIXL_TRANSPORT_AUTO;
	return r100 < 80 ? HIXL_TRANSPORT_RDMA : HIXL_TRANSPORT_LOCAL;
}

/** fl_setup() - engine @e's SETUP with @transport succeeded */
void fl_setup(int e, uint32_t transport)
{
	if (e >= 0 && e < FL_ENG_MAX)
		fl_transport[e] = transport;
}

/** fl_closed() - engine @e was closed (its next SETUP decides again) */
void fl_closed(int e)
{
	if (e >= 0 && e < FL_ENG_MAX)
		fl_transport[e] = -1;
}

static bool fl_same(const struct hixl_sockaddr *a, const struct hixl_sockaddr *b)
{
	return a->family == b->family && a->port == b->port &&
	       !memcmp(a->addr, b->addr, a->family == 2 /* AF_INET */ ? 4 : 16);
}

/*
 * The links of @fd: their number (-errno), local_ops summed over those to
 * @peer in *@local, whether any link at all is LOCAL in *@any_local, and
 * any link to @peer in *@paired.
 */
static int fl_links(int fd, const struct hixl_sockaddr *peer, uint64_t *local, bool *any_local,
		    bool *paired)
{
	struct hixl_link_stats a;
	uint32_t i, n;

	memset(&a, 0, sizeof(a));
	memset(fl_buf, 0, sizeof(fl_buf));
	a.buf = (uint64_t)(uintptr_t)fl_buf;
	a.count = FL_LINKS;
	if (ioctl(fd, HIXL_IOC_LINK_STATS, &a))
		return -errno;
	n = a.total < FL_LINKS ? a.total : FL_LINKS;
	*local = 0;
	*any_local = *paired = false;
	for (i = 0; i < n; i++) {
		bool loc = fl_buf[i].flags & HIXL_LINK_STAT_LOCAL;

		*any_local |= loc;
		if ((fl_buf[i].flags & HIXL_LINK_STAT_NAMED) && fl_same(&fl_buf[i].peer, peer)) {
			*local += fl_buf[i].xfer.local_ops;
			*paired |= loc;
		}
	}
	return (int)n;
}

/**
 * fl_before() - before a well-formed TRANSFER of engine @fd to @peer:
 * remember the local_ops of its links to @peer
 */
void fl_before(int fd, const struct hixl_sockaddr *peer)
{
	bool any;

	fl_peer = *peer;
	fl_have_before = fl_links(fd, peer, &fl_local_before, &any, &fl_paired_before) >= 0;
}

/**
 * fl_after() - after that TRANSFER of engine @e (@fd), which returned @ret
 * for @count descriptors
 *
 * Return: NULL, or what contract it broke (for hixl-fuzz's violation()).
 */
const char *fl_after(int e, int fd, long ret, uint32_t count)
{
	int64_t t = e >= 0 && e < FL_ENG_MAX ? fl_transport[e] : -1;
	uint64_t local, moved;
	bool any, paired;

	if (!fl_have_before || fl_links(fd, &fl_peer, &local, &any, &paired) < 0)
		return NULL;
	fl_have_before = false;
	if (t == HIXL_TRANSPORT_RDMA) {
		fl_checked_rdma++;
		if (any)
			return "an engine with transport rdma has a LOCAL link";
		if (local)
			return "an engine with transport rdma counted local_ops";
	}
	if (ret != 0)
		return NULL;
	moved = local - fl_local_before;
	if (local < fl_local_before)
		return "a link's local_ops went down";
	fl_paired_ok += fl_paired_before;
	if (moved >= count)
		fl_local_ok++;
	else if (!moved)
		fl_rdma_ok++;
	if (t == HIXL_TRANSPORT_LOCAL) {
		fl_checked_local++;
		if (moved < count)
			return "a TRANSFER of an engine with transport local succeeded without "
			       "its local_ops growing by its descriptors";
	}
	return NULL;
}

/**
 * fl_final() - print the same-host summary; 1 when 3 or more well-formed
 * TRANSFERs succeeded on paired links and none of them moved local_ops
 * @wf_ok: well-formed TRANSFERs that succeeded (for the summary)
 */
int fl_final(unsigned long wf_ok)
{
	printf("same-host links: of %lu successful well-formed TRANSFERs, %lu on paired links; "
	       "%lu copied locally (local_ops moved), %lu over RDMA; contracts checked on %lu "
	       "TRANSFERs of transport-local engines, %lu of transport-rdma engines\n", wf_ok,
	       fl_paired_ok, fl_local_ok, fl_rdma_ok, fl_checked_local, fl_checked_rdma);
	if (fl_paired_ok >= 3 && !fl_local_ok) {
		printf("FAIL: %lu well-formed TRANSFERs succeeded on paired links and none moved "
		       "local_ops: the same-host copy was not reached\n", fl_paired_ok);
		return 1;
	}
	return 0;
}
