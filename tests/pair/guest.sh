#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guest.sh server MY_IP | client MY_IP PEER_IP - one VM's side of the two-VM
# run (tests/vm/run-pair.sh), as one TAP stream:
#
#   1. tests/pair/hixl-pair (engine port 16100): READ/WRITE between the two
#      kernels through the raw ioctls, verified on both sides
#   2. tools/hixl-bench --server (engine port 16101, side TCP port 16102) and
#      --client on a small model, both modes: the block table over the side
#      socket, the data verified by the client (read) and the server (write)
#   3. examples/exchange serve (engine port 16103, TCP port 16104) and
#      write: the address exchange of the example, verified by its owner
#   4. tests/pair/hixl-pair again on the second rail (rxe1, 10.78.1.x,
#      engine port 16106) when the VMs have one (HIXL_VM_PAIR_IP2)
#   5. tests/pair/hixl-pair rails-server / rails-client (engine port 16107)
#      when the VMs have a second NIC: engines on two rails each, READ and
#      WRITE striped across both, the server's second NIC taken down under
#      the client's WRITEs (failover), then up (the rail is made again)
#   7. (run before 6) build/nixl/hixl-nixl-test pair-server / pair-client
#      (NIXL's listener on port 16110) when the NIXL plugin is built: one
#      NIXL agent with the backend HIXL per VM, the client's scattered READ
#      and WRITE (with a notification) verified byte for byte on both sides;
#      a skip with the reason otherwise
#   8. (run before 6) tests/nixl/test_nixl_vllm.py --pair-prefill /
#      --pair-decode (TCP port 16112) when the NIXL plugin is built: NIXL's
#      Python nixl_agent in vLLM NixlConnector's call sequence, the prefill
#      side on the server VM, the decode side on the client VM, KV blocks in
#      numpy, checked byte for byte; a skip with the reason otherwise
#   6. tests/pair/hixl-pair silent-server / silent-client (engine port
#      16105): the server's engine restarts under the same name with its
#      region elsewhere, and the client's CONNECT replaces the broken link
#      and the stale table; then the server VM takes its NIC down (a pulled
#      cable: no CM event reaches the client) and the client's keep-alive
#      must fail the idle link with EHOSTDOWN within the bound
#
# The server VM runs each step's passive side and the client VM its active
# one, in the same order; each client step retries its connection while the
# server VM finishes the step before.  Every step's output is kept as TAP
# comments; exit status 0 when every check passed.
set -u
role=$1 me=$2 peer=${3:-}
n=0 fails=0
out=$(mktemp)
ok() {	# STATUS(0 = ok) DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}
comment() { sed 's/^/#   /' "$out"; }
renumber() {	# a program's TAP in $out, its checks numbered into this stream
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "${line#ok [0-9]* - }" ;;
		"not ok "*) ok 1 "${line#not ok [0-9]* - }" ;;
		"1.."* | "TAP version"*) ;;
		*) echo "$line" ;;
		esac
	done <"$out"
}
echo "TAP version 13"

# hixl-pair MODE (""/silent-) between MY_IP and PEER_IP, engine port PORT:
# its checks renumbered into this stream, then its exit status as a check
pair_step() {	# MODE MY_IP PEER_IP PORT DESCRIPTION
	if [ "$role" = server ]; then
		tests/pair/hixl-pair "$1server" "$2" "$4" 120 >"$out" 2>&1
	else
		tests/pair/hixl-pair "$1client" "$2" 0 "$3" "$4" >"$out" 2>&1
	fi
	rc=$?
	renumber
	ok "$rc" "$role: $5 exit status $rc"
}

# 1. hixl-pair: its checks, renumbered into this stream
pair_step "" "$me" "$peer" 16100 "hixl-pair"

# 2. hixl-bench on two hosts: a small model (TCG is slow), both modes
if [ "$role" = server ]; then
	timeout 180 tools/hixl-bench --server --local "$me:16101" --port 16102 --json >"$out" 2>&1
	rc=$?
	comment
	ok "$rc" "server: hixl-bench --server served the client, exit status $rc"
	python3 -c '
import json, sys
doc = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])
assert doc["role"] == "server" and doc["ok"] is True and doc["write_bad_blocks"] == 0, doc
' "$out" 2>/dev/null
	ok $? "server: the client's WRITE verified byte for byte on the server"
else
	timeout 180 tools/hixl-bench --client "$peer:16102" --local "$me" --connect-wait 120 \
		--layers 2 --tokens 256 --iters 2 --inflight 2 --json --no-progress >"$out" 2>&1
	rc=$?
	comment
	ok "$rc" "client: hixl-bench --client $peer:16102, exit status $rc"
	python3 -c '
