// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the /dev/cqpool harness - connections with CQs from cqpool,
 * from upstream's pool and one per QP, traffic over them, what LIST
 * reports, real event triggers, per-fd limits, and a harness killed in
 * the middle of traffic leaving nothing behind.
 *
 * Runs on rxe0 (both kernels) and, where the kernel has it, siw0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "verdict.h"

#define TEST_TIMEOUT_MS	100

FIXTURE(harness) {
	int fd;
};

FIXTURE_SETUP(harness)
{
	ASSERT_EQ(0, pools_quiesce(TEST_TIMEOUT_MS))
		TH_LOG("reservations or CQs left over from before");
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(harness)
{
	close(self->fd);
	set_idle_timeout(30000);
}

/* Every connection of @fd into @ci (room for @n): how many there are. */
static int list_conns(int fd, struct cqpool_conn_info *ci, unsigned int n)
{
	struct cqpool_list l = {
		.size = sizeof(l),
		.what = CQPOOL_LIST_CONNS,
		.entry_size = sizeof(*ci),
		.count = n,
		.entries = (uintptr_t)ci,
	};

	return ioctl(fd, CQPOOL_IOC_LIST, &l) ? -1 : (int)l.count;
}

static int traffic(int fd, unsigned int conn_id, unsigned int op,
		   unsigned long long count, struct cqpool_traffic *t)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->conn_id = conn_id;
	t->op = op;
	t->msg_size = 512;
	t->depth = 8;
	t->count = count;
	return ioctl(fd, CQPOOL_IOC_TRAFFIC, t);
}

/*
 * The three kinds of CQ, on one looped-back connection each, one after
 * the other: SEND and (with @write) RDMA WRITE complete every message,
 * and each QP's CQ is what the mode says it is.
 */
static void traffic_in_every_mode(struct __test_metadata *_metadata, int fd,
				  const char *dev, bool write)
{
	static const char *const names[] = { "cqpool", "upstream", "per-QP" };
	struct cqpool_destroy d = { .size = sizeof(d) };
	struct cqpool_conn_create c;
	struct cqpool_conn_info ci;
	struct cqpool_traffic t;
	struct totals tot;
	unsigned int mode;

	for (mode = CQPOOL_CQ_POOL; mode <= CQPOOL_CQ_PER_QP; mode++) {
		conn_attr(&c, dev, mode);
		/* Both QPs on one vector, where cqpool puts them on one CQ. */
		c.vector_hint = 0;
		ASSERT_EQ(0, ioctl(fd, CQPOOL_IOC_CONN_CREATE, &c))
			TH_LOG("%s connection on %s: %s", names[mode], dev,
			       strerror(errno));
		EXPECT_NE(0, c.client_qpn);
		EXPECT_NE(0, c.server_qpn);
		EXPECT_LT(0, c.setup_ns);
		TH_LOG("%s on %s: connected in %llu ms", names[mode], dev,
		       (unsigned long long)c.setup_ns / 1000000);

		ASSERT_EQ(0, traffic(fd, c.id, CQPOOL_OP_SEND, 200, &t));
		/* Both ends complete each SEND: the client's and the RECV. */
		EXPECT_EQ(400, t.completions) TH_LOG("%s SEND", names[mode]);
		EXPECT_EQ(0, t.errors);
		EXPECT_EQ(200 * 512, t.bytes);
		EXPECT_EQ(1, t.conns);
		if (write) {
			ASSERT_EQ(0, traffic(fd, c.id, CQPOOL_OP_WRITE, 300,
					     &t));
			EXPECT_EQ(300, t.completions)
				TH_LOG("%s WRITE", names[mode]);
			EXPECT_EQ(0, t.errors);
		}

		ASSERT_EQ(1, list_conns(fd, &ci, 1));
		EXPECT_EQ(c.id, ci.id);
		EXPECT_EQ(mode, ci.cq_mode);
		EXPECT_EQ(write ? 700 : 400, ci.completions);
		EXPECT_EQ(0, ci.errors) TH_LOG("first error: status %u",
					       ci.first_error);
		EXPECT_EQ(0, ci.broken);
		EXPECT_LE(ci.nr_cqe, ci.client_cqe);
		EXPECT_LE(ci.nr_cqe, ci.server_cqe);
		ASSERT_EQ(0, read_totals(&tot));
		if (mode == CQPOOL_CQ_POOL) {
			/* Two QPs on cqpool's CQs (one, where it can grow). */
			EXPECT_EQ(2, tot.users);
			EXPECT_EQ(2 * ci.nr_cqe, tot.reserved);
		} else {
			EXPECT_EQ(0, tot.users);
		}
		if (mode == CQPOOL_CQ_PER_QP)
			EXPECT_NE(ci.client_cq_id, ci.server_cq_id);

		d.id = c.id;
		EXPECT_EQ(0, ioctl(fd, CQPOOL_IOC_CONN_DESTROY, &d));
		EXPECT_EQ(-1, ioctl(fd, CQPOOL_IOC_CONN_DESTROY, &d));
		EXPECT_EQ(ENOENT, errno);
		EXPECT_EQ(0, list_conns(fd, NULL, 0));
	}
	EXPECT_EQ(0, wait_no_cqs());
}

