// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the CQ pools of cqpool.ko on the live soft RDMA devices of the
 * test VM: rxe0 (soft-RoCE; can resize CQs, for a pool that opts in) and
 * siw0 (soft-iWARP; cannot).
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <rdma/ib_verbs.h>

#include <cqpool/cqpool.h>

#include "compat.h"
#include "core/pool.h"
#include "testing.h"
#include "vm_devices.h"

static unsigned int pool_test_nvec(struct ib_device *dev)
{
	return min_t(unsigned int, dev->num_comp_vectors, num_online_cpus());
}

static struct cqp_pool_stats pool_stats(struct kunit *test,
					struct cqpool *pool)
{
	struct cqp_pool_stats st;

	KUNIT_EXPECT_EQ_MSG(test, cqpool_test_pool_stats(pool, &st), 0,
			    "the ledger's invariants are broken");
	return st;
}

static struct cqpool *owned_pool(struct kunit *test, struct ib_device *dev,
				 unsigned int cq_size, unsigned int flags)
{
	const struct cqpool_attr attr = {
		.poll_ctx = IB_POLL_SOFTIRQ,
		.cq_size = cq_size,
		.flags = flags,
		.name = "kunit",
	};
	struct cqpool *pool = cqpool_create(dev, &attr);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	return pool;
}

static struct ib_cq *get_ok(struct kunit *test, struct cqpool *pool,
			    unsigned int nr, int hint)
{
	struct ib_cq *cq = cqpool_cq_get(pool, nr, hint, NULL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	return cq;
}

static void device_pool_is_lazy_and_shrinks_back(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = cqpool_device_pool(dev, IB_POLL_WORKQUEUE);
	struct cqp_pool_stats st;
	struct cqpool *again;
	struct ib_cq *cq;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	again = cqpool_device_pool(dev, IB_POLL_WORKQUEUE);
	KUNIT_EXPECT_PTR_EQ(test, pool, again);
	if (!IS_ERR(again))
		cqpool_pool_put(again);
	cqpool_test_reclaim_now(pool);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.cqs, 0ULL);

	cq = get_ok(test, pool, 32, -1);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.cqs, 1ULL);
	/* Upstream allocates a CQ of 4096+ entries on every vector here. */
	KUNIT_EXPECT_LE(test, st.cqes, 4ULL * 32);
	KUNIT_EXPECT_GE(test, cq->cqe, 32);
	KUNIT_EXPECT_EQ(test, st.reserved, 32ULL);

	cqpool_cq_put(cq, 32, NULL);
	cqpool_test_reclaim_now(pool);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.cqs, 0ULL);
	KUNIT_EXPECT_EQ(test, st.cqes, 0ULL);
	cqpool_pool_put(pool);
}

/*
 * cqpool_device_cq_get() reserves on the shared pool cqpool_device_pool()
 * gives, both when it fits the ledger (RCU, no reference) and when the
 * pool must grow; bad arguments change nothing.
 */
