#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (tests/vm/run.sh): the KUnit suites, when a
# hixl_kunit.ko is given, then the user test runner.
#
# Usage: guest-tests.sh [HIXL_KUNIT_KO]
# Writes $HIXL_WORK/kunit/<suite>.ktap (one KTAP document per suite, from
# /sys/kernel/debug/kunit/<suite>/results), $HIXL_WORK/user.tap (the C
# library and the module), $HIXL_WORK/cpp.tap (the C++ API) and
# $HIXL_WORK/python.tap (the Python package).
set -u
rc=0
if [ -n "${1:-}" ]; then
	mkdir -p "$HIXL_WORK/kunit"
	# the suites run while the module loads (kunit_module_notify)
	insmod "$1" || { echo "guest-tests: insmod $1 failed"; rc=1; }
	for d in /sys/kernel/debug/kunit/hixl_*; do
		[ -r "$d/results" ] && cat "$d/results" > "$HIXL_WORK/kunit/${d##*/}.ktap"
	done
	rmmod hixl_kunit || { echo "guest-tests: rmmod hixl_kunit failed"; rc=1; }
fi
tests/user/hixl-test > "$HIXL_WORK/user.tap" 2>&1 || rc=1
cat "$HIXL_WORK/user.tap"
# the C++ API (hixl.hpp): every method, and HIXL's sample flow (its last test)
tests/cpp/hixl-cpp-test > "$HIXL_WORK/cpp.tap" 2>&1 || rc=1
cat "$HIXL_WORK/cpp.tap"
# the Python package: pytest writes $HIXL_WORK/python.tap (tests/python/conftest.py);
# the repo is read-only in the guest: no bytecode, no cache.  Importing torch
# takes about a minute under TCG: its tests run in the stock 6.12 VM only
case "$(uname -r)" in
6.12.*+deb12-amd64) ;;
*) export HIXL_TEST_TORCH="${HIXL_TEST_TORCH:-0}" ;;
esac
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python \
	> "$HIXL_WORK/python.log" 2>&1 || rc=1
tail -5 "$HIXL_WORK/python.log"
exit $rc
