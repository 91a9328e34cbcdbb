// SPDX-License-Identifier: GPL-2.0
/*
 * cqpool_takeover.ko's test build only: its exports to the harness
 * (testing.h).
 */
#include <linux/export.h>

#include "testing.h"

/**
 * cqpool_test_takeover_get() - cqpool_takeover_get(), called directly
 * @dev: the RDMA device
 * @nr_cqe: entries to reserve
 * @comp_vector_hint: a completion vector, or -1
 * @poll_ctx: a poll context cqpool pools
 *
 * Context: process context.
 * Return: as cqpool_takeover_get().
 */
struct ib_cq *cqpool_test_takeover_get(struct ib_device *dev,
				       unsigned int nr_cqe,
				       int comp_vector_hint,
				       enum ib_poll_context poll_ctx)
{
	return cqpool_takeover_get(dev, nr_cqe, comp_vector_hint, poll_ctx);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_takeover_get, CQPOOL_HARNESS);

/**
 * cqpool_test_takeover_put() - cqpool_takeover_put(), called directly
 * @cq: a CQ of ib_cq_pool_get(), before or since the patch
 * @nr_cqe: the entries reserved with it
 *
 * Context: process context; may sleep.
 */
void cqpool_test_takeover_put(struct ib_cq *cq, unsigned int nr_cqe)
{
	cqpool_takeover_put(cq, nr_cqe);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_takeover_put, CQPOOL_HARNESS);

/**
 * cqpool_test_takeover_patched() - whether ib_cq_pool_get() leads to cqpool
 *
 * Context: any context.
 * Return: true from the start of the patching to the end of the
 * unpatching.
 */
bool cqpool_test_takeover_patched(void)
{
	return READ_ONCE(tk_patched);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_takeover_patched, CQPOOL_HARNESS);
