// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: CQ pools as userspace sees them through /dev/cqpool,
 * debugfs and `rdma res show cq`: laziness, reclaim after the idle
 * timeout and under memory pressure, owned pools, bad input to every pool ioctl, per-fd cleanup
 * and limits, and the removal of a device with pools on it, which waits
 * for nobody.
 *
 * The VM runner makes rxe0 on the veth end $CQPOOL_RXE_NETDEV (v0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "verdict.h"

#define TEST_TIMEOUT_MS	100

/* 1 when `rdma res show cq` lists CQ @cqn of rxe0 as cqpool's. */
static int rdma_res_lists_cq(unsigned int cqn)
{
	char cmd[128], line[512];
	int found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/rdma res show cq dev rxe0 cqn %u 2>/dev/null", cqn);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "[cqpool]"))
			found = 1;
	pclose(p);
	return found;
}

FIXTURE(pools) {
	int fd;
};

FIXTURE_SETUP(pools)
{
	ASSERT_EQ(0, pools_quiesce(TEST_TIMEOUT_MS))
		TH_LOG("reservations or CQs left over from before");
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(pools)
{
	close(self->fd);
	set_idle_timeout(30000);
}

TEST_F(pools, shared_pool_is_lazy_and_gives_memory_back)
{
	struct cqpool_cq_get g;
	struct totals t;

	ASSERT_EQ(0, shared_get(self->fd, 32, &g));
	EXPECT_LE(32, g.cqe);
	/* Upstream allocates 2 CQs of 8191 entries for this. */
	EXPECT_GE(4 * 32, g.cqe);
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(1, t.cqs);
	EXPECT_EQ(32, t.reserved);
	EXPECT_EQ(1, rdma_res_lists_cq(g.cq_id));

	ASSERT_EQ(0, put(self->fd, g.id));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.reserved);
	EXPECT_EQ(0, wait_no_cqs());
	EXPECT_EQ(0, rdma_res_lists_cq(g.cq_id));
}

TEST_F(pools, reservations_on_one_vector_share_a_cq)
{
	struct cqpool_cq_get a, b;
	struct totals t;

	ASSERT_EQ(0, shared_get(self->fd, 16, &a));
	ASSERT_EQ(0, shared_get_on(self->fd, 8, a.vector, &b));
	EXPECT_EQ(a.cq_id, b.cq_id);
	EXPECT_EQ(a.vector, b.vector);
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(1, t.cqs);
	EXPECT_EQ(2, t.users);
	EXPECT_EQ(0, put(self->fd, a.id));
	EXPECT_EQ(0, put(self->fd, b.id));
	EXPECT_EQ(-1, put(self->fd, b.id));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(pools, owned_pool_is_busy_while_reserved)
{
	struct cqpool_pool_create c;
	struct cqpool_cq_get g = { .size = sizeof(g), .nr_cqe = 64,
				   .vector_hint = -1 };

	pool_attr(&c);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c));
	EXPECT_NE(0, c.id);
	g.pool_id = c.id;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CQ_GET, &g));
	EXPECT_EQ(-1, pool_destroy(self->fd, c.id));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, put(self->fd, g.id));
	EXPECT_EQ(0, pool_destroy(self->fd, c.id));
	EXPECT_EQ(-1, pool_destroy(self->fd, c.id));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, wait_no_cqs());
}

TEST_F(pools, bad_pool_create_is_refused)
{
	struct cqpool_pool_create c;
	struct totals before, after;

	ASSERT_EQ(0, read_totals(&before));
	pool_attr(&c);
	c.flags = 1U << 7;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	pool_attr(&c);
	memset(c.device, 'x', sizeof(c.device));
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	pool_attr(&c);
	strcpy(c.device, "nosuch0");
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c));
	EXPECT_EQ(ENODEV, errno);
	pool_attr(&c);
	c.poll_ctx = 3;	/* IB_POLL_DIRECT cannot be shared */
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	pool_attr(&c);
	c.cq_size = 1U << 30;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	pool_attr(&c);
	c.reserved[0] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, c.id);
	ASSERT_EQ(0, read_totals(&after));
	EXPECT_EQ(before.cqs, after.cqs);
}

TEST_F(pools, bad_cq_get_and_put_are_refused)
{
	struct cqpool_cq_get g;
	struct cqpool_destroy d = { .size = sizeof(d), .flags = 1 };

	EXPECT_EQ(-1, shared_get(self->fd, 0, &g));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, shared_get(self->fd, 1U << 30, &g));
	EXPECT_EQ(EINVAL, errno);
	memset(&g, 0, sizeof(g));
	g.size = sizeof(g);
	g.nr_cqe = 1;
	g.pool_id = 12345;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CQ_GET, &g));
	EXPECT_EQ(ENOENT, errno);
	g.flags = 1U << 5;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CQ_GET, &g));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CQ_PUT, &d));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, put(self->fd, 777));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(pools, ids_of_another_fd_are_unknown)
{
	struct cqpool_pool_create c;
	int other = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, other);
	pool_attr(&c);
	ASSERT_EQ(0, ioctl(other, CQPOOL_IOC_POOL_CREATE, &c));
	EXPECT_EQ(-1, pool_destroy(self->fd, c.id));
	EXPECT_EQ(ENOENT, errno);
	close(other);
}

/*
 * A process killed while it holds reservations leaves nothing: the kernel
 * closes its fd.  The child says when it holds everything, the test sees
 * it held, then kills it, and the totals count only if it died of that
 * signal: a child that failed and exited held nothing to release.
 */
