// SPDX-License-Identifier: GPL-2.0
/*
 * test_transport.cpp - C++ API tests of the same-host path (hixl
 * extensions): OPTION_TRANSPORT and GetLinkStats()'s local flag and
 * counters.  Two engines of this process on rxe0 pair in the handshake
 * unless one says "rdma"; the counters prove which path moved the bytes.
 * Ports 24530..24539.
 */
#include <vector>

#include "cpp_test.hpp"

/* no device needed: the constants */
void TestTransportTypes() {
  CHECK(!strcmp(OPTION_TRANSPORT, "Transport"));
  CHECK(!strcmp(OPTION_TRANSPORT, HIXL_OPTION_TRANSPORT));
  CHECK(!strcmp(TRANSPORT_AUTO, "auto"));
  CHECK(!strcmp(TRANSPORT_RDMA, "rdma"));
  CHECK(!strcmp(TRANSPORT_LOCAL, "local"));
  CHECK_EQ(LINK_STAT_ACTIVE, 1U);
  CHECK_EQ(LINK_STAT_NAMED, 2U);
  CHECK_EQ(LINK_STAT_LOCAL, 4U);
  Hixl h;
  std::vector<LinkStat> v(3);
  CHECK_ST(h.GetLinkStats(v), FAILED);  /* not initialized */
  CHECK(v.empty());
}

namespace {

/* a's only link after a WRITE and a READ of len bytes over a pair with opts */
bool OneLink(Pair &p, LinkStat &out) {
  std::vector<LinkStat> v;
  if (p.a.GetLinkStats(v) != SUCCESS || v.size() != 1) {
    std::printf("#   GetLinkStats: %zu links, %s\n", v.size(), GetRecentErrMsg());
    return false;
  }
  out = v[0];
  return true;
}

void MoveBoth(Pair &p, unsigned seed) {
  const char *b = p.bname.c_str();
  Fill(p.la, p.len, seed);
  CHECK_ST(p.a.TransferSync(b, WRITE, {{U(p.la), U(p.lb), p.len}}, 20000), SUCCESS);
  CHECK_EQ(memcmp(p.la, p.lb, p.len), 0);
  Fill(p.lb, p.len, seed + 1);
  CHECK_ST(p.a.TransferSync(b, READ, {{U(p.la) + 1, U(p.lb) + 1, p.len - 1}}, 20000), SUCCESS);
  CHECK_EQ(memcmp(p.la + 1, p.lb + 1, p.len - 1), 0);
}

}  // namespace

void TestTransport() {
  const size_t len = 1 << 20;
  const uint64_t moved = 2 * len - 1;
  {
    Pair p;  /* the default (auto): paired, the CPU copy */
    REQUIRE(p.Up(24530, len, {{OPTION_BUFFER_POOL, "0:0"}}));
    MoveBoth(p, 61);
    LinkStat ls;
    REQUIRE(OneLink(p, ls));
    std::printf("#   auto: peer %s local %d local_bytes %llu local_ops %llu\n", ls.peer.c_str(), ls.local,
                static_cast<unsigned long long>(ls.xfer.local_bytes),
                static_cast<unsigned long long>(ls.xfer.local_ops));
    CHECK(ls.local);
    CHECK(ls.flags & LINK_STAT_LOCAL);
    CHECK(ls.flags & LINK_STAT_ACTIVE);
    CHECK(ls.peer == p.bname);
    CHECK_EQ(ls.state, static_cast<uint32_t>(HIXL_LINK_STATE_READY));
    CHECK_EQ(ls.xfer.local_bytes, moved);
    CHECK_EQ(ls.xfer.local_ops, 2U);
    CHECK_EQ(ls.xfer.write_direct_bytes + ls.xfer.read_direct_bytes, moved);
  }
  {
    Pair p;  /* forced RDMA: the same bytes through the device */
    REQUIRE(p.Up(24532, len, {{OPTION_BUFFER_POOL, "0:0"}, {OPTION_TRANSPORT, TRANSPORT_RDMA}}));
    MoveBoth(p, 63);
    LinkStat ls;
    REQUIRE(OneLink(p, ls));
    CHECK(!ls.local);
    CHECK_EQ(ls.flags & LINK_STAT_LOCAL, 0U);
    CHECK_EQ(ls.xfer.local_bytes, 0U);
    CHECK_EQ(ls.xfer.local_ops, 0U);
    CHECK_EQ(ls.xfer.write_direct_bytes + ls.xfer.read_direct_bytes, moved);
  }
  {
    Pair p;  /* forced local on a pair that can pair */
    REQUIRE(p.Up(24534, len, {{OPTION_BUFFER_POOL, "0:0"}, {OPTION_TRANSPORT, TRANSPORT_LOCAL}}));
    MoveBoth(p, 65);
    LinkStat ls;
    REQUIRE(OneLink(p, ls));
    CHECK(ls.local);
    CHECK_EQ(ls.xfer.local_bytes, moved);
  }
  {
    /* local on one side, rdma on the other: no pairing, local transfers fail */
    Hixl a, b;
    uint8_t *la = Buf(len), *lb = Buf(len);
    REQUIRE(la && lb);
    REQUIRE(Init(a, IP ":24536", {{OPTION_TRANSPORT, TRANSPORT_LOCAL}}) == SUCCESS);
    REQUIRE(Init(b, IP ":24537", {{OPTION_TRANSPORT, TRANSPORT_RDMA}}) == SUCCESS);
    REQUIRE(Reg(a, la, len) == SUCCESS && Reg(b, lb, len) == SUCCESS);
    REQUIRE(a.Connect(IP ":24537", 5000) == SUCCESS);
    CHECK_ST(a.TransferSync(IP ":24537", WRITE, {{U(la), U(lb), 4096}}, 5000), UNSUPPORTED);
    std::printf("#   %s\n", GetRecentErrMsg());
    std::vector<LinkStat> v;
    CHECK_ST(a.GetLinkStats(v), SUCCESS);
    CHECK_EQ(v.size(), 1U);
    if (v.size() == 1) CHECK(!v[0].local);
  }
  Hixl h;
  CHECK_ST(h.Initialize(IP ":24538", {{OPTION_TRANSPORT, "tcp"}}), PARAM_INVALID);
}
