// SPDX-License-Identifier: GPL-2.0
/*
 * The takeover's attribution of put-backs (takeover/settle.h), on the
 * host: which reservations on one CQ sum to what ib_core says came back.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "../../takeover/settle.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* The entries @take gives back, or -1 when it takes more than there is. */
static long taken(const unsigned int *size, const unsigned int *count,
		  unsigned int nr, const unsigned int *take)
{
	long sum = 0;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (take[i] > count[i])
			return -1;
		sum += (long)take[i] * size[i];
	}
	return sum;
}

/* The review's case: three of 129 entries on a CQ, two put back. */
TEST(two_of_three_same_size_reservations)
{
	const unsigned int size[] = { 129 }, count[] = { 3 };
	unsigned int take[1];

	ASSERT_EQ(1, tk_settle_pick(size, count, 1, 2 * 129, take));
	EXPECT_EQ(2, take[0]);
}

TEST(every_reservation_back_takes_all)
{
	const unsigned int size[] = { 257, 129, 32 }, count[] = { 1, 4, 2 };
	unsigned int take[3];

	ASSERT_EQ(1, tk_settle_pick(size, count, 3, 257 + 4 * 129 + 64, take));
	EXPECT_EQ(1, take[0]);
	EXPECT_EQ(4, take[1]);
	EXPECT_EQ(2, take[2]);
}

/* NVMe-oF: an admin queue and I/O queues of another size. */
TEST(a_mix_of_sizes_that_needs_a_smaller_one_first)
{
	const unsigned int size[] = { 129, 32 }, count[] = { 4, 5 };
	unsigned int take[2];

	/* Greedy (as many 129s as fit: three) leaves 64, and two 32s fit. */
	ASSERT_EQ(1, tk_settle_pick(size, count, 2, 3 * 129 + 2 * 32, take));
	EXPECT_EQ(3 * 129 + 2 * 32, taken(size, count, 2, take));
	/* 4 * 32 = 128: the 129s must give way to the 32s. */
	ASSERT_EQ(1, tk_settle_pick(size, count, 2, 4 * 32, take));
	EXPECT_EQ(0, take[0]);
	EXPECT_EQ(4, take[1]);
}

TEST(backtracking_past_the_greedy_choice)
{
	/* 60 = 20 * 3, but greedily 50 + ... leaves 10, which nothing makes. */
	const unsigned int size[] = { 50, 20 }, count[] = { 1, 3 };
	unsigned int take[2];

	ASSERT_EQ(1, tk_settle_pick(size, count, 2, 60, take));
	EXPECT_EQ(0, take[0]);
	EXPECT_EQ(3, take[1]);
}

TEST(an_excess_nothing_makes_takes_nothing)
{
	const unsigned int size[] = { 129, 32 }, count[] = { 2, 2 };
	unsigned int take[2];

	EXPECT_EQ(0, tk_settle_pick(size, count, 2, 100, take));
	/* More than all of them: the table never holds less than is used. */
	EXPECT_EQ(0, tk_settle_pick(size, count, 2, 2 * 129 + 2 * 32 + 1,
				    take));
	EXPECT_EQ(1, tk_settle_pick(size, count, 0, 0, take));
	EXPECT_EQ(0, tk_settle_pick(size, count, 0, 1, take));
}

/* Marks in @makes every sum of up to @count[i] of each @size[i]. */
static void every_sum(const unsigned int *size, const unsigned int *count,
		      unsigned int nr, long sum, char *makes)
{
	unsigned int c;

	if (!nr) {
		makes[sum] = 1;
		return;
	}
	for (c = 0; c <= count[0]; c++)
		every_sum(size + 1, count + 1, nr - 1, sum + (long)c * size[0],
			  makes);
}

/* Every excess of 1..total on random mixes, against a brute force. */
TEST(every_excess_a_subset_makes_is_found)
{
	unsigned int size[4], count[4], take[4], seed = 1, round;

	for (round = 0; round < 200; round++) {
		unsigned int nr = 1 + rand_r(&seed) % 4, i;
		long total = 0, e;
		char *makes;

		for (i = 0; i < nr; i++) {
			/* Distinct, largest first. */
			size[i] = (nr - i) * 7 + rand_r(&seed) % 7;
			count[i] = rand_r(&seed) % 4;
			total += (long)size[i] * count[i];
		}
		makes = calloc(total + 1, 1);
		ASSERT_NE(NULL, makes);
		every_sum(size, count, nr, 0, makes);
		for (e = 0; e <= total; e++) {
			int got = tk_settle_pick(size, count, nr, e, take);

			ASSERT_EQ(makes[e], got) TH_LOG("round %u excess %ld", round, e);
			if (got)
				ASSERT_EQ(e, taken(size, count, nr, take));
		}
		free(makes);
	}
}

/*
 * Many small reservations in sizes that never sum right: 9^16 choices,
 * which the harness's timeout would end, and the bound ends at once.
 */
TEST(the_search_is_bounded)
{
	unsigned int size[16], count[16], take[16], i;

	for (i = 0; i < 16; i++) {
		size[i] = 2 * (40 - i);		/* all even */
		count[i] = 8;
	}
	/* Odd: no subset makes it, and the search stops at its bound. */
	EXPECT_EQ(0, tk_settle_pick(size, count, 16, 1001, take));
}

TEST_HARNESS_MAIN