/* Slow kernels (KASAN under TCG) need more than the default 30 s. */
#define TRAFFIC_TIMEOUT	180

TEST_F_TIMEOUT(harness, rxe_traffic_in_every_mode, TRAFFIC_TIMEOUT)
{
	traffic_in_every_mode(_metadata, self->fd, "rxe0", true);
}

TEST_F_TIMEOUT(harness, siw_traffic_in_every_mode, TRAFFIC_TIMEOUT)
{
	if (!vm_link_made("siw0"))
		SKIP(return, "the VM made no siw0 (CQPOOL_RDMA_LINKS=%s)",
		     getenv("CQPOOL_RDMA_LINKS"));
	ASSERT_EQ(1, device_listed("siw0"))
		TH_LOG("the VM made siw0, and cqpool does not list it");
	traffic_in_every_mode(_metadata, self->fd, "siw0", true);
}

TEST_F_TIMEOUT(harness, traffic_for_a_duration_over_all_connections,
	       TRAFFIC_TIMEOUT)
{
	struct cqpool_conn_create c;
	struct cqpool_traffic t;
	int i;

	for (i = 0; i < 4; i++) {
		conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
		ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	}
	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.op = CQPOOL_OP_SEND;
	t.msg_size = 4096;
	t.depth = 16;
	t.duration_ms = 500;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_TRAFFIC, &t));
	EXPECT_EQ(4, t.conns);
	EXPECT_LT(0, t.completions);
	EXPECT_EQ(0, t.completions % 2) TH_LOG("a SEND without its RECV");
	EXPECT_EQ(0, t.errors);
	EXPECT_LE(500000000ULL, t.elapsed_ns);
	TH_LOG("4 connections, 500 ms: %llu completions",
	       (unsigned long long)t.completions);
}

