/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connections of the harness: RC QP pairs joined through the RDMA CM,
 * with CQs from cqpool, from upstream's pool or one per QP (conn.c), and
 * the traffic that runs over them (traffic.c).
 */
#ifndef CQH_CONN_H
#define CQH_CONN_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <rdma/rdma_cm.h>
#include "uapi/linux/cqpool.h"

#include <cqpool/cqpool.h>

#include "cq_source.h"

struct cqh_conn;

/* Work requests each queue has beyond its depth: ib_drain_qp()'s own. */
#define CQH_CONN_DRAIN_WRS	1

/**
 * struct cqh_run - one CQPOOL_IOC_TRAFFIC, shared by its connections
 * @op: enum cqpool_traffic_op
 * @msg_size: bytes per message
 * @depth: work requests in flight per connection
 * @count: messages per connection; 0 until @deadline
 * @deadline: ktime_get_ns() after which no new message is posted
 * @stop: set to end the run early: nothing more is posted
 * @active: connections still running
 * @done: completed when @active reaches zero
 *
 * It lives as long as the session, so a completion that arrives late
 * (after a timed-out run) never touches freed memory.
 */
struct cqh_run {
	u32 op;
	u32 msg_size;
	u32 depth;
	u64 count;
	u64 deadline;
	bool stop;
	atomic_t active;
	struct completion done;
};

/**
 * struct cqh_conn_end - one QP of a connection
 * @conn: the connection
 * @id: its CM id
 * @pd: its protection domain
 * @src: where @cq comes from
 * @cq: its CQ, for both directions
 * @hook: on @cq, for its events (CQPOOL_CQ_POOL only)
 * @buf: its traffic buffer, of the connection's @buf_size
 * @dma: @buf, mapped
 * @cqe: completions of the work requests posted from here
 * @mr: the server's: @buf registered for RDMA WRITE, the only memory its
 *	rkey reaches
 * @reg_cqe: completion of @mr's registration
 * @reg_done: completed with it
 * @reg_status: its status
 */
struct cqh_conn_end {
	struct cqh_conn *conn;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct cqh_cq_source src;
	struct ib_cq *cq;
	struct cqpool_hook hook;
	void *buf;
	u64 dma;
	struct ib_cqe cqe;
	struct ib_mr *mr;
	struct ib_cqe reg_cqe;
	struct completion reg_done;
	enum ib_wc_status reg_status;
};

/* struct cqh_conn flags bits */
enum {
	CQH_CONN_BROKEN,	/* a trigger or an error: no more traffic */
	CQH_CONN_FINISHED,	/* done with the current run */
};

/**
 * struct cqh_conn - an RC QP pair
 * @mode: enum cqpool_cq_mode
 * @pool: with CQPOOL_CQ_POOL, an owned pool for both ends, or NULL
 * @poll_ctx: poll context of the CQs
 * @nr_cqe: entries each QP reserves
 * @vector_hint: as asked
 * @buf_size: bytes of each end's traffic buffer
 * @init: QP attributes of both ends: each queue as deep as asked, plus
 *	CQH_CONN_DRAIN_WRS
 * @listen: the server's listening CM id
 * @client: the client end
 * @server: the server end
 * @cm_lock: held by the CM handlers of both ends while they run; protects
 *	@dying and, until it is set, what the handlers make
 * @dying: set by cqh_conn_destroy(): handlers do nothing more
 * @established: ends ESTABLISHED
 * @connected: completed when both are, or on a CM error
 * @error: the first CM error
 * @setup_ns: time to connect
 * @flags: CQH_CONN_* bits
 * @run: the run in progress; NULL between runs
 * @posted: client work requests posted in the current run
 * @sent: of those, completed successfully
 * @send_done: of those, completed either way
 * @recv_posted: receives posted at the server and not yet completed
 * @recvd: receives completed successfully in the current run
 * @credits: receives posted that no SEND has been posted against
 * @completions: successful completions over all runs
 * @errors: error completions over all runs
 * @first_error: status of the first of them
 * @qp_events: async events of its QPs
 * @cq_events: async events its hooks heard
 * @cookie: random, in the client's connect request: the listener takes
 *	no request without it
 */
struct cqh_conn {
	u32 mode;
	struct cqpool *pool;
	enum ib_poll_context poll_ctx;
	unsigned int nr_cqe;
	int vector_hint;
	u32 buf_size;
	struct ib_qp_init_attr init;
	struct rdma_cm_id *listen;
	struct cqh_conn_end client, server;
	struct mutex cm_lock;		/* see above */
	bool dying;
	atomic_t established;
	struct completion connected;
	int error;
	u64 setup_ns;
	unsigned long flags;
	struct cqh_run *run;
	atomic64_t posted, sent, send_done;
	atomic_t recv_posted;
	atomic64_t recvd;
	atomic_t credits;
	atomic64_t completions, errors;
	int first_error;
	atomic64_t qp_events, cq_events;
	u64 cookie;
};

struct cqh_conn *cqpool_conn_create(const struct cqpool_conn_create *a,
				    struct cqpool *pool);
void cqh_conn_destroy(struct cqh_conn *c);
bool cqh_conn_device_gone(struct cqh_conn *c);
void cqpool_conn_info(struct cqh_conn *c, struct cqpool_conn_info *info);
int cqh_conn_trigger(struct cqh_conn *c, u32 kind);

void cqh_traffic_init(struct cqh_conn *c);
int cqh_traffic_run(struct cqh_run *run, struct cqh_conn **conns,
		    unsigned int n, struct cqpool_traffic *a);

__be32 cqh_device_ipv4(struct ib_device *dev);

#endif /* CQH_CONN_H */
