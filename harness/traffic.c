// SPDX-License-Identifier: GPL-2.0
/*
 * Traffic over the harness's connections: SEND/RECV or RDMA WRITE from
 * the client, @depth work requests in flight per connection, reposted
 * from their ib_cqe completions in the CQs' own poll context, until a
 * count of messages or a deadline.  Counters are per connection; a run
 * reports the difference they made.
 */
#include <linux/ktime.h>

#include "conn.h"

/* Grace past a run's end before it is stopped: a slow VM is not a bug. */
#define CQH_RUN_GRACE_MS	10000
/* Longest run by count, which has no duration of its own. */
#define CQH_RUN_MAX_MS	600000

/*
 * Whether the connection will post nothing more in this run once it has
 * posted @posted messages.  A count once reached, a deadline once
 * passed, a stop or a break: each stays.
 */
static bool cqh_traffic_over_after(struct cqh_conn *c,
				   struct cqh_run *run, s64 posted)
{
	if (READ_ONCE(run->stop) || test_bit(CQH_CONN_BROKEN, &c->flags))
		return true;
	if (run->count)
		return posted >= run->count;
	return ktime_get_ns() >= run->deadline;
}

static bool cqh_traffic_over(struct cqh_conn *c, struct cqh_run *run)
{
	return cqh_traffic_over_after(c, run, atomic64_read(&c->posted));
}

/*
 * A connection is done with the run once it is over, everything it
 * posted has completed and, for SEND, the server has received what was
 * sent.  Once true this stays true, so whichever completion makes it
 * true ends the connection's part, exactly once.
 */
static void cqh_traffic_check(struct cqh_conn *c, struct cqh_run *run)
{
	if (!cqh_traffic_over(c, run))
		return;
	if (atomic64_read(&c->send_done) != atomic64_read(&c->posted))
		return;
	if (run->op == CQPOOL_OP_SEND &&
	    !test_bit(CQH_CONN_BROKEN, &c->flags) &&
	    atomic64_read(&c->recvd) < atomic64_read(&c->sent))
		return;
	if (!test_and_set_bit(CQH_CONN_FINISHED, &c->flags) &&
	    atomic_dec_and_test(&run->active))
		complete(&run->done);
}

/*
 * Takes a ticket to post one more message: false when the run is over,
 * when @depth are in flight, or, for SEND, when no receive is waiting
 * for it.  iWARP has no receiver-not-ready retry: a SEND with no receive
 * posted breaks the connection, so a SEND goes only against a credit,
 * one per receive.  The message is counted as posted before the run is
 * asked whether it is over, so that no check ever sees everything
 * complete while a message is about to go; a refused ticket is given
 * back, and every caller checks the connection afterwards.
 */
static bool cqh_traffic_ticket(struct cqh_conn *c, struct cqh_run *run)
{
	bool send = run->op == CQPOOL_OP_SEND;
	s64 posted;

	if (send && atomic_dec_if_positive(&c->credits) < 0)
		return false;
	posted = atomic64_inc_return(&c->posted);
	/* Message @posted may go if the run was not over before it. */
	if (cqh_traffic_over_after(c, run, posted - 1) ||
	    posted - atomic64_read(&c->send_done) > run->depth) {
		atomic64_dec(&c->posted);
		if (send)
			atomic_inc(&c->credits);
		return false;
	}
	return true;
}

/* Posts one message if the run wants more and may; false if it did not. */
static bool cqh_traffic_send(struct cqh_conn *c, struct cqh_run *run)
{
	struct ib_sge sge = { c->client.dma, run->msg_size,
			      c->client.pd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr.wr_cqe = &c->client.cqe,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.wr.opcode = run->op == CQPOOL_OP_WRITE ? IB_WR_RDMA_WRITE :
							   IB_WR_SEND,
		.wr.send_flags = IB_SEND_SIGNALED,
		.remote_addr = c->server.mr->iova,
		.rkey = c->server.mr->rkey,
	};

	if (!cqh_traffic_ticket(c, run))
		return false;
	if (ib_post_send(c->client.id->qp, &wr.wr, NULL)) {
		/* It will never complete: count it done, as an error. */
		set_bit(CQH_CONN_BROKEN, &c->flags);
		atomic64_inc(&c->errors);
		atomic64_inc(&c->send_done);
		return false;
	}
	return true;
}

