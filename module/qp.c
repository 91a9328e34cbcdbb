// SPDX-License-Identifier: GPL-2.0
/*
 * QPs with CQs assigned from a pool: the caller leaves send_cq and
 * recv_cq NULL and cqpool reserves entries for them, sized from the QP's
 * capabilities, on the vector the caller hints at.
 */
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include "cqpool_internal.h"

/*
 * ib_create_qp() adds send work requests for rdma_rw contexts: one per
 * context, two more (registration and invalidation) where memory
 * registration is used.  Reserve for the larger case.
 */
#define CQPOOL_RW_WR_PER_CTX	3

/*
 * The vector that serves @cpu, of @nvec.  No driver of 6.1 or 6.12
 * reports ib_get_vector_affinity() (mlx5 dropped it in 2018), so the
 * answer is what the drivers do, not what they say: mlx5 interrupts its
 * completion vector i on CPU cpumask_local_spread(i, node), the device's
 * NUMA node (mlx5_cpumask_default_spread() in 6.12, comp_irqs_request()
 * in 6.1), which is the vector picked when one interrupts on @cpu.  A CPU
 * none interrupts on (more CPUs than vectors) gets @cpu modulo @nvec.
 * rxe and siw raise no interrupt per vector: their vectors serve every
 * CPU alike, and the same rule spreads the hints over them.
 */
static unsigned int cqpool_cpu_vector(struct ib_device *ibdev, int cpu,
				      unsigned int nvec)
{
	int node = ibdev->dev.parent ? dev_to_node(ibdev->dev.parent) :
				       NUMA_NO_NODE;
	unsigned int v;

	for (v = 0; v < nvec; v++)
		if (cpumask_local_spread(v, node) == cpu)
			return v;
	return cpu % nvec;
}

static int cqpool_qp_vector(struct cqpool_dev *cdev,
			    const struct cqpool_qp_attr *qattr)
{
	if (!qattr || qattr->vector_hint >= 0 || qattr->cpu_hint < 0)
		return qattr ? qattr->vector_hint : -1;
	return cqpool_cpu_vector(cdev->ibdev, qattr->cpu_hint,
				 cqpool_dev_nvec(cdev));
}

/* The QP's event handler hears the events of its pooled CQs too. */
static void cqpool_qp_cq_event(struct cqpool_qp *cqp,
			       const struct ib_event *event)
{
	struct ib_event ev = *event;

	cqp->event_handler(&ev, cqp->qp_context);
}

static void cqpool_qp_send_cq_event(struct cqpool_hook *hook,
				    const struct ib_event *event)
{
	cqpool_qp_cq_event(container_of(hook, struct cqpool_qp, send_hook),
			   event);
}

static void cqpool_qp_recv_cq_event(struct cqpool_hook *hook,
				    const struct ib_event *event)
{
	struct cqpool_qp *cqp = container_of(hook, struct cqpool_qp,
					     recv_hook);

	/*
	 * Separate reservations on one CQ: its send hook is on it too and
	 * has told the QP already, which must hear each event once.
	 */
	if (event->element.cq == cqp->send_cq)
		return;
	cqpool_qp_cq_event(cqp, event);
}

static struct cqpool_hook *cqpool_qp_hook(struct cqpool_qp *cqp,
					  struct cqpool_hook *hook)
{
	return cqp->event_handler ? hook : NULL;
}

static void cqpool_qp_release(struct cqpool_qp *cqp)
{
	/*
	 * A reservation of its own, even where it landed on the send CQ.
	 * cqpool's own reservations: a refused put is a bug here.
	 */
	if (cqp->recv_cq && cqp->recv_cqe)
		WARN_ON_ONCE(cqpool_cq_put(cqp->recv_cq, cqp->recv_cqe,
					   cqpool_qp_hook(cqp, &cqp->recv_hook)));
	if (cqp->send_cq)
		WARN_ON_ONCE(cqpool_cq_put(cqp->send_cq, cqp->send_cqe,
					   cqpool_qp_hook(cqp, &cqp->send_hook)));
	kfree(cqp);
}

/*
 * Receives of a QP on an SRQ complete on the QP's receive CQ, as many at
 * once as the SRQ holds.
 */
