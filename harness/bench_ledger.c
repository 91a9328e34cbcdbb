// SPDX-License-Identifier: GPL-2.0
/*
 * CQPOOL_BENCH_F_LEDGER: the pool ledger's part of cqpool's get and put,
 * timed alone.  The harness has its own build of the C++ core (Kbuild,
 * as the KUnit module has), and makes on it a ledger of the CQs and room
 * of the pool a GET_PUT or CHURN run filled: the same real sizes and
 * reservations, added and reserved in the same order.  It then times
 * cqp_pool_try_reserve() and cqp_pool_release() on it as the run times
 * cqpool_cq_get() and cqpool_cq_put(), in the same batches.  What is
 * left of cqpool's get and put is the rest of them: the CQ found from
 * itself, its vector's lock, the hooks and the references.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "bench_ledger.h"
#include "testing.h"

/**
 * cqh_bench_ledger_init() - an empty ledger for a run's CQs
 * @l: filled in
 * @nvec: the run's vectors
 * @max_cqe: the device's largest CQ
 * @cq_size: entries the run's pool asks for a CQ
 * @ncqs: the most CQs that will be added
 *
 * The parameters of the run's pool, which never resizes a CQ: those its
 * ledger checks a reservation against.
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int cqh_bench_ledger_init(struct cqh_bench_ledger *l, unsigned int nvec,
			  unsigned int max_cqe, unsigned int cq_size,
			     unsigned int ncqs)
{
	struct cqp_pool_params p = {
		.nvec = nvec,
		.max_cqe = max_cqe,
		.cq_size = cq_size,
	};

	*l = (struct cqh_bench_ledger){ .nvec = nvec };
	l->cqs = kvcalloc(ncqs, sizeof(*l->cqs), GFP_KERNEL_ACCOUNT);
	if (!l->cqs)
		return -ENOMEM;
	l->pool = cqp_pool_create(cqpool_test_allocator(), &p);
	if (!l->pool) {
		kvfree(l->cqs);
		l->cqs = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * cqh_bench_ledger_add() - a CQ like one the run filled
 * @l: the ledger
 * @i: its slot, the run's index of the CQ
 * @vec: its vector
 * @size: its real size
 *
 * Context: process context.
 * Return: 0, or the ledger's error.
 */
int cqh_bench_ledger_add(struct cqh_bench_ledger *l, unsigned int i,
			 unsigned int vec, unsigned int size)
{
	return cqp_pool_add(l->pool, &l->cqs[i], vec, size, get_jiffies_64());
}

/**
 * cqh_bench_ledger_reserve() - a reservation the run made on a CQ
 * @l: the ledger
 * @i: the CQ's slot
 * @nr: entries
 *
 * Through the ledger's own pick, as the run's get made it: with every
 * other CQ of the vector full, it lands on CQ @i.
 *
 * Context: process context.
 * Return: 0, -ENOSPC if nothing had room, or -EAGAIN (and nothing
 * reserved) if it landed on another CQ.
 */
int cqh_bench_ledger_reserve(struct cqh_bench_ledger *l, unsigned int i,
			     unsigned int nr)
{
	struct cqp_cq *cq = cqp_pool_try_reserve(l->pool, l->cqs[i].vec, nr);

	if (!cq)
		return -ENOSPC;
	if (cq == &l->cqs[i])
		return 0;
	cqp_pool_release(l->pool, cq, nr, get_jiffies_64());
	return -EAGAIN;
}

/**
 * cqh_bench_ledger_release() - give back a reservation on a CQ
 * @l: the ledger
 * @i: the CQ's slot
 * @nr: entries, as reserved
 *
 * Context: process context.
 */
void cqh_bench_ledger_release(struct cqh_bench_ledger *l, unsigned int i,
			      unsigned int nr)
{
	WARN_ON(cqp_pool_release(l->pool, &l->cqs[i], nr, get_jiffies_64()));
}

/**
 * cqh_bench_ledger_cycle() - @n reservations, then their releases
 * @l: the ledger
 * @n: reservations, at most CQH_BENCH_BATCH
 * @nr: entries of each
 * @get_ns: the reservations' time is added here
 * @put_ns: the releases' time is added here
 *
 * One clock pair around the reservations, which go round the vectors as
 * the run's gets do, and one around their releases.  The clock is read
 * for each release, as cqpool_cq_put() reads it.
 *
 * Context: process context.
 * Return: 0, -EINVAL for more than a batch, or -ENOSPC if a reservation
 * found no room (the run's room holds a batch, so it never does).
 */
int cqh_bench_ledger_cycle(struct cqh_bench_ledger *l, unsigned int n,
			   unsigned int nr, u64 *get_ns, u64 *put_ns)
{
	unsigned int got, i;
	int ret = 0;
	u64 t;

	if (WARN_ON(n > ARRAY_SIZE(l->held)))
		return -EINVAL;
	t = ktime_get_ns();
	for (got = 0; got < n; got++) {
		l->held[got] = cqp_pool_try_reserve(l->pool, got % l->nvec, nr);
		if (!l->held[got]) {
			ret = -ENOSPC;
			break;
		}
	}
	*get_ns += ktime_get_ns() - t;
	t = ktime_get_ns();
	for (i = 0; i < got; i++)
		ret = cqp_pool_release(l->pool, l->held[i], nr,
				       get_jiffies_64()) ?: ret;
	*put_ns += ktime_get_ns() - t;
	return ret;
}

/**
 * cqh_bench_ledger_exit() - undo cqh_bench_ledger_init()
 * @l: a ledger whose reservations are all released
 *
 * Context: process context.
 */
void cqh_bench_ledger_exit(struct cqh_bench_ledger *l)
{
	if (!l->pool)
		return;
	while (cqp_pool_take_idle(l->pool))
		;
	/* Refused while a CQ has users: its memory would go with l->cqs. */
	if (!WARN_ON(cqp_pool_destroy(l->pool)))
		kvfree(l->cqs);
	l->pool = NULL;
	l->cqs = NULL;
}
