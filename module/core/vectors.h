/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion vectors: how many of a device's vectors its pools spread
 * over.  Which vector a reservation goes to is the pool ledger's choice
 * (cqp_pool_pick_vector()), from the entries each of its vectors carries.
 */
#ifndef CQPOOL_CORE_VECTORS_H
#define CQPOOL_CORE_VECTORS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Vectors a pool uses: a vector beyond the online CPUs only adds CQs that
 * no CPU polls locally, so the count is capped by them (as upstream does).
 */
unsigned int cqp_nvec(unsigned int num_comp_vectors, unsigned int online_cpus);

#ifdef __cplusplus
}
#endif

#endif /* CQPOOL_CORE_VECTORS_H */
