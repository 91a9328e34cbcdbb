// SPDX-License-Identifier: GPL-2.0
//
// A small model of /dev/cqpool for running the subcommands without the
// module: enough of the ABI (size checks, ids, CQ sharing per mode,
// device totals) that a wrong struct, a missing call or a miscount in
// cqpoolctl shows.  Its pool policy is deliberately simple, not cqpool's.
#ifndef CQPOOLCTL_FAKE_KERNEL_H
#define CQPOOLCTL_FAKE_KERNEL_H

#include <linux/cqpool.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fake {

struct Cq {
	uint32_t id, vector, cqe, reserved, users;
};

struct Kernel {
	// Knobs
	int open_errno = 0;		// open() fails with it
	bool upstream_busy = false;	// CQ_UPSTREAM gives EBUSY (takeover)
	std::vector<uint32_t> bench_flags;	// @flags of each BENCH, in order
	std::vector<uint32_t> bench_threads;	// @threads of each BENCH, in order
	int trigger_errno = 0;
	uint32_t vectors = 2;
	uint32_t pool_cq_size = 4096;

	// Observations
	std::map<unsigned long, int> calls;	// by ioctl number
	int open_fds = 0;
	uint64_t traffic_calls = 0;

	// State
	cqpool_device_info dev{};
	std::vector<Cq> pool_cqs, upstream_cqs;
	std::map<uint32_t, cqpool_conn_info> conns;
	std::map<uint32_t, uint32_t> conn_modes;
	uint32_t next_id = 1, next_cq = 100;

	Kernel();
	void install();		// cqpoolctl::set_backend() to this model
	void uninstall();
};

extern Kernel *current;

} // namespace fake

#endif
