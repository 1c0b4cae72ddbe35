// SPDX-License-Identifier: GPL-2.0
/*
 * hixl-fuzz.c - structured random fuzzer for the /dev/hixl ioctl and
 * io_uring URING_CMD interfaces.
 *
 * Usage: hixl-fuzz [--calls N] [--seed S] [--addr IP] [--trace]
 *
 * Opens 2-4 engines and issues N calls picked uniformly from every command
 * of uapi/rdma/hixl.h (10% with a mangled command number); a quarter of them go
 * through io_uring instead of ioctl (an SQE128 ring with the struct in the
 * SQE, or a 64-byte SQE ring with a struct hixl_uring_ptr, both mangled at
 * times), left in flight - up to 64 at once - and reaped later, with
 * arguments built
 * from zero, valid-looking (real buffers, handles, engine names), boundary
 * and random values; pointers inside the structs point at real, NULL,
 * unmapped, inaccessible, read-only or kernel memory.  Between calls it
 * munmaps, mremaps, madvises and mprotects its buffers, closes and reopens
 * engines, and forks
 * children that use an inherited engine once.  Four in ten TRANSFERs are
 * well-formed (to a peer the engine is linked to, every descriptor inside
 * live registrations on both sides), so that the success path - chains,
 * completions, region lookups racing teardown - is fuzzed too; a run in
 * which 20 or more of them were made and none succeeded fails.  LINK_STATS
 * and ENGINES write into a buffer filled with a canary: what they return is
 * checked (states, flags, -errno, reserved fields 0, one SELF record with
 * our pid, ids oldest first) and nothing may be written past min(count,
 * total) records; the ids ENGINES returned become LINK_STATS's engine
 * argument.  PEER_REGIONS's entries are checked the same way (known flags,
 * oldest first, nothing past them) and never name a region the peer
 * registered local-only.  Engines are set up with transport auto, rdma or local
 * (fuzz-local.c): links between two engines that allow it are same-host
 * links, whose TRANSFERs are the kernel's CPU copy; LINK_STATS around each
 * well-formed TRANSFER proves which path ran, and a run must reach both.
 *
 * The sequence of decisions is a function of the seed (and of the results
 * the kernel returns, which feed the handle table).  An errno is fine where
 * no contract says which one; the point is that every call returns, the
 * kernel log stays clean and no contract check (VIOLATION lines) fails:
 * any violation fails the run.  At the
 * end every fd is closed and a fresh engine must see proc_regions == 0,
 * proc_host_bytes == 0, and VmPin must be 0.
 *
 * --trace prints every call to stderr before it is made (to find the call
 * that killed the guest).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <linux/udmabuf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hixl/uapi.h>
#include "raw.h"		/* hixl_raw_uring_cmd() */
#include "fuzz-local.h"		/* same-host links: transports, local_ops */

#define PAGE		4096UL
#define MiB		(1024UL * 1024)
#define NENG_MAX	4
#define NSLOT		12
#define MAXREC		1024
#define PORT_BASE	19200
#define NCMD		14
#define URING_MAX_INFLIGHT 64
#define NDESC_BUF	256
#define NNOTIFY_BUF	8
#define NSTAT_BUF	8	/* entries of the LINK_STATS / ENGINES buffer */
#define STAT_CANARY	0xa5
#define STAT_BUF_SZ	((NSTAT_BUF * sizeof(struct hixl_engine_stat) + PAGE - 1) / PAGE * PAGE + PAGE)
#define ARGBUF_SZ	(64 * 1024)

/* ---- PRNG ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rnd(uint32_t n)	/* 0 .. n-1 */
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

static bool chance(unsigned pct)
{
	return rnd(100) < pct;
}

static void rnd_fill(void *p, size_t n)
{
	uint8_t *b = p;

	while (n) {
		uint64_t v = rnd64();
		size_t k = n < 8 ? n : 8;

		memcpy(b, &v, k);
		b += k;
		n -= k;
	}
}

/* ---- state ------------------------------------------------------------------ */

static const char *cmd_name[NCMD + 1] = {
	"GET_INFO", "REG_MEM", "DEREG_MEM", "GET_STATS", "SETUP", "CONNECT",
	"DISCONNECT", "TRANSFER", "SEND_NOTIFY", "GET_NOTIFIES", "CANCEL", "LINK_STATS",
	"ENGINES", "PEER_REGIONS", "mangled",
};
static const unsigned long cmd_nr[NCMD] = {
	HIXL_IOC_GET_INFO, HIXL_IOC_REG_MEM, HIXL_IOC_DEREG_MEM, HIXL_IOC_GET_STATS,
	HIXL_IOC_SETUP, HIXL_IOC_CONNECT, HIXL_IOC_DISCONNECT, HIXL_IOC_TRANSFER,
	HIXL_IOC_SEND_NOTIFY, HIXL_IOC_GET_NOTIFIES, HIXL_IOC_CANCEL, HIXL_IOC_LINK_STATS,
	HIXL_IOC_ENGINES, HIXL_IOC_PEER_REGIONS,
};
/* each command's first struct size: a smaller one must be -EINVAL */
static const unsigned int cmd_size_ver0[NCMD] = {
	HIXL_INFO_SIZE_VER0, HIXL_REG_MEM_SIZE_VER0, HIXL_DEREG_MEM_SIZE_VER0,
	HIXL_STATS_SIZE_VER0, HIXL_SETUP_SIZE_VER0, HIXL_CONNECT_SIZE_VER0,
	HIXL_CONNECT_SIZE_VER0, HIXL_TRANSFER_SIZE_VER0, HIXL_SEND_NOTIFY_SIZE_VER0,
	HIXL_GET_NOTIFIES_SIZE_VER0, HIXL_CANCEL_SIZE_VER0, HIXL_LINK_STATS_SIZE_VER0,
	HIXL_ENGINES_SIZE_VER0, HIXL_PEER_REGIONS_SIZE_VER0,
};
/* REG_MEM's flag bits (the module keeps its masks to itself) */
#define FUZZ_REG_FLAGS	(HIXL_REG_READ_ONLY | HIXL_REG_LOCAL_ONLY)

struct engine {
	int fd;
	int port;		/* SETUP succeeded with this port (-1: not set up) */
	unsigned gen;
};

struct slot {
	uint8_t *addr;
	size_t len;
	int kind;		/* 0 private anon, 1 shared anon, 2 memfd, 3 hugetlb 2M */
	bool mapped;
	bool ro;
	unsigned gen;		/* bumped when pages under the slot may have changed */
};

struct rec {
	uint64_t handle;
	uint64_t addr, len;
	int eng;
	unsigned gen;
	bool live;
	bool device;
	bool ro;		/* registered HIXL_REG_READ_ONLY */
	bool local_only;	/* registered HIXL_REG_LOCAL_ONLY: no peer may name it */
	int slot;		/* the slot it lies in, or -1 */
	unsigned slot_gen;	/* that slot's gen at registration */
};

static struct engine eng[NENG_MAX];
static int neng;
static struct slot slots[NSLOT];
static struct rec recs[MAXREC];
static unsigned nrec;
static uint8_t *ro_page, *ro_zero_page, *hole, *tail_page, *argbuf, *text_buf;
static struct hixl_op_desc *desc_buf;
static struct hixl_notify *notify_buf;
static uint8_t *stat_buf;	/* NSTAT_BUF engine records, then a canary page */
static uint64_t ids_seen[8];	/* engine ids ENGINES returned, for LINK_STATS */
static int dmabufs[2] = { -1, -1 };
static size_t dmabuf_len = 64 * 1024;
static uint8_t ipaddr[4] = { 10, 77, 0, 1 };
static bool trace;

static unsigned long calls_per_cmd[NCMD + 1], ok_per_cmd[NCMD + 1];
/* linked[e][p]: engine e's CONNECT to engine p succeeded (and no DISCONNECT
 * or close since), as far as the ioctl results tell; a link the kernel
 * broke meanwhile stays marked, which only makes a "well-formed" transfer
 * fail with a link error */
static bool linked[NENG_MAX][NENG_MAX];
static bool must_fail;	/* this call's TRANSFER names a peer's local-only region */
static unsigned long lo_aimed;	/* such TRANSFERs issued (all must fail) */
static unsigned long wf_transfers, wf_ok;	/* well-formed TRANSFERs (ioctl) */
static unsigned long wf_errno[200];		/* and how the others failed */
static unsigned long errno_hist[200];

/* count a call's result in a histogram: 0, -errno, or the last bucket */
static void hist_add(unsigned long *h, long ret)
{
	h[ret <= 0 && -ret < 200 ? -ret : 199]++;
}
static unsigned long violations, mem_ops, reopens, forks, child_crashes;
static struct io_uring ring_big, ring_small;	/* SQE128+CQE32, 64-byte SQEs */
static bool have_uring;
static unsigned uring_inflight;
static unsigned long uring_calls, uring_ok;
static uint64_t tag_seen[8];			/* tags given to TRANSFERs, for CANCEL */
static unsigned long cur_call;

static const char *errname(int e)
{
	switch (e) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ENOTTY: return "ENOTTY";
	case ERANGE: return "ERANGE";
	case ENOTCONN: return "ENOTCONN";
	case EISCONN: return "EISCONN";
	case EALREADY: return "EALREADY";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ECONNRESET: return "ECONNRESET";
	case EADDRINUSE: return "EADDRINUSE";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case ENETUNREACH: return "ENETUNREACH";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EOVERFLOW: return "EOVERFLOW";
	case EDQUOT: return "EDQUOT";
	case ENOBUFS: return "ENOBUFS";
	case ECANCELED: return "ECANCELED";
	case ESTALE: return "ESTALE";
	case EPROTO: return "EPROTO";
	case EMSGSIZE: return "EMSGSIZE";
	case ENOLINK: return "ENOLINK";
	case ENOTUNIQ: return "ENOTUNIQ";
	case EREMOTEIO: return "EREMOTEIO";
	default: return NULL;
	}
}

