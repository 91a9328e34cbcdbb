// SPDX-License-Identifier: GPL-2.0
/*
 * cqpool_harness - /dev/cqpool: sessions, RDMA-CM connections, traffic,
 * triggers and benchmarks, for cqpoolctl and the kselftests.  A test
 * harness, kept out of the library as lib/test_rhashtable.c is kept out
 * of lib/rhashtable.c: a storage server loads cqpool.ko (and, if it
 * wants, cqpool_takeover.ko), never this.
 */
#include <linux/module.h>
#include "uapi/linux/cqpool.h"

#include <cqpool/cqpool.h>

#include "testing.h"
#include "session.h"

static int cqh_harness_removal(struct notifier_block *nb,
			       unsigned long action, void *ibdev)
{
	cqh_sessions_device_removed(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block cqh_harness_removal_nb = {
	.notifier_call = cqh_harness_removal,
};

static int __init cqh_harness_init(void)
{
	int ret;

	ret = cqpool_test_register_removal(&cqh_harness_removal_nb);
	if (ret)
		return ret;
	ret = cqh_chardev_init();
	if (ret)
		cqpool_test_unregister_removal(&cqh_harness_removal_nb);
	return ret;
}

/* No session is left: each open file holds the module. */
static void __exit cqh_harness_exit(void)
{
	cqh_chardev_exit();
	cqpool_test_unregister_removal(&cqh_harness_removal_nb);
}

module_init(cqh_harness_init);
module_exit(cqh_harness_exit);

MODULE_DESCRIPTION("cqpool's test harness: /dev/cqpool");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(CQPOOL_HARNESS);
MODULE_VERSION(__stringify(CQPOOL_VERSION_MAJOR) "."
	       __stringify(CQPOOL_VERSION_MINOR));
