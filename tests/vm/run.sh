#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a test VM under QEMU, load rdma_rxe (rxe0 on a veth, 10.77.0.1 and
# fd77::1, MTU 9000; a second rail rxe1 on another veth, 10.78.0.1 and
# fd78::1) and a hixl.ko built for that kernel, run one command, return its
# exit status.
#
# Usage: tests/vm/run.sh --kernel debug|stock [--module KO] [--name NAME] -- CMD...
#
#   --kernel debug  the KUnit/KASAN/lockdep/kmemleak kernel of tests/vm/build-kernel.sh
#   --kernel stock  Debian's linux-image-amd64 (6.1), from /boot
#   --kernel 6.12   Debian's 6.12 linux-image, from /boot
#   --module KO     hixl.ko built against that kernel (insmod'ed before CMD)
#   --name NAME     work folder build/vm/NAME (default: the kernel name)
#
# CMD runs as root in the guest, in the repo, chrooted into the host's root
# (read-only over 9p; /tmp, /run, /var/tmp are tmpfs).  $HIXL_WORK is a
# writable folder shared with the host (build/vm/NAME): put result files there.
# Exit status: CMD's, or 1 when the guest log shows a BUG, WARNING, KASAN,
# lockdep, kmemleak or oops report, when hixl.ko cannot be unloaded after CMD,
# or when the guest does not finish within HIXL_VM_TIMEOUT seconds (default
# 1800).  HIXL_VM_CMDLINE adds kernel parameters, HIXL_VM_HUGEPAGES_2M sets
# the 2 MiB huge pages reserved at boot (64), HIXL_VM_HUGEPAGES_1G the 1 GiB
# ones (1).  HIXL_VM_NET replaces "-net none" with QEMU network options and
# HIXL_VM_PAIR_IP puts rxe0 with this address on the NIC whose MAC starts
# 52:54:00:77:, HIXL_VM_PAIR_IP2 rxe1 on the one of 52:54:00:78: (run-pair.sh).
# HIXL_VM_TCG_THREAD=single runs all vCPUs on one host thread (default multi).
# HIXL_VM_SMP is QEMU's -smp (2 vCPUs; for the debug kernel as two sockets:
# booted with acpi=off it finds its CPUs in SeaBIOS's MP table, which lists
# one CPU per package, so two cores of one socket would give it one CPU).
# A guest kernel that crashes while booting, before the command starts, is
# booted again (twice at most; not in pair mode).  HIXL_VM_ACCEL=kvm uses
# KVM (it hangs on the build machines; TCG is the default), HIXL_TEST_LONG=1
# runs the user tests' long cases everywhere (make check-long), HIXL_TEST_TIMEOUT
# bounds each user test in seconds (600, tests/user/main.c), HIXL_VM_MEM sets
# the memory (default 6G: the command line reserves one 1 GiB and 64 2 MiB
# huge pages for the tests).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

kernel=debug module= name=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--module) module=$(realpath "$2"); shift 2 ;;
	--name) name=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "run.sh: no command given" >&2; exit 2; }
name=${name:-$kernel}

stock_kver() {	# the newest installed Debian kernel of a series
	ls /boot | sed -n "s/^vmlinuz-\($1\.[0-9.+-]*[a-z0-9]*-amd64\)$/\1/p" | sort -V | tail -1
}
case "$kernel" in
debug)
	kdir=$("$here/build-kernel.sh")
	bzimage=$kdir/arch/x86/boot/bzImage
	kver=
	append="acpi=off"	# KASAN under TCG: ACPI's AML loop times out (DESIGN.md)
	smp=2,sockets=2,cores=1	# the MP table lists one CPU per socket
	;;
stock|6.1|6.12)
	series=$kernel; [ "$series" = stock ] && series=6.1
	kver=$(stock_kver "$series")
	[ -n "$kver" ] || { echo "run.sh: no Debian $series kernel in /boot: run 'make deps'" >&2; exit 1; }
	bzimage=/boot/vmlinuz-$kver
	append=""
	smp=2
	;;
*) echo "run.sh: unknown kernel $kernel" >&2; exit 2 ;;
esac

work=$repo/build/vm/$name
rm -rf "$work"
mkdir -p "$work/initramfs/modules"

