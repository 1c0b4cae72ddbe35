// SPDX-License-Identifier: GPL-2.0
/*
 * hixl-cpp-test - tests of <hixl/hixl.hpp>, the C++ API (class hixl::Hixl).
 *
 * Usage: hixl-cpp-test [NAME...]   (no name: every test)
 * Prints TAP: "1..N", then "ok N - name", "not ok N - name" or
 * "ok N - name # SKIP reason".  Exit status 0 when nothing failed.
 *
 * Each test runs in a child process (a crash fails that test only) with a
 * 120 s limit.  Engines live on the test VM's rxe0, 10.77.0.1, ports
 * 19100..19199; without /dev/hixl or rxe0 the tests that need them SKIP.
 * Run from the repository (the sample test runs examples/cpp/hixl_sample).
 */
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <hixl/hixl.hpp>

using namespace hixl;

namespace {

#define IP "10.77.0.1"
int g_failures;
int g_skip_fd = -1;

[[noreturn]] void Skip(const char *why) {
  if (write(g_skip_fd, why, strlen(why)) < 0) perror("write");
  std::fflush(stdout);
  _exit(77);
}

const char *StName(Status st) {
  switch (st) {
    case SUCCESS: return "SUCCESS";
    case PARAM_INVALID: return "PARAM_INVALID";
    case TIMEOUT: return "TIMEOUT";
    case NOT_CONNECTED: return "NOT_CONNECTED";
    case ALREADY_CONNECTED: return "ALREADY_CONNECTED";
    case NOTIFY_FAILED: return "NOTIFY_FAILED";
    case UNSUPPORTED: return "UNSUPPORTED";
    case RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case FAILED: return "FAILED";
    default: return "?";
  }
}

#define CHECK(c)                                                                   \
  do {                                                                             \
    if (!(c)) {                                                                    \
      std::printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c);         \
      g_failures++;                                                                \
    }                                                                              \
  } while (0)
