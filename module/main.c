// SPDX-License-Identifier: GPL-2.0
/*
 * cqpool - completion-queue pools and async event hooks for in-kernel
 * RDMA consumers.
 */
#include <linux/module.h>

#include "cqpool_internal.h"

static int __init cqpool_init(void)
{
	int ret;

	ret = cqpool_debugfs_init();
	if (ret)
		return ret;
	ret = cqpool_devices_init();
	if (ret)
		goto out_debugfs;
	ret = cqpool_shrinker_init();
	if (ret)
		goto out_devices;
	return 0;

out_devices:
	cqpool_devices_exit();
out_debugfs:
	cqpool_debugfs_exit();
	return ret;
}

static void __exit cqpool_exit(void)
{
	cqpool_shrinker_exit();
	cqpool_devices_exit();
	cqpool_debugfs_exit();
}

module_init(cqpool_init);
module_exit(cqpool_exit);

MODULE_DESCRIPTION("Completion-queue pools and async event hooks for RDMA consumers");
MODULE_LICENSE("GPL");
MODULE_VERSION(__stringify(CQPOOL_VERSION_MAJOR) "." __stringify(CQPOOL_VERSION_MINOR));
