// SPDX-License-Identifier: GPL-2.0
//
// Each expectation is worked out by hand from Linux 6.1 (Debian
// linux-source-6.1); the comment names the function it comes from.
#include "../profiles.h"

#include <linux/cqpool.h>

#include <gtest/gtest.h>

using namespace cqpoolctl;

namespace {

std::vector<QueueSpec> queues(Profile p, uint32_t cpus, uint32_t q = 0, uint32_t d = 0)
{
	ProfileParams pp;

	pp.nr_cpus = cpus;
	pp.queues = q;
	pp.queue_depth = d;
	return profile_queues(p, pp);
}

void expect_queue(const QueueSpec &q, const char *role, uint32_t count,
		  uint32_t nr_cqe, uint32_t send, uint32_t recv, uint32_t poll)
{
	EXPECT_EQ(q.role, role);
	EXPECT_EQ(q.count, count) << role;
	EXPECT_EQ(q.nr_cqe, nr_cqe) << role;
	EXPECT_EQ(q.send_depth, send) << role;
	EXPECT_EQ(q.recv_depth, recv) << role;
	EXPECT_EQ(q.poll_ctx, poll) << role;
}

} // namespace

TEST(Profiles, NvmeRdmaHostHasAnAdminQueueAndOneIoQueuePerCpu)
{
	// drivers/nvme/host/rdma.c:nvme_rdma_create_queue_ib():
	// cq_size = 4 * queue_size + 1; nvme_rdma_create_qp():
	// max_send_wr = 3 * queue_size + 1, max_recv_wr = queue_size + 1.
	// Admin: NVME_AQ_DEPTH 32 -> 129, 97, 33.  I/O: NVMF_DEF_QUEUE_SIZE
	// 128 -> 513, 385, 129.  nvme_rdma_create_cq(): IB_POLL_SOFTIRQ.
	// Both queues are one more than the CQ: the harness's receive
	// queue gives up that one.
	auto v = queues(Profile::NvmeRdma, 4);

	ASSERT_EQ(v.size(), 2u);
	expect_queue(v[0], "admin", 1, 129, 97, 32, CQPOOL_POLL_SOFTIRQ);
	expect_queue(v[1], "io", 4, 513, 385, 128, CQPOOL_POLL_SOFTIRQ);
	EXPECT_EQ(queues_per_connection(v), 5u);
	EXPECT_FALSE(v[0].clamped || v[1].clamped);
	EXPECT_TRUE(v[0].trimmed && v[1].trimmed);
}

TEST(Profiles, NvmeRdmaAdminQueueOnVectorZeroIoQueuesSpread)
{
	// nvme_rdma_create_cq(): comp_vector = (idx == 0 ? 0 : idx - 1) %
	// num_comp_vectors.
	auto v = queues(Profile::NvmeRdma, 4);

	EXPECT_EQ(vector_hint(v[0], 0, 2), 0);
	EXPECT_EQ(vector_hint(v[1], 0, 2), 0);
	EXPECT_EQ(vector_hint(v[1], 1, 2), 1);
	EXPECT_EQ(vector_hint(v[1], 2, 2), 0);
}

TEST(Profiles, NvmeRdmaOverridesChangeOnlyTheIoQueues)
{
	auto v = queues(Profile::NvmeRdma, 4, 8, 1024);

	expect_queue(v[0], "admin", 1, 129, 97, 32, CQPOOL_POLL_SOFTIRQ);
	expect_queue(v[1], "io", 8, 4097, 3073, 1024, CQPOOL_POLL_SOFTIRQ);
}

TEST(Profiles, NvmetRdmaReservesRecvPlusTwiceSendPlusOne)
{
	// drivers/nvme/target/rdma.c:nvmet_rdma_create_queue_ib(): nr_cqe =
	// recv_queue_size + 2 * send_queue_size, ib_cq_pool_get(nr_cqe + 1,
	// IB_POLL_WORKQUEUE); max_send_wr = send + 1, max_recv_wr = recv + 1.
	// nvmet_rdma_parse_cm_connect_req(): recv = hsqsize + 1, send =
	// hrqsize; the host sends 31/32 (admin) and 127/128 (I/O).
	auto v = queues(Profile::NvmetRdma, 2);

	ASSERT_EQ(v.size(), 2u);
	expect_queue(v[0], "admin", 1, 97, 33, 33, CQPOOL_POLL_WORKQUEUE);
	expect_queue(v[1], "io", 2, 385, 129, 129, CQPOOL_POLL_WORKQUEUE);
	EXPECT_EQ(vector_hint(v[0], 0, 2), 0);
	EXPECT_EQ(vector_hint(v[1], 3, 2), 1);
}

