// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: hot removal of rxe0 under live I/O of real in-tree ULPs, on
 * upstream's CQ pool and on cqpool's through cqpool_takeover.ko.
 *
 * The ULPs' ib_clients are registered before cqpool's, as when a
 * distribution loads them at boot: ib_core removes clients in reverse,
 * so cqpool's remove runs before theirs, and the reservations they hold
 * come back only after it returns (iSER's and isert's even later, from
 * rdma_cm's remove).  For NVMe-oF (nvmet-rdma, nvme-rdma), SRP (LIO
 * ib_srpt over the RDMA CM, ib_srp) and iSER (LIO isert, open-iscsi with
 * ib_iser), each looped back on rxe0's address: connect, run I/O,
 * `rdma link delete rxe0`, then check that the delete returned within
 * 30 s, that the ULP let go of the device, that cqpool holds nothing,
 * that the takeover and cqpool unload, and that after rxe0 is added back
 * a new connection works.  Each case prints "removal ULP MODE MS ms",
 * and the CQs and CQEs its new connection took from rxe0 (all owners:
 * [ib_core]'s pools, [cqpool]'s, a ULP's own CQs), and those still held
 * after its disconnect and cqpool's idle timeout, as
 * "footprint ULP MODE CQS CQES CQS_AFTER CQES_AFTER" (scripts/ulp-table.sh
 * makes the README's table of them).
 *
 * A case skips where the kernel lacks its ULP (or livepatch, for the
 * takeover), or the VM lacks open-iscsi.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "storage.h"
#include "ulp.h"

#define HUNG_TIMEOUT	"/proc/sys/kernel/hung_task_timeout_secs"
/* Left by a case whose delete never returned: rxe0 is unusable. */
#define STUCK		"/tmp/removal_test.stuck"
#define DELETE_MS	30000
#define IDLE_MS		200
#define IO_BLOCK	(64 * 1024)
#define IO_BLOCKS	16

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
		(t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* --- I/O, removal, cqpool ------------------------------------------------ */

/*
 * Writes and reads the first MiB of @dev with O_DIRECT until killed,
 * counting completed I/Os in @done.  Open without O_CREAT: once the disk
 * is gone it waits for it, and leaves no file in its place.
 */
static pid_t io_start(const char *dev, unsigned long *done)
{
	pid_t pid = fork();
	void *buf;
	int fd, i;

	if (pid)
		return pid;
	if (posix_memalign(&buf, 4096, IO_BLOCK))
		_exit(1);
	memset(buf, 0x5a, IO_BLOCK);
	for (;;) {
		fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (fd < 0) {
			usleep(100 * 1000);
			continue;
		}
		for (i = 0; i < IO_BLOCKS; i++) {
			off_t off = (off_t)i * IO_BLOCK;

			if (pwrite(fd, buf, IO_BLOCK, off) != IO_BLOCK ||
			    pread(fd, buf, IO_BLOCK, off) != IO_BLOCK)
				break;
			__atomic_add_fetch(done, 2, __ATOMIC_RELAXED);
		}
		close(fd);
		if (i < IO_BLOCKS)
			usleep(100 * 1000);
	}
}

/* Waits until @n more I/Os completed: they run when the device goes. */
static int io_running(unsigned long *done, unsigned long n)
{
	unsigned long start = __atomic_load_n(done, __ATOMIC_RELAXED);
	int i;

	for (i = 0; i < 1000; i++) {
		if (__atomic_load_n(done, __ATOMIC_RELAXED) - start >= n)
			return 0;
		usleep(10 * 1000);
	}
	return -1;
}

/* Logs where the stuck delete waits, and every blocked task's stack. */
static void dump_blocked(struct __test_metadata *_metadata, pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	if (f) {
		TH_LOG("rdma link delete (pid %d) waits in:", pid);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			TH_LOG("  %s", line);
		}
		fclose(f);
	}
	write_file("/proc/sysrq-trigger", "w");
	TH_LOG("blocked tasks dumped to the console (sysrq w)");
}

/* cqpool holds no CQ, reservation or pool: 0, or -1 after 10 s. */
static int cqpool_empty(struct totals *t)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!read_totals(t) && !t->cqs && !t->users && !t->reserved &&
		    !t->pools)
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

/*
 * Re-registers cqpool's ib_client after the ULPs', whatever loaded them
 * when (another test may have unloaded and reloaded one).
 */
static int cqpool_reload(void)
{
	if (!access("/sys/module/cqpool", F_OK) && cqpool_unload())
		return -1;
	if (cqpool_load())
		return -1;
	return set_idle_timeout(IDLE_MS);
}

/*
 * CQPOOL_REMOVAL_SKIP names ULPs (space-separated) whose cases skip: for
 * a kernel where the ULP itself fails without cqpool, so that the other
 * ULPs' cases still run there (scripts/check.sh says which and why).
 */
static const char *skipped_here(const struct ulp *ulp)
{
	const char *list = getenv("CQPOOL_REMOVAL_SKIP");
	size_t n = strlen(ulp->name);
	const char *p;

	for (p = list; p && (p = strstr(p, ulp->name)); p += n)
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return "skipped on this kernel by CQPOOL_REMOVAL_SKIP";
	return NULL;
}

FIXTURE(removal) {
	const char *missing;
	struct conn conn;
	bool connected, target, takeover;
	pid_t io, deleter;
	unsigned long *io_done;
	char hung_old[32], idle_old[32];
};

FIXTURE_VARIANT(removal) {
	const struct ulp *ulp;
	bool takeover;
};

/* Upstream first: a takeover case that hangs spoils no measurement. */
FIXTURE_VARIANT_ADD(removal, nvme_upstream) {
	.ulp = &nvme_ulp,
};

FIXTURE_VARIANT_ADD(removal, srp_upstream) {
	.ulp = &srp_ulp,
};

FIXTURE_VARIANT_ADD(removal, iser_upstream) {
	.ulp = &iser_ulp,
};

FIXTURE_VARIANT_ADD(removal, nvme_takeover) {
	.ulp = &nvme_ulp,
	.takeover = true,
};

FIXTURE_VARIANT_ADD(removal, srp_takeover) {
	.ulp = &srp_ulp,
	.takeover = true,
};

FIXTURE_VARIANT_ADD(removal, iser_takeover) {
	.ulp = &iser_ulp,
	.takeover = true,
};

FIXTURE_SETUP(removal)
{
	/* The figures survive the harness child's _exit() into a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	self->conn.id = -1;
	self->conn.host = -1;
	self->missing = skipped_here(variant->ulp);
	if (!self->missing && variant->takeover)
		self->missing = takeover_missing();
	if (!self->missing)
		self->missing = variant->ulp->missing();
	if (self->missing)
		return;
	self->io_done = mmap(NULL, sizeof(*self->io_done),
			     PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->io_done);
	/* A delete that hangs shows up as a hung task in 20 s, not 120. */
	if (!read_line(HUNG_TIMEOUT, self->hung_old, sizeof(self->hung_old)))
		write_file(HUNG_TIMEOUT, "20");
	read_line(IDLE_TIMEOUT, self->idle_old, sizeof(self->idle_old));
}

static int ulp_disconnect(void *arg)
{
	const struct ulp *ulp = ((void **)arg)[0];
	struct conn *c = ((void **)arg)[1];

	return ulp->disconnect(c) ? 1 : 0;
}

static int ulp_target_down(void *arg)
{
	return ((const struct ulp *)arg)->target_down() ? 1 : 0;
}

FIXTURE_TEARDOWN(removal)
{
	const struct ulp *ulp = variant->ulp;
	void *args[] = { (void *)ulp, &self->conn };

	if (self->missing)
		return;
	if (self->io) {
		kill(self->io, SIGKILL);
		wait_child(self->io, 15000);
	}
	if (self->deleter) {
		/* rxe0 is half removed: touching it would hang us too. */
		write_file(STUCK, "1");
		TH_LOG("rxe0's removal is still stuck: cleanup skipped");
	} else {
		if (self->connected)
			EXPECT_EQ(0, call_bounded(ulp_disconnect, args, 60));
		if (self->target)
			EXPECT_EQ(0, call_bounded(ulp_target_down,
						  (void *)ulp, 60));
		if (self->takeover)
			EXPECT_EQ(0, takeover_unload());
		if (ulp->stop)
			ulp->stop();
		/* A failure between the delete and the re-add left no rxe0. */
		if (sh("/usr/bin/rdma link show rxe0/1") &&
		    (rxe_add() || rxe_active()))
			TH_LOG("rxe0 could not be added back");
		/* Between the unload and the load, a failure left none. */
		cqpool_load();
		if (*self->idle_old)
			write_file(IDLE_TIMEOUT, self->idle_old);
	}
	if (*self->hung_old)
		write_file(HUNG_TIMEOUT, self->hung_old);
}

/*
 * What a stuck delete waits for may come back when the ULP is torn down
 * from userspace: the delete's status then, or -1 if it is still stuck.
 */
static int unstick(struct __test_metadata *_metadata, const struct ulp *ulp,
		   struct conn *conn, pid_t deleter)
{
	void *args[] = { (void *)ulp, conn };
	struct timespec t0;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	call_bounded(ulp_disconnect, args, 30);
	call_bounded(ulp_target_down, (void *)ulp, 30);
	st = wait_child(deleter, DELETE_MS);
	if (st >= 0)
		TH_LOG("the delete returned %ld ms after the %s %s",
		       elapsed_ms(&t0), ulp->name,
		       "host and target were torn down from userspace");
	return st;
}

TEST_F_TIMEOUT(removal, delete_under_io, 240)
{
	const struct ulp *ulp = variant->ulp;
	const char *mode = variant->takeover ? "takeover" : "upstream";
	struct cq_count base, on, off;
	struct timespec t0;
	struct totals t;
	long ms;
	int st;

	if (self->missing)
		SKIP(return, "%s", self->missing);
	ASSERT_NE(0, access(STUCK, F_OK))
		TH_LOG("an earlier case left rxe0's removal stuck");
	ASSERT_EQ(0, rxe_active()) TH_LOG("rxe0 is not ACTIVE");
	ASSERT_EQ(0, cqpool_reload());
	ASSERT_EQ(0, pools_quiesce(IDLE_MS))
		TH_LOG("reservations or CQs left over from before");
	self->target = true;
	ASSERT_EQ(0, ulp->target_up()) TH_LOG("%s target setup failed", ulp->name);
	if (variant->takeover) {
		ASSERT_EQ(0, takeover_load());
		self->takeover = true;
	}
	self->connected = true;
	ASSERT_EQ(0, ulp->connect(&self->conn))
		TH_LOG("%s connection to the target failed", ulp->name);
	if (variant->takeover) {
		EXPECT_LT(0, read_long(TK_RES))
			TH_LOG("%s's queues got no CQ from cqpool", ulp->name);
	} else {
		ASSERT_EQ(0, read_totals(&t));
		EXPECT_EQ(0, t.cqs) TH_LOG("cqpool got CQs without the takeover");
	}

	self->io = io_start(self->conn.dev, self->io_done);
	ASSERT_LT(0, self->io);
	ASSERT_EQ(0, io_running(self->io_done, 32))
		TH_LOG("no I/O completes on %s", self->conn.dev);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	self->deleter = rxe_delete_start();
	ASSERT_LT(0, self->deleter);
	st = wait_child(self->deleter, DELETE_MS);
	ms = elapsed_ms(&t0);
	if (st < 0) {
		printf("removal %s %s >%d ms (did not return)\n", ulp->name,
		       mode, DELETE_MS);
		EXPECT_LE(0, st) TH_LOG("rdma link delete rxe0 under %s I/O (%s) %s",
					ulp->name, mode, "did not return within 30 s");
		dump_blocked(_metadata, self->deleter);
		/* Once it returns, the rest of the case still tells. */
		st = unstick(_metadata, ulp, &self->conn, self->deleter);
		self->connected = false;
		self->target = false;
		ASSERT_LE(0, st) TH_LOG("still stuck with the %s torn down",
					ulp->name);
	} else {
		printf("removal %s %s %ld ms\n", ulp->name, mode, ms);
		TH_LOG("rdma link delete rxe0 under %s I/O (%s): %ld ms",
		       ulp->name, mode, ms);
	}
	self->deleter = 0;
	ASSERT_EQ(0, st) TH_LOG("rdma link delete rxe0 failed");

	/* I/O to the lost device fails, it does not hang. */
	kill(self->io, SIGKILL);
	EXPECT_LE(0, wait_child(self->io, 15000))
		TH_LOG("I/O on %s still blocked 15 s after the removal",
		       self->conn.dev);
	self->io = 0;
	EXPECT_EQ(0, ulp->released(&self->conn))
		TH_LOG("%s kept its connection to the removed device", ulp->name);
	EXPECT_EQ(0, cqpool_empty(&t))
		TH_LOG("cqpool holds %llu CQs, %llu users, %llu entries, %llu pools",
		       t.cqs, t.users, t.reserved, t.pools);
	if (variant->takeover)
		EXPECT_EQ(0, read_long(TK_RES));
	/* Before rxe0 is back, or iSER's recovery would log in again. */
	EXPECT_EQ(0, ulp->disconnect(&self->conn));
	self->connected = false;

	if (variant->takeover) {
		EXPECT_EQ(0, takeover_unload())
			TH_LOG("cqpool_takeover.ko cannot be unloaded");
		self->takeover = false;
	}
	EXPECT_EQ(0, cqpool_unload())
		TH_LOG("cqpool.ko or cqpool_harness.ko cannot be unloaded");
	ASSERT_EQ(0, cqpool_reload());

	ASSERT_EQ(0, rxe_add());
	ASSERT_EQ(0, rxe_active()) TH_LOG("rxe0 added back is not ACTIVE");
	ASSERT_EQ(0, wait_device_listed("rxe0", 1));
	/* The target's objects on the old rxe0 go with it. */
	EXPECT_EQ(0, ulp->target_down());
	self->target = true;
	ASSERT_EQ(0, ulp->target_up())
		TH_LOG("%s target setup on the new rxe0 failed", ulp->name);
	if (variant->takeover) {
		ASSERT_EQ(0, takeover_load());
		self->takeover = true;
	}
	/* The new rxe0 has no CQ of an earlier case: what it gains is this one's. */
	ASSERT_EQ(0, rdma_cqs(NULL, &base));
	self->connected = true;
	ASSERT_EQ(0, ulp->connect(&self->conn))
		TH_LOG("%s connection over the new rxe0 failed", ulp->name);
	EXPECT_EQ(0, io_check(self->conn.dev, ulp->backing))
		TH_LOG("I/O through %s did not give back identical data",
		       self->conn.dev);
	if (variant->takeover)
		EXPECT_LT(0, read_long(TK_RES));
	ASSERT_EQ(0, rdma_cqs(NULL, &on));
	ASSERT_EQ(0, ulp->disconnect(&self->conn));
	self->connected = false;
	if (variant->takeover) {
		/* A target releases its queues from a work item, a little later. */
		EXPECT_EQ(0, wait_file(TK_RES, 0, 10));
		EXPECT_EQ(0, wait_no_cqs())
			TH_LOG("cqpool kept CQs after the idle timeout");
	}
	ASSERT_EQ(0, rdma_cqs(NULL, &off));
	EXPECT_LT(base.cqs, on.cqs) TH_LOG("%s took no CQ", ulp->name);
	printf("footprint %s %s %lld %lld %lld %lld\n", ulp->name, mode,
	       (long long)(on.cqs - base.cqs), (long long)(on.cqes - base.cqes),
	       (long long)(off.cqs - base.cqs), (long long)(off.cqes - base.cqes));
	ksft_print_msg("%s (%s): removal under I/O in %ld ms, then %s\n",
		       ulp->name, mode, ms,
		       "unloaded, rxe0 back and a new connection with I/O");
}

TEST_HARNESS_MAIN
