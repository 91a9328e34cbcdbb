// SPDX-License-Identifier: GPL-2.0
/*
 * cqpool_takeover - a livepatch that gives the in-kernel ULPs of a stock
 * kernel (nvme-rdma, nvmet-rdma, iSER, SRP, ...) cqpool's CQ pools
 * without patching them: ib_cq_pool_get() and ib_cq_pool_put() of
 * ib_core are replaced by calls into the device pool of cqpool.ko for the
 * same poll context.
 *
 * Hand-over.  CQs that upstream handed out before the patch stay
 * upstream's: a put of one of them is accounted exactly as ib_core does
 * (a livepatch cannot call the function it replaces, so that accounting
 * is repeated here).  A put is told apart by the table of reservations
 * made through the takeover, not by a guess from the CQ.
 *
 * Disabling.  `echo 0 > /sys/kernel/livepatch/cqpool_takeover/enabled`
 * cannot be refused, so it is made safe instead: reservations made
 * through the takeover keep being returned to cqpool until all are back.
 *  - Each one is mirrored in cq->cqe_used of its cqpool CQ, which is
 *    exactly what ib_core's own ib_cq_pool_put() subtracts from: once
 *    the patch is gone, a ULP's put of a cqpool CQ is accounted by ib_core
 *    without a warning and without touching anything else.
 *  - The mirror is kept only while a task may run ib_core's put: from
 *    the start of patching until it completes, and from the start of
 *    unpatching on.  In between every task runs this module's functions,
 *    and a get and a put would take the device's cq_pools_lock only to
 *    keep a count no one reads.  So once patching completes the table is
 *    taken out of the mirror, and it is added back before unpatching
 *    starts (tk_fold()).  Between the two, cqe_used of a cqpool CQ holds
 *    the mirror less the table, modulo 2^32: what was put through
 *    ib_core during the patching and could not yet be told apart comes
 *    back with the rest.
 *  - This module keeps a reference to itself while any reservation made
 *    through it is outstanding, so it cannot be removed before they are
 *    back.  After the unpatch, a work item gives a CQ's reservations
 *    back to cqpool once ib_core's count on it has dropped to zero, which
 *    means every ULP queue on it has put it back; cqpool then frees it
 *    after its idle timeout.
 * New gets after the unpatch are ib_core's own again.  A cumulative
 * livepatch would skip all that, so it is refused while the patch is on
 * (tk_states).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include <cqpool/cqpool.h>
#include <cqpool/takeover.h>

#include "settle.h"
#include "takeover.h"
#include "upstream.h"

/* cqpool.ko's trace events; the two of the takeover are exported. */
#include "cqpool_trace.h"

/*
 * After the unpatch, how often ib_core's counts on cqpool CQs are looked
 * at: a ULP's teardown is a matter of seconds, a few looks per second
 * cost nothing.
 */
#define TK_RECONCILE_MS		200
/*
 * Records of reservations given back that are kept for the next get, at
 * most: a ULP's gets and puts then allocate nothing in the steady state,
 * and what is kept stays a few kilobytes whatever the peak was.
 */
#define TK_SPARE		64

/**
 * struct tk_res - a reservation made through the takeover
 * @node: in tk_table, hashed by @cq
 * @cq: the cqpool CQ handed to the ULP
 * @nr_cqe: the entries reserved, as the ULP asked
 */
struct tk_res {
	struct hlist_node node;
	struct ib_cq *cq;
	unsigned int nr_cqe;
};

/*
 * Protects tk_table, tk_mirroring, tk_nr_res, tk_spare and tk_nr_spare.
 * A get holds it from the mirror in cq->cqe_used to the table, a put from
 * the table to cqpool's ledger: the reconcile sees a reservation in both
 * counts or in neither, and tk_nr_res counts what is not back in cqpool,
 * in one hold each.  Taken before a pool's lock and the device's
 * cq_pools_lock.
 */
static DEFINE_MUTEX(tk_lock);
static DEFINE_HASHTABLE(tk_table, 7);
/* Whether cqe_used mirrors the table: from the module's load on. */
static bool tk_mirroring = true;
static unsigned int tk_nr_res;
static HLIST_HEAD(tk_spare);
static unsigned int tk_nr_spare;
module_param_named(reservations, tk_nr_res, uint, 0444);
MODULE_PARM_DESC(reservations,
		 "Reservations made through the takeover and not yet back in cqpool");
/*
 * Reservations put back through ib_core's own ib_cq_pool_put(), during a
 * transition or after the unpatch, and given back to cqpool by
 * tk_settle().  Under tk_lock.
 */
