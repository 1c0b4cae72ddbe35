# SPDX-License-Identifier: MIT
"""torch tensors where hixl takes buffers, without importing torch: a CPU
tensor (torch.Tensor has no buffer protocol) becomes a ctypes view of its
memory (data_ptr(), numel() * element_size()) that keeps the tensor - and
so its storage - referenced, for as long as register_mem() holds it.
A CUDA (or ROCm: torch calls it "cuda" too) tensor is device memory at
data_ptr(), numel() * element_size() bytes: it registers as MEM_DEVICE by
that address (the GPU runtime exports it as a dma-buf, lib/gpu.c), held by
a DeviceTensor for as long as the registration.  Tensors of other devices
are refused with what to do instead.
"""

import ctypes


def is_tensor(obj):
    """obj is a torch.Tensor (or a subclass: nn.Parameter), torch not
    imported for it"""
    return any(c.__name__ == "Tensor" and c.__module__ == "torch" for c in type(obj).__mro__)


#: torch device types whose memory the GPU runtimes hixl loads can export
DEVICE_TYPES = ("cuda",)


class DeviceTensor:
    """A dense device tensor's memory: addr (data_ptr()), nbytes, and the
    tensor, referenced so its storage outlives the registration."""

    __slots__ = ("addr", "nbytes", "tensor")

    def __init__(self, t, addr, nbytes):
        self.addr, self.nbytes, self.tensor = addr, nbytes, t


def _check_dense(t, what):
    if t.layout.__repr__() != "torch.strided":
        raise ValueError("%s: a %s tensor: only dense (strided) tensors have one memory "
                         "range" % (what, t.layout))
    if not t.is_contiguous():
        raise ValueError("%s: a non-contiguous tensor view (strides %s): register the "
                         "tensor it views, or t.contiguous()" % (what, tuple(t.stride())))
    return t.numel() * t.element_size()


def tensor_buffer(t, what):
    """A buffer object over the memory of CPU tensor t, referencing t; a
    DeviceTensor for a CUDA tensor.

    Raises ValueError for a tensor on a device whose runtime hixl does not
    load (naming it and the way out), a non-contiguous one (a view with
    strides: register its base or t.contiguous()), or a sparse one."""
    dev = t.device.type
    if dev != "cpu" and dev not in DEVICE_TYPES:
        raise ValueError(
            "%s: a %s tensor is no buffer: register its address as device memory, "
            "MemDesc(t.data_ptr(), t.numel() * t.element_size()) with MEM_DEVICE "
            "(where the %s runtime exports it as a dma-buf), and keep the tensor alive while "
            "registered" % (what, dev, dev))
    nbytes = _check_dense(t, what)
    if dev != "cpu":
        return DeviceTensor(t, t.data_ptr(), nbytes)
    view = (ctypes.c_ubyte * nbytes).from_address(t.data_ptr())
    view._hixl_tensor = t		# the storage stays alive with the view
    return view
