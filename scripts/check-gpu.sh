#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-gpu: hixl against a real NVIDIA GPU (tests/gpu/check_gpu.c says
# what it checks).  Builds build/check-gpu/check-gpu if needed and runs it;
# on a host without a driver or a GPU it prints "1..0 # SKIP" and why and
# exits 0.  For the device-to-device test load hixl.ko first (make
# install-module, modprobe hixl) and name an address of an RDMA device:
#   HIXL_CHECK_GPU_IP=192.168.1.10 make check-gpu
# HIXL_CHECK_GPU_CUDA=PATH loads that libcuda.so.1 instead of the system's.
# Well under a minute on a GPU host; needs no root but for /dev/hixl.
set -eu
cd "$(dirname "$0")/.."
make -s build/check-gpu/check-gpu
out=$(build/check-gpu/check-gpu) && rc=0 || rc=$?
printf '%s\n' "$out"
case "$out" in
"1..0 # SKIP"*) echo "check-gpu: skipped: ${out#1..0 # SKIP }" ;;
*) [ "$rc" = 0 ] && echo "check-gpu: passed" || echo "check-gpu: FAILED" ;;
esac
exit "$rc"
