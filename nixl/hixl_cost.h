// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_cost.h - the HIXL backend's transfer cost estimate
 * (estimateXferCost): per peer engine, the transfers it has timed, fitted
 * as duration = latency + bytes / rate.  hixl_cost.cpp.
 */
#ifndef HIXL_NIXL_COST_H
#define HIXL_NIXL_COST_H

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

class hixlXferCost {
public:
	/*
	 * record() - one completed transfer to @peer: @bytes in @us
	 * microseconds, from its post to its end as the backend saw it.  The
	 * last 64 of each peer are kept.  Thread-safe.
	 */
	void record(const std::string &peer, uint64_t bytes, uint64_t us);

	/*
	 * estimate() - how long @bytes to @peer should take: the least-squares
	 * line (latency + bytes / rate) through the kept transfers of @peer
	 * (with one transfer size only: bytes at their mean rate), and as the
	 * error margin the root mean square of the kept transfers' distance
	 * from it
	 * @us, @marginUs: out: microseconds, >= 0
	 * Return: false when no transfer to @peer has been timed yet.
	 */
	bool estimate(const std::string &peer, uint64_t bytes, uint64_t &us, uint64_t &marginUs) const;

private:
	mutable std::mutex lock_;
	std::map<std::string, std::deque<std::pair<double, double>>> samples_;	/* bytes, us */
};

#endif /* HIXL_NIXL_COST_H */