static int cqpool_qp_recv_wr(struct ib_qp_init_attr *init_attr, u64 *wr)
{
	struct ib_srq_attr attr;
	int ret;

	if (!init_attr->srq) {
		*wr = init_attr->cap.max_recv_wr;
		return 0;
	}
	ret = ib_query_srq(init_attr->srq, &attr);
	*wr = attr.max_wr;
	return ret;
}

/* Reserves the QP's CQs and sets them in @init_attr. */
static struct cqpool_qp *cqpool_qp_prepare(struct cqpool *pool,
					   struct ib_qp_init_attr *init_attr,
					   const struct cqpool_qp_attr *qattr)
{
	const u32 max_cqe = pool->cdev->ibdev->attrs.max_cqe;
	const struct ib_qp_cap *cap = &init_attr->cap;
	struct cqpool_qp *cqp;
	u64 send_wr, recv_wr;
	int vec, ret;

	if (init_attr->send_cq || init_attr->recv_cq)
		return ERR_PTR(-EINVAL);
	if (qattr && ((qattr->flags & ~CQPOOL_QP_ALL) ||
		      qattr->cpu_hint >= (int)nr_cpu_ids))
		return ERR_PTR(-EINVAL);

	/* In 64 bits: the sum of what a caller asks may not fit in 32. */
	send_wr = cap->max_send_wr +
		(u64)CQPOOL_RW_WR_PER_CTX * cap->max_rdma_ctxs;
	ret = cqpool_qp_recv_wr(init_attr, &recv_wr);
	if (ret)
		return ERR_PTR(ret);
	if (send_wr > max_cqe || recv_wr > max_cqe ||
	    (!(qattr && (qattr->flags & CQPOOL_QP_SEPARATE_CQS)) &&
	     send_wr + recv_wr > max_cqe))
		return ERR_PTR(-EINVAL);
	vec = cqpool_qp_vector(pool->cdev, qattr);

	cqp = kzalloc(sizeof(*cqp), GFP_KERNEL);
	if (!cqp)
		return ERR_PTR(-ENOMEM);
	cqp->pool = pool;
	cqp->event_handler = init_attr->event_handler;
	cqp->qp_context = init_attr->qp_context;
	cqp->send_hook.handler = cqpool_qp_send_cq_event;
	cqp->recv_hook.handler = cqpool_qp_recv_cq_event;

	if (qattr && (qattr->flags & CQPOOL_QP_SEPARATE_CQS)) {
		cqp->send_cqe = max_t(u64, send_wr, 1);
		cqp->recv_cqe = max_t(u64, recv_wr, 1);
	} else {
		cqp->send_cqe = send_wr + recv_wr;
	}

	cqp->send_cq = cqpool_cq_get(pool, cqp->send_cqe, vec,
				     cqpool_qp_hook(cqp, &cqp->send_hook));
	if (IS_ERR(cqp->send_cq)) {
		int ret = PTR_ERR(cqp->send_cq);

		kfree(cqp);
		return ERR_PTR(ret);
	}
	cqp->recv_cq = cqp->send_cq;
	if (cqp->recv_cqe) {
		cqp->recv_cq = cqpool_cq_get(pool, cqp->recv_cqe, vec,
					     cqpool_qp_hook(cqp,
							    &cqp->recv_hook));
		if (IS_ERR(cqp->recv_cq)) {
			int ret = PTR_ERR(cqp->recv_cq);

			cqp->recv_cq = NULL;
			cqpool_qp_release(cqp);
			return ERR_PTR(ret);
		}
	}
	init_attr->send_cq = cqp->send_cq;
	init_attr->recv_cq = cqp->recv_cq;
	return cqp;
}

static void cqpool_qp_abandon(struct cqpool_qp *cqp,
			      struct ib_qp_init_attr *init_attr)
{
	init_attr->send_cq = NULL;
	init_attr->recv_cq = NULL;
	cqpool_qp_release(cqp);
}

/*
 * Enters @cqp under its QP's number.  A record found there is of a QP
 * being destroyed, whose number the driver has freed and given to this
 * one at once (siw does): this one takes its place.
 */
