// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: QPs made by cqpool_rdma_create_qp() on both ends of an RDMA CM
 * connection looped back on one device (rxe0, siw0), and a SEND that
 * completes on the CQs cqpool assigned.  iWARP (siw) connects only
 * through the CM, so this is the path both kinds of device share.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irq_poll.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include <cqpool/cqpool.h>

#include "core/pool.h"
#include "../harness/conn.h"
#include "testing.h"
#include "vm_devices.h"

#define LOOP_PORT	18515
#define LOOP_MSG	64
#define LOOP_WAIT	msecs_to_jiffies(10000)

struct loop;

/**
 * struct loop_end - one end of the looped-back connection
 * @loop: the connection
 * @id: its CM id
 * @connected: completed on ESTABLISHED or on a CM error
 * @error: the CM error, if any
 * @cqe: the completion of its one work request
 * @done: completed with @cqe
 * @wc_status: status of that completion
 * @wc_len: bytes it carried
 * @wc_cq: the CQ it arrived on
 * @cq_errs: CQ_ERR events of its send CQ its QP's handler heard
 */
struct loop_end {
	struct loop *loop;
	struct rdma_cm_id *id;
	struct completion connected;
	int error;
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status wc_status;
	u32 wc_len;
	struct ib_cq *wc_cq;
	atomic_t cq_errs;
};

struct loop {
	struct cqpool *pool;
	struct ib_pd *pd;
	struct rdma_cm_id *listen;
	struct loop_end client, server;
	struct ib_qp_init_attr init;
};

static void loop_wc_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct loop_end *end = container_of(wc->wr_cqe, struct loop_end, cqe);

	end->wc_status = wc->status;
	end->wc_len = wc->byte_len;
	end->wc_cq = cq;
	complete(&end->done);
}

static int loop_create_qp(struct loop_end *end)
{
	struct ib_qp_init_attr init = end->loop->init;

	init.qp_context = end;
	return cqpool_rdma_create_qp(end->loop->pool, end->id, end->loop->pd,
				     &init, NULL);
}

static int loop_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct loop_end *end = id->context;
	struct loop *loop = end->loop;
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	int ret = 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, 2000);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		/* In the handler: the id's handler mutex is held. */
		ret = loop_create_qp(end);
		if (!ret)
			ret = rdma_connect_locked(id, &param);
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		/* @id is new: the server's end of the connection. */
		end = &loop->server;
		end->id = id;
		id->context = end;
		ret = loop_create_qp(end);
		if (!ret)
			ret = rdma_accept(id, &param);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		complete(&end->connected);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	default:
		ret = -EIO;
		break;
	}
	if (ret) {
		end->error = ret;
		complete(&end->connected);
	}
	/* Never ask the CM to destroy an id: the test owns them all. */
	return 0;
}

static void loop_end_init(struct loop *loop, struct loop_end *end)
{
	end->loop = loop;
	init_completion(&end->connected);
	init_completion(&end->done);
	end->cqe.done = loop_wc_done;
}

static void loop_teardown(struct loop *loop)
{
	struct loop_end *ends[] = { &loop->client, &loop->server };
	int i;

	if (loop->client.id && loop->client.id->qp)
		rdma_disconnect(loop->client.id);
	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		if (!ends[i]->id)
			continue;
		if (ends[i]->id->qp)
			cqpool_rdma_destroy_qp(ends[i]->id);
		rdma_destroy_id(ends[i]->id);
	}
	if (loop->listen)
		rdma_destroy_id(loop->listen);
	if (loop->pd)
		ib_dealloc_pd(loop->pd);
	if (!IS_ERR_OR_NULL(loop->pool))
		cqpool_destroy(loop->pool);
}

static const struct cqpool_attr loop_pool = {
	.poll_ctx = IB_POLL_SOFTIRQ,
	.name = "kunit-traffic",
};

