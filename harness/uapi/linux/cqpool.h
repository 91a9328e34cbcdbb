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
 * EPERM a caller without CAP_SYS_ADMIN, or DEVICE_FATAL without
 * event_injection; ENODEV no such RDMA device; ENOENT no such id on this
 * file descriptor; EBUSY a pool with reservations, upstream's pool taken
 * over by cqpool, a connection a TRAFFIC runs on (destroy, trigger), or a
 * TRAFFIC while another runs on the same file descriptor; ENOSPC
 * CQPOOL_MAX_FD_OBJECTS or CQPOOL_MAX_FD_BYTES reached (or their limits
 * across file descriptors), the pool at its CQ limit, or a BENCH larger
 * than CQPOOL_BENCH_MAX_CQES; EAGAIN a BENCH whose prefill the pools
 * placed differently; ENOTCONN a broken connection; ETIMEDOUT traffic
 * that did not complete; EINTR a TRAFFIC or BENCH whose caller was
 * killed; EOPNOTSUPP a trigger the device has no way to raise.
 */
#ifndef _UAPI_LINUX_CQPOOL_H
#define _UAPI_LINUX_CQPOOL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define CQPOOL_DEVICE_PATH	"/dev/cqpool"

/*
 * Raised only when a change breaks older userspace; growing a struct at
 * its end does not need it.  2: the commands without output became _IOW.
 */
#define CQPOOL_ABI_VERSION	2

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

/*
 * struct cqpool_pool_create flags: as the kernel's CQPOOL_F_*.  A pool
 * grows by new CQs; RESIZE opts in to growing CQs in place (EOPNOTSUPP
 * where the kernel or the driver cannot), NO_RESIZE only spells out the
 * default.
 */
#define CQPOOL_POOL_NO_SHRINK	(1U << 0)
#define CQPOOL_POOL_NO_RESIZE	(1U << 1)
#define CQPOOL_POOL_RESIZE	(1U << 2)

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
/*
 * struct cqpool_cq_get flag, with CQPOOL_CQ_GET_UPSTREAM: ib_cq_pool_get()
 * and, at the put, ib_cq_pool_put() called as a ULP calls them while
 * cqpool_takeover.ko has them, which _UPSTREAM alone refuses (-EBUSY):
 * cqpool's CQs, reserved through the takeover; -ENOENT without it.  The
 * put is whichever function serves it then: ib_core's own once the
 * takeover is disabled, as a ULP's is.
 */
#define CQPOOL_CQ_GET_TAKEN_OVER	(1U << 3)

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

/*
 * Most pools, reservations, watches and connections one file descriptor
 * may hold, and most bytes of traffic buffers it may pin; then the same
 * for all file descriptors together.  What a file descriptor allocates
 * is charged to its memory cgroup.
 */
#define CQPOOL_MAX_FD_OBJECTS	4096
#define CQPOOL_MAX_FD_BYTES	(64U << 20)
#define CQPOOL_MAX_OBJECTS	(4 * CQPOOL_MAX_FD_OBJECTS)
#define CQPOOL_MAX_BYTES	(4ULL * CQPOOL_MAX_FD_BYTES)

/* What CQPOOL_IOC_LIST lists, and the struct of each entry. */
enum cqpool_list_what {
	CQPOOL_LIST_DEVICES = 0,	/* struct cqpool_device_info */
	CQPOOL_LIST_POOLS = 1,		/* struct cqpool_pool_info */
	CQPOOL_LIST_CQS = 2,		/* struct cqpool_cq_info */
	CQPOOL_LIST_CONNS = 3,		/* struct cqpool_conn_info, this fd's */
};

/**
 * struct cqpool_list - argument of CQPOOL_IOC_LIST
 * @size: in: sizeof(struct cqpool_list)
 * @flags: in: must be zero
 * @what: in: enum cqpool_list_what
 * @entry_size: in: sizeof() of the entry struct the caller was built
 *	with; at least its first version.  The kernel writes that many
 *	bytes per entry, zero past what it knows.
 * @count: in: entries @entries has room for (0 to just count them);
 *	out: entries there are, which may be more than were written
 * @pad: must be zero
 * @entries: in: user pointer to @count entries of @entry_size bytes
 * @reserved: must be zero
 */
