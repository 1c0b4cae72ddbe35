#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Moved to tests/vm/build-kernel.sh with the rest of the VM harness.  This
# wrapper keeps command lines that name the old path working.
# The kernel cache key hashes tests/vm/debug.config and the text of
# tests/vm/build-kernel.sh, which moved byte for byte, so the key (and the
# cached kernel) did not change; editing either, comments included,
# builds a new kernel (10-40 min).
exec "$(dirname "$0")/../../tests/vm/build-kernel.sh" "$@"
