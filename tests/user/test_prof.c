// SPDX-License-Identifier: GPL-2.0
/*
 * test_prof.c - user tests of profiler hooks (lib/prof.c): the heap and
 * region registry, every error path, errno left untouched, and the USDT
 * probes themselves, found by reading the .note.stapsdt section of this
 * runner (linked with libhixl-user.a) and of libhixl-user.so.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "tests.h"

#define ERRNO_CANARY	4242

/* Call into the library and check that errno came back untouched. */
static long errno_kept(long r, const char *what, int line)
{
	if (errno != ERRNO_CANARY) {
		printf("#   %s:%d: %s changed errno to %d\n", __FILE__, line, what, errno);
		ht_failures++;
	}
	return r;
}

#define CALL(expr) (errno = ERRNO_CANARY, errno_kept((expr), #expr, __LINE__))

/* pool: 64 KiB with room on both sides for ranges that stick out of it */
#define POOL_SIZE	(1 << 16)
static char arena[3 * POOL_SIZE];
#define pool	(arena + POOL_SIZE)

static void test_prof_heap(void)
{
	struct hixl_prof_heap *h = NULL, *h2 = NULL, *h3 = NULL, *x = (void *)1;
	char longname[HIXL_PROF_NAME_MAX + 8];

	CHECK_EQ(CALL(hixl_prof_heap_register(&h, "global", "kv-pool", pool, POOL_SIZE)), 0);
	REQUIRE(h != NULL);
	/* same domain, overlapping: refused; another domain: fine */
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "global", "again", pool, POOL_SIZE)), -EEXIST);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "global", "tail", pool + POOL_SIZE - 1, 8)),
		 -EEXIST);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "global", "head", pool - 8, 9)), -EEXIST);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "global", "cover", pool - 8, POOL_SIZE + 16)),
		 -EEXIST);
	CHECK(x == (void *)1);
	CHECK_EQ(CALL(hixl_prof_heap_register(&h2, "hccl", "kv-pool", pool, POOL_SIZE)), 0);
	CHECK(h2 != NULL && h2 != h);
	/* adjacent in the same domain: fine */
	CHECK_EQ(CALL(hixl_prof_heap_register(&h3, "global", "next", pool + POOL_SIZE, 64)), 0);

	/* argument errors */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	CHECK_EQ(CALL(hixl_prof_heap_register(NULL, "d", "n", pool, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, NULL, "n", pool, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "d", NULL, pool, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "", "n", pool, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "d", "", pool, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "d", "n", NULL, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "d", "n", pool, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "d", "n", (void *)(UINTPTR_MAX - 7), 9)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, longname, "n", pool, 1)), -ENAMETOOLONG);
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, "d", longname, pool, 1)), -ENAMETOOLONG);
	longname[HIXL_PROF_NAME_MAX - 1] = 0;	/* the longest allowed */
	CHECK_EQ(CALL(hixl_prof_heap_register(&x, longname, longname, (void *)(UINTPTR_MAX - 7), 8)),
		 0);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(x)), 0);

	CHECK_EQ(CALL(hixl_prof_heap_unregister(h)), 0);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(h)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(NULL)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_heap_unregister((struct hixl_prof_heap *)pool)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(h2)), 0);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(h3)), 0);
	/* the range is free again */
	CHECK_EQ(CALL(hixl_prof_heap_register(&h, "global", "kv-pool", pool, POOL_SIZE)), 0);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(h)), 0);
}

