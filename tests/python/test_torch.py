# SPDX-License-Identifier: MIT
"""torch tensors (Debian's python3-torch): CPU tensors register and
transfer directly, their storage kept alive while registered; tensors of
another device and strided views are refused with what to do."""

import gc
import os
import weakref

import pytest

import hixl

if os.environ.get("HIXL_TEST_TORCH") == "0":
    pytest.skip("HIXL_TEST_TORCH=0: importing torch takes about a minute under TCG, so only the "
                "stock 6.12 VM runs these (tests/vm/guest-tests.sh)", allow_module_level=True)
torch = pytest.importorskip("torch", reason="no torch (Debian python3-torch, scripts/deps.sh)")

S = hixl.SUCCESS
T = 10000


def test_refusals():
    with pytest.raises(ValueError, match="a meta tensor is no buffer: register its address "
                                         "as device memory"):
        hixl.MemDesc(torch.empty(16, device="meta"))
    with pytest.raises(ValueError, match="non-contiguous"):
        hixl.MemDesc(torch.zeros(4, 4).t())
    d = hixl.MemDesc(torch.zeros(4, 4, dtype=torch.bfloat16))
    assert d.len == 32


def test_register_and_transfer(pair):
    """a bf16 KV block tensor WRITten into the peer's tensor; the peer's
    tensor stays alive (registered) after the caller dropped it"""
    a, b = pair
    src = torch.randn(4, 8, 256, dtype=torch.float32).to(torch.bfloat16)
    dst = torch.zeros_like(src)
    dst_addr, dst_ref = dst.data_ptr(), weakref.ref(dst)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S, hixl.last_error()
    ret, hd = b.register_mem(dst, hixl.MEM_HOST)
    assert ret == S, hixl.last_error()
    keep = dst
    del dst
    gc.collect()
    assert dst_ref() is not None			# held by b's registration
    per = src[0].numel() * src[0].element_size()
    blocks = [hixl.TransferOpDesc(src[i], dst_addr + i * per) for i in (1, 3)]
    assert a.transfer_sync(b.name, hixl.WRITE, blocks, T) == S, hixl.last_error()
    assert torch.equal(keep[1], src[1]) and torch.equal(keep[3], src[3])
    assert not keep[0].any() and not keep[2].any()
    del keep
    assert b.deregister_mem(hd) == S
    gc.collect()
    assert dst_ref() is None				# released with the registration