/* Posts as many messages as the run wants and may. */
static void cqh_traffic_sends(struct cqh_conn *c, struct cqh_run *run)
{
	while (cqh_traffic_send(c, run))
		;
}

/* Keeps @run->depth receives posted at the server, as long as useful. */
static void cqh_traffic_recvs(struct cqh_conn *c, struct cqh_run *run)
{
	struct ib_sge sge = { c->server.dma, c->buf_size,
			      c->server.pd->local_dma_lkey };
	struct ib_recv_wr wr = {
		.wr_cqe = &c->server.cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	while (atomic_read(&c->recv_posted) < run->depth &&
	       !READ_ONCE(run->stop) &&
	       !test_bit(CQH_CONN_BROKEN, &c->flags) &&
	       (!run->count || atomic64_read(&c->recvd) +
			       atomic_read(&c->recv_posted) < run->count)) {
		if (ib_post_recv(c->server.id->qp, &wr, NULL)) {
			set_bit(CQH_CONN_BROKEN, &c->flags);
			atomic64_inc(&c->errors);
			break;
		}
		atomic_inc(&c->recv_posted);
		atomic_inc(&c->credits);
	}
}

static void cqh_traffic_count(struct cqh_conn *c, struct ib_wc *wc)
{
	if (wc->status == IB_WC_SUCCESS) {
		atomic64_inc(&c->completions);
		return;
	}
	if (!atomic64_fetch_inc(&c->errors))
		WRITE_ONCE(c->first_error, wc->status);
	set_bit(CQH_CONN_BROKEN, &c->flags);
}

/* A client work request completed (SEND, WRITE or a trigger's WRITE). */
static void cqh_traffic_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqh_conn *c = container_of(wc->wr_cqe, struct cqh_conn,
					     client.cqe);
	struct cqh_run *run = READ_ONCE(c->run);

	cqh_traffic_count(c, wc);
	if (!run)
		return;
	if (wc->status == IB_WC_SUCCESS)
		atomic64_inc(&c->sent);
	/* Done before the next is posted: it frees its place in the queue. */
	atomic64_inc(&c->send_done);
	cqh_traffic_sends(c, run);
	cqh_traffic_check(c, run);
}

static void cqh_traffic_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqh_conn *c = container_of(wc->wr_cqe, struct cqh_conn,
					     server.cqe);
	struct cqh_run *run = READ_ONCE(c->run);

	atomic_dec(&c->recv_posted);
	cqh_traffic_count(c, wc);
	if (!run)
		return;
	if (wc->status == IB_WC_SUCCESS)
		atomic64_inc(&c->recvd);
	cqh_traffic_recvs(c, run);
	/* The receive just posted is a credit a SEND may be waiting for. */
	cqh_traffic_sends(c, run);
	cqh_traffic_check(c, run);
}

/**
 * cqh_traffic_init() - make a connection's completions traffic's
 * @c: a new connection
 *
 * Context: any.
 */
void cqh_traffic_init(struct cqh_conn *c)
{
	c->client.cqe.done = cqh_traffic_send_done;
	c->server.cqe.done = cqh_traffic_recv_done;
}

static int cqh_traffic_valid(struct cqh_conn **conns, unsigned int n,
			     const struct cqpool_traffic *a)
{
	unsigned int i;

	if (a->op > CQPOOL_OP_WRITE || !a->msg_size || !a->depth ||
	    (!a->count && (!a->duration_ms ||
			   a->duration_ms > CQH_RUN_MAX_MS)) ||
	    (a->count && a->duration_ms))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct cqh_conn *c = conns[i];

		if (a->msg_size > c->buf_size ||
		    a->depth > c->init.cap.max_send_wr -
			       CQH_CONN_DRAIN_WRS ||
		    (a->op == CQPOOL_OP_SEND &&
		     a->depth > c->init.cap.max_recv_wr -
				CQH_CONN_DRAIN_WRS))
			return -EINVAL;
		if (test_bit(CQH_CONN_BROKEN, &c->flags))
			return -ENOTCONN;
	}
	return 0;
}