#define CHECK_EQ(a, b)                                                             \
  do {                                                                             \
    long long a_ = (long long)(a), b_ = (long long)(b);                            \
    if (a_ != b_) {                                                                \
      std::printf("#   %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, \
                  #a, #b, a_, b_);                                                 \
      g_failures++;                                                                \
    }                                                                              \
  } while (0)
/* a Status: prints both names and the recent error message */
#define CHECK_ST(expr, want)                                                       \
  do {                                                                             \
    Status got_ = (expr);                                                          \
    if (got_ != (want)) {                                                          \
      std::printf("#   %s:%d: %s: %s, want %s (%s)\n", __FILE__, __LINE__, #expr,   \
                  StName(got_), StName(want), GetRecentErrMsg());                  \
      g_failures++;                                                                \
    }                                                                              \
  } while (0)
#define REQUIRE(c)                                                                 \
  do {                                                                             \
    if (!(c)) {                                                                    \
      std::printf("#   %s:%d: REQUIRE(%s) failed (%s)\n", __FILE__, __LINE__, #c,    \
                  GetRecentErrMsg());                                              \
      g_failures++;                                                                \
      return;                                                                      \
    }                                                                              \
  } while (0)

void NeedDevice() {
  if (access("/dev/hixl", F_OK) != 0) Skip("no /dev/hixl: hixl.ko not loaded");
}

/* Initialize @h on @name; SKIPs without /dev/hixl or rxe0 */
Status Init(Hixl &h, const char *name, const std::map<AscendString, AscendString> &opts = {}) {
  NeedDevice();
  Status st = h.Initialize(name, opts);
  const char *m = GetRecentErrMsg();
  if (st != SUCCESS && (strstr(m, "(-EADDRNOTAVAIL)") || strstr(m, "(-ENODEV)")))
    Skip("no RDMA device on " IP " (rxe0 in the test VM)");
  if (st != SUCCESS) std::printf("#   Initialize(%s): %s: %s\n", name, StName(st), m);
  return st;
}

/* a page-aligned zeroed buffer, never freed (the process ends) */
uint8_t *Buf(size_t len) {
  void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
}
void Fill(uint8_t *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++) p[i] = static_cast<uint8_t>((i * 131 + seed * 7 + (i >> 12)) & 0xff);
}
uintptr_t U(const void *p) { return reinterpret_cast<uintptr_t>(p); }
Status Reg(Hixl &h, const void *p, size_t len, MemHandle *out = nullptr, bool local_only = false) {
  MemDesc d{};
  d.addr = U(p);
  d.len = len;
  d.local_only = local_only;
  MemHandle m = nullptr;
  Status st = h.RegisterMem(d, MEM_HOST, m);
  if (out) *out = m;
  return st;
}
void Sleep(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

/* poll GetTransferStatus(req) until it is not WAITING (10 s) */
Status Wait(Hixl &h, TransferReq req, TransferStatus &st) {
  Status ret = SUCCESS;
  for (int i = 0; i < 2000; i++) {
    ret = h.GetTransferStatus(req, st);
    if (ret != SUCCESS || st != TransferStatus::WAITING) break;
    Sleep(5);
  }
  return ret;
}
/* poll GetAsyncConnectStatus(remote) until it is neither of @a, @b (10 s) */
AsyncConnectStatus WaitConn(Hixl &h, const char *remote, AsyncConnectStatus a, AsyncConnectStatus b) {
  AsyncConnectStatus st = a;
  for (int i = 0; i < 1000; i++) {
    if (h.GetAsyncConnectStatus(remote, st) != SUCCESS || (st != a && st != b)) break;
    Sleep(10);
  }
  return st;
}

/* ---- without a device --------------------------------------------------- */

void TestTypes() {
  CHECK_EQ(SUCCESS, 0);
  CHECK_EQ(PARAM_INVALID, 103900);
  CHECK_EQ(TIMEOUT, 103901);
  CHECK_EQ(NOT_CONNECTED, 103902);
  CHECK_EQ(ALREADY_CONNECTED, 103903);
  CHECK_EQ(NOTIFY_FAILED, 103904);
  CHECK_EQ(UNSUPPORTED, 103905);
  CHECK_EQ(RESOURCE_EXHAUSTED, 203900);
  CHECK_EQ(FAILED, 503900);
  CHECK_EQ(AUTO_CONNECT, 0);
  CHECK_EQ(CLIENT_SERVER_COMM, 1);
  CHECK_EQ(FEATURE_SUPPORTED, 1);
  CHECK_EQ(FEATURE_NOT_SUPPORTED, 0);
  CHECK_EQ(MEM_DEVICE, 0);
  CHECK_EQ(MEM_HOST, 1);
  CHECK_EQ(READ, 0);
  CHECK_EQ(WRITE, 1);
  CHECK_EQ(static_cast<int>(TransferStatus::FAILED), 3);
  CHECK_EQ(static_cast<int>(AsyncConnectStatus::DISCONNECTING), 6);
  CHECK(!strcmp(OPTION_BUFFER_POOL, "BufferPool"));
  CHECK(!strcmp(OPTION_RDMA_TRAFFIC_CLASS, "RdmaTrafficClass"));
  CHECK(!strcmp(OPTION_RDMA_SERVICE_LEVEL, "RdmaServiceLevel"));
  CHECK(!strcmp(OPTION_AUTO_CONNECT, "AutoConnect"));
  CHECK(!strcmp(OPTION_GLOBAL_RESOURCE_CONFIG, "GlobalResourceConfig"));
  CHECK(!strcmp(OPTION_LOCAL_COMM_RES, "LocalCommRes"));
  CHECK(!strcmp(OPTION_ENABLE_USE_FABRIC_MEM, "EnableUseFabricMem"));
  /* HIXL's layouts (x86-64) */
  CHECK_EQ(sizeof(MemDesc), 144);
  CHECK_EQ(sizeof(TransferOpDesc), 24);
  CHECK_EQ(sizeof(TransferArgs), 128);
  CHECK_EQ(sizeof(GetTransferStatusArgs), 128);
  CHECK_EQ(sizeof(TransferResult), 128);
  /* and defaults */
  MemDesc m{};
  CHECK_EQ(m.local_only, false);
  CHECK_EQ(m.reserved[126], 0);
  MemDesc m2{0x1000, 64};
  CHECK_EQ(m2.addr, 0x1000);
  CHECK_EQ(m2.len, 64);
  CHECK_EQ(m2.local_only, false);
  GetTransferStatusArgs g;
  CHECK_EQ(g.max_query_count, UINT32_MAX);
  CHECK_EQ(g.skip_waiting, false);
  TransferArgs a{};
  CHECK(a.user_data == nullptr);
  TransferResult r;
  CHECK(r.req == nullptr && r.user_data == nullptr && r.status == TransferStatus::WAITING);
}

void TestAscendString() {
  AscendString e, n(nullptr), s("kv"), t("kv\0x", 4);
  CHECK(!strcmp(e.GetString(), "") && e.GetLength() == 0);
  CHECK(!strcmp(n.GetString(), "") && n == e);
  CHECK(!strcmp(s.GetString(), "kv") && s.GetLength() == 2);
  CHECK_EQ(t.GetLength(), 4);
  CHECK(!memcmp(t.GetString(), "kv\0x", 4));
  CHECK(s != t && s < t && t > s && s <= t && t >= s && s <= s && s >= s);
  CHECK(s == "kv" && s != "kw" && e == nullptr && !(s == nullptr));
  CHECK(AscendString(s) == s);
  CHECK_EQ(t.Find("x"), 3);
  CHECK_EQ(s.Find("q"), std::string::npos);
  CHECK_EQ(s.Hash(), AscendString("kv").Hash());
  std::map<AscendString, AscendString> m;
  m["b"] = "2";
  m[OPTION_BUFFER_POOL] = "0:0";
  CHECK_EQ(m.size(), 2);
  CHECK(!strcmp(m.begin()->first.GetString(), "BufferPool"));
  std::unordered_map<AscendString, int> u;
  u["a"] = 1;
  CHECK_EQ(u.count("a"), 1);
}

void TestStatusAndCapability() {
  CHECK_EQ(StatusFromErrno(0), SUCCESS);
  CHECK_EQ(StatusFromErrno(-EINVAL), PARAM_INVALID);
  CHECK_EQ(StatusFromErrno(-ETIMEDOUT), TIMEOUT);
  CHECK_EQ(StatusFromErrno(-ENOTCONN), NOT_CONNECTED);
  CHECK_EQ(StatusFromErrno(-EISCONN), ALREADY_CONNECTED);
  CHECK_EQ(StatusFromErrno(-ECOMM), NOTIFY_FAILED);
  CHECK_EQ(StatusFromErrno(-EOPNOTSUPP), UNSUPPORTED);
  CHECK_EQ(StatusFromErrno(-ENOSPC), RESOURCE_EXHAUSTED);
  CHECK_EQ(StatusFromErrno(-EIO), FAILED);
  int32_t v = 7;
  CHECK_ST(Hixl::GetCapability(AUTO_CONNECT, v), SUCCESS);
  CHECK_EQ(v, FEATURE_SUPPORTED);
  v = 7;
  CHECK_ST(Hixl::GetCapability(CLIENT_SERVER_COMM, v), SUCCESS);
  CHECK_EQ(v, FEATURE_SUPPORTED);
  v = 7;
  CHECK_ST(Hixl::GetCapability(static_cast<FeatureType>(42), v), SUCCESS);
  CHECK_EQ(v, FEATURE_NOT_SUPPORTED);
  v = 7;
  CHECK_ST(Hixl::GetCapability(static_cast<FeatureType>(-1), v), PARAM_INVALID);
  CHECK_EQ(v, 7);
}

/* every method before Initialize(): FAILED, nothing touched */
void TestUninitialized() {
  Hixl h;
  MemHandle mh = reinterpret_cast<MemHandle>(1);
  TransferReq req = reinterpret_cast<TransferReq>(1);
  TransferStatus ts = TransferStatus::COMPLETED;
  AsyncConnectStatus cs = AsyncConnectStatus::CONNECTED;
  std::map<AscendString, AsyncConnectStatus> all;
  std::vector<TransferResult> res(1);
  std::vector<NotifyDesc> nots(1);
  std::vector<TransferOpDesc> d(1, TransferOpDesc{1, 1, 1});
  MemDesc m{};
  m.addr = 4096;
  m.len = 4096;
  CHECK(h.NativeHandle() == nullptr);
  CHECK_ST(h.RegisterMem(m, MEM_HOST, mh), FAILED);
  CHECK(!strcmp(GetRecentErrMsg(), "Hixl::RegisterMem(): FAILED: not initialized"));
  CHECK(mh == reinterpret_cast<MemHandle>(1));
  CHECK_ST(h.RegisterDmaBuf(m, 0, 0, mh), FAILED);
  CHECK_ST(h.DeregisterMem(mh), FAILED);
  CHECK_ST(h.Connect(IP ":19199"), FAILED);
  CHECK_ST(h.Disconnect(IP ":19199"), FAILED);
  CHECK_ST(h.ConnectAsync(IP ":19199"), FAILED);
  CHECK_ST(h.DisconnectAsync(IP ":19199"), FAILED);
  CHECK_ST(h.GetAsyncConnectStatus(IP ":19199", cs), FAILED);
  CHECK(cs == AsyncConnectStatus::CONNECTED);
  CHECK_ST(h.GetAsyncConnectStatus(all), FAILED);
  CHECK_ST(h.TransferSync(IP ":19199", WRITE, d), FAILED);
  CHECK_ST(h.TransferAsync(IP ":19199", WRITE, d, TransferArgs(), req), FAILED);
  CHECK(req == reinterpret_cast<TransferReq>(1));
  CHECK_ST(h.GetTransferStatus(req, ts), FAILED);
  CHECK_ST(h.GetTransferStatus(GetTransferStatusArgs(), res), FAILED);
  CHECK(res.empty());
  CHECK_ST(h.SendNotify(IP ":19199", NotifyDesc{"n", "m"}), FAILED);
  CHECK_ST(h.GetNotifies(nots), FAILED);
  CHECK(nots.empty());
  h.Finalize();  /* nothing to do, twice */
  h.Finalize();
}

/* ---- one engine ----------------------------------------------------------- */

void TestInitialize() {
  Hixl h;
  REQUIRE(Init(h, IP ":19100") == SUCCESS);
  CHECK(h.NativeHandle() != nullptr);
  CHECK_ST(h.Initialize(IP ":19100", {}), FAILED);  /* twice */
  h.Finalize();
  CHECK(h.NativeHandle() == nullptr);
  CHECK_ST(h.Initialize("not an address", {}), PARAM_INVALID);
  std::printf("#   %s\n", GetRecentErrMsg());
  CHECK(strstr(GetRecentErrMsg(), "Hixl::Initialize(not an address): PARAM_INVALID: ") != nullptr);
  CHECK_ST(h.Initialize(IP ":19100", {{"NoSuchOption", "1"}}), PARAM_INVALID);
  CHECK_ST(h.Initialize(IP ":19100", {{OPTION_BUFFER_POOL, "9999:1"}}), PARAM_INVALID);
  CHECK_ST(h.Initialize(IP ":19100", {{OPTION_AUTO_CONNECT, "maybe"}}), PARAM_INVALID);
  CHECK_ST(h.Initialize(IP ":19100", {{OPTION_GLOBAL_RESOURCE_CONFIG, "{}"}}), UNSUPPORTED);
  CHECK_ST(h.Initialize(IP ":19100", {{OPTION_LOCAL_COMM_RES, "{}"}}), UNSUPPORTED);
  CHECK_ST(h.Initialize(IP ":19100", {{OPTION_ENABLE_USE_FABRIC_MEM, "1"}}), UNSUPPORTED);
  CHECK(h.NativeHandle() == nullptr);
  {
    Hixl other;  /* the port is taken */
    REQUIRE(Init(other, IP ":19100") == SUCCESS);
    CHECK_ST(h.Initialize(IP ":19100", {}), FAILED);
  }  /* ~Hixl finalized it: the port is free again */
  CHECK_ST(h.Initialize(IP ":19100", {{OPTION_BUFFER_POOL, "2:4"}, {OPTION_RDMA_TRAFFIC_CLASS, "104"},
                                      {OPTION_RDMA_SERVICE_LEVEL, "3"}, {OPTION_AUTO_CONNECT, "0"}}),
           SUCCESS);
}

void TestRegisterMem() {
  Hixl h;
  const size_t len = 1 << 20;
  uint8_t *p = Buf(len);
  MemHandle a = nullptr, b = nullptr, c = reinterpret_cast<MemHandle>(1);
  REQUIRE(p && Init(h, IP ":19105") == SUCCESS);
  CHECK_ST(Reg(h, p, len / 2, &a), SUCCESS);
  CHECK(a != nullptr);
  CHECK_ST(Reg(h, p + len / 2, len / 2, &b, true), SUCCESS);  /* local_only */
  CHECK(b != nullptr && b != a);
  MemDesc d{};
  d.addr = U(p);
  d.len = 4096;
  CHECK_ST(h.RegisterMem(d, MEM_HOST, c), PARAM_INVALID);  /* overlaps a */
  CHECK(c == reinterpret_cast<MemHandle>(1));
  CHECK_ST(h.RegisterMem(d, MEM_DEVICE, c), UNSUPPORTED);
  CHECK(strstr(GetRecentErrMsg(), "RegisterDmaBuf") != nullptr);
  CHECK_ST(h.RegisterMem(d, static_cast<MemType>(7), c), PARAM_INVALID);
  d.addr = 0;
  CHECK_ST(h.RegisterMem(d, MEM_HOST, c), PARAM_INVALID);
  d.addr = U(p) + len;
  d.len = 0;
  CHECK_ST(h.RegisterMem(d, MEM_HOST, c), PARAM_INVALID);
  d.len = UINT64_MAX - 10;
  CHECK_ST(h.RegisterMem(d, MEM_HOST, c), PARAM_INVALID);  /* wraps */
  CHECK(c == reinterpret_cast<MemHandle>(1));
  CHECK_ST(h.DeregisterMem(a), SUCCESS);
  CHECK_ST(h.DeregisterMem(a), PARAM_INVALID);  /* gone */
  CHECK_ST(h.DeregisterMem(nullptr), PARAM_INVALID);
  CHECK_ST(h.DeregisterMem(reinterpret_cast<MemHandle>(0x12345)), PARAM_INVALID);
  CHECK_ST(Reg(h, p, len / 2, &a), SUCCESS);  /* again, after its deregistration */
  CHECK_ST(h.DeregisterMem(b), SUCCESS);
}

/* RegisterDmaBuf: a udmabuf over a memfd, written by a peer */
void TestRegisterDmaBuf() {
  Hixl dev, peer;
  const size_t len = 1 << 20;
  REQUIRE(Init(dev, IP ":19110") == SUCCESS && Init(peer, IP ":19111") == SUCCESS);
  int ufd = open("/dev/udmabuf", O_RDWR);
  if (ufd < 0) Skip("no /dev/udmabuf (CONFIG_UDMABUF)");
  int mfd = memfd_create("hixl-cpp", MFD_ALLOW_SEALING);
  REQUIRE(mfd >= 0 && ftruncate(mfd, len) == 0 && fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0);
  struct udmabuf_create uc;
  memset(&uc, 0, sizeof(uc));
  uc.memfd = static_cast<uint32_t>(mfd);
  uc.size = len;
  int dfd = ioctl(ufd, UDMABUF_CREATE, &uc);
  REQUIRE(dfd >= 0);
  uint8_t *view = static_cast<uint8_t *>(mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0));
  uint8_t *src = Buf(len);
  REQUIRE(view != MAP_FAILED && src);
  const uintptr_t devaddr = 0x7e0000000000ULL;  /* a device address: any value */
  MemHandle h = nullptr, bad = nullptr;
  MemDesc d{};
  d.addr = devaddr;
  d.len = len;
  CHECK_ST(dev.RegisterDmaBuf(d, mfd, 0, bad), PARAM_INVALID);  /* not a dma-buf */
  CHECK_ST(dev.RegisterDmaBuf(d, dfd, 100, bad), PARAM_INVALID);  /* misaligned */
  CHECK(bad == nullptr);
  REQUIRE(dev.RegisterDmaBuf(d, dfd, 0, h) == SUCCESS);
  REQUIRE(Reg(peer, src, len) == SUCCESS);
  REQUIRE(peer.Connect(IP ":19110", 5000) == SUCCESS);
  Fill(src, len, 3);
  CHECK_ST(peer.TransferSync(IP ":19110", WRITE, {{U(src), devaddr, len}}, 10000), SUCCESS);
  CHECK_EQ(memcmp(view, src, len), 0);
  CHECK_ST(dev.DeregisterMem(h), SUCCESS);
}

/* ---- links ----------------------------------------------------------------- */

void TestConnect() {
  Hixl srv, cli;
  AsyncConnectStatus cs = AsyncConnectStatus::CONNECTED;
  REQUIRE(Init(srv, IP ":19120") == SUCCESS && Init(cli, IP) == SUCCESS);
  CHECK_ST(cli.GetAsyncConnectStatus(IP ":19120", cs), SUCCESS);
  CHECK(cs == AsyncConnectStatus::NOT_CONNECT);
  CHECK_ST(cli.Disconnect(IP ":19120"), NOT_CONNECTED);
  CHECK_ST(cli.Connect(IP ":19120", 0), PARAM_INVALID);
  CHECK_ST(cli.Connect(IP ":19120", -5), PARAM_INVALID);
  CHECK_ST(cli.Connect(IP, 1000), PARAM_INVALID);  /* no port */
  CHECK_ST(cli.Connect("nope:1", 1000), PARAM_INVALID);
  CHECK_ST(cli.GetAsyncConnectStatus("nope", cs), PARAM_INVALID);
  CHECK_ST(cli.Connect(IP ":19120", 5000), SUCCESS);
  CHECK_ST(cli.GetAsyncConnectStatus(IP ":19120", cs), SUCCESS);
  CHECK(cs == AsyncConnectStatus::CONNECTED);
  CHECK_ST(cli.Connect(IP ":19120", 5000), ALREADY_CONNECTED);
  CHECK_ST(cli.ConnectAsync(IP ":19120", 5000), ALREADY_CONNECTED);
  CHECK_ST(cli.Disconnect(IP ":19120", 0), PARAM_INVALID);
  CHECK_ST(cli.Disconnect(IP ":19120"), SUCCESS);
  CHECK_ST(cli.Disconnect(IP ":19120"), NOT_CONNECTED);
  CHECK_ST(cli.Connect(IP ":19120"), SUCCESS);  /* the default 1000 ms */
  /* nobody listens: refused attempts are retried until the timeout */
  auto t0 = std::chrono::steady_clock::now();
  CHECK_ST(cli.Connect(IP ":19121", 700), TIMEOUT);
  long ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - t0).count());
  std::printf("#   Connect to a closed port: TIMEOUT after %ld ms (asked 700): %s\n", ms, GetRecentErrMsg());
  CHECK(ms >= 600 && ms < 5000);
  CHECK(strstr(GetRecentErrMsg(), "Hixl::Connect(" IP ":19121): TIMEOUT: ") != nullptr);
}