struct cqpool_list {
	__u32 size;
	__u32 flags;
	__u32 what;
	__u32 entry_size;
	__u32 count;
	__u32 pad;
	__aligned_u64 entries;
	__u32 reserved[4];
};

/* Most entries one CQPOOL_IOC_LIST writes. */
#define CQPOOL_MAX_LIST		65536

/**
 * struct cqpool_device_info - an RDMA device cqpool serves
 * @name: its name
 * @num_comp_vectors: the device's completion vectors
 * @nvec: the vectors cqpool spreads CQs over (at most the online CPUs)
 * @max_cqe: largest CQ the device allows
 * @max_cq: most CQs the device allows
 * @pools: cqpool's pools on it
 * @cqs: their CQs
 * @cqes: entries of those CQs
 * @reserved_cqes: entries reserved on them
 * @users: reservations
 * @events: unaffiliated events seen
 * @delivered: calls of device event handlers
 * @masked: events a handler's mask kept from it
 * @upstream_cqs: CQs in the kernel's own pools (ib_cq_pool_get()) of the
 *	device, for comparison
 * @upstream_cqes: their entries
 * @upstream_used: entries reserved on them
 */
struct cqpool_device_info {
	char name[CQPOOL_NAME_LEN];
	__u32 num_comp_vectors;
	__u32 nvec;
	__u32 max_cqe;
	__u32 max_cq;
	__u32 pools;
	__u32 cqs;
	__u64 cqes;
	__u64 reserved_cqes;
	__u64 users;
	__u64 events;
	__u64 delivered;
	__u64 masked;
	__u64 upstream_cqs;
	__u64 upstream_cqes;
	__u64 upstream_used;
};

/* struct cqpool_pool_info flags, beyond CQPOOL_POOL_* */
#define CQPOOL_POOL_INFO_OWNED	(1U << 16)	/* made by cqpool_create() */
#define CQPOOL_POOL_INFO_BROKEN	(1U << 17)	/* ledger check failed */

/**
 * struct cqpool_pool_info - a pool
 * @device: its RDMA device
 * @name: its name
 * @poll_ctx: enum cqpool_poll_ctx
 * @flags: CQPOOL_POOL_* and CQPOOL_POOL_INFO_*
 * @cqs: its CQs
 * @idle_cqs: those without users
 * @cqes: their entries
 * @reserved_cqes: entries reserved
 * @users: reservations
 */
struct cqpool_pool_info {
	char device[CQPOOL_NAME_LEN];
	char name[CQPOOL_NAME_LEN];
	__u32 poll_ctx;
	__u32 flags;
	__u32 cqs;
	__u32 idle_cqs;
	__u64 cqes;
	__u64 reserved_cqes;
	__u64 users;
};

/**
 * struct cqpool_cq_info - a CQ of a pool
 * @device: its RDMA device
 * @pool: its pool's name
 * @cq_id: its resource id (`rdma res show cq` cqn)
 * @vector: its completion vector
 * @cqe: its real size
 * @reserved_cqes: entries reserved on it
 * @users: reservations on it
 * @pad: zero
 * @age_ms: since it was allocated
 * @idle_ms: since its last user left; 0 while it has users
 * @events: its async events
 * @delivered: calls of its hooks
 */
struct cqpool_cq_info {
	char device[CQPOOL_NAME_LEN];
	char pool[CQPOOL_NAME_LEN];
	__u32 cq_id;
	__u32 vector;
	__u32 cqe;
	__u32 reserved_cqes;
	__u32 users;
	__u32 pad;
	__u64 age_ms;
	__u64 idle_ms;
	__u64 events;
	__u64 delivered;
};

