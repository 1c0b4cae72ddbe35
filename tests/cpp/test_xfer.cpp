// SPDX-License-Identifier: GPL-2.0
/* test_xfer.cpp - C++ API tests: transfers, notifications, Finalize, threads, the sample */
#include <sys/wait.h>

#include <atomic>
#include <vector>

#include "cpp_test.hpp"

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
  /* a remote range not registered (the second descriptor is named); the
   * staging pool takes any mapped local memory: the local check is below */
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
  /* without a staging pool the local range must be registered */
  uint8_t *unreg = Buf(4096);
  REQUIRE(unreg);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(unreg), U(p.lb), 4096}}, 5000), PARAM_INVALID);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la) + p.len - 1, U(p.lb), 2}}, 5000), PARAM_INVALID);
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
  CHECK_ST(p.a.TransferAsync("bad name", WRITE, {{U(p.la), U(p.lb), 1}}, TransferArgs(), kept), PARAM_INVALID);
  CHECK(kept == reinterpret_cast<TransferReq>(3));
  /* no link at all: found when it runs */
  CHECK_ST(p.a.TransferAsync(IP ":19139", WRITE, {{U(p.la), U(p.lb), 1}}, TransferArgs(), req), SUCCESS);
  CHECK_ST(Wait(p.a, req, st), SUCCESS);
  CHECK(st == TransferStatus::FAILED);
  /* the accepting engine uses the link a made (CLIENT_SERVER_COMM) */
  Fill(p.lb, p.len, 7);
  CHECK_ST(p.b.TransferAsync(IP ":19135", WRITE, {{U(p.lb), U(p.la), p.len}}, TransferArgs(), req), SUCCESS);
  CHECK_ST(Wait(p.b, req, st), SUCCESS);
  CHECK(st == TransferStatus::COMPLETED);
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
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
  /* over rxe: two engines of one host would otherwise pair, and the
   * kernel's (parallel) copy can move 64 MiB within the 20 ms below */
  REQUIRE(p.Up(19145, 64 << 20, {{OPTION_TRANSPORT, TRANSPORT_RDMA}}));
  const char *b = p.bname.c_str();
  TransferReq req = nullptr;
  TransferStatus st = TransferStatus::WAITING;
  /* a first request starts the engine's reaper or workers: later ones are
   * issued at once, within the short timeout below */
  CHECK_ST(p.a.TransferAsync(b, WRITE, {{U(p.la), U(p.lb), 4096}}, TransferArgs(), req), SUCCESS);
  CHECK_ST(Wait(p.a, req, st), SUCCESS);
  CHECK(st == TransferStatus::COMPLETED);
  /* 64 MiB cannot cross rxe in 20 ms: it ends TIMEOUT */
  CHECK_ST(p.a.SetTransferAsyncTimeout(20), SUCCESS);
  CHECK_ST(p.a.TransferAsync(b, WRITE, {{U(p.la), U(p.lb), p.len}}, TransferArgs(), req), SUCCESS);
  CHECK_ST(Wait(p.a, req, st), SUCCESS);
  CHECK(st == TransferStatus::TIMEOUT);
  /* the link broke; connect again for the synchronous one */
  std::vector<TransferResult> res;
  CHECK_ST(p.a.GetTransferStatus(GetTransferStatusArgs(), res), SUCCESS);
  CHECK(res.empty());
  (void)p.a.Disconnect(b);
  REQUIRE(p.a.Connect(b, 5000) == SUCCESS);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), p.len}}, 20), TIMEOUT);
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

