// SPDX-License-Identifier: GPL-2.0
//
// ULP profiles: the queues a stock upper-layer protocol opens per
// connection and how it sizes each QP and the CQ it reserves, so a run
// asks the pools for what the real ULP would.  The numbers follow Linux
// 6.1 (Debian linux-source-6.1); profiles.cpp cites each function.
#ifndef CQPOOLCTL_PROFILES_H
#define CQPOOLCTL_PROFILES_H

#include <cstdint>
#include <string>
#include <vector>

namespace cqpoolctl {

enum class Profile { NvmeRdma, NvmetRdma, Iser, Srpt, Custom };

// One kind of queue of a connection: @count QPs alike.
struct QueueSpec {
	std::string role;	// "admin", "io", "conn", "channel", "queue"
	uint32_t count;
	uint32_t nr_cqe;	// CQEs the ULP reserves for this QP's CQ
	uint32_t send_depth;	// max_send_wr
	uint32_t recv_depth;	// max_recv_wr
	// The completion vector the ULP asks for: nvme spreads I/O queues
	// over the vectors by index and keeps the admin queue on 0; the
	// others let the pool choose (-1).
	bool spread;		// queue i of this kind asks for vector i
	int fixed_vector;	// without @spread: the vector, or -1
	uint32_t poll_ctx;	// enum cqpool_poll_ctx the ULP uses
	bool clamped;		// send or recv depth cut to CQPOOL_MAX_DEPTH
	bool trimmed;		// recv depth cut so that both queues fit nr_cqe
};

struct ProfileParams {
	uint32_t nr_cpus = 1;	 // num_online_cpus() where the ULP runs
	uint32_t queues = 0;	 // 0: the profile's; else I/O queues (or QPs)
	uint32_t queue_depth = 0; // 0: the profile's default knob value
};

bool parse_profile(const std::string &s, Profile &out);
const char *profile_name(Profile p);
// The knob --queue-depth sets, for help and reports.
const char *profile_depth_knob(Profile p);

std::vector<QueueSpec> profile_queues(Profile p, const ProfileParams &params);

// QPs (= connections through CQPOOL_IOC_CONN_CREATE) one ULP connection
// makes.
uint32_t queues_per_connection(const std::vector<QueueSpec> &specs);

// Largest in-flight depth every queue of @specs can take.
uint32_t min_depth(const std::vector<QueueSpec> &specs);

// The vector_hint for queue @index of @q on a device of @vectors vectors.
int vector_hint(const QueueSpec &q, uint32_t index, uint32_t vectors);

} // namespace cqpoolctl

#endif
