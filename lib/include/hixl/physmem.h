/* SPDX-License-Identifier: MIT */
/*
 * <hixl/physmem.h> - physical memory handles: the Linux form of CANN's
 * aclrtMallocPhysical / aclrtFreePhysical / aclrtReserveMemAddress /
 * aclrtReleaseMemAddress / aclrtMapMem / aclrtUnmapMem /
 * aclrtMemGetAllocationGranularity / aclrtMemExportToShareableHandle /
 * aclrtMemImportFromShareableHandle (seed 004_aclrtMallocPhysical).
 *
 * A physical memory handle is a memfd (memfd_create(2), with MFD_HUGETLB for
 * 2 MiB or 1 GiB pages) whose pages are allocated (fallocate(2)) when the
 * handle is made.  A virtual address range is reserved separately, as a
 * PROT_NONE mapping, and pieces of handles are mapped into it with
 * mmap(MAP_SHARED | MAP_FIXED); unmapping puts the PROT_NONE reservation
 * back.  A handle is shared with another process by passing a file
 * descriptor (the "shareable handle") over a Unix socket with SCM_RIGHTS.
 *
 * Typical use:
 *
 *	struct hixl_phys_prop prop = { .location = HIXL_MEM_LOCATION_HOST,
 *				       .numa_node = -1,
 *				       .page_kind = HIXL_PAGE_HUGE };
 *	size_t gran;
 *	void *va;
 *	struct hixl_phys_handle *h;
 *
 *	hixl_mem_granularity(&prop, &gran);		// 2 MiB
 *	hixl_malloc_physical(&h, 8 * gran, &prop, 0);
 *	hixl_reserve_mem_address(&va, 8 * gran, gran, NULL, 0);
 *	hixl_map_mem(va, 8 * gran, 0, h, 0);		// va is usable now
 *	...
 *	hixl_unmap_mem(va);
 *	hixl_release_mem_address(va, 8 * gran);
 *	hixl_free_physical(h);
 *
 * Conventions (liburing): every function returns 0 (or a non-negative value
 * where documented) or a negative errno value, and never changes errno.
 * Sizes and offsets are in bytes.
 *
 * Thread safety: every function may be called from any thread at any time;
 * the library's bookkeeping of handles, reservations and mappings is
 * guarded by one process-wide mutex.  The caller must not use a handle
 * after hixl_free_physical() returned 0 for it, nor release a range while
 * another thread maps into it.  After fork(2) the child has a copy of the
 * bookkeeping that matches its copy of the address space (MAP_SHARED
 * mappings of a handle stay shared with the parent); the library stays
 * usable in the child.  Ranges reserved or mapped by the library must not
 * be munmap()ed or mmap()ed over by the caller.
 */
#ifndef HIXL_PHYSMEM_H
#define HIXL_PHYSMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the memory lives (aclrtMemLocationType).  Only host memory here. */
enum hixl_mem_location {
	HIXL_MEM_LOCATION_HOST = 0,
};

/* Page kind (aclrtMemAttr: ACL_MEM_NORMAL, ACL_MEM_HUGE, ACL_MEM_HUGE1G). */
enum hixl_page_kind {
	HIXL_PAGE_NORMAL = 0,	/* system pages (4 KiB on x86-64), shmem backed */
	HIXL_PAGE_HUGE   = 1,	/* 2 MiB hugetlb pages */
	HIXL_PAGE_HUGE1G = 2,	/* 1 GiB hugetlb pages */
};

/*
 * struct hixl_phys_prop - properties of physical memory
 *	(aclrtPhysicalMemProp)
 * @location:  enum hixl_mem_location; HIXL_MEM_LOCATION_HOST
 * @numa_node: NUMA node the pages must come from, or -1 for any node
 *	       (the caller's memory policy applies then)
 * @page_kind: enum hixl_page_kind
 * @reserved0, @reserved: must be zero
 */
struct hixl_phys_prop {
	uint32_t location;
	int32_t  numa_node;
	uint32_t page_kind;
	uint32_t reserved0;
	uint64_t reserved[2];
};

/* A physical memory handle (aclrtDrvMemHandle).  Opaque. */
struct hixl_phys_handle;

