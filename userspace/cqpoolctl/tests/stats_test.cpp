// SPDX-License-Identifier: GPL-2.0
#include "../stats.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cqpoolctl;

namespace {

cqpool_conn_info conn(uint32_t ccq, uint32_t ccqe, uint32_t scq, uint32_t scqe,
		      uint32_t nr_cqe)
{
	cqpool_conn_info c{};

	c.client_cq_id = ccq;
	c.client_cqe = ccqe;
	c.server_cq_id = scq;
	c.server_cqe = scqe;
	c.nr_cqe = nr_cqe;
	return c;
}

} // namespace

TEST(Aggregate, SharedCqsCountOnceLoopedBack)
{
	// Looped back, both ends on one device: 3 pairs on CQs 1 and 2.
	std::vector<cqpool_conn_info> v = {
		conn(1, 4096, 2, 4096, 513),
		conn(1, 4096, 2, 4096, 513),
		conn(2, 4096, 1, 4096, 129),
	};
	Footprint f = aggregate(v, "rxe0", "rxe0");

	EXPECT_EQ(f.qp_pairs, 3u);
	EXPECT_EQ(f.cqs, 2u);
	EXPECT_EQ(f.cqes_allocated, 8192u);
	EXPECT_EQ(f.cqes_reserved, 2u * (513 + 513 + 129));
	EXPECT_DOUBLE_EQ(f.qps_per_cq_mean, 3.0);
	EXPECT_EQ(f.qps_per_cq_max, 3u);
	EXPECT_DOUBLE_EQ(f.ratio(), 8192.0 / 2310.0);
}

TEST(Aggregate, CqIdsArePerDevice)
{
	// The same id on two devices is two CQs.
	std::vector<cqpool_conn_info> v = {conn(7, 1000, 7, 1000, 100)};
	Footprint f = aggregate(v, "rxe0", "siw0");

	EXPECT_EQ(f.cqs, 2u);
	EXPECT_EQ(f.cqes_allocated, 2000u);
	EXPECT_EQ(f.qps_per_cq_max, 1u);
}

TEST(Aggregate, ACqThatGrewCountsAtItsLatestSize)
{
	std::vector<cqpool_conn_info> v = {
		conn(1, 4096, 1, 4096, 1000),
		conn(1, 8192, 1, 8192, 1000),
	};
	Footprint f = aggregate(v, "rxe0", "rxe0");

	EXPECT_EQ(f.cqs, 1u);
	EXPECT_EQ(f.cqes_allocated, 8192u);
	EXPECT_EQ(f.qps_per_cq_max, 4u);
}

TEST(Aggregate, NothingIsNothing)
{
	Footprint f = aggregate({}, "rxe0", "rxe0");

	EXPECT_EQ(f.cqs, 0u);
	EXPECT_EQ(f.qps_per_cq_mean, 0.0);
	EXPECT_TRUE(std::isnan(f.ratio()));
}

TEST(Spread, MedianMinMax)
{
	Spread s = spread({5, 1, 3});

	EXPECT_EQ(s.median, 3);
	EXPECT_EQ(s.min, 1);
	EXPECT_EQ(s.max, 5);
	EXPECT_EQ(spread({4, 1, 2, 3}).median, 2.5);
	EXPECT_EQ(spread({}).n, 0u);
}
