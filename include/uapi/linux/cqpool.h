/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cqpool - the /dev/cqpool ioctl ABI.
 *
 * Every argument starts with a __u32 @size that the caller sets to
 * sizeof() of the struct it was built with, so the ABI can grow: the
 * kernel accepts a larger (newer) struct whose unknown tail is zero, and
 * refuses one smaller than the first version of it.  The ioctl number
 * encodes the same size and the two must agree.  Reserved fields and
 * unknown flags must be zero.  Objects are named by small integer ids,
 * never by kernel pointers.
 *
 * /dev/cqpool is root only (mode 0600 and CAP_SYS_ADMIN).  Every pool and
 * reservation made through a file descriptor belongs to it and is released
 * when it is closed.
 *
 * Errors: ENOTTY unknown command; EINVAL bad size, flag, reserved field or
 * value; E2BIG a larger struct with a non-zero tail; EFAULT bad pointer;
 * ENODEV no such RDMA device; ENOENT no such id on this file descriptor;
 * EBUSY a pool with reservations; ENOSPC CQPOOL_MAX_FD_OBJECTS reached or
 * the pool at its CQ limit.
 */
#ifndef _UAPI_LINUX_CQPOOL_H
#define _UAPI_LINUX_CQPOOL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define CQPOOL_DEVICE_PATH	"/dev/cqpool"

/*
 * Raised only when a change breaks older userspace; growing a struct at
 * its end does not need it.
 */
#define CQPOOL_ABI_VERSION	1

/* Every CQPOOL_IOC_* number is defined in this file, and only here. */
#define CQPOOL_IOC_MAGIC	0xC9

/**
 * struct cqpool_version - argument of CQPOOL_IOC_VERSION
 * @size: in: sizeof(struct cqpool_version)
 * @flags: in: must be zero
 * @abi_version: out: CQPOOL_ABI_VERSION of the running module
 * @module_major: out: module release, major part
 * @module_minor: out: module release, minor part
 * @reserved: must be zero
 */
struct cqpool_version {
	__u32 size;
	__u32 flags;
	__u32 abi_version;
	__u16 module_major;
	__u16 module_minor;
	__u32 reserved[4];
};

/* Names: an RDMA device ("rxe0") or a pool, NUL-terminated. */
#define CQPOOL_NAME_LEN		64

/* Poll contexts of a pool, as the kernel's enum ib_poll_context. */
enum cqpool_poll_ctx {
	CQPOOL_POLL_SOFTIRQ = 0,
	CQPOOL_POLL_WORKQUEUE = 1,
	CQPOOL_POLL_UNBOUND_WORKQUEUE = 2,
};

/* struct cqpool_pool_create flags: as the kernel's CQPOOL_F_*. */
#define CQPOOL_POOL_NO_SHRINK	(1U << 0)
#define CQPOOL_POOL_NO_RESIZE	(1U << 1)

/**
 * struct cqpool_pool_create - argument of CQPOOL_IOC_POOL_CREATE
 * @size: in: sizeof(struct cqpool_pool_create)
 * @flags: in: CQPOOL_POOL_*
 * @device: in: the RDMA device
 * @name: in: the pool's name in debugfs
 * @poll_ctx: in: enum cqpool_poll_ctx
 * @cq_size: in: entries per CQ; 0 to size CQs to demand
 * @max_cqs: in: most CQs; 0 for the device's limit
 * @id: out: the pool, for this file descriptor
 * @reserved: must be zero
 */
struct cqpool_pool_create {
	__u32 size;
	__u32 flags;
	char device[CQPOOL_NAME_LEN];
	char name[CQPOOL_NAME_LEN];
	__u32 poll_ctx;
	__u32 cq_size;
	__u32 max_cqs;
	__u32 id;
	__u32 reserved[4];
};

/**
 * struct cqpool_destroy - argument of CQPOOL_IOC_POOL_DESTROY and
 *	CQPOOL_IOC_CQ_PUT
 * @size: in: sizeof(struct cqpool_destroy)
 * @flags: in: must be zero
 * @id: in: the pool or the reservation
 * @reserved: must be zero
 */
struct cqpool_destroy {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved[5];
};

/* struct cqpool_cq_get flags */
/* Reserve on the device's shared pool of @poll_ctx, not on @pool_id. */
#define CQPOOL_CQ_GET_SHARED	(1U << 0)
/*
 * Reserve with the kernel's own ib_cq_pool_get() on @device and
 * @poll_ctx instead, for comparison; its CQs are not cqpool's.
 */
#define CQPOOL_CQ_GET_UPSTREAM	(1U << 1)

/**
 * struct cqpool_cq_get - argument of CQPOOL_IOC_CQ_GET
 * @size: in: sizeof(struct cqpool_cq_get)
 * @flags: in: CQPOOL_CQ_GET_*
 * @pool_id: in: a pool of this file descriptor (without _SHARED or
 *	_UPSTREAM)
 * @poll_ctx: in: enum cqpool_poll_ctx (with _SHARED or _UPSTREAM)
 * @device: in: the RDMA device (with _SHARED or _UPSTREAM)
 * @nr_cqe: in: entries to reserve
 * @vector_hint: in: completion vector; -1 for the least-loaded
 * @id: out: the reservation, for this file descriptor
 * @cq_id: out: the CQ's resource id (`rdma res show cq` cqn)
 * @vector: out: the CQ's completion vector
 * @cqe: out: the CQ's real size
 * @reserved: must be zero
 */