TEST_F(pools, closed_fd_releases_everything)
{
	struct totals t;
	int ready[2], status;
	char held;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct cqpool_pool_create c;
		struct cqpool_cq_get g;
		int fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC), i;

		close(ready[0]);
		pool_attr(&c);
		if (fd < 0 || ioctl(fd, CQPOOL_IOC_POOL_CREATE, &c))
			_exit(1);
		for (i = 0; i < 8; i++)
			if (shared_get(fd, 100, &g))
				_exit(2);
		memset(&g, 0, sizeof(g));
		g.size = sizeof(g);
		g.pool_id = c.id;
		g.nr_cqe = 10;
		g.vector_hint = -1;
		if (ioctl(fd, CQPOOL_IOC_CQ_GET, &g))
			_exit(3);
		/* Everything held: wait to be killed with it. */
		if (write(ready[1], "1", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(ready[1]);
	held = 0;
	EXPECT_EQ(1, read(ready[0], &held, 1)) TH_LOG("the child failed first");
	close(ready[0]);
	if (held) {
		ASSERT_EQ(0, read_totals(&t));
		EXPECT_EQ(9, t.users) TH_LOG("the child's 9 reservations");
		EXPECT_EQ(8 * 100 + 10, t.reserved);
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(killed_by(status, SIGKILL))
		TH_LOG("the child exited with status %d before holding anything",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.users);
	EXPECT_EQ(0, t.reserved);
	EXPECT_EQ(0, wait_no_cqs());
}

TEST_F(pools, per_fd_object_limit_is_enforced)
{
	struct cqpool_cq_get g;
	int i;

	for (i = 0; i < CQPOOL_MAX_FD_OBJECTS; i++)
		ASSERT_EQ(0, shared_get(self->fd, 1, &g)) TH_LOG("get %d", i);
	EXPECT_EQ(-1, shared_get(self->fd, 1, &g));
	EXPECT_EQ(ENOSPC, errno);
	close(self->fd);
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, wait_no_cqs());
}

/*
 * Memory pressure frees idle CQs long before their timeout, and leaves
 * the CQs in use alone.  drop_caches runs every shrinker, as reclaim does.
 */
TEST_F(pools, memory_pressure_frees_idle_cqs_only)
{
	struct cqpool_cq_get used, idle;
	struct totals t;

	ASSERT_EQ(0, set_idle_timeout(600000));
	ASSERT_EQ(0, shared_get_on(self->fd, 64, 0, &used));
	ASSERT_EQ(0, shared_get_on(self->fd, 64, 1, &idle));
	ASSERT_NE(used.cq_id, idle.cq_id)
		TH_LOG("the VM's rxe0 should have two vectors");
	ASSERT_EQ(0, put(self->fd, idle.id));
	sleep(1);
	ASSERT_EQ(0, read_totals(&t));
	ASSERT_EQ(2, t.cqs) TH_LOG("the idle CQ went before any pressure");
	EXPECT_EQ(1, t.idle_cqs);

	ASSERT_EQ(0, write_file("/proc/sys/vm/drop_caches", "2"));
	EXPECT_EQ(0, wait_cqs_at_most(1));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(1, t.cqs);
	EXPECT_EQ(0, t.idle_cqs);
	EXPECT_EQ(64, t.reserved);
	EXPECT_EQ(0, put(self->fd, used.id));
}

TEST_F(pools, device_removal_frees_idle_pools)
{
	struct cqpool_cq_get g;
	struct totals t;

	ASSERT_EQ(0, set_idle_timeout(600000));
	ASSERT_EQ(0, shared_get(self->fd, 64, &g));
	ASSERT_EQ(0, put(self->fd, g.id));
	ASSERT_EQ(0, read_totals(&t));
	ASSERT_EQ(1, t.cqs) TH_LOG("the idle CQ should still be there");

	ASSERT_EQ(0, system("/usr/bin/rdma link delete rxe0"));
	EXPECT_EQ(0, wait_device_listed("rxe0", 0));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.cqs);
	ASSERT_EQ(0, rxe_add());
	EXPECT_EQ(0, wait_device_listed("rxe0", 1));
}

/*
 * The removal waits for nobody: the session is told and gives back what
 * it has on the device, its reservations and owned pools, whose ids stay
 * until the caller lets go of them.
 */
TEST_F(pools, device_removal_does_not_wait_for_the_session)
{
	struct cqpool_pool_create c;
	struct cqpool_cq_get g, o;
	struct totals t;
	unsigned int id;
	long ms;

	ASSERT_EQ(0, set_idle_timeout(600000));
	ASSERT_EQ(0, shared_get(self->fd, 64, &g));
	pool_attr(&c);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c));
	memset(&o, 0, sizeof(o));
	o.size = sizeof(o);
	o.pool_id = c.id;
	o.nr_cqe = 16;
	o.vector_hint = -1;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CQ_GET, &o));

	ms = rxe_delete_timed(30);
	ASSERT_LE(0, ms) TH_LOG("rdma link delete did not return in 30 s");
	TH_LOG("removal with a shared and an owned reservation: %ld ms", ms);
	/* Its record, which every pool on it holds, is gone with it. */
	EXPECT_EQ(0, device_listed("rxe0"));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.cqs);
	EXPECT_EQ(0, t.users);

	/* Gone, not forgotten: used, they say so; let go, they go. */
	id = o.id;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CQ_GET, &o));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, put(self->fd, g.id));
	EXPECT_EQ(0, put(self->fd, id));
	EXPECT_EQ(0, pool_destroy(self->fd, c.id));
	EXPECT_EQ(-1, put(self->fd, g.id));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(0, rxe_add());
	EXPECT_EQ(0, wait_device_listed("rxe0", 1));
}

TEST_HARNESS_MAIN
