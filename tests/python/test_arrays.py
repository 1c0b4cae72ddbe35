# SPDX-License-Identifier: MIT
"""hixl.OpDescs: descriptor batches from arrays and block ids, built in one
C call; their values on any host, their transfers byte for byte in the VM."""

import array

import numpy as np
import pytest

import hixl
from conftest import Engine  # noqa: F401 (the engines fixture makes them)

S = hixl.SUCCESS
T = 10000
O = hixl.OpDescs


def test_forms_agree():
    rows = np.array([[10, 20, 30], [40, 50, 60], [70, 80, 90]], dtype=np.uint64)
    want = [tuple(int(v) for v in r) for r in rows]
    forms = [rows, rows.astype(np.int64), rows.astype(np.uint32), rows.ravel(),
             array.array("Q", rows.ravel().tolist()),
             memoryview(array.array("Q", rows.ravel().tolist())).cast("B").cast("Q", (3, 3)),
             (rows[:, 0], rows[:, 1], rows[:, 2]),
             [hixl.TransferOpDesc(*r) for r in want]]
    for f in forms:
        assert list(O(f)) == want, type(f)
    assert list(O.from_arrays([10, 40, 70], array.array("l", [20, 50, 80]),
                              np.array([30, 60, 90], dtype=np.uint16))) == want
    assert list(O.from_arrays([1, 2], [3, 4], 5)) == [(1, 3, 5), (2, 4, 5)]
    assert O(rows).nbytes == 180 and len(O(rows)) == 3
    assert "in place" in repr(O(rows)) and "in place" not in repr(O(rows.astype(np.uint32)))
    strided = np.arange(36, dtype=np.uint64).reshape(6, 6)[::2, ::2]
    assert list(O(strided)) == [(0, 2, 4), (12, 14, 16), (24, 26, 28)]


def test_in_place_holds_export():
    buf = array.array("Q", [1, 2, 3])
    d = O(buf)
    with pytest.raises(BufferError):
        buf.append(4)			# held: cannot be resized under the descriptors
    del d
    buf.append(4)


def test_from_blocks():
    d = O.from_blocks([1000, 2000], [5000, 6000], 100, np.array([0, 3]), [1, 2], block_len=64)
    assert list(d) == [(1000, 5100, 64), (1300, 5200, 64), (2000, 6100, 64), (2300, 6200, 64)]
    assert list(O.from_blocks(0, 10, 8, range(3))) == [(0, 10, 8), (8, 18, 8), (16, 26, 8)]


@pytest.mark.parametrize("make,exc,needle", [
    (lambda: O(np.zeros((2, 2), dtype=np.uint64)), ValueError, "shape (n, 3)"),
    (lambda: O(np.zeros((2, 3))), TypeError, "expected integers"),
    (lambda: O(np.array([[1, -2, 3]])), ValueError, "negative"),
    (lambda: O.from_arrays([1], [1, 2], 1), ValueError, "different lengths"),
    (lambda: O.from_arrays([1], ["x"], 1), TypeError, "remote_addrs[0]"),
    (lambda: O.from_arrays(np.array([-1]), [1], 1), ValueError, "negative"),
    (lambda: O.from_blocks(0, 0, 0, [1]), ValueError, "block_len"),
    (lambda: O.from_blocks(0, 0, 8, [1], block_len=9), ValueError, "block_len"),
    (lambda: O.from_blocks([0, 1], 0, 8, [1]), ValueError, "both"),
    (lambda: O.from_blocks(0, 0, 8, [1, 2], [1]), ValueError, "remote_ids"),
    (lambda: O.from_blocks(2**63, 0, 2**62, [2]), OverflowError, "overflows"),
    (lambda: O([1, 2, 3]), TypeError, "op_descs[0]"),
])
def test_errors(make, exc, needle):
    with pytest.raises(exc) as e:
        make()
    assert needle in str(e.value)


def kv(seed, layers, blocks, block):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(layers, blocks, block), dtype=np.uint8)


def test_transfer_by_blocks(pair):
    """WRITE blocks 1, 5, 6 of two layers to other ids by from_blocks and
    (n,3) arrays, READ them back by three arrays, async too"""
    a, b = pair
    layers, blocks, block = 2, 8, 4096
    src, dst, back = kv(1, layers, blocks, block), np.zeros((layers, blocks, block), np.uint8), \
        np.zeros((layers, blocks, block), np.uint8)
    for e, arr in ((a, src), (b, dst), (a, back)):
        assert e.register_mem(arr, hixl.MEM_HOST)[0] == S, hixl.last_error()
    lids, rids = np.array([1, 5, 6]), np.array([0, 2, 7])
    lbases = src.ctypes.data + np.arange(layers, dtype=np.uint64) * src[0].nbytes
    rbases = dst.ctypes.data + np.arange(layers, dtype=np.uint64) * dst[0].nbytes
    d = O.from_blocks(lbases, rbases, block, lids, rids)
    assert a.transfer_sync(b.name, hixl.WRITE, d, T) == S, hixl.last_error()
    assert np.array_equal(dst[:, rids], src[:, lids])
    untouched = np.setdiff1d(np.arange(blocks), rids)
    assert not dst[:, untouched].any()
    # READ back as three arrays (as a tuple): remote dst[rids] -> back[lids]
    rows = np.array(list(O.from_blocks(back.ctypes.data + np.arange(layers, dtype=np.uint64)
                                       * back[0].nbytes, rbases, block, lids, rids)),
                    dtype=np.uint64)
    assert a.transfer_sync(b.name, hixl.READ, (rows[:, 0], rows[:, 1], rows[:, 2]), T) == S
    assert np.array_equal(back[:, lids], src[:, lids])
    # async with an (n, 3) array: layer 1's block 3 -> 4
    one = np.array([[src[1, 3].ctypes.data, dst[1, 4].ctypes.data, block]], dtype=np.uint64)
    ret, req = a.transfer_async(b.name, hixl.WRITE, one)
    assert ret == S
    assert req.wait(T) == (0, hixl.TransferStatus.COMPLETED)
    assert np.array_equal(dst[1, 4], src[1, 3])


def test_transfer_array_errors(pair):
    """a range the peer did not register is the library's error, not a crash"""
    a, b = pair
    src = np.ones(4096, np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    bad = np.array([[src.ctypes.data, 0x1000, 4096]], dtype=np.uint64)
    assert a.transfer_sync(b.name, hixl.WRITE, bad, T) == hixl.PARAM_INVALID
    assert a.transfer_sync(b.name, hixl.WRITE, np.zeros((0, 3), np.uint64), T) == \
        hixl.PARAM_INVALID
