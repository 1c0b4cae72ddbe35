// SPDX-License-Identifier: GPL-2.0
/* cpp_test.hpp - the C++ API tests' harness and helpers (hixl-cpp-test.cpp) */
#ifndef HIXL_CPP_TEST_HPP
#define HIXL_CPP_TEST_HPP

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include <hixl/hixl.hpp>

using namespace hixl;

#define IP "10.77.0.1"
extern int g_failures;  /* CHECK failures of the running test */
/* end the running test as skipped, saying why */
[[noreturn]] void Skip(const char *why);
const char *StName(Status st);

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

inline void NeedDevice() {
  if (access("/dev/hixl", F_OK) != 0) Skip("no /dev/hixl: hixl.ko not loaded");
}

/* Initialize @h on @name; SKIPs without /dev/hixl or rxe0 */
inline Status Init(Hixl &h, const char *name, const std::map<AscendString, AscendString> &opts = {}) {
  NeedDevice();
  Status st = h.Initialize(name, opts);
  const char *m = GetRecentErrMsg();
  if (st != SUCCESS && (strstr(m, "(-EADDRNOTAVAIL)") || strstr(m, "(-ENODEV)")))
    Skip("no RDMA device on " IP " (rxe0 in the test VM)");
  if (st != SUCCESS) std::printf("#   Initialize(%s): %s: %s\n", name, StName(st), m);
  return st;
}

/* a page-aligned zeroed buffer, never freed (the process ends) */
inline uint8_t *Buf(size_t len) {
  void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
}
inline void Fill(uint8_t *p, size_t len, unsigned seed) {
  for (size_t i = 0; i < len; i++) p[i] = static_cast<uint8_t>((i * 131 + seed * 7 + (i >> 12)) & 0xff);
}
inline uintptr_t U(const void *p) { return reinterpret_cast<uintptr_t>(p); }
inline Status Reg(Hixl &h, const void *p, size_t len, MemHandle *out = nullptr, bool local_only = false) {
  MemDesc d{};
  d.addr = U(p);
  d.len = len;
  d.local_only = local_only;
  MemHandle m = nullptr;
  Status st = h.RegisterMem(d, MEM_HOST, m);
  if (out) *out = m;
  return st;
}
inline void Sleep(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

/* poll GetTransferStatus(req) until it is not WAITING (10 s) */
inline Status Wait(Hixl &h, TransferReq req, TransferStatus &st) {
  Status ret = SUCCESS;
  for (int i = 0; i < 2000; i++) {
    ret = h.GetTransferStatus(req, st);
    if (ret != SUCCESS || st != TransferStatus::WAITING) break;
    Sleep(5);
  }
  return ret;
}
/* poll GetAsyncConnectStatus(remote) until it is neither of @a, @b (10 s) */
inline AsyncConnectStatus WaitConn(Hixl &h, const char *remote, AsyncConnectStatus a, AsyncConnectStatus b) {
  AsyncConnectStatus st = a;
  for (int i = 0; i < 1000; i++) {
    if (h.GetAsyncConnectStatus(remote, st) != SUCCESS || (st != a && st != b)) break;
    Sleep(10);
  }
  return st;
}

/* two engines: a at IP:port, connected to b at IP:port+1; a buffer each */
struct Pair {
  Hixl a, b;
  uint8_t *la = nullptr, *lb = nullptr;
  size_t len = 0;
  std::string aname, bname;
  bool Up(int port, size_t l, const std::map<AscendString, AscendString> &opts = {}) {
    len = l;
    la = Buf(len);
    lb = Buf(len);
    aname = IP ":" + std::to_string(port);
    bname = IP ":" + std::to_string(port + 1);
    if (!la || !lb || Init(a, aname.c_str(), opts) != SUCCESS || Init(b, bname.c_str(), opts) != SUCCESS ||
        Reg(a, la, len) != SUCCESS || Reg(b, lb, len) != SUCCESS || a.Connect(bname.c_str(), 5000) != SUCCESS)
      return false;
    if (opts.count(OPTION_AUTO_CONNECT)) return true;  /* b would connect to a itself */
    /* b's side of the link is READY once a's table arrived, a moment after
     * Connect() returned; until then b's transfers fail (-EAGAIN) */
    for (int i = 0; i < 1000; i++) {
      if (b.TransferSync(aname.c_str(), READ, {{U(lb), U(la), 1}}, 5000) == SUCCESS) return true;
      if (!strstr(GetRecentErrMsg(), "(-EAGAIN)")) break;
      Sleep(10);
    }
    std::printf("#   %s's side of the link: %s\n", bname.c_str(), GetRecentErrMsg());
    return false;
  }
};

void TestInitialize();
void TestRegisterMem();
void TestRegisterDmaBuf();
void TestConnect();
void TestConnectAsync();
void TestTransferSync();
void TestLocalOnly();
void TestTransferAsync();
void TestTransferStatusAll();
void TestTimeouts();
void TestAutoConnect();
void TestNotify();
void TestFinalize();
void TestThreads();
void TestSample();
void TestTransportTypes();
void TestTransport();

#endif
