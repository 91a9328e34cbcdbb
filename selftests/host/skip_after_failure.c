// SPDX-License-Identifier: GPL-2.0
/*
 * A fixture of verdict_test: one test that fails a check and then skips
 * the rest, as hardening_test's takeover case did.  Built twice, with
 * SKIP_REST() and (-DPLAIN_SKIP) with the harness's own SKIP(), which in
 * 6.1 marks the test passed and so erased the failure.
 */
#include "kselftest_harness.h"
#include "../verdict.h"

TEST(a_failed_check_then_a_skip)
{
	EXPECT_EQ(0, 1);
#ifdef PLAIN_SKIP
	SKIP(return, "the rest needs what this kernel lacks");
#else
	SKIP_REST(return, "the rest needs what this kernel lacks");
#endif
}

TEST(a_skip_with_nothing_wrong)
{
	SKIP_REST(return, "nothing was checked yet");
}

TEST_HARNESS_MAIN
