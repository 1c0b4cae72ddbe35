#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kv_transfer.py - the hixl Python package in a few lines: a "prefill"
engine pushes a layered KV cache (numpy) into a "decode" engine, block by
block, one layer per asynchronous request, tells it with a notification,
and the decode side checks every byte.  Two engines in one process on one
RDMA device.

Usage: kv_transfer.py [IP [PORT]]   (default 10.77.0.1 19000; the decode
engine takes PORT + 1)
Exit status: 0 when the cache arrived intact, 77 when there is no hixl
device (hixl.ko not loaded), 1 otherwise.
"""

import errno
import os
import sys
import time

import numpy as np

import hixl

LAYERS, BLOCKS, BLOCK_BYTES = 4, 32, 16384	# 2 MiB of KV cache


def name(ip, port):
    return "[%s]:%d" % (ip, port) if ":" in ip else "%s:%d" % (ip, port)


def main():
    ip = sys.argv[1] if len(sys.argv) > 1 else "10.77.0.1"
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 19000
    if not os.path.exists("/dev/hixl"):
        print("kv_transfer: no /dev/hixl (hixl.ko not loaded)\nhint: %s"
              % hixl.error_hint(-errno.ENOPKG), file=sys.stderr)
        return 77
    prefill, decode = hixl.Hixl(raise_on_error=True), hixl.Hixl(raise_on_error=True)
    p_name, d_name = name(ip, port), name(ip, port + 1)
    try:
        prefill.initialize(p_name)
        decode.initialize(d_name, {hixl.OPTION_BUFFER_POOL: "0:0"})

        rng = np.random.default_rng(2026)
        kv = rng.integers(0, 256, (LAYERS, BLOCKS, BLOCK_BYTES), dtype=np.uint8)
        cache = np.zeros_like(kv)
        prefill.register_mem(kv, hixl.MEM_HOST)		# numpy arrays directly
        decode.register_mem(cache, hixl.MEM_HOST)
        prefill.connect(d_name, timeout_in_millis=5000)

        start = time.monotonic()
        reqs = []
        for layer in range(LAYERS):
            descs = [hixl.TransferOpDesc(kv[layer, b], cache[layer, b].ctypes.data)
                     for b in range(BLOCKS)]
            reqs.append(hixl.check(prefill.transfer_async(
                d_name, hixl.WRITE, descs, hixl.TransferArgs(user_data=layer))))
        done, deadline = [], time.monotonic() + 60
        while len(done) < LAYERS and time.monotonic() < deadline:
            _, results = prefill.get_all_transfer_status(
                hixl.GetTransferStatusArgs(skip_waiting=True))
            for r in results:
                if r.status != hixl.TransferStatus.COMPLETED:
                    raise hixl.HixlError(r.error, "layer %d: %s" % (r.user_data, r.status.name))
                done.append(r.user_data)
            time.sleep(0.001)
        secs = time.monotonic() - start
        if len(done) < LAYERS:
            raise hixl.HixlError(hixl.TIMEOUT, "%d of %d layers in 60 s" % (len(done), LAYERS))
        prefill.send_notify(d_name, hixl.NotifyDesc("kv_ready", "layers=%d" % LAYERS))

        notes, deadline = [], time.monotonic() + 10
        while not notes and time.monotonic() < deadline:
            notes = decode.get_notifies()[1]
            time.sleep(0.001)
        if not notes:
            raise hixl.HixlError(hixl.TIMEOUT, "no kv_ready notification in 10 s")
        intact = np.array_equal(kv, cache)
        print("kv_transfer: %d layers x %d blocks x %d B = %d KiB %s -> %s in %.1f ms "
              "(%d requests), notify %s/%s from %s, data %s"
              % (LAYERS, BLOCKS, BLOCK_BYTES, kv.nbytes >> 10, p_name, d_name, secs * 1e3,
                 len(reqs), notes[0].name, notes[0].notify_msg, notes[0].remote_engine,
                 "intact" if intact else "CORRUPT"))
        return 0 if intact else 1
    except hixl.HixlError as e:
        print("kv_transfer: %s" % e, file=sys.stderr)
        return 1
    finally:
        prefill.finalize()
        decode.finalize()


if __name__ == "__main__":
    sys.exit(main())