static void device_cq_get_reserves_on_the_shared_pool(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = cqpool_device_pool(dev, IB_POLL_SOFTIRQ);
	struct cqpool_hook nohandler = { };
	struct cqp_pool_stats before, grown, st;
	struct ib_cq *a, *b, *c;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	cqpool_test_reclaim_now(pool);
	before = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_device_cq_get(dev, IB_POLL_DIRECT,
							   8, -1, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_device_cq_get(dev, IB_POLL_SOFTIRQ,
							   0, -1, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_device_cq_get(dev, IB_POLL_SOFTIRQ,
							   8, -2, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_device_cq_get(dev, IB_POLL_SOFTIRQ,
							   8, -1, &nohandler)),
			-EINVAL);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.users, before.users);
	KUNIT_EXPECT_EQ(test, st.cqs, before.cqs);

	/*
	 * Vector 0 of an empty pool: the first get grows it, and the second
	 * too where the first CQ has no room left (siw0's are not rounded up).
	 */
	a = cqpool_device_cq_get(dev, IB_POLL_SOFTIRQ, 8, 0, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	b = cqpool_device_cq_get(dev, IB_POLL_SOFTIRQ, 8, 0, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	grown = pool_stats(test, pool);
	KUNIT_EXPECT_GT(test, grown.cqs, before.cqs);
	/* The room @b leaves: the ledger's fast path, with no growth. */
	cqpool_cq_put(b, 8, NULL);
	c = cqpool_device_cq_get(dev, IB_POLL_SOFTIRQ, 8, 0, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	KUNIT_EXPECT_PTR_EQ(test, c, b);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.cqs, grown.cqs);
	KUNIT_EXPECT_EQ(test, st.users, before.users + 2);
	KUNIT_EXPECT_EQ(test, st.reserved, before.reserved + 16);

	cqpool_cq_put(c, 8, NULL);
	cqpool_cq_put(a, 8, NULL);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.users, before.users);
	KUNIT_EXPECT_EQ(test, st.reserved, before.reserved);
	cqpool_pool_put(pool);
}

static void direct_poll_context_and_bad_attrs_are_refused(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool_attr attr = { .poll_ctx = IB_POLL_DIRECT };

	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_device_pool(dev, IB_POLL_DIRECT)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_create(dev, &attr)), -EINVAL);
	attr.poll_ctx = IB_POLL_SOFTIRQ;
	attr.flags = 1U << 31;
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_create(dev, &attr)), -EINVAL);
	attr.flags = 0;
	attr.cq_size = dev->attrs.max_cqe + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_create(dev, &attr)), -EINVAL);
}

