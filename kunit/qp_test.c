// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what cqpool_create_qp() and cqpool_destroy_qp() refuse, and what
 * they reserve, on the live soft RDMA devices of the test VM.  Each case
 * is the contract a review found broken: it failed before the fix.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <cqpool/cqpool.h>

#include "core/pool.h"
#include "testing.h"
#include "vm_devices.h"

struct qp_test {
	struct ib_device *dev;
	struct cqpool *pool;
	struct ib_pd *pd;
};

static struct cqp_pool_stats qp_stats(struct kunit *test, struct cqpool *pool)
{
	struct cqp_pool_stats st;

	KUNIT_EXPECT_EQ_MSG(test, cqpool_test_pool_stats(pool, &st), 0,
			    "the ledger's invariants are broken");
	return st;
}

/* An owned pool that never frees idle CQs, and a PD, on the case's device. */
static void qp_test_setup(struct kunit *test, struct qp_test *t)
{
	const struct cqpool_attr attr = {
		.poll_ctx = IB_POLL_SOFTIRQ,
		.flags = CQPOOL_F_NO_SHRINK,
		.name = "kunit-qp",
	};

	t->dev = vm_device(test);
	t->pool = cqpool_create(t->dev, &attr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->pool);
	t->pd = ib_alloc_pd(t->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->pd);
}

static void qp_test_teardown(struct kunit *test, struct qp_test *t)
{
	ib_dealloc_pd(t->pd);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(t->pool), 0);
}

static struct ib_qp_init_attr rc_attr(u32 send_wr, u32 recv_wr)
{
	return (struct ib_qp_init_attr) {
		.cap = { .max_send_wr = send_wr, .max_recv_wr = recv_wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
}

/*
 * A QP the driver will not destroy (attached to a multicast group) keeps
 * its reservations: they belong to a live QP.
 */
static void destroy_of_a_busy_qp_keeps_its_reservations(struct kunit *test)
{
	union ib_gid mgid = { .raw = { 0xff, 0x0e, [15] = 0x42 } };
	struct ib_qp_init_attr init = rc_attr(8, 8);
	struct qp_test t;
	struct ib_qp *qp;

	qp_test_setup(test, &t);
	init.qp_type = IB_QPT_UD;
	qp = cqpool_create_qp(t.pool, t.pd, &init, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, ib_attach_mcast(qp, &mgid, 0), 0);

	KUNIT_EXPECT_EQ(test, cqpool_destroy_qp(qp), -EBUSY);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).users, 1ULL);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).reserved, 16ULL);

	KUNIT_EXPECT_EQ(test, ib_detach_mcast(qp, &mgid, 0), 0);
	KUNIT_EXPECT_EQ(test, cqpool_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).users, 0ULL);
	qp_test_teardown(test, &t);
}

static int ud_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	return 0;
}

/*
 * The same through RDMA-CM, whose rdma_destroy_qp() ignores the driver's
 * refusal: the destroy is refused first, and the QP and its reservations
 * stay, instead of entries given back for a QP that lives on.
 */
static void rdma_destroy_of_a_busy_qp_keeps_its_reservations(struct kunit *test)
{
	union ib_gid mgid = { .raw = { 0xff, 0x0e, [15] = 0x43 } };
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(0x0a630001),	/* rxe0's 10.99.0.1 */
	};
	struct ib_qp_init_attr init = rc_attr(8, 8);
	struct rdma_cm_id *id;
	struct qp_test t;
	struct ib_qp *qp;

	qp_test_setup(test, &t);
	id = rdma_create_id(&init_net, ud_cm_handler, NULL, RDMA_PS_UDP,
			    IB_QPT_UD);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, id);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&sin), 0);
	KUNIT_ASSERT_PTR_EQ(test, id->device, t.dev);
	init.qp_type = IB_QPT_UD;
	KUNIT_ASSERT_EQ(test, cqpool_rdma_create_qp(t.pool, id, t.pd, &init,
						    NULL), 0);
	qp = id->qp;
	KUNIT_ASSERT_EQ(test, ib_attach_mcast(qp, &mgid, 0), 0);

	KUNIT_EXPECT_EQ(test, cqpool_rdma_destroy_qp(id), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, id->qp, qp);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).users, 1ULL);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).reserved, 16ULL);

	KUNIT_EXPECT_EQ(test, ib_detach_mcast(qp, &mgid, 0), 0);
	KUNIT_EXPECT_EQ(test, cqpool_rdma_destroy_qp(id), 0);
	KUNIT_EXPECT_PTR_EQ(test, id->qp, NULL);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).users, 0ULL);
	rdma_destroy_id(id);
	qp_test_teardown(test, &t);
}

/* A PD of one device with a pool of another: driver type confusion. */
static void pd_of_another_device_is_refused(struct kunit *test)
{
	struct ib_qp_init_attr init = rc_attr(8, 8);
	struct ib_device *other;
	struct qp_test t;
	struct ib_qp *qp;
	struct ib_pd *pd;

	qp_test_setup(test, &t);
	other = ib_device_get_by_name(strcmp(vm_device_name(test), "rxe0") ?
				      "rxe0" : "siw0", RDMA_DRIVER_UNKNOWN);
	if (!other) {
		qp_test_teardown(test, &t);
		/*
		 * The VM makes siw0 wherever the kernel has siw: the kernel's
		 * config decides, not what cqpool lists.
		 */
		if (!IS_ENABLED(CONFIG_RDMA_SIW))
			kunit_skip(test, "one RDMA device only: no siw in this kernel");
		KUNIT_FAIL(test, "the kernel has siw, and siw0 is not registered");
		return;
	}
	pd = ib_alloc_pd(other, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	qp = cqpool_create_qp(t.pool, pd, &init, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(qp), -EINVAL);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).cqs, 0ULL);
	KUNIT_EXPECT_PTR_EQ(test, init.send_cq, NULL);
	ib_dealloc_pd(pd);
	ib_device_put(other);
	qp_test_teardown(test, &t);
}

