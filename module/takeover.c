// SPDX-License-Identifier: GPL-2.0
/*
 * What cqpool.ko offers the takeover module (takeover/cqpool_takeover.c):
 * whether a CQ is one of cqpool's.
 */
#include <linux/module.h>

#include <cqpool/takeover.h>

#include "cqpool_internal.h"

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
