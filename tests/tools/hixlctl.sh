#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hixlctl.sh [HIXLCTL [HIXL_BENCH]] - check the tools' command lines on
# whatever machine this is (default tools/hixlctl, tools/hixl-bench):
# --version and --help, usage errors, and `hixlctl check` in both forms:
# the JSON parses (python3) and is well-formed (every check PASS, WARN or
# FAIL, a fix for every WARN and FAIL, "ok" false exactly when one FAILs),
# the exit status is 1 exactly when something FAILs, and the text form has
# the same lines.  Without hixl.ko loaded (the build hosts), the module
# check must FAIL with a fix naming modprobe hixl or make install-module.
# The good setup is tests/user/test_tools.c's, in the test VM.
# Exit status 0 and "hixlctl: ok" when all is well.
set -u

cd "$(dirname "$0")/../.."
ctl=${1:-tools/hixlctl}
bench=${2:-tools/hixl-bench}
# the version is <hixl/hixl.h>'s HIXL_VERSION_*
version=$(for f in MAJOR MINOR PATCH; do
	sed -n "s/^#define HIXL_VERSION_$f[[:space:]]*\([0-9]*\)\$/\1/p" lib/include/hixl/hixl.h
done | paste -sd.)
out=$(mktemp)
trap 'rm -f "$out"' EXIT INT TERM
fail() { echo "hixlctl: FAIL: $*" >&2; exit 1; }

[ "$("$ctl" --version)" = "hixlctl (hixl) $version" ] || fail "hixlctl --version"
[ "$("$bench" --version)" = "hixl-bench (hixl) $version" ] || fail "hixl-bench --version"
"$ctl" --help >"$out" || fail "hixlctl --help"
for w in check info engines regions links stats --size --json --prometheus --ids --help --version; do
	grep -q -- "$w" "$out" || fail "hixlctl --help does not mention $w"
done
"$bench" --help >"$out" || fail "hixl-bench --help"
for w in --layers --kv-heads --head-dim --dtype-bytes --block-tokens --tokens --mode \
	 --iters --inflight --timeout-ms --seed --procs --local --remote --pool --json \
	 --no-progress --help --version --server --client --port --connect-wait; do
	grep -q -- "$w" "$out" || fail "hixl-bench --help does not mention $w"
done
for args in "" "bogus" "check --bogus" "check --size" "check --size 0" "check --size 12Q" \
	    "info --bogus" "stats --bogus" "stats --json --prometheus" "stats --ids" \
	    "stats --json --ids"; do
	# shellcheck disable=SC2086
	"$ctl" $args >/dev/null 2>&1
	[ $? = 2 ] || fail "hixlctl $args: exit status is not 2"
done
if [ ! -e /dev/hixl ]; then
	"$ctl" stats >/dev/null 2>&1
	[ $? = 1 ] || fail "hixlctl stats without /dev/hixl: exit status is not 1"
fi

"$ctl" check --json --size 1G >"$out"
rc=$?
python3 - "$out" "$rc" <<'PY' || fail "hixlctl check --json (above)"
import json, os, sys
doc = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
assert set(doc) == {"ok", "checks"}, doc.keys()
assert isinstance(doc["ok"], bool)
names = [c["name"] for c in doc["checks"]]
for want in ("module", "device", "access", "abi", "limits", "memlock", "hugepages", "thp",
             "io_uring", "uring_cmd", "auth"):
    assert want in names, "no check " + want
assert any(n == "rdma" or n.startswith("rdma:") for n in names), "no rdma check"
assert len(names) == len(set(names)), "a check twice"
for c in doc["checks"]:
    assert set(c) == {"name", "status", "detail", "fix"}, c
    assert c["status"] in ("PASS", "WARN", "FAIL"), c
    assert c["detail"], c
    assert (c["status"] == "PASS") == (c["fix"] == ""), c
fails = [c for c in doc["checks"] if c["status"] == "FAIL"]
assert doc["ok"] == (not fails), doc["ok"]
assert rc == (1 if fails else 0), "exit status %d" % rc
mod = doc["checks"][names.index("module")]
if not os.path.exists("/sys/module/hixl"):
    assert mod["status"] == "FAIL", mod
    assert "modprobe hixl" in mod["fix"] or "make install-module" in mod["fix"], mod
    assert doc["checks"][names.index("device")]["status"] == "FAIL"
else:
    assert mod["status"] == "PASS", mod
print("hixlctl: check --json: %d checks, %d FAIL, exit status %d" % (len(names), len(fails), rc))
PY
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["checks"]))' "$out")
"$ctl" check --size 1G >"$out"
[ $? = "$rc" ] || fail "hixlctl check: another exit status than with --json"
[ "$(grep -Ec '^(PASS|WARN|FAIL)  ' "$out")" = "$n" ] && [ "$(wc -l <"$out")" = "$n" ] ||
	fail "hixlctl check: not one PASS/WARN/FAIL line per check: $(cat "$out")"
echo "hixlctl: ok"
