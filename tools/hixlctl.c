// SPDX-License-Identifier: GPL-2.0
/*
 * hixlctl - inspect the hixl module.
 *
 *   hixlctl info [--json]     ABI version, features and limits (GET_INFO)
 *   hixlctl engines [--json]  every open engine and its counters
 *   hixlctl regions [--json]  every registration of every engine
 *   hixlctl links [--json]    every link of every engine
 *
 * engines, regions and links read /sys/kernel/debug/hixl/ (root, debugfs
 * mounted); each prints an aligned table, or with --json an array of
 * objects keyed by the file's header.
 *
 * Exit status: 0 on success, 1 when the device cannot be opened or queried,
 * 2 on a usage error.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hixl/hixl.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: hixlctl info|engines|regions|links [--json]\n");
}

#define MAX_COLS 16
#define MAX_ROWS 4096

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
		perror(path);
		fprintf(stderr, "hixlctl: needs root, hixl.ko loaded and debugfs mounted\n");
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

static int cmd_info(int json)
{
	struct hixl_info info;
	int fd, ret;

	fd = hixl_dev_open(NULL);
	if (fd < 0) {
		fprintf(stderr, "hixlctl: %s: %s\n", HIXL_DEVICE_PATH, strerror(-fd));
		return 1;
	}
	ret = hixl_dev_get_info(fd, &info);
	if (ret) {
		fprintf(stderr, "hixlctl: GET_INFO: %s\n", strerror(-ret));
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

int main(int argc, char **argv)
{
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
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
