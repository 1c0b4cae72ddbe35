#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Moved to tests/vm/run.sh with the rest of the VM harness.  This
# wrapper keeps command lines that name the old path working.
exec "$(dirname "$0")/../../tests/vm/run.sh" "$@"
