// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: real NVMe-oF over soft-RoCE, code nobody here wrote, on
 * upstream's CQ pool and then on cqpool through cqpool_takeover.ko.
 *
 * nvmet + nvmet-rdma export a memory-backed null_blk namespace (made
 * through null_blk's configfs, so that a built-in null_blk works too) on rxe0's
 * address, nvme-rdma connects to it through /dev/nvme-fabrics, dd writes
 * and reads it back (through the host, and on the target's null_blk),
 * then the host disconnects.  The test prints the CQs and CQEs upstream
 * and cqpool need for the same connection, and checks what happens when
 * the takeover is disabled with a connection open.
 *
 * It skips where the kernel has no livepatch or no nvmet-rdma (the debug
 * kernel) or the payload has no cqpool_takeover.ko.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "ulp.h"

/* Entries reserved and users of rxe0's shared pool of poll context @ctx. */
static int pool_reserved(const char *ctx, unsigned long long *reserved,
			 unsigned long long *users)
{
	char line[512], want[64];
	FILE *f = fopen("/sys/kernel/debug/cqpool/pools", "r");
	int found = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), " device rxe0 ctx %s shared ", ctx);
	while (fgets(line, sizeof(line), f)) {
		char *at = strstr(line, " reserved ");

		if (!strncmp(line, "pool ", 5) && strstr(line, want) && at &&
		    sscanf(at, " reserved %llu users %llu", reserved, users) == 2)
			found = 0;
	}
	fclose(f);
	return found;
}

/* What this kernel lacks for the test, or NULL. */
static const char *nvmeof_missing(void)
{
	const char *missing = takeover_missing();

	return missing ? missing : nvme_missing();
}

/* The harness's upstream comparison, on rxe0's softirq pool: errno. */
static int harness_upstream_get(void)
{
	struct cqpool_cq_get g = {
		.size = sizeof(g),
		.flags = CQPOOL_CQ_GET_UPSTREAM,
		.poll_ctx = CQPOOL_POLL_SOFTIRQ,
		.device = "rxe0",
		.nr_cqe = 32,
		.vector_hint = -1,
	};
	int fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, CQPOOL_IOC_CQ_GET, &g))
		err = errno;
	close(fd);
	return err;
}

/* rdma res lists no RC QP on rxe0 any more: every queue is destroyed. */
static int wait_no_queues(void)
{
	int i;

	/* rxe0's GSI QP is always there: the listing itself works. */
	if (sh("/usr/bin/rdma res show qp link rxe0 | grep -q 'type GSI'"))
		return -1;
	for (i = 0; i < 100; i++) {
		if (sh("/usr/bin/rdma res show qp link rxe0 | grep -q 'type RC'")) {
			/* Each ULP puts its CQ right after destroying the QP. */
			usleep(500 * 1000);
			return 0;
		}
		usleep(100 * 1000);
	}
	return -1;
}

/*
 * Through the harness, a reservation of a whole 8191-entry CQ on each
 * vector of ib_core's softirq and workqueue pools: the number of CQs
 * ib_core then needed beyond those it had.  0 when upstream's count of
 * what is used on its CQs went back to 0.
 */
static int upstream_cqs_needed_for_full_cqs(void)
{
	static const unsigned int ctxs[] = {
		CQPOOL_POLL_SOFTIRQ, CQPOOL_POLL_WORKQUEUE
	};
	struct cq_count before, after;
	struct cqpool_cq_get g;
	unsigned int i;
	int fd, vec;

	fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0 || rdma_cqs("ib_core", &before))
		return -1;
	for (i = 0; i < 2; i++) {
		for (vec = 0; vec < 2; vec++) {
			memset(&g, 0, sizeof(g));
			g.size = sizeof(g);
			g.flags = CQPOOL_CQ_GET_UPSTREAM;
			g.poll_ctx = ctxs[i];
			strcpy(g.device, "rxe0");
			g.nr_cqe = 8191;
			g.vector_hint = vec;
			if (ioctl(fd, CQPOOL_IOC_CQ_GET, &g)) {
				close(fd);
				return -1;
			}
		}
	}
	i = rdma_cqs("ib_core", &after);
	close(fd);
	return i ? -1 : (int)(after.cqs - before.cqs);
}

FIXTURE(nvmeof) {
	const char *missing;
	int instance;
	bool target, takeover;
};

FIXTURE_SETUP(nvmeof)
{
	/* The figures survive the harness child's _exit() into a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	self->instance = -1;
	self->missing = nvmeof_missing();
	if (self->missing)
		return;
	ASSERT_EQ(0, pools_quiesce(500))
		TH_LOG("reservations or CQs left over from before");
	/* A fresh rxe0: upstream's figures start from an empty pool. */
	ASSERT_EQ(0, rxe_reset());
	ASSERT_EQ(0, nvme_target_up()) TH_LOG("nvmet configfs setup failed");
	self->target = true;
}