/* Where the CQs of a connection's QPs come from. */
enum cqpool_cq_mode {
	CQPOOL_CQ_POOL = 0,	/* cqpool: an owned pool, or the shared one */
	CQPOOL_CQ_UPSTREAM = 1,	/* the kernel's ib_cq_pool_get() */
	CQPOOL_CQ_PER_QP = 2,	/* one ib_alloc_cq() per QP */
};

/* Largest queue depth and message of a connection. */
#define CQPOOL_MAX_DEPTH	4096
#define CQPOOL_MAX_MSG		(1U << 20)

/**
 * struct cqpool_conn_create - argument of CQPOOL_IOC_CONN_CREATE
 * @size: in: sizeof(struct cqpool_conn_create)
 * @flags: in: must be zero
 * @device: in: the client's RDMA device
 * @peer: in: the server's RDMA device; "" for @device itself (looped back)
 * @cq_mode: in: enum cqpool_cq_mode
 * @pool_id: in: with CQPOOL_CQ_POOL and no @peer, an owned pool of this
 *	file descriptor; 0 for the device's shared pool of @poll_ctx
 * @poll_ctx: in: enum cqpool_poll_ctx
 * @nr_cqe: in: CQ entries each QP reserves (one CQ for both directions,
 *	as ULPs do), at least @send_depth + @recv_depth so that no
 *	run's completions can overrun it; 0 for that sum
 * @send_depth: in: send queue depth of each QP (1..CQPOOL_MAX_DEPTH), all
 *	of it for traffic: the queue has one slot more, for ib_drain_qp()
 * @recv_depth: in: receive queue depth of each QP (1..CQPOOL_MAX_DEPTH),
 *	with one slot more likewise
 * @vector_hint: in: completion vector; -1 for the pool's choice
 * @id: out: the connection, for this file descriptor
 * @client_qpn: out: the client QP's number
 * @server_qpn: out: the server QP's number
 * @msg_size: in: largest message its traffic may carry
 *	(1..CQPOOL_MAX_MSG; 0 for 4096); each end keeps a buffer of it,
 *	counted against CQPOOL_MAX_FD_BYTES
 * @pad: must be zero
 * @setup_ns: out: time from the first verb to both ends ESTABLISHED
 * @reserved: must be zero
 *
 * A connection is an RC QP pair joined through the RDMA CM on the IPv4
 * addresses of the devices' netdevs.
 */
struct cqpool_conn_create {
	__u32 size;
	__u32 flags;
	char device[CQPOOL_NAME_LEN];
	char peer[CQPOOL_NAME_LEN];
	__u32 cq_mode;
	__u32 pool_id;
	__u32 poll_ctx;
	__u32 nr_cqe;
	__u32 send_depth;
	__u32 recv_depth;
	__s32 vector_hint;
	__u32 id;
	__u32 client_qpn;
	__u32 server_qpn;
	__u32 msg_size;
	__u32 pad;
	__aligned_u64 setup_ns;
	__u32 reserved[4];
};

/**
 * struct cqpool_conn_info - a connection of this file descriptor
 * @id: its id
 * @cq_mode: enum cqpool_cq_mode
 * @client_qpn: the client QP
 * @server_qpn: the server QP
 * @client_cq_id: the client QP's CQ (`rdma res show cq` cqn)
 * @server_cq_id: the server QP's CQ
 * @client_cqe: the real size of @client_cq_id
 * @server_cqe: the real size of @server_cq_id
 * @nr_cqe: entries each QP reserved
 * @broken: 1 once a trigger or an error completion left it unusable
 * @completions: successful completions on both QPs, over all runs
 * @errors: completions with an error status
 * @qp_events: async events of its QPs
 * @cq_events: async events of its CQs, as their hooks heard them
 *	(cqpool's CQs only: the others have no hooks)
 * @setup_ns: as CQPOOL_IOC_CONN_CREATE returned it
 * @first_error: status (enum ib_wc_status) of its first error
 *	completion; 0 if none
 * @pad: zero
 */
