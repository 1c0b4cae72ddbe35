/* SPDX-License-Identifier: MIT */
/*
 * <hixl/hixl.hpp> - HIXL's C++ API (class hixl::Hixl and its types) over the
 * C API of libhixl-user (<hixl/hixl.h>).  Header-only: link with
 * -lhixl-user (pkg-config hixl-user) as a C program would.  C++11 or later.
 *
 * The names, signatures, values and struct layouts are those of HIXL's
 * include/hixl/hixl.h and hixl_types.h, so HIXL code builds against this
 * header with at most its ACL calls (aclrtSetDevice, aclrtMalloc, ...)
 * replaced; docs/cpp.md lists each member as same / different / missing.
 * hixl's own additions are marked "hixl extension".
 *
 * Conventions: every method returns a Status (SUCCESS, or one of the codes
 * of <hixl/hixl_types.hpp>) and never throws, except std::bad_alloc from the standard
 * containers it fills.  Lengths are bytes, timeouts milliseconds (> 0).
 * A method that fails leaves a one-line reason for GetRecentErrMsg().
 * Engines are named "ip", "ip:port", "[ipv6]" or "[ipv6]:port"; see
 * hixl_parse_engine_name().  Thread safety: as HIXL, every method of one
 * Hixl may be called from several threads at once, except Initialize()
 * and Finalize() (and the destructor), which must not race with any other
 * call on the object.  A Hixl belongs to the process that initialized it.
 */
#ifndef HIXL_HIXL_HPP
#define HIXL_HIXL_HPP

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <hixl/hixl.h>
#include <hixl/hixl_types.hpp>

namespace hixl {

/* ==== the engine =========================================================== */

/** TransferAsync()'s timeout until SetTransferAsyncTimeout(), ms (hixl extension) */
constexpr int32_t kDefaultTransferAsyncTimeoutMs = 60000;

/**
 * class Hixl - one transfer engine (a struct hixl_engine of the C API).
 * Not copyable.  Every method but GetCapability() returns FAILED before
 * Initialize() and after Finalize().
 */
class Hixl {
 public:
  Hixl() : eng_(nullptr), auto_connect_(false), async_timeout_ms_(kDefaultTransferAsyncTimeoutMs) {}
  /** Finalize()s. */
  ~Hixl() { Finalize(); }
  Hixl(const Hixl &) = delete;
  Hixl &operator=(const Hixl &) = delete;

  /**
   * Initialize() - set the engine up on @local_engine (hixl_engine_init())
   * @local_engine: "ip[:port]" / "[ipv6][:port]"; with a port > 0 the
   *                engine accepts connects there, with port 0 on a port the
   *                kernel picks (hixl_engine_name(NativeHandle()) says
   *                which), without one it only connects out.  The address
   *                must be local and owned by an RDMA device.
   * @options:      OPTION_* keys and string values (<hixl/hixl_types.hpp>)
   *
   * Return: SUCCESS; FAILED already initialized (Finalize() first), no
   * RDMA device on the address, the address not local, the port in use;
   * PARAM_INVALID a malformed name, an unknown key, a bad value, no
   * /dev/hixl (hixl.ko not loaded) or no permission to open it;
   * UNSUPPORTED one of HIXL's Ascend-only options, or a hixl.ko without
   * AllowedPeers/AuthSecret; RESOURCE_EXHAUSTED memory.
   */
  Status Initialize(const AscendString &local_engine, const std::map<AscendString, AscendString> &options) {
    if (eng_ != nullptr) return Fail("Initialize", local_engine.GetString(), FAILED, "already initialized");
    std::vector<hixl_option> opts;
    bool auto_connect = EnvFlag("HIXL_AUTO_CONNECT");
    for (std::map<AscendString, AscendString>::const_iterator it = options.begin(); it != options.end(); ++it) {
      if (it->first == OPTION_ENABLE_USE_FABRIC_MEM || it->first == OPTION_GLOBAL_RESOURCE_CONFIG ||
          it->first == OPTION_LOCAL_COMM_RES)
        return Fail("Initialize", it->first.GetString(), UNSUPPORTED, "an Ascend (HCCL) option hixl does not have");
      if (it->first == OPTION_AUTO_CONNECT) auto_connect = Flag(it->second.GetString());
      hixl_option o = {it->first.GetString(), it->second.GetString()};
      opts.push_back(o);
    }
    hixl_engine *eng = nullptr;
    const int ret = hixl_engine_init(&eng, local_engine.GetString(), opts.empty() ? nullptr : &opts[0], opts.size());
    if (ret < 0) return FailErrno("Initialize", "hixl_engine_init", local_engine.GetString(), ret);
    eng_ = eng;
    auto_connect_ = auto_connect;
    return SUCCESS;
  }

