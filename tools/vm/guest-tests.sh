#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Moved to tests/vm/guest-tests.sh with the rest of the VM harness.  This
# wrapper keeps command lines that name the old path working.
# It runs in the guest too (run.sh's CMD, from the repo root).
exec "$(dirname "$0")/../../tests/vm/guest-tests.sh" "$@"
