// SPDX-License-Identifier: MIT
/*
 * physmem.c - libhixl-user: physical memory handles (memfd), reserved
 * virtual ranges and mappings; the Linux form of aclrtMallocPhysical and
 * family.  See <hixl/physmem.h>.
 *
 * Bookkeeping: a list of live handles, a list of reservations and, in each
 * reservation, a list of the mappings made in it; all under pm_mutex.  The
 * lists are short in practice (a few handles and ranges per process), so
 * they are searched linearly.
 */
#include <linux/memfd.h>	/* MFD_HUGE_*; before <sys/mman.h> */
#include <linux/magic.h>
#include <linux/mempolicy.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "internal.h"

#define PM_SIZE_2M	(2UL << 20)
#define PM_SIZE_1G	(1UL << 30)

struct hixl_phys_handle {
	struct hixl_phys_handle *next;
	int fd;			/* the memfd, O_CLOEXEC */
	uint32_t kind;		/* enum hixl_page_kind */
	int32_t node;		/* NUMA node asked for, or -1 */
	size_t size;		/* bytes */
	size_t gran;		/* page size of kind */
	unsigned long maps;	/* live pm_map entries of this handle */
};

struct pm_map {
	struct pm_map *next;
	uintptr_t va;
	size_t size;
	struct hixl_phys_handle *h;
};

struct pm_resv {
	struct pm_resv *next;
	uintptr_t base;
	size_t size;
	struct pm_map *maps;
};

static pthread_mutex_t pm_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pm_once = PTHREAD_ONCE_INIT;
static struct hixl_phys_handle *pm_handles;
static struct pm_resv *pm_resvs;

/* fork(2) while another thread holds pm_mutex must not leave it held in the
 * child: take it around fork and release it on both sides. */
static void pm_atfork_prepare(void)
{
	pthread_mutex_lock(&pm_mutex);
}

static void pm_atfork_release(void)
{
	pthread_mutex_unlock(&pm_mutex);
}

static void pm_init(void)
{
	pthread_atfork(pm_atfork_prepare, pm_atfork_release, pm_atfork_release);
}

static void pm_lock(void)
{
	pthread_once(&pm_once, pm_init);
	pthread_mutex_lock(&pm_mutex);
}

static void pm_unlock(void)
{
	pthread_mutex_unlock(&pm_mutex);
}

static size_t pm_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (size_t)ps : 4096;
}

static size_t pm_kind_gran(uint32_t kind)
{
	switch (kind) {
	case HIXL_PAGE_NORMAL:
		return pm_page_size();
	case HIXL_PAGE_HUGE:
		return PM_SIZE_2M;
	case HIXL_PAGE_HUGE1G:
		return PM_SIZE_1G;
	}
	return 0;
}

static int pm_check_prop(const struct hixl_phys_prop *prop)
{
	if (!prop)
		return -EINVAL;
	if (prop->location != HIXL_MEM_LOCATION_HOST)
		return -EINVAL;
	if (!pm_kind_gran(prop->page_kind))
		return -EINVAL;
	if (prop->numa_node < -1)
		return -EINVAL;
	if (prop->reserved0 || prop->reserved[0] || prop->reserved[1])
		return -EINVAL;
	return 0;
}

/* Caller holds pm_mutex. */
static bool pm_handle_live(const struct hixl_phys_handle *h)
{
	for (const struct hixl_phys_handle *p = pm_handles; p; p = p->next)
		if (p == h)
			return true;
	return false;
}

/* Make @h live (takes pm_mutex). */
static void pm_handle_add(struct hixl_phys_handle *h)
{
	pm_lock();
	h->next = pm_handles;
	pm_handles = h;
	pm_unlock();
}

HIXL_EXPORT int hixl_mem_granularity(const struct hixl_phys_prop *prop, size_t *granularity)
{
	int ret = pm_check_prop(prop);

	if (ret)
		return ret;
	if (!granularity)
		return -EINVAL;
	*granularity = pm_kind_gran(prop->page_kind);
	return 0;
}

/*
 * NUMA binding without libnuma: the task's memory policy decides where both
 * shmem (fallocate -> shmem_get_folio) and hugetlbfs (fallocate through a
 * pseudo-VMA without a policy of its own) take their pages from.  Set a
 * strict MPOL_BIND for the node around the allocation, then put the caller's
 * policy back.  The policy is per thread, so other threads are unaffected.
 */
#define PM_NODE_BITS	1024	/* >= MAX_NUMNODES of any distribution kernel */
#define PM_LONG_BITS	(8 * sizeof(unsigned long))

struct pm_policy {
	int mode;
	unsigned long mask[PM_NODE_BITS / PM_LONG_BITS];
};

