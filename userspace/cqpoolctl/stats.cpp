// SPDX-License-Identifier: GPL-2.0
#include "stats.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace cqpoolctl {

double Footprint::ratio() const
{
	if (!cqes_reserved)
		return std::numeric_limits<double>::quiet_NaN();
	return double(cqes_allocated) / double(cqes_reserved);
}

Footprint aggregate(const std::vector<cqpool_conn_info> &conns,
		    const std::string &client_dev, const std::string &server_dev)
{
	struct Cq {
		uint64_t cqe = 0;
		uint64_t qps = 0;
	};
	std::map<std::pair<std::string, uint32_t>, Cq> cqs;
	Footprint f;

	for (const auto &c : conns) {
		Cq &cl = cqs[{client_dev, c.client_cq_id}];
		Cq &sv = cqs[{server_dev, c.server_cq_id}];

		// A CQ that grew in place reports its latest size on every
		// later connection; the largest seen is its size now.
		cl.cqe = std::max<uint64_t>(cl.cqe, c.client_cqe);
		cl.qps++;
		sv.cqe = std::max<uint64_t>(sv.cqe, c.server_cqe);
		sv.qps++;
		f.qp_pairs++;
		f.cqes_reserved += 2ULL * c.nr_cqe;
	}
	for (const auto &kv : cqs) {
		f.cqes_allocated += kv.second.cqe;
		f.qps_per_cq_max = std::max(f.qps_per_cq_max, kv.second.qps);
	}
	f.cqs = cqs.size();
	if (f.cqs)
		f.qps_per_cq_mean = double(2 * f.qp_pairs) / double(f.cqs);
	return f;
}

Spread spread(std::vector<double> v)
{
	Spread s;

	s.n = v.size();
	if (v.empty())
		return s;
	std::sort(v.begin(), v.end());
	s.min = v.front();
	s.max = v.back();
	s.median = v.size() % 2 ? v[v.size() / 2]
				: (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
	return s;
}

} // namespace cqpoolctl