  /**
   * Finalize() - tear the engine down (hixl_engine_finalize()): waits for
   * pending connects, cancels queued and running transfers, disconnects
   * every link, drops every registration and frees every TransferReq not
   * freed yet.  Nothing happens when not initialized.  Initialize() may
   * be called again afterwards.
   */
  void Finalize() {
    if (eng_ == nullptr) return;
    hixl_engine_finalize(eng_);
    eng_ = nullptr;
    std::lock_guard<std::mutex> lk(mu_);
    reqs_.clear();
  }

  /**
   * RegisterMem() - register memory for transfers (hixl_register_mem())
   * @mem:        @mem.addr, @mem.len bytes; @mem.local_only ->
   *              HIXL_REG_LOCAL_ONLY (peers never see the region)
   * @type:       MEM_HOST: memory of this process.  MEM_DEVICE: device
   *              memory by address, e.g. a CUDA device pointer: the library
   *              asks the GPU runtime (libcuda.so.1, loaded at run time) for
   *              a dma-buf of the range; host memory given as MEM_DEVICE is
   *              registered as host memory (hixl_mem_get_info() on
   *              NativeHandle() says which).  A dma-buf fd: RegisterDmaBuf().
   * @mem_handle: out: the registration, set on SUCCESS only
   *
   * Unlike HIXL, registering while links are up is allowed (peers learn the
   * region).  Return: SUCCESS; PARAM_INVALID addr 0, len 0, an unknown
   * type, a range that wraps, is not mapped, or overlaps a registration,
   * a read-only mapping, MEM_DEVICE past the end of its GPU allocation
   * (ERANGE); RESOURCE_EXHAUSTED 4096 registrations or 20 GiB (host) / 50
   * GiB (device) per process, RLIMIT_MEMLOCK, memory; UNSUPPORTED
   * MEM_DEVICE the runtime cannot export as a dma-buf;
   * FAILED not initialized, MEM_DEVICE not host memory with no GPU
   * runtime (ENODEV: no libcuda.so.1, or its cuInit() failed);
   * GetRecentErrMsg() names the cause.
   */
  Status RegisterMem(const MemDesc &mem, MemType type, MemHandle &mem_handle) {
    if (eng_ == nullptr) return NotInitialized("RegisterMem");
    if (type == MEM_DEVICE) return Register(mem, HIXL_MEM_DEVICE, -1, 0, mem_handle);
    if (type != MEM_HOST) return Fail("RegisterMem", "type", PARAM_INVALID, "unknown MemType");
    return Register(mem, HIXL_MEM_HOST, -1, 0, mem_handle);
  }

  /**
   * RegisterDmaBuf() - register device memory, a dma-buf (hixl extension:
   * HIXL's RegisterMem(MEM_DEVICE))
   * @mem:        @mem.addr: the device address transfer descriptors use
   *              for it (any value but 0); @mem.len bytes; @mem.local_only
   * @dmabuf_fd:  the dma-buf (not kept, not closed)
   * @offset:     of the region in the dma-buf, bytes, page aligned
   * @mem_handle: out, on SUCCESS
   *
   * Return: as RegisterMem(); PARAM_INVALID also for a descriptor that is
   * not a dma-buf, a misaligned offset; RESOURCE_EXHAUSTED 50 GiB per
   * process; UNSUPPORTED the device cannot map it.
   */
  Status RegisterDmaBuf(const MemDesc &mem, int dmabuf_fd, uint64_t offset, MemHandle &mem_handle) {
    return Register(mem, HIXL_MEM_DEVICE, dmabuf_fd, offset, mem_handle);
  }

