/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool - what the optional takeover module (cqpool_takeover.ko, which
 * livepatches ib_cq_pool_get()/ib_cq_pool_put() onto cqpool) needs from
 * cqpool.ko.  ULPs do not call these.
 */
#ifndef _CQPOOL_TAKEOVER_H
#define _CQPOOL_TAKEOVER_H

#include <linux/types.h>

struct ib_cq;

bool cqpool_owns_cq(struct ib_cq *cq);
void cqpool_takeover_set_active(bool active);
bool cqpool_takeover_active(void);

#endif /* _CQPOOL_TAKEOVER_H */
