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
 * Tests: here (no device needed), test_engine.cpp, test_xfer.cpp.
 */
#include <signal.h>
#include <sys/wait.h>

#include <unordered_map>
#include <vector>

#include "cpp_test.hpp"

#ifdef __SANITIZE_ADDRESS__  /* an -fsanitize=address build: leaks fail the test */
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_leak_check()
#else
#define LEAK_CHECK() do {} while (0)
#endif

int g_failures;
static int g_skip_fd = -1;

void Skip(const char *why) {
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

namespace {

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
  CHECK(!strcmp(OPTION_RAILS, "Rails"));
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
  CHECK_ST(h.RegisterMem(m, MEM_DEVICE, mh), FAILED);
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
    {"transport_types", TestTransportTypes},
    {"transport", TestTransport},
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
    LEAK_CHECK();
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
