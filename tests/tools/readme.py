#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""readme.py - TAP: README.md stays a user's page that tells the truth.

  1. at most 300 lines, the real-host quick start on its first screen
     (its heading within the first 40 lines), the limits that matter
     most (device memory over hardware NICs, Soft-RoCE-only validation)
     said before it;
  2. the tracepoint list is every TRACE_EVENT of kmod/trace*.h, no more;
  3. the quick start's `hixlctl check --size S` passes the module's
     default per-process limit (max_host_bytes in kmod/param.c), as
     hixlctl check judges it (S <= the limit);
  4. the benchmark block is what bench/readme-table.py makes of
     bench/results.json (never copied by hand);
  5. every relative link of README.md and docs/*.md names a file that
     exists and, with #anchor, a heading of that file.
No VM, no build: under a second.
"""
import glob
import os
import re
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
n = 0


def result(ok, what, why=""):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
    for line in why.splitlines() if not ok else []:
        print("# " + line)


def read(path):
    with open(os.path.join(REPO, path)) as f:
        return f.read()


readme = read("README.md")
lines = readme.splitlines()
print("1..5")

# 1. length, first screen
qs = next((i for i, l in enumerate(lines) if l.startswith("## Quick start on a real host")), None)
head = "\n".join(lines[:qs or 0]).lower()
why = []
if len(lines) > 300:
    why.append("%d lines, more than 300" % len(lines))
if qs is None or qs >= 40:
    why.append("the quick start heading is at line %s, not within 40" % (qs and qs + 1))
for must in ("device (gpu) memory", "soft-roce"):
    if must not in head:
        why.append("nothing before the quick start says %r" % must)
result(not why, "README: %d lines, quick start at line %s, limits first" % (len(lines), qs and qs + 1),
       "\n".join(why))

# 2. tracepoints
events = set()
for h in glob.glob(os.path.join(REPO, "kmod", "trace*.h")):
    events |= set(re.findall(r"^TRACE_EVENT\((hixl_\w+),", open(h).read(), re.M))
m = re.search(r"Tracepoints \(`/sys/kernel/tracing/events/hixl/`\):(.*?)USDT", readme, re.S)
listed = set(re.findall(r"`(hixl_\w+)`", m.group(1))) if m else set()
result(events and listed == events, "tracepoints: README lists the %d of kmod/trace*.h" % len(events),
       "missing: %s\nnot in kmod: %s" % (sorted(events - listed), sorted(listed - events)))

# 3. the quick start's --size against the default max_host_bytes
m = re.search(r"hixl_max_host_bytes\s*=\s*(\d+)UL\s*<<\s*(\d+);", read("kmod/param.c"))
limit = int(m.group(1)) << int(m.group(2)) if m else 0
sizes = re.findall(r"hixlctl check --size (\d+)([KMGT]?)\b", readme)
units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
bad = [v + u for v, u in sizes if int(v) * units[u] > limit]
result(limit and sizes and not bad,
       "quick start: hixlctl check --size %s within the default max_host_bytes (%d GiB)"
       % (",".join(v + u for v, u in sizes), limit >> 30),
       "no default found in kmod/param.c" if not limit else
       "no hixlctl check --size in README" if not sizes else "over the limit: %s" % bad)

# 4. the benchmark block
p = subprocess.run([sys.executable, os.path.join(REPO, "bench", "readme-table.py"),
                    "--json", os.path.join(REPO, "bench", "results.json"),
                    "--check", os.path.join(REPO, "README.md")], capture_output=True, text=True)
result(p.returncode == 0, "benchmarks: README's block is bench/readme-table.py's of results.json",
       p.stdout + p.stderr)


# 5. links
def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    text = open(path).read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}


broken = []
for doc in ["README.md"] + sorted(os.path.relpath(p, REPO) for p in glob.glob(os.path.join(REPO, "docs", "*.md"))):
    text = re.sub(r"```.*?```", "", read(doc), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(REPO, os.path.dirname(doc), path)) if path else \
            os.path.join(REPO, doc)
        if not os.path.exists(full):
            broken.append("%s: %s (no such file)" % (doc, target))
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            broken.append("%s: %s (no such heading)" % (doc, target))
result(not broken, "links of README.md and docs/*.md resolve", "\n".join(broken))