TEST_F(harness, list_reports_what_debugfs_shows)
{
	struct cqpool_device_info dev[8];
	struct cqpool_pool_info pool[8];
	struct cqpool_cq_info cq[8];
	struct cqpool_list l = {
		.size = sizeof(l), .what = CQPOOL_LIST_DEVICES,
		.entry_size = sizeof(dev[0]), .count = 8,
		.entries = (uintptr_t)dev,
	};
	struct cqpool_cq_get g;
	struct totals t;
	unsigned int i, found = 0, pools = 0, holding = 0;

	ASSERT_EQ(0, shared_get(self->fd, 100, &g));
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	ASSERT_LE(1, l.count);
	for (i = 0; i < l.count && i < 8; i++) {
		if (strcmp(dev[i].name, "rxe0"))
			continue;
		found++;
		pools = dev[i].pools;
		EXPECT_LE(1, pools);
		EXPECT_EQ(1, dev[i].cqs);
		EXPECT_EQ(100, dev[i].reserved_cqes);
		EXPECT_EQ(1, dev[i].users);
		EXPECT_LE(1, dev[i].nvec);
		EXPECT_LE(100, dev[i].max_cqe);
	}
	EXPECT_EQ(1, found);

	/*
	 * Other devices' pools may be there too, and rxe0's shared pools of
	 * other poll contexts, which live as long as rxe0: idle, with no CQ.
	 */
	l.what = CQPOOL_LIST_POOLS;
	l.entry_size = sizeof(pool[0]);
	l.count = 8;
	l.entries = (uintptr_t)pool;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	ASSERT_LE(1, l.count);
	for (i = 0, found = 0; i < l.count && i < 8; i++) {
		if (strcmp(pool[i].device, "rxe0"))
			continue;
		found++;
		EXPECT_EQ(0, pool[i].flags & CQPOOL_POOL_INFO_OWNED);
		EXPECT_EQ(0, pool[i].flags & CQPOOL_POOL_INFO_BROKEN);
		if (!pool[i].reserved_cqes) {
			EXPECT_EQ(0, pool[i].cqs);
			continue;
		}
		holding++;
		EXPECT_EQ(100, pool[i].reserved_cqes);
		EXPECT_EQ(1, pool[i].cqs);
	}
	EXPECT_EQ(pools, found);
	EXPECT_EQ(1, holding);

	l.what = CQPOOL_LIST_CQS;
	l.entry_size = sizeof(cq[0]);
	l.count = 8;
	l.entries = (uintptr_t)cq;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	/* The one CQ of cqpool's anywhere: the idle ones have gone. */
	ASSERT_EQ(1, l.count);
	EXPECT_STREQ("rxe0", cq[0].device);
	EXPECT_EQ(g.cq_id, cq[0].cq_id);
	EXPECT_EQ(g.cqe, cq[0].cqe);
	EXPECT_EQ(g.vector, cq[0].vector);
	EXPECT_EQ(1, cq[0].users);

	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(t.cqes, cq[0].cqe);
	ASSERT_EQ(0, put(self->fd, g.id));
}

TEST_F(harness, list_entries_grow_and_count_without_room)
{
	struct {
		struct cqpool_device_info d;
		__u64 future[3];
	} big[4];
	struct cqpool_list l = {
		.size = sizeof(l), .what = CQPOOL_LIST_DEVICES,
		.entry_size = sizeof(big[0]), .count = 0,
	};
	unsigned int n;

	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	n = l.count;
	ASSERT_LE(1, n);
	memset(big, 0xff, sizeof(big));
	l.count = 4;
	l.entries = (uintptr_t)big;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	EXPECT_EQ(n, l.count);
	/* What the kernel does not know of a larger entry is zeroed. */
	EXPECT_EQ(0, big[0].future[0]);
	EXPECT_EQ(0, big[0].future[2]);
	EXPECT_NE(0, big[0].d.name[0]);

	l.entry_size = sizeof(big[0].d) - 8;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	EXPECT_EQ(EINVAL, errno);
	l.entry_size = sizeof(big[0].d);
	l.what = CQPOOL_LIST_CONNS + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	EXPECT_EQ(EINVAL, errno);
	l.what = CQPOOL_LIST_DEVICES;
	l.count = CQPOOL_MAX_LIST + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	EXPECT_EQ(EINVAL, errno);
	l.count = 4;
	l.entries = 8;	/* unmapped */
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(harness, bad_connections_are_refused_and_leave_nothing)
{
	struct cqpool_conn_create c;
	struct totals t;

	conn_attr(&c, "nosuch0", CQPOOL_CQ_POOL);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(ENODEV, errno);
	conn_attr(&c, "rxe0", CQPOOL_CQ_PER_QP + 1);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	c.send_depth = 0;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	c.recv_depth = CQPOOL_MAX_DEPTH + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	conn_attr(&c, "rxe0", CQPOOL_CQ_UPSTREAM);
	c.nr_cqe = 1U << 30;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	c.msg_size = CQPOOL_MAX_MSG + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.msg_size = ~0U;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	c.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	c.pool_id = 77;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(ENOENT, errno);
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	memset(c.peer, 'x', sizeof(c.peer));
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);

	EXPECT_EQ(0, list_conns(self->fd, NULL, 0));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.users);
	EXPECT_EQ(0, t.reserved);
}

