// SPDX-License-Identifier: GPL-2.0
#include "../report.h"

#include <gtest/gtest.h>

using namespace cqpoolctl;

namespace {

ModeResult result(const char *mode, uint64_t cqs, uint64_t alloc)
{
	ModeResult r;

	r.mode = mode;
	r.fp.qp_pairs = 12;
	r.fp.cqs = cqs;
	r.fp.cqes_allocated = alloc;
	r.fp.cqes_reserved = 9240;
	r.fp.qps_per_cq_mean = 24.0 / double(cqs);
	r.fp.qps_per_cq_max = 8;
	r.completions = 3000000;
	r.traffic_ns = 3000000000ULL;
	r.setup_wall_ns = 12000000;
	return r;
}

} // namespace

TEST(Report, SideBySideSkipsWhatWasNotMeasured)
{
	ModeResult up;
	up.mode = "upstream";
	up.skipped = true;
	up.note = "taken over";
	std::vector<ModeResult> v = {result("cqpool", 3, 12288), up,
				     result("perqp", 24, 9240)};
	v[0].left_cqs = 3;
	v[0].left_cqes = 12288;
	v[0].left_note = "after idle timeout";
	v[2].left_note = "with each QP";

	std::string s = mode_table(v).render();

	EXPECT_EQ(s,
		  "                                      cqpool     per-QP CQ\n"
		  "QP pairs                                  12            12\n"
		  "CQs                                        3            24\n"
		  "CQEs allocated                        12,288         9,240\n"
		  "CQEs reserved                          9,240         9,240\n"
		  "allocated/reserved                    1.330x        1.000x\n"
		  "QPs per CQ (mean/max)                8.0 / 8       1.0 / 8\n"
		  "completions/s                          1.00M         1.00M\n"
		  "setup total                         12.00 ms      12.00 ms\n"
		  "setup per QP pair                    1.00 ms       1.00 ms\n"
		  "errors                                     0             0\n"
		  "CQs left after teardown                    3             0\n"
		  "CQEs left after teardown              12,288             0\n"
		  "freed                     after idle timeout  with each QP\n");
	EXPECT_EQ(s.find("upstream"), std::string::npos);
}

TEST(Report, JsonOfAMeasuredAndASkippedMode)
{
	Json j;
	ModeResult up;
	up.mode = "upstream";
	up.skipped = true;
	up.note = "taken over";

	j.begin_array();
	mode_json(j, result("cqpool", 3, 12288));
	mode_json(j, up);
	j.end_array();
	const std::string &s = j.str();

	EXPECT_EQ(s.find(R"([{"mode":"cqpool","skipped":false,"failed":false,"qp_pairs":12,"cqs":3,"cqes_allocated":12288,"cqes_reserved":9240,)"), 0u) << s;
	EXPECT_NE(s.find(R"("completions_per_s":1e+06,)"), std::string::npos) << s;
	EXPECT_NE(s.find(R"("after_teardown":{"cqs":0,"cqes":0,"freed":""}})"), std::string::npos) << s;
	EXPECT_NE(s.find(R"({"mode":"upstream","skipped":true,"failed":false,"note":"taken over"}])"), std::string::npos) << s;
}