/* ---- memory -------------------------------------------------------------------- */

static void slot_map(struct slot *s, uint8_t *at)
{
	static const size_t sizes[] = { PAGE, 2 * PAGE, 3 * PAGE, 16 * PAGE, 64 * 1024,
					256 * 1024, MiB, 2 * MiB };
	int kind = (int)rnd(4);
	size_t len = sizes[rnd(sizeof(sizes) / sizeof(sizes[0]))];
	int flags = MAP_ANONYMOUS | MAP_PRIVATE;
	int fd = -1;
	void *p = MAP_FAILED;

	if (at)
		flags |= MAP_FIXED_NOREPLACE;
	if (kind == 3) {
		len = 2 * MiB;
		p = mmap(at, len, PROT_READ | PROT_WRITE, flags | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED)
			kind = 0;
	}
	if (kind == 1)
		flags = (flags & ~MAP_PRIVATE) | MAP_SHARED;
	if (kind == 2) {
		fd = memfd_create("hixl-fuzz", 0);
		if (fd < 0 || ftruncate(fd, (off_t)len)) {
			if (fd >= 0)
				close(fd);
			fd = -1;
			kind = 0;
		} else {
			flags = (flags & ~(MAP_PRIVATE | MAP_ANONYMOUS)) | MAP_SHARED;
		}
	}
	if (p == MAP_FAILED)
		p = mmap(at, len, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (p == MAP_FAILED && at)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags & ~MAP_FIXED_NOREPLACE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (p == MAP_FAILED) {
		s->mapped = false;
		return;
	}
	s->addr = p;
	s->len = len;
	s->kind = kind;
	s->mapped = true;
	s->ro = false;
	memset(p, 0x5a, len < 8 * PAGE ? len : 8 * PAGE);	/* fault some pages in */
}

static void mem_op(void)
{
	struct slot *s = &slots[rnd(NSLOT)];
	uint8_t *old;
	void *p;
	size_t off, n;

	mem_ops++;
	s->gen++;	/* conservative: also for mprotect and touch, which keep registrations */
	if (!s->mapped) {
		slot_map(s, NULL);
		return;
	}
	switch (rnd(7)) {
	case 0:		/* munmap all, maybe map again at the same address */
		old = s->addr;
		munmap(s->addr, s->len);
		s->mapped = false;
		if (chance(70))
			slot_map(s, chance(50) ? old : NULL);
		break;
	case 1:		/* munmap a page inside: the slot shrinks to the front part */
		if (s->len <= PAGE || s->kind == 3)
			goto dontneed;
		off = (rnd((uint32_t)(s->len / PAGE - 1)) + 1) * PAGE;
		munmap(s->addr + off, s->len - off);
		s->len = off;
		break;
	case 2:		/* mremap: move, grow or shrink */
		if (s->kind == 3)
			goto dontneed;
		n = chance(50) ? s->len : (rnd(64) + 1) * PAGE;
		if (s->kind != 0 && n > s->len)
			n = s->len;	/* shmem/memfd: no pages past EOF (SIGBUS) */
		p = mremap(s->addr, s->len, n, MREMAP_MAYMOVE);
		if (p != MAP_FAILED) {
			s->addr = p;
			s->len = n;
		}
		break;
	case 3:
	dontneed:	/* MADV_DONTNEED a sub-range */
		off = rnd((uint32_t)(s->len / PAGE)) * PAGE;
		n = (rnd((uint32_t)((s->len - off) / PAGE)) + 1) * PAGE;
		madvise(s->addr + off, n, MADV_DONTNEED);
		break;
	case 4:		/* read-only <-> read-write */
		if (mprotect(s->addr, s->len, s->ro ? PROT_READ | PROT_WRITE : PROT_READ) == 0)
			s->ro = !s->ro;
		break;
	case 5:		/* touch: fault pages back in */
		if (!s->ro)
			memset(s->addr, (int)rnd(256), s->len < 64 * PAGE ? s->len : 64 * PAGE);
		break;
	case 6:		/* other madvise advice */
		{
			static const int adv[] = { MADV_FREE, MADV_COLD, MADV_PAGEOUT,
						   MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_WILLNEED };
			madvise(s->addr, s->len, adv[rnd(sizeof(adv) / sizeof(adv[0]))]);
		}
		break;
	}
}

/* ---- value generators ----------------------------------------------------------- */

static uint64_t boundary64(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 7, 8, (uint64_t)-1, (uint64_t)-2, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
		INT32_MAX, (uint64_t)INT32_MAX + 1, INT64_MAX, (uint64_t)INT64_MAX + 1,
		PAGE - 1, PAGE, PAGE + 1, 2 * MiB - 1, 2 * MiB, 2 * MiB + 1, 1ULL << 30,
		(1ULL << 30) + 1, 20ULL << 30, (20ULL << 30) + 1, 50ULL << 30, 1ULL << 47,
		0x7ffffffff000ULL, 0x7fffffffffffULL, 0x7ffffffff000ULL - PAGE, 0x800000000000ULL,
		0xffff800000000000ULL, 0xffff888000000000ULL, 0xffffffff81000000ULL,
		0xfffffffffffff000ULL, 65536, 65537, 1024, 1025, 4096, 4097,
	};
	return v[rnd(sizeof(v) / sizeof(v[0]))];
}

static uint32_t boundary32(void)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 4, 7, 8, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097,
		65535, 65536, 65537, INT32_MAX, (uint32_t)INT32_MAX + 1, UINT32_MAX, UINT32_MAX - 1,
	};
	return v[rnd(sizeof(v) / sizeof(v[0]))];
}

static struct slot *any_slot(void)
{
	for (int i = 0; i < 8; i++) {
		struct slot *s = &slots[rnd(NSLOT)];

		if (s->mapped)
			return s;
	}
	return NULL;
}

/* a user pointer: real, NULL, inaccessible, read-only, kernel, top of user space */
static uint64_t gen_ptr(void *real, size_t real_len)
{
	struct slot *s;

	switch (rnd(12)) {
	case 0: case 1: case 2: case 3: case 4:
		if (real)
			return (uint64_t)(uintptr_t)real;
		/* fallthrough */
	case 5:
		s = any_slot();
		if (s)
			return (uint64_t)(uintptr_t)(s->addr + (chance(50) ? 0 : rnd((uint32_t)s->len)));
		return 0;
	case 6: return 0;
	case 7: return (uint64_t)(uintptr_t)hole + rnd(2) * (PAGE - 1);
	case 8: return (uint64_t)(uintptr_t)(chance(50) ? ro_page : ro_zero_page);
	case 9: return chance(50) ? 0xffff888000000000ULL : 0xffffffff81000000ULL + rnd(4096);
	case 10: return real ? (uint64_t)(uintptr_t)real + real_len - rnd(16) : 0x7ffffffff000ULL - rnd(64);
	default: return boundary64();
	}
}

static uint32_t gen_timeout(void)
{
	if (chance(3))
		return 0;	/* must be rejected */
	return rnd(200) + 1;
}

static int pick_eng(void)
{
	return (int)rnd((uint32_t)neng);
}

static void valid_name(struct hixl_sockaddr *a, int j)
{
	memset(a, 0, sizeof(*a));
	switch (rnd(20)) {
	case 0:		/* IPv6 address of veth0 */
		a->family = AF_INET6;
		inet_pton(AF_INET6, "fd77::1", a->addr);
		break;
	case 1:		/* no RDMA device behind it */
		a->family = AF_INET;
		a->addr[0] = 127; a->addr[3] = 1;
		break;
	case 2:		/* on the subnet, nobody there */
		a->family = AF_INET;
		memcpy(a->addr, ipaddr, 4);
		a->addr[3] = (uint8_t)(ipaddr[3] + 1);
		break;
	default:
		a->family = AF_INET;
		memcpy(a->addr, ipaddr, 4);
		break;
	}
	a->port = (uint16_t)(PORT_BASE + j);
}

/* mutate a sockaddr; returns true when the result must be rejected */
static bool mutate_name(struct hixl_sockaddr *a)
{
	switch (rnd(8)) {
	case 0: a->family = (uint16_t)boundary32(); return false;
	case 1: a->port = (uint16_t)rnd(65536); return false;
	case 2: a->port = 0; return false;
	case 3: a->scope_id = boundary32(); return false;
	case 4: rnd_fill(a->addr, sizeof(a->addr)); return false;
	case 5: a->reserved = rnd64() | 1; return true;
	case 6: memset(a, 0, sizeof(*a)); return false;
	default: rnd_fill(a, sizeof(*a)); return a->reserved != 0;
	}
}

static void gen_remote(struct hixl_sockaddr *a, bool *bad)
{
	valid_name(a, pick_eng());
	if (chance(15) && mutate_name(a))
		*bad = true;
}

/* ---- argument builders -------------------------------------------------------------- */

/* Base fill: zero, random, or left for the builder to make valid. Returns 0
 * for "valid", 1 zero, 2 random. */
static int base_fill(void *a, size_t n)
{
	unsigned r = rnd(100);

	if (r < 70) {
		memset(a, 0, n);
		return 0;
	}
	if (r < 85) {
		memset(a, 0, n);
		return 1;
	}
	rnd_fill(a, n);
	return 2;
}

#define RES32(field) do { if (chance(5)) { (field) = (uint32_t)rnd64() | 1; bad = true; } } while (0)
#define RES64(field) do { if (chance(5)) { (field) = rnd64() | 1; bad = true; } } while (0)
/* one element of a reserved array, within the array (uapi sizes change) */
#define NELEM(arr) (sizeof(arr) / sizeof((arr)[0]))
#define RES64_ANY(arr) RES64((arr)[rnd(NELEM(arr))])
#define FLAGS32(field, all) do { if (chance(5)) { (field) = (uint32_t)rnd64(); \
		if ((field) & ~(uint32_t)(all)) bad = true; } } while (0)

