// SPDX-License-Identifier: GPL-2.0
/*
 * Which vector a reservation goes to: cqp_nvec() and the pool ledger's
 * cqp_pool_pick_vector(), from the entries reserved on each vector.
 */
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "pool.h"
#include "test_alloc.h"
#include "vectors.h"

namespace {

/* A ledger with one CQ of kCqSize entries on each vector. */
class PickVector : public ::testing::Test {
protected:
	static constexpr cqp_u32 kCqSize = 1u << 20;

	void TearDown() override
	{
		if (pool) {
			/* One entry a user, then the last user's rest. */
			for (auto &c : cqs) {
				while (c.users) {
					cqp_u32 n = c.users > 1 ? 1 : c.reserved;

					ASSERT_EQ(cqp_pool_release(pool, &c, n, 0), CQP_OK);
				}
			}
			while (cqp_pool_take_idle(pool))
				;
			EXPECT_EQ(cqp_pool_destroy(pool), CQP_OK);
		}
		EXPECT_EQ(alloc.live, 0);
	}

	void make(cqp_u32 nvec)
	{
		cqp_alloc a = alloc.iface();
		cqp_pool_params p = {};

		p.nvec = nvec;
		p.max_cqe = kCqSize;
		pool = cqp_pool_create(&a, &p);
		ASSERT_NE(pool, nullptr);
		cqs.resize(nvec);
		for (cqp_u32 v = 0; v < nvec; v++)
			ASSERT_EQ(cqp_pool_add(pool, &cqs[v], v, kCqSize, 0), CQP_OK);
	}

	void reserve(cqp_u32 vec, cqp_u32 nr)
	{
		cqp_cq *cq = nullptr;
		cqp_plan plan;

		ASSERT_EQ(cqp_pool_reserve(pool, vec, nr, &cq, &plan), CQP_OK);
		ASSERT_EQ(cq, &cqs[vec]);
	}

	TestAlloc alloc;
	cqp_pool *pool = nullptr;
	/* One a vector; reserve() finds each vector's only CQ. */
	std::vector<cqp_cq> cqs;
};

TEST(Nvec, IsCappedByOnlineCpusAndNeverZero)
{
	EXPECT_EQ(cqp_nvec(16, 2), 2u);
	EXPECT_EQ(cqp_nvec(1, 8), 1u);
	EXPECT_EQ(cqp_nvec(4, 4), 4u);
	EXPECT_EQ(cqp_nvec(0, 4), 1u);
}

TEST_F(PickVector, HintMapsModuloVectorCount)
{
	make(3);
	EXPECT_EQ(cqp_pool_pick_vector(pool, 0, 0), 0u);
	EXPECT_EQ(cqp_pool_pick_vector(pool, 4, 0), 1u);
	EXPECT_EQ(cqp_pool_pick_vector(pool, 302, 0), 2u);
	EXPECT_EQ(cqp_pool_pick_vector(pool, 0x7fffffff, 0), 0x7fffffffu % 3);
	/* The glue's inline pick of a hint is the same pick. */
	for (cqp_u32 h : {0u, 4u, 302u, 0x7fffffffu})
		for (cqp_u32 among : {0u, 1u, 2u, 3u, 9u})
			EXPECT_EQ(cqp_hint_vector(h, among, 3),
				  cqp_pool_pick_vector(pool, int(h), among))
				<< "hint " << h << " among " << among;
}

TEST_F(PickVector, NoHintPicksLeastReservedLowestFirst)
{
	make(3);
	EXPECT_EQ(cqp_pool_pick_vector(pool, -1, 0), 0u);
	reserve(0, 100);
	reserve(1, 50);
	EXPECT_EQ(cqp_pool_pick_vector(pool, -1, 0), 2u);
	reserve(2, 50);
	EXPECT_EQ(cqp_pool_pick_vector(pool, -1, 0), 1u);
}

/* CPUs went offline: only the first vectors are used, hinted or not. */
TEST_F(PickVector, AmongTheFirstVectorsOnly)
{
	make(4);
	EXPECT_EQ(cqp_pool_pick_vector(pool, 3, 2), 1u);
	EXPECT_EQ(cqp_pool_pick_vector(pool, 3, 4), 3u);
	EXPECT_EQ(cqp_pool_pick_vector(pool, 3, 9), 3u);
	EXPECT_EQ(cqp_pool_pick_vector(pool, 3, 0), 3u);
	reserve(0, 100);
	reserve(1, 50);
	/* Vectors 2 and 3 are empty, but no CPU serves them now. */
	EXPECT_EQ(cqp_pool_pick_vector(pool, -1, 2), 1u);
	EXPECT_EQ(cqp_pool_pick_vector(pool, -1, 4), 2u);
	EXPECT_EQ(cqp_pool_pick_vector(pool, -1, 1), 0u);
}

/* Random reservations and releases against a plain array as the model. */
TEST_F(PickVector, MatchesReferenceModel)
{
	const cqp_u32 nvec = 5;
	std::mt19937 rng(2017);
	std::vector<std::vector<cqp_u32>> held(nvec);
	std::vector<cqp_u64> model(nvec);

	make(nvec);
	for (int step = 0; step < 20000; step++) {
		cqp_u32 vec = rng() % nvec;

		if (rng() % 2 || held[vec].empty()) {
			cqp_u32 n = 1 + rng() % 64;

			reserve(vec, n);
			held[vec].push_back(n);
			model[vec] += n;
		} else {
			cqp_u32 n = held[vec].back();

			held[vec].pop_back();
			ASSERT_EQ(cqp_pool_release(pool, &cqs[vec],
						   held[vec].empty() ? cqs[vec].reserved : n, 0),
				  CQP_OK);
			model[vec] = held[vec].empty() ? 0 : model[vec] - n;
		}

		cqp_u32 least = 0;

		for (cqp_u32 i = 0; i < nvec; i++) {
			ASSERT_EQ(cqp_pool_vec_reserved(pool, i), model[i]);
			if (model[i] < model[least])
				least = i;
		}
		ASSERT_EQ(cqp_pool_pick_vector(pool, -1, 0), least) << "step " << step;
	}
}

} // namespace