TEST_F(harness, bad_traffic_is_refused)
{
	struct cqpool_conn_create c;
	struct cqpool_traffic t;

	EXPECT_EQ(-1, traffic(self->fd, 0, CQPOOL_OP_SEND, 1, &t));
	EXPECT_EQ(ENOENT, errno) TH_LOG("no connection at all");
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(-1, traffic(self->fd, c.id + 1, CQPOOL_OP_SEND, 1, &t));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, traffic(self->fd, c.id, CQPOOL_OP_WRITE + 1, 1, &t));
	EXPECT_EQ(EINVAL, errno);
	/* Neither a count nor a duration, then both. */
	EXPECT_EQ(-1, traffic(self->fd, c.id, CQPOOL_OP_SEND, 0, &t));
	EXPECT_EQ(EINVAL, errno);
	traffic(self->fd, c.id, CQPOOL_OP_SEND, 1, &t);
	t.duration_ms = 10;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRAFFIC, &t));
	EXPECT_EQ(EINVAL, errno);
	/* Deeper than the QP, larger than its buffer. */
	traffic(self->fd, c.id, CQPOOL_OP_SEND, 1, &t);
	t.depth = c.send_depth + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRAFFIC, &t));
	EXPECT_EQ(EINVAL, errno);
	/* So deep that the drain's slot added to it wraps around. */
	t.depth = UINT32_MAX;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRAFFIC, &t));
	EXPECT_EQ(EINVAL, errno);
	traffic(self->fd, c.id, CQPOOL_OP_SEND, 1, &t);
	t.msg_size = c.msg_size + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRAFFIC, &t));
	EXPECT_EQ(EINVAL, errno);
	/* After all that, it still works. */
	EXPECT_EQ(0, traffic(self->fd, c.id, CQPOOL_OP_SEND, 10, &t));
	EXPECT_EQ(20, t.completions);
}

TEST_F(harness, ids_of_another_fd_are_unknown)
{
	struct cqpool_conn_create c;
	struct cqpool_traffic t;
	struct cqpool_trigger tr = {
		.size = sizeof(tr), .kind = CQPOOL_TRIGGER_SQ_DRAIN,
	};
	struct cqpool_destroy d = { .size = sizeof(d) };
	int other = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, other);
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(-1, traffic(other, c.id, CQPOOL_OP_SEND, 1, &t));
	EXPECT_EQ(ENOENT, errno);
	tr.conn_id = c.id;
	EXPECT_EQ(-1, ioctl(other, CQPOOL_IOC_TRIGGER, &tr));
	EXPECT_EQ(ENOENT, errno);
	d.id = c.id;
	EXPECT_EQ(-1, ioctl(other, CQPOOL_IOC_CONN_DESTROY, &d));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, list_conns(other, NULL, 0));
	close(other);
	EXPECT_EQ(0, traffic(self->fd, c.id, CQPOOL_OP_SEND, 5, &t));
	EXPECT_EQ(10, t.completions);
}

TEST_F(harness, connections_on_an_owned_pool_keep_it_busy)
{
	struct cqpool_pool_create p;
	struct cqpool_conn_create c;
	struct cqpool_destroy d = { .size = sizeof(d) };
	struct cqpool_traffic t;

	pool_attr(&p);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &p));
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	c.pool_id = p.id;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(0, traffic(self->fd, c.id, CQPOOL_OP_WRITE, 10, &t));
	EXPECT_EQ(10, t.completions);
	d.id = p.id;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_DESTROY, &d));
	EXPECT_EQ(EBUSY, errno);
	d.id = c.id;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_DESTROY, &d));
	d.id = p.id;
	EXPECT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_DESTROY, &d));
	/* An owned pool with a peer is refused: a pool has one device. */
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &p));
	c.pool_id = p.id;
	strcpy(c.peer, "rxe0");
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F_TIMEOUT(harness, per_fd_buffer_limit_is_enforced, TRAFFIC_TIMEOUT)
{
	unsigned int n = CQPOOL_MAX_FD_BYTES / (2 * CQPOOL_MAX_MSG), i;
	struct cqpool_conn_create c;

	for (i = 0; i < n; i++) {
		conn_attr(&c, "rxe0", CQPOOL_CQ_PER_QP);
		c.msg_size = CQPOOL_MAX_MSG;
		ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c))
			TH_LOG("connection %u: %s", i, strerror(errno));
	}
	conn_attr(&c, "rxe0", CQPOOL_CQ_PER_QP);
	c.msg_size = CQPOOL_MAX_MSG;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(n, list_conns(self->fd, NULL, 0));
}