/*
 * Connects two QPs from cqpool_rdma_create_qp(), each sized by @init, on
 * the case's device through the RDMA CM, with CQs from a pool of @attr.
 * False (the case failed) if it could not; loop_teardown() undoes
 * whatever was done either way.
 */
static bool loop_connect(struct kunit *test, struct loop *loop,
			 const struct cqpool_attr *attr,
			 const struct ib_qp_init_attr *init, int pd_flags)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(LOOP_PORT) };
	struct ib_device *dev = vm_device(test);
	int ret;

	sin.sin_addr.s_addr = cqh_device_ipv4(dev);
	KUNIT_EXPECT_NE_MSG(test, sin.sin_addr.s_addr, 0,
			    "no IPv4 address on %s", vm_device_name(test));
	if (!sin.sin_addr.s_addr)
		return false;
	loop->init = *init;
	loop_end_init(loop, &loop->client);
	loop_end_init(loop, &loop->server);
	loop->pool = cqpool_create(dev, attr);
	KUNIT_EXPECT_FALSE(test, IS_ERR(loop->pool));
	if (IS_ERR(loop->pool))
		return false;
	loop->pd = ib_alloc_pd(dev, pd_flags);
	KUNIT_EXPECT_FALSE(test, IS_ERR(loop->pd));
	if (IS_ERR(loop->pd)) {
		loop->pd = NULL;
		return false;
	}

	loop->listen = rdma_create_id(&init_net, loop_cm_handler,
				      &loop->server, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(loop->listen)) {
		loop->listen = NULL;
		KUNIT_FAIL(test, "rdma_create_id");
		return false;
	}
	loop->client.id = rdma_create_id(&init_net, loop_cm_handler,
					 &loop->client, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(loop->client.id)) {
		loop->client.id = NULL;
		KUNIT_FAIL(test, "rdma_create_id");
		return false;
	}
	ret = rdma_bind_addr(loop->listen, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(loop->listen, 1);
	if (!ret)
		ret = rdma_resolve_addr(loop->client.id, NULL,
					(struct sockaddr *)&sin, 2000);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret)
		return false;
	KUNIT_EXPECT_PTR_EQ(test, loop->listen->device, dev);

	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&loop->client.connected,
							  LOOP_WAIT), 0UL);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&loop->server.connected,
							  LOOP_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, loop->client.error, 0);
	KUNIT_EXPECT_EQ(test, loop->server.error, 0);
	return !loop->client.error && !loop->server.error &&
	       loop->client.id->qp && loop->server.id && loop->server.id->qp;
}

static const struct ib_qp_init_attr loop_qp_attr = {
	.cap = { .max_send_wr = 4, .max_recv_wr = 4,
		 .max_send_sge = 1, .max_recv_sge = 1 },
	.sq_sig_type = IB_SIGNAL_REQ_WR,
	.qp_type = IB_QPT_RC,
};

