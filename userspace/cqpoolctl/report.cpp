// SPDX-License-Identifier: GPL-2.0
#include "report.h"

#include <cstdio>

namespace cqpoolctl {

double ModeResult::completions_per_s() const
{
	if (!traffic_ns)
		return 0;
	return double(completions) * 1e9 / double(traffic_ns);
}

std::string column_title(const std::string &mode)
{
	if (mode == "perqp")
		return "per-QP CQ";
	return mode;
}

Table mode_table(const std::vector<ModeResult> &results)
{
	std::vector<std::string> header{""};
	std::vector<const ModeResult *> shown;

	for (const auto &r : results)
		if (!r.skipped && !r.failed) {
			header.push_back(column_title(r.mode));
			shown.push_back(&r);
		}

	Table t(header);
	auto row = [&](const std::string &name, auto cell) {
		std::vector<std::string> v{name};

		for (const ModeResult *r : shown)
			v.push_back(cell(*r));
		t.add(v);
	};

	row("QP pairs", [](const ModeResult &r) { return grouped(r.fp.qp_pairs); });
	row("CQs", [](const ModeResult &r) { return grouped(r.fp.cqs); });
	row("CQEs allocated",
	    [](const ModeResult &r) { return grouped(r.fp.cqes_allocated); });
	row("CQEs reserved",
	    [](const ModeResult &r) { return grouped(r.fp.cqes_reserved); });
	row("allocated/reserved",
	    [](const ModeResult &r) { return ratio_str(r.fp.ratio()); });
	row("QPs per CQ (mean/max)", [](const ModeResult &r) {
		char buf[48];

		std::snprintf(buf, sizeof(buf), "%.1f / %llu", r.fp.qps_per_cq_mean,
			      (unsigned long long)r.fp.qps_per_cq_max);
		return std::string(buf);
	});
	row("completions/s",
	    [](const ModeResult &r) { return human_count(r.completions_per_s()); });
	row("setup total", [](const ModeResult &r) { return human_ns(double(r.setup_wall_ns)); });
	row("setup per QP pair", [](const ModeResult &r) {
		return r.fp.qp_pairs ? human_ns(double(r.setup_wall_ns) / double(r.fp.qp_pairs))
				     : std::string("-");
	});
	row("errors", [](const ModeResult &r) { return grouped(r.errors); });
	row("CQs left after teardown",
	    [](const ModeResult &r) { return grouped(r.left_cqs); });
	row("CQEs left after teardown",
	    [](const ModeResult &r) { return grouped(r.left_cqes); });
	row("freed", [](const ModeResult &r) { return r.left_note; });
	return t;
}

void mode_json(Json &j, const ModeResult &r)
{
	j.begin_object();
	j.field("mode", r.mode);
	j.field("skipped", r.skipped);
	j.field("failed", r.failed);
	if (!r.note.empty())
		j.field("note", r.note);
	if (r.skipped || r.failed) {
		j.end_object();
		return;
	}
	j.field("qp_pairs", r.fp.qp_pairs);
	j.field("cqs", r.fp.cqs);
	j.field("cqes_allocated", r.fp.cqes_allocated);
	j.field("cqes_reserved", r.fp.cqes_reserved);
	j.field("allocated_per_reserved", r.fp.ratio());
	j.field("qps_per_cq_mean", r.fp.qps_per_cq_mean);
	j.field("qps_per_cq_max", r.fp.qps_per_cq_max);
	j.field("completions", r.completions);
	j.field("bytes", r.bytes);
	j.field("traffic_ns", r.traffic_ns);
	j.field("completions_per_s", r.completions_per_s());
	j.field("setup_ns", r.setup_wall_ns);
	j.field("setup_kernel_ns", r.setup_kernel_ns);
	j.field("errors", r.errors);
	j.key("after_teardown").begin_object();
	j.field("cqs", r.left_cqs);
	j.field("cqes", r.left_cqes);
	j.field("freed", r.left_note);
	if (r.idle_wait_s >= 0)
		j.field("idle_after_s", r.idle_wait_s);
	j.end_object();
	j.end_object();
}

} // namespace cqpoolctl