  /**
   * DeregisterMem() - drop a registration (hixl_deregister_mem()); links
   * may stay up (peers are told).
   * Return: SUCCESS; PARAM_INVALID nullptr or not a live registration of
   * this engine (HIXL: SUCCESS for an unknown one); FAILED not initialized.
   */
  Status DeregisterMem(MemHandle mem_handle) {
    if (eng_ == nullptr) return NotInitialized("DeregisterMem");
    if (mem_handle == nullptr) return Fail("DeregisterMem", "nullptr", PARAM_INVALID, "null handle");
    const int ret = hixl_deregister_mem(eng_, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(mem_handle)));
    return ret < 0 ? FailErrno("DeregisterMem", "hixl_deregister_mem", HandleName(mem_handle), ret) : SUCCESS;
  }

  /**
   * Connect() - connect to @remote_engine ("ip:port"), blocking
   * (hixl_connect()); at most 512 links.  @timeout_in_millis > 0.
   * Return: SUCCESS; PARAM_INVALID a malformed name, no port, timeout <= 0;
   * ALREADY_CONNECTED a link or a connect to it exists; TIMEOUT not up in
   * time (nobody listening counts: refused attempts are retried);
   * RESOURCE_EXHAUSTED 512 links, memory; FAILED unreachable, not
   * initialized; PARAM_INVALID also when the peer's AllowedPeers or
   * AuthSecret refuses this engine.
   */
  Status Connect(const AscendString &remote_engine, int32_t timeout_in_millis = 1000) {
    if (eng_ == nullptr) return NotInitialized("Connect");
    const int ret = hixl_connect(eng_, remote_engine.GetString(), timeout_in_millis);
    return ret < 0 ? FailErrno("Connect", "hixl_connect", remote_engine.GetString(), ret) : SUCCESS;
  }

  /**
   * Disconnect() - tear the link down (hixl_disconnect()); waits up to
   * @timeout_in_millis (> 0) for a pending ConnectAsync() to it first.
   * Return: SUCCESS; PARAM_INVALID malformed name, timeout <= 0;
   * NOT_CONNECTED no link (also clears CONNECT_FAILED); ALREADY_CONNECTED
   * (EALREADY) a disconnect runs; TIMEOUT; FAILED not initialized.
   */
  Status Disconnect(const AscendString &remote_engine, int32_t timeout_in_millis = 1000) {
    if (eng_ == nullptr) return NotInitialized("Disconnect");
    const int ret = hixl_disconnect(eng_, remote_engine.GetString(), timeout_in_millis);
    return ret < 0 ? FailErrno("Disconnect", "hixl_disconnect", remote_engine.GetString(), ret) : SUCCESS;
  }

  /**
   * ConnectAsync() - start a connect (hixl_connect_async()); follow it with
   * GetAsyncConnectStatus().  @timeout_in_millis > 0 bounds the connect.
   * Return: SUCCESS started; PARAM_INVALID as Connect(); ALREADY_CONNECTED
   * connected, or a connect/disconnect to it in progress; FAILED no
   * thread could be started, not initialized; RESOURCE_EXHAUSTED memory.
   */
  Status ConnectAsync(const AscendString &remote_engine, int32_t timeout_in_millis = 1000) {
    if (eng_ == nullptr) return NotInitialized("ConnectAsync");
    const int ret = hixl_connect_async(eng_, remote_engine.GetString(), timeout_in_millis);
    return ret < 0 ? FailErrno("ConnectAsync", "hixl_connect_async", remote_engine.GetString(), ret) : SUCCESS;
  }

  /**
   * DisconnectAsync() - start a disconnect (hixl_disconnect_async()): the
   * peer is DISCONNECT_PENDING / DISCONNECTING, then NOT_CONNECT.
   * Return: SUCCESS started; PARAM_INVALID as Disconnect(); NOT_CONNECTED
   * no link and no connect pending; ALREADY_CONNECTED (EALREADY) a
   * disconnect runs; FAILED no thread, not initialized.
   */
  Status DisconnectAsync(const AscendString &remote_engine, int32_t timeout_in_millis = 1000) {
    if (eng_ == nullptr) return NotInitialized("DisconnectAsync");
    const int ret = hixl_disconnect_async(eng_, remote_engine.GetString(), timeout_in_millis);
    return ret < 0 ? FailErrno("DisconnectAsync", "hixl_disconnect_async", remote_engine.GetString(), ret) : SUCCESS;
  }

