// SPDX-License-Identifier: GPL-2.0
/*
 * Connections of the /dev/cqpool harness: an RC QP pair joined through
 * the RDMA CM on the IPv4 addresses of the devices' netdevs, looped back
 * on one device or between two.  The CM is the one way in that RoCE
 * (rxe) and iWARP (siw) share.  Each QP takes one CQ for both directions,
 * as the ULPs do, from cqpool, from upstream's ib_cq_pool_get() or from
 * ib_alloc_cq(), so the three can be compared on the same traffic.
 */
#include <linux/in.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/ktime.h>

#include <cqpool/cqpool.h>

#include "conn.h"
#include "testing.h"

#define CQH_CONN_TIMEOUT	msecs_to_jiffies(10000)
#define CQH_RESOLVE_MS	2000

/**
 * cqh_device_ipv4() - the IPv4 address of the netdev under a device
 * @dev: an RDMA device
 *
 * Context: any.
 * Return: the first address of the first netdev of @dev, or 0.
 */
__be32 cqh_device_ipv4(struct ib_device *dev)
{
	struct net_device *nd;
	__be32 addr = 0;

	rcu_read_lock();
	for_each_netdev_rcu(&init_net, nd) {
		struct ib_device *owner;
		struct in_device *in;
		struct in_ifaddr *ifa;

		if (addr)
			break;
		owner = ib_device_get_by_netdev(nd, RDMA_DRIVER_UNKNOWN);
		if (!owner)
			continue;
		in = __in_dev_get_rcu(nd);
		ifa = in ? rcu_dereference(in->ifa_list) : NULL;
		if (owner == dev && ifa)
			addr = ifa->ifa_local;
		ib_device_put(owner);
	}
	rcu_read_unlock();
	return addr;
}
EXPORT_SYMBOL_NS_GPL(cqh_device_ipv4, CQPOOL_HARNESS);

static void cqh_conn_qp_event(struct ib_event *event, void *context)
{
	struct cqh_conn *c = ((struct cqh_conn_end *)context)->conn;

	atomic64_inc(&c->qp_events);
	if (event->event == IB_EVENT_QP_FATAL ||
	    event->event == IB_EVENT_QP_REQ_ERR ||
	    event->event == IB_EVENT_QP_ACCESS_ERR)
		set_bit(CQH_CONN_BROKEN, &c->flags);
}

/*
 * Atomic context: under the CQ's hook lock.  DEVICE_FATAL (the device is
 * going) stops traffic, so that the session can give the connection back.
 */
static void cqh_conn_cq_event(struct cqpool_hook *hook,
			      const struct ib_event *event)
{
	struct cqh_conn *c = container_of(hook, struct cqh_conn_end,
					     hook)->conn;

	atomic64_inc(&c->cq_events);
	if (event->event == IB_EVENT_DEVICE_FATAL)
		set_bit(CQH_CONN_BROKEN, &c->flags);
}

/* cqpool's CQs carry a hook for their events; the others have none. */
static struct cqpool_hook *cqh_conn_hook(struct cqh_conn *c,
					 struct cqh_conn_end *end)
{
	return c->mode == CQPOOL_CQ_POOL ? &end->hook : NULL;
}

/*
 * Gives @end a PD, a CQ and a QP on its CM id's device; called by the
 * CM handler (the id's handler mutex is held).  The CM id keeps the
 * device until the session lets go of the connection, which it does when
 * the device is removed.  No PD has a global rkey: RDMA WRITE traffic
 * reaches the server's buffer through its own registration
 * (cqh_conn_register()), and nothing else.
 */
static int cqh_conn_create_qp(struct cqh_conn_end *end)
{
	struct cqh_conn *c = end->conn;
	struct ib_device *dev = end->id->device;
	struct ib_qp_init_attr init = c->init;
	int ret;

	end->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(end->pd)) {
		ret = PTR_ERR(end->pd);
		end->pd = NULL;
		return ret;
	}
	ret = cqh_cq_source_init(&end->src, c->mode, dev, c->pool,
				 c->poll_ctx);
	if (ret)
		return ret;
	end->hook.handler = cqh_conn_cq_event;
	end->cq = cqh_cq_source_get(&end->src, c->nr_cqe, c->vector_hint,
				    cqh_conn_hook(c, end));
	if (IS_ERR(end->cq)) {
		ret = PTR_ERR(end->cq);
		end->cq = NULL;
		return ret;
	}
	init.send_cq = end->cq;
	init.recv_cq = end->cq;
	init.qp_context = end;
	return rdma_create_qp(end->id, end->pd, &init);
}