void TestConnectAsync() {
  Hixl srv, cli;
  std::map<AscendString, AsyncConnectStatus> all;
  REQUIRE(Init(srv, IP ":19125") == SUCCESS && Init(cli, IP) == SUCCESS);
  CHECK_ST(cli.GetAsyncConnectStatus(all), SUCCESS);
  CHECK(all.empty());
  CHECK_ST(cli.ConnectAsync(IP ":19125", 0), PARAM_INVALID);
  CHECK_ST(cli.DisconnectAsync(IP ":19125"), NOT_CONNECTED);
  CHECK_ST(cli.DisconnectAsync(IP ":19125", 0), PARAM_INVALID);
  CHECK_ST(cli.ConnectAsync(IP ":19125", 5000), SUCCESS);
  CHECK(WaitConn(cli, IP ":19125", AsyncConnectStatus::CONNECT_PENDING, AsyncConnectStatus::CONNECTING) ==
        AsyncConnectStatus::CONNECTED);
  /* one that fails: nobody listens */
  CHECK_ST(cli.ConnectAsync(IP ":19126", 500), SUCCESS);
  CHECK(WaitConn(cli, IP ":19126", AsyncConnectStatus::CONNECT_PENDING, AsyncConnectStatus::CONNECTING) ==
        AsyncConnectStatus::CONNECT_FAILED);
  std::printf("#   CONNECT_FAILED: %s\n", GetRecentErrMsg());
  CHECK(strstr(GetRecentErrMsg(), "Hixl::GetAsyncConnectStatus(" IP ":19126): TIMEOUT") != nullptr);
  CHECK_ST(cli.GetAsyncConnectStatus(all), SUCCESS);
  CHECK_EQ(all.size(), 2);
  CHECK(all.count(IP ":19125") && all[IP ":19125"] == AsyncConnectStatus::CONNECTED);
  CHECK(all.count(IP ":19126") && all[IP ":19126"] == AsyncConnectStatus::CONNECT_FAILED);
  CHECK_ST(cli.Disconnect(IP ":19126"), NOT_CONNECTED);  /* clears CONNECT_FAILED */
  CHECK_ST(cli.DisconnectAsync(IP ":19125", 1000), SUCCESS);
  CHECK(WaitConn(cli, IP ":19125", AsyncConnectStatus::DISCONNECT_PENDING, AsyncConnectStatus::DISCONNECTING) ==
        AsyncConnectStatus::NOT_CONNECT);
  CHECK_ST(cli.GetAsyncConnectStatus(all), SUCCESS);
  CHECK(all.empty());
}