static void test_prof_regions(void)
{
	struct hixl_prof_heap *h = NULL, *other = NULL, *gone = NULL;
	char *base = pool + 4096;
	size_t size = 8192;

	REQUIRE(CALL(hixl_prof_heap_register(&h, "global", "pool", base, size)) == 0);
	REQUIRE(CALL(hixl_prof_heap_register(&other, "global", "other", pool, 4096)) == 0);
	REQUIRE(CALL(hixl_prof_heap_register(&gone, "global", "gone", pool + 32768, 4096)) == 0);
	REQUIRE(CALL(hixl_prof_heap_unregister(gone)) == 0);

	CHECK_EQ(CALL(hixl_prof_region_register(h, base, 100)), 0);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 100, 100)), 0);	/* adjacent */
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + size - 1, 1)), 0);	/* last byte */
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 1000, size - 1001)), 0); /* up to it */

	/* outside the heap */
	CHECK_EQ(CALL(hixl_prof_region_register(h, base - 1, 2)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base - 100, 10)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + size, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 500, size)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 500, SIZE_MAX)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_register(other, base + 300, 10)), -EINVAL);
	/* overlapping a live region */
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 50, 10)), -EEXIST);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 150, 100)), -EEXIST);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 300, 701)), -EEXIST);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base, 1)), -EEXIST);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 300, 700)), 0);	/* the gap exactly */
	/* arguments */
	CHECK_EQ(CALL(hixl_prof_region_register(NULL, base, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_register(h, NULL, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base + 250, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_register(gone, pool + 32768, 1)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_region_register((struct hixl_prof_heap *)pool, base, 1)), -ENOENT);

	/* a heap with live regions stays */
	CHECK_EQ(CALL(hixl_prof_heap_unregister(h)), -EBUSY);

	/* unregister: by start address only */
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base + 1)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base + 250)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_region_unregister(other, base)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_region_unregister(NULL, base)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, NULL)), -EINVAL);
	CHECK_EQ(CALL(hixl_prof_region_unregister(gone, base)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base + 100)), 0);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base + 100)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base)), 0);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base + 1000)), 0);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base + 300)), 0);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(h)), -EBUSY);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base + size - 1)), 0);
	/* the freed space can be registered again */
	CHECK_EQ(CALL(hixl_prof_region_register(h, base, size)), 0);
	CHECK_EQ(CALL(hixl_prof_region_unregister(h, base)), 0);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(h)), 0);
	CHECK_EQ(CALL(hixl_prof_region_register(h, base, 1)), -ENOENT);
	CHECK_EQ(CALL(hixl_prof_heap_unregister(other)), 0);
}

/* Many regions, registered and unregistered in a scrambled order. */
static void test_prof_many_regions(void)
{
	enum { N = 4096, STRIDE = 16 };
	struct hixl_prof_heap *h = NULL;
	static char big[N * STRIDE];
	unsigned int i, k;

	REQUIRE(hixl_prof_heap_register(&h, "global", "big", big, sizeof(big)) == 0);
	for (i = 0; i < N; i++) {
		k = (i * 2654435761u) % N;	/* a permutation: N is a power of two */
		CHECK_EQ(hixl_prof_region_register(h, big + k * STRIDE, STRIDE - k % 2), 0);
	}
	for (i = 0; i < N; i++)
		CHECK_EQ(hixl_prof_region_register(h, big + i * STRIDE + STRIDE - 1, 1),
			 i % 2 ? 0 : -EEXIST);
	CHECK_EQ(hixl_prof_heap_unregister(h), -EBUSY);
	for (i = 0; i < N; i++) {
		k = (i * 40503u + 7) % N;
		CHECK_EQ(hixl_prof_region_unregister(h, big + k * STRIDE), 0);
		if (k % 2)
			CHECK_EQ(hixl_prof_region_unregister(h, big + k * STRIDE + STRIDE - 1), 0);
	}
	CHECK_EQ(hixl_prof_heap_unregister(h), 0);
}

/*
 * The probes, as a tracer finds them: NT_STAPSDT notes ("stapsdt" owner)
 * in .note.stapsdt, each with three addresses and then "provider\0name\0
 * args\0", args being one "N@operand" per argument.
 */
struct probe_want {
	const char *name;
	int nargs;
	int found;
};

