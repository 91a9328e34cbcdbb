/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the harness's CQs come from: cqpool (an owned pool or a device's
 * shared one), upstream's ib_cq_pool_get(), or one ib_alloc_cq() per QP.
 * Connections, reservations and benchmarks all take their CQs through
 * this, so each mode is chosen and checked in one place.
 */
#ifndef CQH_CQ_SOURCE_H
#define CQH_CQ_SOURCE_H

#include <rdma/ib_verbs.h>

#include <cqpool/cqpool.h>

/**
 * struct cqh_cq_source - one place CQs come from
 * @mode: enum cqpool_cq_mode
 * @dev: the device; its holder keeps it for the source's lifetime
 * @pool: CQPOOL_CQ_POOL: an owned pool (its holder keeps it) or the
 *	device's shared pool of @poll_ctx, which the source holds; taken
 *	over CQPOOL_CQ_UPSTREAM: that shared pool, for counts only
 * @shared: @pool is the shared pool
 * @poll_ctx: of upstream's pool, or of a CQ per QP
 * @tk_get: taken over CQPOOL_CQ_UPSTREAM called directly: the takeover's
 *	cqpool_test_takeover_get(), which the source holds
 * @tk_put: with @tk_get, cqpool_test_takeover_put()
 */
struct cqh_cq_source {
	u32 mode;
	struct ib_device *dev;
	struct cqpool *pool;
	bool shared;
	enum ib_poll_context poll_ctx;
	struct ib_cq *(*tk_get)(struct ib_device *dev, unsigned int nr_cqe,
				int comp_vector_hint,
				enum ib_poll_context poll_ctx);
	void (*tk_put)(struct ib_cq *cq, unsigned int nr_cqe);
};

int cqh_cq_source_init(struct cqh_cq_source *src, u32 mode,
		       struct ib_device *dev, struct cqpool *owned,
			  enum ib_poll_context poll_ctx);
int cqh_cq_source_init_takeover(struct cqh_cq_source *src,
				struct ib_device *dev,
				   enum ib_poll_context poll_ctx, bool direct);
void cqh_cq_source_exit(struct cqh_cq_source *src);
struct ib_cq *cqh_cq_source_get(struct cqh_cq_source *src,
				unsigned int nr_cqe, int vector_hint,
				   struct cqpool_hook *hook);
void cqh_cq_source_put(struct cqh_cq_source *src, struct ib_cq *cq,
		       unsigned int nr_cqe, struct cqpool_hook *hook);

#endif /* CQH_CQ_SOURCE_H */