/* ---- transfers -------------------------------------------------------------- */

struct Pair {
  Hixl a, b;  /* a at IP:port connected to b at IP:port+1 */
  uint8_t *la = nullptr, *lb = nullptr;
  size_t len = 0;
  std::string bname;
  bool Up(int port, size_t l, const std::map<AscendString, AscendString> &opts = {}) {
    len = l;
    la = Buf(len);
    lb = Buf(len);
    bname = IP ":" + std::to_string(port + 1);
    return la && lb && Init(a, (IP ":" + std::to_string(port)).c_str(), opts) == SUCCESS &&
           Init(b, bname.c_str(), opts) == SUCCESS && Reg(a, la, len) == SUCCESS && Reg(b, lb, len) == SUCCESS &&
           a.Connect(bname.c_str(), 5000) == SUCCESS;
  }
};

void TestTransferSync() {
  Pair p;
  REQUIRE(p.Up(19130, 4 << 20));
  const char *b = p.bname.c_str();
  Fill(p.la, p.len, 1);
  std::vector<TransferOpDesc> d;
  for (size_t off = 0; off < p.len; off += 64 << 10) d.push_back({U(p.la) + off, U(p.lb) + off, 64 << 10});
  CHECK_ST(p.a.TransferSync(b, WRITE, d, 10000), SUCCESS);
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
  Fill(p.lb, p.len, 2);
  CHECK_ST(p.a.TransferSync(b, READ, {{U(p.la), U(p.lb), p.len}}, 10000), SUCCESS);
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
  /* argument errors */
  CHECK_ST(p.a.TransferSync(b, WRITE, {}, 1000), PARAM_INVALID);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{0, U(p.lb), 1}}, 1000), PARAM_INVALID);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), 0, 1}}, 1000), PARAM_INVALID);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), 0}}, 1000), PARAM_INVALID);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), 1}}, 0), PARAM_INVALID);
  CHECK_ST(p.a.TransferSync(b, static_cast<TransferOp>(5), {{U(p.la), U(p.lb), 1}}, 1000), PARAM_INVALID);
  /* ranges not registered: local, remote (the second descriptor is named) */
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la) + p.len - 1, U(p.lb), 2}}, 1000), PARAM_INVALID);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), 1}, {U(p.la), U(p.lb) + p.len, 1}}, 1000),
           PARAM_INVALID);
  std::printf("#   %s\n", GetRecentErrMsg());
  CHECK(strstr(GetRecentErrMsg(), "(descriptor 1)") != nullptr);
  CHECK_ST(p.b.TransferSync(IP ":19139", WRITE, {{U(p.lb), U(p.la), 1}}, 1000), NOT_CONNECTED);
  /* the link still works */
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), 4096}}, 5000), SUCCESS);
}