static int pm_bind_node(int node, struct pm_policy *old)
{
	unsigned long mask[PM_NODE_BITS / PM_LONG_BITS];

	if (node >= PM_NODE_BITS)
		return -EINVAL;
	memset(old, 0, sizeof(*old));
	/* maxnode counts bits, with the kernel's historical off-by-one */
	if (syscall(SYS_get_mempolicy, &old->mode, old->mask, PM_NODE_BITS + 1, NULL, 0))
		return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	memset(mask, 0, sizeof(mask));
	mask[node / PM_LONG_BITS] = 1UL << (node % PM_LONG_BITS);
	if (syscall(SYS_set_mempolicy, MPOL_BIND, mask, PM_NODE_BITS + 1))
		return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	return 0;
}

static void pm_restore_policy(const struct pm_policy *old)
{
	syscall(SYS_set_mempolicy, old->mode, old->mask, PM_NODE_BITS + 1);
}

HIXL_EXPORT int hixl_malloc_physical(struct hixl_phys_handle **h, size_t size,
				     const struct hixl_phys_prop *prop, uint64_t flags)
{
	unsigned int mfd_flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	struct hixl_phys_handle *ph;
	struct pm_policy old;
	int saved = errno, ret, fd;
	size_t gran;

	if (!h || flags)
		return -EINVAL;
	ret = hixl_mem_granularity(prop, &gran);
	if (ret)
		return ret;
	if (!size || size % gran)
		return -EINVAL;
	if (size > (size_t)INT64_MAX)
		return -EINVAL;		/* off_t */
	if (prop->page_kind == HIXL_PAGE_HUGE)
		mfd_flags |= MFD_HUGETLB | MFD_HUGE_2MB;
	else if (prop->page_kind == HIXL_PAGE_HUGE1G)
		mfd_flags |= MFD_HUGETLB | MFD_HUGE_1GB;

	ph = calloc(1, sizeof(*ph));
	if (!ph) {
		errno = saved;
		return -ENOMEM;
	}
	fd = memfd_create("hixl-phys", mfd_flags);
	if (fd < 0) {
		/* hugetlb_file_setup(): -ENODEV no such page size, -ENOENT no
		 * hugetlbfs mount for it */
		ret = (errno == ENODEV || errno == ENOENT) && (mfd_flags & MFD_HUGETLB) ?
			-EOPNOTSUPP : -errno;
		goto out_free;
	}
	if (ftruncate(fd, (off_t)size)) {
		ret = -errno;
		goto out_close;
	}
	if (prop->numa_node >= 0) {
		ret = pm_bind_node(prop->numa_node, &old);
		if (ret)
			goto out_close;
	}
	/* allocate every page now; shmem gives up with EINTR on a signal */
	do
		ret = fallocate(fd, 0, 0, (off_t)size);
	while (ret && errno == EINTR);
	if (ret)
		ret = errno == ENOSPC || errno == ENOMEM ? -ENOMEM : -errno;
	if (prop->numa_node >= 0)
		pm_restore_policy(&old);
	if (ret)
		goto out_close;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW)) {
		ret = -errno;
		goto out_close;
	}

	ph->fd = fd;
	ph->kind = prop->page_kind;
	ph->node = prop->numa_node;
	ph->size = size;
	ph->gran = gran;
	pm_handle_add(ph);
	*h = ph;
	errno = saved;
	return 0;

out_close:
	close(fd);
out_free:
	free(ph);
	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_free_physical(struct hixl_phys_handle *h)
{
	struct hixl_phys_handle **pp;
	int saved = errno;

	if (!h)
		return -EINVAL;
	pm_lock();
	for (pp = &pm_handles; *pp && *pp != h; pp = &(*pp)->next)
		;
	if (!*pp) {
		pm_unlock();
		return -ENOENT;
	}
	if (h->maps) {
		pm_unlock();
		return -EBUSY;
	}
	*pp = h->next;
	pm_unlock();
	close(h->fd);
	free(h);
	errno = saved;
	return 0;
}

HIXL_EXPORT int hixl_phys_get_info(const struct hixl_phys_handle *h,
				   struct hixl_phys_prop *prop, size_t *size)
{
	if (!h)
		return -EINVAL;
	pm_lock();
	if (!pm_handle_live(h)) {
		pm_unlock();
		return -ENOENT;
	}
	if (prop) {
		memset(prop, 0, sizeof(*prop));
		prop->location = HIXL_MEM_LOCATION_HOST;
		prop->numa_node = h->node;
		prop->page_kind = h->kind;
	}
	if (size)
		*size = h->size;
	pm_unlock();
	return 0;
}

#define PM_RESV_PROT	PROT_NONE
#define PM_RESV_FLAGS	(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

