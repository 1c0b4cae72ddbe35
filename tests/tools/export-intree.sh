#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export-intree.sh [KDIR] - TAP: scripts/export-intree.sh gives a kernel
# tree what kmod/ and tests/kunit/ are in drivers/infiniband/ulp/hixl/:
#   1. into a skeleton kernel tree (drivers/infiniband/Kconfig ending in
#      `endif # INFINIBAND`, ulp/Makefile): hixl's Kconfig sourced and
#      ulp/hixl/ reached exactly once, also after a second run;
#   2. every object the two Kbuild files name has its source there, and
#      every source there is named (nothing of kmod/ or tests/kunit/ left
#      out, nothing stray), the uapi headers in include/uapi/rdma/;
#   3. with KDIR, a kernel build tree with CONFIG_KUNIT (make check gives
#      the debug kernel's), that layout built as the kernel would (W=1,
#      in-tree Kbuild, the ABI header from include/uapi/): hixl.ko and
#      tests/hixl_kunit.ko, no warning.  SKIP without such a KDIR.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
kdir=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
echo "1..3"

# 1. the Kconfig and Makefile lines, once
k=$tmp/linux
mkdir -p "$k/drivers/infiniband/ulp"
printf 'menuconfig INFINIBAND\n\ttristate "InfiniBand support"\nif INFINIBAND\nsource "drivers/infiniband/ulp/ipoib/Kconfig"\n\nendif # INFINIBAND\n' \
	> "$k/drivers/infiniband/Kconfig"
printf 'obj-$(CONFIG_INFINIBAND_IPOIB)\t\t+= ipoib/\n' > "$k/drivers/infiniband/ulp/Makefile"
if "$repo/scripts/export-intree.sh" "$k" > "$tmp/log" 2>&1 &&
   "$repo/scripts/export-intree.sh" "$k" >> "$tmp/log" 2>&1 &&
   [ "$(grep -cxF 'source "drivers/infiniband/ulp/hixl/Kconfig"' "$k/drivers/infiniband/Kconfig")" = 1 ] &&
   [ "$(grep -c '^obj-$(CONFIG_INFINIBAND_HIXL)[[:space:]]*+= hixl/$' "$k/drivers/infiniband/ulp/Makefile")" = 1 ] &&
   # the source line inside the if, before its endif
   [ "$(sed -n '/ulp\/hixl\/Kconfig/,$p' "$k/drivers/infiniband/Kconfig" | tail -1)" = 'endif # INFINIBAND' ]; then
	ok "Kconfig sourced and ulp/hixl/ reached, once after two runs"
else
	cat "$tmp/log" "$k/drivers/infiniband/Kconfig" "$k/drivers/infiniband/ulp/Makefile" | sed 's/^/# /'
	nok "Kconfig sourced and ulp/hixl/ reached, once after two runs"
fi

# 2. the objects the Kbuild files name against the sources that are there
drv=$k/drivers/infiniband/ulp/hixl
objs() {	# KBUILD VAR: the objects of VAR := and VAR += ..., continuation lines too
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" | sed -n "s/^$2[[:space:]]*[:+]=//p" | tr ' \t' '\n\n' | grep '\.o$' | sed 's/\.o$/.c/' | sort
}
named=$( { objs "$drv/Kbuild" hixl-y; objs "$drv/tests/Kbuild" hixl_kunit-y | sed 's|^|tests/|'; } | sort)
there=$(cd "$drv" && { ls *.c; ls tests/*.c; } | sort)
want=$( { cd "$repo/kmod" && ls *.c | grep -v '\.mod\.c$'; cd "$repo/tests/kunit" && ls *.c | sed 's|^|tests/|'; } | sort)
if [ -n "$named" ] && [ "$named" = "$there" ] && [ "$there" = "$want" ] &&
   [ -f "$drv/Kconfig" ] && [ -f "$drv/tests/.kunitconfig" ] && [ -f "$k/include/uapi/rdma/hixl.h" ] && [ -f "$k/include/uapi/rdma/hixl_layout.h" ]; then
	ok "every object named has its source, every source is named ($(echo "$there" | wc -l) files)"
else
	diff <(echo "$named") <(echo "$there") | sed 's/^/# named vs there: /'
	diff <(echo "$there") <(echo "$want") | sed 's/^/# there vs the repo: /'
	nok "every object named has its source, every source is named"
fi

# 3. the layout built against a KUnit kernel
if [ -z "$kdir" ] || ! grep -qx 'CONFIG_KUNIT=y' "$kdir/.config" 2>/dev/null; then
	echo "ok 3 - in-tree layout built # SKIP no kernel build tree with CONFIG_KUNIT given (make check passes the debug kernel's)"
	exit 0
fi
# as an external module of that tree: the Kconfig symbols on the command
# line (no .config of that kernel has them), the ABI header from the
# exported include/uapi/ (after the kernel's own, as KCFLAGS come)
if make -C "$kdir" M="$drv" -j"$(nproc)" CONFIG_INFINIBAND_HIXL=m CONFIG_INFINIBAND_HIXL_KUNIT_TEST=m \
	KCFLAGS="-I$k/include/uapi" W=1 modules > "$tmp/build.log" 2>&1 &&
   ! grep -qE 'warning:|error:' "$tmp/build.log" &&
   [ -f "$drv/hixl.ko" ] && [ -f "$drv/tests/hixl_kunit.ko" ]; then
	ok "in-tree layout built W=1 against $kdir: hixl.ko, tests/hixl_kunit.ko"
else
	grep -E 'warning:|error:|Error' "$tmp/build.log" | head -20 | sed 's/^/# /'
	nok "in-tree layout built W=1 against $kdir"
fi