  /**
   * GetAsyncConnectStatus() - the link state to one peer
   * (hixl_get_connect_status()): NOT_CONNECT for a peer never connected.
   * CONNECT_FAILED comes with SUCCESS; GetRecentErrMsg() then says why.
   * Return: SUCCESS; PARAM_INVALID a malformed name; FAILED not initialized.
   */
  Status GetAsyncConnectStatus(const AscendString &remote_engine, AsyncConnectStatus &status) {
    if (eng_ == nullptr) return NotInitialized("GetAsyncConnectStatus");
    hixl_connect_status st = HIXL_NOT_CONNECT;
    const int ret = hixl_get_connect_status(eng_, remote_engine.GetString(), &st);
    if (ret < 0 && st != HIXL_CONNECT_FAILED)
      return FailErrno("GetAsyncConnectStatus", "hixl_get_connect_status", remote_engine.GetString(), ret);
    if (ret < 0)  /* the reason, for GetRecentErrMsg() */
      Fail("GetAsyncConnectStatus", remote_engine.GetString(), StatusFromErrno(ret),
           std::string("CONNECT_FAILED: ") + std::strerror(-ret));
    status = static_cast<AsyncConnectStatus>(st);
    return SUCCESS;
  }

  /**
   * GetAsyncConnectStatus() - every peer with a link, a connect or
   * disconnect in progress, or a failed ConnectAsync() not cleared
   * (hixl_get_all_connect_status()).  @statuses is replaced; keys are
   * names as hixl_format_engine_name() prints them ("ip:port",
   * "[ipv6]:port").  Return: SUCCESS; FAILED not initialized.
   */
  Status GetAsyncConnectStatus(std::map<AscendString, AsyncConnectStatus> &statuses) {
    statuses.clear();
    if (eng_ == nullptr) return NotInitialized("GetAsyncConnectStatus");
    std::vector<hixl_connect_entry> v;
    int n = hixl_get_all_connect_status(eng_, nullptr, 0);
    while (n > 0 && static_cast<size_t>(n) > v.size()) {  /* peers may come meanwhile */
      v.resize(static_cast<size_t>(n) + 4);
      n = hixl_get_all_connect_status(eng_, &v[0], v.size());
    }
    if (n < 0) return FailErrno("GetAsyncConnectStatus", "hixl_get_all_connect_status", "all", n);
    for (int i = 0; i < n; i++)
      statuses[AscendString(v[i].remote_engine)] = static_cast<AsyncConnectStatus>(v[i].status);
    return SUCCESS;
  }

  /**
   * TransferSync() - one READ or WRITE batch, blocking (hixl_transfer_sync())
   * @op_descs:          >= 1 descriptors, none with a 0 address or len;
   *                     each range inside one registration
   * @timeout_in_millis: the whole batch, ms, > 0
   * Return: SUCCESS every byte moved; PARAM_INVALID empty, a 0 address or
   * len, an unknown op, timeout <= 0, a range not registered (locally or
   * by the peer), a read-only region written; NOT_CONNECTED no link (and
   * no AutoConnect); TIMEOUT (the link is broken then); FAILED the link
   * broke, still connecting, not initialized; RESOURCE_EXHAUSTED memory.
   */
  Status TransferSync(const AscendString &remote_engine, TransferOp operation,
                      const std::vector<TransferOpDesc> &op_descs, int32_t timeout_in_millis = 1000) {
    if (eng_ == nullptr) return NotInitialized("TransferSync");
    std::vector<hixl_op_desc> d;
    const Status st = Convert("TransferSync", remote_engine, operation, op_descs, d);
    if (st != SUCCESS) return st;
    size_t failed = 0;
    const int ret = hixl_transfer_sync(eng_, remote_engine.GetString(), Op(operation), &d[0], d.size(),
                                       timeout_in_millis, &failed);
    if (ret < 0)
      return FailErrno("TransferSync", "hixl_transfer_sync", remote_engine.GetString(), ret, failed, d.size());
    return SUCCESS;
  }