import json, sys
doc = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])
res = {r["mode"]: r for r in doc["results"]}
assert doc["ok"] is True and set(res) == {"write", "read"}, doc
for r in res.values():
    assert r["ok"] and r["bad_blocks"] == 0 and r["bytes"] == 2 * doc["bytes_per_iter"], r
' "$out" 2>/dev/null
	ok $? "client: WRITE and READ across the VMs, each 2 x 2 MiB, verified"
fi

# 3. the address-exchange example
if [ "$role" = server ]; then
	timeout 120 examples/exchange serve "$me:16103" 16104 >"$out" 2>&1
	rc=$?
	comment
	ok "$rc" "server: examples/exchange serve verified what the other VM wrote"
else
	timeout 120 examples/exchange write "$me" "$peer" 16104 >"$out" 2>&1
	rc=$?
	comment
	ok "$rc" "client: examples/exchange write into the other VM's published buffer"
fi
# 4. hixl-pair between the second rails (rxe1 on the second NIC)
if [ -n "${HIXL_VM_PAIR_IP2:-}" ]; then
	me2=$HIXL_VM_PAIR_IP2 peer2=$(echo "$peer" | sed 's/^10\.77\./10.78./')
	pair_step "" "$me2" "$peer2" 16106 "hixl-pair on the second rail ($me2, rxe1)"
fi
# 5. two rails each: striping and failover across the VMs (pair-rails.c)
if [ -n "${HIXL_VM_PAIR_IP2:-}" ]; then
	if [ "$role" = server ]; then
		tests/pair/hixl-pair rails-server "$me" "$me2" 16107 180 >"$out" 2>&1
	else
		tests/pair/hixl-pair rails-client "$me" "$me2" 0 "$peer" 16107 >"$out" 2>&1
	fi
	rc=$?
	renumber
	ok "$rc" "$role: hixl-pair rails-$role exit status $rc"
fi
# 7. NIXL: one agent with the backend HIXL per VM, the server's metadata
# through NIXL's listener (port 16110), READ and WRITE verified (nixl-pair.cpp);
# before step 6, which takes the server's NIC down
if [ -x build/nixl/hixl-nixl-test ] && [ -r build/nixl/libplugin_HIXL.so ]; then
	if [ "$role" = server ]; then
		timeout 240 build/nixl/hixl-nixl-test pair-server "$me" 16110 >"$out" 2>&1
	else
		timeout 240 build/nixl/hixl-nixl-test pair-client "$me" "$peer" 16110 >"$out" 2>&1
	fi
	rc=$?
	renumber
	ok "$rc" "$role: hixl-nixl-test pair-$role (NIXL agents across the VMs) exit status $rc"
else
	n=$((n + 1))
	echo "ok $n # SKIP NIXL: the NIXL backend plugin is not built (make nixl NIXL_PREFIX=...)"
fi
# 8. NIXL's Python agent in vLLM's call sequence across the VMs (the
# decode side's checks renumbered; NIXL's log lines, on stderr, shown on a
# failure only)
if [ -x build/nixl/hixl-nixl-test ] && [ -r build/nixl/libplugin_HIXL.so ]; then
	err=$(mktemp)
	if [ "$role" = server ]; then
		timeout 300 /usr/bin/python3 -B tests/nixl/test_nixl_vllm.py --pair-prefill "$me" 16112 \
			>"$out" 2>"$err"
	else
		timeout 300 /usr/bin/python3 -B tests/nixl/test_nixl_vllm.py --pair-decode "$me" "$peer" \
			16112 >"$out" 2>"$err"
	fi
	rc=$?
	if [ "$rc" = 77 ]; then
		n=$((n + 1))
		echo "ok $n # SKIP NIXL Python: $(cat "$out" "$err" | sed -n 's/^1\.\.0 # SKIP //p; s/^test_nixl_vllm: //p' | head -1)"
	else
		renumber
		[ "$rc" = 0 ] || sed 's/^/#   /' "$err" | tail -30
		ok "$rc" "$role: test_nixl_vllm.py --pair-$([ "$role" = server ] && echo prefill || echo decode) (NIXL's Python agents across the VMs) exit status $rc"
	fi
	rm -f "$err"
else
	n=$((n + 1))
	echo "ok $n # SKIP NIXL Python: the NIXL backend plugin is not built (make nixl NIXL_PREFIX=...)"
fi
# 6. a silent peer that restarts (hixl-pair's checks, renumbered)
pair_step silent- "$me" "$peer" 16105 "hixl-pair silent-$role"
rm -f "$out"
echo "1..$n"
[ "$fails" = 0 ]
