/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hixlctl.h - what the parts of hixlctl share: hixlctl.c (the command line,
 * info and the debugfs tables), hixlctl-check.c (`hixlctl check`: the
 * checks of hixl itself and the report) and hixlctl-sys.c (the checks of
 * the machine: RDMA devices, huge pages, THP) and hixlctl-stats.c
 * (`hixlctl stats`: every engine's and link's data-path counters).
 */
#ifndef HIXLCTL_H
#define HIXLCTL_H

#include <stdbool.h>
#include <stddef.h>

/* the result of one check; printed as PASS, WARN, FAIL */
enum check_status {
	CHECK_PASS,
	CHECK_WARN,
	CHECK_FAIL,
};

/*
 * check_add() - record one check's result
 * @name:   short and stable, e.g. "module", "rdma:rxe0" (JSON "name")
 * @status: CHECK_PASS, CHECK_WARN or CHECK_FAIL
 * @fix:    what to do about a WARN or FAIL, or NULL (JSON "fix": "")
 * @fmt:    printf format of what was found (JSON "detail")
 *
 * The report is printed at the end, in the order of the calls; a check
 * that cannot record (out of memory) ends hixlctl with status 1.
 */
void check_add(const char *name, enum check_status status, const char *fix,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* hixlctl-sys.c: one line per RDMA device (or one FAIL without any) */
void check_rdma(void);
/* hixlctl-sys.c: free and total 2 MiB and 1 GiB huge pages, the THP mode */
void check_hugepages(void);

/*
 * parse_size() - a byte count: digits, then optionally K, M, G or T (also
 * KiB, MiB, GiB, TiB; powers of 1024)
 * Return: 0 and *@bytes set, or -1 when @s is not such a number or too big.
 */
int parse_size(const char *s, unsigned long long *bytes);

/* fmt_bytes() - @b as "64 GiB", "1.5 MiB", "512 B" in @buf (@len bytes); returns @buf */
const char *fmt_bytes(unsigned long long b, char *buf, size_t len);

/*
 * read_line() - the first line of the file @path, without its newline, in
 * @buf (@len bytes)
 * Return: 0, or -1 when the file cannot be opened or is empty.
 */
int read_line(const char *path, char *buf, size_t len);

/*
 * tool_error() - print "hixlctl: WHAT: <hixl's meaning of @err>" and, when
 * the library has one (hixl_error_hint()), a "hint: ..." line, on stderr;
 * ENOPKG is the missing module only (hixlctl never asks for a secret, the
 * other cause the library's meaning names)
 * @what: what failed, e.g. "/dev/hixl"
 * @err:  the -errno a library call returned
 */
void tool_error(const char *what, int err);

/* cmd_check() - `hixlctl check [--size BYTES] [--json]`: argv after "check" */
int cmd_check(int argc, char **argv);

/*
 * cmd_stats() - `hixlctl stats [--json|--prometheus]`: argv after "stats"
 * (hixlctl-stats.c).  Return: the exit status; 2 for a usage error (the
 * caller prints the usage).
 */
int cmd_stats(int argc, char **argv);

#endif