struct cqpool_conn_info {
	__u32 id;
	__u32 cq_mode;
	__u32 client_qpn;
	__u32 server_qpn;
	__u32 client_cq_id;
	__u32 server_cq_id;
	__u32 client_cqe;
	__u32 server_cqe;
	__u32 nr_cqe;
	__u32 broken;
	__u64 completions;
	__u64 errors;
	__u64 qp_events;
	__u64 cq_events;
	__u64 setup_ns;
	__u32 first_error;
	__u32 pad;
};

/* Operations of CQPOOL_IOC_TRAFFIC. */
enum cqpool_traffic_op {
	CQPOOL_OP_SEND = 0,	/* SEND from the client, RECV at the server */
	CQPOOL_OP_WRITE = 1,	/* RDMA WRITE from the client */
};

/**
 * struct cqpool_traffic - argument of CQPOOL_IOC_TRAFFIC
 * @size: in: sizeof(struct cqpool_traffic)
 * @flags: in: must be zero
 * @conn_id: in: a connection; 0 for every usable one of this fd
 * @op: in: enum cqpool_traffic_op
 * @msg_size: in: bytes per message (1..the connections' msg_size)
 * @depth: in: work requests in flight per connection, at most its
 *	send and receive depths
 * @count: in: messages per connection; 0 to run for @duration_ms
 * @duration_ms: in: with @count 0, how long (1..600000)
 * @conns: out: connections that ran
 * @completions: out: successful completions, both ends
 * @bytes: out: bytes the client's completed work requests carried
 * @errors: out: completions with an error status
 * @elapsed_ns: out: from the first post to the last completion
 * @reserved: must be zero
 *
 * Completions are ib_cqe callbacks in the CQs' poll context; the call
 * returns when every connection finished, or ETIMEDOUT 10 s after it
 * should have (its connections are then broken), or EINTR when the caller
 * is killed.  Other commands on the same file run meanwhile.
 */
struct cqpool_traffic {
	__u32 size;
	__u32 flags;
	__u32 conn_id;
	__u32 op;
	__u32 msg_size;
	__u32 depth;
	__aligned_u64 count;
	__u32 duration_ms;
	__u32 conns;
	__u64 completions;
	__u64 bytes;
	__u64 errors;
	__u64 elapsed_ns;
	__u32 reserved[4];
};

/* Events CQPOOL_IOC_TRIGGER raises. */
enum cqpool_trigger_kind {
	/* Move the client QP to SQD: SQ_DRAINED to its handler (rxe). */
	CQPOOL_TRIGGER_SQ_DRAIN = 0,
	/*
	 * An RDMA WRITE with an rkey of another PD: QP_ACCESS_ERR at the
	 * server (siw), or a remote access error completion (rxe).
	 */
	CQPOOL_TRIGGER_BAD_RKEY = 1,
	/* DEVICE_FATAL on @device, only with event_injection=1. */
	CQPOOL_TRIGGER_DEVICE_FATAL = 2,
};

/**
 * struct cqpool_trigger - argument of CQPOOL_IOC_TRIGGER
 * @size: in: sizeof(struct cqpool_trigger)
 * @flags: in: must be zero
 * @kind: in: enum cqpool_trigger_kind
 * @conn_id: in: the connection (SQ_DRAIN, BAD_RKEY); it is broken after
 * @device: in: the device (DEVICE_FATAL)
 * @reserved: must be zero
 *
 * Port and GID events have real triggers outside cqpool: `ip link set
 * dev ... down/up` and `ip addr add`.
 */
struct cqpool_trigger {
	__u32 size;
	__u32 flags;
	__u32 kind;
	__u32 conn_id;
	char device[CQPOOL_NAME_LEN];
	__u32 reserved[4];
};