FIXTURE_TEARDOWN(nvmeof)
{
	if (self->missing)
		return;
	if (self->instance >= 0)
		EXPECT_EQ(0, nvme_delete(self->instance));
	if (self->takeover)
		EXPECT_EQ(0, takeover_unload());
	/*
	 * Upstream never frees its CQs: leave rxe0 as later tests expect.
	 * Before the port goes, so that its listener goes with rxe0 (see
	 * nvme_target_down()).
	 */
	EXPECT_EQ(0, rxe_reset());
	if (self->target)
		EXPECT_EQ(0, nvme_target_down());
	/* Fails, harmlessly, where they are built in. */
	sh("rmmod nvme-rdma nvmet-rdma nvmet null_blk");
	set_idle_timeout(30000);
}

/* Connects, checks I/O; the controller in @instance, namespace in @dev. */
static int connect_and_io(struct __test_metadata *_metadata, int *instance,
			  char *dev, size_t len)
{
	*instance = nvme_connect();
	if (*instance < 0)
		return -1;
	if (nvme_namespace(*instance, dev, len)) {
		TH_LOG("no namespace block device after connecting");
		return -1;
	}
	if (io_check(dev, NVME_BACKING)) {
		TH_LOG("I/O through %s did not give back identical data", dev);
		return -1;
	}
	return 0;
}

TEST_F_TIMEOUT(nvmeof, upstream_then_takeover, 300)
{
	struct cq_count base, up, up_after, cqp, cqp_after, core0, core1;
	unsigned long long host_res, host_users, tgt_res, tgt_users;
	char dev[64];
	struct totals t;

	if (self->missing)
		SKIP(return, "%s", self->missing);

	/* Upstream: ib_cq_pool_get() as the stock kernel has it. */
	ASSERT_EQ(0, rdma_cqs(NULL, &base));
	ASSERT_EQ(0, connect_and_io(_metadata, &self->instance, dev, sizeof(dev)));
	ASSERT_EQ(0, rdma_cqs(NULL, &up));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.cqs) TH_LOG("cqpool got CQs without the takeover");
	ASSERT_EQ(0, nvme_disconnect(&self->instance));
	ASSERT_EQ(0, rdma_cqs(NULL, &up_after));
	up.cqs -= base.cqs;
	up.cqes -= base.cqes;
	up_after.cqs -= base.cqs;
	up_after.cqes -= base.cqes;
	ASSERT_LT(0, up.cqs);

	/* The same connection with the takeover. */
	ASSERT_EQ(0, takeover_load());
	self->takeover = true;
	EXPECT_EQ(EBUSY, harness_upstream_get())
		TH_LOG("the harness's upstream mode must refuse while taken over");
	ASSERT_EQ(0, rdma_cqs("ib_core", &core0));
	ASSERT_EQ(0, connect_and_io(_metadata, &self->instance, dev, sizeof(dev)));
	ASSERT_EQ(0, rdma_cqs("cqpool", &cqp));
	ASSERT_EQ(0, rdma_cqs("ib_core", &core1));
	ASSERT_EQ(0, read_totals(&t));
	ASSERT_EQ(0, pool_reserved("softirq", &host_res, &host_users));
	ASSERT_EQ(0, pool_reserved("workqueue", &tgt_res, &tgt_users));
	/* Every CQ of the connection is cqpool's, none is ib_core's. */
	EXPECT_LT(0, cqp.cqs);
	EXPECT_EQ(t.cqs, cqp.cqs);
	EXPECT_EQ(core0.cqs, core1.cqs);
	/* nvme-rdma's queues (softirq) and nvmet-rdma's (workqueue). */
	EXPECT_LT(0, host_users);
	EXPECT_LT(0, tgt_users);
	EXPECT_EQ(t.reserved, host_res + tgt_res);
	EXPECT_EQ(t.users, read_long(TK_RES));
	EXPECT_GT(up.cqes, t.cqes);
	ASSERT_EQ(0, nvme_disconnect(&self->instance));
	/* nvmet-rdma releases its queues from a work item, a little later. */
	EXPECT_EQ(0, wait_file(TK_RES, 0, 10));
	EXPECT_EQ(0, wait_no_cqs()) TH_LOG("cqpool kept CQs after the idle timeout");
	ASSERT_EQ(0, rdma_cqs("cqpool", &cqp_after));
	EXPECT_EQ(0, cqp_after.cqs);

	ksft_print_msg("nvme-rdma + nvmet-rdma on rxe0, %s: %d MiB identical\n",
		       "nr_io_queues=4 queue_size=128", ULP_IO_MB);
	ksft_print_msg("upstream: %llu CQs, %llu CQEs for %llu reserved (%.1fx)%s%llu, %llu\n",
		       up.cqs, up.cqes, t.reserved,
		       (double)up.cqes / t.reserved, "; after disconnect CQs, CQEs: ",
		       up_after.cqs, up_after.cqes);
	ksft_print_msg("cqpool:   %llu CQs, %llu CQEs for %llu reserved (%.2fx)%s%llu CQs\n",
		       cqp.cqs, t.cqes, t.reserved, (double)t.cqes / t.reserved,
		       "; after disconnect: ", cqp_after.cqs);
	ksft_print_msg("cqpool:   host (softirq) %llu CQEs in %llu queues, %s %llu in %llu\n",
		       host_res, host_users, "target (workqueue)", tgt_res,
		       tgt_users);
}