static bool build_info(struct hixl_info *a)
{
	bool bad = false;

	if (base_fill(a, sizeof(*a)) == 2)
		return true;
	FLAGS32(a->flags, 0);
	RES32(a->reserved0);
	RES32(a->reserved1);
	RES64_ANY(a->reserved);
	if (chance(10))
		rnd_fill(&a->abi_version, 4);	/* out field */
	return bad;
}

static struct rec *pick_rec(int e, bool live_only)
{
	for (int i = 0; i < 16 && nrec; i++) {
		struct rec *r = &recs[rnd(nrec)];

		if (live_only && !r->live)
			continue;
		if (e >= 0 && r->eng != e)
			continue;
		return r;
	}
	return NULL;
}

/* a live registration of engine e whose memory has not been touched by a
 * mem_op since (and writable, when rw; announced to peers, when remote),
 * or not */
static bool usable(const struct rec *r, int e, bool rw, bool remote)
{
	if (!r->live || r->eng != e || (rw && r->ro) || (remote && r->local_only))
		return false;
	return r->slot < 0 || slots[r->slot].gen == r->slot_gen;
}

/* a uniformly chosen usable() registration, or NULL */
static struct rec *pick_live(int e, bool rw, bool remote)
{
	unsigned n = 0, k;

	for (unsigned i = 0; i < nrec; i++)
		n += usable(&recs[i], e, rw, remote);
	if (!n)
		return NULL;
	k = rnd(n);
	for (unsigned i = 0; i < nrec; i++)
		if (usable(&recs[i], e, rw, remote) && !k--)
			return &recs[i];
	return NULL;
}

/* the engine whose valid_name() a sockaddr is, or -1 */
static int eng_of_name(const struct hixl_sockaddr *a)
{
	if (a->family != AF_INET || memcmp(a->addr, ipaddr, 4) || a->port < PORT_BASE ||
	    a->port >= PORT_BASE + neng)
		return -1;
	return a->port - PORT_BASE;
}

static bool build_reg(struct hixl_reg_mem *a, int *slot_out)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));
	struct slot *s;

	*slot_out = -1;
	if (m == 2)
		return true;
	if (m == 1)
		return true;	/* len 0 */
	a->dmabuf_fd = -1;
	if (dmabufs[0] >= 0 && chance(15)) {
		a->type = HIXL_MEM_DEVICE;
		a->dmabuf_fd = dmabufs[rnd(2)];
		a->addr = chance(50) ? 0x100000000ULL * (rnd(4) + 1) : boundary64();
		a->dmabuf_offset = rnd(4) * PAGE * (chance(90) ? 1 : 0) + (chance(10) ? 1 : 0);
		a->len = chance(80) ? (rnd(16) + 1) * PAGE : boundary64();
		if (chance(5))
			a->dmabuf_fd = chance(50) ? -1 : (int)rnd(64);
	} else {
		s = any_slot();
		if (s) {
			size_t off = chance(50) ? 0 : rnd((uint32_t)s->len);
			size_t max = s->len - off;

			*slot_out = (int)(s - slots);
			a->addr = (uint64_t)(uintptr_t)(s->addr + off);
			a->len = chance(50) ? max : rnd((uint32_t)max) + 1;
			if (s->ro && chance(80))
				a->flags = HIXL_REG_READ_ONLY;
		}
		if (chance(20))
			a->addr = gen_ptr(NULL, 0);
		if (chance(15))
			a->len = chance(50) ? boundary64() : (rnd(MiB) + 1);
		if (chance(5))
			a->dmabuf_fd = (int)boundary32();
		if (chance(3))
			a->dmabuf_offset = boundary64();
		if (chance(3))
			a->type = boundary32();
	}
	if (chance(10))
		a->flags ^= HIXL_REG_READ_ONLY;
	if (chance(10))
		a->flags |= HIXL_REG_LOCAL_ONLY;
	FLAGS32(a->flags, FUZZ_REG_FLAGS);
	RES32(a->reserved0);
	RES32(a->reserved1);
	if (chance(10)) {	/* out fields: garbage must be ignored */
		a->handle = rnd64();
		a->page_size = rnd64();
		a->nr_pages = rnd64();
		a->nr_mrs = (uint32_t)rnd64();
		a->mr_page_size = rnd64();
	}
	return bad;
}

static bool build_dereg(struct hixl_dereg_mem *a, int e)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));
	struct rec *r;

	if (m)
		return m == 2;
	r = pick_rec(chance(80) ? e : -1, chance(80));
	if (r)
		a->handle = r->handle;
	if (!r || chance(10))
		a->handle = chance(50) ? boundary64() : rnd64();
	FLAGS32(a->flags, 0);
	RES32(a->reserved0);
	RES64_ANY(a->reserved);
	return bad;
}

/* GET_STATS's rail entries asked for (nr_rails in): check_stats() needs it */
static uint32_t stats_room;

/*
 * GET_STATS: flags 0 or HIXL_STATS_RAILS (HIXL_FEAT_STATS_RAILS), with
 * nr_rails (0..HIXL_MAX_RAILS, at times past it) entries at rails: stat_buf
 * (canary-filled, so an entry written past min(in, out) shows), a bad
 * pointer (-EFAULT) or none.  Without the flag both must be 0.
 */
static bool build_stats(struct hixl_stats *a)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	memset(stat_buf, STAT_CANARY, STAT_BUF_SZ);
	if (m == 2) {
		stats_room = a->nr_rails;
		return (a->flags & ~HIXL_STATS_RAILS) ||
		       (!(a->flags & HIXL_STATS_RAILS) && (a->nr_rails || a->rails)) ||
		       a->nr_rails > HIXL_MAX_RAILS || !a->nr_rails != !a->rails ||
		       a->xfer.reserved[0] || a->xfer.reserved[1];
	}
	if (chance(40)) {		/* the rails too */
		a->flags = HIXL_STATS_RAILS;
		switch (rnd(8)) {
		case 0:			/* the count only */
			break;
		case 1:
			a->nr_rails = chance(50) ? boundary32() : HIXL_MAX_RAILS + 1 + rnd(8);
			a->rails = (uint64_t)(uintptr_t)stat_buf;
			break;
		case 2:
			a->nr_rails = rnd(HIXL_MAX_RAILS) + 1;
			a->rails = gen_ptr(stat_buf, STAT_BUF_SZ);
			break;
		default:
			a->nr_rails = rnd(HIXL_MAX_RAILS) + 1;
			a->rails = (uint64_t)(uintptr_t)stat_buf;
			break;
		}
		if (chance(3))		/* rails and nr_rails disagree */
			a->rails = a->rails ? 0 : (uint64_t)(uintptr_t)stat_buf;
		bad = a->nr_rails > HIXL_MAX_RAILS || !a->nr_rails != !a->rails;
	} else if (chance(5)) {		/* rails without the flag */
		if (chance(50))
			a->nr_rails = (uint32_t)rnd64() | 1;
		else
			a->rails = (uint64_t)(uintptr_t)stat_buf;
		bad = true;
	}
	FLAGS32(a->flags, HIXL_STATS_RAILS);
	RES64_ANY(a->xfer.reserved);
	if (chance(10))
		rnd_fill(&a->regions, 8 * 12);	/* out fields */
	stats_room = a->nr_rails;
	return bad;
}

static bool build_setup(struct hixl_setup *a, int e)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	if (m)
		return true;
	valid_name(&a->local, e);
	if (chance(10))
		a->local.port = 0;
	if (chance(10) && mutate_name(&a->local))
		bad = true;
	a->traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	a->service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	a->pool_buffers = rnd(4) + 1;
	a->pool_buffer_mb = rnd(4) + 1;
	if (chance(10)) {
		a->pool_buffers = 0;
		a->pool_buffer_mb = 0;
	}
	if (chance(10))
		a->traffic_class = chance(50) ? rnd(64) * 4 : boundary32();
	if (chance(10))
		a->service_level = chance(50) ? rnd(8) : boundary32();
	if (chance(8)) {	/* out of range (must be refused) or boundary */
		static const uint32_t bn[] = { 0, 257, 1000, UINT32_MAX };
		static const uint32_t bm[] = { 0, 1025, 4096, UINT32_MAX };

		if (chance(50))
			a->pool_buffers = bn[rnd(4)];
		else
			a->pool_buffer_mb = bm[rnd(4)];
	}
	FLAGS32(a->flags, 0);
	if (chance(10)) {		/* AUTO, RDMA, LOCAL, or unknown */
		a->transport = rnd(5);
		bad |= a->transport > HIXL_TRANSPORT_LOCAL;
	}
	RES32(a->reserved1);
	RES64_ANY(a->reserved);
	if (chance(10))
		rnd_fill(a->device, sizeof(a->device));	/* out */
	if (chance(10)) {	/* extra rails: a list (good, duplicated, mutated) or auto */
		static struct hixl_sockaddr rails[HIXL_MAX_RAILS + 1];
		uint32_t n = rnd(HIXL_MAX_RAILS + 1) + 1;

		for (uint32_t i = 0; i < n; i++) {
			if (i && chance(20))
				rails[i] = rails[rnd(i)];	/* a duplicate: refused */
			else
				valid_name(&rails[i], rnd(4));
			if (chance(50)) {	/* the test VM's second rail (rxe1) */
				memset(&rails[i], 0, sizeof(rails[i]));
				rails[i].family = AF_INET;
				inet_pton(AF_INET, "10.78.0.1", rails[i].addr);
			}
			rails[i].port = 0;
			if (chance(10))
				mutate_name(&rails[i]);
		}
		switch (rnd(4)) {
		case 0:
			a->flags |= HIXL_SETUP_RAILS_AUTO;
			break;
		case 1:		/* both: refused */
			a->flags |= HIXL_SETUP_RAILS | HIXL_SETUP_RAILS_AUTO;
			a->rails = (uint64_t)(uintptr_t)rails;
			a->nr_rails = n;
			bad = true;
			break;
		default:
			a->flags |= HIXL_SETUP_RAILS;
			a->rails = chance(5) ? boundary64() : (uint64_t)(uintptr_t)rails;
			a->nr_rails = n;
			bad |= n > HIXL_MAX_RAILS - 1;
			break;
		}
	}
	RES32(a->reserved2);
	return bad;
}

