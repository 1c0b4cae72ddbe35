#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Moved to scripts/build-module.sh: tools/ holds the installed tools only.  This
# wrapper keeps command lines that name the old path working.
exec "$(dirname "$0")/../scripts/build-module.sh" "$@"
