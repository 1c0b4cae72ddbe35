/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - hixl tracepoints (events/hixl/ in tracefs):
 *   hixl_reg_mem, hixl_dereg_mem, hixl_invalidate, hixl_limit_hit
 *
 *   echo 1 > /sys/kernel/tracing/events/hixl/enable
 *   bpftrace -e 'tracepoint:hixl:hixl_reg_mem { @[args->page_shift] = count(); }'
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hixl

#if !defined(_HIXL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _HIXL_TRACE_H

#include <linux/tracepoint.h>

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

#endif /* _HIXL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