TEST(Profiles, IserSizesFromTheCompileTimeCommandMaximum)
{
	// drivers/infiniband/ulp/iser/iser_verbs.c:iser_create_ib_conn_res():
	// max_send_wr = ISER_QP_MAX_REQ_DTOS + 1 = 512 * 9 + 6 + 4 + 1 =
	// 4619; cq_size = 4619 + ISER_QP_MAX_RECV_DTOS (512) = 5131;
	// max_recv_wr = 513.  The harness caps the send queue at
	// CQPOOL_MAX_DEPTH, the reservation stays the ULP's.
	auto v = queues(Profile::Iser, 8);

	ASSERT_EQ(v.size(), 1u);
	expect_queue(v[0], "conn", 1, 5131, CQPOOL_MAX_DEPTH, 513, CQPOOL_POLL_SOFTIRQ);
	EXPECT_TRUE(v[0].clamped);
	EXPECT_EQ(vector_hint(v[0], 5, 2), -1);
}

TEST(Profiles, IserWithASmallerCommandMaximumIsNotClamped)
{
	auto v = queues(Profile::Iser, 8, 0, 128);

	// 128 * 9 + 10 + 1 = 1163; + 128 = 1291; the receive queue of 129
	// gives up one to fit it.
	expect_queue(v[0], "conn", 1, 1291, 1163, 128, CQPOOL_POLL_SOFTIRQ);
	EXPECT_FALSE(v[0].clamped);
	EXPECT_TRUE(v[0].trimmed);
}

TEST(Profiles, SrptReservesRqPlusSq)
{
	// drivers/infiniband/ulp/srpt/ib_srpt.c:srpt_create_ch_ib():
	// ib_cq_pool_get(rq_size + sq_size) = 128 + 4096 = 4224,
	// max_send_wr = sq_size / 2 = 2048, max_recv_wr = rq_size = 128,
	// IB_POLL_WORKQUEUE, vector -1.  srpt_cm_req_recv(): rq_size =
	// MAX_SRPT_RQ_SIZE; srpt_add_one(): srp_sq_size = DEF_SRPT_SQ_SIZE.
	auto v = queues(Profile::Srpt, 8);

	ASSERT_EQ(v.size(), 1u);
	expect_queue(v[0], "channel", 1, 4224, 2048, 128, CQPOOL_POLL_WORKQUEUE);
	EXPECT_FALSE(v[0].clamped);

	v = queues(Profile::Srpt, 8, 4, 256);
	expect_queue(v[0], "channel", 4, 384, 128, 128, CQPOOL_POLL_WORKQUEUE);
}

TEST(Profiles, CustomIsOneEntryPerWorkRequest)
{
	auto v = queues(Profile::Custom, 8, 3, 64);

	expect_queue(v[0], "queue", 3, 128, 64, 64, CQPOOL_POLL_SOFTIRQ);
	EXPECT_EQ(min_depth(v), 64u);
}

TEST(Profiles, MinDepthIsTheShallowestQueue)
{
	// nvme's admin queue (recv 32, fitted to its CQ) bounds traffic on
	// every queue.
	EXPECT_EQ(min_depth(queues(Profile::NvmeRdma, 2)), 32u);
	EXPECT_EQ(min_depth(queues(Profile::Srpt, 2)), 128u);
}

TEST(Profiles, NamesRoundTrip)
{
	for (Profile p : {Profile::NvmeRdma, Profile::NvmetRdma, Profile::Iser,
			  Profile::Srpt, Profile::Custom}) {
		Profile q;

		ASSERT_TRUE(parse_profile(profile_name(p), q));
		EXPECT_EQ(q, p);
	}
	Profile q;
	EXPECT_FALSE(parse_profile("nvme", q));
}