/**
 * hixl_mem_granularity() - allocation granularity of a kind of memory
 *	(aclrtMemGetAllocationGranularity)
 * @prop:        the properties the memory would be allocated with
 * @granularity: set to the granularity in bytes on success: the system page
 *               size (sysconf(_SC_PAGESIZE)) for HIXL_PAGE_NORMAL, 2 MiB for
 *               HIXL_PAGE_HUGE, 1 GiB for HIXL_PAGE_HUGE1G
 *
 * Sizes given to hixl_malloc_physical() and sizes, offsets and addresses
 * given to hixl_map_mem() must be multiples of it.  The answer does not say
 * whether such pages are available now (see hixl_malloc_physical()).
 *
 * Return: 0 on success;
 *  -EINVAL if @prop or @granularity is NULL, @prop->location or
 *  @prop->page_kind is unknown, @prop->numa_node is below -1 or a reserved
 *  field is not zero.
 */
int hixl_mem_granularity(const struct hixl_phys_prop *prop, size_t *granularity);

/**
 * hixl_malloc_physical() - allocate physical memory and return a handle
 *	(aclrtMallocPhysical)
 * @h:     set to the new handle on success
 * @size:  bytes; a non-zero multiple of hixl_mem_granularity() of @prop
 * @prop:  location, NUMA node and page kind (see struct hixl_phys_prop)
 * @flags: must be 0
 *
 * The memory is a memfd (MFD_CLOEXEC; MFD_HUGETLB with MFD_HUGE_2MB or
 * MFD_HUGE_1GB for huge pages), sized with ftruncate(2) and then fully
 * allocated with fallocate(2), so it exists when this returns: using it can
 * not fail later for want of memory (no SIGBUS on first touch).  Its size is
 * sealed (F_SEAL_SHRINK | F_SEAL_GROW), so no process that the handle is
 * shared with can truncate it under another's mappings.  The memory is zeroed.
 *
 * With @prop->numa_node >= 0 the pages are allocated under a strict
 * MPOL_BIND policy for that node (set_mempolicy(2) as a raw system call
 * around the allocation, restored afterwards: no libnuma needed).
 *
 * Return: 0 on success;
 *  -EINVAL if @h or @prop is NULL, @flags is not 0, @prop is invalid (as for
 *  hixl_mem_granularity()), @size is 0 or not a multiple of the granularity,
 *  or @prop->numa_node is not a node with memory that the caller may use;
 *  -EOPNOTSUPP if the kernel has no hugetlbfs for that page size (no
 *  hugetlbfs mounted, or the CPU lacks 1 GiB pages), or @prop->numa_node is
 *  not -1 and the kernel has no NUMA support (set_mempolicy(2) ENOSYS);
 *  -ENOMEM if the memory could not be allocated: for huge pages this means
 *  not enough free huge pages of that size in the pool (see
 *  /sys/kernel/mm/hugepages/hugepages-<size>kB/free_hugepages, and
 *  nr_hugepages to reserve more), on that node when one was asked for;
 *  -EMFILE, -ENFILE if no file descriptor is free;
 *  any other -errno of memfd_create(2), ftruncate(2) or fallocate(2).
 */
int hixl_malloc_physical(struct hixl_phys_handle **h, size_t size,
			 const struct hixl_phys_prop *prop, uint64_t flags);

/**
 * hixl_free_physical() - free a physical memory handle (aclrtFreePhysical)
 * @h: a handle from hixl_malloc_physical() or
 *     hixl_mem_import_from_shareable_handle()
 *
 * Closes the library's descriptor of the memory.  The memory itself is
 * freed when no descriptor and no mapping of it is left in any process, so
 * shareable handles exported from @h, and handles imported from them, stay
 * valid.
 *
 * Return: 0 on success;
 *  -EINVAL if @h is NULL;
 *  -ENOENT if @h is not a live handle of this library (already freed);
 *  -EBUSY if any part of @h is still mapped by hixl_map_mem() in this
 *  process: hixl_unmap_mem() it first.
 */
int hixl_free_physical(struct hixl_phys_handle *h);