static void rdma_cm_qps_complete_a_send_on_pooled_cqs(struct kunit *test)
{
	struct ib_recv_wr rwr = {};
	struct ib_send_wr swr = {};
	struct cqp_pool_stats st;
	struct ib_device *dev;
	struct ib_sge sge[2];
	struct loop *loop;
	u64 dma[2];
	u8 *buf;

	loop = kunit_kzalloc(test, sizeof(*loop), GFP_KERNEL);
	buf = kunit_kzalloc(test, 2 * LOOP_MSG, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, loop);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	if (!loop_connect(test, loop, &loop_pool, &loop_qp_attr, 0))
		goto out;
	dev = loop->pd->device;

	/* Each QP got one pooled CQ for both directions. */
	KUNIT_EXPECT_PTR_EQ(test, loop->client.id->qp->send_cq,
			    loop->client.id->qp->recv_cq);
	KUNIT_EXPECT_EQ(test, cqpool_test_pool_stats(loop->pool, &st), 0);
	KUNIT_EXPECT_EQ(test, st.users, 2ULL);
	KUNIT_EXPECT_EQ(test, st.reserved, 16ULL);

	memset(buf, 0x5a, LOOP_MSG);
	dma[0] = ib_dma_map_single(dev, buf, LOOP_MSG, DMA_TO_DEVICE);
	dma[1] = ib_dma_map_single(dev, buf + LOOP_MSG, LOOP_MSG,
				   DMA_FROM_DEVICE);
	sge[0] = (struct ib_sge){ dma[0], LOOP_MSG, loop->pd->local_dma_lkey };
	sge[1] = (struct ib_sge){ dma[1], LOOP_MSG, loop->pd->local_dma_lkey };

	rwr.wr_cqe = &loop->server.cqe;
	rwr.sg_list = &sge[1];
	rwr.num_sge = 1;
	KUNIT_EXPECT_EQ(test, ib_post_recv(loop->server.id->qp, &rwr, NULL), 0);
	swr.wr_cqe = &loop->client.cqe;
	swr.sg_list = &sge[0];
	swr.num_sge = 1;
	swr.opcode = IB_WR_SEND;
	swr.send_flags = IB_SEND_SIGNALED;
	KUNIT_EXPECT_EQ(test, ib_post_send(loop->client.id->qp, &swr, NULL), 0);

	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&loop->client.done,
							  LOOP_WAIT), 0UL);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&loop->server.done,
							  LOOP_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, loop->client.wc_status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, loop->server.wc_status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, loop->server.wc_len, (u32)LOOP_MSG);
	KUNIT_EXPECT_PTR_EQ(test, loop->client.wc_cq,
			    loop->client.id->qp->send_cq);
	KUNIT_EXPECT_PTR_EQ(test, loop->server.wc_cq,
			    loop->server.id->qp->recv_cq);
	ib_dma_unmap_single(dev, dma[0], LOOP_MSG, DMA_TO_DEVICE);
	ib_dma_unmap_single(dev, dma[1], LOOP_MSG, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, memcmp(buf, buf + LOOP_MSG, LOOP_MSG), 0);
out:
	loop_teardown(loop);
}

struct cq_err_hook {
	struct cqpool_hook hook;
	atomic_t cq_err;
};

static void cq_err_hook_fn(struct cqpool_hook *hook,
			   const struct ib_event *event)
{
	if (event->event == IB_EVENT_CQ_ERR)
		atomic_inc(&container_of(hook, struct cq_err_hook,
					 hook)->cq_err);
}

static void cq_err_qp_handler(struct ib_event *event, void *context)
{
	struct loop_end *end = context;

	if (event->event == IB_EVENT_CQ_ERR &&
	    event->element.cq == end->id->qp->send_cq)
		atomic_inc(&end->cq_errs);
}

#define OVERFLOW_ROUNDS	128

/* CQs with room beyond one QP's reservation, for two more consumers. */
static const struct cqpool_attr overflow_pool = {
	.poll_ctx = IB_POLL_SOFTIRQ,
	.cq_size = 16,
	.flags = CQPOOL_F_NO_RESIZE,
	.name = "kunit-overflow",
};

/*
 * The driver may raise CQ_ERR again for a write still in flight when the
 * loop below stops, and its fan-out runs beside this thread: the counts
 * are compared once they have held still for 100 ms (a fan-out takes
 * microseconds), or after 5 s.
 */
static void cq_err_settle(struct loop *loop, struct cq_err_hook *mates)
{
	unsigned long end = jiffies + 5 * HZ;
	int seen = -1, sum;

	for (;;) {
		sum = atomic_read(&loop->client.cq_errs) +
		      atomic_read(&mates[0].cq_err) +
		      atomic_read(&mates[1].cq_err);
		if (sum == seen || !time_before(jiffies, end))
			return;
		seen = sum;
		msleep(100);
	}
}

/*
 * A real CQ overflow: polling of the client's pooled CQ is stopped and
 * RDMA WRITEs complete on it until the driver finds it full and raises
 * CQ_ERR.  It must reach the client QP's handler and both other hooks on
 * that CQ, the same number of times, and no hook on another CQ.
 */
