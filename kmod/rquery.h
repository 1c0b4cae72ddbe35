/* SPDX-License-Identifier: GPL-2.0 */
/* rquery.h - PEER_REGIONS (rquery.c) */
#ifndef _HIXL_RQUERY_H
#define _HIXL_RQUERY_H

struct hixl_engine;
struct hixl_peer_regions;

int hixl_cmd_peer_regions(struct hixl_engine *eng, struct hixl_peer_regions *a);

#endif /* _HIXL_RQUERY_H */