HIXL_EXPORT int hixl_reserve_mem_address(void **va, size_t size, size_t alignment,
					 void *hint, uint64_t flags)
{
	size_t page = pm_page_size(), total, head, tail;
	struct pm_resv *r;
	uintptr_t base = 0, p;
	int saved = errno, ret;
	void *m;

	if (!va || !size || size % page || flags)
		return -EINVAL;
	if (alignment & (alignment - 1))
		return -EINVAL;
	if (alignment < page)
		alignment = page;
	if ((uintptr_t)hint % alignment)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = saved;
		return -ENOMEM;
	}

	if (hint) {
		/* MAP_FIXED_NOREPLACE: the hint or nothing (older kernels
		 * take it as a hint and may place it elsewhere) */
		m = mmap(hint, size, PM_RESV_PROT, PM_RESV_FLAGS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == hint)
			base = (uintptr_t)m;
		else if (m != MAP_FAILED)
			munmap(m, size);
	}
	if (!base) {
		if (size > SIZE_MAX - (alignment - page)) {
			ret = -ENOMEM;
			goto out_free;
		}
		total = size + (alignment - page);
		m = mmap(NULL, total, PM_RESV_PROT, PM_RESV_FLAGS, -1, 0);
		if (m == MAP_FAILED) {
			ret = -errno;
			goto out_free;
		}
		p = (uintptr_t)m;
		base = (p + alignment - 1) & ~(uintptr_t)(alignment - 1);
		head = base - p;
		tail = total - head - size;
		if (head)
			munmap(m, head);
		if (tail)
			munmap((void *)(base + size), tail);
	}

	r->base = base;
	r->size = size;
	pm_lock();
	r->next = pm_resvs;
	pm_resvs = r;
	pm_unlock();
	*va = (void *)base;
	errno = saved;
	return 0;

out_free:
	free(r);
	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_release_mem_address(void *va, size_t size)
{
	struct pm_resv **pp, *r;
	int saved = errno, ret = 0;

	pm_lock();
	for (pp = &pm_resvs; *pp; pp = &(*pp)->next)
		if ((*pp)->base == (uintptr_t)va && (*pp)->size == size)
			break;
	r = *pp;
	if (!r || !va) {
		ret = -EINVAL;
	} else if (r->maps) {
		ret = -EBUSY;
	} else if (munmap(va, size)) {
		ret = -errno;
	} else {
		*pp = r->next;
		free(r);
	}
	pm_unlock();
	errno = saved;
	return ret;
}

/* The reservation that [va, va + size) lies in, or NULL.  Caller holds pm_mutex. */
static struct pm_resv *pm_find_resv(uintptr_t va, size_t size)
{
	for (struct pm_resv *r = pm_resvs; r; r = r->next)
		if (va >= r->base && va - r->base < r->size &&
		    size <= r->size - (va - r->base))
			return r;
	return NULL;
}

/* Put the PROT_NONE reservation over [va, va + size). */
static int pm_rereserve(uintptr_t va, size_t size)
{
	void *m = mmap((void *)va, size, PM_RESV_PROT, PM_RESV_FLAGS | MAP_FIXED, -1, 0);

	return m == MAP_FAILED ? -errno : 0;
}

HIXL_EXPORT int hixl_map_mem(void *va, size_t size, size_t offset,
			     struct hixl_phys_handle *h, uint64_t flags)
{
	uintptr_t a = (uintptr_t)va;
	struct pm_resv *r;
	struct pm_map *m;
	int saved = errno, ret = 0;
	void *p;