static void cq_overflow_reaches_every_consumer_of_the_cq(struct kunit *test)
{
	struct ib_qp_init_attr init = loop_qp_attr;
	struct cq_err_hook mates[2], outsider;
	struct ib_cq *cq, *mcq[2], *ocq;
	struct ib_send_wr *bad;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	struct loop *loop;
	u64 dma;
	u8 *buf;
	int i;

	loop = kunit_kzalloc(test, sizeof(*loop), GFP_KERNEL);
	buf = kunit_kzalloc(test, 2 * LOOP_MSG, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, loop);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	init.event_handler = cq_err_qp_handler;
	init.cap.max_recv_wr = 1;
	if (!loop_connect(test, loop, &overflow_pool, &init,
			  IB_PD_UNSAFE_GLOBAL_RKEY))
		goto out;
	cq = loop->client.id->qp->send_cq;

	for (i = 0; i < 2; i++) {
		mates[i].hook.handler = cq_err_hook_fn;
		atomic_set(&mates[i].cq_err, 0);
		mcq[i] = cqpool_cq_get(loop->pool, 1, cq->comp_vector,
				       &mates[i].hook);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mcq[i]);
		KUNIT_EXPECT_PTR_EQ(test, mcq[i], cq);
	}
	outsider.hook.handler = cq_err_hook_fn;
	atomic_set(&outsider.cq_err, 0);
	ocq = cqpool_cq_get(loop->pool, 1, cq->comp_vector + 1,
			    &outsider.hook);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ocq);
	KUNIT_EXPECT_PTR_NE(test, ocq, cq);

	dma = ib_dma_map_single(loop->pd->device, buf, 2 * LOOP_MSG,
				DMA_BIDIRECTIONAL);
	sge = (struct ib_sge){ dma, 8, loop->pd->local_dma_lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = dma + LOOP_MSG;
	wr.rkey = loop->pd->unsafe_global_rkey;

	/* Completions now stay on the CQ until it overflows. */
	irq_poll_disable(&cq->iop);
	for (i = 0; i < OVERFLOW_ROUNDS && !atomic_read(&loop->client.cq_errs);
	     i++) {
		/* A full send queue just means: wait for the driver. */
		if (ib_post_send(loop->client.id->qp, &wr.wr,
				 (const struct ib_send_wr **)&bad))
			msleep(20);
		else
			usleep_range(1000, 2000);
	}
	irq_poll_enable(&cq->iop);
	ib_dma_unmap_single(loop->pd->device, dma, 2 * LOOP_MSG,
			    DMA_BIDIRECTIONAL);
	cq_err_settle(loop, mates);

	KUNIT_EXPECT_GT(test, atomic_read(&loop->client.cq_errs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&loop->server.cq_errs), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&mates[i].cq_err),
				atomic_read(&loop->client.cq_errs));
		cqpool_cq_put(mcq[i], 1, &mates[i].hook);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&outsider.cq_err), 0);
	cqpool_cq_put(ocq, 1, &outsider.hook);
out:
	loop_teardown(loop);
}

static void sqd_qp_handler(struct ib_event *event, void *context)
{
	struct loop_end *end = context;

	if (event->event == IB_EVENT_SQ_DRAINED)
		complete(&end->done);
}

/*
 * The QP's own affiliated events reach the event_handler given to
 * cqpool_rdma_create_qp(): moving it to SQD gives SQ_DRAINED.  rxe only:
 * siw maps SQD to closing the connection and raises no event.
 */
