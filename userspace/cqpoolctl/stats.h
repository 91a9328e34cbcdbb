// SPDX-License-Identifier: GPL-2.0
//
// What a set of connections costs in CQs: the numbers the comparison of
// cqpool, upstream's pool and a CQ per QP is about.
#ifndef CQPOOLCTL_STATS_H
#define CQPOOLCTL_STATS_H

#include <linux/cqpool.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cqpoolctl {

struct Footprint {
	uint64_t qp_pairs = 0;
	uint64_t cqs = 0;		// distinct CQs the QPs use
	uint64_t cqes_allocated = 0;	// real sizes of those CQs
	uint64_t cqes_reserved = 0;	// what the QPs asked for
	double qps_per_cq_mean = 0;
	uint64_t qps_per_cq_max = 0;

	double ratio() const;		// allocated / reserved
};

// @client_dev and @server_dev name the devices of the two ends: CQ ids
// are per device, so the same id on two devices is two CQs.
Footprint aggregate(const std::vector<cqpool_conn_info> &conns,
		    const std::string &client_dev, const std::string &server_dev);

struct Spread {
	double median = 0, min = 0, max = 0;
	size_t n = 0;
};

Spread spread(std::vector<double> v);

} // namespace cqpoolctl

#endif
