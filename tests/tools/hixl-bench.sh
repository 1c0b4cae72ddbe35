#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hixl-bench.sh [HIXL_BENCH] - hixl-bench's command line on whatever machine
# this is (default tools/hixl-bench), no device needed: --help documents the
# exit statuses; every bad option exits 2 before anything runs, with a
# message on stderr and, with --json (before or after the bad option), one
# {"ok":false,"error":...,"errno":22} object on stdout; --server/--client
# usage errors likewise.  Without /dev/hixl (the build hosts) a run exits 77
# with the early-failure JSON naming the missing module.  Where hixl.ko is
# loaded, tests/user/test_tools.c covers the rest.  A garbled peer on the
# side socket: tests/tools/bench-peer.py drives the client against a fake
# server.  Exit status 0 and "hixl-bench: ok" when all is well.
set -u

cd "$(dirname "$0")/../.."
bench=${1:-tools/hixl-bench}
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT INT TERM
fail() { echo "hixl-bench: FAIL: $*" >&2; exit 1; }

"$bench" --help >"$out" || fail "--help"
for w in "exit status" "0 " "1 " "2 " "77" "skipped" "--json"; do
	grep -q -- "$w" "$out" || fail "--help does not mention '$w'"
done

# the early-failure object: exactly ok (false), error (non-empty), errno (N)
json_fail() {	# FILE ERRNO
	python3 - "$1" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, "not one line of JSON: %r" % lines
doc = json.loads(lines[0])
assert set(doc) == {"ok", "error", "errno"}, doc
assert doc["ok"] is False and doc["error"], doc
want = int(sys.argv[2])
assert want < 0 or doc["errno"] == want, "errno %r, not %d" % (doc["errno"], want)
PY
}

while read -r args; do
	# shellcheck disable=SC2086
	"$bench" $args >"$out" 2>"$err"
	rc=$?
	[ $rc = 2 ] || fail "hixl-bench $args: exit status $rc, not 2"
	[ -s "$err" ] || fail "hixl-bench $args: no message on stderr"
	[ -s "$out" ] && fail "hixl-bench $args: stdout without --json: $(cat "$out")"
	# shellcheck disable=SC2086
	"$bench" --json $args >"$out" 2>"$err"
	[ $? = 2 ] || fail "hixl-bench --json $args: exit status not 2"
	json_fail "$out" 22 || fail "hixl-bench --json $args: $(cat "$out")"
	# shellcheck disable=SC2086
	"$bench" $args --json >"$out" 2>"$err"
	[ $? = 2 ] || fail "hixl-bench $args --json: exit status not 2"
	json_fail "$out" 22 || fail "hixl-bench $args --json: $(cat "$out")"
done <<'ARGS'
--pool 3
--pool 3:0
--pool 257:1
--pool x:y
--bogus
--layers 0
--layers -1
--layers 12x
--tokens 100
--procs 0
--procs 3
--mode sideways
--inflight 1025
--timeout-ms 0
--local nope
--remote 10.77.0.1
--local 10.77.0.1:18100 --remote 10.77.0.1:18100
--tokens 2097152 --block-tokens 1
stray
--server --client 10.77.0.1
--client 10.77.0.1:0
--client 10.77.0.1:99999
--client [fd77::1
--server --port 0
--server --port 70000
--server --remote 10.77.0.1:18101
--client 10.77.0.1 --procs 1
--server --local 10.77.0.1
--port 18300
ARGS

if [ ! -e /dev/hixl ]; then
	# no module: a run is skipped (77), and says why (ENOPKG, 65), in JSON too
	for args in "" "--procs 1" "--server --local 10.77.0.1:18100"; do
		# shellcheck disable=SC2086
		"$bench" --json $args >"$out" 2>"$err"
		rc=$?
		[ $rc = 77 ] || fail "hixl-bench --json $args without /dev/hixl: exit status $rc, not 77"
		json_fail "$out" 65 || fail "hixl-bench --json $args: $(cat "$out")"
		grep -q "modprobe hixl" "$out" || fail "hixl-bench --json $args: no hint: $(cat "$out")"
		grep -q "modprobe hixl" "$err" || fail "hixl-bench $args: no hint on stderr"
	done
fi
# a hostile server on the side socket: the client fails cleanly, every time
python3 tests/tools/bench-peer.py "$bench" >"$out" 2>&1 || fail "a garbled server: $(cat "$out")"
echo "hixl-bench: ok"
