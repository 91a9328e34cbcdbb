// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: cqpool.ko as it sees the soft RDMA devices of the test VM (rxe0
 * on soft-RoCE, siw0 on soft-iWARP).
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <rdma/ib_verbs.h>

#include "cqpool_test.h"

static const char *const vm_devices[] = { "rxe0", "siw0" };

static void vm_device_name(const char *const *name, char *desc)
{
	strscpy(desc, *name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vm_devices, vm_devices, vm_device_name);

static void device_is_tracked_with_capped_vectors(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct cqpool_test_dev_info info;
	struct ib_device *ibdev;
	int ret;

	ibdev = ib_device_get_by_name(*name, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ibdev, "%s is not registered", *name);

	ret = cqpool_test_device_info(ibdev, &info);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, info.nvec,
				min_t(unsigned int, ibdev->num_comp_vectors,
				      num_online_cpus()));
		KUNIT_EXPECT_EQ(test, info.load, 0ULL);
	}
	ib_device_put(ibdev);
}

static struct kunit_case device_cases[] = {
	KUNIT_CASE_PARAM(device_is_tracked_with_capped_vectors,
			 vm_devices_gen_params),
	{}
};

static struct kunit_suite device_suite = {
	.name = "cqpool_devices",
	.test_cases = device_cases,
};

kunit_test_suite(device_suite);