static unsigned int tk_nr_settled;
module_param_named(settled, tk_nr_settled, uint, 0444);
MODULE_PARM_DESC(settled,
		 "Reservations put back through ib_core's function and given back to cqpool since the load");
/*
 * Whether the patch is being disabled (from pre_unpatch to post_unpatch),
 * and the reservations put back meanwhile, through either function: what
 * shows that a teardown raced the unpatch.  Under tk_lock.
 */
static bool tk_unpatching;
static unsigned int tk_nr_unpatch_puts;
module_param_named(unpatch_puts, tk_nr_unpatch_puts, uint, 0444);
MODULE_PARM_DESC(unpatch_puts,
		 "Reservations put back while the patch was being disabled, since the load");

/*
 * Gets left to ib_core's pool because cqpool does not serve the device:
 * one being added, on which rdma_cm's client, registered before cqpool's,
 * may already connect, or one cqpool excludes.
 */
static atomic_t tk_nr_upstream_gets = ATOMIC_INIT(0);
module_param_named(upstream_gets, tk_nr_upstream_gets.counter, int, 0444);
MODULE_PARM_DESC(upstream_gets,
		 "Gets served by ib_core's pool on devices cqpool does not serve, since the load");

/*
 * From pre_patch to post_unpatch: ib_cq_pool_get() may lead here, and
 * the reconcile stops once the patch is on again.
 */
bool tk_patched;

static void tk_reconcile(struct work_struct *work);
static DECLARE_DELAYED_WORK(tk_reconcile_work, tk_reconcile);

/*
 * Mirrors a reservation made (@made) or given back in cq->cqe_used, under
 * the lock ib_core's own put takes.
 */
static void tk_mirror(struct ib_cq *cq, unsigned int nr_cqe, bool made)
{
	lockdep_assert_held(&tk_lock);
	spin_lock_irq(&cq->device->cq_pools_lock);
	if (made)
		cq->cqe_used += nr_cqe;
	else
		cq->cqe_used -= nr_cqe;
	spin_unlock_irq(&cq->device->cq_pools_lock);
}

/*
 * Folds the table into the mirror (@in) or out of it, and keeps the
 * mirror from then on, or stops.  Only while no task can run ib_core's
 * put, which would change cqe_used in between.
 */
static void tk_fold(bool in)
{
	struct tk_res *res;
	int bkt;

	lockdep_assert_held(&tk_lock);
	hash_for_each(tk_table, bkt, res, node)
		tk_mirror(res->cq, res->nr_cqe, in);
	tk_mirroring = in;
}

/*
 * Mirrors a reservation made through the takeover, if it is mirroring,
 * and enters it in the table.
 */
static int tk_track(struct ib_cq *cq, unsigned int nr_cqe)
{
	struct tk_res *res = NULL;

	mutex_lock(&tk_lock);
	if (!hlist_empty(&tk_spare)) {
		res = hlist_entry(tk_spare.first, struct tk_res, node);
		hlist_del(&res->node);
		tk_nr_spare--;
	} else {
		res = kmalloc(sizeof(*res), GFP_KERNEL);
		if (!res) {
			mutex_unlock(&tk_lock);
			return -ENOMEM;
		}
	}
	res->cq = cq;
	res->nr_cqe = nr_cqe;
	if (tk_mirroring)
		tk_mirror(cq, nr_cqe, true);
	hash_add(tk_table, &res->node, (unsigned long)cq);
	/* The module stays until every reservation is back in cqpool. */
	if (!tk_nr_res++)
		__module_get(THIS_MODULE);
	mutex_unlock(&tk_lock);
	return 0;
}

/* A record out of the table: kept for the next get, or freed. */
static void tk_recycle(struct tk_res *res)
{
	lockdep_assert_held(&tk_lock);
	if (tk_nr_spare < TK_SPARE) {
		hlist_add_head(&res->node, &tk_spare);
		tk_nr_spare++;
	} else {
		kfree(res);
	}
}

/* Called once @n reservations taken out of the table are back in cqpool. */
static unsigned int tk_untrack_done(unsigned int n)
{
	unsigned int left;

	mutex_lock(&tk_lock);
	tk_nr_res -= n;
	left = tk_nr_res;
	mutex_unlock(&tk_lock);
	if (!left && n)
		module_put(THIS_MODULE);
	return left;
}

/*
 * Takes a reservation of @nr_cqe entries on @cq out of the table, out of
 * the mirror and back to cqpool; false if the takeover made none.
 */