/* local_only: this engine's own side of transfers only */
void TestLocalOnly() {
  Pair p;
  REQUIRE(p.Up(19132, 1 << 16, {{OPTION_BUFFER_POOL, "0:0"}}));
  uint8_t *mine = Buf(1 << 16);
  MemHandle h = nullptr;
  REQUIRE(mine && Reg(p.b, mine, 1 << 16, &h, true) == SUCCESS);
  const char *b = p.bname.c_str();
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(mine), 4096}}, 5000), PARAM_INVALID);
  CHECK_ST(p.a.TransferSync(b, READ, {{U(p.la), U(mine), 4096}}, 5000), PARAM_INVALID);
  Fill(mine, 1 << 16, 4);  /* b may write from it over a's link */
  CHECK_ST(p.b.TransferSync(IP ":19132", WRITE, {{U(mine), U(p.la), 1 << 16}}, 5000), SUCCESS);
  CHECK_EQ(memcmp(mine, p.la, 1 << 16), 0);
  CHECK_ST(p.b.DeregisterMem(h), SUCCESS);
}

void TestTransferAsync() {
  Pair p;
  Hixl other;
  REQUIRE(p.Up(19135, 4 << 20) && Init(other, IP ":19137") == SUCCESS);
  const char *b = p.bname.c_str();
  Fill(p.la, p.len, 5);
  TransferReq req = nullptr, kept = reinterpret_cast<TransferReq>(3);
  TransferStatus st = TransferStatus::WAITING;
  int tag = 0;
  CHECK_ST(p.a.TransferAsync(b, WRITE, {{U(p.la), U(p.lb), p.len}}, TransferArgs{&tag}, req), SUCCESS);
  CHECK(req != nullptr);
  CHECK_ST(Wait(p.a, req, st), SUCCESS);
  CHECK(st == TransferStatus::COMPLETED);
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
  /* reported ended: freed, unknown from now on */
  st = TransferStatus::WAITING;
  CHECK_ST(p.a.GetTransferStatus(req, st), PARAM_INVALID);
  CHECK(st == TransferStatus::FAILED);
  CHECK_ST(p.a.GetTransferStatus(nullptr, st), FAILED);
  CHECK_ST(p.a.GetTransferStatus(reinterpret_cast<TransferReq>(&tag), st), PARAM_INVALID);  /* not one */
  /* READ back, then ask another engine about it */
  Fill(p.lb, p.len, 6);
  CHECK_ST(p.a.TransferAsync(b, READ, {{U(p.la), U(p.lb), p.len}}, TransferArgs(), req), SUCCESS);
  CHECK_ST(other.GetTransferStatus(req, st), PARAM_INVALID);
  CHECK_ST(Wait(p.a, req, st), SUCCESS);
  CHECK(st == TransferStatus::COMPLETED);
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
  /* errors at submission; req untouched */
  CHECK_ST(p.a.TransferAsync(b, WRITE, {}, TransferArgs(), kept), PARAM_INVALID);
  CHECK_ST(p.a.TransferAsync(b, WRITE, {{0, U(p.lb), 1}}, TransferArgs(), kept), PARAM_INVALID);
  CHECK_ST(p.a.TransferAsync(IP ":19139", WRITE, {{U(p.la), U(p.lb), 1}}, TransferArgs(), kept), NOT_CONNECTED);
  CHECK_ST(p.a.TransferAsync("bad name", WRITE, {{U(p.la), U(p.lb), 1}}, TransferArgs(), kept), PARAM_INVALID);
  CHECK(kept == reinterpret_cast<TransferReq>(3));
  /* a descriptor error ends the request FAILED */
  CHECK_ST(p.a.TransferAsync(b, WRITE, {{U(p.la), U(p.lb) + p.len, 1}}, TransferArgs(), req), SUCCESS);
  CHECK_ST(Wait(p.a, req, st), SUCCESS);
  CHECK(st == TransferStatus::FAILED);
  CHECK_ST(p.a.SetTransferAsyncTimeout(0), PARAM_INVALID);
  CHECK_ST(p.a.SetTransferAsyncTimeout(30000), SUCCESS);
}

