#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Put hixl into a kernel source tree as an in-tree driver:
#
#	kmod/                  -> drivers/infiniband/ulp/hixl/
#	tests/kunit/           -> drivers/infiniband/ulp/hixl/tests/
#	uapi/rdma/*.h          -> include/uapi/rdma/ (the ABI header hixl.h and
#	                          its layout check hixl_layout.h, which
#	                          kmod/main.c includes too)
#
# Usage: scripts/export-intree.sh DIR
#
# DIR is a kernel source tree or any directory (a new one is made).  When
# DIR/drivers/infiniband/Kconfig exists, the `source` line of hixl's
# Kconfig goes in before its `endif # INFINIBAND`, and
# `obj-$(CONFIG_INFINIBAND_HIXL) += hixl/` into
# drivers/infiniband/ulp/Makefile; both only once, so running it again
# refreshes the files.  Then `make menuconfig` offers INFINIBAND_HIXL and
# `tools/testing/kunit/kunit.py run --kunitconfig=drivers/infiniband/ulp/hixl/tests`
# runs the KUnit suites.  Only sources are copied (no objects).  Exit
# status 1 with a message when DIR cannot be written or the tree's files
# do not have the expected shape.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
drv=$dir/drivers/infiniband/ulp/hixl

mkdir -p "$drv/tests" "$dir/include/uapi/rdma"
rm -f "$drv"/*.[ch] "$drv/tests"/*.[ch]
cp "$repo/kmod/Kconfig" "$repo/kmod/Kbuild" "$drv/"
find "$repo/kmod" -maxdepth 1 -name '*.[ch]' ! -name '*.mod.c' -exec cp {} "$drv/" \;
cp "$repo/tests/kunit/Kbuild" "$repo/tests/kunit/.kunitconfig" "$repo/tests/kunit/"*_kunit.c "$drv/tests/"
cp "$repo/uapi/rdma/"*.h "$dir/include/uapi/rdma/"

kconfig=$dir/drivers/infiniband/Kconfig
ulpmk=$dir/drivers/infiniband/ulp/Makefile
if [ -f "$kconfig" ]; then
	src='source "drivers/infiniband/ulp/hixl/Kconfig"'
	if ! grep -qxF "$src" "$kconfig"; then
		grep -qx 'endif # INFINIBAND' "$kconfig" ||
			{ echo "export-intree: no 'endif # INFINIBAND' line in $kconfig" >&2; exit 1; }
		sed -i "s|^endif # INFINIBAND\$|$src\\n\\nendif # INFINIBAND|" "$kconfig"
	fi
	[ -f "$ulpmk" ] || { echo "export-intree: $ulpmk missing" >&2; exit 1; }
	line='obj-$(CONFIG_INFINIBAND_HIXL)		+= hixl/'
	grep -qF 'obj-$(CONFIG_INFINIBAND_HIXL)' "$ulpmk" || echo "$line" >> "$ulpmk"
	echo "export-intree: hixl in $dir (Kconfig: INFINIBAND_HIXL, INFINIBAND_HIXL_KUNIT_TEST)"
else
	echo "export-intree: hixl's in-tree layout in $dir (not a kernel tree: no Kconfig or Makefile edited)"
fi
