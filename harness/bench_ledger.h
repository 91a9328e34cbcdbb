/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pool ledger alone, for CQPOOL_BENCH_F_LEDGER (bench_ledger.c).
 */
#ifndef CQH_BENCH_LEDGER_H
#define CQH_BENCH_LEDGER_H

#include <linux/types.h>

#include "core/pool.h"

/* Calls per clock pair in GET_PUT and CHURN, at most (bench.c). */
#define CQH_BENCH_BATCH	64

/**
 * struct cqh_bench_ledger - a ledger like a run's pool
 * @pool: the ledger, the harness's own build of the core
 * @nvec: its vectors
 * @cqs: its CQs' records, in the run's order of its CQs
 * @held: the reservations of the batch being timed
 */
struct cqh_bench_ledger {
	struct cqp_pool *pool;
	unsigned int nvec;
	struct cqp_cq *cqs;
	struct cqp_cq *held[CQH_BENCH_BATCH];
};

int cqh_bench_ledger_init(struct cqh_bench_ledger *l, unsigned int nvec,
			  unsigned int max_cqe, unsigned int cq_size,
			     unsigned int ncqs);
int cqh_bench_ledger_add(struct cqh_bench_ledger *l, unsigned int i,
			 unsigned int vec, unsigned int size);
int cqh_bench_ledger_reserve(struct cqh_bench_ledger *l, unsigned int i,
			     unsigned int nr);
void cqh_bench_ledger_release(struct cqh_bench_ledger *l, unsigned int i,
			      unsigned int nr);
int cqh_bench_ledger_cycle(struct cqh_bench_ledger *l, unsigned int n,
			   unsigned int nr, u64 *get_ns, u64 *put_ns);
void cqh_bench_ledger_exit(struct cqh_bench_ledger *l);

#endif /* CQH_BENCH_LEDGER_H */