  /**
   * TransferAsync() - queue a READ or WRITE batch (hixl_transfer_async())
   * @op_descs:      as TransferSync(), copied
   * @optional_args: @user_data, returned by GetTransferStatus(args, ...)
   * @req:           out: the request, set on SUCCESS only; query it with
   *                 GetTransferStatus() until it is not WAITING (it is
   *                 freed then) or leave it to Finalize()
   *
   * The request must end within SetTransferAsyncTimeout()'s time (default
   * kDefaultTransferAsyncTimeoutMs) or it ends TIMEOUT.  A peer with no
   * link at all is found when the request runs: it ends FAILED (this
   * engine's own connects are known at once, but a link a peer made to it,
   * which it may use too, is known to the kernel only).  Return: SUCCESS;
   * PARAM_INVALID as TransferSync()'s argument checks; NOT_CONNECTED this
   * engine's connect to the peer is pending, failed or being torn down
   * (AutoConnect off); FAILED not initialized, or the library could not
   * queue it; RESOURCE_EXHAUSTED memory.
   */
  Status TransferAsync(const AscendString &remote_engine, TransferOp operation,
                       const std::vector<TransferOpDesc> &op_descs, const TransferArgs &optional_args,
                       TransferReq &req) {
    if (eng_ == nullptr) return NotInitialized("TransferAsync");
    std::vector<hixl_op_desc> d;
    Status st = Convert("TransferAsync", remote_engine, operation, op_descs, d);
    if (st != SUCCESS) return st;
    if (!auto_connect_) {  /* HIXL refuses at once; the request would end FAILED */
      hixl_connect_status cs = HIXL_NOT_CONNECT;
      int ret = hixl_get_connect_status(eng_, remote_engine.GetString(), &cs);
      if (ret == -EINVAL) return FailErrno("TransferAsync", "hixl_get_connect_status", remote_engine.GetString(), ret);
      if (cs != HIXL_CONNECTED && cs != HIXL_NOT_CONNECT)  /* NOT_CONNECT: maybe the peer's link */
        return Fail("TransferAsync", remote_engine.GetString(), NOT_CONNECTED, "the connect to it is not up");
    }
    std::lock_guard<std::mutex> lk(mu_);
    hixl_request *r = nullptr;
    hixl_transfer_args ta = HIXL_TRANSFER_ARGS_INIT(async_timeout_ms_);
    ta.user_data = const_cast<void *>(optional_args.user_data);
    const int ret = hixl_transfer_async(eng_, remote_engine.GetString(), Op(operation), &d[0], d.size(), &ta, &r);
    if (ret < 0) return FailErrno("TransferAsync", "hixl_transfer_async", remote_engine.GetString(), ret);
    reqs_.insert(r);
    req = r;
    return SUCCESS;
  }

  /**
   * GetTransferStatus() - one request's state (hixl_get_transfer_status())
   * @req:    from TransferAsync() on this object
   * @status: out: its state.  Once it is not WAITING the request is freed,
   *          as HIXL erases it: querying it again is PARAM_INVALID.
   * Return: SUCCESS; PARAM_INVALID @req unknown: ended and already
   * reported (here or by GetTransferStatus(args, ...)), of another
   * engine, or never a request (@status is FAILED then, as in HIXL);
   * FAILED nullptr @req (as HIXL), not initialized.
   */
  Status GetTransferStatus(const TransferReq &req, TransferStatus &status) {
    if (eng_ == nullptr) return NotInitialized("GetTransferStatus");
    if (req == nullptr) return Fail("GetTransferStatus", "nullptr", FAILED, "null request");
    std::lock_guard<std::mutex> lk(mu_);
    hixl_request *r = static_cast<hixl_request *>(req);
    if (reqs_.find(r) == reqs_.end()) {
      status = TransferStatus::FAILED;
      return Fail("GetTransferStatus", HandleName(req), PARAM_INVALID,
                  "unknown request: ended and reported already, or not of this engine");
    }
    hixl_transfer_status st = HIXL_TRANSFER_WAITING;
    const int ret = hixl_get_transfer_status(eng_, r, &st);
    if (ret < 0) return FailErrno("GetTransferStatus", "hixl_get_transfer_status", HandleName(req), ret);
    status = static_cast<TransferStatus>(st);
    if (st != HIXL_TRANSFER_WAITING) Release(r);
    return SUCCESS;
  }