/**
 * hixl_phys_get_info() - size and properties of a handle
 *	(aclrtMemGetAllocationPropertiesFromHandle)
 * @h:    a live handle
 * @prop: set to the handle's properties (may be NULL); numa_node is the
 *        node asked for at allocation, -1 for an imported handle
 * @size: set to the handle's size in bytes (may be NULL)
 *
 * Return: 0 on success; -EINVAL if @h is NULL; -ENOENT if @h is not a live
 * handle of this library.
 */
int hixl_phys_get_info(const struct hixl_phys_handle *h,
		       struct hixl_phys_prop *prop, size_t *size);

/**
 * hixl_reserve_mem_address() - reserve a range of virtual addresses
 *	(aclrtReserveMemAddress)
 * @va:        set to the start of the range on success
 * @size:      bytes; a non-zero multiple of the system page size
 * @alignment: bytes; 0 or a power of two; the start of the range is a
 *             multiple of it (and always of the page size).  To map huge
 *             page handles, use their granularity (2 MiB or 1 GiB).
 * @hint:      NULL, or a preferred start address (a multiple of @alignment):
 *             used when that range is free, otherwise ignored
 * @flags:     must be 0
 *
 * The range is an inaccessible mapping (PROT_NONE, MAP_PRIVATE |
 * MAP_ANONYMOUS | MAP_NORESERVE): it costs no memory and nothing else in
 * the process is placed there.  Alignment is reached by reserving
 * @size + @alignment and trimming the excess.
 *
 * Return: 0 on success;
 *  -EINVAL if @va is NULL, @size is 0 or not a multiple of the page size,
 *  @alignment is not 0 nor a power of two, @hint is not a multiple of the
 *  alignment, or @flags is not 0;
 *  -ENOMEM if the address space has no room for the range (or the
 *  library's bookkeeping could not be allocated).
 */
int hixl_reserve_mem_address(void **va, size_t size, size_t alignment,
			     void *hint, uint64_t flags);

/**
 * hixl_release_mem_address() - release a reserved range
 *	(aclrtReleaseMemAddress)
 * @va:   start of the range, as hixl_reserve_mem_address() returned it
 * @size: its size, as given to hixl_reserve_mem_address()
 *
 * Return: 0 on success (the addresses are free for anything again);
 *  -EINVAL if @va and @size are not exactly one live reservation;
 *  -EBUSY if handles are still mapped in the range: hixl_unmap_mem() them.
 */
int hixl_release_mem_address(void *va, size_t size);

/**
 * hixl_map_mem() - map (part of) a handle into a reserved range
 *	(aclrtMapMem)
 * @va:     where to map; a multiple of the handle's granularity
 * @size:   bytes; a non-zero multiple of the handle's granularity
 * @offset: bytes into the handle; a multiple of its granularity
 * @h:      the handle
 * @flags:  must be 0
 *
 * mmap(2)s @size bytes of @h from @offset at @va with PROT_READ |
 * PROT_WRITE, MAP_SHARED | MAP_FIXED.  [@va, @va + @size) must lie inside
 * one range from hixl_reserve_mem_address() and not overlap another
 * mapping made there.  Every mapping of the same handle, in this process or
 * another, sees the same bytes.
 *
 * Return: 0 on success;
 *  -EINVAL if @va or @h is NULL, @flags is not 0, @size is 0, @va, @size or
 *  @offset is not a multiple of the granularity, @offset + @size passes the
 *  end of the handle, or the range does not lie inside one reservation;
 *  -ENOENT if @h is not a live handle of this library;
 *  -EEXIST if the range overlaps a mapping already made in the reservation;
 *  -ENOMEM if the library's bookkeeping could not be allocated, or the
 *  process has too many mappings (vm.max_map_count);
 *  any other -errno of mmap(2) (the reservation is left as it was).
 */
int hixl_map_mem(void *va, size_t size, size_t offset,
		 struct hixl_phys_handle *h, uint64_t flags);

/**
 * hixl_unmap_mem() - unmap what hixl_map_mem() mapped (aclrtUnmapMem)
 * @va: the address given to hixl_map_mem()
 *
 * The range becomes a PROT_NONE reservation again (mmap(MAP_FIXED) over
 * it), never a hole: it can be mapped again, and hixl_release_mem_address()
 * releases it.
 *
 * Return: 0 on success;
 *  -EINVAL if no mapping made by hixl_map_mem() starts at @va;
 *  -ENOMEM (or another -errno of mmap(2)) if the kernel could not replace
 *  the mapping; it is left mapped then.
 */
