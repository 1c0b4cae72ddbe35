// SPDX-License-Identifier: GPL-2.0
/*
 * hixlctl - inspect the hixl module, and check that a machine is ready for it.
 *
 *   hixlctl check [--size BYTES] [--json]  a preflight: PASS/WARN/FAIL lines
 *                                          (hixlctl-check.c, hixlctl-sys.c)
 *   hixlctl info [--json]     ABI version, features and limits (GET_INFO)
 *   hixlctl engines [--json]  every open engine and its counters
 *   hixlctl regions [--json]  every registration of every engine
 *   hixlctl links [--json]    every link of every engine
 *   hixlctl stats [--json|--prometheus [--ids]]  every engine and link with its
 *                             data-path counters (hixlctl-stats.c)
 *   hixlctl --help | --version
 *
 * engines, regions and links read /sys/kernel/debug/hixl/ (root, debugfs
 * mounted; stats needs only the group hixl); each prints an aligned table, or with --json an array of
 * objects keyed by the file's header.
 *
 * Exit status: 0 on success (check: nothing FAILed); 1 when the device
 * cannot be opened or queried (check: something FAILed); 2 on a usage error.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "hixlctl.h"

/* The short usage, for errors. */
static void usage(FILE *f)
{
	fprintf(f, "usage: hixlctl check [--size BYTES] [--json]\n"
		"       hixlctl info|engines|regions|links [--json]\n"
		"       hixlctl stats [--json|--prometheus [--ids]]\n"
		"       hixlctl --help | --version\n");
}

/* --help: every subcommand and option. */
static void help(void)
{
	printf("usage: hixlctl COMMAND [OPTIONS]\n"
	       "\n"
	       "Inspect the hixl module (hixl.ko, /dev/hixl) and check that this machine is\n"
	       "ready for hixl engines.\n"
	       "\n"
	       "Commands:\n"
	       "  check [--size BYTES] [--json]\n"
	       "      a preflight, one line per check, each PASS, WARN or FAIL with the fix\n"
	       "      to apply: hixl.ko and its version, /dev/hixl and who may open it, the\n"
	       "      ABI version, the module's per-process limits, RLIMIT_MEMLOCK, each RDMA\n"
	       "      device (netdevs, addresses, port state), huge pages, THP, io_uring\n"
	       "      and URING_CMD on /dev/hixl.  Exit status 1 when a check FAILs.\n"
	       "      --size BYTES  the memory the program will register (e.g. 64G; K, M,\n"
	       "                    G, T are powers of 1024): checked against RLIMIT_MEMLOCK\n"
	       "                    and the module's max_host_bytes\n"
	       "  info [--json]      library version, ABI version, features, limits (GET_INFO)\n"
	       "  engines [--json]   every open engine and its counters (root, debugfs)\n"
	       "  regions [--json]   every registration of every engine (root, debugfs)\n"
	       "  links [--json]     every link of every engine (root, debugfs)\n"
	       "  stats [--json|--prometheus [--ids]]\n"
	       "      every engine on the host and each of its links: bytes and descriptors\n"
	       "      moved by READ and WRITE, direct and staged, errors, timeouts, cancels,\n"
	       "      link resets, connects and their latency, TRANSFER latency histograms.\n"
	       "      Needs only /dev/hixl (the group hixl), no root or debugfs.\n"
	       "      --prometheus: the Prometheus text exposition format (hixl_engine_*,\n"
	       "      hixl_link_*, hixl_rail_* families), labelled by engine name and peer;\n"
	       "      --ids adds the pid and engine labels (new series on every restart)\n"
	       "\n"
	       "Options:\n"
	       "  --json         machine-readable output: check prints {\"ok\": bool,\n"
	       "                 \"checks\": [{\"name\", \"status\", \"detail\", \"fix\"}]}, info\n"
	       "                 an object, engines, regions and links an array of objects,\n"
	       "                 stats {\"engines\": [{..., \"links\": [...]}]}\n"
	       "  -h, --help     this help\n"
	       "  -V, --version  the version (the library's, hixl_version())\n"
	       "\n"
	       "Exit status: 0 success; 1 the device cannot be opened or queried, or a\n"
	       "check FAILed; 2 a usage error.  See hixlctl(8).\n");
}

#define MAX_COLS 16	/* columns of a debugfs table hixlctl shows */
#define MAX_ROWS 4096	/* rows, header included; more are left out */

/* Is @s a decimal integer (printed unquoted in JSON)? */
static int is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

void tool_error(const char *what, int err)
{
	/*
	 * hixlctl sets up no engine, so never with a secret: its ENOPKG is
	 * the missing module alone (the library's meaning also names the
	 * kernel's hmac(sha256), which only a secret needs)
	 */
	const char *meaning = err == -ENOPKG || err == ENOPKG ?
		"the kernel module hixl.ko is not loaded" :
		hixl_strerror(err);

	fprintf(stderr, "hixlctl: %s: %s (%s)\n", what, meaning,
		strerrorname_np(err < 0 ? -err : err) ?: "E?");
	if (*hixl_error_hint(err))
		fprintf(stderr, "hint: %s\n", hixl_error_hint(err));
}

