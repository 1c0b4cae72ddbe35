/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz-local.h - hixl-fuzz's same-host links (fuzz-local.c): which
 * transport each engine's SETUP asked for, and what the link counters say
 * about every well-formed TRANSFER.
 */
#ifndef HIXL_FUZZ_LOCAL_H
#define HIXL_FUZZ_LOCAL_H

#include <stdint.h>

#include <hixl/uapi.h>

uint32_t fl_pick_transport(uint32_t r100);
void fl_setup(int e, uint32_t transport);
void fl_closed(int e);
void fl_before(int fd, const struct hixl_sockaddr *peer);
const char *fl_after(int e, int fd, long ret, uint32_t count);
int fl_final(unsigned long wf_ok);

#endif