static bool build_connect(struct hixl_connect *a)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	if (m == 2) {	/* random, but keep the call bounded */
		a->timeout_ms = rnd(200) + 1;
		return true;
	}
	if (m == 1)
		return true;
	gen_remote(&a->remote, &bad);
	a->timeout_ms = gen_timeout();
	FLAGS32(a->flags, 0);
	RES64_ANY(a->reserved);
	return bad;
}

/* the mapped slot that holds addr, or NULL */
static struct slot *slot_at(uint64_t addr)
{
	for (int i = 0; i < NSLOT; i++) {
		uint64_t a = (uint64_t)(uintptr_t)slots[i].addr;

		if (slots[i].mapped && addr >= a && addr - a < slots[i].len)
			return &slots[i];
	}
	return NULL;
}

/*
 * The kernel writes a READ's local range wherever it is user memory: a
 * staged READ copies out like read(2) (docs/abi.md, "The staging pool").
 * So keep it inside one slot, or where writing fails before a byte lands
 * (the inaccessible hole, the read-only page, kernel addresses): the
 * fuzzer otherwise overwrote its own memory past a slot's end (libc, the
 * TLS canary) and died of "stack smashing detected" (make fuzz, seed 1,
 * about call 850,000).
 */
static void confine_read_local(struct hixl_op_desc *d)
{
	struct slot *s = slot_at(d->local_addr);

	if (s) {
		uint64_t room = (uint64_t)(uintptr_t)s->addr + s->len - d->local_addr;

		if (d->len > room)
			d->len = room;
		return;
	}
	switch (rnd(3)) {
	case 0: d->local_addr = (uint64_t)(uintptr_t)hole + rnd(PAGE); break;
	case 1: d->local_addr = (uint64_t)(uintptr_t)ro_page + rnd(PAGE); break;
	default: d->local_addr = chance(50) ? 0xffff888000000000ULL : boundary64() | (1ULL << 63); break;
	}
	if (d->local_addr < (1ULL << 47) && d->len > PAGE - (d->local_addr & (PAGE - 1)))
		d->len = PAGE - (d->local_addr & (PAGE - 1));
}

static void fill_descs(struct hixl_op_desc *d, unsigned n, int e, int peer)
{
	for (unsigned i = 0; i < n; i++) {
		struct rec *l = pick_rec(e, true), *r = pick_rec(peer, true);
		uint64_t len = rnd(chance(80) ? 4096 : MiB) + 1;

		d[i].local_addr = l ? l->addr + rnd((uint32_t)l->len) : gen_ptr(NULL, 0);
		d[i].remote_addr = r ? r->addr + rnd((uint32_t)r->len) : gen_ptr(NULL, 0);
		if (l && chance(70)) {
			uint64_t room = l->addr + l->len - d[i].local_addr;

			if (len > room)
				len = room;
		}
		if (r && chance(70)) {
			uint64_t room = r->addr + r->len - d[i].remote_addr;

			if (len > room)
				len = room;
		}
		d[i].len = len;
		if (chance(5))
			d[i].local_addr = boundary64();
		if (chance(5))
			d[i].remote_addr = boundary64();
		if (chance(5))
			d[i].len = boundary64();
	}
}

/*
 * A TRANSFER that should succeed: to a peer engine e is linked to, every
 * descriptor inside a live registration on each side, a timeout of 2 s.  It
 * can still fail (a region invalidated by a mem_op, a link broken under
 * us); the point is that the success path, with its chains, completions
 * and region lookups, gets fuzzed alongside everything else.  Returns false
 * when e has no such peer.
 */
static bool build_wellformed(struct hixl_transfer *a, int e)
{
	int peers[NENG_MAX], np = 0, peer;
	uint32_t op = rnd(2);
	bool lrw = op == HIXL_OP_READ, rrw = op == HIXL_OP_WRITE;	/* who is written */
	unsigned n;

	for (int p = 0; p < neng; p++)
		if (linked[e][p] && pick_live(p, rrw, true))
			peers[np++] = p;
	if (!np || !pick_live(e, lrw, false))
		return false;
	peer = peers[rnd((uint32_t)np)];
	memset(a, 0, sizeof(*a));
	a->remote.family = AF_INET;
	memcpy(a->remote.addr, ipaddr, 4);
	a->remote.port = (uint16_t)(PORT_BASE + peer);
	a->op = op;
	n = chance(80) ? rnd(8) + 1 : rnd(NDESC_BUF) + 1;
	for (unsigned i = 0; i < n; i++) {
		struct rec *l = pick_live(e, lrw, false), *r = pick_live(peer, rrw, true);
		uint64_t lo = rnd((uint32_t)l->len), ro = rnd((uint32_t)r->len);
		/* at most 1 MiB a batch: the debug kernel's rxe moves ~3 MB/s */
		uint64_t len = rnd((uint32_t)(chance(80) ? 4096 : MiB / n)) + 1;

		if (len > l->len - lo)
			len = l->len - lo;
		if (len > r->len - ro)
			len = r->len - ro;
		desc_buf[i].local_addr = l->addr + lo;
		desc_buf[i].remote_addr = r->addr + ro;
		desc_buf[i].len = len;
	}
	a->count = n;
	a->descs = (uint64_t)(uintptr_t)desc_buf;
	a->timeout_ms = 2000;
	if (chance(30)) {
		a->tag = rnd64();
		tag_seen[rnd(8)] = a->tag;
	}
	return true;
}

/*
 * Aim one descriptor of a well-formed TRANSFER at a local-only region of
 * its peer, which was never announced: the TRANSFER must fail.  False
 * when the peer has none.
 */
static bool aim_local_only(struct hixl_transfer *a)
{
	int peer = eng_of_name(&a->remote);
	unsigned i = rnd(a->count);

	for (unsigned k = 0; peer >= 0 && k < nrec; k++) {
		struct rec *r = &recs[k];

		if (!r->live || r->eng != peer || !r->local_only || r->device)
			continue;
		desc_buf[i].remote_addr = r->addr + rnd((uint32_t)r->len);
		if (desc_buf[i].len > r->addr + r->len - desc_buf[i].remote_addr)
			desc_buf[i].len = r->addr + r->len - desc_buf[i].remote_addr;
		return true;
	}
	return false;
}

static bool build_transfer(struct hixl_transfer *a, int e, bool *wellformed)
{
	bool bad = false;
	int m;
	int peer;
	unsigned n;

	*wellformed = chance(40) && build_wellformed(a, e);
	if (*wellformed && chance(30) && aim_local_only(a)) {
		*wellformed = false;
		must_fail = true;
	}
	if (*wellformed || must_fail)
		return false;
	m = base_fill(a, sizeof(*a));

	if (m == 2) {
		a->timeout_ms = rnd(200) + 1;
		if (a->count > NDESC_BUF)
			a->count = rnd(NDESC_BUF + 1);
		return true;
	}
	if (m == 1)
		return true;
	peer = pick_eng();
	valid_name(&a->remote, peer);
	if (chance(15) && mutate_name(&a->remote))
		bad = true;
	a->op = chance(95) ? rnd(2) : boundary32();
	n = chance(80) ? rnd(8) + 1 : rnd(NDESC_BUF) + 1;
	a->count = n;
	fill_descs(desc_buf, n, e, peer);
	if (a->op != HIXL_OP_WRITE)	/* READ, or a bad op the kernel refuses */
		for (unsigned i = 0; i < n; i++)
			confine_read_local(&desc_buf[i]);
	a->descs = (uint64_t)(uintptr_t)desc_buf;
	if (chance(10)) {	/* descriptors ending at the end of the buffer */
		a->descs = (uint64_t)(uintptr_t)(desc_buf + NDESC_BUF - n);
		memmove(desc_buf + NDESC_BUF - n, desc_buf, n * sizeof(*desc_buf));
	}
	if (chance(10))
		a->descs = gen_ptr(desc_buf, n * sizeof(*desc_buf));
	if (chance(5))
		a->count = chance(50) ? boundary32() : NDESC_BUF + 1;
	a->timeout_ms = gen_timeout();
	FLAGS32(a->flags, 0);
	RES32(a->reserved0);
	RES64(a->reserved);
	if (chance(30)) {
		a->tag = chance(20) ? boundary64() : rnd64();	/* any value is valid */
		tag_seen[rnd(8)] = a->tag;
	}
	if (chance(10))
		a->failed = (uint32_t)rnd64();	/* out */
	return bad;
}

static uint32_t gen_notify_len(void)
{
	if (chance(10))
		return boundary32();
	return chance(50) ? rnd(64) + 1 : rnd(1025);
}

static bool build_send(struct hixl_send_notify *a)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	if (m)
		return true;
	gen_remote(&a->remote, &bad);
	a->name_len = gen_notify_len();
	a->msg_len = gen_notify_len();
	a->name = (uint64_t)(uintptr_t)text_buf + (chance(50) ? 0 : rnd(1024));
	a->msg = (uint64_t)(uintptr_t)text_buf + (chance(50) ? 0 : rnd(1024));
	if (chance(20))
		a->name = gen_ptr(text_buf, a->name_len);
	if (chance(20))
		a->msg = gen_ptr(text_buf, a->msg_len);
	if (chance(5))
		a->name = (uint64_t)(uintptr_t)tail_page + PAGE - rnd(a->name_len + 1);
	FLAGS32(a->flags, 0);
	RES32(a->reserved0);
	RES64_ANY(a->reserved);
	return bad;
}

