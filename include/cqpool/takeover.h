/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool - what the optional takeover module (cqpool_takeover.ko, which
 * livepatches ib_cq_pool_get()/ib_cq_pool_put() onto cqpool) needs from
 * cqpool.ko.  ULPs do not call it.
 */
#ifndef _CQPOOL_TAKEOVER_H
#define _CQPOOL_TAKEOVER_H

#include <rdma/ib_verbs.h>

bool cqpool_owns_cq(struct ib_cq *cq);

#endif /* _CQPOOL_TAKEOVER_H */