/* Receives on an SRQ complete on the QP's receive CQ, as many as it holds. */
static void srq_qp_reserves_what_the_srq_holds(struct kunit *test)
{
	struct ib_srq_init_attr sattr = {
		.attr = { .max_wr = 64, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	const struct cqpool_qp_attr qattr = {
		.vector_hint = 0, .cpu_hint = -1,
		.flags = CQPOOL_QP_SEPARATE_CQS,
	};
	struct ib_qp_init_attr init = rc_attr(8, 0);
	struct ib_srq_attr real;
	struct qp_test t;
	struct ib_srq *srq;
	struct ib_qp *qp;

	qp_test_setup(test, &t);
	srq = ib_create_srq(t.pd, &sattr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);
	KUNIT_ASSERT_EQ(test, ib_query_srq(srq, &real), 0);
	init.srq = srq;
	qp = cqpool_create_qp(t.pool, t.pd, &init, &qattr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).reserved,
			8ULL + real.max_wr);
	KUNIT_EXPECT_GE(test, qp->recv_cq->cqe, (int)real.max_wr);
	KUNIT_EXPECT_EQ(test, cqpool_destroy_qp(qp), 0);
	ib_destroy_srq(srq);
	qp_test_teardown(test, &t);
}

/*
 * Work requests whose sum does not fit in 32 bits are refused before a CQ
 * is made for a sum that wrapped around.
 */
static void work_requests_that_overflow_are_refused(struct kunit *test)
{
	struct ib_qp_init_attr init = rc_attr(U32_MAX - 7, 16);
	struct qp_test t;
	struct ib_qp *qp;

	qp_test_setup(test, &t);
	qp = cqpool_create_qp(t.pool, t.pd, &init, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(qp), -EINVAL);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).cqs, 0ULL);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).users, 0ULL);
	qp_test_teardown(test, &t);
}

/*
 * QPs made and destroyed by two threads on one pool, each number
 * remembered.  siw gives a new QP the lowest free number, so one
 * thread's QP may get the number of the other's the moment its driver
 * freed it: cqpool must have let go of that number before.
 */
#define QPN_RACE_ROUNDS	2000

struct qpn_racer {
	struct qp_test *t;
	unsigned long rounds;
	long err;
};

/* One round: 0, or the error of the create or the destroy. */
static long qpn_round(struct qp_test *t, u32 *qpn)
{
	struct ib_qp_init_attr init = rc_attr(4, 4);
	struct ib_qp *qp = cqpool_create_qp(t->pool, t->pd, &init, NULL);

	if (IS_ERR(qp))
		return PTR_ERR(qp);
	*qpn = qp->qp_num;
	return cqpool_destroy_qp(qp);
}

static int qpn_racer_fn(void *arg)
{
	struct qpn_racer *r = arg;
	u32 qpn;

	while (!kthread_should_stop()) {
		if (!r->err)
			r->err = qpn_round(r->t, &qpn);
		r->rounds += !r->err;
		cond_resched();
	}
	return 0;
}

static void numbers_a_driver_reuses_at_once_are_free_in_time(struct kunit *test)
{
	struct qpn_racer r = {};
	struct task_struct *task;
	unsigned long reused = 0;
	struct qp_test t;
	u32 qpn, prev = U32_MAX;
	long err = 0;
	int i;

	if (!IS_ENABLED(CONFIG_RDMA_SIW))
		kunit_skip(test, "no siw in this kernel: rxe does not reuse QP numbers at once");
	qp_test_setup(test, &t);
	r.t = &t;
	task = kthread_run(qpn_racer_fn, &r, "cqpool-qpn");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
	for (i = 0; i < QPN_RACE_ROUNDS && !err; i++) {
		err = qpn_round(&t, &qpn);
		reused += qpn == prev;
		prev = qpn;
	}
	kthread_stop(task);

	KUNIT_EXPECT_EQ_MSG(test, err, 0L, "round %d", i);
	KUNIT_EXPECT_EQ(test, r.err, 0L);
	/* The race ran: both threads made QPs, and numbers came back. */
	KUNIT_EXPECT_GT(test, r.rounds, 0UL);
	KUNIT_EXPECT_GT(test, reused, 0UL);
	KUNIT_EXPECT_EQ(test, qp_stats(test, t.pool).users, 0ULL);
	qp_test_teardown(test, &t);
}

static struct kunit_case qp_cases[] = {
	KUNIT_CASE_PARAM(destroy_of_a_busy_qp_keeps_its_reservations,
			 rxe_device_gen_params),
	KUNIT_CASE_PARAM(rdma_destroy_of_a_busy_qp_keeps_its_reservations,
			 rxe_device_gen_params),
	KUNIT_CASE_PARAM(pd_of_another_device_is_refused,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(srq_qp_reserves_what_the_srq_holds,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(work_requests_that_overflow_are_refused,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(numbers_a_driver_reuses_at_once_are_free_in_time,
			 siw_device_gen_params),
	{}
};

static struct kunit_suite qp_suite = {
	.name = "cqpool_qps",
	.exit = vm_device_exit,
	.test_cases = qp_cases,
};

kunit_test_suite(qp_suite);
