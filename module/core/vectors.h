/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vector ledger: how many completion vectors a device's pools spread
 * over, and how many CQ entries each vector carries.
 *
 * Locking: the ledger has none.  Every call on one ledger must be
 * serialised by the caller (the glue holds the owning device's lock).
 * Nothing here sleeps except cqp_vectors_create(), which allocates.
 */
#ifndef CQPOOL_CORE_VECTORS_H
#define CQPOOL_CORE_VECTORS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cqp_vectors;

/*
 * Vectors a pool uses: a vector beyond the online CPUs only adds CQs that
 * no CPU polls locally, so the count is capped by them (as upstream does).
 */
unsigned int cqp_nvec(unsigned int num_comp_vectors, unsigned int online_cpus);

struct cqp_vectors *cqp_vectors_create(const struct cqp_alloc *alloc,
				       unsigned int nvec);
void cqp_vectors_destroy(struct cqp_vectors *v);
unsigned int cqp_vectors_nvec(const struct cqp_vectors *v);

/*
 * A hint >= 0 maps modulo the vector count; a negative hint picks the
 * least-loaded vector, the lowest index on a tie, so the choice is
 * reproducible.
 */
unsigned int cqp_vectors_pick(const struct cqp_vectors *v, int hint);
/*
 * The same among the first @among vectors only (0, or more than there
 * are: all of them): the ledger is sized for every CPU the device could
 * use, a pick for those online now.
 */
unsigned int cqp_vectors_pick_among(const struct cqp_vectors *v, int hint,
				    unsigned int among);

/* CQP_EINVAL for a bad vector, CQP_ERANGE on overflow; nothing changes then. */
int cqp_vectors_charge(struct cqp_vectors *v, unsigned int vec,
		       cqp_u32 nr_cqe);
/* CQP_ERANGE when returning more than was charged; nothing changes then. */
int cqp_vectors_discharge(struct cqp_vectors *v, unsigned int vec,
			  cqp_u32 nr_cqe);
cqp_u64 cqp_vectors_load(const struct cqp_vectors *v, unsigned int vec);

#ifdef __cplusplus
}
#endif

#endif /* CQPOOL_CORE_VECTORS_H */