static bool tk_put_tracked(struct ib_cq *cq, unsigned int nr_cqe)
{
	struct tk_res *res;
	bool last;

	mutex_lock(&tk_lock);
	hash_for_each_possible(tk_table, res, node, (unsigned long)cq) {
		if (res->cq == cq && res->nr_cqe == nr_cqe) {
			hash_del(&res->node);
			tk_recycle(res);
			trace_cqpool_takeover_put(cq, nr_cqe, "cqpool");
			tk_nr_unpatch_puts += tk_unpatching;
			if (tk_mirroring)
				tk_mirror(cq, nr_cqe, false);
			/* Made through here: never refused. */
			WARN_ON_ONCE(cqpool_cq_put(cq, nr_cqe, NULL));
			last = !--tk_nr_res;
			mutex_unlock(&tk_lock);
			if (last)
				module_put(THIS_MODULE);
			return true;
		}
	}
	mutex_unlock(&tk_lock);
	return false;
}

/* Gives a reservation taken out of the table back to cqpool. */
static void tk_release(struct tk_res *res)
{
	WARN_ON_ONCE(cqpool_cq_put(res->cq, res->nr_cqe, NULL));
	kfree(res);
}

/**
 * cqpool_takeover_get() - what ib_cq_pool_get() runs while patched
 * @dev: the RDMA device
 * @nr_cqe: entries to reserve
 * @comp_vector_hint: a completion vector, or -1
 * @poll_ctx: a poll context cqpool pools
 *
 * The same arguments and contract as ib_cq_pool_get(), served by cqpool's
 * shared pool of the device and poll context.  A vector hint of -1 picks
 * cqpool's least-loaded vector rather than upstream's round robin.  On a
 * device cqpool does not serve, ib_core's own pool serves the get, as it
 * would without the takeover.  The test build exports it (testing.c).
 *
 * Context: process context.
 * Return: the CQ, or an ERR_PTR as ib_cq_pool_get() returns.
 */
struct ib_cq *cqpool_takeover_get(struct ib_device *dev, unsigned int nr_cqe,
				  int comp_vector_hint,
				  enum ib_poll_context poll_ctx)
{
	struct ib_cq *cq;

	/* As upstream: IB_POLL_DIRECT cannot be shared. */
	if (poll_ctx > IB_POLL_LAST_POOL_TYPE) {
		WARN_ON_ONCE(poll_ctx > IB_POLL_LAST_POOL_TYPE);
		return ERR_PTR(-EINVAL);
	}

	cq = cqpool_device_cq_get(dev, poll_ctx, nr_cqe, comp_vector_hint,
				  NULL);
	trace_cqpool_takeover_get(dev, cq, nr_cqe, comp_vector_hint, poll_ctx);
	if (cq == ERR_PTR(-ENODEV)) {
		/* Its put is upstream's: neither tracked nor cqpool's. */
		atomic_inc(&tk_nr_upstream_gets);
		return tk_upstream_get(dev, nr_cqe, comp_vector_hint,
				       poll_ctx);
	}
	if (IS_ERR(cq))
		return cq;
	if (tk_track(cq, nr_cqe)) {
		WARN_ON_ONCE(cqpool_cq_put(cq, nr_cqe, NULL));
		return ERR_PTR(-ENOMEM);
	}
	return cq;
}

/**
 * cqpool_takeover_put() - what ib_cq_pool_put() runs while patched
 * @cq: a CQ of ib_cq_pool_get(), before or since the patch
 * @nr_cqe: the entries reserved with it
 *
 * A reservation made through the takeover goes back to cqpool, anything
 * else is upstream's.  The test build exports it (testing.c).
 *
 * Context: process context; may sleep, as every in-tree caller allows
 * (they call it while tearing down a queue).
 */
void cqpool_takeover_put(struct ib_cq *cq, unsigned int nr_cqe)
{
	might_sleep();
	if (!tk_put_tracked(cq, nr_cqe)) {
		/*
		 * A cqpool CQ we did not hand out with these entries: a ULP
		 * bug.  Leave cqpool's ledger alone rather than guess.
		 */
		if (cqpool_owns_cq(cq)) {
			trace_cqpool_takeover_put(cq, nr_cqe, "foreign");
			pr_err_ratelimited("put of %u entries of a cqpool CQ that were not reserved through the takeover\n",
					   nr_cqe);
			return;
		}
		trace_cqpool_takeover_put(cq, nr_cqe, "upstream");
		tk_upstream_put(cq, nr_cqe);
	}
}