static bool build_cancel(struct hixl_cancel *a)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	if (m == 2)
		return !a->tag || (a->flags & ~HIXL_CANCEL_FLAGS) || a->reserved0 ||
		       a->reserved[0];
	a->tag = chance(80) ? tag_seen[rnd(8)] : boundary64();
	if (!a->tag)
		bad = true;
	FLAGS32(a->flags, HIXL_CANCEL_FLAGS);
	RES32(a->reserved0);
	RES64_ANY(a->reserved);
	if (chance(10))
		a->count = (uint32_t)rnd64();	/* out */
	if (chance(10))
		a->broken = (uint32_t)rnd64();	/* out */
	return bad;
}

static bool build_getn(struct hixl_get_notifies *a)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	if (m)
		return true;
	a->max = rnd(NNOTIFY_BUF) + 1;
	a->buf = (uint64_t)(uintptr_t)(notify_buf + NNOTIFY_BUF - a->max);
	if (chance(15))
		a->buf = gen_ptr(notify_buf, NNOTIFY_BUF * sizeof(*notify_buf));
	if (chance(10))
		a->max = boundary32();
	if (chance(10)) {
		a->count = (uint32_t)rnd64();	/* out */
		a->dropped = rnd64();
	}
	FLAGS32(a->flags, 0);
	RES32(a->reserved0);
	RES64_ANY(a->reserved);
	return bad;
}

/*
 * LINK_STATS and ENGINES write min(count, total) records to buf: the
 * buffer is stat_buf (NSTAT_BUF engine records and a canary page after
 * them), filled with STAT_CANARY first, so a record written past that
 * shows (stat_check_tail()).  Returns true when the arguments must be
 * refused (-EINVAL): count above HIXL_MAX_STAT_ENTRIES, or buf and count
 * not both 0 or both set.
 */
static bool build_stat_buf(__u64 *buf, __u32 *count)
{
	memset(stat_buf, STAT_CANARY, STAT_BUF_SZ);
	switch (rnd(10)) {
	case 0:				/* the total only */
		*count = 0;
		*buf = 0;
		break;
	case 1:
		*count = boundary32();
		*buf = (uint64_t)(uintptr_t)stat_buf;
		break;
	case 2:
		*count = rnd(NSTAT_BUF) + 1;
		*buf = gen_ptr(stat_buf, STAT_BUF_SZ);
		break;
	default:
		*count = rnd(NSTAT_BUF) + 1;
		*buf = (uint64_t)(uintptr_t)stat_buf;
		break;
	}
	if (chance(3))			/* buf and count disagree, at times */
		*buf = *buf ? 0 : (uint64_t)(uintptr_t)stat_buf;
	return *count > HIXL_MAX_STAT_ENTRIES || !*count != !*buf;
}

/*
 * The @lat pointer of LINK_STATS or ENGINES (their LATENCY flag, @want):
 * room for 64 histograms, a pointer that cannot take them, 0, or
 * without the flag now and then a stray one.  True when it must be refused.
 */
static bool build_lat(__u64 *lat, bool want, uint32_t count)
{
	static struct hixl_lat_hist hists[64];	/* more than the VM has engines or links */

	if (!want) {
		if (chance(5)) {
			*lat = rnd64() | 1;	/* lat without the flag */
			return true;
		}
		return *lat != 0;
	}
	switch (rnd(8)) {
	case 0: *lat = 0; break;
	case 1: *lat = (uint64_t)(uintptr_t)hole; break;
	case 2: *lat = (uint64_t)(uintptr_t)ro_page; break;
	default: *lat = (uint64_t)(uintptr_t)hists; break;
	}
	return !count != !*lat;
}

static bool build_link_stats(struct hixl_link_stats *a)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	if (m == 2)
		return true;
	switch (rnd(10)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		a->engine = 0;		/* this engine */
		break;
	case 6: case 7: case 8:
		a->engine = ids_seen[rnd(8)];
		break;
	default:
		a->engine = boundary64();
		break;
	}
	bad = build_stat_buf(&a->buf, &a->count);
	if (chance(30))
		a->flags = HIXL_LINK_STATS_RAILS;	/* each link's rails too */
	if (chance(20))
		a->flags |= HIXL_LINK_STATS_LATENCY;	/* and their histograms */
	FLAGS32(a->flags, HIXL_LINK_STATS_RAILS | HIXL_LINK_STATS_LATENCY);
	bad |= build_lat(&a->lat, a->flags & HIXL_LINK_STATS_LATENCY, a->count);
	RES32(a->reserved0);
	RES64_ANY(a->reserved);
	if (chance(10))
		a->total = (uint32_t)rnd64();	/* out */
	return bad;
}

static bool build_engines(struct hixl_engines *a)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	if (m == 2)
		return true;
	bad = build_stat_buf(&a->buf, &a->count);
	if (chance(30))
		a->flags = HIXL_ENGINES_RAILS;	/* each engine's rails too */
	if (chance(20))
		a->flags |= HIXL_ENGINES_LATENCY;	/* and their histograms */
	FLAGS32(a->flags, HIXL_ENGINES_RAILS | HIXL_ENGINES_LATENCY);
	bad |= build_lat(&a->lat, a->flags & HIXL_ENGINES_LATENCY, a->count);
	if (a->flags & HIXL_ENGINES_RAILS) {
		/*
		 * room for 64 engines' rails (more than the VM has: stat_buf's
		 * NSTAT_BUF records bound what is asked for, but ENGINES writes
		 * min(count, engines)), or a pointer that cannot take them
		 */
		static struct hixl_rail_stat rails[64 * HIXL_MAX_RAILS];

		switch (rnd(8)) {
		case 0: a->rails = 0; break;
		case 1: a->rails = (uint64_t)(uintptr_t)hole; break;
		case 2: a->rails = (uint64_t)(uintptr_t)ro_page; break;
		case 3: a->rails = 0xffff888000000000ULL; break;
		default: a->rails = (uint64_t)(uintptr_t)rails; break;
		}
		bad |= a->count > HIXL_MAX_RAIL_STAT_ENGINES || !a->count != !a->rails;
	} else if (chance(5)) {
		a->rails = rnd64() | 1;		/* rails without the flag */
		bad = true;
	}
	RES32(a->reserved0);
	if (chance(10))
		a->total = (uint32_t)rnd64();	/* out */
	return bad;
}

/* entries of stat_buf a PEER_REGIONS may fill, its canary page left over */
#define NPEER_BUF	((STAT_BUF_SZ - PAGE) / sizeof(struct hixl_peer_region))

static bool build_peer_regions(struct hixl_peer_regions *a)
{
	bool bad = false;
	int m = base_fill(a, sizeof(*a));

	if (m == 2)
		return true;
	if (m == 1)
		return true;
	gen_remote(&a->remote, &bad);
	bad |= build_stat_buf(&a->buf, &a->count);
	if (a->buf == (uint64_t)(uintptr_t)stat_buf && a->count > NPEER_BUF &&
	    a->count <= HIXL_MAX_STAT_ENTRIES)
		a->count = NPEER_BUF;	/* a peer's table may be longer than stat_buf */
	FLAGS32(a->flags, 0);
	RES32(a->reserved0);
	RES64_ANY(a->reserved);
	if (chance(10))
		a->total = (uint32_t)rnd64();	/* out */
	return bad;
}

/* ---- calls ------------------------------------------------------------------------ */

