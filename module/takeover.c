// SPDX-License-Identifier: GPL-2.0
/*
 * What cqpool.ko offers the takeover module (takeover/cqpool_takeover.c):
 * whether a CQ is one of cqpool's, and a flag saying that upstream's
 * ib_cq_pool_get() currently lands in cqpool, so that the harness does
 * not measure cqpool twice when it asks for upstream's figures.
 */
#include <linux/module.h>

#include <cqpool/takeover.h>

#include "cqpool_internal.h"

static bool cqpool_takeover_on;

/**
 * cqpool_owns_cq() - whether a CQ belongs to one of cqpool's pools
 * @cq: a CQ, held by the caller
 *
 * Context: any context; takes no lock.
 * Return: true if @cq is a CQ of a cqpool pool.
 */
bool cqpool_owns_cq(struct ib_cq *cq)
{
	return cqpool_cq_of(cq);
}
EXPORT_SYMBOL_GPL(cqpool_owns_cq);

/**
 * cqpool_takeover_set_active() - say whether the takeover is patched in
 * @active: true once ib_cq_pool_get() leads to cqpool, false once it no
 *	longer does
 *
 * Context: any context.
 */
void cqpool_takeover_set_active(bool active)
{
	WRITE_ONCE(cqpool_takeover_on, active);
}
EXPORT_SYMBOL_GPL(cqpool_takeover_set_active);

/**
 * cqpool_takeover_active() - whether ib_cq_pool_get() leads to cqpool
 *
 * Context: any context.
 * Return: true while the takeover module's livepatch is enabled.
 */
bool cqpool_takeover_active(void)
{
	return READ_ONCE(cqpool_takeover_on);
}
EXPORT_SYMBOL_GPL(cqpool_takeover_active);
