// SPDX-License-Identifier: GPL-2.0
/* The soft RDMA devices of the test VM, as a KUnit parameter. */
#include <rdma/ib_verbs.h>

#include "vm_devices.h"

static const char *const vm_devices[] = { "rxe0", "siw0" };
static const char *const rxe_devices[] = { "rxe0" };
static const char *const siw_devices[] = { "siw0" };

static void vm_devices_desc(const char *const *name, char *desc)
{
	strscpy(desc, *name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(vm_devices_array, vm_devices, vm_devices_desc);
KUNIT_ARRAY_PARAM(rxe_devices_array, rxe_devices, vm_devices_desc);
KUNIT_ARRAY_PARAM(siw_devices_array, siw_devices, vm_devices_desc);

const void *vm_devices_gen_params(const void *prev, char *desc)
{
	return vm_devices_array_gen_params(prev, desc);
}

const void *rxe_device_gen_params(const void *prev, char *desc)
{
	return rxe_devices_array_gen_params(prev, desc);
}

const void *siw_device_gen_params(const void *prev, char *desc)
{
	return siw_devices_array_gen_params(prev, desc);
}

const char *vm_device_name(struct kunit *test)
{
	return *(const char *const *)test->param_value;
}

struct ib_device *vm_device(struct kunit *test)
{
	struct ib_device *dev;

	dev = ib_device_get_by_name(vm_device_name(test), RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, dev, "%s is not registered",
				  vm_device_name(test));
	test->priv = dev;
	return dev;
}

void vm_device_exit(struct kunit *test)
{
	/*
	 * The parameters of a case share one struct kunit: clear, so that a
	 * case that never got its device does not put the previous one's.
	 */
	if (test->priv)
		ib_device_put(test->priv);
	test->priv = NULL;
}