/* GetTransferStatus(args, results): ended requests once, with user_data */
void TestTransferStatusAll() {
  Pair p;
  REQUIRE(p.Up(19140, 8 << 20));
  const char *b = p.bname.c_str();
  std::vector<TransferResult> res(3);
  CHECK_ST(p.a.GetTransferStatus(GetTransferStatusArgs(), res), SUCCESS);
  CHECK(res.empty());
  const int n = 8;
  const size_t chunk = p.len / n;
  int tags[n];
  std::vector<TransferReq> reqs(n);
  Fill(p.la, p.len, 7);
  for (int i = 0; i < n; i++) {
    TransferArgs args{};
    args.user_data = &tags[i];
    REQUIRE(p.a.TransferAsync(b, WRITE, {{U(p.la) + i * chunk, U(p.lb) + i * chunk, chunk}}, args, reqs[i]) ==
            SUCCESS);
  }
  GetTransferStatusArgs zero;
  zero.max_query_count = 0;
  CHECK_ST(p.a.GetTransferStatus(zero, res), SUCCESS);
  CHECK(res.empty());
  /* the first one, whatever its state: at most one entry */
  GetTransferStatusArgs one;
  one.max_query_count = 1;
  CHECK_ST(p.a.GetTransferStatus(one, res), SUCCESS);
  CHECK_EQ(res.size(), 1);
  int seen[n] = {0}, waiting = 0;
  for (int polls = 0; polls < 2000; polls++) {
    for (size_t k = 0; k < res.size(); k++) {
      const int i = static_cast<int>(static_cast<const int *>(res[k].user_data) - tags);
      REQUIRE(i >= 0 && i < n && res[k].req == reqs[i]);
      if (res[k].status == TransferStatus::WAITING) {
        waiting++;
        continue;
      }
      CHECK(res[k].status == TransferStatus::COMPLETED);
      seen[i]++;
    }
    int done = 0;
    for (int i = 0; i < n; i++) done += seen[i] != 0;
    if (done == n) break;
    GetTransferStatusArgs args;
    args.skip_waiting = polls % 2 == 0;  /* both ways */
    CHECK_ST(p.a.GetTransferStatus(args, res), SUCCESS);
    if (res.empty()) Sleep(5);
  }
  std::printf("#   WAITING entries seen: %d\n", waiting);
  for (int i = 0; i < n; i++) CHECK_EQ(seen[i], 1);  /* each ended request once */
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
  CHECK_ST(p.a.GetTransferStatus(GetTransferStatusArgs(), res), SUCCESS);
  CHECK(res.empty());
  TransferStatus st;
  CHECK_ST(p.a.GetTransferStatus(reqs[0], st), PARAM_INVALID);  /* freed when reported */
}

