/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool's trace events: every decision of a pool (which CQ a reservation
 * lands on, when a CQ is made, grown, freed or kept), the async events and
 * their fan-out, a device's removal, and the takeover's gets and puts.
 * The fields are named as in debugfs ("device", "pool", "cq", "vec",
 * "size", "reserved", "users"), and they are a stable interface.
 *
 * The names are copied into fixed arrays rather than __string(): that is
 * the same on 6.1 and 6.12, where __assign_str() lost its source argument.
 * A disabled event costs its static branch: the arguments are pointers
 * the caller already holds, and every field is computed in
 * TP_fast_assign().
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cqpool

#if !defined(_CQPOOL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CQPOOL_TRACE_H

#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
/* rdma_show_ib_event(), which needs the two CM headers' enums. */
#include <trace/misc/rdma.h>

#include <cqpool/cqpool.h>

struct cqpool_cq;

/* Poll contexts by debugfs's names, for the tools that read the format. */
TRACE_DEFINE_ENUM(IB_POLL_DIRECT);
TRACE_DEFINE_ENUM(IB_POLL_SOFTIRQ);
TRACE_DEFINE_ENUM(IB_POLL_WORKQUEUE);
TRACE_DEFINE_ENUM(IB_POLL_UNBOUND_WORKQUEUE);
#define cqpool_show_poll_ctx(x)						\
	__print_symbolic(x, { IB_POLL_DIRECT, "direct" },		\
			 { IB_POLL_SOFTIRQ, "softirq" },		\
			 { IB_POLL_WORKQUEUE, "workqueue" },		\
			 { IB_POLL_UNBOUND_WORKQUEUE, "unbound_workqueue" })

/* The device and pool of a CQ, into the fields "device" and "pool". */
#define cqpool_trace_names(ccq)						\
	do {								\
		const struct cqpool *__pool = (ccq)->pool;		\
									\
		strscpy(__entry->device,				\
			dev_name(&__pool->cdev->ibdev->dev),		\
			IB_DEVICE_NAME_MAX);				\
		strscpy(__entry->pool, __pool->name, CQPOOL_NAME_MAX);	\
	} while (0)

/*
 * A reservation made or given back: the CQ's entries free and its users
 * after it.  @grown is how many times the get grew the pool (a new CQ or
 * a resize) before it found room; a put has 0.
 */
DECLARE_EVENT_CLASS(cqpool_reservation,
	TP_PROTO(const struct cqpool_cq *ccq, unsigned int nr_cqe,
		 unsigned int grown),
	TP_ARGS(ccq, nr_cqe, grown),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__array(char, pool, CQPOOL_NAME_MAX)
		__field(u32, cq)
		__field(u32, vec)
		__field(u32, nr_cqe)
		__field(u32, free)
		__field(u32, users)
		__field(u32, grown)
	),
	TP_fast_assign(
		cqpool_trace_names(ccq);
		__entry->cq = ccq->cq->res.id;
		__entry->vec = ccq->ledger.vec;
		__entry->nr_cqe = nr_cqe;
		__entry->free = ccq->ledger.size - ccq->ledger.reserved;
		__entry->users = ccq->ledger.users;
		__entry->grown = grown;
	),
	TP_printk("device=%s pool=%s cq=%u vec=%u nr_cqe=%u free=%u users=%u grown=%u",
		  __entry->device, __entry->pool, __entry->cq, __entry->vec,
		  __entry->nr_cqe, __entry->free, __entry->users,
		  __entry->grown)
);

DEFINE_EVENT(cqpool_reservation, cqpool_get,
	TP_PROTO(const struct cqpool_cq *ccq, unsigned int nr_cqe,
		 unsigned int grown),
	TP_ARGS(ccq, nr_cqe, grown)
);

DEFINE_EVENT(cqpool_reservation, cqpool_put,
	TP_PROTO(const struct cqpool_cq *ccq, unsigned int nr_cqe,
		 unsigned int grown),
	TP_ARGS(ccq, nr_cqe, grown)
);