/*
 * Adds a reservation of @nr_cqe entries to the distinct sizes @size (the
 * first @*nr of them, largest first) and their @count.
 */
static void tk_count_size(unsigned int *size, unsigned int *count,
			  unsigned int *nr, unsigned int nr_cqe)
{
	unsigned int i, j;

	i = 0;
	while (i < *nr && size[i] > nr_cqe)
		i++;
	if (i < *nr && size[i] == nr_cqe) {
		count[i]++;
		return;
	}
	for (j = *nr; j > i; j--) {
		size[j] = size[j - 1];
		count[j] = count[j - 1];
	}
	size[i] = nr_cqe;
	count[i] = 1;
	(*nr)++;
}

/*
 * Takes out of the table, into @done, the reservations on @cq that were
 * put through ib_core's own ib_cq_pool_put(): that put subtracts from the
 * mirrored cq->cqe_used and leaves the table alone.  It happens after
 * the unpatch, and during either transition, when a task that still runs
 * the old function puts a reservation made through the new one.  So when
 * the table holds more on @cq than cqe_used says is in use, the excess
 * was put back: any of its reservations on @cq whose entries sum to the
 * excess, for they are interchangeable (takeover/settle.h).  While the
 * mirror is kept, a get through this module mirrors and enters its
 * reservation, and a put takes it out and subtracts, in one hold of
 * tk_lock, which this runs under: so the table never holds less than is
 * in use.  Without the mirror cqe_used says nothing, and this must not
 * run.
 */
static unsigned int tk_take_put_back(struct ib_cq *cq, struct hlist_head *done)
{
	unsigned int used = READ_ONCE(cq->cqe_used), nr = 0, sizes = 0, n = 0;
	unsigned int *size, *count, *take, i;
	unsigned long held = 0;
	struct hlist_node *tmp;
	struct tk_res *res;

	lockdep_assert_held(&tk_lock);
	if (WARN_ON_ONCE(!tk_mirroring))
		return 0;
	hash_for_each_possible(tk_table, res, node, (unsigned long)cq) {
		if (res->cq == cq) {
			held += res->nr_cqe;
			nr++;
		}
	}
	if (held <= used)
		return 0;
	/* Without memory, the next look (the reconcile's) tries again. */
	size = kmalloc_array(3 * nr, sizeof(*size), GFP_KERNEL);
	if (!size)
		return 0;
	count = size + nr;
	take = count + nr;
	hash_for_each_possible(tk_table, res, node, (unsigned long)cq)
		if (res->cq == cq)
			tk_count_size(size, count, &sizes, res->nr_cqe);
	if (!tk_settle_pick(size, count, sizes, held - used, take)) {
		pr_warn_ratelimited("%lu entries put back on a CQ that no reservations on it add up to; kept\n",
				    held - used);
		goto out;
	}
	hash_for_each_possible_safe(tk_table, res, tmp, node,
				    (unsigned long)cq) {
		if (res->cq != cq)
			continue;
		i = 0;
		while (size[i] != res->nr_cqe)	/* counted above: it is there */
			i++;
		if (!take[i])
			continue;
		take[i]--;
		hash_del(&res->node);
		hlist_add_head(&res->node, done);
		n++;
	}
out:
	kfree(size);
	return n;
}

/*
 * Gives back to cqpool what was put through ib_core's function (see
 * tk_take_put_back()), while the mirror is kept, and with @stop stops
 * keeping it in the same hold of tk_lock.  Returns how many reservations
 * are still not back in cqpool.
 */
static unsigned int tk_settle(bool stop)
{
	struct hlist_node *tmp;
	struct tk_res *res;
	HLIST_HEAD(done);
	unsigned int n = 0, more;
	int bkt;

	mutex_lock(&tk_lock);
	do {
		more = 0;
		if (!tk_mirroring)
			break;
		hash_for_each(tk_table, bkt, res, node) {
			more = tk_take_put_back(res->cq, &done);
			if (more)
				break;	/* the walk's cursor may be gone: again */
		}
	} while (more);
	if (stop && tk_mirroring)
		tk_fold(false);
	hlist_for_each_entry(res, &done, node)
		tk_nr_settled++;
	mutex_unlock(&tk_lock);

	hlist_for_each_entry_safe(res, tmp, &done, node) {
		tk_release(res);
		n++;
	}
	if (n)
		pr_info("gave %u reservations put through ib_core back to cqpool\n",
			n);
	return tk_untrack_done(n);
}

