#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a one-descriptor TRANSFER's time goes: a tracefs record of
bench/bench-lat (or of kverbs_lat.ko) turned into the p50 of each stage.

bench/bench-lat-guest.sh records, in the guest, the ioctl's entry and exit
(raw_syscalls, id 16), hixl's hixl_xfer_submit and hixl_xfer_complete
tracepoints, kprobes on rxe's rxe_post_send() (the post) and rxe_cq_post()
(the CQE written) and workqueue_execute_start (rxe's work on its
workqueue), and runs this on the text of the trace.

Stages, per transfer (microseconds):
  hixl:    entry   ioctl entry -> hixl_xfer_submit (copy-in, lookups, plan)
           post    hixl_xfer_submit -> rxe_post_send() (chain, post)
           wake    the post -> rxe's first work item after it starts
           device  that start -> the CQE written (rxe's requester,
                   responder and completer)
           notice  the CQE -> hixl_xfer_complete (the spinner's poll, the
                   WR's handler)
           return  hixl_xfer_complete -> ioctl exit
           user    ioctl exit -> the next ioctl's entry (bench-lat's loop)
           own     entry + post + notice + return + user: hixl's own time
           cycle   one post -> the next
  kverbs:  wake, device as above; turn  the CQE -> the next post (the
           poster's poll, timing and gap); cycle as above

Each traced event costs the thread that hits it about a microsecond under
QEMU/TCG, so every stage carries its events' share.

Output lines: "stage TOOL OP SIZE NAME N P50_US".

Usage: latstages.py --tool TOOL --op OP --size BYTES TRACE
"""
import argparse
import re
import statistics
import sys

EVENT = re.compile(r"^\s*(.+)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+):(.*)$")


def events(path):
    """(time in us, event name, task, rest of the line) of a trace's lines"""
    for line in open(path, errors="replace"):
        m = EVENT.match(line)
        if m:
            yield float(m.group(3)) * 1e6, m.group(4), m.group(1).strip(), m.group(5)


def rxe_work(ev, rest):
    return ev == "workqueue_execute_start" and "[rdma_rxe]" in rest


def hixl_stages(path, task):
    """stage -> list of us, one per complete TRANSFER of the traced task"""
    st = {k: [] for k in ("entry", "post", "wake", "device", "notice", "return",
                          "user", "own", "cycle")}
    cur, last_exit, last_post = {}, None, None
    for t, ev, who, rest in events(path):
        if ev == "sys_enter" and who.startswith(task):
            cur = {"enter": t}
        elif ev == "hixl_xfer_submit" and "enter" in cur and "submit" not in cur:
            cur["submit"] = t
        elif ev == "post" and "submit" in cur and "post" not in cur:
            cur["post"] = t
        elif rxe_work(ev, rest) and "post" in cur and "work" not in cur:
            cur["work"] = t
        elif ev == "cqpost" and "work" in cur and "cq" not in cur:
            cur["cq"] = t
        elif ev == "hixl_xfer_complete" and "cq" in cur and "done" not in cur:
            cur["done"] = t
        elif ev == "sys_exit" and who.startswith(task) and "done" in cur:
            c = cur
            user = c["enter"] - last_exit if last_exit is not None else None
            parts = {"entry": c["submit"] - c["enter"], "post": c["post"] - c["submit"],
                     "wake": c["work"] - c["post"], "device": c["cq"] - c["work"],
                     "notice": c["done"] - c["cq"], "return": t - c["done"]}
            for k, v in parts.items():
                st[k].append(v)
            if user is not None:
                st["user"].append(user)
                st["own"].append(parts["entry"] + parts["post"] + parts["notice"] +
                                 parts["return"] + user)
            if last_post is not None:
                st["cycle"].append(c["post"] - last_post)
            last_exit, last_post, cur = t, c["post"], {}
        elif ev == "sys_exit" and who.startswith(task):
            cur, last_exit, last_post = {}, None, None  # not one whole TRANSFER
    return st


def kverbs_stages(path, task):
    st = {k: [] for k in ("wake", "device", "turn", "cycle")}
    cur = {}
    for t, ev, who, rest in events(path):
        if ev == "post" and who.startswith(task):
            if "cq" in cur:
                st["turn"].append(t - cur["cq"])
                st["cycle"].append(t - cur["post"])
            cur = {"post": t}
        elif rxe_work(ev, rest) and "post" in cur and "work" not in cur:
            cur["work"] = t
        elif ev == "cqpost" and "work" in cur and "cq" not in cur:
            cur["cq"] = t
            st["wake"].append(cur["work"] - cur["post"])
            st["device"].append(t - cur["work"])
    return st


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--op", required=True)
    ap.add_argument("--size", required=True)
    ap.add_argument("--task", help="the posting task's name (default: bench-lat, insmod)")
    ap.add_argument("trace")
    a = ap.parse_args()
    if a.tool.startswith("hixl"):
        st = hixl_stages(a.trace, a.task or "bench-lat")
    else:
        st = kverbs_stages(a.trace, a.task or "insmod")
    if not st["device"]:
        print(f"na 1 stages-{a.tool} {a.op} {a.size} 1 no whole transfer found in the trace")
        return 0
    for k, v in st.items():
        if v:
            print(f"stage {a.tool} {a.op} {a.size} {k} {len(v)} {statistics.median(v):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