static int cqpool_qp_track(struct cqpool_qp *cqp, struct ib_qp *qp)
{
	struct xarray *qps = &cqp->pool->cdev->qps;
	struct cqpool_qp *old;
	int ret;

	cqp->qp = qp;
	cqp->dying = false;
	xa_lock(qps);
	/* Valid while in @qps: its owner takes it out before freeing it. */
	old = xa_load(qps, qp->qp_num);
	if (old && old->dying)
		ret = xa_err(__xa_store(qps, qp->qp_num, cqp, GFP_KERNEL));
	else
		ret = __xa_insert(qps, qp->qp_num, cqp, GFP_KERNEL);
	xa_unlock(qps);
	return ret;
}

/*
 * The record of a QP cqpool made, found through its send CQ: its
 * reservation keeps the pool and the device's record alive, whatever
 * state the device is in.
 */
static struct cqpool_qp *cqpool_qp_find(struct ib_qp *qp)
{
	struct cqpool_cq *ccq = qp->send_cq ? cqpool_cq_of(qp->send_cq) : NULL;
	struct cqpool_qp *cqp;

	if (!ccq)
		return NULL;
	cqp = xa_load(&ccq->pool->cdev->qps, qp->qp_num);
	return cqp && cqp->qp == qp ? cqp : NULL;
}

/*
 * Marks @cqp's QP as being destroyed (@dying), or not any more: from
 * the moment the driver frees the QP, a new one may get its number.
 */
static void cqpool_qp_dying(struct cqpool_qp *cqp, bool dying)
{
	struct xarray *qps = &cqp->pool->cdev->qps;

	xa_lock(qps);
	cqp->dying = dying;
	xa_unlock(qps);
}

/* Takes @cqp out, once its QP is gone, unless a new QP took the number. */
static void cqpool_qp_untrack(struct cqpool_qp *cqp, u32 qp_num)
{
	xa_cmpxchg(&cqp->pool->cdev->qps, qp_num, cqp, NULL, 0);
}

/**
 * cqpool_create_qp() - create a QP whose CQs come from a pool
 * @pool: the pool
 * @pd: protection domain of the QP
 * @init_attr: as for ib_create_qp(), with send_cq and recv_cq NULL; on
 *	success they are set to the CQs assigned.  event_handler receives
 *	the QP's own affiliated events and those of its pooled CQs (with
 *	element.cq set), these in atomic context, until the QP is destroyed.
 * @qattr: vector and CPU hints and flags; NULL for the least-loaded
 *	vector and one CQ for both directions
 *
 * The CQs are sized from cap.max_send_wr (plus what rdma_rw contexts
 * add) and cap.max_recv_wr (none with an SRQ).  Destroy the QP with
 * cqpool_destroy_qp().
 *
 * Context: process context; may sleep.
 * Return: the QP, or ERR_PTR(-EINVAL) if a CQ was given, @pd is on
 * another device than @pool, @qattr is bad or the QP needs more entries
 * than a CQ of the device has, or the error of cqpool_cq_get(),
 * ib_query_srq() or ib_create_qp().
 */
struct ib_qp *cqpool_create_qp(struct cqpool *pool, struct ib_pd *pd,
			       struct ib_qp_init_attr *init_attr,
			       const struct cqpool_qp_attr *qattr)
{
	struct cqpool_qp *cqp;
	struct ib_qp *qp;
	int ret;

	might_sleep();
	/* A CQ of one device under a QP of another is driver confusion. */
	if (pd->device != pool->cdev->ibdev)
		return ERR_PTR(-EINVAL);
	cqp = cqpool_qp_prepare(pool, init_attr, qattr);
	if (IS_ERR(cqp))
		return ERR_CAST(cqp);

	qp = ib_create_qp(pd, init_attr);
	if (IS_ERR(qp)) {
		cqpool_qp_abandon(cqp, init_attr);
		return qp;
	}
	ret = cqpool_qp_track(cqp, qp);
	if (ret) {
		ib_destroy_qp(qp);
		cqpool_qp_abandon(cqp, init_attr);
		return ERR_PTR(ret);
	}
	return qp;
}
EXPORT_SYMBOL_GPL(cqpool_create_qp);