static void sqd_gives_the_qp_handler_sq_drained(struct kunit *test)
{
	struct ib_qp_init_attr init = loop_qp_attr;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_SQD,
		.en_sqd_async_notify = 1,
	};
	struct loop *loop;

	loop = kunit_kzalloc(test, sizeof(*loop), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, loop);
	init.event_handler = sqd_qp_handler;
	if (!loop_connect(test, loop, &loop_pool, &init, 0))
		goto out;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(loop->client.id->qp, &attr,
					   IB_QP_STATE |
					   IB_QP_EN_SQD_ASYNC_NOTIFY), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&loop->client.done,
							  LOOP_WAIT), 0UL);
out:
	loop_teardown(loop);
}

static void access_qp_handler(struct ib_event *event, void *context)
{
	struct loop_end *end = context;

	if (event->event == IB_EVENT_QP_ACCESS_ERR ||
	    event->event == IB_EVENT_QP_FATAL)
		complete(&end->connected);
}

/*
 * An RDMA WRITE with an rkey of another PD: siw raises QP_ACCESS_ERR (or
 * QP_FATAL) at the responder, through the handler given to
 * cqpool_rdma_create_qp(); rxe answers with a NAK instead, which the
 * requester sees as a remote access error on its pooled CQ.
 */
static void bad_rkey_is_reported_where_the_driver_reports_it(struct kunit *test)
{
	struct ib_qp_init_attr init = loop_qp_attr;
	struct ib_pd *other = NULL;
	struct ib_rdma_wr wr = {};
	struct loop *loop;
	struct ib_sge sge;
	u64 dma = 0;
	u8 *buf;

	loop = kunit_kzalloc(test, sizeof(*loop), GFP_KERNEL);
	buf = kunit_kzalloc(test, 2 * LOOP_MSG, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, loop);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	init.event_handler = access_qp_handler;
	if (!loop_connect(test, loop, &loop_pool, &init, 0))
		goto out;
	other = ib_alloc_pd(loop->pd->device, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(other)) {
		KUNIT_FAIL(test, "second PD: %ld", PTR_ERR(other));
		other = NULL;
		goto out;
	}
	/* Access errors come after ESTABLISHED: wait on it anew. */
	reinit_completion(&loop->server.connected);
	dma = ib_dma_map_single(loop->pd->device, buf, 2 * LOOP_MSG,
				DMA_BIDIRECTIONAL);
	sge = (struct ib_sge){ dma, 8, loop->pd->local_dma_lkey };
	wr.wr.wr_cqe = &loop->client.cqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = dma + LOOP_MSG;
	wr.rkey = other->unsafe_global_rkey;
	KUNIT_EXPECT_EQ(test, ib_post_send(loop->client.id->qp, &wr.wr, NULL),
			0);

	if (!strcmp(vm_device_name(test), "siw0")) {
		KUNIT_EXPECT_NE(test,
				wait_for_completion_timeout(&loop->server.connected,
							    LOOP_WAIT), 0UL);
	} else {
		KUNIT_EXPECT_NE(test,
				wait_for_completion_timeout(&loop->client.done,
							    LOOP_WAIT), 0UL);
		KUNIT_EXPECT_EQ(test, loop->client.wc_status,
				IB_WC_REM_ACCESS_ERR);
	}
out:
	if (dma)
		ib_dma_unmap_single(loop->pd->device, dma, 2 * LOOP_MSG,
				    DMA_BIDIRECTIONAL);
	loop_teardown(loop);
	if (other)
		ib_dealloc_pd(other);
}

static struct kunit_case traffic_cases[] = {
	KUNIT_CASE_PARAM(rdma_cm_qps_complete_a_send_on_pooled_cqs,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(cq_overflow_reaches_every_consumer_of_the_cq,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(sqd_gives_the_qp_handler_sq_drained,
			 rxe_device_gen_params),
	KUNIT_CASE_PARAM(bad_rkey_is_reported_where_the_driver_reports_it,
			 vm_devices_gen_params),
	{}
};

static struct kunit_suite traffic_suite = {
	.name = "cqpool_traffic",
	.exit = vm_device_exit,
	.test_cases = traffic_cases,
};

kunit_test_suite(traffic_suite);