/* Print a debugfs table (header line, then rows) aligned or as JSON. */
static int cmd_table(const char *file, int json)
{
	static char *cell[MAX_ROWS][MAX_COLS];
	char path[256], line[1024];
	int ncols = 0, nrows = 0, width[MAX_COLS] = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/hixl/%s", file);
	f = fopen(path, "r");
	if (!f) {
		if (access("/sys/module/hixl", F_OK)) {
			tool_error(file, -ENOPKG);		/* not loaded: no table */
		} else {
			perror(path);
			fprintf(stderr, "hixlctl: needs root and debugfs mounted\n");
		}
		return 1;
	}
	while (nrows < MAX_ROWS && fgets(line, sizeof(line), f)) {
		int c = 0;

		for (char *tok = strtok(line, " \t\n"); tok && c < MAX_COLS;
		     tok = strtok(NULL, " \t\n"), c++) {
			cell[nrows][c] = strdup(tok);
			if ((int)strlen(tok) > width[c])
				width[c] = strlen(tok);
		}
		if (!nrows)
			ncols = c;
		for (; c < MAX_COLS; c++)
			cell[nrows][c] = NULL;
		nrows++;
	}
	fclose(f);
	if (!nrows)
		return 1;
	if (json) {
		printf("[");
		for (int r = 1; r < nrows; r++) {
			printf("%s{", r > 1 ? ", " : "");
			for (int c = 0; c < ncols && cell[r][c]; c++)
				printf(is_number(cell[r][c]) ? "%s\"%s\": %s" : "%s\"%s\": \"%s\"",
				       c ? ", " : "", cell[0][c], cell[r][c]);
			printf("}");
		}
		printf("]\n");
		return 0;
	}
	for (int r = 0; r < nrows; r++) {
		for (int c = 0; c < ncols && cell[r][c]; c++)
			printf(c ? "  %-*s" : "%-*s", width[c], cell[r][c]);
		printf("\n");
	}
	return 0;
}

/* info: GET_INFO, aligned or as one JSON object. */
static int cmd_info(int json)
{
	struct hixl_info info;
	int fd, ret;

	fd = hixl_dev_open(NULL);
	if (fd < 0) {
		tool_error(HIXL_DEVICE_PATH, fd);
		return 1;
	}
	ret = hixl_dev_get_info(fd, &info);
	if (ret) {
		tool_error("GET_INFO", ret);
		return 1;
	}
	if (json) {
		printf("{\"abi_version\": %u, \"features\": %llu, \"max_regions\": %llu, "
		       "\"max_host_bytes\": %llu, \"max_device_bytes\": %llu, \"max_links\": %u, "
		       "\"max_notify_name\": %u, \"max_notify_msg\": %u, \"max_notify_pending\": %u, "
		       "\"library\": \"%s\"}\n",
		       info.abi_version, (unsigned long long)info.features,
		       (unsigned long long)info.max_regions,
		       (unsigned long long)info.max_host_bytes,
		       (unsigned long long)info.max_device_bytes, info.max_links,
		       info.max_notify_name, info.max_notify_msg, info.max_notify_pending,
		       hixl_version());
		return 0;
	}
	printf("library            %s\n", hixl_version());
	printf("abi_version        %u\n", info.abi_version);
	printf("features           0x%llx%s\n", (unsigned long long)info.features,
	       info.features & HIXL_FEAT_GET_INFO ? " (get_info)" : "");
	printf("max_regions        %llu per process\n", (unsigned long long)info.max_regions);
	printf("max_host_bytes     %llu (%.1f GiB) per process\n",
	       (unsigned long long)info.max_host_bytes, info.max_host_bytes / 1073741824.0);
	printf("max_device_bytes   %llu (%.1f GiB) per process\n",
	       (unsigned long long)info.max_device_bytes, info.max_device_bytes / 1073741824.0);
	printf("max_links          %u per engine\n", info.max_links);
	printf("notify limits      name %u B, message %u B, %u pending per link\n",
	       info.max_notify_name, info.max_notify_msg, info.max_notify_pending);
	return 0;
}

/* Dispatch on the command (argv[1]); see the top of the file and help(). */
int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "info")) {
		int json = argc == 3 && !strcmp(argv[2], "--json");

		if (argc > 3 || (argc == 3 && !json)) {
			usage(stderr);
			return 2;
		}
		return cmd_info(json);
	}
	if (argc >= 2 && (!strcmp(argv[1], "engines") || !strcmp(argv[1], "regions") ||
			  !strcmp(argv[1], "links"))) {
		int json = argc == 3 && !strcmp(argv[2], "--json");

		if (argc > 3 || (argc == 3 && !json)) {
			usage(stderr);
			return 2;
		}
		return cmd_table(argv[1], json);
	}
	if (argc >= 2 && !strcmp(argv[1], "stats")) {
		int ret = cmd_stats(argc - 2, argv + 2);

		if (ret == 2)
			usage(stderr);
		return ret;
	}
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		help();
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("hixlctl (hixl) %s\n", hixl_version());
		return 0;
	}
	usage(stderr);
	return 2;
}
