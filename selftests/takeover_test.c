// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the takeover's own bookkeeping, driven through /dev/cqpool
 * as a ULP drives it (CQPOOL_CQ_GET_UPSTREAM | CQPOOL_CQ_GET_TAKEN_OVER:
 * ib_cq_pool_get() and ib_cq_pool_put() while cqpool_takeover.ko has
 * them), each case a defect a review found, which failed before its fix:
 *  - reservations put back through ib_core's own function once the patch
 *    is disabled come back to cqpool as soon as they are put, two of
 *    three same-size reservations on a CQ included;
 *  - a cumulative livepatch that does not carry the takeover's state is
 *    refused while the takeover is on, and loads once it is gone;
 *  - on a device cqpool does not serve (excluded here), an NVMe-oF
 *    connect through the takeover works on ib_core's own pool, as
 *    without it.
 * It skips where the kernel has no livepatch or the payload no takeover,
 * and its NVMe-oF case where the kernel has no NVMe-oF over RDMA.
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

/*
 * Entries of a reservation, and of the first on a vector, which sizes the
 * vector's first CQ: it and three of the others share it.
 */
#define NR_CQE		32
#define NR_ANCHOR	512

FIXTURE(takeover) {
	const char *missing;
	int fd, instance;
	bool loaded, excluded, target;
};

FIXTURE_SETUP(takeover)
{
	self->fd = -1;
	self->instance = -1;
	self->missing = takeover_missing();
	if (self->missing)
		return;
	ASSERT_EQ(0, pools_quiesce(200))
		TH_LOG("reservations or CQs left over from before");
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, takeover_load());
	self->loaded = true;
}

FIXTURE_TEARDOWN(takeover)
{
	if (self->missing)
		return;
	/* Before the target goes: its rxe0 reset (lockdep) comes back served. */
	if (self->excluded)
		EXPECT_EQ(0, write_file(CQPOOL_EXCLUDE, "\n"));
	if (self->instance >= 0)
		EXPECT_EQ(0, nvme_disconnect(&self->instance));
	if (self->target)
		EXPECT_EQ(0, nvme_target_down());
	/* The reservations go back with the file: then the takeover can. */
	if (self->fd >= 0)
		close(self->fd);
	if (self->loaded)
		EXPECT_EQ(0, takeover_unload());
	if (self->excluded)
		EXPECT_EQ(0, rxe_reset());
	set_idle_timeout(30000);
}

/*
 * A get of @nr entries as a ULP makes it, on rxe0's softirq context: its
 * id, or -errno.
 */
static int ulp_get(int fd, unsigned int nr, int vector, struct cqpool_cq_get *g)
{
	memset(g, 0, sizeof(*g));
	g->size = sizeof(*g);
	g->flags = CQPOOL_CQ_GET_UPSTREAM | CQPOOL_CQ_GET_TAKEN_OVER;
	g->poll_ctx = CQPOOL_POLL_SOFTIRQ;
	strcpy(g->device, "rxe0");
	g->nr_cqe = nr;
	g->vector_hint = vector;
	return ioctl(fd, CQPOOL_IOC_CQ_GET, g) ? -errno : (int)g->id;
}

/*
 * An anchor and three reservations of one size on one CQ; the patch
 * disabled; two of the three put back, through ib_core's own put now,
 * within one look of the takeover's reconcile.  ib_core's count on the
 * CQ then says 544 entries are used where the takeover's table holds
 * 608: no single reservation is the excess of 64, two of them are.
 */
TEST_F_TIMEOUT(takeover, put_backs_settle_by_any_reservations_that_sum_to_them, 120)
{
	struct cqpool_cq_get anchor, g[3];
	int i;

	if (self->missing)
		SKIP(return, "%s", self->missing);
	ASSERT_LE(0, ulp_get(self->fd, NR_ANCHOR, 0, &anchor));
	for (i = 0; i < 3; i++) {
		ASSERT_LE(0, ulp_get(self->fd, NR_CQE, 0, &g[i]));
		ASSERT_EQ(anchor.cq_id, g[i].cq_id)
			TH_LOG("the reservations are on two CQs");
	}
	ASSERT_EQ(4, read_long(TK_RES));

	ASSERT_EQ(0, takeover_disable());
	EXPECT_EQ(0, put(self->fd, g[0].id));
	EXPECT_EQ(0, put(self->fd, g[1].id));
	EXPECT_EQ(0, wait_file(TK_RES, 2, 5))
		TH_LOG("%ld reservations out, 2 in use", read_long(TK_RES));
	EXPECT_EQ(0, put(self->fd, g[2].id));
	EXPECT_EQ(0, put(self->fd, anchor.id));
	EXPECT_EQ(0, wait_file(TK_RES, 0, 5));
}