  /**
   * GetTransferStatus() - the engine's requests, oldest first
   * (hixl_get_all_transfer_status())
   * @args:    at most @args.max_query_count (0: none); @args.skip_waiting
   *           leaves WAITING ones out
   * @results: replaced.  Each request that ended is reported once and freed
   *           (its req is only a value to compare with then); WAITING ones
   *           every time.  Requests reported ended by GetTransferStatus(req,
   *           ...) are not listed.
   * Return: SUCCESS; FAILED not initialized.
   */
  Status GetTransferStatus(const GetTransferStatusArgs &args, std::vector<TransferResult> &results) {
    results.clear();
    if (eng_ == nullptr) return NotInitialized("GetTransferStatus");
    if (args.max_query_count == 0) return SUCCESS;
    const uint32_t flags = args.skip_waiting ? HIXL_QUERY_SKIP_WAITING : 0U;
    std::lock_guard<std::mutex> lk(mu_);
    int n = hixl_get_all_transfer_status(eng_, flags, nullptr, 0);
    if (n <= 0) return n < 0 ? FailErrno("GetTransferStatus", "hixl_get_all_transfer_status", "all", n) : SUCCESS;
    std::vector<hixl_transfer_result> v(std::min(static_cast<size_t>(n), static_cast<size_t>(args.max_query_count)));
    n = hixl_get_all_transfer_status(eng_, flags, &v[0], v.size());
    if (n < 0) return FailErrno("GetTransferStatus", "hixl_get_all_transfer_status", "all", n);
    for (int i = 0; i < n; i++) {
      TransferResult r;
      r.req = v[i].req;
      r.user_data = v[i].user_data;
      r.status = static_cast<TransferStatus>(v[i].status);
      results.push_back(r);
      if (v[i].status != HIXL_TRANSFER_WAITING) Release(v[i].req);
    }
    return SUCCESS;
  }

  /**
   * SendNotify() - send @notify to a connected peer (hixl_send_notify());
   * returns once the peer's adapter holds it.  A peer whose queue is full
   * (4096) drops it.  @timeout_in_millis > 0 (checked; the module bounds
   * the send itself, 10 s).
   * Return: SUCCESS; PARAM_INVALID a name empty, over 1024 bytes or with a
   * NUL, a message over 1024 bytes, timeout <= 0, a malformed engine name;
   * NOT_CONNECTED no link; NOTIFY_FAILED the link broke; FAILED still
   * connecting, not initialized.
   */
  Status SendNotify(const AscendString &remote_engine, const NotifyDesc &notify, int32_t timeout_in_millis = 1000) {
    if (eng_ == nullptr) return NotInitialized("SendNotify");
    if (std::strlen(notify.name.GetString()) != notify.name.GetLength())
      return Fail("SendNotify", remote_engine.GetString(), PARAM_INVALID, "a NUL in the notification's name");
    const int ret = hixl_send_notify(eng_, remote_engine.GetString(), notify.name.GetString(),
                                     notify.notify_msg.GetString(), notify.notify_msg.GetLength(), timeout_in_millis);
    return ret < 0 ? FailErrno("SendNotify", "hixl_send_notify", remote_engine.GetString(), ret) : SUCCESS;
  }

  /**
   * GetNotifies() - take every notification received so far, oldest first
   * (hixl_get_notifies()); does not wait.  @notifies is replaced.
   * Return: SUCCESS (maybe none); FAILED not initialized.
   */
  Status GetNotifies(std::vector<NotifyDesc> &notifies) {
    notifies.clear();
    if (eng_ == nullptr) return NotInitialized("GetNotifies");
    std::vector<hixl_notify> buf(16);
    for (;;) {
      size_t count = 0;
      const int ret = hixl_get_notifies(eng_, &buf[0], buf.size(), &count, nullptr);
      if (ret < 0) return FailErrno("GetNotifies", "hixl_get_notifies", "", ret);
      for (size_t i = 0; i < count; i++) {
        NotifyDesc d;
        d.name = AscendString(reinterpret_cast<const char *>(buf[i].name), buf[i].name_len);
        d.notify_msg = AscendString(reinterpret_cast<const char *>(buf[i].msg), buf[i].msg_len);
        notifies.push_back(d);
      }
      if (count < buf.size()) return SUCCESS;
    }
  }