static unsigned long mangle(unsigned long nr)
{
	unsigned long v;

	for (;;) {
		switch (rnd(6)) {
		case 0:		/* size */
			v = (nr & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
			    ((unsigned long)(chance(50) ? rnd(_IOC_SIZEMASK + 1) :
					     _IOC_SIZE(nr) + rnd(17) - 8) & _IOC_SIZEMASK) << _IOC_SIZESHIFT;
			break;
		case 1:		/* direction */
			v = (nr & ~(_IOC_DIRMASK << _IOC_DIRSHIFT)) |
			    ((unsigned long)rnd(3) << _IOC_DIRSHIFT);
			break;
		case 2:		/* nr */
			v = (nr & ~(_IOC_NRMASK << _IOC_NRSHIFT)) |
			    ((unsigned long)(chance(50) ? rnd(16) : rnd(256)) << _IOC_NRSHIFT);
			break;
		case 3:		/* type */
			v = (nr & ~(_IOC_TYPEMASK << _IOC_TYPESHIFT)) |
			    ((unsigned long)rnd(256) << _IOC_TYPESHIFT);
			break;
		case 4:		/* another command's number with this struct */
			v = cmd_nr[rnd(NCMD)];
			break;
		default:	/* anything */
			v = (uint32_t)rnd64();
			break;
		}
		if (v == nr)
			continue;
		/* stay off the VFS's own ioctls (FIFREEZE & co, 'X', 'f', 0x94, 'T') */
		if (_IOC_TYPE(v) == 'X' || _IOC_TYPE(v) == 'f' || _IOC_TYPE(v) == 0x94 ||
		    _IOC_TYPE(v) == 'T' || _IOC_TYPE(v) == 0)
			continue;
		return v;
	}
}

/* The command whose type and nr fields @v has (any size, direction), or -1. */
static int cmd_of_nr(unsigned long v)
{
	if (_IOC_TYPE(v) != HIXL_IOC_MAGIC)
		return -1;
	for (int i = 0; i < NCMD; i++)
		if (_IOC_NR(v) == _IOC_NR(cmd_nr[i]))
			return i;
	return -1;
}

static bool is_ours(unsigned long v)
{
	for (int i = 0; i < NCMD; i++)
		if (v == cmd_nr[i])
			return true;
	return false;
}

static void violation(const char *what, unsigned long call, int cmd, long ret)
{
	violations++;
	if (violations <= 20)
		printf("VIOLATION call %lu %s: %s (ret %ld %s)\n", call, cmd_name[cmd], what,
		       ret, ret < 0 ? strerror((int)-ret) : "");
}

static void record_reg(int e, struct hixl_reg_mem *a, int slot)
{
	struct rec *r = NULL;

	for (unsigned i = 0; i < nrec; i++)
		if (!recs[i].live && recs[i].gen != eng[recs[i].eng].gen && rnd(2)) {
			r = &recs[i];
			break;
		}
	if (!r) {
		if (nrec < MAXREC)
			r = &recs[nrec++];
		else
			r = &recs[rnd(MAXREC)];
	}
	r->handle = a->handle;
	r->addr = a->addr;
	r->len = a->len;
	r->eng = e;
	r->gen = eng[e].gen;
	r->live = true;
	r->device = a->type == HIXL_MEM_DEVICE;
	r->ro = a->flags & HIXL_REG_READ_ONLY;
	r->local_only = a->flags & HIXL_REG_LOCAL_ONLY;
	r->slot = -1;
	if (slot >= 0 && !r->device && slots[slot].mapped &&
	    a->addr >= (uintptr_t)slots[slot].addr &&
	    a->addr + a->len <= (uintptr_t)slots[slot].addr + slots[slot].len) {
		r->slot = slot;
		r->slot_gen = slots[slot].gen;
	}
}

/* ---- io_uring ----------------------------------------------------------------------- */

/* Reap what has completed (wait: at least one); results are not checked per call. */
static void uring_reap(struct io_uring *r, bool wait)
{
	struct io_uring_cqe *cqe;

	while (uring_inflight) {
		int ret;

		if (wait) {
			struct __kernel_timespec ts = { .tv_sec = 30 };

			ret = io_uring_wait_cqe_timeout(r, &cqe, &ts);
			if (ret == -ETIME || ret == -EINTR)
				return;
			wait = false;
		} else {
			ret = io_uring_peek_cqe(r, &cqe);
		}
		if (ret)
			return;
		uring_inflight--;
		if (cqe->res == 0)
			uring_ok++;
		/* a control-path command must be refused as such */
		if ((cqe->user_data & 1) && cqe->res != -EOPNOTSUPP)
			violation("ioctl-only command through io_uring not -EOPNOTSUPP",
				  cqe->user_data >> 1, NCMD, cqe->res);
		hist_add(errno_hist, cqe->res);
		io_uring_cqe_seen(r, cqe);
	}
}

static void uring_reap_all(void)
{
	uring_reap(&ring_big, false);
	uring_reap(&ring_small, false);
}

/*
 * The call through io_uring: the struct in an SQE128, or a hixl_uring_ptr
 * (sometimes with a wrong length or reserved bits) in a 64-byte SQE; left
 * in flight.  Returns false when no SQE could be had.
 */
static bool uring_call(int fd, unsigned long nr, uint64_t argp, const void *arg, size_t size)
{
	bool big = chance(60);
	struct io_uring *r = big ? &ring_big : &ring_small;
	uint64_t user_data = (uint64_t)cur_call << 1;
	uint32_t cmd_flags = 0;
	struct io_uring_sqe *sqe;

	if (uring_inflight >= URING_MAX_INFLIGHT) {
		uring_reap(&ring_big, false);
		uring_reap(&ring_small, false);
		if (uring_inflight >= URING_MAX_INFLIGHT)
			uring_reap(r, true);
	}
	sqe = io_uring_get_sqe(r);
	if (!sqe)
		return false;
	if (chance(2))
		cmd_flags = (uint32_t)rnd64();
	else if (nr != HIXL_IOC_TRANSFER && nr != HIXL_IOC_SEND_NOTIFY && nr != HIXL_IOC_CANCEL &&
		 is_ours(nr))
		user_data |= 1;	/* expect -EOPNOTSUPP */
	if (big) {
		hixl_raw_uring_cmd(sqe, 128, fd, (uint32_t)nr, arg, size, user_data);
		if (chance(5))
			sqe->cmd[rnd(80)] = (uint8_t)rnd(256);
	} else {
		struct hixl_uring_ptr p = { .addr = argp, .len = (uint32_t)size };

		if (chance(5))
			p.len = chance(50) ? boundary32() : (uint32_t)(size + rnd(17) - 8);
		if (chance(3))
			p.reserved = (uint32_t)rnd64() | 1;
		hixl_raw_uring_cmd(sqe, 64, fd, (uint32_t)nr, &p, sizeof(p), user_data);
	}
	sqe->uring_cmd_flags = cmd_flags;	/* mangled at times: must be 0 */
	if (io_uring_submit(r) != 1)
		return false;
	uring_inflight++;
	uring_calls++;
	return true;
}

/* The bytes of stat_buf after the first @used: still the canary? */
static bool stat_tail_ok(size_t used)
{
	for (size_t i = used; i < STAT_BUF_SZ; i++)
		if (stat_buf[i] != STAT_CANARY)
			return false;
	return true;
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* A LINK_STATS that succeeded: the records it wrote, and nothing more. */
static void check_link_stats(const struct hixl_link_stats *a, int cmd)
{
	const struct hixl_link_stat *o = (const void *)stat_buf;
	uint32_t n = a->count < a->total ? a->count : a->total;

	if (a->buf != (uint64_t)(uintptr_t)stat_buf)
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (o[i].state > HIXL_LINK_STATE_CLOSED)
			violation("LINK_STATS state out of range", cur_call, cmd, 0);
		if (o[i].flags & ~(HIXL_LINK_STAT_ACTIVE | HIXL_LINK_STAT_NAMED |
				   HIXL_LINK_STAT_LOCAL | HIXL_LINK_STAT_NO_LINK))
			violation("LINK_STATS unknown flags", cur_call, cmd, 0);
		if (o[i].err > 0 || o[i].err < -4095)
			violation("LINK_STATS err not -errno", cur_call, cmd, 0);
		/* rail entries only when asked for, each right after its link or rail - 1 */
		if (o[i].rail && (!(a->flags & HIXL_LINK_STATS_RAILS) || o[i].rail >= HIXL_MAX_RAILS ||
				  !i || o[i - 1].rail + 1 != o[i].rail))
			violation("LINK_STATS rail entry out of place", cur_call, cmd, 0);
		if ((o[i].flags & HIXL_LINK_STAT_NO_LINK) && !o[i].rail)
			violation("LINK_STATS NO_LINK on a link (rail 0)", cur_call, cmd, 0);
		if (!(o[i].flags & HIXL_LINK_STAT_NAMED) && !all_zero(&o[i].peer, sizeof(o[i].peer)))
			violation("LINK_STATS peer of an unnamed link not 0", cur_call, cmd, 0);
	}
	if (!stat_tail_ok(n * sizeof(*o)))
		violation("LINK_STATS wrote past min(count, total) records", cur_call, cmd, 0);
}

/*
 * A GET_STATS that succeeded: nr_rails out within HIXL_MAX_RAILS (0 without
 * HIXL_STATS_RAILS), the min(in, out) rail entries in order with their
 * state in range and reserved fields 0, and nothing written past them.
 */
static void check_stats(const struct hixl_stats *a, int cmd)
{
	const struct hixl_rail_stat *o = (const void *)stat_buf;
	uint32_t n = stats_room < a->nr_rails ? stats_room : a->nr_rails;

	if (a->nr_rails > HIXL_MAX_RAILS)
		violation("GET_STATS nr_rails above HIXL_MAX_RAILS", cur_call, cmd, 0);
	if (!(a->flags & HIXL_STATS_RAILS)) {
		if (a->nr_rails || a->rails)
			violation("GET_STATS nr_rails or rails out without HIXL_STATS_RAILS",
				  cur_call, cmd, 0);
		return;
	}
	if (a->rails != (uint64_t)(uintptr_t)stat_buf)
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (o[i].rail != i)
			violation("GET_STATS rail entry out of order", cur_call, cmd, 0);
		if (o[i].state < HIXL_RAIL_STATE_UP || o[i].state > HIXL_RAIL_STATE_REMOVED)
			violation("GET_STATS rail state out of range", cur_call, cmd, 0);
		if (o[i].links_up > o[i].links)
			violation("GET_STATS rail links_up above links", cur_call, cmd, 0);
		if (o[i].numa_node < -1)
			violation("GET_STATS rail numa_node below -1", cur_call, cmd, 0);
		if (o[i].reserved0 || !all_zero(o[i].reserved, sizeof(o[i].reserved)) ||
		    !all_zero(o[i].xfer.reserved, sizeof(o[i].xfer.reserved)))
			violation("GET_STATS rail reserved out not 0", cur_call, cmd, 0);
		if (!memchr(o[i].device, 0, sizeof(o[i].device)))
			violation("GET_STATS rail device not NUL-terminated", cur_call, cmd, 0);
	}
	if (!stat_tail_ok(n * sizeof(*o)))
		violation("GET_STATS wrote past min(nr_rails in, out) rail entries", cur_call, cmd, 0);
}