static const struct rdma_conn_param cqh_conn_param = {
	.responder_resources = 1,
	.initiator_depth = 1,
	.retry_count = 7,
	.rnr_retry_count = 7,
};

static int cqh_conn_cm_event(struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = cqh_conn_param;
	struct cqh_conn_end *end = id->context;
	struct cqh_conn *c = end->conn;
	int ret = 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, CQH_RESOLVE_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = cqh_conn_create_qp(end);
		param.private_data = &c->cookie;
		param.private_data_len = sizeof(c->cookie);
		if (!ret)
			ret = rdma_connect_locked(id, &param);
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		/*
		 * @id is new: the server's end.  The listener takes one
		 * request, and only its client's: anyone may dial the port.
		 */
		if (ev->param.conn.private_data_len < sizeof(c->cookie) ||
		    memcmp(ev->param.conn.private_data, &c->cookie,
			   sizeof(c->cookie)))
			return -EACCES;	/* the CM destroys @id */
		end = &c->server;
		if (end->id)
			return -EBUSY;
		end->id = id;
		id->context = end;
		ret = cqh_conn_create_qp(end);
		if (!ret)
			ret = rdma_accept(id, &param);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (atomic_inc_return(&c->established) == 2)
			complete(&c->connected);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		set_bit(CQH_CONN_BROKEN, &c->flags);
		ret = -ECONNREFUSED;
		break;
	default:
		/* Unreachable, address or route error, device removal, ... */
		set_bit(CQH_CONN_BROKEN, &c->flags);
		ret = ev->status < 0 ? ev->status : -EHOSTUNREACH;
		break;
	}
	if (ret) {
		cmpxchg(&c->error, 0, ret);
		complete(&c->connected);
	}
	/* Never ask the CM to destroy an id: the connection owns them. */
	return 0;
}

/*
 * The CM calls this from its own work, which a killed or timed-out
 * connect does not wait for: once cqh_conn_destroy() has marked the
 * connection dying under @cm_lock, no handler is making anything and
 * none will, so what the handlers made can be taken apart.
 */
static int cqh_conn_cm_handler(struct rdma_cm_id *id,
			       struct rdma_cm_event *ev)
{
	struct cqh_conn *c = ((struct cqh_conn_end *)id->context)->conn;
	int ret = 0;

	mutex_lock(&c->cm_lock);
	if (!c->dying)
		ret = cqh_conn_cm_event(id, ev);
	else if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ret = -ECONNREFUSED;	/* the CM destroys the new id */
	mutex_unlock(&c->cm_lock);
	return ret;
}

/* Undoes cqh_conn_create_qp() and destroys the end's CM id. */
static void cqh_conn_end_release(struct cqh_conn *c,
				 struct cqh_conn_end *end)
{
	struct ib_device *dev = end->id ? end->id->device : NULL;

	if (end->id && end->id->qp) {
		/* Every completion is in before the CQ is given back. */
		ib_drain_qp(end->id->qp);
		rdma_destroy_qp(end->id);
	}
	if (end->mr)
		ib_dereg_mr(end->mr);
	if (end->cq)
		cqh_cq_source_put(&end->src, end->cq, c->nr_cqe,
				  cqh_conn_hook(c, end));
	end->cq = NULL;
	cqh_cq_source_exit(&end->src);
	if (end->buf) {
		ib_dma_unmap_single(dev, end->dma, c->buf_size,
				    DMA_BIDIRECTIONAL);
		kfree(end->buf);
		end->buf = NULL;
	}
	if (end->pd)
		ib_dealloc_pd(end->pd);
	if (end->id)
		rdma_destroy_id(end->id);
}