/**
 * cqpool_destroy_qp() - destroy a QP made by cqpool_create_qp()
 * @qp: the QP
 *
 * Destroys the QP, then gives back its CQ entries.  If the driver does
 * not destroy it (the QP is still in use, say attached to a multicast
 * group), the QP and its reservations stay as they were and the error is
 * returned: entries of a live QP are never given back.  A QP that cqpool
 * did not make is logged and left alone.
 *
 * A driver that reuses numbers at once (siw) may give this QP's number
 * to one another thread creates as soon as this one is gone, before this
 * function is done with it; the new QP's record then replaces this one's.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for a QP cqpool did not make, or the error of
 * ib_destroy_qp().
 */
int cqpool_destroy_qp(struct ib_qp *qp)
{
	struct cqpool_qp *cqp = cqpool_qp_find(qp);
	u32 qp_num = qp->qp_num;
	int ret;

	might_sleep();
	if (!cqp) {
		pr_err_ratelimited("cqpool: destroy of a QP cqpool did not make\n");
		return -EINVAL;
	}
	cqpool_qp_dying(cqp, true);
	ret = ib_destroy_qp(qp);
	if (ret) {
		/* Still there, and its number still its own. */
		cqpool_qp_dying(cqp, false);
		return ret;
	}
	cqpool_qp_untrack(cqp, qp_num);
	cqpool_qp_release(cqp);
	return 0;
}
EXPORT_SYMBOL_GPL(cqpool_destroy_qp);

/**
 * cqpool_rdma_create_qp() - rdma_create_qp() with CQs from a pool
 * @pool: the pool, on @id's device
 * @id: the RDMA CM id, bound to a device
 * @pd: protection domain of the QP
 * @init_attr: as for cqpool_create_qp()
 * @qattr: as for cqpool_create_qp()
 *
 * Destroy the QP with cqpool_rdma_destroy_qp().
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL if @id is on another device than @pool or a
 * parameter is bad, or the error of cqpool_cq_get() or rdma_create_qp().
 */
int cqpool_rdma_create_qp(struct cqpool *pool, struct rdma_cm_id *id,
			  struct ib_pd *pd, struct ib_qp_init_attr *init_attr,
			  const struct cqpool_qp_attr *qattr)
{
	struct cqpool_qp *cqp;
	int ret;

	might_sleep();
	if (id->device != pool->cdev->ibdev || pd->device != id->device)
		return -EINVAL;
	cqp = cqpool_qp_prepare(pool, init_attr, qattr);
	if (IS_ERR(cqp))
		return PTR_ERR(cqp);

	ret = rdma_create_qp(id, pd, init_attr);
	if (ret) {
		cqpool_qp_abandon(cqp, init_attr);
		return ret;
	}
	ret = cqpool_qp_track(cqp, id->qp);
	if (ret) {
		rdma_destroy_qp(id);
		cqpool_qp_abandon(cqp, init_attr);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(cqpool_rdma_create_qp);

/**
 * cqpool_rdma_destroy_qp() - destroy a QP made by cqpool_rdma_create_qp()
 * @id: the RDMA CM id
 *
 * As cqpool_destroy_qp(): the QP, then its CQ entries.  rdma_destroy_qp()
 * does not say whether the QP went, so a QP that ib_destroy_qp() would
 * refuse, one still in use (attached to a multicast group, or opened by
 * another), is refused here first, and it and its entries stay.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for a QP cqpool did not make, or -EBUSY for a QP
 * still in use.
 */
int cqpool_rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct cqpool_qp *cqp = id->qp ? cqpool_qp_find(id->qp) : NULL;
	u32 qp_num;

	might_sleep();
	if (!cqp) {
		pr_err_ratelimited("cqpool: destroy of a QP cqpool did not make\n");
		return -EINVAL;
	}
	if (atomic_read(&id->qp->usecnt))
		return -EBUSY;
	qp_num = id->qp->qp_num;
	cqpool_qp_dying(cqp, true);
	rdma_destroy_qp(id);
	cqpool_qp_untrack(cqp, qp_num);
	cqpool_qp_release(cqp);
	return 0;
}
EXPORT_SYMBOL_GPL(cqpool_rdma_destroy_qp);