int hixl_unmap_mem(void *va);

/**
 * hixl_mem_export_to_shareable_handle() - a file descriptor for a handle
 *	(aclrtMemExportToShareableHandle)
 * @h:  a live handle
 * @fd: set to a new descriptor (O_CLOEXEC) of the handle's memory
 *
 * The descriptor is the caller's to close; it stays valid after
 * hixl_free_physical(@h).  Send it to another process with
 * hixl_shareable_handle_send() (or any SCM_RIGHTS / pidfd_getfd(2) means)
 * and import it there with hixl_mem_import_from_shareable_handle().
 *
 * Return: 0 on success;
 *  -EINVAL if @h or @fd is NULL;
 *  -ENOENT if @h is not a live handle of this library;
 *  -EMFILE if no file descriptor is free.
 */
int hixl_mem_export_to_shareable_handle(struct hixl_phys_handle *h, int *fd);

/**
 * hixl_mem_import_from_shareable_handle() - a handle from a descriptor
 *	(aclrtMemImportFromShareableHandle)
 * @fd: a descriptor from hixl_mem_export_to_shareable_handle(), in this
 *      process or received from another; it is duplicated, not taken:
 *      the caller still closes @fd
 * @h:  set to the new handle on success
 *
 * The size is the file's size (fstat(2)); the page kind is read from its
 * st_blksize (the page size of hugetlbfs files).  Any memfd or other
 * tmpfs/hugetlbfs file opened read-write is accepted.
 *
 * Return: 0 on success;
 *  -EINVAL if @h is NULL, @fd is not a regular file on tmpfs or hugetlbfs,
 *  its size is 0 or not a multiple of its page size, or its page size is
 *  not one of enum hixl_page_kind;
 *  -EBADF if @fd is not an open descriptor;
 *  -EACCES if @fd is not open for reading and writing;
 *  -EMFILE if no file descriptor is free; -ENOMEM if the handle could not
 *  be allocated.
 */
int hixl_mem_import_from_shareable_handle(int fd, struct hixl_phys_handle **h);

/**
 * hixl_shareable_handle_send() - send a shareable handle over a socket
 * @sock: a connected AF_UNIX socket (SOCK_STREAM, SOCK_SEQPACKET or
 *        SOCK_DGRAM)
 * @fd:   the descriptor to send (it stays open here: close it when done)
 *
 * Sends one byte of data carrying @fd as SCM_RIGHTS ancillary data
 * (MSG_NOSIGNAL: no SIGPIPE).  Retries when interrupted by a signal.
 *
 * Return: 0 on success;
 *  -EBADF if @sock or @fd is not an open descriptor;
 *  -ENOTSOCK if @sock is not a socket; -EOPNOTSUPP or -EINVAL if it is not
 *  an AF_UNIX socket; -ENOTCONN, -EPIPE, -ECONNRESET if it has no peer;
 *  -EAGAIN if @sock is non-blocking and full;
 *  -ETOOMANYREFS if the kernel's limit of descriptors in flight is hit;
 *  any other -errno of sendmsg(2).
 */
int hixl_shareable_handle_send(int sock, int fd);

/**
 * hixl_shareable_handle_recv() - receive a shareable handle from a socket
 * @sock: a connected AF_UNIX socket
 * @fd:   set to the received descriptor (O_CLOEXEC), the caller's to close
 *
 * Receives one message sent by hixl_shareable_handle_send().  Blocks unless
 * @sock is non-blocking; retries when interrupted by a signal.
 *
 * Return: 0 on success;
 *  -EINVAL if @fd is NULL;
 *  -ECONNRESET if the peer closed the connection (end of file);
 *  -EBADMSG if the message carried no descriptor, or not exactly one (any
 *  received descriptors are closed);
 *  -EAGAIN if @sock is non-blocking and nothing is there;
 *  -EBADF, -ENOTSOCK, or any other -errno of recvmsg(2).
 */
int hixl_shareable_handle_recv(int sock, int *fd);

#ifdef __cplusplus
}
#endif

#endif /* HIXL_PHYSMEM_H */