/* An ENGINES that succeeded: its records are sane; their ids feed LINK_STATS. */
static void check_engines(const struct hixl_engines *a, int cmd)
{
	const struct hixl_engine_stat *o = (const void *)stat_buf;
	uint32_t n = a->count < a->total ? a->count : a->total, self = 0;

	if (!a->total)
		violation("ENGINES total 0: the caller's own engine is always visible", cur_call,
			  cmd, 0);
	if (a->buf != (uint64_t)(uintptr_t)stat_buf)
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (!o[i].id || (i && o[i].id <= o[i - 1].id))
			violation("ENGINES ids not non-zero and oldest first", cur_call, cmd, 0);
		if (o[i].flags & ~(HIXL_ENGINE_STAT_SETUP | HIXL_ENGINE_STAT_SELF |
				   HIXL_ENGINE_STAT_BUSY))
			violation("ENGINES unknown flags", cur_call, cmd, 0);
		if (!all_zero(o[i].reserved, sizeof(o[i].reserved)))
			violation("ENGINES reserved out not 0", cur_call, cmd, 0);
		if (o[i].nr_rails > HIXL_MAX_RAILS ||
		    (!(o[i].flags & HIXL_ENGINE_STAT_SETUP) && o[i].nr_rails))
			violation("ENGINES nr_rails above the limit, or of an engine without SETUP",
				  cur_call, cmd, 0);
		if (!memchr(o[i].device, 0, sizeof(o[i].device)))
			violation("ENGINES device not NUL-terminated", cur_call, cmd, 0);
		if (!(o[i].flags & HIXL_ENGINE_STAT_SETUP) &&
		    (!all_zero(&o[i].local, sizeof(o[i].local)) || o[i].device[0]))
			violation("ENGINES name or device of an engine without SETUP", cur_call,
				  cmd, 0);
		if (o[i].flags & HIXL_ENGINE_STAT_SELF) {
			self++;
			if (o[i].pid != (uint32_t)getpid())
				violation("ENGINES SELF record with another pid", cur_call, cmd, 0);
		}
		ids_seen[rnd(8)] = o[i].id;
	}
	if (self > 1)
		violation("ENGINES more than one SELF record", cur_call, cmd, 0);
	if (!stat_tail_ok(n * sizeof(*o)))
		violation("ENGINES wrote past min(count, total) records", cur_call, cmd, 0);
}

/*
 * A PEER_REGIONS that succeeded: min(count, total) entries, oldest first,
 * known flags, reserved 0, nothing past them, and never a region the peer
 * registered local-only.
 */
static void check_peer_regions(const struct hixl_peer_regions *a, int cmd)
{
	const struct hixl_peer_region *o = (const void *)stat_buf;
	uint32_t n = a->count < a->total ? a->count : a->total;
	int p = eng_of_name(&a->remote);

	if (a->buf != (uint64_t)(uintptr_t)stat_buf)
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (o[i].flags & ~(HIXL_PEER_REGION_WRITABLE | HIXL_PEER_REGION_DEVICE) ||
		    o[i].reserved)
			violation("PEER_REGIONS unknown flags or reserved set", cur_call, cmd, 0);
		if (i && o[i - 1].seq >= o[i].seq)
			violation("PEER_REGIONS not oldest first", cur_call, cmd, 0);
		if (!o[i].len)
			violation("PEER_REGIONS an empty region", cur_call, cmd, 0);
		for (unsigned r = 0; p >= 0 && r < nrec; r++)
			if (recs[r].live && recs[r].eng == p && recs[r].local_only &&
			    recs[r].addr == o[i].addr && recs[r].len == o[i].len)
				violation("PEER_REGIONS shows a local-only region", cur_call, cmd, 0);
	}
	if (!stat_tail_ok(n * sizeof(*o)))
		violation("PEER_REGIONS wrote past min(count, total) records", cur_call, cmd, 0);
}

/* One call on engine e (fd).  in_child: do not count or record. */
static void do_call(int e, int fd, bool in_child)
{
	int cmd = (int)rnd(NCMD);
	bool mangled = chance(10);
	unsigned long nr = cmd_nr[cmd];
	uint8_t *arg = argbuf + ARGBUF_SZ / 2;	/* room on both sides */
	bool bad = false, wellformed = false;
	int reg_slot = -1;
	long ret;
	uint64_t argp;

	memset(argbuf, 0, ARGBUF_SZ);
	must_fail = false;
	switch (cmd) {
	case 0: bad = build_info((void *)arg); break;
	case 1: bad = build_reg((void *)arg, &reg_slot); break;
	case 2: bad = build_dereg((void *)arg, e); break;
	case 3: bad = build_stats((void *)arg); break;
	case 4: bad = build_setup((void *)arg, e); break;
	case 5: case 6: bad = build_connect((void *)arg); break;
	case 7: bad = build_transfer((void *)arg, e, &wellformed); break;
	case 8: bad = build_send((void *)arg); break;
	case 9: bad = build_getn((void *)arg); break;
	case 10: bad = build_cancel((void *)arg); break;
	case 11: bad = build_link_stats((void *)arg); break;
	case 12: bad = build_engines((void *)arg); break;
	case 13: bad = build_peer_regions((void *)arg); break;
	}
	if (mangled)
		nr = mangle(nr);
	argp = (uint64_t)(uintptr_t)arg;
	if (chance(3)) {	/* the argument itself somewhere bad */
		switch (rnd(4)) {
		case 0: argp = 0; break;
		case 1: argp = (uint64_t)(uintptr_t)hole; break;
		case 2: argp = (uint64_t)(uintptr_t)ro_page; break;
		default: argp = 0xffff888000000000ULL; break;
		}
	} else if (chance(2)) {	/* struct straddling the end of a mapping */
		size_t sz = _IOC_SIZE(cmd_nr[cmd]);
		size_t cut = rnd((uint32_t)sz) + 1;

		memcpy(tail_page + PAGE - (sz - cut), arg, sz - cut);
		argp = (uint64_t)(uintptr_t)tail_page + PAGE - (sz - cut);
	}

	if (trace)
		fprintf(stderr, "call %lu%s eng %d fd %d %s nr 0x%lx arg 0x%" PRIx64 "%s\n",
			cur_call, in_child ? " (child)" : "", e, fd, cmd_name[cmd], nr, argp,
			bad ? " bad" : "");

	if (!in_child && have_uring && chance(25) &&
	    uring_call(fd, nr, argp, arg, _IOC_SIZE(cmd_nr[cmd]))) {
		calls_per_cmd[mangled ? NCMD : cmd]++;
		return;		/* its CQE is counted when reaped */
	}
	if (wellformed && !mangled && !in_child && argp == (uint64_t)(uintptr_t)arg)
		fl_before(fd, &((struct hixl_transfer *)arg)->remote);
	ret = ioctl(fd, nr, (void *)(uintptr_t)argp);
	if (ret < 0)
		ret = -errno;
	if (in_child)
		return;

	if (wellformed && !mangled && argp == (uint64_t)(uintptr_t)arg) {
		const char *v = fl_after(e, fd, ret, ((struct hixl_transfer *)arg)->count);

		if (v)
			violation(v, cur_call, cmd, ret);
		wf_transfers++;
		wf_ok += ret == 0;
		hist_add(wf_errno, ret);
	}
	calls_per_cmd[mangled ? NCMD : cmd]++;
	if (ret == 0)
		ok_per_cmd[mangled ? NCMD : cmd]++;
	hist_add(errno_hist, ret);

	/* contract checks: reported as VIOLATION lines; any fails the run */
	if (mangled) {
		if (!is_ours(nr)) {
			int c = cmd_of_nr(nr);
			bool our_type_nr = c >= 0;

			/*
			 * our type/nr: another direction, or a struct smaller than the
			 * command's first version, is -EINVAL; a larger or smaller one
			 * (>= VER0) is the command itself (zero-extended, -E2BIG for
			 * non-zero bytes the module does not know): no contract here
			 */
			if (our_type_nr && (_IOC_DIR(nr) != (_IOC_READ | _IOC_WRITE) ||
					    _IOC_SIZE(nr) < cmd_size_ver0[c]) &&
			    ret != -EINVAL)
				violation("our type/nr with another dir or a size < VER0 not -EINVAL",
					  cur_call, NCMD, ret);
			if (our_type_nr && ret == -ENOTTY)
				violation("our type/nr is -ENOTTY", cur_call, NCMD, ret);
			if (!our_type_nr && _IOC_TYPE(nr) == HIXL_IOC_MAGIC && ret != -ENOTTY)
				violation("unknown nr of our type not -ENOTTY", cur_call, NCMD, ret);
		}
		return;
	}
	if (ret == 0 && bad && argp == (uint64_t)(uintptr_t)arg)
		violation("call with nonzero reserved/unknown flags/bad field succeeded", cur_call, cmd, ret);
	if (must_fail && argp == (uint64_t)(uintptr_t)arg)
		lo_aimed++;
	if (ret == 0 && must_fail && argp == (uint64_t)(uintptr_t)arg)
		violation("TRANSFER naming a peer's local-only region succeeded", cur_call, cmd, ret);
	if (ret != 0 || argp != (uint64_t)(uintptr_t)arg)
		return;

	switch (cmd) {
	case 1: {
		struct hixl_reg_mem *a = (void *)arg;

		if (a->handle == 0)
			violation("REG_MEM handle 0", cur_call, cmd, ret);
		record_reg(e, a, reg_slot);
		break;
	}
	case 2: {
		struct hixl_dereg_mem *a = (void *)arg;

		for (unsigned i = 0; i < nrec; i++)
			if (recs[i].live && recs[i].eng == e && recs[i].handle == a->handle)
				recs[i].live = false;
		break;
	}
	case 3:
		check_stats((void *)arg, cmd);
		break;
	case 4: {
		struct hixl_setup *a = (void *)arg;

		eng[e].port = a->local.port;
		fl_setup(e, a->transport);
		break;
	}
	case 5: case 6: {
		int p = eng_of_name(&((struct hixl_connect *)arg)->remote);

		if (p >= 0)
			linked[e][p] = cmd == 5;
		break;
	}
	case 11:
		check_link_stats((void *)arg, cmd);
		break;
	case 12:
		check_engines((void *)arg, cmd);
		break;
	case 13:
		check_peer_regions((void *)arg, cmd);
		break;
	}
}

/* ---- engines ------------------------------------------------------------------- */

static int open_dev(void)
{
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "hixl-fuzz: open %s: %s\n", HIXL_DEVICE_PATH, strerror(errno));
		exit(2);
	}
	return fd;
}

static void engine_close(int e)
{
	close(eng[e].fd);
	eng[e].fd = -1;
	eng[e].port = -1;
	eng[e].gen++;
	fl_closed(e);
	for (int p = 0; p < NENG_MAX; p++)
		linked[e][p] = linked[p][e] = false;
	for (unsigned i = 0; i < nrec; i++)
		if (recs[i].eng == e)
			recs[i].live = false;	/* kept: stale handles are good input */
}