/* In-kernel micro-benchmarks. */
enum cqpool_bench_kind {
	/*
	 * @iterations get and put of @nr_cqe on a pool where @prefill CQs
	 * per vector are filled to their real size, but for room made in
	 * one CQ per vector: the one upstream's first-fit scan meets first.
	 */
	CQPOOL_BENCH_GET_PUT = 0,
	/* The same, with the room in the CQ upstream's scan meets last. */
	CQPOOL_BENCH_CHURN = 1,
	/* @iterations reservations of @nr_cqe, then all released. */
	CQPOOL_BENCH_STORM = 2,
	/*
	 * GET_PUT's pool and room, and @iterations get+put pairs shared by
	 * @threads kernel threads, thread i on vector i modulo the vectors,
	 * as a ULP's queues are: the throughput of the pool under
	 * contention.  Not with CQPOOL_CQ_PER_QP.
	 */
	CQPOOL_BENCH_PARALLEL = 3,
	/*
	 * GET_PUT with a clock pair around each call, the clock's own cost
	 * included: the distribution of single calls, where GET_PUT's
	 * batches give their mean.
	 */
	CQPOOL_BENCH_LATENCY = 4,
	/*
	 * The device's verbs alone, for a pool's growth policy: a CQ of
	 * @nr_cqe grown in place (ib_resize_cq()) to twice its real size
	 * plus one, against a second CQ of @nr_cqe (ib_alloc_cq()), which
	 * adds as many entries; @iterations of each, in turns.  Only with
	 * CQPOOL_CQ_PER_QP, and only where the kernel has kernel-side
	 * resize (EOPNOTSUPP elsewhere).
	 */
	CQPOOL_BENCH_GROWTH = 5,
};

/*
 * struct cqpool_bench's @flags, one at a time.  For a STORM on cqpool
 * only: on the device's shared pool (SHARED); on a fresh pool that opts
 * in to growing its CQs in place (RESIZE, as CQPOOL_F_RESIZE: EOPNOTSUPP
 * where the kernel or the driver cannot); NO_RESIZE, a fresh pool that
 * grows by new CQs alone, is what no flag gives too.
 * For CQPOOL_CQ_UPSTREAM only: ib_cq_pool_get() and ib_cq_pool_put()
 * while cqpool_takeover.ko has them, that is what a ULP pays on cqpool's
 * shared pool through the takeover (TAKEOVER); or the takeover's own
 * functions for them called directly, the same minus the livepatch's
 * redirection (TAKEOVER_DIRECT).  For a GET_PUT or CHURN on cqpool only:
 * after the same fill, the timed calls are the pool ledger's own reserve
 * and release, on a copy of the filled pool's ledger in the harness
 * (LEDGER): the ledger's part of cqpool's get and put.
 */
#define CQPOOL_BENCH_F_SHARED		(1U << 0)
#define CQPOOL_BENCH_F_NO_RESIZE	(1U << 1)
#define CQPOOL_BENCH_F_TAKEOVER		(1U << 2)
#define CQPOOL_BENCH_F_TAKEOVER_DIRECT	(1U << 3)
#define CQPOOL_BENCH_F_LEDGER		(1U << 4)
#define CQPOOL_BENCH_F_RESIZE		(1U << 5)
/* The most entries a benchmark run holds at once (struct cqpool_bench). */
#define CQPOOL_BENCH_MAX_CQES	(1U << 23)
/* The most threads of a PARALLEL run. */
#define CQPOOL_BENCH_MAX_THREADS	64
/* The largest first CQ, and the most iterations, of a GROWTH run. */
#define CQPOOL_BENCH_GROWTH_MAX		65536
#define CQPOOL_BENCH_GROWTH_ITER	1000