/* A CQ's size changing hands: allocated (@old 0), or resized in place. */
DECLARE_EVENT_CLASS(cqpool_cq_size,
	TP_PROTO(const struct cqpool_cq *ccq, unsigned int old),
	TP_ARGS(ccq, old),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__array(char, pool, CQPOOL_NAME_MAX)
		__field(u32, cq)
		__field(u32, vec)
		__field(u32, old)
		__field(u32, size)
	),
	TP_fast_assign(
		cqpool_trace_names(ccq);
		__entry->cq = ccq->cq->res.id;
		__entry->vec = ccq->ledger.vec;
		__entry->old = old;
		__entry->size = ccq->cq->cqe;
	),
	TP_printk("device=%s pool=%s cq=%u vec=%u old=%u size=%u",
		  __entry->device, __entry->pool, __entry->cq, __entry->vec,
		  __entry->old, __entry->size)
);

DEFINE_EVENT(cqpool_cq_size, cqpool_cq_alloc,
	TP_PROTO(const struct cqpool_cq *ccq, unsigned int old),
	TP_ARGS(ccq, old)
);

DEFINE_EVENT(cqpool_cq_size, cqpool_cq_resize,
	TP_PROTO(const struct cqpool_cq *ccq, unsigned int old),
	TP_ARGS(ccq, old)
);

/*
 * An idle CQ freed, or kept by a shrink (keep_idle_cqs) although idle for
 * longer than the timeout: how long it has been idle, by the pool's clock.
 */
DECLARE_EVENT_CLASS(cqpool_cq_idle,
	TP_PROTO(const struct cqpool_cq *ccq),
	TP_ARGS(ccq),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__array(char, pool, CQPOOL_NAME_MAX)
		__field(u32, cq)
		__field(u32, vec)
		__field(u32, size)
		__field(u64, idle_ms)
	),
	TP_fast_assign(
		cqpool_trace_names(ccq);
		__entry->cq = ccq->cq->res.id;
		__entry->vec = ccq->ledger.vec;
		__entry->size = ccq->cq->cqe;
		__entry->idle_ms = cqpool_ms_since(ccq->ledger.idle_since);
	),
	TP_printk("device=%s pool=%s cq=%u vec=%u size=%u idle_ms=%llu",
		  __entry->device, __entry->pool, __entry->cq, __entry->vec,
		  __entry->size, __entry->idle_ms)
);

DEFINE_EVENT(cqpool_cq_idle, cqpool_cq_free,
	TP_PROTO(const struct cqpool_cq *ccq),
	TP_ARGS(ccq)
);

DEFINE_EVENT(cqpool_cq_idle, cqpool_cq_keep,
	TP_PROTO(const struct cqpool_cq *ccq),
	TP_ARGS(ccq)
);

/* An async event of a pooled CQ, and the hooks it reached. */
TRACE_EVENT(cqpool_cq_event,
	TP_PROTO(const struct cqpool_cq *ccq, enum ib_event_type event,
		 unsigned int delivered),
	TP_ARGS(ccq, event, delivered),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__array(char, pool, CQPOOL_NAME_MAX)
		__field(u32, cq)
		__field(u32, event)
		__field(u32, delivered)
	),
	TP_fast_assign(
		cqpool_trace_names(ccq);
		__entry->cq = ccq->cq->res.id;
		__entry->event = event;
		__entry->delivered = delivered;
	),
	TP_printk("device=%s pool=%s cq=%u event=%s delivered=%u",
		  __entry->device, __entry->pool, __entry->cq,
		  rdma_show_ib_event(__entry->event), __entry->delivered)
);

/* An unaffiliated event, the device handlers it reached and masked. */
TRACE_EVENT(cqpool_device_event,
	TP_PROTO(const struct ib_device *ibdev, enum ib_event_type event,
		 unsigned int delivered, unsigned int masked),
	TP_ARGS(ibdev, event, delivered, masked),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__field(u32, event)
		__field(u32, delivered)
		__field(u32, masked)
	),
	TP_fast_assign(
		strscpy(__entry->device, dev_name(&ibdev->dev),
			IB_DEVICE_NAME_MAX);
		__entry->event = event;
		__entry->delivered = delivered;
		__entry->masked = masked;
	),
	TP_printk("device=%s event=%s delivered=%u masked=%u",
		  __entry->device, rdma_show_ib_event(__entry->event),
		  __entry->delivered, __entry->masked)
);