/**
 * cqh_conn_device_gone() - whether a connection's device is going
 * @c: the connection
 *
 * Context: process context; not concurrently with cqh_conn_destroy().
 * Return: true once cqpool no longer serves the device of either end.
 */
bool cqh_conn_device_gone(struct cqh_conn *c)
{
	const struct cqh_conn_end *ends[] = { &c->client, &c->server };
	int i;

	for (i = 0; i < ARRAY_SIZE(ends); i++)
		if (ends[i]->id && ends[i]->id->device &&
		    !cqpool_test_device_served(ends[i]->id->device))
			return true;
	return false;
}

/**
 * cqh_conn_destroy() - disconnect and free a connection
 * @c: the connection, connected or half made
 *
 * Context: process context; sleeps until its QPs are drained.
 */
void cqh_conn_destroy(struct cqh_conn *c)
{
	mutex_lock(&c->cm_lock);
	c->dying = true;
	mutex_unlock(&c->cm_lock);
	/* No CONNECT_REQUEST can run once the listener is gone. */
	if (c->listen)
		rdma_destroy_id(c->listen);
	if (c->client.id && c->client.id->qp)
		rdma_disconnect(c->client.id);
	cqh_conn_end_release(c, &c->client);
	cqh_conn_end_release(c, &c->server);
	kfree(c);
}

/* Gives @end its traffic buffer, mapped for either direction. */
static int cqh_conn_buffer(struct cqh_conn *c,
			   struct cqh_conn_end *end)
{
	struct ib_device *dev = end->id->device;

	end->buf = kzalloc(c->buf_size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!end->buf)
		return -ENOMEM;
	end->dma = ib_dma_map_single(dev, end->buf, c->buf_size,
				     DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, end->dma)) {
		kfree(end->buf);
		end->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void cqh_conn_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cqh_conn_end *end = container_of(wc->wr_cqe,
						   struct cqh_conn_end,
						   reg_cqe);

	end->reg_status = wc->status;
	complete(&end->reg_done);
}

/*
 * Registers @end's buffer, and only it, for the peer's RDMA WRITEs: a
 * fast registration on @end's own QP, whose completion is waited for.
 */
static int cqh_conn_register(struct cqh_conn *c,
			     struct cqh_conn_end *end)
{
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.wr.wr_cqe = &end->reg_cqe,
		.wr.send_flags = IB_SEND_SIGNALED,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	struct scatterlist sg;
	int ret;

	end->mr = ib_alloc_mr(end->pd, IB_MR_TYPE_MEM_REG,
			      DIV_ROUND_UP(c->buf_size, PAGE_SIZE) + 1);
	if (IS_ERR(end->mr)) {
		ret = PTR_ERR(end->mr);
		end->mr = NULL;
		return ret;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = end->dma;
	sg_dma_len(&sg) = c->buf_size;
	if (ib_map_mr_sg(end->mr, &sg, 1, NULL, PAGE_SIZE) != 1)
		return -EINVAL;
	end->reg_cqe.done = cqh_conn_reg_done;
	init_completion(&end->reg_done);
	wr.mr = end->mr;
	wr.key = end->mr->rkey;
	ret = ib_post_send(end->id->qp, &wr.wr, NULL);
	if (ret)
		return ret;
	/* On a timeout, the drain of the connection's release flushes it. */
	if (!wait_for_completion_timeout(&end->reg_done, CQH_CONN_TIMEOUT))
		return -ETIMEDOUT;
	return end->reg_status == IB_WC_SUCCESS ? 0 : -EIO;
}

/* The IPv4 address of device @name, with its max_cqe; 0 if none. */
static int cqh_conn_addr(const char *name, unsigned int nr_cqe,
			 struct sockaddr_in *sin)
{
	struct ib_device *dev;
	int ret = 0;

	dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!dev)
		return -ENODEV;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = cqh_device_ipv4(dev);
	if (nr_cqe > dev->attrs.max_cqe)
		ret = -EINVAL;
	else if (!sin->sin_addr.s_addr)
		ret = -EADDRNOTAVAIL;
	ib_device_put(dev);
	return ret;
}