static void bad_reservations_change_nothing(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 64, 0);
	struct cqp_pool_stats before, after;
	struct ib_cq *cq;

	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_cq_get(pool, 0, -1, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_cq_get(pool, 65, -1, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(cqpool_cq_get(pool, dev->attrs.max_cqe + 1, -1,
					      NULL)),
			-EINVAL);
	cq = get_ok(test, pool, 10, 0);
	before = pool_stats(test, pool);
	/* Logged, not done: more than was reserved. */
	cqpool_cq_put(cq, 11, NULL);
	after = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, after.reserved, before.reserved);
	KUNIT_EXPECT_EQ(test, after.users, before.users);
	cqpool_cq_put(cq, 10, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static void owned_pool_is_busy_until_every_put(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, 0);
	struct cqp_pool_stats st;
	struct ib_cq *a, *b;

	a = get_ok(test, pool, 100, 0);
	b = get_ok(test, pool, 50, 0);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), -EBUSY);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.users, 2ULL);
	KUNIT_EXPECT_EQ(test, st.reserved, 150ULL);
	cqpool_cq_put(a, 100, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), -EBUSY);
	cqpool_cq_put(b, 50, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static void hint_places_reservation_on_its_vector(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, 0);
	unsigned int nvec = pool_test_nvec(dev);
	struct ib_cq *cq[4];
	int i;

	for (i = 0; i < 4; i++) {
		cq[i] = get_ok(test, pool, 16, i + 1);
		KUNIT_EXPECT_EQ(test, cq[i]->comp_vector, (i + 1) % nvec);
	}
	for (i = 0; i < 4; i++)
		cqpool_cq_put(cq[i], 16, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static void no_hint_spreads_over_vectors(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool;
	struct ib_cq *a, *b;

	/* The VM runs 2 vCPUs and both devices have a vector per CPU. */
	KUNIT_ASSERT_GE(test, pool_test_nvec(dev), 2U);
	pool = owned_pool(test, dev, 0, 0);
	a = get_ok(test, pool, 64, -1);
	b = get_ok(test, pool, 64, -1);
	KUNIT_EXPECT_NE(test, a->comp_vector, b->comp_vector);
	cqpool_cq_put(a, 64, NULL);
	cqpool_cq_put(b, 64, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

/*
 * Fixed 255-entry CQs (a size rxe does not round up): two reservations
 * of 200 need two CQs, and each next reservation goes to the CQ with the
 * most room left.
 */
static void least_used_cq_takes_the_next_reservation(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 255, CQPOOL_F_NO_RESIZE);
	struct ib_cq *a, *b, *c, *d;
	struct cqp_pool_stats st;

	a = get_ok(test, pool, 200, 0);
	b = get_ok(test, pool, 200, 0);
	KUNIT_EXPECT_PTR_NE(test, a, b);
	/* a and b have the same room and users: the older one. */
	c = get_ok(test, pool, 20, 0);
	KUNIT_EXPECT_PTR_EQ(test, c, a);
	d = get_ok(test, pool, 20, 0);
	KUNIT_EXPECT_PTR_EQ(test, d, b);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.cqs, 2ULL);

	cqpool_cq_put(a, 200, NULL);
	cqpool_cq_put(b, 200, NULL);
	cqpool_cq_put(c, 20, NULL);
	cqpool_cq_put(d, 20, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

/*
 * By default a pool grows by new CQs, on either device: the first CQ of a
 * vector is the natural size of the request, 2^k - 1 (what rxe rounds to;
 * siw rounds to 2^k, one more), and a reservation that does not fit it
 * gets a second.
 */
static void growth_is_by_new_cqs_by_default(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, 0);
	const int first = strcmp(vm_device_name(test), "siw0") ? 63 : 64;
	struct cqp_pool_stats st;
	unsigned int more;
	struct ib_cq *a, *b;

	a = get_ok(test, pool, 32, 0);
	KUNIT_EXPECT_EQ(test, a->cqe, first);
	more = a->cqe - 32 + 1;		/* one more than the room left */
	b = get_ok(test, pool, more, 0);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.reserved, 32ULL + more);
	KUNIT_EXPECT_PTR_NE(test, a, b);
	KUNIT_EXPECT_EQ(test, a->cqe, first);
	KUNIT_EXPECT_EQ(test, st.cqs, 2ULL);
	KUNIT_EXPECT_EQ(test, st.cqes, (u64)a->cqe + b->cqe);
	cqpool_cq_put(b, more, NULL);
	cqpool_cq_put(a, 32, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

/*
 * Growth in place is an owned pool's opt-in, where the kernel and the
 * driver can (rxe0; not siw0, which has no resize, and no device on a
 * kernel without kernel-side resize); asked for elsewhere, the pool is
 * refused.  A CQ grown in place is still refused to anyone else.
 */
static void resize_in_place_is_an_opt_in_where_the_driver_can(struct kunit *test)
{
	const bool can = cqpool_kernel_resize();
	struct ib_device *dev = vm_device(test);
	struct cqpool_attr attr = {
		.poll_ctx = IB_POLL_SOFTIRQ,
		.flags = CQPOOL_F_RESIZE | CQPOOL_F_NO_RESIZE,
		.name = "kunit",
	};
	struct cqp_pool_stats st;
	struct cqpool *pool;
	unsigned int more;
	struct ib_cq *a, *b;

	/* Both answers must be seen: rxe resizes, siw cannot. */
	KUNIT_EXPECT_EQ(test, !!dev->ops.resize_cq,
			!strcmp(vm_device_name(test), "rxe0"));
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_create(dev, &attr)), -EINVAL);
	attr.flags = CQPOOL_F_RESIZE;
	pool = cqpool_create(dev, &attr);
	if (!can || !dev->ops.resize_cq) {
		KUNIT_EXPECT_EQ(test, PTR_ERR(pool), -EOPNOTSUPP);
		return;
	}
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	a = get_ok(test, pool, 32, 0);
	more = a->cqe - 32 + 1;
	b = get_ok(test, pool, more, 0);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_EQ(test, st.cqs, 1ULL);
	KUNIT_EXPECT_EQ(test, st.cqes, (u64)a->cqe);
	KUNIT_EXPECT_LE(test, st.reserved, st.cqes);
	KUNIT_EXPECT_TRUE(test, a->shared);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(a, 2 * a->cqe), -EOPNOTSUPP);
	cqpool_cq_put(b, more, NULL);
	cqpool_cq_put(a, 32, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static void no_shrink_pool_keeps_idle_cqs(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, CQPOOL_F_NO_SHRINK);
	struct cqpool *shrinking = owned_pool(test, dev, 0, 0);
	struct ib_cq *a = get_ok(test, pool, 8, 0);
	struct ib_cq *b = get_ok(test, shrinking, 8, 0);

	cqpool_cq_put(a, 8, NULL);
	cqpool_cq_put(b, 8, NULL);
	cqpool_test_reclaim_now(pool);
	cqpool_test_reclaim_now(shrinking);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pool).cqs, 1ULL);
	KUNIT_EXPECT_EQ(test, pool_stats(test, shrinking).cqs, 0ULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(shrinking), 0);
}

