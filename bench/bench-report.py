#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn raw benchmark lines ("TOOL OP BLOCK TOTAL SECONDS") into a markdown
table of medians, spread and the hixl/peer ratio.  Usage:
  bench-report.py xfer RAW MACHINE KERNEL > bench/results-xfer.md"""
import statistics
import sys


def main():
    kind, raw, machine, kernel = sys.argv[1:5]
    runs = {}
    for line in open(raw):
        f = line.split()
        if len(f) != 5:
            continue
        tool, op, block, total, secs = f[0], f[1], int(f[2]), int(f[3]), float(f[4])
        runs.setdefault((op, block), {}).setdefault(tool, []).append(total / secs / 2**20)
    print("# Transfers: hixl vs perftest\n")
    print(f"Machine {machine}, Debian kernel {kernel} (no debug options), QEMU/TCG, "
          "Soft-RoCE rxe0 loopback on a veth with MTU 9000 (`make bench-xfer`). "
          "hixl: one HIXL_IOC_TRANSFER of 256 descriptors of 1 MiB between two engines "
          "of one process; perftest: ib_write_bw / ib_read_bw over RDMA CM, 256 messages "
          "of 1 MiB; runs interleaved in one VM boot. Throughput in MiB/s, median "
          "(min..max) over the repetitions; ratio = hixl median / perftest median. "
          "Under TCG only the ratio means anything.\n")
    print("| op | block | hixl MiB/s | perftest MiB/s | ratio | runs |")
    print("|---|---|---|---|---|---|")
    for (op, block), tools in sorted(runs.items()):
        h, p = tools.get("hixl", []), tools.get("perftest", [])
        if not h or not p:
            continue
        hm, pm = statistics.median(h), statistics.median(p)
        print(f"| {op.upper()} | {block >> 10} KiB | {hm:.1f} ({min(h):.1f}..{max(h):.1f}) | "
              f"{pm:.1f} ({min(p):.1f}..{max(p):.1f}) | {hm / pm:.2f} | {len(h)} |")


if __name__ == "__main__":
    main()