static bool cqh_conn_valid(const struct cqpool_conn_create *a,
			   struct cqpool *pool)
{
	return a->cq_mode <= CQPOOL_CQ_PER_QP &&
	       a->poll_ctx <= CQPOOL_POLL_UNBOUND_WORKQUEUE &&
	       a->send_depth >= 1 && a->send_depth <= CQPOOL_MAX_DEPTH &&
	       a->recv_depth >= 1 && a->recv_depth <= CQPOOL_MAX_DEPTH &&
	       (!a->nr_cqe || a->nr_cqe >= a->send_depth + a->recv_depth) &&
	       a->vector_hint >= -1 && a->msg_size <= CQPOOL_MAX_MSG &&
	       !a->pad &&
	       memchr(a->device, 0, CQPOOL_NAME_LEN) &&
	       memchr(a->peer, 0, CQPOOL_NAME_LEN) &&
	       (!pool || (a->cq_mode == CQPOOL_CQ_POOL && !a->peer[0]));
}

/**
 * cqpool_conn_create() - connect an RC QP pair
 * @a: what CQPOOL_IOC_CONN_CREATE asked for; @a->setup_ns is set
 * @pool: with CQPOOL_CQ_POOL on one device, an owned pool; else NULL
 *
 * Context: process context; sleeps until connected (at most 10 s).
 * Return: the connection, or an ERR_PTR: -EINVAL for bad arguments,
 * -ENODEV for an unknown device, -EADDRNOTAVAIL for a device without an
 * IPv4 address, -EBUSY for upstream's pool while cqpool_takeover.ko has
 * it, -ETIMEDOUT, -EINTR, or what the CM or a verb said.
 */
struct cqh_conn *cqpool_conn_create(const struct cqpool_conn_create *a,
				    struct cqpool *pool)
{
	struct sockaddr_in src = {}, dst = {};
	u64 start = ktime_get_ns();
	struct cqh_conn *c;
	long left;
	int ret;

	if (!cqh_conn_valid(a, pool))
		return ERR_PTR(-EINVAL);
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->mode = a->cq_mode;
	c->pool = pool;
	c->poll_ctx = a->poll_ctx;
	c->nr_cqe = a->nr_cqe ?: a->send_depth + a->recv_depth;
	c->vector_hint = a->vector_hint;
	c->buf_size = a->msg_size ?: 4096;
	/*
	 * Each queue has a slot more than its traffic may fill, as a ULP's
	 * has: ib_drain_qp() posts into both, and a queue still full at the
	 * teardown (a trigger's work request, a run cut short) would refuse
	 * it.  6.12's rxe, which flushes from a task, leaves it full then.
	 */
	c->init.cap.max_send_wr = a->send_depth + CQH_CONN_DRAIN_WRS;
	c->init.cap.max_recv_wr = a->recv_depth + CQH_CONN_DRAIN_WRS;
	c->init.cap.max_send_sge = 1;
	c->init.cap.max_recv_sge = 1;
	c->init.sq_sig_type = IB_SIGNAL_REQ_WR;
	c->init.qp_type = IB_QPT_RC;
	c->init.event_handler = cqh_conn_qp_event;
	c->client.conn = c;
	c->server.conn = c;
	c->cookie = get_random_u64();
	cqh_traffic_init(c);
	init_completion(&c->connected);
	mutex_init(&c->cm_lock);

	ret = cqh_conn_addr(a->device, c->nr_cqe, &src);
	if (!ret)
		ret = cqh_conn_addr(a->peer[0] ? a->peer : a->device,
				    c->nr_cqe, &dst);
	if (ret)
		goto out;

