# SPDX-License-Identifier: MIT
"""mooncake.engine over hixl: the names of Mooncake's pybind11 module
`mooncake.engine` (kvcache-ai/Mooncake mooncake-integration/transfer_engine/
transfer_engine_py.cpp, PYBIND11_MODULE(engine, m)) that hixl has:

    TransferEngine        hixl.mooncake.TransferEngine
    TransferOpcode        hixl.mooncake.TransferOpcode (Read = 0, Write = 1)
    Read, Write           TransferOpcode.Read, .Write at module level, as
                          pybind11's export_values() puts them
    TransferNotify        hixl.mooncake.TransferNotify(name, msg)
    SUPPORT_CUDA, SUPPORT_HIP, SUPPORT_EFA, SUPPORT_MNNVL,
    SUPPORT_INTRA_NVLINK  False: hixl moves host memory over RDMA only

Not here (no counterpart in hixl): InnerTransferEngine (what
get_engine() returns; hixl's get_engine() raises NotImplementedError) and
the RPC interface (RpcInterface, CoroRPCInterface, ReceivedData,
ReceivedTensor).  __hixl__ is hixl's version string: Mooncake's module has
no such name, so getattr(mooncake.engine, "__hixl__", None) tells them apart.
docs/python.md compares the members.
"""

from hixl import __version__ as __hixl__
from hixl.mooncake import TransferEngine, TransferNotify, TransferOpcode

Read = TransferOpcode.Read
Write = TransferOpcode.Write

SUPPORT_CUDA = False
SUPPORT_HIP = False
SUPPORT_EFA = False
SUPPORT_MNNVL = False
SUPPORT_INTRA_NVLINK = False

__all__ = ["TransferEngine", "TransferOpcode", "TransferNotify", "Read", "Write",
           "SUPPORT_CUDA", "SUPPORT_HIP", "SUPPORT_EFA", "SUPPORT_MNNVL",
           "SUPPORT_INTRA_NVLINK", "__hixl__"]
