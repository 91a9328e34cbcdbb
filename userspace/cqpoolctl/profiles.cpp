// SPDX-License-Identifier: GPL-2.0
#include "profiles.h"

#include <linux/cqpool.h>

#include <algorithm>

namespace cqpoolctl {

namespace {

// include/linux/nvme.h: the admin queue's depth, fixed by the Fabrics spec.
constexpr uint32_t NVME_AQ_DEPTH = 32;
// drivers/nvme/host/fabrics.h: queue_size when nvme connect gives none.
constexpr uint32_t NVMF_DEF_QUEUE_SIZE = 128;

// drivers/infiniband/ulp/iser/iscsi_iser.h: ISER_DEF_XMIT_CMDS_MAX is
// max(ISCSI_DEF_XMIT_CMDS_MAX (128), ISER_DEF_XMIT_CMDS_DEFAULT (512)) =
// 512 at compile time.  The QP is sized from it, not from the session's
// cmds_max (default 128), which only caps shost->can_queue.
constexpr uint32_t ISER_DEF_XMIT_CMDS_MAX = 512;
constexpr uint32_t ISER_INFLIGHT_DATAOUTS = 8;
constexpr uint32_t ISER_MAX_TX_MISC_PDUS = 6;
constexpr uint32_t ISER_MAX_RX_MISC_PDUS = 4;

// drivers/infiniband/ulp/srpt/ib_srpt.h: srp_sq_size's default (the
// port's configfs attribute) and the receive ring of a channel.
constexpr uint32_t DEF_SRPT_SQ_SIZE = 4096;
constexpr uint32_t MAX_SRPT_RQ_SIZE = 128;

uint32_t clamp_depth(uint32_t d, bool &clamped)
{
	if (d > CQPOOL_MAX_DEPTH) {
		clamped = true;
		return CQPOOL_MAX_DEPTH;
	}
	return d;
}

QueueSpec queue(const char *role, uint32_t count, uint32_t nr_cqe,
		uint32_t send, uint32_t recv, bool spread, int vector,
		uint32_t poll_ctx)
{
	QueueSpec q{role, count, nr_cqe, 0, 0, spread, vector, poll_ctx, false,
		    false};

	// The harness cannot make deeper QPs than CQPOOL_MAX_DEPTH; the
	// reservation stays the ULP's, since that is what the pools see.
	q.send_depth = clamp_depth(send, q.clamped);
	q.recv_depth = clamp_depth(recv, q.clamped);
	// nvme-rdma and iSER size the CQ one entry short of both queues:
	// each queue has a slot for a drain, and ib_drain_qp() drains them
	// one after the other.  The harness fills both queues, and the
	// kernel refuses a CQ that cannot hold every completion of its QP:
	// the receive queue gives up the difference.
	if (q.send_depth + q.recv_depth > nr_cqe && nr_cqe > q.send_depth) {
		q.recv_depth = nr_cqe - q.send_depth;
		q.trimmed = true;
	}
	return q;
}

// drivers/nvme/host/rdma.c:nvme_rdma_create_queue_ib(): cq_factor = 4
// (MR, SEND, INV + RECV), cq_size = 4 * queue_size + 1 ("+1 for
// ib_stop_cq"); nvme_rdma_create_qp(): max_send_wr = 3 * queue_size + 1,
// max_recv_wr = queue_size + 1.  nvme_rdma_create_cq(): IB_POLL_SOFTIRQ,
// comp_vector 0 for the admin queue, idx - 1 for I/O queue idx.
QueueSpec nvme_host_queue(const char *role, uint32_t count, uint32_t qs,
			  bool spread)
{
	return queue(role, count, 4 * qs + 1, 3 * qs + 1, qs + 1, spread,
		     spread ? -1 : 0, CQPOOL_POLL_SOFTIRQ);
}

// drivers/nvme/target/rdma.c:nvmet_rdma_create_queue_ib(): nr_cqe =
// recv_queue_size + 2 * send_queue_size, ib_cq_pool_get(nr_cqe + 1,
// IB_POLL_WORKQUEUE); max_send_wr = send_queue_size + 1, max_recv_wr =
// recv_queue_size + 1.  nvmet_rdma_parse_cm_connect_req(): recv_queue_size
// = hsqsize + 1, send_queue_size = hrqsize, which the host's
// nvme_rdma_route_resolved() sets to 31/32 (admin) and queue_size - 1 /
// queue_size (I/O): both sizes equal the host's queue size.
// nvmet_rdma_queue_connect(): comp_vector 0 for admin, idx % vectors.
QueueSpec nvmet_queue(const char *role, uint32_t count, uint32_t qs, bool spread)
{
	uint32_t recv = qs, send = qs;

	return queue(role, count, recv + 2 * send + 1, send + 1, recv + 1,
		     spread, spread ? -1 : 0, CQPOOL_POLL_WORKQUEUE);
}

} // namespace

bool parse_profile(const std::string &s, Profile &out)
{
	static const struct {
		const char *name;
		Profile p;
	} names[] = {
		{"nvme-rdma", Profile::NvmeRdma}, {"nvmet-rdma", Profile::NvmetRdma},
		{"iser", Profile::Iser},	  {"srpt", Profile::Srpt},
		{"custom", Profile::Custom},
	};
	for (const auto &n : names)
		if (s == n.name) {
			out = n.p;
			return true;
		}
	return false;
}

const char *profile_name(Profile p)
{
	switch (p) {
	case Profile::NvmeRdma: return "nvme-rdma";
	case Profile::NvmetRdma: return "nvmet-rdma";
	case Profile::Iser: return "iser";
	case Profile::Srpt: return "srpt";
	case Profile::Custom: return "custom";
	}
	return "?";
}

const char *profile_depth_knob(Profile p)
{
	switch (p) {
	case Profile::NvmeRdma:
	case Profile::NvmetRdma: return "queue_size of the I/O queues";
	case Profile::Iser: return "ISER_DEF_XMIT_CMDS_MAX";
	case Profile::Srpt: return "srp_sq_size";
	case Profile::Custom: return "send and receive depth";
	}
	return "?";
}

std::vector<QueueSpec> profile_queues(Profile p, const ProfileParams &params)
{
	uint32_t cpus = params.nr_cpus ? params.nr_cpus : 1;
	std::vector<QueueSpec> v;

	switch (p) {
	case Profile::NvmeRdma:
	case Profile::NvmetRdma: {
		// drivers/nvme/host/fabrics.c:nvmf_parse_options():
		// nr_io_queues = num_online_cpus(); rdma.c:
		// nvme_rdma_configure_admin_queue() adds the admin queue of
		// NVME_AQ_DEPTH.  The target mirrors the host's queues.
		auto make = p == Profile::NvmeRdma ? nvme_host_queue : nvmet_queue;
		uint32_t qs = params.queue_depth ? params.queue_depth
						 : NVMF_DEF_QUEUE_SIZE;
		v.push_back(make("admin", 1, NVME_AQ_DEPTH, false));
		v.push_back(make("io", params.queues ? params.queues : cpus, qs,
				 true));
		break;
	}
	case Profile::Iser: {
		// drivers/infiniband/ulp/iser/iser_verbs.c:
		// iser_create_ib_conn_res(): max_send_wr = ISER_QP_MAX_REQ_DTOS
		// + 1 ("+1 for drain"; min with max_qp_wr, which rxe and siw
		// exceed), cq_size = max_send_wr + ISER_QP_MAX_RECV_DTOS,
		// max_recv_wr = ISER_QP_MAX_RECV_DTOS + 1, IB_POLL_SOFTIRQ,
		// vector -1.  iscsi_iser.h: ISER_QP_MAX_REQ_DTOS = T * (1 +
		// ISER_INFLIGHT_DATAOUTS) + ISER_MAX_TX_MISC_PDUS +
		// ISER_MAX_RX_MISC_PDUS, ISER_QP_MAX_RECV_DTOS = T, with T =
		// ISER_DEF_XMIT_CMDS_MAX.  One QP per iSCSI connection.
		uint32_t t = params.queue_depth ? params.queue_depth
						: ISER_DEF_XMIT_CMDS_MAX;
		uint32_t send = t * (1 + ISER_INFLIGHT_DATAOUTS) +
				ISER_MAX_TX_MISC_PDUS + ISER_MAX_RX_MISC_PDUS + 1;
		v.push_back(queue("conn", params.queues ? params.queues : 1,
				  send + t, send, t + 1, false, -1,
				  CQPOOL_POLL_SOFTIRQ));
		break;
	}
	case Profile::Srpt: {
		// drivers/infiniband/ulp/srpt/ib_srpt.c:srpt_create_ch_ib():
		// ib_cq_pool_get(rq_size + sq_size, -1, IB_POLL_WORKQUEUE),
		// max_send_wr = min(sq_size / 2, max_qp_wr), max_recv_wr =
		// rq_size (no SRQ: port_attrib.use_srq defaults to false in
		// srpt_add_one(), which also sets srp_sq_size =
		// DEF_SRPT_SQ_SIZE); srpt_cm_req_recv(): rq_size =
		// min(MAX_SRPT_RQ_SIZE, max_qp_wr).  One QP per RDMA channel.
		uint32_t sq = params.queue_depth ? params.queue_depth
						 : DEF_SRPT_SQ_SIZE;
		uint32_t rq = MAX_SRPT_RQ_SIZE;
		v.push_back(queue("channel", params.queues ? params.queues : 1,
				  rq + sq, std::max(sq / 2, 1u), rq, false, -1,
				  CQPOOL_POLL_WORKQUEUE));
		break;
	}
	case Profile::Custom: {
		// No ULP behind it: send and receive of the same depth, one CQ
		// entry per work request.
		uint32_t d = params.queue_depth ? params.queue_depth : 128;
		v.push_back(queue("queue", params.queues ? params.queues : 1,
				  2 * d, d, d, false, -1, CQPOOL_POLL_SOFTIRQ));
		break;
	}
	}
	return v;
}

uint32_t queues_per_connection(const std::vector<QueueSpec> &specs)
{
	uint32_t n = 0;

	for (const auto &q : specs)
		n += q.count;
	return n;
}

uint32_t min_depth(const std::vector<QueueSpec> &specs)
{
	uint32_t d = UINT32_MAX;

	for (const auto &q : specs)
		d = std::min(d, std::min(q.send_depth, q.recv_depth));
	return specs.empty() ? 0 : d;
}

int vector_hint(const QueueSpec &q, uint32_t index, uint32_t vectors)
{
	if (!q.spread)
		return q.fixed_vector;
	return vectors ? int(index % vectors) : -1;
}

} // namespace cqpoolctl
