/* SPDX-License-Identifier: GPL-2.0 */
/* trace.h - hixl tracepoints (events/hixl/); peers print as %pISpc */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hixl

#if !defined(_HIXL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _HIXL_TRACE_H

#include <linux/tracepoint.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/string.h>

/* the peer's address in an event: a sockaddr_in or sockaddr_in6, %pISpc */
#define HIXL_TP_ADDR_SIZE	sizeof(struct sockaddr_in6)
#define hixl_tp_addr_copy(dst, ss)						\
	memcpy(dst, ss, min_t(size_t, HIXL_TP_ADDR_SIZE, sizeof(*(ss))))

TRACE_EVENT(hixl_reg_mem,
	TP_PROTO(u64 engine, u32 handle, u32 type, u64 addr, u64 len,
		 unsigned int page_shift, unsigned long pinned_pages),
	TP_ARGS(engine, handle, type, addr, len, page_shift, pinned_pages),
	TP_STRUCT__entry(
		__field(u64, engine)
		__field(u32, handle)
		__field(u32, type)
		__field(u64, addr)
		__field(u64, len)
		__field(unsigned int, page_shift)
		__field(unsigned long, pinned_pages)
	),
	TP_fast_assign(
		__entry->engine = engine;
		__entry->handle = handle;
		__entry->type = type;
		__entry->addr = addr;
		__entry->len = len;
		__entry->page_shift = page_shift;
		__entry->pinned_pages = pinned_pages;
	),
	TP_printk("engine=%llu handle=%u type=%s addr=0x%llx len=%llu page_shift=%u pinned_pages=%lu",
		  __entry->engine, __entry->handle, __entry->type ? "device" : "host",
		  __entry->addr, __entry->len, __entry->page_shift, __entry->pinned_pages)
);

TRACE_EVENT(hixl_dereg_mem,
	TP_PROTO(u64 engine, u32 handle, u32 type, u64 addr, u64 len, bool invalid),
	TP_ARGS(engine, handle, type, addr, len, invalid),
	TP_STRUCT__entry(
		__field(u64, engine)
		__field(u32, handle)
		__field(u32, type)
		__field(u64, addr)
		__field(u64, len)
		__field(bool, invalid)
	),
	TP_fast_assign(
		__entry->engine = engine;
		__entry->handle = handle;
		__entry->type = type;
		__entry->addr = addr;
		__entry->len = len;
		__entry->invalid = invalid;
	),
	TP_printk("engine=%llu handle=%u type=%s addr=0x%llx len=%llu invalid=%d",
		  __entry->engine, __entry->handle, __entry->type ? "device" : "host",
		  __entry->addr, __entry->len, __entry->invalid)
);

TRACE_EVENT(hixl_invalidate,
	TP_PROTO(u64 engine, u32 handle, u64 addr, u64 len, int event),
	TP_ARGS(engine, handle, addr, len, event),
	TP_STRUCT__entry(
		__field(u64, engine)
		__field(u32, handle)
		__field(u64, addr)
		__field(u64, len)
		__field(int, event)
	),
	TP_fast_assign(
		__entry->engine = engine;
		__entry->handle = handle;
		__entry->addr = addr;
		__entry->len = len;
		__entry->event = event;
	),
	TP_printk("engine=%llu handle=%u addr=0x%llx len=%llu mmu_event=%d",
		  __entry->engine, __entry->handle, __entry->addr, __entry->len,
		  __entry->event)
);

TRACE_EVENT(hixl_limit_hit,
	TP_PROTO(u64 engine, u32 type, u64 len, int err),
	TP_ARGS(engine, type, len, err),
	TP_STRUCT__entry(
		__field(u64, engine)
		__field(u32, type)
		__field(u64, len)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->engine = engine;
		__entry->type = type;
		__entry->len = len;
		__entry->err = err;
	),
	TP_printk("engine=%llu type=%s len=%llu err=%d",
		  __entry->engine, __entry->type ? "device" : "host", __entry->len,
		  __entry->err)
);

TRACE_EVENT(hixl_xfer_submit,
	TP_PROTO(u64 engine, const struct sockaddr_storage *peer, u32 op, u32 descs,
		 u32 staged, u64 bytes, u64 tag),
	TP_ARGS(engine, peer, op, descs, staged, bytes, tag),
	TP_STRUCT__entry(
		__field(u64, engine)
		__array(u8, peer, HIXL_TP_ADDR_SIZE)
		__field(u32, op)
		__field(u32, descs)
		__field(u32, staged)
		__field(u64, bytes)
		__field(u64, tag)
	),
	TP_fast_assign(
		__entry->engine = engine;
		hixl_tp_addr_copy(__entry->peer, peer);
		__entry->op = op;
		__entry->descs = descs;
		__entry->staged = staged;
		__entry->bytes = bytes;
		__entry->tag = tag;
	),
	TP_printk("engine=%llu peer=%pISpc op=%s descs=%u staged=%u bytes=%llu tag=%llu",
		  __entry->engine, __entry->peer, __entry->op ? "write" : "read",
		  __entry->descs, __entry->staged, __entry->bytes, __entry->tag)
);