/**
 * struct cqpool_bench - argument of CQPOOL_IOC_BENCH
 * @size: in: sizeof(struct cqpool_bench)
 * @flags: in: one of CQPOOL_BENCH_F_SHARED, CQPOOL_BENCH_F_NO_RESIZE,
 *	CQPOOL_BENCH_F_RESIZE, CQPOOL_BENCH_F_TAKEOVER,
 *	CQPOOL_BENCH_F_TAKEOVER_DIRECT, CQPOOL_BENCH_F_LEDGER, or zero
 * @kind: in: enum cqpool_bench_kind
 * @cq_mode: in: CQPOOL_CQ_POOL (a fresh owned pool; with
 *	CQPOOL_BENCH_F_SHARED, for a STORM only, the device's shared pool of
 *	@poll_ctx, which keeps its CQs for the idle timeout; with
 *	CQPOOL_BENCH_F_RESIZE, a fresh pool that grows CQs in place;
 *	with CQPOOL_BENCH_F_LEDGER, GET_PUT or CHURN only, its ledger's
 *	calls alone),
 *	CQPOOL_CQ_UPSTREAM (with CQPOOL_BENCH_F_TAKEOVER or _DIRECT,
 *	through cqpool_takeover.ko: ENOENT while it does not have the
 *	calls),
 *	or CQPOOL_CQ_PER_QP (an ib_alloc_cq() per get, no prefill)
 * @device: in: the RDMA device
 * @poll_ctx: in: enum cqpool_poll_ctx
 * @nr_cqe: in: entries per reservation (1..2048); GROWTH: the first
 *	CQ's (1..CQPOOL_BENCH_GROWTH_MAX, and the device must hold twice
 *	its real size plus one, else EINVAL)
 * @prefill: in: GET_PUT, CHURN, PARALLEL, LATENCY: CQs per vector
 *	before timing (1..4096); STORM, GROWTH: zero
 * @iterations: in: 1..1000000 (STORM: at most CQPOOL_MAX_FD_OBJECTS;
 *	GROWTH: at most CQPOOL_BENCH_GROWTH_ITER)
 * @get_ns: out: time in the gets; PARALLEL: the wall time of the run,
 *	from the threads' start to the last one's end; LATENCY: the sum of
 *	the calls' times; GROWTH: time in ib_resize_cq()
 * @put_ns: out: time in the puts; PARALLEL: 0; LATENCY: the sum of the
 *	calls' times; GROWTH: time in the second CQ's ib_alloc_cq()
 * @cqs: out: CQs the pool held at its fullest; GROWTH: 2
 * @pad: zero
 * @cqes: out: their entries; GROWTH: the grown CQ's, real
 * @reserved_cqes: out: entries reserved at that point; GROWTH: the
 *	second CQ's, real
 * @threads: in: PARALLEL: 1..CQPOOL_BENCH_MAX_THREADS, no more on a
 *	vector than the room made on it holds at once (else ENOSPC); other
 *	kinds: zero
 * @reserved: must be zero
 * @get_p50_ns: in: zero; out: LATENCY: the median get; GET_PUT, CHURN:
 *	the median batch's time per get
 * @get_p90_ns: in: zero; out: LATENCY, GET_PUT, CHURN: its 90th percentile
 * @get_p99_ns: in: zero; out: LATENCY, GET_PUT, CHURN: its 99th percentile
 * @get_max_ns: in: zero; out: LATENCY: the slowest get; GET_PUT, CHURN:
 *	the slowest batch's time per get
 * @put_p50_ns: in: zero; out: as @get_p50_ns, for the puts
 * @put_p90_ns: in: zero; out: as @get_p90_ns, for the puts
 * @put_p99_ns: in: zero; out: as @get_p99_ns, for the puts
 * @put_max_ns: in: zero; out: as @get_max_ns, for the puts
 *
 * Times come from ktime_get_ns() around each batch of calls (LATENCY:
 * around each call).  The percentiles come after the reserved words, where
 * the struct's first version ended: a caller of that size gets none, and
 * every other caller passes them zero.  Upstream
 * CQs this makes stay with the device, as upstream keeps them.  A run
 * holds at most CQPOOL_BENCH_MAX_CQES entries at once (@prefill CQs of
 * 4096 entries on every vector, or a STORM's @iterations x @nr_cqe), else
 * ENOSPC; it ends with EINTR when its caller is killed.
 */
struct cqpool_bench {
	__u32 size;
	__u32 flags;
	__u32 kind;
	__u32 cq_mode;
	char device[CQPOOL_NAME_LEN];
	__u32 poll_ctx;
	__u32 nr_cqe;
	__u32 prefill;
	__u32 iterations;
	__u64 get_ns;
	__u64 put_ns;
	__u32 cqs;
	__u32 pad;
	__u64 cqes;
	__u64 reserved_cqes;
	__u32 threads;
	__u32 reserved[3];
	__u64 get_p50_ns;
	__u64 get_p90_ns;
	__u64 get_p99_ns;
	__u64 get_max_ns;
	__u64 put_p50_ns;
	__u64 put_p90_ns;
	__u64 put_p99_ns;
	__u64 put_max_ns;
};