/* Ends a run that overran: its QPs go to error, which flushes them. */
static void cqh_traffic_abort(struct cqh_run *run,
			      struct cqh_conn **conns, unsigned int n)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	unsigned int i;

	WRITE_ONCE(run->stop, true);
	for (i = 0; i < n; i++) {
		if (test_bit(CQH_CONN_FINISHED, &conns[i]->flags))
			continue;
		set_bit(CQH_CONN_BROKEN, &conns[i]->flags);
		ib_modify_qp(conns[i]->client.id->qp, &attr, IB_QP_STATE);
		ib_modify_qp(conns[i]->server.id->qp, &attr, IB_QP_STATE);
	}
	if (!wait_for_completion_timeout(&run->done,
					 msecs_to_jiffies(CQH_RUN_GRACE_MS)))
		/* A late completion must not end some later run. */
		for (i = 0; i < n; i++)
			set_bit(CQH_CONN_FINISHED, &conns[i]->flags);
}

/**
 * cqh_traffic_run() - run traffic over connections, and wait for it
 * @run: the session's run; not in use
 * @conns: the connections, none broken
 * @n: how many (at least one)
 * @a: what CQPOOL_IOC_TRAFFIC asked for; its outputs are filled in
 *
 * Context: process context; sleeps for the run.  A fatal signal ends
 * it early.
 * Return: 0, -EINVAL for bad arguments, -ENOTCONN for a broken
 * connection, -ETIMEDOUT if it overran by 10 s, -EINTR if killed.
 */
int cqh_traffic_run(struct cqh_run *run, struct cqh_conn **conns,
		    unsigned int n, struct cqpool_traffic *a)
{
	u64 before_ok = 0, before_err = 0, sent = 0, ok = 0, err = 0, start;
	unsigned int i, j, limit;
	long left;
	int ret;

	ret = cqh_traffic_valid(conns, n, a);
	if (ret)
		return ret;
	run->op = a->op;
	run->msg_size = a->msg_size;
	run->depth = a->depth;
	run->count = a->count;
	run->stop = false;
	atomic_set(&run->active, n);
	reinit_completion(&run->done);
	for (i = 0; i < n; i++) {
		struct cqh_conn *c = conns[i];

		before_ok += atomic64_read(&c->completions);
		before_err += atomic64_read(&c->errors);
		atomic64_set(&c->posted, 0);
		atomic64_set(&c->sent, 0);
		atomic64_set(&c->send_done, 0);
		atomic64_set(&c->recvd, 0);
		/* Receives left from a run by duration wait for a SEND. */
		atomic_set(&c->credits, atomic_read(&c->recv_posted));
		clear_bit(CQH_CONN_FINISHED, &c->flags);
		WRITE_ONCE(c->run, run);
	}

	start = ktime_get_ns();
	run->deadline = start + (u64)a->duration_ms * NSEC_PER_MSEC;
	for (i = 0; i < n; i++) {
		if (a->op == CQPOOL_OP_SEND)
			cqh_traffic_recvs(conns[i], run);
		for (j = 0; j < a->depth; j++)
			if (!cqh_traffic_send(conns[i], run))
				break;
		/* Its completions may all have come before this. */
		cqh_traffic_check(conns[i], run);
	}

	limit = (a->count ? CQH_RUN_MAX_MS : a->duration_ms) +
		CQH_RUN_GRACE_MS;
	left = wait_for_completion_killable_timeout(&run->done,
						    msecs_to_jiffies(limit));
	ret = left < 0 ? -EINTR : !left ? -ETIMEDOUT : 0;
	if (ret)
		cqh_traffic_abort(run, conns, n);
	a->elapsed_ns = ktime_get_ns() - start;

	for (i = 0; i < n; i++) {
		WRITE_ONCE(conns[i]->run, NULL);
		sent += atomic64_read(&conns[i]->sent);
		ok += atomic64_read(&conns[i]->completions);
		err += atomic64_read(&conns[i]->errors);
	}
	a->conns = n;
	a->completions = ok - before_ok;
	a->errors = err - before_err;
	a->bytes = sent * a->msg_size;
	return ret;
}
