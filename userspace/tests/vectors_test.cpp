// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "test_alloc.h"
#include "vectors.h"

namespace {

class Vectors : public ::testing::Test {
protected:
	void TearDown() override
	{
		cqp_vectors_destroy(v);
		EXPECT_EQ(alloc.live, 0);
	}

	cqp_vectors *make(unsigned int nvec)
	{
		cqp_alloc a = alloc.iface();

		v = cqp_vectors_create(&a, nvec);
		return v;
	}

	TestAlloc alloc;
	cqp_vectors *v = nullptr;
};

TEST(Nvec, IsCappedByOnlineCpusAndNeverZero)
{
	EXPECT_EQ(cqp_nvec(16, 2), 2u);
	EXPECT_EQ(cqp_nvec(1, 8), 1u);
	EXPECT_EQ(cqp_nvec(4, 4), 4u);
	EXPECT_EQ(cqp_nvec(0, 4), 1u);
}

TEST_F(Vectors, ZeroVectorsIsRefused)
{
	EXPECT_EQ(make(0), nullptr);
	EXPECT_EQ(alloc.calls, 0);
}

TEST_F(Vectors, EachFailedAllocationLeavesNothing)
{
	for (int fail_at = 1; fail_at <= 2; fail_at++) {
		TestAlloc fa;
		fa.fail_at = fail_at;
		cqp_alloc a = fa.iface();

		EXPECT_EQ(cqp_vectors_create(&a, 4), nullptr);
		EXPECT_EQ(fa.calls, fail_at);
		EXPECT_EQ(fa.live, 0);
	}
}

TEST_F(Vectors, HintMapsModuloVectorCount)
{
	ASSERT_NE(make(3), nullptr);
	EXPECT_EQ(cqp_vectors_pick(v, 0), 0u);
	EXPECT_EQ(cqp_vectors_pick(v, 4), 1u);
	EXPECT_EQ(cqp_vectors_pick(v, 302), 2u);
	EXPECT_EQ(cqp_vectors_pick(v, 0x7fffffff), 0x7fffffffu % 3);
}

TEST_F(Vectors, NoHintPicksLeastLoadedLowestFirst)
{
	ASSERT_NE(make(3), nullptr);
	EXPECT_EQ(cqp_vectors_pick(v, -1), 0u);
	ASSERT_EQ(cqp_vectors_charge(v, 0, 100), CQP_OK);
	ASSERT_EQ(cqp_vectors_charge(v, 1, 50), CQP_OK);
	EXPECT_EQ(cqp_vectors_pick(v, -1), 2u);
	ASSERT_EQ(cqp_vectors_charge(v, 2, 50), CQP_OK);
	EXPECT_EQ(cqp_vectors_pick(v, -1), 1u);
}

/* CPUs went offline: only the first vectors are used, hinted or not. */
TEST_F(Vectors, PickAmongTheFirstVectorsOnly)
{
	ASSERT_NE(make(4), nullptr);
	EXPECT_EQ(cqp_vectors_pick_among(v, 3, 2), 1u);
	EXPECT_EQ(cqp_vectors_pick_among(v, 3, 4), 3u);
	EXPECT_EQ(cqp_vectors_pick_among(v, 3, 9), 3u);
	EXPECT_EQ(cqp_vectors_pick_among(v, 3, 0), 3u);
	ASSERT_EQ(cqp_vectors_charge(v, 0, 100), CQP_OK);
	ASSERT_EQ(cqp_vectors_charge(v, 1, 50), CQP_OK);
	/* Vectors 2 and 3 are empty, but no CPU serves them now. */
	EXPECT_EQ(cqp_vectors_pick_among(v, -1, 2), 1u);
	EXPECT_EQ(cqp_vectors_pick_among(v, -1, 4), 2u);
	EXPECT_EQ(cqp_vectors_pick_among(v, -1, 1), 0u);
}

TEST_F(Vectors, BadVectorAndOverdrawChangeNothing)
{
	ASSERT_NE(make(2), nullptr);
	EXPECT_EQ(cqp_vectors_charge(v, 2, 1), CQP_EINVAL);
	ASSERT_EQ(cqp_vectors_charge(v, 1, 10), CQP_OK);
	EXPECT_EQ(cqp_vectors_discharge(v, 1, 11), CQP_ERANGE);
	EXPECT_EQ(cqp_vectors_discharge(v, 5, 1), CQP_EINVAL);
	EXPECT_EQ(cqp_vectors_load(v, 1), 10u);
	EXPECT_EQ(cqp_vectors_load(v, 0), 0u);
}

TEST_F(Vectors, LargeChargesAccumulateExactly)
{
	ASSERT_NE(make(1), nullptr);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(cqp_vectors_charge(v, 0, 0xffffffffu), CQP_OK);
	EXPECT_EQ(cqp_vectors_load(v, 0), 4ull * 0xffffffffu);
}

/* Random charges and discharges against a plain array as the model. */
TEST_F(Vectors, MatchesReferenceModel)
{
	const unsigned int nvec = 5;
	std::mt19937 rng(2017);
	std::vector<cqp_u64> model(nvec);

	ASSERT_NE(make(nvec), nullptr);
	for (int step = 0; step < 20000; step++) {
		unsigned int vec = rng() % (nvec + 1); /* sometimes invalid */
		cqp_u32 n = rng() % 2048;
		bool charge = rng() % 2;
		int want;

		if (vec >= nvec)
			want = CQP_EINVAL;
		else if (!charge && n > model[vec])
			want = CQP_ERANGE;
		else
			want = CQP_OK;

		int got = charge ? cqp_vectors_charge(v, vec, n) :
				   cqp_vectors_discharge(v, vec, n);
		ASSERT_EQ(got, want) << "step " << step;
		if (got == CQP_OK)
			model[vec] = charge ? model[vec] + n : model[vec] - n;

		unsigned int least = 0;
		for (unsigned int i = 0; i < nvec; i++) {
			ASSERT_EQ(cqp_vectors_load(v, i), model[i]);
			if (model[i] < model[least])
				least = i;
		}
		ASSERT_EQ(cqp_vectors_pick(v, -1), least);
	}
}

} // namespace