/* Many reservations of mixed sizes never overfill a CQ. */
static void reservations_never_exceed_real_size(struct kunit *test)
{
	static const unsigned int sizes[] = { 33, 129, 385, 1025, 65, 257 };
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, 0);
	struct ib_cq *cq[48];
	struct cqp_pool_stats st;
	int i;

	for (i = 0; i < ARRAY_SIZE(cq); i++)
		cq[i] = get_ok(test, pool, sizes[i % ARRAY_SIZE(sizes)], -1);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.users, (u64)ARRAY_SIZE(cq));
	KUNIT_EXPECT_LE(test, st.reserved, st.cqes);
	for (i = 0; i < ARRAY_SIZE(cq); i++)
		cqpool_cq_put(cq[i], sizes[i % ARRAY_SIZE(sizes)], NULL);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.reserved, 0ULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static void create_qp_assigns_one_cq_for_both_directions(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, 0);
	struct ib_qp_init_attr init = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 32,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	const struct cqpool_qp_attr qattr = { .vector_hint = 1,
					      .cpu_hint = -1 };
	struct cqp_pool_stats st;
	struct ib_qp *qp;
	struct ib_pd *pd;

	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	qp = cqpool_create_qp(pool, pd, &init, &qattr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_PTR_EQ(test, qp->send_cq, qp->recv_cq);
	KUNIT_EXPECT_PTR_EQ(test, init.send_cq, qp->send_cq);
	KUNIT_EXPECT_EQ(test, qp->send_cq->comp_vector,
			1 % pool_test_nvec(dev));
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.users, 1ULL);
	KUNIT_EXPECT_EQ(test, st.reserved, 48ULL);

	/* A QP given CQs of its own is refused. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(cqpool_create_qp(pool, pd, &init, NULL)),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, cqpool_destroy_qp(qp), 0);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.users, 0ULL);
	ib_dealloc_pd(pd);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static void create_qp_separate_cqs_on_request(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, CQPOOL_F_NO_RESIZE);
	struct ib_qp_init_attr init = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 32,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	const struct cqpool_qp_attr qattr = {
		.vector_hint = -1, .cpu_hint = 0,
		.flags = CQPOOL_QP_SEPARATE_CQS,
	};
	struct cqp_pool_stats st;
	struct ib_qp *qp;
	struct ib_pd *pd;

	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	qp = cqpool_create_qp(pool, pd, &init, &qattr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	st = pool_stats(test, pool);
	KUNIT_EXPECT_EQ(test, st.users, 2ULL);
	KUNIT_EXPECT_EQ(test, st.reserved, 48ULL);
	/* The second reservation does not fit the first, exactly sized CQ. */
	KUNIT_EXPECT_PTR_NE(test, qp->send_cq, qp->recv_cq);
	KUNIT_EXPECT_EQ(test, cqpool_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pool).users, 0ULL);
	ib_dealloc_pd(pd);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

/*
 * A CPU hint picks the vector that interrupts on that CPU where the
 * driver has one per CPU (mlx5: vector i on the i-th CPU of its NUMA
 * node's spread); rxe and siw have no NUMA node, so vector i goes with
 * the i-th online CPU, and a CPU past the vectors takes its number
 * modulo theirs.
 */
