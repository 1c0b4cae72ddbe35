# SPDX-License-Identifier: MIT
"""torch tensors where hixl takes buffers, without importing torch: a CPU
tensor (torch.Tensor has no buffer protocol) becomes a ctypes view of its
memory (data_ptr(), numel() * element_size()) that keeps the tensor - and
so its storage - referenced, for as long as register_mem() holds it.
Device tensors are refused as buffers with what to do instead: register
their address, MemDesc(t.data_ptr(), nbytes) as MEM_DEVICE (the CUDA driver
exports it as a dma-buf).
"""

import ctypes


def is_tensor(obj):
    """obj is a torch.Tensor (or a subclass: nn.Parameter), torch not
    imported for it"""
    return any(c.__name__ == "Tensor" and c.__module__ == "torch" for c in type(obj).__mro__)


def tensor_buffer(t, what):
    """A buffer object over the memory of CPU tensor t, referencing t.

    Raises ValueError for a tensor on another device (naming it and the way
    out), a non-contiguous one (a view with strides: register its base or
    t.contiguous()), or a sparse one."""
    dev = t.device.type
    if dev != "cpu":
        raise ValueError(
            "%s: a %s tensor is no buffer: register its address as device memory, "
            "MemDesc(t.data_ptr(), t.numel() * t.element_size()) with MEM_DEVICE "
            "(the %s runtime exports it as a dma-buf), and keep the tensor alive while "
            "registered" % (what, dev, dev))
    if t.layout.__repr__() != "torch.strided":
        raise ValueError("%s: a %s tensor: only dense (strided) tensors have one memory "
                         "range" % (what, t.layout))
    if not t.is_contiguous():
        raise ValueError("%s: a non-contiguous tensor view (strides %s): register the "
                         "tensor it views, or t.contiguous()" % (what, tuple(t.stride())))
    nbytes = t.numel() * t.element_size()
    view = (ctypes.c_ubyte * nbytes).from_address(t.data_ptr())
    view._hixl_tensor = t		# the storage stays alive with the view
    return view
