// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/cqpool/, plain text a person can read.
 *
 *   devices  one line per RDMA device cqpool serves, with its counts of
 *            unaffiliated events: seen, delivered to handlers, masked
 *   inject   write "DEVICE device_fatal" (event_injection=1 only)
 *   pools    one line per pool, then one per CQ of it
 *   totals   CQs, entries allocated and reserved, over every pool, and
 *            how many pools fail the ledger's invariant check (0)
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "cqpool_internal.h"

static struct dentry *cqpool_debugfs_root;

static int cqpool_devices_show(struct seq_file *m, void *unused)
{
	struct cqpool_dev *cdev;

	seq_printf(m, "%-16s %8s %5s %10s %10s %10s %10s %10s\n", "device",
		   "vectors", "nvec", "max_cqe", "max_cq", "events",
		   "delivered", "masked");

	cqpool_devices_lock();
	list_for_each_entry(cdev, cqpool_devices_list(), node) {
		const struct ib_device *ibdev = cdev->ibdev;

		seq_printf(m, "%-16s %8d %5u %10d %10d %10lld %10lld %10lld\n",
			   dev_name(&ibdev->dev), ibdev->num_comp_vectors,
			   cdev->nvec, ibdev->attrs.max_cqe,
			   ibdev->attrs.max_cq,
			   atomic64_read(&cdev->ev_received),
			   atomic64_read(&cdev->ev_delivered),
			   atomic64_read(&cdev->ev_masked));
	}
	cqpool_devices_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqpool_devices);

static void cqpool_pool_show(struct seq_file *m, struct cqpool *pool,
			     const struct cqp_pool_stats *st)
{
	u64 now = ktime_get_ns();
	struct cqpool_cq *ccq;

	seq_printf(m, "pool %s device %s ctx %s %s flags 0x%x vectors %u cqs %llu cqes %llu reserved %llu users %llu\n",
		   pool->name, dev_name(&pool->cdev->ibdev->dev),
		   cqpool_poll_ctx_name(pool->poll_ctx),
		   pool->owned ? "owned" : "shared", pool->flags,
		   pool->cdev->nvec, st->cqs, st->cqes, st->reserved,
		   st->users);
	list_for_each_entry(ccq, &pool->cqs, node) {
		const struct cqp_cq *l = &ccq->ledger;
		u64 received, delivered;
		unsigned long flags;

		spin_lock_irqsave(&ccq->hooks_lock, flags);
		received = ccq->ev_received;
		delivered = ccq->ev_delivered;
		spin_unlock_irqrestore(&ccq->hooks_lock, flags);
		seq_printf(m, "  cq %llu vec %u size %u reserved %u users %u age_ms %llu idle_ms %llu events %llu delivered %llu\n",
			   l->id, l->vec, l->size, l->reserved, l->users,
			   (now - ccq->created) / NSEC_PER_MSEC,
			   l->users ? 0 : (now - l->idle_since) / NSEC_PER_MSEC,
			   received, delivered);
	}
}

/**
 * struct cqpool_totals - sums over every pool
 * @st: the pools' totals
 * @pools: pools
 * @broken: pools whose ledger fails its own invariant check
 */
struct cqpool_totals {
	struct cqp_pool_stats st;
	u64 pools;
	u64 broken;
};

/*
 * Walks every pool, adding it to @sum and, when @list is set, showing it
 * and its CQs.
 */
static void cqpool_pools_walk(struct seq_file *m, bool list,
			      struct cqpool_totals *sum)
{
	struct cqpool_dev *cdev;
	struct cqpool *pool;

	cqpool_devices_lock();
	list_for_each_entry(cdev, cqpool_devices_list(), node) {
		mutex_lock(&cdev->lock);
		list_for_each_entry(pool, &cdev->pools, node) {
			struct cqp_pool_stats st;

			mutex_lock(&pool->lock);
			cqp_pool_get_stats(pool->ledger, &st);
			if (list)
				cqpool_pool_show(m, pool, &st);
			sum->broken += !!cqp_pool_check(pool->ledger);
			mutex_unlock(&pool->lock);
			sum->pools++;
			sum->st.cqs += st.cqs;
			sum->st.idle_cqs += st.idle_cqs;
			sum->st.cqes += st.cqes;
			sum->st.reserved += st.reserved;
			sum->st.users += st.users;
		}
		mutex_unlock(&cdev->lock);
	}
	cqpool_devices_unlock();
}

static int cqpool_pools_show(struct seq_file *m, void *unused)
{
	struct cqpool_totals sum = {};

	cqpool_pools_walk(m, true, &sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqpool_pools);

static int cqpool_totals_show(struct seq_file *m, void *unused)
{
	struct cqpool_totals sum = {};

	cqpool_pools_walk(m, false, &sum);
	seq_printf(m, "cqs %llu\nidle_cqs %llu\ncqes %llu\nreserved %llu\nusers %llu\npools %llu\nbroken_pools %llu\n",
		   sum.st.cqs, sum.st.idle_cqs, sum.st.cqes, sum.st.reserved,
		   sum.st.users, sum.pools, sum.broken);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cqpool_totals);

/*
 * "DEVICE device_fatal" injects IB_EVENT_DEVICE_FATAL on DEVICE through
 * the dispatch path ib_core's events take, when the event_injection
 * module parameter allows it.
 */
static ssize_t cqpool_inject_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char buf[80], device[IB_DEVICE_NAME_MAX], what[32];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = 0;
	if (sscanf(buf, "%63s %31s", device, what) != 2 ||
	    strcmp(what, "device_fatal"))
		return -EINVAL;
	ret = cqpool_inject_event(device, IB_EVENT_DEVICE_FATAL);
	return ret ? ret : count;
}

static const struct file_operations cqpool_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = cqpool_inject_write,
	.llseek = no_llseek,
};

int cqpool_debugfs_init(void)
{
	cqpool_debugfs_root = debugfs_create_dir("cqpool", NULL);
	debugfs_create_file("devices", 0400, cqpool_debugfs_root, NULL,
			    &cqpool_devices_fops);
	debugfs_create_file("pools", 0400, cqpool_debugfs_root, NULL,
			    &cqpool_pools_fops);
	debugfs_create_file("totals", 0400, cqpool_debugfs_root, NULL,
			    &cqpool_totals_fops);
	debugfs_create_file("inject", 0200, cqpool_debugfs_root, NULL,
			    &cqpool_inject_fops);
	return 0;
}

void cqpool_debugfs_exit(void)
{
	debugfs_remove_recursive(cqpool_debugfs_root);
}