/*
 * A connection made on upstream stays open while the takeover comes in:
 * its I/O goes on, and its puts at disconnect are accounted as ib_core
 * does (nothing for cqpool, and ib_core's CQs are whole again).
 */
TEST_F_TIMEOUT(nvmeof, upstream_queues_across_the_takeover, 300)
{
	struct cq_count core0, core1;
	struct totals t;
	char dev[64];

	if (self->missing)
		SKIP(return, "%s", self->missing);

	ASSERT_EQ(0, rdma_cqs("ib_core", &core0));
	ASSERT_EQ(0, connect_and_io(_metadata, &self->instance, dev, sizeof(dev)));
	ASSERT_EQ(0, rdma_cqs("ib_core", &core1));
	ASSERT_LT(core0.cqs, core1.cqs);

	ASSERT_EQ(0, takeover_load());
	self->takeover = true;
	EXPECT_EQ(0, io_check(dev, NVME_BACKING));
	/* ib_core's put, done by the takeover's copy of it. */
	ASSERT_EQ(0, nvme_disconnect(&self->instance));
	ASSERT_EQ(0, wait_no_queues());
	EXPECT_EQ(0, read_long(TK_RES));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.cqs);
	ASSERT_EQ(0, takeover_unload());
	self->takeover = false;

	/* Every entry of every ib_core CQ is free again: nothing new needed. */
	EXPECT_EQ(0, upstream_cqs_needed_for_full_cqs());
	ksft_print_msg("upstream queues open across the takeover: I/O went on, %s\n",
		       "their puts were accounted as ib_core does");
}

/*
 * The livepatch is disabled with a connection open: I/O goes on, the
 * module cannot be removed while cqpool reservations made through it are
 * out, ib_core accounts the puts, and cqpool gets them all back.
 */
TEST_F_TIMEOUT(nvmeof, disable_with_connection_open, 300)
{
	struct cq_count core0, core1, cqp;
	char dev[64];
	struct totals t;
	long res;

	if (self->missing)
		SKIP(return, "%s", self->missing);

	ASSERT_EQ(0, takeover_load());
	self->takeover = true;
	ASSERT_EQ(0, connect_and_io(_metadata, &self->instance, dev, sizeof(dev)));
	res = read_long(TK_RES);
	ASSERT_LT(0, res);

	ASSERT_EQ(0, takeover_disable());
	EXPECT_EQ(0, harness_upstream_get())
		TH_LOG("the harness's upstream mode must work again");
	/* Still out, and still pinning the module. */
	EXPECT_EQ(res, read_long(TK_RES));
	EXPECT_NE(0, sh("rmmod cqpool_takeover 2>/dev/null"));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(res, t.users);
	EXPECT_EQ(0, io_check(dev, NVME_BACKING));

	/* ib_core's put, then the takeover gives them back to cqpool. */
	ASSERT_EQ(0, nvme_disconnect(&self->instance));
	EXPECT_EQ(0, wait_file(TK_RES, 0, 10));
	EXPECT_EQ(0, wait_no_cqs()) TH_LOG("cqpool kept CQs after the idle timeout");
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.reserved);
	EXPECT_EQ(0, t.users);
	EXPECT_EQ(0, sh("rmmod cqpool_takeover"));

	/* New connections are upstream's again. */
	ASSERT_EQ(0, rdma_cqs("ib_core", &core0));
	ASSERT_EQ(0, connect_and_io(_metadata, &self->instance, dev, sizeof(dev)));
	ASSERT_EQ(0, rdma_cqs("ib_core", &core1));
	ASSERT_EQ(0, rdma_cqs("cqpool", &cqp));
	EXPECT_LT(core0.cqs, core1.cqs);
	EXPECT_EQ(0, cqp.cqs);
	ASSERT_EQ(0, nvme_disconnect(&self->instance));
	ksft_print_msg("disabled with %ld reservations out: I/O went on, %s\n",
		       res, "rmmod refused until disconnect, then all back in cqpool");
}

TEST_HARNESS_MAIN
