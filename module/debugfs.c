// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/cqpool/, plain text a person can read.
 *
 *   devices  one line per RDMA device cqpool serves, with its counts of
 *            unaffiliated events: seen, delivered to handlers, masked
 *   pools    one line per pool, then one per CQ of it
 *   totals   CQs, entries allocated and reserved, over every pool, and
 *            how many pools fail the ledger's invariant check (0)
 *   ib_core_pools
 *            per device, what ib_core's own pool (ib_cq_pool_get()) holds:
 *            with the takeover active, the ULPs' new queues add nothing
 *
 * The test build adds its own (testing.c).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "cqpool_internal.h"
#include "report.h"
#include "testing.h"

static struct dentry *cqpool_debugfs_root;

/* A report that prints to a seq_file. */
struct cqpool_seq_report {
	struct cqpool_report r;
	struct seq_file *m;
};

static struct seq_file *cqpool_seq(struct cqpool_report *r)
{
	return container_of(r, struct cqpool_seq_report, r)->m;
}

static void cqpool_device_show(struct cqpool_report *r,
			       const struct cqpool_report_device *d)
{
	seq_printf(cqpool_seq(r), "%-16s %8u %5u %10u %10u %10llu %10llu %10llu\n",
		   d->name, d->num_comp_vectors, d->nvec, d->max_cqe,
		   d->max_cq, d->events, d->delivered, d->masked);
}

static int cqpool_devices_show(struct seq_file *m, void *unused)
{
	struct cqpool_seq_report sr = {
		.r.device = cqpool_device_show,
		.m = m,
	};

	seq_printf(m, "%-16s %8s %5s %10s %10s %10s %10s %10s\n", "device",
		   "vectors", "nvec", "max_cqe", "max_cq", "events",
		   "delivered", "masked");
	cqpool_report(&sr.r);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqpool_devices);

static void cqpool_pool_show(struct cqpool_report *r,
			     const struct cqpool_report_pool *p)
{
	seq_printf(cqpool_seq(r), "pool %s device %s ctx %s %s flags 0x%x cqs %u cqes %llu reserved %llu users %llu\n",
		   p->name, p->device, cqpool_poll_ctx_name(p->poll_ctx),
		   p->owned ? "owned" : "shared", p->flags & CQPOOL_F_ALL,
		   p->cqs, p->cqes, p->reserved_cqes, p->users);
}

static void cqpool_cq_show(struct cqpool_report *r,
			   const struct cqpool_report_cq *c)
{
	seq_printf(cqpool_seq(r), "  cq %u vec %u size %u reserved %u users %u age_ms %llu idle_ms %llu events %llu delivered %llu\n",
		   c->cq_id, c->vector, c->cqe, c->reserved_cqes, c->users,
		   c->age_ms, c->idle_ms, c->events, c->delivered);
}

static int cqpool_pools_show(struct seq_file *m, void *unused)
{
	struct cqpool_seq_report sr = {
		.r.pool = cqpool_pool_show,
		.r.cq = cqpool_cq_show,
		.m = m,
	};

	cqpool_report(&sr.r);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqpool_pools);

/**
 * struct cqpool_totals - sums over every pool
 * @r: the report that makes them
 * @cqs: CQs
 * @idle_cqs: CQs without users
 * @cqes: their entries
 * @reserved: entries reserved
 * @users: reservations
 * @pools: pools
 * @broken: pools whose ledger fails its own invariant check
 */
struct cqpool_totals {
	struct cqpool_report r;
	u64 cqs, idle_cqs, cqes, reserved, users, pools, broken;
};

static void cqpool_pool_add(struct cqpool_report *r,
			    const struct cqpool_report_pool *p)
{
	struct cqpool_totals *t = container_of(r, struct cqpool_totals, r);

	t->cqs += p->cqs;
	t->idle_cqs += p->idle_cqs;
	t->cqes += p->cqes;
	t->reserved += p->reserved_cqes;
	t->users += p->users;
	t->pools++;
	t->broken += p->broken;
}

static int cqpool_totals_show(struct seq_file *m, void *unused)
{
	struct cqpool_totals t = { .r.pool = cqpool_pool_add };

	cqpool_report(&t.r);
	seq_printf(m, "cqs %llu\nidle_cqs %llu\ncqes %llu\nreserved %llu\nusers %llu\npools %llu\nbroken_pools %llu\n",
		   t.cqs, t.idle_cqs, t.cqes, t.reserved, t.users, t.pools,
		   t.broken);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqpool_totals);

static void cqpool_ib_core_pool_show(struct cqpool_report *r,
				     const struct cqpool_report_device *d)
{
	seq_printf(cqpool_seq(r), "%s cqs %llu cqes %llu used %llu\n", d->name,
		   d->upstream_cqs, d->upstream_cqes, d->upstream_used);
}

static int cqpool_ib_core_pools_show(struct seq_file *m, void *unused)
{
	struct cqpool_seq_report sr = {
		.r.device = cqpool_ib_core_pool_show,
		.m = m,
	};

	cqpool_report(&sr.r);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqpool_ib_core_pools);

int cqpool_debugfs_init(void)
{
	cqpool_debugfs_root = debugfs_create_dir("cqpool", NULL);
	debugfs_create_file("devices", 0400, cqpool_debugfs_root, NULL,
			    &cqpool_devices_fops);
	debugfs_create_file("pools", 0400, cqpool_debugfs_root, NULL,
			    &cqpool_pools_fops);
	debugfs_create_file("totals", 0400, cqpool_debugfs_root, NULL,
			    &cqpool_totals_fops);
	debugfs_create_file("ib_core_pools", 0400, cqpool_debugfs_root, NULL,
			    &cqpool_ib_core_pools_fops);
	cqpool_testing_debugfs(cqpool_debugfs_root);
	return 0;
}

void cqpool_debugfs_exit(void)
{
	debugfs_remove_recursive(cqpool_debugfs_root);
}