# --- initramfs: static busybox, /init, and (stock kernels) virtio + 9p modules
ird=$work/initramfs
mkdir -p "$ird/bin"
cp /bin/busybox "$ird/bin/busybox"
cp "$here/init.sh" "$ird/init"
chmod +x "$ird/init"
if [ -n "$kver" ]; then
	for m in virtio_pci 9pnet_virtio 9p; do
		modprobe --show-depends -S "$kver" "$m" | awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r ko; do
		cp "$ko" "$ird/modules/"
		basename "$ko" >> "$ird/modules.list"
	done
fi
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"

# --- the guest's script: network, rxe0, hixl.ko, CMD, unload, kmemleak ------
cat > "$work/guest.env" <<ENV
HIXL_REPO='$repo'
HIXL_WORK='$work'
ENV
{
	cat <<'HDR'
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8
HDR
	echo "export HIXL_WORK='$work' HIXL_REPO='$repo' HIXL_VM_PAIR_IP='${HIXL_VM_PAIR_IP:-}' HIXL_VM_PAIR_IP2='${HIXL_VM_PAIR_IP2:-}' HIXL_TEST_TIMEOUT='${HIXL_TEST_TIMEOUT:-600}' HIXL_TEST_LONG='${HIXL_TEST_LONG:-}'"
	cat <<'SETUP'
fail() { echo "guest: $*"; exit 1; }
cd "$HIXL_REPO"
echo "guest: kernel $(uname -r)"
if [ -d "/lib/modules/$(uname -r)" ]; then
	# stock kernels: veth and rxe are modules, and a chroot does not redirect
	# the kernel's own module autoload, so load them (and rxe's crc32
	# provider, DESIGN.md) by hand
	for m in veth crc32_generic rdma_rxe ib_uverbs rdma_cm rdma_ucm; do modprobe "$m" || fail "modprobe $m"; done
fi
ip link set lo up
if [ -n "${HIXL_VM_PAIR_IP:-}" ]; then
	# pair mode: rxe0 on the virtio NIC that joins the two VMs (MAC
	# 52:54:00:77:..), rxe1 on the second one (52:54:00:78:..) when
	# HIXL_VM_PAIR_IP2 gives it an address
	[ -d /sys/module/virtio_net ] || modprobe virtio_net || fail "modprobe virtio_net"
	nic_by_mac() {
		for n in /sys/class/net/*; do
			case "$(cat "$n/address")" in "$1"*) basename "$n"; return 0 ;; esac
		done
		return 1
	}
	nic=$(nic_by_mac 52:54:00:77:) || fail "no NIC with MAC 52:54:00:77:*"
	ip link set "$nic" mtu 9000 || fail "mtu on $nic"
	ip addr add "$HIXL_VM_PAIR_IP/24" dev "$nic"
	ip link set "$nic" up
	rdma link add rxe0 type rxe netdev "$nic" || fail "rdma link add rxe0"
	if [ -n "${HIXL_VM_PAIR_IP2:-}" ]; then
		nic=$(nic_by_mac 52:54:00:78:) || fail "no NIC with MAC 52:54:00:78:*"
		ip link set "$nic" mtu 9000 || fail "mtu on $nic"
		ip addr add "$HIXL_VM_PAIR_IP2/24" dev "$nic"
		ip link set "$nic" up
		rdma link add rxe1 type rxe netdev "$nic" || fail "rdma link add rxe1"
	fi
else
	ip link add veth0 mtu 9000 type veth peer name veth1 mtu 9000 || fail "veth"
	ip addr add 10.77.0.1/24 dev veth0
	ip addr add fd77::1/64 dev veth0 nodad
	ip link set veth0 up && ip link set veth1 up
	rdma link add rxe0 type rxe netdev veth0 || fail "rdma link add rxe0"
	# a second rail (several NICs per server): rxe1 on its own
	# veth pair and subnet
	ip link add veth2 mtu 9000 type veth peer name veth3 mtu 9000 || fail "veth2"
	ip addr add 10.78.0.1/24 dev veth2
	ip addr add fd78::1/64 dev veth2 nodad
	ip link set veth2 up && ip link set veth3 up
	rdma link add rxe1 type rxe netdev veth2 || fail "rdma link add rxe1"
fi
if [ -w /sys/kernel/debug/kmemleak ]; then echo clear > /sys/kernel/debug/kmemleak; fi
SETUP
	if [ -n "$module" ]; then
		echo "insmod '$module' || fail 'insmod hixl.ko'"
		echo "[ -c /dev/hixl ] || fail '/dev/hixl missing'"
	fi
	echo "( $(printf '%q ' "$@") )"
	echo 'rc=$?'
	if [ -n "$module" ]; then
		echo 'rmmod hixl || { echo "guest: hixl.ko cannot be unloaded after the command"; rc=1; }'
	fi
	cat <<'LEAKS'
if [ -w /sys/kernel/debug/kmemleak ]; then
	# kmemleak reports objects older than 5 s, found unreferenced in two scans
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > "$HIXL_WORK/kmemleak"
	if [ -s "$HIXL_WORK/kmemleak" ]; then
		echo "guest: kmemleak found leaks:"; cat "$HIXL_WORK/kmemleak"
		cat "$HIXL_WORK/kmemleak" > /dev/kmsg
		rc=1
	fi
fi
exit $rc
LEAKS
} > "$work/guest.sh"

# --- boot -------------------------------------------------------------------
# Multi-threaded TCG (one host thread per vCPU) unless HIXL_VM_TCG_THREAD=single
# (one thread for all vCPUs; run-pair.sh, see there).
accel="-accel tcg,thread=${HIXL_VM_TCG_THREAD:-multi} -cpu max"
[ "${HIXL_VM_ACCEL:-tcg}" = kvm ] && accel="-enable-kvm -cpu host"
log=$work/console.log

# A boot crash: the guest kernel died before init started the command, so
# nothing of the test (hixl.ko included) had run.  Seen with Debian's own
# 6.12 kernel under multi-threaded TCG on a busy host: an int3 trap from a
# static key's text patching (text_poke_bp) taken on the other vCPU after
# the patch was done ("Oops: int3" in sched_clock_cpu right after
# "sched_clock: Marking stable"), i.e. QEMU 7.2 ran stale translated code.
# Such a boot is retried (at most twice, said on stderr); any report once
# init has started the command fails the run as always.
boot_crashed() {
	[ ! -f "$work/rc" ] && ! grep -q '^init: running' "$log" &&
		grep -E -q 'Oops|Kernel panic|BUG:|general protection fault' "$log"
}

for attempt in 1 2 3; do
	rm -f "$work/rc" "$work/output"
	echo "run.sh: booting $kernel kernel ($bzimage), log $log" >&2
	start=$(date +%s)
	set +e
	# shellcheck disable=SC2086
	timeout --foreground -k 10 "${HIXL_VM_TIMEOUT:-1800}" \
	qemu-system-x86_64 $accel -smp "${HIXL_VM_SMP:-$smp}" -m "${HIXL_VM_MEM:-6G}" \
		-kernel "$bzimage" -initrd "$work/initrd.gz" \
		-append "console=ttyS0 panic=-1 oops=panic hugepagesz=1G hugepages=${HIXL_VM_HUGEPAGES_1G:-1} hugepagesz=2M hugepages=${HIXL_VM_HUGEPAGES_2M:-64} $append ${HIXL_VM_CMDLINE:-}" \
		-display none -monitor none -serial "file:$log" -no-reboot ${HIXL_VM_NET:--net none} \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$work,mount_tag=work,security_model=none" \
		</dev/null
	qrc=$?
	set -e
	echo "run.sh: guest ran $(( $(date +%s) - start )) s" >&2
	# in pair mode the other VM's network hangs on this QEMU: no retry
	if [ "$attempt" -lt 3 ] && [ -z "${HIXL_VM_PAIR_IP:-}" ] && boot_crashed; then
		mv "$log" "$log.boot-crash-$attempt"
		echo "run.sh: the guest kernel crashed while booting, before the command started" \
			"(kept as $log.boot-crash-$attempt):" >&2
		grep -E -m 3 'Oops|Kernel panic|BUG:|general protection fault|RIP:' \
			"$log.boot-crash-$attempt" >&2
		echo "run.sh: booting again (attempt $((attempt + 1)) of 3)" >&2
		continue
	fi
	break
done

[ -f "$work/output" ] && cat "$work/output"
status=0
if [ ! -f "$work/rc" ]; then
	echo "run.sh: the guest did not finish (qemu exit $qrc); last console lines:" >&2
	tail -30 "$log" >&2
	status=1
else
	status=$(cat "$work/rc")
fi
if ! "$here/splat-scan.sh" "$log"; then
	status=1
fi
exit "$status"
