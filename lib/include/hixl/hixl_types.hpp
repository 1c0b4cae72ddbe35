/* SPDX-License-Identifier: MIT */
/*
 * <hixl/hixl_types.hpp> - the types, constants and error helpers of HIXL's
 * C++ API (HIXL's include/hixl/hixl_types.h); included by <hixl/hixl.hpp>,
 * which has the conventions.  C++11 or later.
 */
#ifndef HIXL_HIXL_TYPES_HPP
#define HIXL_HIXL_TYPES_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <hixl/hixl.h>

namespace hixl {

/* ==== types (HIXL hixl_types.h) ========================================== */

/** Status: a method's result, HIXL's values. */
typedef uint32_t Status;

constexpr Status SUCCESS = 0U;                  /**< success */
constexpr Status PARAM_INVALID = 103900U;       /**< a bad argument */
constexpr Status TIMEOUT = 103901U;             /**< not done in time */
constexpr Status NOT_CONNECTED = 103902U;       /**< no link to that engine */
constexpr Status ALREADY_CONNECTED = 103903U;   /**< a link or connect exists */
constexpr Status NOTIFY_FAILED = 103904U;       /**< notification not delivered */
constexpr Status UNSUPPORTED = 103905U;         /**< not supported by hixl */
constexpr Status RESOURCE_EXHAUSTED = 203900U;  /**< a limit or memory ran out */
constexpr Status FAILED = 503900U;              /**< anything else; not initialized */

/*
 * Initialize() option keys.  Supported by hixl: BufferPool, RdmaTrafficClass,
 * RdmaServiceLevel, AutoConnect (values: <hixl/hixl.h> hixl_engine_init()).
 * HIXL's others (Ascend device and HCCL resources) make Initialize() return
 * UNSUPPORTED; any other unknown key PARAM_INVALID.
 */
constexpr const char OPTION_BUFFER_POOL[] = "BufferPool";
constexpr const char OPTION_RDMA_TRAFFIC_CLASS[] = "RdmaTrafficClass";
constexpr const char OPTION_RDMA_SERVICE_LEVEL[] = "RdmaServiceLevel";
constexpr const char OPTION_AUTO_CONNECT[] = "AutoConnect";
constexpr const char OPTION_ENABLE_USE_FABRIC_MEM[] = "EnableUseFabricMem";    /* UNSUPPORTED */
constexpr const char OPTION_GLOBAL_RESOURCE_CONFIG[] = "GlobalResourceConfig"; /* UNSUPPORTED */
constexpr const char OPTION_LOCAL_COMM_RES[] = "LocalCommRes";                 /* UNSUPPORTED */
/* hixl extension: who may connect (see hixl_engine_init()) */
constexpr const char OPTION_ALLOWED_PEERS[] = "AllowedPeers";
constexpr const char OPTION_AUTH_SECRET[] = "AuthSecret";
constexpr const char OPTION_AUTH_SECRET_FILE[] = "AuthSecretFile";
/*
 * hixl extension: how links to engines of this same host move bytes
 * (hixl_engine_init() "Transport"; env HIXL_TRANSPORT): TRANSPORT_AUTO (the
 * default: the kernel's CPU copy when the peer is an engine of this kernel,
 * else RDMA), TRANSPORT_RDMA (always RDMA), TRANSPORT_LOCAL (a transfer
 * that cannot take the CPU copy fails, UNSUPPORTED).  HIXL has no such key.
 */
constexpr const char OPTION_TRANSPORT[] = "Transport";
constexpr const char TRANSPORT_AUTO[] = "auto";
constexpr const char TRANSPORT_RDMA[] = "rdma";
constexpr const char TRANSPORT_LOCAL[] = "local";

/** LinkStat::flags bits (hixl extension; <hixl/uapi.h> HIXL_LINK_STAT_*) */
constexpr uint32_t LINK_STAT_ACTIVE = HIXL_LINK_STAT_ACTIVE; /**< made by our Connect() */
constexpr uint32_t LINK_STAT_NAMED = HIXL_LINK_STAT_NAMED;   /**< @peer is known */
constexpr uint32_t LINK_STAT_LOCAL = HIXL_LINK_STAT_LOCAL;   /**< paired with an engine of this kernel */

/**
 * LinkStat - one link of an engine and its counters, from GetLinkStats()
 * (hixl extension; C: hixl_engine_link_stats(), struct hixl_link_stat).
 * @peer:  the peer engine's name ("ip:port"), "" until known
 * @state: HIXL_LINK_STATE_* (<hixl/uapi.h>)
 * @flags: LINK_STAT_* bits
 * @local: flags & LINK_STAT_LOCAL: transfers of registered memory on this
 *         link are the kernel's CPU copy (OPTION_TRANSPORT)
 * @err:   why the link broke (-errno), or 0
 * @xfer:  the link's counters, bytes and descriptors; xfer.local_bytes and
 *         xfer.local_ops are the direct ones the CPU copy moved
 */
struct LinkStat {
  std::string peer;
  uint32_t state;
  uint32_t flags;
  bool local;
  int32_t err;
  hixl_xfer_stats xfer;
};

/* hixl extension: the engine's extra rails (see hixl_engine_init()) */
constexpr const char OPTION_RAILS[] = "Rails";

/** FeatureType: GetCapability()'s features (HIXL's values; append only). */
enum FeatureType : int32_t {
  AUTO_CONNECT = 0,       /**< the AutoConnect option */
  CLIENT_SERVER_COMM = 1, /**< the accepting engine may transfer and notify too */
};
constexpr int32_t FEATURE_SUPPORTED = 1;
constexpr int32_t FEATURE_NOT_SUPPORTED = 0;

/** A registration, from RegisterMem(); never nullptr. */
typedef void *MemHandle;
/** An asynchronous transfer, from TransferAsync(): a struct hixl_request *. */
typedef void *TransferReq;

/** MemType: MEM_DEVICE is a dma-buf in hixl (see RegisterDmaBuf()). */
enum MemType { MEM_DEVICE, MEM_HOST };

/** TransferOp: READ remote -> local, WRITE local -> remote. */
enum TransferOp { READ, WRITE };

enum class TransferStatus { WAITING, COMPLETED, TIMEOUT, FAILED };

enum class AsyncConnectStatus {
  NOT_CONNECT,        /**< no link, nothing pending */
  CONNECT_PENDING,    /**< ConnectAsync() accepted, not started */
  CONNECTING,         /**< the connect runs */
  CONNECTED,          /**< the link is up */
  CONNECT_FAILED,     /**< the last ConnectAsync() failed (GetRecentErrMsg()) */
  DISCONNECT_PENDING, /**< a disconnect waits for a pending connect */
  DISCONNECTING       /**< the disconnect runs */
};

/*
 * The structs below keep HIXL's layout and defaults.  HIXL gives them
 * default member initializers (C++14 aggregates); under C++11 they get
 * constructors with the same defaults instead, so that both `MemDesc d{};`
 * and `MemDesc d{addr, len};` compile in either language version.
 */
#if __cplusplus >= 201402L
#define HIXL_CXX14_AGGREGATES 1
#endif

/** MemDesc: a region to register: @addr, @len bytes; @local_only: used by
 * this engine's own side of transfers only, never offered to peers. */
struct MemDesc {
#ifdef HIXL_CXX14_AGGREGATES
  uintptr_t addr;
  size_t len;
  bool local_only = false;
  uint8_t reserved[127] = {};
#else
  MemDesc() : addr(0), len(0), local_only(false), reserved() {}
  MemDesc(uintptr_t a, size_t l, bool lo = false) : addr(a), len(l), local_only(lo), reserved() {}
  uintptr_t addr;
  size_t len;
  bool local_only;
  uint8_t reserved[127];
#endif
};

/** TransferOpDesc: @len bytes between @local_addr (this engine's
 * registration) and @remote_addr (the peer's). */
struct TransferOpDesc {
  uintptr_t local_addr;
  uintptr_t remote_addr;
  size_t len;
};

/** TransferArgs: TransferAsync()'s options; @user_data comes back in
 * TransferResult. */
struct TransferArgs {
#ifdef HIXL_CXX14_AGGREGATES
  const void *user_data = nullptr;
  uint8_t reserved[120] = {};
#else
  TransferArgs(const void *ud = nullptr) : user_data(ud), reserved() {}
  const void *user_data;
  uint8_t reserved[120];
#endif
};

/** GetTransferStatusArgs: list at most @max_query_count requests; without
 * the WAITING ones when @skip_waiting. */
struct GetTransferStatusArgs {
#ifdef HIXL_CXX14_AGGREGATES
  uint32_t max_query_count = UINT32_MAX;
  bool skip_waiting = false;
  uint8_t reserved[123] = {};
#else
  GetTransferStatusArgs(uint32_t max = UINT32_MAX, bool skip = false)
      : max_query_count(max), skip_waiting(skip), reserved() {}
  uint32_t max_query_count;
  bool skip_waiting;
  uint8_t reserved[123];
#endif
};

/** TransferResult: one request of GetTransferStatus(args, results). */
struct TransferResult {
#ifdef HIXL_CXX14_AGGREGATES
  TransferReq req = nullptr;
  const void *user_data = nullptr;
  TransferStatus status = TransferStatus::WAITING;
  uint8_t reserved[108] = {};
#else
  TransferResult(TransferReq r = nullptr, const void *ud = nullptr,
                 TransferStatus st = TransferStatus::WAITING)
      : req(r), user_data(ud), status(st), reserved() {}
  TransferReq req;
  const void *user_data;
  TransferStatus status;
  uint8_t reserved[108];
#endif
};

/**
 * AscendString - the string class of HIXL's API (ge::AscendString's
 * surface): an owned, immutable byte string that may hold NULs.  A
 * default-constructed or nullptr-constructed one is empty.  Defined in
 * namespace hixl, not ge, so a program may also include CANN's own
 * graph/ascend_string.h; code spelling ge::AscendString may add
 * `namespace ge { using hixl::AscendString; }`.
 */
class AscendString {
 public:
  AscendString() {}
  /** @name: NUL-terminated, copied; nullptr: empty */
  AscendString(const char *name) : s_(name != nullptr ? name : "") {}
  /** @length bytes of @name, copied (NULs included); nullptr: empty */
  AscendString(const char *name, size_t length) : s_(name != nullptr ? std::string(name, length) : "") {}
  /** NUL-terminated bytes, valid while the object lives; "" when empty */
  const char *GetString() const { return s_.c_str(); }
  /** bytes, NULs included, the terminator not */
  size_t GetLength() const { return s_.size(); }
  /** the first offset of @sub, or std::string::npos */
  size_t Find(const AscendString &sub) const { return s_.find(sub.s_); }
  size_t Hash() const { return std::hash<std::string>()(s_); }
  bool operator<(const AscendString &d) const { return s_ < d.s_; }
  bool operator>(const AscendString &d) const { return s_ > d.s_; }
  bool operator<=(const AscendString &d) const { return s_ <= d.s_; }
  bool operator>=(const AscendString &d) const { return s_ >= d.s_; }
  bool operator==(const AscendString &d) const { return s_ == d.s_; }
  bool operator!=(const AscendString &d) const { return s_ != d.s_; }
  bool operator==(const char *d) const { return s_ == (d != nullptr ? d : ""); }
  bool operator!=(const char *d) const { return !(*this == d); }