	c->listen = rdma_create_id(&init_net, cqh_conn_cm_handler,
				   &c->server, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->listen)) {
		ret = PTR_ERR(c->listen);
		c->listen = NULL;
		goto out;
	}
	c->client.id = rdma_create_id(&init_net, cqh_conn_cm_handler,
				      &c->client, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->client.id)) {
		ret = PTR_ERR(c->client.id);
		c->client.id = NULL;
		goto out;
	}
	/* Port 0: the CM picks a free one, which the client then dials. */
	ret = rdma_bind_addr(c->listen, (struct sockaddr *)&dst);
	if (!ret)
		ret = rdma_listen(c->listen, 1);
	if (ret)
		goto out;
	dst.sin_port = ((struct sockaddr_in *)
			&c->listen->route.addr.src_addr)->sin_port;
	ret = rdma_resolve_addr(c->client.id,
				a->peer[0] ? (struct sockaddr *)&src : NULL,
				(struct sockaddr *)&dst, CQH_RESOLVE_MS);
	if (ret)
		goto out;

	left = wait_for_completion_killable_timeout(&c->connected,
						    CQH_CONN_TIMEOUT);
	ret = left < 0 ? -EINTR : !left ? -ETIMEDOUT : c->error;
	if (!ret && atomic_read(&c->established) != 2)
		ret = -ECONNREFUSED;
	if (!ret)
		ret = cqh_conn_buffer(c, &c->client);
	if (!ret)
		ret = cqh_conn_buffer(c, &c->server);
	if (!ret)
		ret = cqh_conn_register(c, &c->server);
	if (ret)
		goto out;
	c->setup_ns = ktime_get_ns() - start;
	return c;
out:
	cqh_conn_destroy(c);
	return ERR_PTR(ret);
}

/**
 * cqpool_conn_info() - what a connection is and what it did
 * @c: the connection
 * @info: filled in but for @info->id
 *
 * Context: any; the caller keeps @c alive.
 */
void cqpool_conn_info(struct cqh_conn *c, struct cqpool_conn_info *info)
{
	const struct cqh_conn_end *ends[] = { &c->client, &c->server };
	struct ib_cq *cq[2];
	int i;

	for (i = 0; i < 2; i++)
		cq[i] = ends[i]->cq;
	info->cq_mode = c->mode;
	info->client_qpn = c->client.id->qp->qp_num;
	info->server_qpn = c->server.id->qp->qp_num;
	info->client_cq_id = cq[0]->res.id;
	info->server_cq_id = cq[1]->res.id;
	info->client_cqe = cq[0]->cqe;
	info->server_cqe = cq[1]->cqe;
	info->nr_cqe = c->nr_cqe;
	info->broken = test_bit(CQH_CONN_BROKEN, &c->flags);
	info->completions = atomic64_read(&c->completions);
	info->errors = atomic64_read(&c->errors);
	info->qp_events = atomic64_read(&c->qp_events);
	info->cq_events = atomic64_read(&c->cq_events);
	info->setup_ns = c->setup_ns;
	info->first_error = READ_ONCE(c->first_error);
}

/*
 * An RDMA WRITE with a key the server's buffer no longer has (its MR's
 * next one): a real access error.  Its completion reaches the traffic
 * handler as an error.
 */
static int cqh_conn_bad_rkey(struct cqh_conn *c)
{
	struct ib_sge sge = { c->client.dma, 1, c->client.pd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr.wr_cqe = &c->client.cqe,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.wr.opcode = IB_WR_RDMA_WRITE,
		.wr.send_flags = IB_SEND_SIGNALED,
		.remote_addr = c->server.mr->iova,
		.rkey = ib_inc_rkey(c->server.mr->rkey),
	};

	return ib_post_send(c->client.id->qp, &wr.wr, NULL);
}

/**
 * cqh_conn_trigger() - raise a real event on a connection
 * @c: the connection, not running traffic
 * @kind: CQPOOL_TRIGGER_SQ_DRAIN or CQPOOL_TRIGGER_BAD_RKEY
 *
 * The connection is broken afterwards: it takes no more traffic.
 *
 * Context: process context.
 * Return: 0, -ENOTCONN if it is already broken, -EINVAL for another
 * @kind, or what the verb said.
 */
int cqh_conn_trigger(struct cqh_conn *c, u32 kind)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_SQD,
		.en_sqd_async_notify = 1,
	};

	if (kind != CQPOOL_TRIGGER_SQ_DRAIN && kind != CQPOOL_TRIGGER_BAD_RKEY)
		return -EINVAL;
	if (test_and_set_bit(CQH_CONN_BROKEN, &c->flags))
		return -ENOTCONN;
	if (kind == CQPOOL_TRIGGER_BAD_RKEY)
		return cqh_conn_bad_rkey(c);
	return ib_modify_qp(c->client.id->qp, &attr,
			    IB_QP_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY);
}
