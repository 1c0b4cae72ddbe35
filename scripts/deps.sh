#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deps: install, as root on Debian 12 (bookworm), every package that the
# build, the test VM, the tests and the benchmarks need.  Idempotent: when
# everything is installed it changes nothing and does not touch the network.
set -euo pipefail

pkgs=(
	# build: compilers (g++: the C++ API's test and sample), Kbuild needs, both Debian kernels' headers
	build-essential g++ bc bison flex libelf-dev libssl-dev dwarves cpio kmod xz-utils pkg-config
	linux-headers-amd64 linux-headers-6.12-amd64
	# the debug test kernel's source, and the stock kernel the VM boots
	linux-source-6.12 linux-image-amd64
	# the VM
	qemu-system-x86 busybox-static iproute2 python3
	# the Python package (make python) and its tests
	python3-dev python3-setuptools python3-pytest python3-numpy
	# its torch tests (CPU tensors): 163 packages, 173 MB to fetch, 750 MB
	# installed, about 70 s here (--no-install-recommends)
	python3-torch
	# pip install into a venv in scripts/check-install.sh (offline: Debian's setuptools)
	python3-venv python3-pip python3-wheel-whl
	# RDMA userspace: verbs, RDMA CM, Soft-RoCE provider, peers for benchmarks
	rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest
	libibverbs-dev librdmacm-dev
	# the library, and checking its installed form (man pages, pkg-config)
	liburing-dev systemtap-sdt-dev man-db groff-base
	# the library's ABI against its baseline (scripts/check-abi.sh)
	abigail-tools
	# the kernel's static checks on kmod/ (scripts/check-static.sh): sparse,
	# and coccinelle's spatch for make coccicheck, whose OCaml-scripted
	# semantic patches (null/badzero.cocci) spatch compiles with ocaml's ocamlopt
	sparse coccinelle ocaml
	# make bench: the UCX peer (ucx_perftest) and the plot
	ucx-utils python3-matplotlib
	# NIXL for the NIXL backend plugin's tests (scripts/build-nixl.sh builds it,
	# with Abseil, from ../shared/third_party; these are Debian's part), and
	# torch (CPU) for the vLLM-sequence test's KV tensors
	meson ninja-build cmake libasio-dev python3-pybind11 python3-torch
	# NIXL's own generic backend test for HIXL (make nixl: build/nixl/nixl-gtest-hixl)
	libgtest-dev libgmock-dev
	# make bench: NIXL's UCX backend beside HIXL (scripts/build-nixl-ucx.sh)
	libucx-dev
	# the third-party sources where no snapshot is beside the checkout
	# (scripts/third-party.sh fetches the pinned commits and checks them)
	curl git
	# make bench-mooncake: Mooncake's Transfer Engine beside HIXL
	# (scripts/build-mooncake.sh; ../shared/third_party/README-mooncake.md)
	libnuma-dev libgflags-dev libgoogle-glog-dev libjsoncpp-dev libyaml-cpp-dev
	# hixl.mooncake's etcd metadata server: its test starts /usr/bin/etcd on
	# its own (the package's etcd.service is kept from running, below)
	etcd-server
)

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing ${missing[*]}; run 'make deps' as root" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# linux-source-6.12 and the 6.12 headers come from bookworm-security or, on
# older snapshots, bookworm-backports: add backports only when needed
if ! apt-cache show linux-source-6.12 >/dev/null 2>&1; then
	echo "deps: adding bookworm-backports"
	echo "deb http://deb.debian.org/debian bookworm-backports main" \
		> /etc/apt/sources.list.d/hixl-bookworm-backports.list
	apt-get update -qq
fi
# no service a package installs starts now (etcd-server's etcd.service would
# listen on 2379): a policy-rc.d that denies starts, unless one is there
own_policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	own_policy=1
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}"
# nor at the next boot: etcd runs only as the tests start it
if [[ " ${missing[*]} " == *" etcd-server "* ]] && command -v systemctl >/dev/null; then
	systemctl disable etcd.service || true
	systemctl stop etcd.service 2>/dev/null || true
fi
[ -z "$own_policy" ] || { rm -f /usr/sbin/policy-rc.d; trap - EXIT; }
echo "deps: done"
