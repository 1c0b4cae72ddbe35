// SPDX-License-Identifier: MIT
/*
 * hixl_sample.cpp - HIXL's C++ sample flow on hixl (<hixl/hixl.hpp>): two
 * engines register memory, connect, transfer, check every byte, disconnect
 * and finalize.  After HIXL's examples/cpp: hixl_example_d2rh (one process,
 * two engines, TransferAsync both ways) and hixl_example_quickstart (a
 * server and a client process, TransferSync READ), with host memory where
 * HIXL uses Ascend device memory.
 *
 * Usage: hixl_sample [--role=local|server|client] [--ip=IP] [--port=PORT]
 *   local  (default) engines A = IP:PORT and B = IP:PORT+1 in this process:
 *          ConnectAsync both ways, TransferAsync WRITE A->B and B->A, a
 *          TransferSync READ, DisconnectAsync, Finalize.
 *   server engine IP:PORT; registers a source buffer (0x5A) and an inbox,
 *          tells the client their addresses over TCP (IP:PORT+1), waits
 *          for its "done", checks the inbox and answers "ok"/"no".
 *   client engine IP (client only); Connect, TransferSync READ of the
 *          server's source, TransferAsync WRITE into its inbox, "done",
 *          Disconnect, Finalize.  Start the server first (the client
 *          retries the TCP connect for 10 s).
 *   Defaults: IP 10.77.0.1 (the test VM's rxe0), PORT 19170.
 * Exit status: 0 when every byte arrived, 77 without /dev/hixl, 1 otherwise.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <hixl/hixl.hpp>

using namespace hixl;

namespace {
const size_t kBufferSize = 8 * 1024 * 1024;  // per buffer
const size_t kChunkSize = 16 * 1024;         // one descriptor
const int32_t kTimeoutMs = 5000;
const uint8_t kFillA = 0xAA, kFillB = 0xBB, kFillServer = 0x5A, kFillClient = 0xC3;

std::string g_ip = "10.77.0.1";
int g_port = 19170;

// like HIXL's HixlExitOnFailure(): say what failed and why
bool Ok(Status st, const char *what) {
  if (st == SUCCESS) return true;
  std::printf("[ERROR] %s: ret=%u, errmsg: %s\n", what, st, GetRecentErrMsg());
  return false;
}

void Sleep(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

bool AllBytes(const uint8_t *p, size_t len, uint8_t v, const char *what) {
  for (size_t i = 0; i < len; i++) {
    if (p[i] != v) {
      std::printf("[ERROR] Verify %s: byte %zu is 0x%02x, expected 0x%02x\n", what, i, p[i], v);
      return false;
    }
  }
  std::printf("[INFO] Verify %s success\n", what);
  return true;
}

// an engine with a source buffer (filled) and a destination buffer (zero)
struct EngineCtx {
  Hixl engine;
  std::string name;
  std::vector<uint8_t> src, dst;
  MemHandle src_handle = nullptr, dst_handle = nullptr;
};

bool InitEngine(EngineCtx &ctx, uint8_t fill) {
  std::map<AscendString, AscendString> options;  // defaults: BufferPool "4:8", AutoConnect off
  if (!Ok(ctx.engine.Initialize(ctx.name.c_str(), options), "Initialize")) return false;
  ctx.src.assign(kBufferSize, fill);
  ctx.dst.assign(kBufferSize, 0);
  MemDesc desc{};
  desc.addr = reinterpret_cast<uintptr_t>(ctx.src.data());
  desc.len = kBufferSize;
  if (!Ok(ctx.engine.RegisterMem(desc, MEM_HOST, ctx.src_handle), "RegisterMem src")) return false;
  desc.addr = reinterpret_cast<uintptr_t>(ctx.dst.data());
  if (!Ok(ctx.engine.RegisterMem(desc, MEM_HOST, ctx.dst_handle), "RegisterMem dst")) return false;
  std::printf("[INFO] InitEngine %s success, src:%p, dst:%p\n", ctx.name.c_str(),
              static_cast<void *>(ctx.src.data()), static_cast<void *>(ctx.dst.data()));
  return true;
}

void CleanupEngine(EngineCtx &ctx) {
  if (ctx.src_handle != nullptr) (void)Ok(ctx.engine.DeregisterMem(ctx.src_handle), "DeregisterMem src");
  if (ctx.dst_handle != nullptr) (void)Ok(ctx.engine.DeregisterMem(ctx.dst_handle), "DeregisterMem dst");
  ctx.engine.Finalize();
}

// poll until neither engine waits for its link to @want's neighbours
bool WaitLinks(EngineCtx &a, EngineCtx &b, AsyncConnectStatus want) {
  for (int polls = 0; polls < 1000; polls++) {
    AsyncConnectStatus sa = AsyncConnectStatus::NOT_CONNECT, sb = sa;
    if (!Ok(a.engine.GetAsyncConnectStatus(b.name.c_str(), sa), "GetAsyncConnectStatus") ||
        !Ok(b.engine.GetAsyncConnectStatus(a.name.c_str(), sb), "GetAsyncConnectStatus"))
      return false;
    if (sa == AsyncConnectStatus::CONNECT_FAILED || sb == AsyncConnectStatus::CONNECT_FAILED) {
      std::printf("[ERROR] Connect failed: %s\n", GetRecentErrMsg());
      return false;
    }
    if (sa == want && sb == want) return true;
    Sleep(10);
  }
  std::printf("[ERROR] links did not reach state %d in 10 s\n", static_cast<int>(want));
  return false;
}

std::vector<TransferOpDesc> Chunks(const uint8_t *local, const uint8_t *remote) {
  std::vector<TransferOpDesc> descs;
  for (size_t off = 0; off < kBufferSize; off += kChunkSize)
    descs.push_back(TransferOpDesc{reinterpret_cast<uintptr_t>(local) + off,
                                   reinterpret_cast<uintptr_t>(remote) + off, kChunkSize});
  return descs;
}

bool WaitTransfer(Hixl &engine, TransferReq req, const char *what) {
  TransferStatus st = TransferStatus::WAITING;
  for (int polls = 0; polls < 100000 && st == TransferStatus::WAITING; polls++) {
    if (!Ok(engine.GetTransferStatus(req, st), "GetTransferStatus")) return false;
    if (st == TransferStatus::WAITING) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  if (st != TransferStatus::COMPLETED) {
    std::printf("[ERROR] Transfer %s: status %d\n", what, static_cast<int>(st));
    return false;
  }
  std::printf("[INFO] Transfer %s completed\n", what);
  return true;
}

// ---- one process, two engines (HIXL's hixl_example_d2rh) ---------------------

bool RunLocal(EngineCtx &a, EngineCtx &b) {
  if (!InitEngine(a, kFillA) || !InitEngine(b, kFillB)) return false;
  if (!Ok(a.engine.ConnectAsync(b.name.c_str(), kTimeoutMs), "ConnectAsync A->B") ||
      !Ok(b.engine.ConnectAsync(a.name.c_str(), kTimeoutMs), "ConnectAsync B->A") ||
      !WaitLinks(a, b, AsyncConnectStatus::CONNECTED))
    return false;
  std::printf("[INFO] Connect success\n");

  // both directions at once: A's src -> B's dst, B's src -> A's dst
  TransferArgs args{};
  TransferReq req_a = nullptr, req_b = nullptr;
  if (!Ok(a.engine.TransferAsync(b.name.c_str(), WRITE, Chunks(a.src.data(), b.dst.data()), args, req_a),
          "TransferAsync A->B") ||
      !Ok(b.engine.TransferAsync(a.name.c_str(), WRITE, Chunks(b.src.data(), a.dst.data()), args, req_b),
          "TransferAsync B->A") ||
      !WaitTransfer(a.engine, req_a, "A->B") || !WaitTransfer(b.engine, req_b, "B->A"))
    return false;
  if (!AllBytes(b.dst.data(), kBufferSize, kFillA, "B dst") || !AllBytes(a.dst.data(), kBufferSize, kFillB, "A dst"))
    return false;

  // and synchronously: A reads B's src over its link
  std::fill(a.dst.begin(), a.dst.end(), 0);
  if (!Ok(a.engine.TransferSync(b.name.c_str(), READ, {{reinterpret_cast<uintptr_t>(a.dst.data()),
                                                          reinterpret_cast<uintptr_t>(b.src.data()), kBufferSize}},
                                kTimeoutMs),
          "TransferSync READ"))
    return false;
  if (!AllBytes(a.dst.data(), kBufferSize, kFillB, "A dst after READ")) return false;

  if (!Ok(a.engine.DisconnectAsync(b.name.c_str(), kTimeoutMs), "DisconnectAsync A->B") ||
      !Ok(b.engine.DisconnectAsync(a.name.c_str(), kTimeoutMs), "DisconnectAsync B->A") ||
      !WaitLinks(a, b, AsyncConnectStatus::NOT_CONNECT))
    return false;
  std::printf("[INFO] Disconnect success\n");
  return true;
}

// ---- two processes (HIXL's hixl_example_quickstart) ---------------------------

struct Addrs {
  uint64_t src, inbox;
};

int ServerSocket() {
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(g_port + 1));
  if (lfd < 0 || inet_pton(AF_INET, g_ip.c_str(), &sa.sin_addr) != 1 ||
      setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
      bind(lfd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) != 0 || listen(lfd, 1) != 0) {
    std::perror("[ERROR] server socket");
    return -1;
  }
  std::printf("[INFO] Server waiting on %s:%d...\n", g_ip.c_str(), g_port + 1);
  int fd = accept(lfd, nullptr, nullptr);
  close(lfd);
  return fd;
}

int ClientSocket() {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(g_port + 1));
  if (inet_pton(AF_INET, g_ip.c_str(), &sa.sin_addr) != 1) return -1;
  for (int tries = 0; tries < 100; tries++) {  // the server may not listen yet
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) == 0) return fd;
    if (fd >= 0) close(fd);
    Sleep(100);
  }
  std::perror("[ERROR] client socket");
  return -1;
}

bool SendAll(int fd, const void *p, size_t n) { return send(fd, p, n, MSG_NOSIGNAL) == static_cast<ssize_t>(n); }
bool RecvAll(int fd, void *p, size_t n) { return recv(fd, p, n, MSG_WAITALL) == static_cast<ssize_t>(n); }

bool RunServer(EngineCtx &ctx) {
  // register first, then tell the client: it must never use unregistered addresses
  if (!InitEngine(ctx, kFillServer)) return false;
  int fd = ServerSocket();
  if (fd < 0) return false;
  Addrs addrs = {reinterpret_cast<uintptr_t>(ctx.src.data()), reinterpret_cast<uintptr_t>(ctx.dst.data())};
  char done = 0;
  bool ok = SendAll(fd, &addrs, sizeof(addrs)) && RecvAll(fd, &done, 1) && done == 'd';
  if (!ok) std::printf("[ERROR] no done signal from the client\n");
  ok = ok && AllBytes(ctx.dst.data(), kBufferSize, kFillClient, "server inbox");
  (void)SendAll(fd, ok ? "ok" : "no", 2);
  (void)recv(fd, &done, 1, 0);  // the client closes it once disconnected: Finalize after that
  close(fd);
  return ok;
}

bool RunClient(EngineCtx &ctx, const std::string &server) {
  if (!InitEngine(ctx, kFillClient)) return false;
  int fd = ClientSocket();
  Addrs addrs{};
  if (fd < 0 || !RecvAll(fd, &addrs, sizeof(addrs))) {
    std::printf("[ERROR] no addresses from the server\n");
    return false;
  }
  std::printf("[INFO] Got remote src 0x%llx, inbox 0x%llx\n", static_cast<unsigned long long>(addrs.src),
              static_cast<unsigned long long>(addrs.inbox));
  bool ok = Ok(ctx.engine.Connect(server.c_str(), kTimeoutMs), "Connect") &&
            Ok(ctx.engine.TransferSync(server.c_str(), READ,
                                       {{reinterpret_cast<uintptr_t>(ctx.dst.data()), addrs.src, kBufferSize}},
                                       kTimeoutMs),
               "TransferSync READ") &&
            AllBytes(ctx.dst.data(), kBufferSize, kFillServer, "client dst");
  TransferReq req = nullptr;
  ok = ok &&
       Ok(ctx.engine.TransferAsync(server.c_str(), WRITE,
                                   {{reinterpret_cast<uintptr_t>(ctx.src.data()), addrs.inbox, kBufferSize}},
                                   TransferArgs{}, req),
          "TransferAsync WRITE") &&
       WaitTransfer(ctx.engine, req, "client->server inbox");
  char answer[2] = {0, 0};
  ok = SendAll(fd, ok ? "d" : "x", 1) && RecvAll(fd, answer, 2) && ok;
  if (ok && std::memcmp(answer, "ok", 2) != 0) {
    std::printf("[ERROR] the server found the inbox wrong\n");
    ok = false;
  }
  ok = Ok(ctx.engine.Disconnect(server.c_str(), kTimeoutMs), "Disconnect") && ok;
  close(fd);
  return ok;
}
}  // namespace

int main(int argc, char **argv) {
  std::string role = "local";
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg.compare(0, 7, "--role=") == 0) {
      role = arg.substr(7);
    } else if (arg.compare(0, 5, "--ip=") == 0) {
      g_ip = arg.substr(5);
    } else if (arg.compare(0, 7, "--port=") == 0) {
      g_port = std::atoi(arg.c_str() + 7);
    } else {
      role = "?";
    }
  }
  if ((role != "local" && role != "server" && role != "client") || g_port <= 0 || g_port > 65533) {
    std::printf("Usage: %s [--role=local|server|client] [--ip=IP] [--port=PORT]\n", argv[0]);
    return 1;
  }
  if (access("/dev/hixl", F_OK) != 0) {
    std::printf("[SKIP] no /dev/hixl: load hixl.ko first\n");
    return 77;
  }
  const std::string server = g_ip + ":" + std::to_string(g_port);
  std::printf("[INFO] Running as %s\n", role.c_str());
  bool ok;
  if (role == "local") {
    EngineCtx a, b;
    a.name = server;
    b.name = g_ip + ":" + std::to_string(g_port + 1);
    ok = RunLocal(a, b);
    CleanupEngine(a);
    CleanupEngine(b);
  } else {
    EngineCtx ctx;
    ctx.name = role == "server" ? server : g_ip;  // the client only connects out
    ok = role == "server" ? RunServer(ctx) : RunClient(ctx, server);
    CleanupEngine(ctx);
  }
  std::printf("[INFO] %s\n", ok ? "Sample success" : "Sample FAILED");
  return ok ? 0 : 1;
}
