/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The soft RDMA devices of the test VM, as a KUnit parameter: rxe0
 * (soft-RoCE, resizes CQs) and siw0 (soft-iWARP, does not).
 */
#ifndef CQPOOL_KUNIT_VM_DEVICES_H
#define CQPOOL_KUNIT_VM_DEVICES_H

#include <kunit/test.h>

struct ib_device;

/* For KUNIT_CASE_PARAM: each VM device's name, in turn. */
const void *vm_devices_gen_params(const void *prev, char *desc);
/* Only rxe0, for what only soft-RoCE does. */
const void *rxe_device_gen_params(const void *prev, char *desc);
/* Only siw0, for what only soft-iWARP does. */
const void *siw_device_gen_params(const void *prev, char *desc);

/* The name of the case's device. */
const char *vm_device_name(struct kunit *test);

/*
 * The case's device, held until the case ends (vm_device_exit() as the
 * suite's exit); the case fails if it is not registered.
 */
struct ib_device *vm_device(struct kunit *test);
void vm_device_exit(struct kunit *test);

#endif