TRACE_EVENT(hixl_xfer_complete,
	TP_PROTO(u64 engine, const struct sockaddr_storage *peer, u32 op, int status,
		 u64 bytes, u64 tag, u64 latency_ns),
	TP_ARGS(engine, peer, op, status, bytes, tag, latency_ns),
	TP_STRUCT__entry(
		__field(u64, engine)
		__array(u8, peer, HIXL_TP_ADDR_SIZE)
		__field(u32, op)
		__field(int, status)
		__field(u64, bytes)
		__field(u64, tag)
		__field(u64, latency_ns)
	),
	TP_fast_assign(
		__entry->engine = engine;
		hixl_tp_addr_copy(__entry->peer, peer);
		__entry->op = op;
		__entry->status = status;
		__entry->bytes = bytes;
		__entry->tag = tag;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("engine=%llu peer=%pISpc op=%s status=%d bytes=%llu tag=%llu latency_ns=%llu",
		  __entry->engine, __entry->peer, __entry->op ? "write" : "read",
		  __entry->status, __entry->bytes, __entry->tag, __entry->latency_ns)
);

TRACE_EVENT(hixl_connect,
	TP_PROTO(u64 engine, const struct sockaddr_storage *peer, int result, u64 latency_ns),
	TP_ARGS(engine, peer, result, latency_ns),
	TP_STRUCT__entry(
		__field(u64, engine)
		__array(u8, peer, HIXL_TP_ADDR_SIZE)
		__field(int, result)
		__field(u64, latency_ns)
	),
	TP_fast_assign(
		__entry->engine = engine;
		hixl_tp_addr_copy(__entry->peer, peer);
		__entry->result = result;
		__entry->latency_ns = latency_ns;
	),
	TP_printk("engine=%llu peer=%pISpc result=%d latency_ns=%llu",
		  __entry->engine, __entry->peer, __entry->result, __entry->latency_ns)
);

TRACE_EVENT(hixl_link_error,
	TP_PROTO(u64 engine, const struct sockaddr_storage *peer, bool active, int err,
		 int state),
	TP_ARGS(engine, peer, active, err, state),
	TP_STRUCT__entry(
		__field(u64, engine)
		__array(u8, peer, HIXL_TP_ADDR_SIZE)
		__field(bool, active)
		__field(int, err)
		__field(int, state)
	),
	TP_fast_assign(
		__entry->engine = engine;
		hixl_tp_addr_copy(__entry->peer, peer);
		__entry->active = active;
		__entry->err = err;
		__entry->state = state;
	),
	TP_printk("engine=%llu peer=%pISpc side=%s err=%d was=%s",
		  __entry->engine, __entry->peer, __entry->active ? "active" : "passive",
		  __entry->err, __print_symbolic(__entry->state, { 0, "connecting" },
						 { 1, "ready" }, { 2, "error" }, { 3, "closed" }))
);

/* a rail link came up or went down; a failed connect is a down alone */
TRACE_EVENT(hixl_rail_state,
	TP_PROTO(u64 engine, const struct sockaddr_storage *peer, u32 rail, bool up, int err),
	TP_ARGS(engine, peer, rail, up, err),
	TP_STRUCT__entry(
		__field(u64, engine)
		__array(u8, peer, HIXL_TP_ADDR_SIZE)
		__field(u32, rail)
		__field(bool, up)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->engine = engine;
		hixl_tp_addr_copy(__entry->peer, peer);
		__entry->rail = rail;
		__entry->up = up;
		__entry->err = err;
	),
	TP_printk("engine=%llu peer=%pISpc rail=%u %s err=%d", __entry->engine, __entry->peer,
		  __entry->rail, __entry->up ? "up" : "down", __entry->err)
);

TRACE_EVENT(hixl_rail_failover,
	TP_PROTO(u64 engine, u32 rail_from, u32 pieces, u64 bytes, u32 rail_to_mask),
	TP_ARGS(engine, rail_from, pieces, bytes, rail_to_mask),
	TP_STRUCT__entry(
		__field(u64, engine)
		__field(u32, rail_from)
		__field(u32, pieces)
		__field(u64, bytes)
		__field(u32, rail_to_mask)
	),
	TP_fast_assign(
		__entry->engine = engine;
		__entry->rail_from = rail_from;
		__entry->pieces = pieces;
		__entry->bytes = bytes;
		__entry->rail_to_mask = rail_to_mask;
	),
	TP_printk("engine=%llu rail_from=%u pieces=%u bytes=%llu rail_to_mask=0x%x",
		  __entry->engine, __entry->rail_from, __entry->pieces, __entry->bytes,
		  __entry->rail_to_mask)
);

#endif /* _HIXL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