void TestTimeouts() {
  Pair p;
  REQUIRE(p.Up(19145, 64 << 20));
  const char *b = p.bname.c_str();
  TransferReq req = nullptr;
  TransferStatus st = TransferStatus::WAITING;
  CHECK_ST(p.a.SetTransferAsyncTimeout(1), SUCCESS);
  CHECK_ST(p.a.TransferAsync(b, WRITE, {{U(p.la), U(p.lb), p.len}}, TransferArgs(), req), SUCCESS);
  CHECK_ST(Wait(p.a, req, st), SUCCESS);
  CHECK(st == TransferStatus::TIMEOUT);
  /* the link broke; connect again for the synchronous one */
  (void)p.a.Disconnect(b);
  REQUIRE(p.a.Connect(b, 5000) == SUCCESS);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), p.len}}, 1), TIMEOUT);
  std::printf("#   %s\n", GetRecentErrMsg());
}

void TestAutoConnect() {
  Pair p;
  REQUIRE(p.Up(19150, 1 << 16, {{OPTION_AUTO_CONNECT, "1"}}));
  CHECK_ST(p.a.Disconnect(p.bname.c_str()), SUCCESS);
  const char *b = p.bname.c_str();
  Fill(p.la, p.len, 8);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), p.len}}, 5000), SUCCESS);  /* connects */
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
  CHECK_ST(p.a.Disconnect(b), SUCCESS);
  TransferReq req = nullptr;
  TransferStatus st;
  CHECK_ST(p.a.TransferAsync(b, READ, {{U(p.la), U(p.lb), p.len}}, TransferArgs(), req), SUCCESS);
  CHECK_ST(Wait(p.a, req, st), SUCCESS);
  CHECK(st == TransferStatus::COMPLETED);
  CHECK_ST(p.a.Disconnect(b), SUCCESS);
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{"auto", ""}, 5000), SUCCESS);
}

void TestNotify() {
  Pair p;
  REQUIRE(p.Up(19155, 4096));
  const char *b = p.bname.c_str();
  std::vector<NotifyDesc> got;
  CHECK_ST(p.b.GetNotifies(got), SUCCESS);
  CHECK(got.empty());
  const std::string big(1024, 'n'), bigger(1025, 'n');
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{"kv-ready", AscendString("blk\0 7", 6)}), SUCCESS);
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{big.c_str(), big.c_str()}, 5000), SUCCESS);
  for (int i = 0; i < 40; i++) CHECK_ST(p.a.SendNotify(b, NotifyDesc{"n", std::to_string(i).c_str()}), SUCCESS);
  std::vector<NotifyDesc> all;
  for (int polls = 0; polls < 1000 && all.size() < 42; polls++) {
    CHECK_ST(p.b.GetNotifies(got), SUCCESS);
    all.insert(all.end(), got.begin(), got.end());
    if (got.empty()) Sleep(10);
  }
  REQUIRE(all.size() == 42);
  CHECK(all[0].name == "kv-ready" && all[0].notify_msg == AscendString("blk\0 7", 6));
  CHECK(all[1].name == big.c_str() && all[1].notify_msg.GetLength() == 1024);
  for (int i = 0; i < 40; i++) CHECK(all[2 + i].notify_msg == std::to_string(i).c_str());  /* in order */
  CHECK_ST(p.b.GetNotifies(got), SUCCESS);
  CHECK(got.empty());
  /* the accepting engine notifies back over the same link (CLIENT_SERVER_COMM) */
  CHECK_ST(p.b.SendNotify(IP ":19155", NotifyDesc{"back", "1"}, 5000), SUCCESS);
  for (int polls = 0; polls < 1000; polls++) {
    CHECK_ST(p.a.GetNotifies(got), SUCCESS);
    if (!got.empty()) break;
    Sleep(10);
  }
  CHECK(got.size() == 1 && got[0].name == "back");
  /* errors */
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{"", "m"}), PARAM_INVALID);
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{bigger.c_str(), ""}), PARAM_INVALID);
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{"n", bigger.c_str()}), PARAM_INVALID);
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{AscendString("a\0b", 3), ""}), PARAM_INVALID);
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{"n", ""}, 0), PARAM_INVALID);
  CHECK_ST(p.a.SendNotify(IP ":19159", NotifyDesc{"n", ""}), NOT_CONNECTED);
}