/*
 * Runs tk_settle() after the unpatch, and every TK_RECONCILE_MS after it
 * until every reservation is back.
 */
static void tk_reconcile(struct work_struct *work)
{
	if (tk_settle(false) && !READ_ONCE(tk_patched))
		schedule_delayed_work(&tk_reconcile_work,
				      msecs_to_jiffies(TK_RECONCILE_MS));
}

static int tk_pre_patch(struct klp_object *obj)
{
	WRITE_ONCE(tk_patched, true);
	return 0;
}

/*
 * Every task now runs this module's functions: what a task still on
 * ib_core's put during the transition put back is given back, and the
 * mirror is no longer kept.
 */
static void tk_post_patch(struct klp_object *obj)
{
	tk_settle(true);
}

/* No task runs ib_core's put yet, and from now on one may. */
static void tk_pre_unpatch(struct klp_object *obj)
{
	mutex_lock(&tk_lock);
	if (!tk_mirroring)
		tk_fold(true);
	tk_unpatching = true;
	mutex_unlock(&tk_lock);
}

/*
 * Every task now runs ib_core's own functions: it does the puts.  What
 * went through ib_core's put during the transition is settled here, and
 * counted with the transition's puts; the reconcile takes what comes
 * after.
 */
static void tk_post_unpatch(struct klp_object *obj)
{
	unsigned int settled;

	mutex_lock(&tk_lock);
	settled = tk_nr_settled;
	mutex_unlock(&tk_lock);
	tk_settle(false);
	mutex_lock(&tk_lock);
	tk_nr_unpatch_puts += tk_nr_settled - settled;
	tk_unpatching = false;
	mutex_unlock(&tk_lock);
	WRITE_ONCE(tk_patched, false);
	mod_delayed_work(system_wq, &tk_reconcile_work, 0);
}

static struct klp_func tk_funcs[] = {
	{
		.old_name = "ib_cq_pool_get",
		.new_func = cqpool_takeover_get,
	}, {
		.old_name = "ib_cq_pool_put",
		.new_func = cqpool_takeover_put,
	}, { }
};

static struct klp_object tk_objs[] = {
	{
		/* NULL: vmlinux, where the RDMA core is built in. */
		.name = IS_MODULE(CONFIG_INFINIBAND) ? "ib_core" : NULL,
		.funcs = tk_funcs,
		.callbacks = {
			.pre_patch = tk_pre_patch,
			.post_patch = tk_post_patch,
			.pre_unpatch = tk_pre_unpatch,
			.post_unpatch = tk_post_unpatch,
		},
	}, { }
};

/*
 * The takeover's reservations, which only its own callbacks give back
 * once the patch goes.  A cumulative livepatch (atomic replace, as kpatch
 * and vendor livepatch services build them) runs only its own callbacks
 * as it replaces the patches before it: it would drop this one with its
 * reservations out, the ULPs' puts would hit ib_core's WARN and be lost,
 * and every CQ's device would be pinned for good.  Declaring the state
 * makes livepatch refuse a replacement that does not carry it
 * (klp_is_patch_compatible()); one built to carry it must take the
 * reservations over itself.
 */
#define TK_STATE_RESERVATIONS	0x6371706f	/* "cqpo" */

static struct klp_state tk_states[] = {
	{
		.id = TK_STATE_RESERVATIONS,
		.version = 1,
	}, { }
};

static struct klp_patch tk_patch = {
	.mod = THIS_MODULE,
	.objs = tk_objs,
	.states = tk_states,
};

static int __init tk_init(void)
{
	return klp_enable_patch(&tk_patch);
}

static void __exit tk_exit(void)
{
	struct hlist_node *tmp;
	struct tk_res *res;

	/* Only reached once every reservation is back (module reference). */
	cancel_delayed_work_sync(&tk_reconcile_work);
	WARN_ON(!hash_empty(tk_table));
	hlist_for_each_entry_safe(res, tmp, &tk_spare, node)
		kfree(res);
}

module_init(tk_init);
module_exit(tk_exit);

MODULE_DESCRIPTION("Livepatch: ib_cq_pool_get()/ib_cq_pool_put() served by cqpool");
MODULE_LICENSE("GPL");
/* cqpool's: the two modules ship together (DKMS, the cqpool-dkms package). */
MODULE_VERSION(__stringify(CQPOOL_VERSION_MAJOR) "." __stringify(CQPOOL_VERSION_MINOR));
MODULE_INFO(livepatch, "Y");