/* Polls the one connection of @fd until @field of it is non-zero. */
#define WAIT_CONN(fd, field) ({						\
	struct cqpool_conn_info _ci = {};				\
	int _i;								\
	for (_i = 0; _i < 200; _i++) {					\
		if (list_conns(fd, &_ci, 1) != 1 || _ci.field)		\
			break;						\
		usleep(10000);						\
	}								\
	_ci;								\
})

TEST_F(harness, sq_drain_trigger_raises_sq_drained)
{
	struct cqpool_trigger tr = {
		.size = sizeof(tr), .kind = CQPOOL_TRIGGER_SQ_DRAIN,
	};
	struct cqpool_conn_create c;
	struct cqpool_conn_info ci;
	struct cqpool_traffic t;

	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	tr.conn_id = c.id;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
	ci = WAIT_CONN(self->fd, qp_events);
	EXPECT_LE(1, ci.qp_events);
	EXPECT_EQ(1, ci.broken);
	/* A broken connection takes no traffic and no second trigger. */
	EXPECT_EQ(-1, traffic(self->fd, c.id, CQPOOL_OP_SEND, 1, &t));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
	EXPECT_EQ(ENOTCONN, errno);
}

TEST_F(harness, bad_rkey_trigger_is_an_error_completion)
{
	struct cqpool_trigger tr = {
		.size = sizeof(tr), .kind = CQPOOL_TRIGGER_BAD_RKEY,
	};
	struct cqpool_conn_create c;
	struct cqpool_conn_info ci;

	conn_attr(&c, "rxe0", CQPOOL_CQ_UPSTREAM);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	tr.conn_id = c.id;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
	ci = WAIT_CONN(self->fd, errors);
	EXPECT_LE(1, ci.errors);
	EXPECT_EQ(1, ci.broken);
}

/*
 * A connection whose send queue is 1 deep, taken apart while the work
 * request of a bad-rkey trigger is still in it: the teardown's drain
 * must find a slot of its own.  Before the harness gave it one, 6.12's
 * rxe, which flushes a queue in error from a task, refused it each time
 * ("send queue full"), and ib_drain_qp() warned.
 */
TEST_F(harness, drain_after_a_trigger_on_a_full_send_queue)
{
	struct cqpool_trigger tr = {
		.size = sizeof(tr), .kind = CQPOOL_TRIGGER_BAD_RKEY,
	};
	struct cqpool_conn_create c;
	int i;

	for (i = 0; i < 100; i++) {
		conn_attr(&c, "rxe0", i % 3);
		c.send_depth = 1;
		c.recv_depth = 1;
		ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
		tr.conn_id = c.id;
		ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
		ASSERT_EQ(0, conn_destroy(self->fd, c.id));
	}
}

TEST_F(harness, bad_triggers_are_refused)
{
	struct cqpool_trigger tr = { .size = sizeof(tr) };

	tr.kind = CQPOOL_TRIGGER_SQ_DRAIN;
	tr.conn_id = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
	EXPECT_EQ(ENOENT, errno);
	tr.kind = CQPOOL_TRIGGER_DEVICE_FATAL + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
	EXPECT_EQ(EINVAL, errno);
	/* DEVICE_FATAL names a device, not a connection. */
	tr.kind = CQPOOL_TRIGGER_DEVICE_FATAL;
	strcpy(tr.device, "rxe0");
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
	EXPECT_EQ(EINVAL, errno);
	tr.conn_id = 0;
	/* Off unless the event_injection parameter says otherwise. */
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
	EXPECT_EQ(EPERM, errno);
	strcpy(tr.device, "nosuch0");
	ASSERT_EQ(0, write_file(INJECTION, "1"));
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRIGGER, &tr));
	EXPECT_EQ(ENODEV, errno);
	ASSERT_EQ(0, write_file(INJECTION, "0"));
}