struct cqpool_cq_get {
	__u32 size;
	__u32 flags;
	__u32 pool_id;
	__u32 poll_ctx;
	char device[CQPOOL_NAME_LEN];
	__u32 nr_cqe;
	__s32 vector_hint;
	__u32 id;
	__u32 cq_id;
	__u32 vector;
	__u32 cqe;
	__u32 reserved[4];
};

/*
 * Async events, numbered as the kernel's enum ib_event_type; counts are
 * kept per number below CQPOOL_NR_EVENTS.
 */
enum cqpool_event {
	CQPOOL_EVENT_CQ_ERR = 0,
	CQPOOL_EVENT_QP_FATAL = 1,
	CQPOOL_EVENT_QP_REQ_ERR = 2,
	CQPOOL_EVENT_QP_ACCESS_ERR = 3,
	CQPOOL_EVENT_COMM_EST = 4,
	CQPOOL_EVENT_SQ_DRAINED = 5,
	CQPOOL_EVENT_DEVICE_FATAL = 8,
	CQPOOL_EVENT_PORT_ACTIVE = 9,
	CQPOOL_EVENT_PORT_ERR = 10,
	CQPOOL_EVENT_LID_CHANGE = 11,
	CQPOOL_EVENT_PKEY_CHANGE = 12,
	CQPOOL_EVENT_SM_CHANGE = 13,
	CQPOOL_EVENT_CLIENT_REREGISTER = 17,
	CQPOOL_EVENT_GID_CHANGE = 18,
};

#define CQPOOL_NR_EVENTS	32

/*
 * struct cqpool_cq_get flag: count the events of the CQ on this
 * reservation (read them with CQPOOL_IOC_EVENTS_READ).
 */
#define CQPOOL_CQ_GET_HOOK	(1U << 2)

/**
 * struct cqpool_events_watch - argument of CQPOOL_IOC_EVENTS_WATCH
 * @size: in: sizeof(struct cqpool_events_watch)
 * @flags: in: must be zero
 * @device: in: the RDMA device whose unaffiliated events to count
 * @event_mask: in: 1 << CQPOOL_EVENT_* of the events wanted; 0 for all
 * @id: out: the watch, for this file descriptor (CQPOOL_IOC_EVENTS_READ,
 *	CQPOOL_IOC_EVENTS_UNWATCH)
 * @reserved: must be zero
 */
struct cqpool_events_watch {
	__u32 size;
	__u32 flags;
	char device[CQPOOL_NAME_LEN];
	__u64 event_mask;
	__u32 id;
	__u32 reserved[5];
};

/**
 * struct cqpool_events_read - argument of CQPOOL_IOC_EVENTS_READ
 * @size: in: sizeof(struct cqpool_events_read)
 * @flags: in: must be zero
 * @id: in: a watch, or a reservation made with CQPOOL_CQ_GET_HOOK
 * @pad: must be zero
 * @counts: out: events delivered to it, by CQPOOL_EVENT_* number
 * @reserved: must be zero
 */
struct cqpool_events_read {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 pad;
	__u64 counts[CQPOOL_NR_EVENTS];
	__u32 reserved[4];
};

/* Most pools, reservations and watches one file descriptor may hold. */
#define CQPOOL_MAX_FD_OBJECTS	4096

#define CQPOOL_IOC_VERSION \
	_IOWR(CQPOOL_IOC_MAGIC, 0x00, struct cqpool_version)
#define CQPOOL_IOC_POOL_CREATE \
	_IOWR(CQPOOL_IOC_MAGIC, 0x01, struct cqpool_pool_create)
#define CQPOOL_IOC_POOL_DESTROY \
	_IOWR(CQPOOL_IOC_MAGIC, 0x02, struct cqpool_destroy)
#define CQPOOL_IOC_CQ_GET \
	_IOWR(CQPOOL_IOC_MAGIC, 0x03, struct cqpool_cq_get)
#define CQPOOL_IOC_CQ_PUT \
	_IOWR(CQPOOL_IOC_MAGIC, 0x04, struct cqpool_destroy)
#define CQPOOL_IOC_EVENTS_WATCH \
	_IOWR(CQPOOL_IOC_MAGIC, 0x05, struct cqpool_events_watch)
#define CQPOOL_IOC_EVENTS_UNWATCH \
	_IOWR(CQPOOL_IOC_MAGIC, 0x06, struct cqpool_destroy)
#define CQPOOL_IOC_EVENTS_READ \
	_IOWR(CQPOOL_IOC_MAGIC, 0x07, struct cqpool_events_read)

#endif /* _UAPI_LINUX_CQPOOL_H */