/*
 * A cumulative livepatch (atomic replace) that does not carry the
 * takeover's state would drop the takeover with its reservations out:
 * refused while it is on, loaded once it is gone.
 */
TEST_F_TIMEOUT(takeover, a_cumulative_livepatch_waits_for_the_takeover_to_go, 120)
{
	struct cqpool_cq_get g;
	char cmdline[64];

	if (self->missing)
		SKIP(return, "%s", self->missing);
	ASSERT_EQ(0, access(cumulative_ko(), R_OK))
		TH_LOG("the payload has the takeover but not %s", cumulative_ko());
	ASSERT_LE(0, ulp_get(self->fd, NR_CQE, -1, &g));

	EXPECT_NE(0, sh("insmod %s 2>/dev/null", cumulative_ko()))
		TH_LOG("a cumulative livepatch replaced the takeover");
	EXPECT_NE(0, access(KLP_CUMULATIVE, F_OK));
	EXPECT_EQ(1, read_long(KLP "/enabled"));
	EXPECT_EQ(1, read_long(TK_RES));

	ASSERT_EQ(0, put(self->fd, g.id));
	ASSERT_EQ(0, takeover_unload());
	self->loaded = false;
	ASSERT_EQ(0, sh("insmod %s", cumulative_ko()));
	ASSERT_EQ(0, wait_file(KLP_CUMULATIVE "/transition", 0, 60));
	EXPECT_EQ(0, read_line("/proc/cmdline", cmdline, sizeof(cmdline)));
	EXPECT_STREQ("cqpool_cumulative_test", cmdline);
	EXPECT_EQ(0, write_file(KLP_CUMULATIVE "/enabled", "0"));
	EXPECT_EQ(0, wait_file(KLP_CUMULATIVE, -1, 60));
	EXPECT_EQ(0, sh("rmmod cqpool_cumulative_test"));
}

/*
 * rxe0 added back while cqpool excludes it, as a device being added is
 * for a moment (rdma_cm's client sees it first): an NVMe-oF connect
 * through the takeover works, on ib_core's pool, as without the takeover.
 */
TEST_F_TIMEOUT(takeover, a_device_cqpool_does_not_serve_is_left_to_ib_core, 300)
{
	struct cq_count core0, core1;
	struct totals t;
	char dev[64];
	long gets;
	pid_t pid;

	if (self->missing)
		SKIP(return, "%s", self->missing);
	if (nvme_missing())
		SKIP(return, "%s", nvme_missing());
	ASSERT_EQ(0, write_file(CQPOOL_EXCLUDE, "siw9,rxe0"));
	self->excluded = true;
	pid = rxe_delete_start();
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, rxe_delete_finish_served(pid, 0))
		TH_LOG("rxe0 added back is served, or not there");
	ASSERT_EQ(0, rxe_active());
	self->target = true;
	ASSERT_EQ(0, nvme_target_up());

	gets = read_long(TK_UPSTREAM_GETS);
	ASSERT_EQ(0, rdma_cqs("ib_core", &core0));
	self->instance = nvme_connect();
	ASSERT_LE(0, self->instance)
		TH_LOG("the takeover failed a connect upstream serves");
	ASSERT_EQ(0, nvme_namespace(self->instance, dev, sizeof(dev)));
	EXPECT_EQ(0, io_check(dev, NVME_BACKING));
	ASSERT_EQ(0, rdma_cqs("ib_core", &core1));
	EXPECT_LT(core0.cqs, core1.cqs);
	gets = read_long(TK_UPSTREAM_GETS) - gets;
	EXPECT_LT(0, gets);
	EXPECT_EQ(0, read_long(TK_RES));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.cqs);
	ASSERT_EQ(0, nvme_disconnect(&self->instance));
	ksft_print_msg("rxe0 excluded: %ld gets through the takeover on ib_core's pool, %llu CQs\n",
		       gets, core1.cqs - core0.cqs);
}

TEST_HARNESS_MAIN