 private:
  std::string s_;
};

/** NotifyDesc: a notification: @name 1..1024 bytes, no NUL; @notify_msg
 * 0..1024 bytes, any. */
struct NotifyDesc {
  AscendString name;
  AscendString notify_msg;
};

/* ==== errors =============================================================== */

namespace detail {
inline std::string &ErrMsg() {
  static thread_local std::string msg;
  return msg;
}
}  // namespace detail

/**
 * GetRecentErrMsg() - why this thread's last failing Hixl method failed
 * (hixl extension; HIXL samples use ACL's aclGetRecentErrMsg()).
 *
 * E.g. "Hixl::Connect(10.77.0.1:19001): TIMEOUT: hixl_connect(...): ...",
 * naming the method, its object, the Status and the C library's
 * hixl_last_error().  Failing calls of the C API made directly are not
 * seen here: read hixl_last_error() for those.
 *
 * Return: the message, "" when none; valid until this thread's next failing
 * method.  Never nullptr.
 */
inline const char *GetRecentErrMsg() { return detail::ErrMsg().c_str(); }

/**
 * StatusFromErrno() - the Status of a C API return value (hixl extension)
 * @err: 0 or -errno (or errno), as libhixl-user's functions return
 *
 * Through hixl_status_from_errno(): e.g. -EINVAL PARAM_INVALID, -ETIMEDOUT
 * TIMEOUT, -ENOTCONN NOT_CONNECTED, -EISCONN ALREADY_CONNECTED, -ECOMM
 * NOTIFY_FAILED, -EOPNOTSUPP UNSUPPORTED, -ENOSPC RESOURCE_EXHAUSTED,
 * anything unlisted FAILED.  The C library's two statuses beyond HIXL's,
 * HIXL_NO_MODULE (-ENOPKG: hixl.ko not loaded) and HIXL_NO_PERMISSION
 * (-EPERM: not in the group hixl), are FAILED here, as HIXL's Initialize
 * fails; the message (GetRecentErrMsg(), StrError()) names the cause.
 */
inline Status StatusFromErrno(int err) {
  static const Status table[] = {SUCCESS,      PARAM_INVALID,      TIMEOUT,
                                 NOT_CONNECTED, ALREADY_CONNECTED, NOTIFY_FAILED,
                                 UNSUPPORTED,  RESOURCE_EXHAUSTED, FAILED,
                                 FAILED /* HIXL_NO_MODULE */, FAILED /* HIXL_NO_PERMISSION */};
  const unsigned st = static_cast<unsigned>(hixl_status_from_errno(err));
  return st < sizeof(table) / sizeof(table[0]) ? table[st] : FAILED;
}

/**
 * StrError() - what a C API return value means in hixl (hixl extension)
 * @err: -errno (or errno), as libhixl-user's functions return
 *
 * hixl_strerror(): one line, e.g. -ERANGE "the remote range is not inside a
 * region the peer registered".  Never nullptr.
 */
inline const char *StrError(int err) { return hixl_strerror(err); }

}  // namespace hixl

namespace std {
/** std::hash for AscendString keys (std::unordered_map), as ge's. */
template <>
struct hash<hixl::AscendString> {
  size_t operator()(const hixl::AscendString &s) const { return s.Hash(); }
};
}  // namespace std

#endif /* HIXL_HIXL_TYPES_HPP */