  /**
   * GetCapability() - whether hixl has @feature_type (hixl_get_capability())
   * @value: out: FEATURE_SUPPORTED or FEATURE_NOT_SUPPORTED (an unknown
   *         feature too, as HIXL's documentation says)
   * Return: SUCCESS; PARAM_INVALID a negative feature.  No engine needed.
   */
  static Status GetCapability(FeatureType feature_type, int32_t &value) {
    if (static_cast<int32_t>(feature_type) < 0) return Fail("GetCapability", "feature", PARAM_INVALID, "negative");
    int32_t v = FEATURE_NOT_SUPPORTED;
    const int ret = hixl_get_capability(static_cast<int32_t>(feature_type), &v);
    if (ret < 0) return FailErrno("GetCapability", "hixl_get_capability", "feature", ret);
    value = v;
    return SUCCESS;
  }

  /**
   * SetTransferAsyncTimeout() - the time each later TransferAsync() request
   * has to end, counted from TransferAsync(), ms (hixl extension: HIXL's
   * TransferAsync has no timeout argument).
   * Return: SUCCESS; PARAM_INVALID @timeout_in_millis <= 0.
   */
  Status SetTransferAsyncTimeout(int32_t timeout_in_millis) {
    if (timeout_in_millis <= 0) return Fail("SetTransferAsyncTimeout", "", PARAM_INVALID, "timeout <= 0");
    std::lock_guard<std::mutex> lk(mu_);
    async_timeout_ms_ = timeout_in_millis;
    return SUCCESS;
  }

  /**
   * GetLinkStats() - every link of the engine and its counters, oldest
   * first (hixl extension; hixl_engine_link_stats()).  @links is replaced.
   * LinkStat::local says a link is paired with an engine of this kernel,
   * xfer.local_bytes / xfer.local_ops what its CPU copy moved.
   * Return: SUCCESS; FAILED not initialized, or the module refused
   * (GetRecentErrMsg()); RESOURCE_EXHAUSTED memory.
   */
  Status GetLinkStats(std::vector<LinkStat> &links) {
    links.clear();
    if (eng_ == nullptr) return NotInitialized("GetLinkStats");
    std::vector<hixl_link_stat> v;
    uint32_t total = 0;
    int n = hixl_engine_link_stats(eng_, nullptr, 0, &total);
    while (n >= 0 && total > v.size()) { /* links may come meanwhile */
      v.resize(static_cast<size_t>(total) + 4);
      n = hixl_engine_link_stats(eng_, &v[0], static_cast<uint32_t>(v.size()), &total);
    }
    if (n < 0) return FailErrno("GetLinkStats", "hixl_engine_link_stats", "", n);
    for (int i = 0; i < n; i++) {
      const hixl_link_stat &s = v[static_cast<size_t>(i)];
      char name[HIXL_ENGINE_NAME_MAX];
      LinkStat ls;
      if (!(s.flags & HIXL_LINK_STAT_NAMED) || hixl_format_engine_name(&s.peer, name, sizeof(name)) != 0)
        name[0] = '\0';
      ls.peer = name;
      ls.state = s.state;
      ls.flags = s.flags;
      ls.local = (s.flags & HIXL_LINK_STAT_LOCAL) != 0;
      ls.err = s.err;
      ls.xfer = s.xfer;
      links.push_back(ls);
    }
    return SUCCESS;
  }

  /** NativeHandle() - the C engine, for the C API (hixl_engine_caps(), ...);
   * nullptr when not initialized.  Owned by this object (hixl extension). */
  hixl_engine *NativeHandle() const { return eng_; }

 private:
  hixl_engine *eng_;
  bool auto_connect_;
  int32_t async_timeout_ms_;
  std::mutex mu_;                 /* reqs_, async_timeout_ms_ */
  std::set<hixl_request *> reqs_; /* requests not reported ended yet */

  static bool Flag(const char *v) { return std::strcmp(v, "1") == 0 || std::strcmp(v, "true") == 0; }
  static bool EnvFlag(const char *name) {
    const char *v = std::getenv(name);
    return v != nullptr && Flag(v);
  }
  static hixl_op Op(TransferOp op) { return op == READ ? HIXL_OP_READ : HIXL_OP_WRITE; }
  static std::string HandleName(const void *p) {
    char b[32];
    std::snprintf(b, sizeof(b), "%p", p);
    return b;
  }

