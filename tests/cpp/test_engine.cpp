// SPDX-License-Identifier: GPL-2.0
/* test_engine.cpp - C++ API tests: Initialize, registrations, links */
#include <linux/udmabuf.h>
#include <sys/ioctl.h>

#include "cpp_test.hpp"

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
  /* MEM_DEVICE by address: host memory registers as host (and overlaps a) */
  CHECK_ST(h.RegisterMem(d, MEM_DEVICE, c), PARAM_INVALID);
  CHECK(strstr(GetRecentErrMsg(), "EEXIST") != nullptr);
  /* an address that is not host memory, no GPU runtime here: FAILED, naming it */
  d.addr = 0x7e0000000000ULL;
  CHECK_ST(h.RegisterMem(d, MEM_DEVICE, c), FAILED);
  CHECK(strstr(GetRecentErrMsg(), "no GPU runtime") != nullptr);
  CHECK(c == reinterpret_cast<MemHandle>(1));
  d.addr = U(p);
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
  TransferReq req = reinterpret_cast<TransferReq>(3);  /* refused at once: its connect failed */
  CHECK_ST(cli.TransferAsync(IP ":19126", WRITE, {{4096, 4096, 1}}, TransferArgs(), req), NOT_CONNECTED);
  CHECK(req == reinterpret_cast<TransferReq>(3));
  CHECK_ST(cli.Disconnect(IP ":19126"), NOT_CONNECTED);  /* clears CONNECT_FAILED */
  CHECK_ST(cli.DisconnectAsync(IP ":19125", 1000), SUCCESS);
  CHECK(WaitConn(cli, IP ":19125", AsyncConnectStatus::DISCONNECT_PENDING, AsyncConnectStatus::DISCONNECTING) ==
        AsyncConnectStatus::NOT_CONNECT);
  CHECK_ST(cli.GetAsyncConnectStatus(all), SUCCESS);
  CHECK(all.empty());
}