TEST_F_TIMEOUT(harness, killed_mid_traffic_leaves_nothing, TRAFFIC_TIMEOUT)
{
	struct totals t;
	int status, ready[2];
	pid_t pid;
	char b;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct cqpool_conn_create c;
		struct cqpool_traffic tr;
		int fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC), i;

		for (i = 0; i < 6; i++) {
			conn_attr(&c, "rxe0", i % 3);
			if (fd < 0 || ioctl(fd, CQPOOL_IOC_CONN_CREATE, &c))
				_exit(1);
		}
		if (write(ready[1], "x", 1) != 1)
			_exit(3);
		memset(&tr, 0, sizeof(tr));
		tr.size = sizeof(tr);
		tr.msg_size = 4096;
		tr.depth = 16;
		tr.duration_ms = 60000;
		ioctl(fd, CQPOOL_IOC_TRAFFIC, &tr);
		_exit(2);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &b, 1)) TH_LOG("the child did not connect");
	/* In the middle of traffic. */
	sleep(1);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status)) TH_LOG("child exited %d before",
						WEXITSTATUS(status));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.users);
	EXPECT_EQ(0, t.reserved);
	EXPECT_EQ(0, wait_no_cqs());
}

/*
 * Connections in every mode, with traffic running, when their device is
 * deleted: the removal stops the traffic, the session takes the
 * connections apart, and the delete returns without the fd closing.
 * Each queue holds @depth, and the traffic keeps @depth in flight.
 */
static void remove_under_traffic(struct __test_metadata *_metadata, int fd,
				 unsigned int depth)
{
	struct cqpool_conn_create c[3];
	struct cqpool_traffic t;
	int status, i;
	pid_t pid;
	long ms;

	for (i = 0; i < 3; i++) {
		conn_attr(&c[i], "rxe0", i);
		c[i].send_depth = depth;
		c[i].recv_depth = depth;
		ASSERT_EQ(0, ioctl(fd, CQPOOL_IOC_CONN_CREATE, &c[i]));
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		memset(&t, 0, sizeof(t));
		t.size = sizeof(t);
		t.op = CQPOOL_OP_SEND;
		t.msg_size = 4096;
		t.depth = depth;
		t.duration_ms = 60000;
		/* Ends early, its connections broken by the removal. */
		_exit(ioctl(fd, CQPOOL_IOC_TRAFFIC, &t) ? 1 : 0);
	}
	/* In the middle of traffic. */
	sleep(1);
	ms = rxe_delete_timed(30);
	EXPECT_LE(0, ms) TH_LOG("rdma link delete did not return in 30 s");
	TH_LOG("removal under traffic on 3 connections of depth %u: %ld ms",
	       depth, ms);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));

	/* Taken apart: no traffic, no listing, but still an id to destroy. */
	EXPECT_EQ(-1, traffic(fd, c[0].id, CQPOOL_OP_SEND, 1, &t));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, list_conns(fd, NULL, 0));
	for (i = 0; i < 3; i++) {
		struct cqpool_destroy d = { .size = sizeof(d), .id = c[i].id };

		EXPECT_EQ(0, ioctl(fd, CQPOOL_IOC_CONN_DESTROY, &d));
	}
	ASSERT_EQ(0, rxe_add());
	EXPECT_EQ(0, wait_device_listed("rxe0", 1));
}

TEST_F_TIMEOUT(harness, device_removal_under_traffic_takes_connections_apart,
	       TRAFFIC_TIMEOUT)
{
	remove_under_traffic(_metadata, self->fd, 16);
}

/*
 * rxe makes a queue of 1 exactly 1 deep, so that the traffic keeps both
 * full when the removal's teardown drains them.
 */
TEST_F_TIMEOUT(harness, device_removal_under_full_queues_drains_them,
	       TRAFFIC_TIMEOUT)
{
	remove_under_traffic(_metadata, self->fd, 1);
}

TEST_HARNESS_MAIN