/*
 * The size of each struct's first version: the least the kernel takes
 * (and, for a LIST entry, the least @entry_size).  Frozen: a struct grows
 * at its end only, and a binary built against its first version keeps
 * working.
 */
#define CQPOOL_VERSION_SIZE_VER0	32
#define CQPOOL_POOL_CREATE_SIZE_VER0	168
#define CQPOOL_DESTROY_SIZE_VER0	32
#define CQPOOL_CQ_GET_SIZE_VER0		120
#define CQPOOL_EVENTS_WATCH_SIZE_VER0	104
#define CQPOOL_EVENTS_READ_SIZE_VER0	288
#define CQPOOL_LIST_SIZE_VER0		48
#define CQPOOL_CONN_CREATE_SIZE_VER0	208
#define CQPOOL_TRAFFIC_SIZE_VER0	88
#define CQPOOL_TRIGGER_SIZE_VER0	96
#define CQPOOL_BENCH_SIZE_VER0		152
#define CQPOOL_DEVICE_INFO_SIZE_VER0	160
#define CQPOOL_POOL_INFO_SIZE_VER0	168
#define CQPOOL_CQ_INFO_SIZE_VER0	184
#define CQPOOL_CONN_INFO_SIZE_VER0	88

/*
 * _IOWR for a command that writes back into its argument, _IOW for one
 * that only takes it (the destroys, CQ_PUT, TRIGGER).
 */
#define CQPOOL_IOC_VERSION \
	_IOWR(CQPOOL_IOC_MAGIC, 0x00, struct cqpool_version)
#define CQPOOL_IOC_POOL_CREATE \
	_IOWR(CQPOOL_IOC_MAGIC, 0x01, struct cqpool_pool_create)
#define CQPOOL_IOC_POOL_DESTROY \
	_IOW(CQPOOL_IOC_MAGIC, 0x02, struct cqpool_destroy)
#define CQPOOL_IOC_CQ_GET \
	_IOWR(CQPOOL_IOC_MAGIC, 0x03, struct cqpool_cq_get)
#define CQPOOL_IOC_CQ_PUT \
	_IOW(CQPOOL_IOC_MAGIC, 0x04, struct cqpool_destroy)
#define CQPOOL_IOC_EVENTS_WATCH \
	_IOWR(CQPOOL_IOC_MAGIC, 0x05, struct cqpool_events_watch)
#define CQPOOL_IOC_EVENTS_UNWATCH \
	_IOW(CQPOOL_IOC_MAGIC, 0x06, struct cqpool_destroy)
#define CQPOOL_IOC_EVENTS_READ \
	_IOWR(CQPOOL_IOC_MAGIC, 0x07, struct cqpool_events_read)
#define CQPOOL_IOC_LIST \
	_IOWR(CQPOOL_IOC_MAGIC, 0x08, struct cqpool_list)
#define CQPOOL_IOC_CONN_CREATE \
	_IOWR(CQPOOL_IOC_MAGIC, 0x09, struct cqpool_conn_create)
#define CQPOOL_IOC_CONN_DESTROY \
	_IOW(CQPOOL_IOC_MAGIC, 0x0a, struct cqpool_destroy)
#define CQPOOL_IOC_TRAFFIC \
	_IOWR(CQPOOL_IOC_MAGIC, 0x0b, struct cqpool_traffic)
#define CQPOOL_IOC_TRIGGER \
	_IOW(CQPOOL_IOC_MAGIC, 0x0c, struct cqpool_trigger)
#define CQPOOL_IOC_BENCH \
	_IOWR(CQPOOL_IOC_MAGIC, 0x0d, struct cqpool_bench)

#endif /* _UAPI_LINUX_CQPOOL_H */