/*
 * A device's removal: started when ib_core calls cqpool's remove (the
 * pools it has, the reservations still out), finished when the last of
 * them is back and cqpool lets go of the device, which is what ib_core's
 * unregistration waits for.
 */
TRACE_EVENT(cqpool_remove_start,
	TP_PROTO(const struct ib_device *ibdev, unsigned int pools,
		 unsigned long users),
	TP_ARGS(ibdev, pools, users),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__field(u32, pools)
		__field(unsigned long, users)
	),
	TP_fast_assign(
		strscpy(__entry->device, dev_name(&ibdev->dev),
			IB_DEVICE_NAME_MAX);
		__entry->pools = pools;
		__entry->users = users;
	),
	TP_printk("device=%s pools=%u users=%lu", __entry->device,
		  __entry->pools, __entry->users)
);

TRACE_EVENT(cqpool_remove_finish,
	TP_PROTO(const struct ib_device *ibdev, u64 removed_ns),
	TP_ARGS(ibdev, removed_ns),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__field(u64, waited_ms)
	),
	TP_fast_assign(
		strscpy(__entry->device, dev_name(&ibdev->dev),
			IB_DEVICE_NAME_MAX);
		__entry->waited_ms = div_u64(ktime_get_ns() - removed_ns,
					     NSEC_PER_MSEC);
	),
	TP_printk("device=%s waited_ms=%llu", __entry->device,
		  __entry->waited_ms)
);

/*
 * ib_cq_pool_get() and ib_cq_pool_put() through the takeover: @cq is the
 * CQ's restrack id, or 0 for a get that failed (@err).  A put is
 * "cqpool"'s (made through the takeover), "upstream"'s (made before the
 * patch), or "foreign" (a cqpool CQ put with entries the takeover did not
 * reserve on it: a ULP's bug, refused).
 */
TRACE_EVENT(cqpool_takeover_get,
	TP_PROTO(const struct ib_device *ibdev, const struct ib_cq *cq,
		 unsigned int nr_cqe, int vector_hint,
		 enum ib_poll_context poll_ctx),
	TP_ARGS(ibdev, cq, nr_cqe, vector_hint, poll_ctx),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__field(u32, cq)
		__field(u32, nr_cqe)
		__field(int, hint)
		__field(u32, poll_ctx)
		__field(int, err)
	),
	TP_fast_assign(
		strscpy(__entry->device, dev_name(&ibdev->dev),
			IB_DEVICE_NAME_MAX);
		__entry->cq = IS_ERR(cq) ? 0 : cq->res.id;
		__entry->nr_cqe = nr_cqe;
		__entry->hint = vector_hint;
		__entry->poll_ctx = poll_ctx;
		__entry->err = PTR_ERR_OR_ZERO(cq);
	),
	TP_printk("device=%s cq=%u nr_cqe=%u hint=%d ctx=%s err=%d",
		  __entry->device, __entry->cq, __entry->nr_cqe,
		  __entry->hint, cqpool_show_poll_ctx(__entry->poll_ctx),
		  __entry->err)
);

TRACE_EVENT(cqpool_takeover_put,
	TP_PROTO(const struct ib_cq *cq, unsigned int nr_cqe, const char *whose),
	TP_ARGS(cq, nr_cqe, whose),
	TP_STRUCT__entry(
		__array(char, device, IB_DEVICE_NAME_MAX)
		__field(u32, cq)
		__field(u32, nr_cqe)
		__array(char, whose, 12)
	),
	TP_fast_assign(
		strscpy(__entry->device, dev_name(&cq->device->dev),
			IB_DEVICE_NAME_MAX);
		__entry->cq = cq->res.id;
		__entry->nr_cqe = nr_cqe;
		strscpy(__entry->whose, whose, sizeof(__entry->whose));
	),
	TP_printk("device=%s cq=%u nr_cqe=%u whose=%s", __entry->device,
		  __entry->cq, __entry->nr_cqe, __entry->whose)
);

#endif /* _CQPOOL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cqpool_trace
#include <trace/define_trace.h>