static void cpu_hint_takes_the_vector_of_that_cpu(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, 0);
	struct ib_qp_init_attr init = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct cqpool_qp_attr qattr = { .vector_hint = -1 };
	unsigned int i = 0;
	struct ib_pd *pd;
	struct ib_qp *qp;
	int cpu;

	KUNIT_ASSERT_EQ(test, dev->dev.parent ?
			dev_to_node(dev->dev.parent) : NUMA_NO_NODE,
			NUMA_NO_NODE);
	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	for_each_online_cpu(cpu) {
		struct ib_qp_init_attr a = init;

		qattr.cpu_hint = cpu;
		qp = cqpool_create_qp(pool, pd, &a, &qattr);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
		KUNIT_EXPECT_EQ(test, qp->send_cq->comp_vector,
				i < pool_test_nvec(dev) ? i :
				cpu % pool_test_nvec(dev));
		i++;
		KUNIT_EXPECT_EQ(test, cqpool_destroy_qp(qp), 0);
	}
	ib_dealloc_pd(pd);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

/* Others share a pooled CQ: no consumer may resize or moderate it. */
static void pooled_cq_refuses_resize_and_moderation(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, 0);
	struct ib_cq *cq = get_ok(test, pool, 32, 0);
	int cqe = cq->cqe;

	KUNIT_EXPECT_TRUE(test, cq->shared);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 2 * cqe), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, cq->cqe, cqe);
	KUNIT_EXPECT_EQ(test, rdma_set_cq_moderation(cq, 16, 16), -EOPNOTSUPP);
	cqpool_cq_put(cq, 32, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static void hook_count(struct cqpool_hook *hook, const struct ib_event *event)
{
}

/*
 * A put without a hook of a CQ whose every reservation has one would
 * leave a hook attached, called after its owner let go: refused.
 */
static void put_without_the_hook_of_a_hooked_reservation_is_refused(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = owned_pool(test, dev, 0, 0);
	struct cqpool_hook hook = { .handler = hook_count };
	struct ib_cq *cq = cqpool_cq_get(pool, 16, 0, &hook);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	/* Refused, and said so: the reservation and its hook stay. */
	KUNIT_EXPECT_EQ(test, cqpool_cq_put(cq, 16, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pool).users, 1ULL);
	KUNIT_EXPECT_PTR_EQ(test, hook.cq, cq);
	KUNIT_EXPECT_EQ(test, cqpool_cq_put(cq, 17, &hook), -EINVAL);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pool).users, 1ULL);
	KUNIT_EXPECT_EQ(test, cqpool_cq_put(cq, 16, &hook), 0);
	KUNIT_EXPECT_EQ(test, pool_stats(test, pool).users, 0ULL);
	KUNIT_EXPECT_PTR_EQ(test, hook.cq, NULL);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static struct kunit_case pool_cases[] = {
	KUNIT_CASE_PARAM(device_pool_is_lazy_and_shrinks_back,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(device_cq_get_reserves_on_the_shared_pool,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(direct_poll_context_and_bad_attrs_are_refused,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(bad_reservations_change_nothing,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(owned_pool_is_busy_until_every_put,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(hint_places_reservation_on_its_vector,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(no_hint_spreads_over_vectors,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(least_used_cq_takes_the_next_reservation,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(growth_is_by_new_cqs_by_default,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(resize_in_place_is_an_opt_in_where_the_driver_can,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(no_shrink_pool_keeps_idle_cqs,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(reservations_never_exceed_real_size,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(create_qp_assigns_one_cq_for_both_directions,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(create_qp_separate_cqs_on_request,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(cpu_hint_takes_the_vector_of_that_cpu,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(pooled_cq_refuses_resize_and_moderation,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(put_without_the_hook_of_a_hooked_reservation_is_refused,
			 vm_devices_gen_params),
	{}
};

static struct kunit_suite pool_suite = {
	.name = "cqpool_pools",
	.exit = vm_device_exit,
	.test_cases = pool_cases,
};

kunit_test_suite(pool_suite);
