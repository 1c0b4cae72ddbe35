#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two VMs joined by a QEMU socket network backend on 127.0.0.1: the same
# transfer tests between two kernels.
#
# Usage: tests/vm/run-pair.sh [--kernel K] --module KO [--kernel-b K --module-b KO] [--secret S]
#                             [--name NAME]
#
# K is stock, 6.1, 6.12 or debug as for run.sh (default 6.12); VM B boots the
# same kernel as A unless --kernel-b/--module-b give another (say 6.1 against
# 6.12, to test two kernel versions against each other).
# Each VM has two NICs, two rails: rxe0 on 10.77.1.0/24, rxe1 on 10.78.1.0/24.
# VM "NAME-a" (10.77.1.1, 10.78.1.1; NAME is "pair" unless --name says
# otherwise) runs `tests/pair/guest.sh server`, VM "NAME-b" (10.77.1.2,
# 10.78.1.2) `tests/pair/guest.sh
# client`, one TAP stream each, three steps in order: tests/pair/hixl-pair
# (the client connects to A, reads what A registered, writes into it, reads
# it back, verifies every byte and tells A, which verifies too),
# `hixl-bench --server`/`--client` on a small model (block table over a side
# TCP socket, WRITE verified by A, READ by B), and examples/exchange (A
# publishes a buffer over TCP, B writes into it and notifies, A verifies).
# With --secret, hixl-pair's engines are set up with that engine secret
# (16..128 bytes), so the two kernels also run the HMAC challenge against
# each other.  Exit status 0 when both VMs pass.  Each VM's log and output
# are in build/vm/NAME-{a,b}/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel=6.12 module= kernel_b= module_b= secret= name=pair
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--kernel-b) kernel_b=$2; shift 2 ;;
	--module-b) module_b=$2; shift 2 ;;
	--secret) secret=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	*) echo "run-pair.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$module" ] || { echo "run-pair.sh: --module KO is required" >&2; exit 2; }
kernel_b=${kernel_b:-$kernel} module_b=${module_b:-$module}
# two free TCP ports on loopback for the QEMU socket backends: two NICs
# per VM, two rails (10.77.1.0/24 on rxe0, 10.78.1.0/24 on rxe1)
read -r port port2 < <(python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
export HIXL_VM_MEM=${HIXL_VM_MEM:-2G} HIXL_VM_HUGEPAGES_1G=0 HIXL_VM_TIMEOUT=${HIXL_VM_TIMEOUT:-600}
# Two VMs share the host's cores, so each runs its two vCPUs on one host
# thread.  With a thread per vCPU (four on a two-core host) QEMU 7.2 once
# ran stale code in the 6.12 guest while it booted: "Oops: int3" in
# sched_clock_cpu right after "sched_clock: Marking stable" (the static key's
# text_poke_bp), a crash of Debian's own kernel before hixl.ko was loaded
# (make pair-soak, run 5 of 30).  Single-threaded TCG runs one vCPU at a
# time, so code patched by one vCPU is never run stale by the other.
export HIXL_VM_TCG_THREAD=${HIXL_VM_TCG_THREAD:-single}

HIXL_VM_PAIR_IP=10.77.1.1 HIXL_VM_PAIR_IP2=10.78.1.1 \
HIXL_VM_NET="-netdev socket,id=n0,listen=127.0.0.1:$port -device virtio-net-pci,netdev=n0,host_mtu=9000,mac=52:54:00:77:01:01 -netdev socket,id=n1,listen=127.0.0.1:$port2 -device virtio-net-pci,netdev=n1,host_mtu=9000,mac=52:54:00:78:01:01" \
	"$here/run.sh" --kernel "$kernel" --module "$module" --name "$name-a" -- \
	env HIXL_PAIR_SECRET="$secret" tests/pair/guest.sh server 10.77.1.1 > "$here/../../build/vm/$name-a.out" 2>&1 &
a=$!
# the listening QEMU must be up before the connecting one starts; look with
# ss rather than connecting (the socket backend takes one connection only)
for _ in $(seq 120); do
	ss -ltn "sport = :$port" | grep -q LISTEN && ss -ltn "sport = :$port2" | grep -q LISTEN && break
	sleep 0.25
done
set +e
HIXL_VM_PAIR_IP=10.77.1.2 HIXL_VM_PAIR_IP2=10.78.1.2 \
HIXL_VM_NET="-netdev socket,id=n0,connect=127.0.0.1:$port -device virtio-net-pci,netdev=n0,host_mtu=9000,mac=52:54:00:77:01:02 -netdev socket,id=n1,connect=127.0.0.1:$port2 -device virtio-net-pci,netdev=n1,host_mtu=9000,mac=52:54:00:78:01:02" \
	"$here/run.sh" --kernel "$kernel_b" --module "$module_b" --name "$name-b" -- \
	env HIXL_PAIR_SECRET="$secret" tests/pair/guest.sh client 10.77.1.2 10.77.1.1
rb=$?
wait $a
ra=$?
set -e
echo "--- $name-a (server) ---"
cat "$here/../../build/vm/$name-a.out"
echo "run-pair.sh: server ($kernel) exit $ra, client ($kernel_b) exit $rb"
[ "$ra" = 0 ] && [ "$rb" = 0 ]