  /* free a request reported ended (mu_ held) */
  void Release(hixl_request *r) {
    if (reqs_.erase(r) != 0) hixl_request_free(r);
  }

  static Status Fail(const char *method, const std::string &obj, Status st, const std::string &why) {
    detail::ErrMsg() = std::string("Hixl::") + method + "(" + obj + "): " + hixl_status_str(Cst(st)) + ": " + why;
    return st;
  }
  /* @cfn's message when it is this failure's (the C library records one per
   * failing call), else @cfn and the error's text */
  static Status FailErrno(const char *method, const char *cfn, const std::string &obj, int err, size_t failed = 0,
                          size_t count = 0) {
    const char *last = hixl_last_error();
    const size_t n = std::strlen(cfn);
    std::string why = std::strncmp(last, cfn, n) == 0 && last[n] == '(' ? std::string(last)
                                                                        : std::string(cfn) + ": " + hixl_strerror(err);
    if (failed < count) {
      char b[48];
      std::snprintf(b, sizeof(b), " (descriptor %zu)", failed);
      why += b;
    }
    return Fail(method, obj, StatusFromErrno(err), why);
  }
  static Status NotInitialized(const char *method) { return Fail(method, "", FAILED, "not initialized"); }
  static hixl_status Cst(Status st) {
    switch (st) {
      case SUCCESS: return HIXL_SUCCESS;
      case PARAM_INVALID: return HIXL_PARAM_INVALID;
      case TIMEOUT: return HIXL_TIMEOUT;
      case NOT_CONNECTED: return HIXL_NOT_CONNECTED;
      case ALREADY_CONNECTED: return HIXL_ALREADY_CONNECTED;
      case NOTIFY_FAILED: return HIXL_NOTIFY_FAILED;
      case UNSUPPORTED: return HIXL_UNSUPPORTED;
      case RESOURCE_EXHAUSTED: return HIXL_RESOURCE_EXHAUSTED;
      default: return HIXL_FAILED;
    }
  }

  Status Register(const MemDesc &mem, hixl_mem_type type, int fd, uint64_t offset, MemHandle &mem_handle) {
    if (eng_ == nullptr) return NotInitialized("RegisterMem");
    if (mem.addr == 0) return Fail("RegisterMem", "0", PARAM_INVALID, "addr 0");
    hixl_mem_desc d;
    std::memset(&d, 0, sizeof(d));
    d.addr = mem.addr;
    d.len = mem.len;
    d.flags = mem.local_only ? HIXL_REG_LOCAL_ONLY : 0U;
    d.dmabuf_fd = fd;
    d.dmabuf_offset = offset;
    uint64_t h = 0;
    const int ret = hixl_register_mem(eng_, &d, type, &h);
    if (ret < 0)
      return FailErrno("RegisterMem", "hixl_register_mem", HandleName(reinterpret_cast<const void *>(mem.addr)), ret);
    mem_handle = reinterpret_cast<MemHandle>(static_cast<uintptr_t>(h));
    return SUCCESS;
  }

  /* HIXL's checks, then the C descriptors */
  static Status Convert(const char *method, const AscendString &remote, TransferOp op,
                        const std::vector<TransferOpDesc> &in, std::vector<hixl_op_desc> &out) {
    if (op != READ && op != WRITE) return Fail(method, remote.GetString(), PARAM_INVALID, "unknown TransferOp");
    if (in.empty()) return Fail(method, remote.GetString(), PARAM_INVALID, "no descriptors");
    out.resize(in.size());
    for (size_t i = 0; i < in.size(); i++) {
      if (in[i].local_addr == 0 || in[i].remote_addr == 0)
        return Fail(method, remote.GetString(), PARAM_INVALID, "a descriptor with address 0");
      out[i].local_addr = in[i].local_addr;
      out[i].remote_addr = in[i].remote_addr;
      out[i].len = in[i].len;
    }
    return SUCCESS;
  }
};

}  // namespace hixl

#endif /* HIXL_HIXL_HPP */
