// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: cqpool.ko as it sees the soft RDMA devices of the test VM (rxe0
 * on soft-RoCE, siw0 on soft-iWARP).
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <rdma/ib_verbs.h>

#include "testing.h"
#include "vm_devices.h"

static void device_is_tracked_with_capped_vectors(struct kunit *test)
{
	struct ib_device *ibdev = vm_device(test);
	struct cqpool_test_dev_info info;
	int ret;

	ret = cqpool_test_device_info(ibdev, &info);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, info.nvec,
				min_t(unsigned int, ibdev->num_comp_vectors,
				      num_online_cpus()));
		KUNIT_EXPECT_EQ(test, info.load, 0ULL);
	}
}

static struct kunit_case device_cases[] = {
	KUNIT_CASE_PARAM(device_is_tracked_with_capped_vectors,
			 vm_devices_gen_params),
	{}
};

static struct kunit_suite device_suite = {
	.name = "cqpool_devices",
	.exit = vm_device_exit,
	.test_cases = device_cases,
};

kunit_test_suite(device_suite);
