// SPDX-License-Identifier: GPL-2.0
//
// The result of `cqpoolctl run` for one CQ mode, and the side-by-side
// table and JSON made from one or more of them.
#ifndef CQPOOLCTL_REPORT_H
#define CQPOOLCTL_REPORT_H

#include "stats.h"
#include "table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cqpoolctl {

struct ModeResult {
	std::string mode;		// "cqpool", "upstream", "perqp"
	bool skipped = false;		// upstream taken over: nothing to measure
	bool failed = false;		// setup failed: no numbers either
	std::string note;		// why skipped, or what failed

	uint64_t conns_wanted = 0;
	Footprint fp;			// from LIST_CONNS while running
	uint64_t setup_wall_ns = 0;	// all CONN_CREATE calls, as timed here
	uint64_t setup_kernel_ns = 0;	// sum of the kernel's setup_ns

	uint64_t completions = 0;
	uint64_t bytes = 0;
	uint64_t traffic_ns = 0;	// sum of TRAFFIC elapsed_ns
	uint64_t errors = 0;		// error completions, failed calls

	// The device's CQs of this mode just after teardown.
	uint64_t left_cqs = 0;
	uint64_t left_cqes = 0;
	std::string left_note;		// when they go: "never", "after idle timeout", …
	int64_t idle_wait_s = -1;	// --wait-idle: seconds until 0, else -1

	double completions_per_s() const;
};

// Rows: metrics; columns: one per mode that has numbers, as `run --mode
// all` prints it.
Table mode_table(const std::vector<ModeResult> &results);
void mode_json(Json &j, const ModeResult &r);

std::string column_title(const std::string &mode);

} // namespace cqpoolctl

#endif
