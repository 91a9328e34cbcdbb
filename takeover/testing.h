/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool_takeover.ko's test build (Kbuild's CQPOOL_TESTING): what it
 * exports to the harness, in the CQPOOL_HARNESS namespace (testing.c).
 * The harness takes them with symbol_get(), so that it loads without the
 * takeover: the benchmark calls what ib_cq_pool_get() and ib_cq_pool_put()
 * run directly, to tell the livepatch's redirection from the rest of what
 * a ULP pays, and asks
 * whether ib_cq_pool_get() leads to cqpool, so that it does not measure
 * cqpool twice when it asks for upstream's figures.  Not an API.
 */
#ifndef CQPOOL_TAKEOVER_TESTING_H
#define CQPOOL_TAKEOVER_TESTING_H

#include "takeover.h"

struct ib_cq *cqpool_test_takeover_get(struct ib_device *dev,
				       unsigned int nr_cqe,
				       int comp_vector_hint,
				       enum ib_poll_context poll_ctx);
void cqpool_test_takeover_put(struct ib_cq *cq, unsigned int nr_cqe);
bool cqpool_test_takeover_patched(void);

#endif /* CQPOOL_TAKEOVER_TESTING_H */
