/* SPDX-License-Identifier: GPL-2.0 */
/* connect.h - the CONNECT and DISCONNECT commands (connect.c) */
#ifndef _HIXL_CONNECT_H
#define _HIXL_CONNECT_H

struct hixl_engine;
struct hixl_connect;

int hixl_cmd_connect(struct hixl_engine *eng, struct hixl_connect *a);
int hixl_cmd_disconnect(struct hixl_engine *eng, struct hixl_connect *a);

#endif /* _HIXL_CONNECT_H */