static int scan_stapsdt(const char *path, struct probe_want *want, int nwant)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;
	unsigned char *img;
	struct stat st;
	int fd, notes = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)sizeof(*eh)) {
		printf("#   cannot read %s\n", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	img = malloc(st.st_size);
	if (!img || read(fd, img, st.st_size) != st.st_size) {
		close(fd);
		free(img);
		return -1;
	}
	close(fd);
	eh = (const Elf64_Ehdr *)img;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > (uint64_t)st.st_size ||
	    eh->e_shstrndx >= eh->e_shnum) {
		printf("#   %s: not a 64-bit ELF file with sections\n", path);
		free(img);
		return -1;
	}
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	shstr = (const char *)img + sh[eh->e_shstrndx].sh_offset;
	for (unsigned int s = 0; s < eh->e_shnum; s++) {
		const unsigned char *p, *end;

		if (sh[s].sh_type != SHT_NOTE || strcmp(shstr + sh[s].sh_name, ".note.stapsdt") ||
		    sh[s].sh_offset + sh[s].sh_size > (uint64_t)st.st_size)
			continue;
		p = img + sh[s].sh_offset;
		end = p + sh[s].sh_size;
		while (p + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
			const char *name = (const char *)(nh + 1);
			const char *desc = name + ((nh->n_namesz + 3) & ~3u);
			const char *prov, *probe, *args;

			p = (const unsigned char *)desc + ((nh->n_descsz + 3) & ~3u);
			if (p > end)
				break;
			if (nh->n_type != 3 || strcmp(name, "stapsdt") || nh->n_descsz < 3 * 8 + 3)
				continue;
			notes++;
			prov = desc + 3 * 8;
			probe = prov + strlen(prov) + 1;
			args = probe + strlen(probe) + 1;
			if (strcmp(prov, "hixl"))
				continue;
			for (int w = 0; w < nwant; w++) {
				int n = 0, ok = 1;

				if (strcmp(probe, want[w].name))
					continue;
				/* every argument 8 bytes wide: "8@operand" */
				for (const char *a = args; *a; ) {
					while (*a == ' ')
						a++;
					if (!*a)
						break;
					n++;
					if (strncmp(a, "8@", 2))
						ok = 0;
					while (*a && *a != ' ')
						a++;
				}
				if (n != want[w].nargs || !ok)
					printf("#   %s: hixl:%s has args \"%s\", want %d of 8 bytes\n",
					       path, probe, args, want[w].nargs);
				else
					want[w].found++;
			}
		}
	}
	free(img);
	return notes;
}

static void check_probes(const char *path)
{
	struct probe_want want[] = {
		{ "heap_register", 5, 0 },
		{ "heap_unregister", 1, 0 },
		{ "region_register", 3, 0 },
		{ "region_unregister", 2, 0 },
	};
	int notes = scan_stapsdt(path, want, 4);

	CHECK(notes >= 4);
	for (int w = 0; w < 4; w++) {
		if (want[w].found != 1)
			printf("#   %s: probe hixl:%s found %d times\n", path, want[w].name,
			       want[w].found);
		CHECK_EQ(want[w].found, 1);
	}
}

static void test_prof_probes_static(void)
{
	/* this runner is linked with libhixl-user.a */
	check_probes("/proc/self/exe");
}

static void test_prof_probes_shared(void)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	REQUIRE(n > 0);
	exe[n] = 0;
	/* <repo>/tests/user/hixl-test -> <repo>/lib/libhixl-user.so.VERSION */
	for (int i = 0; i < 3; i++) {
		slash = strrchr(exe, '/');
		REQUIRE(slash != NULL);
		*slash = 0;
	}
	snprintf(path, sizeof(path), "%s/lib/libhixl-user.so.%s", exe, HIXL_LIB_VERSION);
	if (access(path, R_OK))
		SKIP("lib/libhixl-user.so not built (make lib)");
	check_probes(path);
}

const struct ht_test prof_tests[] = {
	{ "prof_heap", test_prof_heap },
	{ "prof_regions", test_prof_regions },
	{ "prof_many_regions", test_prof_many_regions },
	{ "prof_probes_static", test_prof_probes_static },
	{ "prof_probes_shared", test_prof_probes_shared },
	{ NULL, NULL },
};
