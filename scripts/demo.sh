#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: move a KV cache (32 layers x K,V, 2048 tokens, 8 KV heads x 128,
# bf16, 16-token blocks: 256 MiB, scattered block tables) between two hixl
# engines with tools/hixl-bench, in one VM on Debian's stock 6.12 kernel,
# and print its summary: first over RDMA (Soft-RoCE, --transport rdma), then
# the same-host kernel copy two engines of one host use by default
# (--transport local).  Extra arguments go to both runs of hixl-bench (e.g.
# --iters 1).  Exit status: 0 when every transfer of both was done and
# verified, else the failing run's hixl-bench exit status.
set -euo pipefail
cd "$(dirname "$0")/.."

# scripts/deps.sh is idempotent (no network when everything is there); it needs
# root, so without root only check that the essentials are present
if [ "$(id -u)" -eq 0 ]; then
	scripts/deps.sh
elif ! command -v qemu-system-x86_64 >/dev/null ||
     ! ls /boot | grep -q '^vmlinuz-6\.12\..*-amd64$' ||
     ! ls -d /lib/modules/6.12.*-amd64/build >/dev/null 2>&1; then
	echo "demo: dependencies missing and scripts/deps.sh needs root: run 'sudo make deps'" >&2
	exit 1
fi
kver=$(ls /boot | sed -n 's/^vmlinuz-\(6\.12\.[0-9][0-9.+a-z-]*-amd64\)$/\1/p' | sort -V | tail -1)
[ -n "$kver" ] || { echo "demo: no Debian 6.12 kernel in /boot: make deps" >&2; exit 1; }

echo "demo: building the library, tools and tests"
make -s lib tools tests
echo "demo: building hixl.ko against $kver"
scripts/build-module.sh "/lib/modules/$kver/build" build/compat-6.12

echo "demo: booting $kver under QEMU (TCG) and running tools/hixl-bench $*," \
     "over RDMA, then over the same-host kernel copy"
set +e
tests/vm/run.sh --kernel 6.12 --module build/compat-6.12/kmod/hixl.ko --name demo -- \
	sh -c 'for t in rdma local; do echo "== hixl-bench --transport $t"; tools/hixl-bench --no-progress --transport $t "$@" || exit; done' demo "$@"
rc=$?
set -e
if [ $rc -eq 0 ]; then
	echo "demo: OK: the KV cache arrived intact in both modes, over RDMA and over the" \
	     "same-host copy (figures under TCG emulation compare only within one run)"
else
	echo "demo: FAILED (exit status $rc); guest log: build/vm/demo/console.log" >&2
fi
exit $rc
