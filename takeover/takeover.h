/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of cqpool_takeover.ko share: what ib_cq_pool_get() and
 * ib_cq_pool_put() run while it has them, and whether it has them.
 */
#ifndef CQPOOL_TAKEOVER_TAKEOVER_H
#define CQPOOL_TAKEOVER_TAKEOVER_H

#include <rdma/ib_verbs.h>

struct ib_cq *cqpool_takeover_get(struct ib_device *dev, unsigned int nr_cqe,
				  int comp_vector_hint,
				  enum ib_poll_context poll_ctx);
void cqpool_takeover_put(struct ib_cq *cq, unsigned int nr_cqe);

/* From the start of the patching to the end of the unpatching. */
extern bool tk_patched;

#endif /* CQPOOL_TAKEOVER_TAKEOVER_H */
