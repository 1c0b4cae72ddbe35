// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_cost.cpp - the HIXL backend's transfer cost estimate from the
 * transfers it timed (hixl_cost.h).  hixl has no cost model of a link, and
 * a link may be the same-host kernel copy or RDMA on any NIC: what the
 * backend measured is the estimate's only source.
 */
#include <cmath>

#include "hixl_cost.h"

namespace {
constexpr size_t keep = 64;	/* transfers kept per peer */
}

void hixlXferCost::record(const std::string &peer, uint64_t bytes, uint64_t us)
{
	std::lock_guard<std::mutex> g(lock_);
	auto &s = samples_[peer];

	s.emplace_back((double)bytes, (double)us);
	if (s.size() > keep)
		s.pop_front();
}

bool hixlXferCost::estimate(const std::string &peer, uint64_t bytes, uint64_t &us,
			    uint64_t &marginUs) const
{
	std::lock_guard<std::mutex> g(lock_);
	auto it = samples_.find(peer);
	double n, sx = 0, sy = 0, sxx = 0, sxy = 0, a, b, var = 0, d;

	if (it == samples_.end() || it->second.empty())
		return false;
	n = (double)it->second.size();
	for (const auto &p : it->second) {
		sx += p.first;
		sy += p.second;
		sxx += p.first * p.first;
		sxy += p.first * p.second;
	}
	d = n * sxx - sx * sx;
	b = d > 0 ? (n * sxy - sx * sy) / d : -1;
	if (b < 0) {
		/* one size only, or the sizes do not order the times: the mean rate */
		b = sx > 0 ? sy / sx : 0;
		a = 0;
	} else {
		a = (sy - b * sx) / n;
		if (a < 0) {
			a = 0;
			b = sx > 0 ? sy / sx : 0;
		}
	}
	for (const auto &p : it->second) {
		double r = p.second - (a + b * p.first);

		var += r * r;
	}
	us = (uint64_t)std::llround(a + b * (double)bytes);
	marginUs = (uint64_t)std::llround(std::sqrt(var / n));
	return true;
}
