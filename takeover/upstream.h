/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_core's own CQ pool, as Linux 6.1 to 6.12 run it (cq.c is identical
 * in both): for the CQs the takeover leaves to ib_core.  A livepatch
 * cannot call the functions it replaces, so their code is repeated here.
 */
#ifndef CQPOOL_TAKEOVER_UPSTREAM_H
#define CQPOOL_TAKEOVER_UPSTREAM_H

#include <rdma/ib_verbs.h>

struct ib_cq *tk_upstream_get(struct ib_device *dev, unsigned int nr_cqe,
			      int comp_vector_hint,
			      enum ib_poll_context poll_ctx);
void tk_upstream_put(struct ib_cq *cq, unsigned int nr_cqe);

#endif
