#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the debug test VM (tests/vm/run.sh): both fuzzers, one after
# the other; each one's output in $HIXL_WORK/fuzz.log and fuzz-wire.log,
# its exit status in fuzz.rc and fuzz-wire.rc (scripts/check.sh reads
# them: fuzz_both_verdicts).  Exit status 0: the verdicts are in those
# files, not here.
#
# Usage: guest-both.sh CALLS SEED CASES WIRE_SEED SECONDS
tests/fuzz/hixl-fuzz --calls "$1" --seed "$2" > "$HIXL_WORK/fuzz.log" 2>&1
echo $? > "$HIXL_WORK/fuzz.rc"
tests/fuzz/hixl-wire-fuzz --cases "$3" --seed "$4" --time "$5" > "$HIXL_WORK/fuzz-wire.log" 2>&1
echo $? > "$HIXL_WORK/fuzz-wire.rc"