	if (!va || !h || flags || !size)
		return -EINVAL;
	pm_lock();
	if (!pm_handle_live(h)) {
		ret = -ENOENT;
		goto out;
	}
	if (a % h->gran || size % h->gran || offset % h->gran ||
	    offset > h->size || size > h->size - offset) {
		ret = -EINVAL;
		goto out;
	}
	r = pm_find_resv(a, size);
	if (!r) {
		ret = -EINVAL;
		goto out;
	}
	for (m = r->maps; m; m = m->next)
		if (a < m->va + m->size && m->va < a + size) {
			ret = -EEXIST;
			goto out;
		}
	m = malloc(sizeof(*m));
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	p = mmap(va, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, h->fd, (off_t)offset);
	if (p == MAP_FAILED) {
		ret = -errno;
		/* kernels before 6.12 may have unmapped the range already */
		pm_rereserve(a, size);
		free(m);
		goto out;
	}
	m->va = a;
	m->size = size;
	m->h = h;
	m->next = r->maps;
	r->maps = m;
	h->maps++;
out:
	pm_unlock();
	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_unmap_mem(void *va)
{
	struct pm_map **pp = NULL, *m;
	int saved = errno, ret;

	pm_lock();
	for (struct pm_resv *r = pm_resvs; r; r = r->next) {
		for (pp = &r->maps; *pp; pp = &(*pp)->next)
			if ((*pp)->va == (uintptr_t)va)
				break;
		if (*pp)
			break;
	}
	if (!pp || !*pp || !va) {
		ret = -EINVAL;
		goto out;
	}
	m = *pp;
	ret = pm_rereserve(m->va, m->size);
	if (ret)
		goto out;
	*pp = m->next;
	m->h->maps--;
	free(m);
out:
	pm_unlock();
	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_mem_export_to_shareable_handle(struct hixl_phys_handle *h, int *fd)
{
	int ret;

	if (!h || !fd)
		return -EINVAL;
	pm_lock();
	if (pm_handle_live(h))
		ret = HIXL_SYSCALL_RET(fcntl(h->fd, F_DUPFD_CLOEXEC, 0));
	else
		ret = -ENOENT;
	pm_unlock();
	if (ret < 0)
		return ret;
	*fd = ret;
	return 0;
}

HIXL_EXPORT int hixl_mem_import_from_shareable_handle(int fd, struct hixl_phys_handle **h)
{
	struct hixl_phys_handle *ph;
	struct statfs sfs;
	struct stat st;
	int saved = errno, ret, fl, nfd;
	uint32_t kind;

	if (!h)
		return -EINVAL;
	if (fd < 0)
		return -EBADF;
	if (fstat(fd, &st) || fstatfs(fd, &sfs)) {
		ret = -errno;
		goto out;
	}
	ret = -EINVAL;
	if (!S_ISREG(st.st_mode))
		goto out;
	if (sfs.f_type == TMPFS_MAGIC)
		kind = HIXL_PAGE_NORMAL;	/* st_blksize is 2 MiB with shmem THP */
	else if (sfs.f_type == HUGETLBFS_MAGIC && (size_t)st.st_blksize == PM_SIZE_2M)
		kind = HIXL_PAGE_HUGE;
	else if (sfs.f_type == HUGETLBFS_MAGIC && (size_t)st.st_blksize == PM_SIZE_1G)
		kind = HIXL_PAGE_HUGE1G;
	else
		goto out;
	if (st.st_size <= 0 || (size_t)st.st_size % pm_kind_gran(kind))
		goto out;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0) {
		ret = -errno;
		goto out;
	}
	if ((fl & O_ACCMODE) != O_RDWR || (fl & O_PATH)) {
		ret = -EACCES;
		goto out;
	}
	ph = calloc(1, sizeof(*ph));
	if (!ph) {
		ret = -ENOMEM;
		goto out;
	}
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (nfd < 0) {
		ret = -errno;
		free(ph);
		goto out;
	}
	ph->fd = nfd;
	ph->kind = kind;
	ph->node = -1;
	ph->size = (size_t)st.st_size;
	ph->gran = pm_kind_gran(kind);
	pm_handle_add(ph);
	*h = ph;
	ret = 0;
out:
	errno = saved;
	return ret;
}

/* -ENOTSOCK, -EBADF, or -EOPNOTSUPP unless @sock is an AF_UNIX socket */
static int pm_check_unix(int sock)
{
	int domain = -1;
	socklen_t len = sizeof(domain);

	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &len))
		return -errno;
	return domain == AF_UNIX ? 0 : -EOPNOTSUPP;
}

#define PM_MSG_BYTE	'H'
#define PM_MAX_FDS	8	/* room to see (and close) extra descriptors */

HIXL_EXPORT int hixl_shareable_handle_send(int sock, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	char byte = PM_MSG_BYTE;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	int saved = errno, ret;
	ssize_t n;

	if (sock < 0 || fd < 0)
		return -EBADF;
	ret = pm_check_unix(sock);
	if (ret)
		goto out;
	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	ret = n < 0 ? -errno : 0;
out:
	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_shareable_handle_recv(int sock, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(PM_MAX_FDS * sizeof(int))];
	} u;
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	int saved = errno, ret, got = 0, fds[PM_MAX_FDS];
	ssize_t n;

	if (!fd)
		return -EINVAL;
	ret = pm_check_unix(sock);
	if (ret)
		goto out;
	memset(&u, 0, sizeof(u));
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k && got < PM_MAX_FDS; i++)
			memcpy(&fds[got++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	if (n == 0 && !got) {
		ret = -ECONNRESET;
		goto out;
	}
	if (got != 1 || byte != PM_MSG_BYTE || (msg.msg_flags & MSG_CTRUNC)) {
		for (int i = 0; i < got; i++)
			close(fds[i]);
		ret = -EBADMSG;
		goto out;
	}
	*fd = fds[0];
	ret = 0;
out:
	errno = saved;
	return ret;
}