/* Finalize(): everything FAILED after it, requests freed, and again */
void TestFinalize() {
  Pair p;
  REQUIRE(p.Up(19160, 16 << 20));
  const char *b = p.bname.c_str();
  TransferReq reqs[4];
  for (int i = 0; i < 4; i++)
    REQUIRE(p.a.TransferAsync(b, WRITE, {{U(p.la), U(p.lb), p.len}}, TransferArgs(), reqs[i]) == SUCCESS);
  p.a.Finalize();  /* with requests in flight: cancelled and freed */
  TransferStatus st;
  std::vector<TransferResult> res;
  MemHandle m;
  CHECK_ST(p.a.GetTransferStatus(reqs[0], st), FAILED);
  CHECK_ST(p.a.GetTransferStatus(GetTransferStatusArgs(), res), FAILED);
  CHECK_ST(p.a.Connect(b), FAILED);
  CHECK_ST(Reg(p.a, p.la, p.len, &m), FAILED);
  CHECK_ST(p.a.SendNotify(b, NotifyDesc{"n", ""}), FAILED);
  p.a.Finalize();
  /* a new engine on the object: the old requests are strangers */
  REQUIRE(Init(p.a, IP ":19160") == SUCCESS);
  CHECK_ST(p.a.GetTransferStatus(reqs[1], st), PARAM_INVALID);
  REQUIRE(Reg(p.a, p.la, p.len) == SUCCESS);
  CHECK_ST(p.a.Connect(b, 5000), SUCCESS);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), 4096}}, 5000), SUCCESS);
}

/* several threads submitting and polling on one Hixl */
void TestThreads() {
  Pair p;
  REQUIRE(p.Up(19165, 4 << 20));
  const char *b = p.bname.c_str();
  Fill(p.la, p.len, 9);
  std::atomic<int> bad(0);
  std::vector<std::thread> th;
  for (int t = 0; t < 4; t++) {
    th.emplace_back([&, t]() {
      const size_t part = p.len / 4, off = t * part;
      for (int k = 0; k < 25; k++) {
        TransferReq req = nullptr;
        TransferStatus st = TransferStatus::WAITING;
        if (p.a.TransferAsync(b, WRITE, {{U(p.la) + off, U(p.lb) + off, part}}, TransferArgs(), req) != SUCCESS ||
            Wait(p.a, req, st) != SUCCESS || st != TransferStatus::COMPLETED)
          bad++;
        if (k % 5 == 0 && p.a.TransferSync(b, READ, {{U(p.la) + off, U(p.lb) + off, 4096}}, 5000) != SUCCESS) bad++;
      }
    });
  }
  for (auto &t : th) t.join();
  CHECK_EQ(bad.load(), 0);
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
}

/* examples/cpp/hixl_sample: one process, then two */
void TestSample() {
  NeedDevice();
  if (access("examples/cpp/hixl_sample", X_OK) != 0)
    Skip("examples/cpp/hixl_sample not built (run from the repo after make all)");
  /* the sample's own exit status, its output indented as TAP comments */
  int st = system("o=$(mktemp); examples/cpp/hixl_sample --port=19170 >$o 2>&1; r=$?; "
                  "sed 's/^/#   /' $o; rm -f $o; exit $r");
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  st = system("s=$(mktemp); c=$(mktemp); "
              "examples/cpp/hixl_sample --role=server --port=19172 >$s 2>&1 & p=$!; "
              "examples/cpp/hixl_sample --role=client --port=19172 >$c 2>&1; rc=$?; wait $p; rs=$?; "
              "sed 's/^/#   server: /' $s; sed 's/^/#   client: /' $c; rm -f $s $c; "
              "[ $rs = 0 ] && [ $rc = 0 ]");
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

struct Test {
  const char *name;
  void (*fn)();
};
const Test kTests[] = {
    {"types", TestTypes},
    {"ascend_string", TestAscendString},
    {"status_capability", TestStatusAndCapability},
    {"uninitialized", TestUninitialized},
    {"initialize", TestInitialize},
    {"register_mem", TestRegisterMem},
    {"register_dmabuf", TestRegisterDmaBuf},
    {"connect", TestConnect},
    {"connect_async", TestConnectAsync},
    {"transfer_sync", TestTransferSync},
    {"local_only", TestLocalOnly},
    {"transfer_async", TestTransferAsync},
    {"transfer_status_all", TestTransferStatusAll},
    {"timeouts", TestTimeouts},
    {"auto_connect", TestAutoConnect},
    {"notify", TestNotify},
    {"finalize", TestFinalize},
    {"threads", TestThreads},
    {"sample", TestSample},
};

/* run one test in a child; 0 pass, 1 fail, 2 skip (@why set) */
int Run(const Test &t, std::string &why) {
  int pfd[2];
  if (pipe(pfd) != 0) return 1;
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    close(pfd[0]);
    g_skip_fd = pfd[1];
    alarm(120);
    t.fn();
    std::fflush(stdout);
    _exit(g_failures ? 1 : 0);
  }
  close(pfd[1]);
  char buf[256];
  ssize_t n;
  while ((n = read(pfd[0], buf, sizeof(buf))) > 0) why.append(buf, static_cast<size_t>(n));
  close(pfd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) return 2;
  if (WIFSIGNALED(status)) std::printf("#   killed by signal %d%s\n", WTERMSIG(status),
                                       WTERMSIG(status) == SIGALRM ? " (120 s limit)" : "");
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<const Test *> run;
  for (const Test &t : kTests) {
    bool pick = argc < 2;
    for (int i = 1; i < argc; i++) pick = pick || !strcmp(argv[i], t.name);
    if (pick) run.push_back(&t);
  }
  std::printf("1..%zu\n", run.size());
  int fails = 0, skips = 0;
  for (size_t i = 0; i < run.size(); i++) {
    std::string why;
    int r = Run(*run[i], why);
    if (r == 2) {
      std::printf("ok %zu - %s # SKIP %s\n", i + 1, run[i]->name, why.c_str());
      skips++;
    } else {
      std::printf("%s %zu - %s\n", r == 0 ? "ok" : "not ok", i + 1, run[i]->name);
      fails += r;
    }
    std::fflush(stdout);
  }
  std::printf("# %zu passed, %d failed, %d skipped\n", run.size() - fails - skips, fails, skips);
  return fails ? 1 : 0;
}
