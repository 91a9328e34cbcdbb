/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool - what the optional takeover module (cqpool_takeover.ko, which
 * livepatches ib_cq_pool_get()/ib_cq_pool_put() onto cqpool) needs from
 * cqpool.ko.  ULPs do not call these.
 */
#ifndef _CQPOOL_TAKEOVER_H
#define _CQPOOL_TAKEOVER_H

#include <rdma/ib_verbs.h>

bool cqpool_owns_cq(struct ib_cq *cq);
void cqpool_takeover_set_active(bool active);
bool cqpool_takeover_active(void);

/*
 * In cqpool_takeover.ko: what ib_cq_pool_get() and ib_cq_pool_put() run
 * while it has them.  The harness alone calls them, through symbol_get(),
 * so that it loads without the takeover.
 */
struct ib_cq *cqpool_takeover_get(struct ib_device *dev, unsigned int nr_cqe,
				  int comp_vector_hint,
				  enum ib_poll_context poll_ctx);
void cqpool_takeover_put(struct ib_cq *cq, unsigned int nr_cqe);

#endif /* _CQPOOL_TAKEOVER_H */