static void engine_open(int e)
{
	eng[e].fd = open_dev();
	eng[e].port = -1;
	if (chance(70)) {	/* a good SETUP, so links and transfers get somewhere */
		struct hixl_setup s;

		memset(&s, 0, sizeof(s));
		s.local.family = AF_INET;
		memcpy(s.local.addr, ipaddr, 4);
		s.local.port = (uint16_t)(PORT_BASE + e);
		s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
		s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
		s.pool_buffers = 2;
		s.pool_buffer_mb = 1;
		s.transport = fl_pick_transport(rnd(100));	/* fuzz-local.c */
		if (ioctl(eng[e].fd, HIXL_IOC_SETUP, &s) == 0) {
			eng[e].port = s.local.port;
			fl_setup(e, s.transport);
		}
	}
}

static void do_fork(void)
{
	int e = pick_eng();
	uint64_t child_seed = rnd64();
	pid_t pid;
	int st;

	forks++;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		rng_state = child_seed;
		do_call(e, eng[e].fd, true);
		if (chance(30))
			do_call(e, eng[e].fd, true);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		child_crashes++;
		printf("child of call %lu ended abnormally: status 0x%x\n", cur_call, st);
	}
}

/* ---- final checks -------------------------------------------------------------- */

static long vmpin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int final_check(void)
{
	struct hixl_stats st;
	struct timespec t0, t1;
	long pin = -1;
	int fd, tries;
	long ret = -1;

	for (int e = 0; e < neng; e++)
		if (eng[e].fd >= 0)
			engine_close(e);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* teardown may finish asynchronously: allow up to 5 s */
	for (tries = 0; tries < 50; tries++) {
		fd = open_dev();
		memset(&st, 0, sizeof(st));
		ret = ioctl(fd, HIXL_IOC_GET_STATS, &st);
		close(fd);
		pin = vmpin_kb();
		if (ret == 0 && st.proc_regions == 0 && st.proc_host_bytes == 0 && pin == 0)
			break;
		usleep(100 * 1000);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("final: GET_STATS ret %ld proc_regions %llu proc_host_bytes %llu "
	       "proc_device_bytes %llu VmPin %ld kB (after %.1f s)\n", ret,
	       (unsigned long long)st.proc_regions, (unsigned long long)st.proc_host_bytes,
	       (unsigned long long)st.proc_device_bytes, pin,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (ret != 0 || st.proc_regions || st.proc_host_bytes || pin != 0) {
		printf("FAIL: something stayed registered or pinned after every fd was closed\n");
		return 1;
	}
	return 0;
}

/* ---- main ------------------------------------------------------------------------ */

static uint8_t *map_or_die(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static void make_dmabufs(void)
{
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);

	if (dev < 0)
		return;
	for (int i = 0; i < 2; i++) {
		int mfd = memfd_create("hixl-fuzz-dmabuf", MFD_ALLOW_SEALING);
		struct udmabuf_create c;

		if (mfd < 0 || ftruncate(mfd, (off_t)dmabuf_len) ||
		    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
			if (mfd >= 0)
				close(mfd);
			continue;
		}
		memset(&c, 0, sizeof(c));
		c.memfd = (uint32_t)mfd;
		c.flags = UDMABUF_FLAGS_CLOEXEC;
		c.offset = 0;
		c.size = dmabuf_len;
		dmabufs[i] = ioctl(dev, UDMABUF_CREATE, &c);
		close(mfd);
	}
	if (dmabufs[0] < 0)
		dmabufs[0] = dmabufs[1];
	if (dmabufs[1] < 0)
		dmabufs[1] = dmabufs[0];
	close(dev);
}

/* a histogram's non-empty buckets from index from on, " NAME=count" each */
static void hist_print(const unsigned long *h, int from)
{
	for (int i = from; i < 200; i++) {
		if (!h[i])
			continue;
		if (errname(i))
			printf(" %s=%lu", errname(i), h[i]);
		else
			printf(" errno%d=%lu", i, h[i]);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: hixl-fuzz [--calls N] [--seed S] [--addr IP] [--trace]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long ncalls = 2000;
	uint64_t seed = (uint64_t)time(NULL);
	struct timespec t0, t1;
	double secs;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			ncalls = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--addr") && i + 1 < argc) {
			if (inet_pton(AF_INET, argv[++i], ipaddr) != 1)
				usage();
		} else if (!strcmp(argv[i], "--trace"))
			trace = true;
		else
			usage();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	rng_state = seed;
	printf("hixl-fuzz: seed %" PRIu64 " calls %lu addr %u.%u.%u.%u\n", seed, ncalls,
	       ipaddr[0], ipaddr[1], ipaddr[2], ipaddr[3]);

	/* fixed memory */
	argbuf = map_or_die(ARGBUF_SZ, PROT_READ | PROT_WRITE);
	text_buf = map_or_die(2 * PAGE, PROT_READ | PROT_WRITE);
	rnd_fill(text_buf, 2 * PAGE);
	desc_buf = (void *)map_or_die(NDESC_BUF * sizeof(struct hixl_op_desc), PROT_READ | PROT_WRITE);
	notify_buf = (void *)map_or_die(NNOTIFY_BUF * sizeof(struct hixl_notify), PROT_READ | PROT_WRITE);
	stat_buf = map_or_die(STAT_BUF_SZ, PROT_READ | PROT_WRITE);
	ro_page = map_or_die(PAGE, PROT_READ | PROT_WRITE);
	memset(ro_page, 0xa5, PAGE);
	mprotect(ro_page, PAGE, PROT_READ);
	ro_zero_page = map_or_die(PAGE, PROT_READ);
	/*
	 * No access, but reserved: an unmapped gap can be taken by the next
	 * mappings (tail_page, the io_uring rings), and writes "into the
	 * hole" (ioctl outputs, READs) then land in them.  Once random READs
	 * were sent there often, the fuzzer died of SIGSEGV within 20,000
	 * calls.  Unmapped addresses still come from gen_ptr()'s top of user
	 * space and boundary values.
	 */
	hole = map_or_die(3 * PAGE, PROT_NONE);
	hole += PAGE;
	tail_page = map_or_die(2 * PAGE, PROT_READ | PROT_WRITE);
	munmap(tail_page + PAGE, PAGE);
	for (int i = 0; i < NSLOT; i++)
		slot_map(&slots[i], NULL);
	make_dmabufs();

	{
		struct io_uring_params pb = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };
		struct io_uring_params ps = { 0 };

		have_uring = io_uring_queue_init_params(URING_MAX_INFLIGHT, &ring_big, &pb) == 0 &&
			     io_uring_queue_init_params(URING_MAX_INFLIGHT, &ring_small, &ps) == 0;
	}
	neng = 2 + (int)rnd(3);
	for (int e = 0; e < neng; e++)
		engine_open(e);
	printf("hixl-fuzz: %d engines, udmabuf %s\n", neng, dmabufs[0] >= 0 ? "yes" : "no");

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (cur_call = 0; cur_call < ncalls; cur_call++) {
		int e;

		if (chance(10))
			mem_op();
		if (rnd(1000) < 5) {
			e = pick_eng();
			engine_close(e);
			engine_open(e);
			reopens++;
		}
		if (rnd(1000) < 3)
			do_fork();
		e = pick_eng();
		do_call(e, eng[e].fd, false);
		if (have_uring)
			uring_reap_all();
		if (cur_call && cur_call % 5000 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			fprintf(stderr, "hixl-fuzz: %lu calls, %.1f s\n", cur_call,
				(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (have_uring) {
		unsigned left;

		/* every timeout is under 1 s: what is in flight ends soon */
		for (int i = 0; i < 100 && uring_inflight; i++) {
			uring_reap_all();
			usleep(50 * 1000);
		}
		left = uring_inflight;
		io_uring_queue_exit(&ring_big);	/* with anything still in flight */
		io_uring_queue_exit(&ring_small);
		printf("hixl-fuzz: io_uring: %lu submitted, %lu completed with 0, %u left in flight at ring exit\n",
		       uring_calls, uring_ok, left);
	}

	for (int i = 0; i < 2; i++)
		if (dmabufs[i] >= 0 && (i == 0 || dmabufs[1] != dmabufs[0]))
			close(dmabufs[i]);
	rc = final_check();
	if (violations) {
		printf("FAIL: %lu contract violations (the first 20 are printed above)\n",
		       violations);
		rc = 1;
	}
	if (fl_final(wf_ok))
		rc = 1;
	if (wf_transfers >= 20 && !wf_ok) {
		printf("FAIL: none of %lu well-formed TRANSFERs succeeded: the success path "
		       "was not fuzzed\n", wf_transfers);
		rc = 1;
	}

	printf("hixl-fuzz: seed %" PRIu64 ": %lu calls in %.1f s (%.0f/s), %lu mem ops, %lu reopens, "
	       "%lu forks, %lu child crashes, %lu contract violations\n", seed, ncalls, secs,
	       secs > 0 ? (double)ncalls / secs : 0.0, mem_ops, reopens, forks, child_crashes,
	       violations);
	printf("TRANSFERs naming a peer's local-only region (all must fail): %lu\n", lo_aimed);
	printf("well-formed TRANSFERs (ioctl): %lu, %lu succeeded; the others:", wf_transfers, wf_ok);
	hist_print(wf_errno, 1);
	printf("\n");
	printf("per-command (calls/ok):");
	for (int i = 0; i <= NCMD; i++)
		printf(" %s=%lu/%lu", cmd_name[i], calls_per_cmd[i], ok_per_cmd[i]);
	printf("\nerrno histogram:");
	hist_print(errno_hist, 0);
	printf("\n%lu calls, per-command counts and errno histogram above; result %s\n", ncalls,
	       rc ? "FAIL" : "PASS");
	return rc;
}
