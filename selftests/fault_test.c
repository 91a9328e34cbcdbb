// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: failure injection on every allocation of the pool paths.
 *
 * fail-nth makes the n-th fault-injection point this task reaches fail
 * (with FAILSLAB, every slab allocation is one), for n = 1, 2, ... until
 * a run reaches no n-th point: then every allocation of the path has
 * failed once.  Each failure must come back as an error or be absorbed,
 * and leave no reservation, no CQ once released, and a ledger that passes
 * its own invariant check.  kmemleak, at the end of the VM run, finds
 * what leaked.  Kernels without fault injection (the stock one) skip.
 *
 * fail-nth fails whatever allocation the task reaches, in ib_core, rxe or
 * the VFS as well as in cqpool.  So each injected failure dumps its stack
 * to the kernel log (failslab's verbose 2), at the debug level, which the
 * console does not print, and the test reads it back from /dev/kmsg: a
 * failure landed in cqpool when a frame of cqpool.ko is on its stack.
 * Each path must see failures land there (its own minimum), or the test
 * proves nothing about cqpool's error paths.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define MAX_POINTS	400

static int set_fail_nth(unsigned int n)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", n);
	return write_file(FAIL_NTH, buf);
}

/* 1 when the armed failure was not reached: the path has no more points. */
static int fail_nth_left(void)
{
	char buf[16] = "";
	FILE *f = fopen(FAIL_NTH, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	set_fail_nth(0);
	return atoi(buf) != 0;
}

/*
 * The kernel log from the point of the last read: open, at its end, so
 * that what the test reads is what its own calls made the kernel print.
 */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * The failures injected since the last call whose stack passed through
 * cqpool.ko (a frame tagged "[cqpool]"), from the records of @fd, one a
 * read; *@all counts every failure injected.
 */
static unsigned int kmsg_in_cqpool(int fd, unsigned int *all)
{
	unsigned int in = 0;
	bool open_dump = false, here = false;
	char rec[2048];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten before it was read */
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, "FAULT_INJECTION: forcing a failure")) {
			in += open_dump && here;
			open_dump = true;
			here = false;
			(*all)++;
		} else if (open_dump && strstr(rec, " [cqpool]")) {
			here = true;
		}
	}
	return in + (open_dump && here);
}

FIXTURE(fault) {
	int fd;
	int kmsg;
	char printk[64];
};

static bool fault_injection(void)
{
	return !access(FAIL_NTH, W_OK) && !access(FAILSLAB, F_OK);
}

#define PRINTK		"/proc/sys/kernel/printk"

FIXTURE_SETUP(fault)
{
	FILE *f;

	self->fd = -1;
	self->kmsg = -1;
	self->printk[0] = 0;
	if (!fault_injection())
		return;		/* each test skips */
	/*
	 * GFP_KERNEL allocations too, and a stack dump per failure, which
	 * goes to the log at the default level: made the debug level, below
	 * what the console prints (loglevel=7), where warnings still are.
	 */
	f = fopen(PRINTK, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(self->printk, sizeof(self->printk), f));
	fclose(f);
	ASSERT_EQ(0, write_file(PRINTK, "7 7"));
	ASSERT_EQ(0, write_file(FAILSLAB "ignore-gfp-wait", "N"));
	ASSERT_EQ(0, write_file(FAILSLAB "verbose", "2"));
	ASSERT_EQ(0, set_idle_timeout(50));
	ASSERT_EQ(0, wait_no_cqs());
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(fault)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->kmsg >= 0)
		close(self->kmsg);
	if (self->printk[0]) {
		write_file(FAILSLAB "verbose", "0");
		write_file(PRINTK, self->printk);
	}
	set_idle_timeout(30000);
}

static void check_clean(struct __test_metadata *_metadata, unsigned int n)
{
	struct totals t;

	ASSERT_EQ(0, read_totals(&t)) TH_LOG("n=%u: ledger broken", n);
	EXPECT_EQ(0, t.users) TH_LOG("n=%u", n);
	EXPECT_EQ(0, t.reserved) TH_LOG("n=%u", n);
	EXPECT_EQ(0, wait_no_cqs()) TH_LOG("n=%u: CQs left", n);
}

/* An owned pool, a reservation, one that must grow the pool, teardown. */
TEST_F(fault, every_allocation_of_owned_pool_paths_may_fail)
{
	unsigned int n, injected = 0, in_cqpool = 0, all = 0;

	if (!fault_injection())
		SKIP(return, "kernel without FAULT_INJECTION/FAILSLAB");

	for (n = 1; n < MAX_POINTS; n++) {
		struct cqpool_pool_create c;
		struct cqpool_cq_get a = { .size = sizeof(a), .nr_cqe = 100,
					   .vector_hint = 0 };
		struct cqpool_cq_get b = a;
		int ra = -1, rb = -1, left;

		pool_attr(&c);
		ASSERT_EQ(0, set_fail_nth(n));
		if (!ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &c)) {
			a.pool_id = c.id;
			b.pool_id = c.id;
			b.nr_cqe = 3000;
			ra = ioctl(self->fd, CQPOOL_IOC_CQ_GET, &a);
			rb = ioctl(self->fd, CQPOOL_IOC_CQ_GET, &b);
		} else {
			EXPECT_EQ(ENOMEM, errno) TH_LOG("n=%u", n);
		}
		left = fail_nth_left();
		if (!ra)
			EXPECT_EQ(0, put(self->fd, a.id));
		if (!rb)
			EXPECT_EQ(0, put(self->fd, b.id));
		if (c.id)
			EXPECT_EQ(0, pool_destroy(self->fd, c.id));
		check_clean(_metadata, n);
		/* Read as it goes: the log is a ring. */
		in_cqpool += kmsg_in_cqpool(self->kmsg, &all);
		if (left)
			break;
		injected++;
	}
	ksft_print_msg("owned pool paths: %u allocations failed in turn, %u in cqpool.ko\n",
		       injected, in_cqpool);
	EXPECT_LT(3, injected);
	EXPECT_LT(2, in_cqpool) TH_LOG("%u failures injected", all);
	EXPECT_GT(MAX_POINTS - 1, n) TH_LOG("never ran out of points");
}

/* The shared pool: created on first use, reservation, growth. */
TEST_F(fault, every_allocation_of_shared_pool_paths_may_fail)
{
	unsigned int n, injected = 0, in_cqpool = 0, all = 0;

	if (!fault_injection())
		SKIP(return, "kernel without FAULT_INJECTION/FAILSLAB");

	for (n = 1; n < MAX_POINTS; n++) {
		struct cqpool_cq_get a, b;
		int ra, rb, left;

		ASSERT_EQ(0, set_fail_nth(n));
		ra = shared_get_on(self->fd, 100, 1, &a);
		rb = shared_get_on(self->fd, 3000, 1, &b);
		left = fail_nth_left();
		if (!ra)
			EXPECT_EQ(0, put(self->fd, a.id));
		if (!rb)
			EXPECT_EQ(0, put(self->fd, b.id));
		check_clean(_metadata, n);
		in_cqpool += kmsg_in_cqpool(self->kmsg, &all);
		if (left)
			break;
		injected++;
	}
	ksft_print_msg("shared pool paths: %u allocations failed in turn, %u in cqpool.ko\n",
		       injected, in_cqpool);
	EXPECT_LT(3, injected);
	EXPECT_LT(2, in_cqpool) TH_LOG("%u failures injected", all);
	EXPECT_GT(MAX_POINTS - 1, n) TH_LOG("never ran out of points");
}

/*
 * The sweep over every command: each runs with a valid argument, and,
 * when it made something, is undone.  0, or -1 with errno.
 */
static int op_pool(int fd)
{
	struct cqpool_pool_create c;

	pool_attr(&c);
	if (ioctl(fd, CQPOOL_IOC_POOL_CREATE, &c))
		return -1;
	return pool_destroy(fd, c.id);
}

static int op_get_hooked(int fd)
{
	struct cqpool_cq_get g;

	if (shared_get_flags(fd, 64, -1, CQPOOL_CQ_GET_HOOK, &g))
		return -1;
	return put(fd, g.id);
}

static int op_get_upstream(int fd)
{
	struct cqpool_cq_get g = {
		.size = sizeof(g),
		.flags = CQPOOL_CQ_GET_UPSTREAM,
		.poll_ctx = CQPOOL_POLL_SOFTIRQ,
		.nr_cqe = 64,
		.vector_hint = -1,
	};

	strcpy(g.device, "rxe0");
	if (ioctl(fd, CQPOOL_IOC_CQ_GET, &g))
		return -1;
	return put(fd, g.id);
}

static int op_watch(int fd)
{
	struct cqpool_events_watch w = { .size = sizeof(w) };

	strcpy(w.device, "rxe0");
	if (ioctl(fd, CQPOOL_IOC_EVENTS_WATCH, &w))
		return -1;
	return unwatch(fd, w.id);
}

static int op_list(int fd)
{
	struct cqpool_cq_info info[8];
	struct cqpool_list l = {
		.size = sizeof(l),
		.what = CQPOOL_LIST_CQS,
		.entry_size = sizeof(info[0]),
		.count = 8,
		.entries = (__u64)(unsigned long)info,
	};

	return ioctl(fd, CQPOOL_IOC_LIST, &l);
}

static int op_conn_traffic(int fd)
{
	struct cqpool_conn_create c;
	struct cqpool_traffic t = {
		.size = sizeof(t),
		.op = CQPOOL_OP_SEND,
		.msg_size = 64,
		.depth = 4,
		.count = 8,
	};
	int ret;

	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	if (ioctl(fd, CQPOOL_IOC_CONN_CREATE, &c))
		return -1;
	t.conn_id = c.id;
	ret = ioctl(fd, CQPOOL_IOC_TRAFFIC, &t);
	if (conn_destroy(fd, c.id))
		return -1;
	return ret;
}

static int op_bench(int fd)
{
	struct cqpool_bench b = {
		.size = sizeof(b),
		.kind = CQPOOL_BENCH_STORM,
		.cq_mode = CQPOOL_CQ_POOL,
		.poll_ctx = CQPOOL_POLL_WORKQUEUE,
		.nr_cqe = 33,
		.iterations = 16,
	};

	strcpy(b.device, "rxe0");
	return ioctl(fd, CQPOOL_IOC_BENCH, &b);
}

/*
 * Each command, and the least number of its failure points that must be
 * in cqpool.ko: one for those whose path allocates in cqpool (a pool, a
 * CQ's record, a growth), none for the rest, whose allocations are the
 * harness's and the kernel's own.  On the 6.1 debug kernel: POOL_CREATE
 * 3 of 18 points, CQ_GET 8 of 32, BENCH 45 of 112; CONN_CREATE 0 of 81
 * (its CQs are already in the shared pool by then).
 */
static const struct {
	const char *name;
	int (*op)(int fd);
	unsigned int min_in_cqpool;
} sweep[] = {
	{ "POOL_CREATE+DESTROY", op_pool, 1 },
	{ "CQ_GET(shared, hook)+PUT", op_get_hooked, 1 },
	{ "CQ_GET(upstream)+PUT", op_get_upstream, 0 },
	{ "EVENTS_WATCH+UNWATCH", op_watch, 0 },
	{ "LIST(cqs)", op_list, 0 },
	{ "CONN_CREATE+TRAFFIC+DESTROY", op_conn_traffic, 0 },
	{ "BENCH(storm)", op_bench, 1 },
};

/*
 * Every command, with every allocation of its path failing in turn: a
 * clean errno, and nothing left behind.
 */
TEST_F_TIMEOUT(fault, every_command_fails_cleanly_at_every_point, 900)
{
	unsigned int i, n, points, total = 0, in_cqpool, all;

	if (!fault_injection())
		SKIP(return, "kernel without FAULT_INJECTION/FAILSLAB");

	for (i = 0; i < ARRAY_SIZE(sweep); i++) {
		points = 0;
		in_cqpool = 0;
		all = 0;
		kmsg_in_cqpool(self->kmsg, &all);
		all = 0;
		for (n = 1; n < MAX_POINTS; n++) {
			int ret, e, left;

			ASSERT_EQ(0, set_fail_nth(n));
			ret = sweep[i].op(self->fd);
			e = errno;
			left = fail_nth_left();
			/* ENOBUFS: what the CM says when its allocation fails. */
			if (ret)
				EXPECT_TRUE(e == ENOMEM || e == ENOBUFS ||
					    e == ENODEV || e == ECONNREFUSED ||
					    e == EIO || e == ETIMEDOUT ||
					    e == ENOTCONN)
					TH_LOG("%s, n=%u: errno %d", sweep[i].name,
					       n, e);
			check_clean(_metadata, n);
			in_cqpool += kmsg_in_cqpool(self->kmsg, &all);
			if (left)
				break;
			points++;
		}
		ksft_print_msg("%s: %u fault points, %u of them in cqpool.ko\n",
			       sweep[i].name, points, in_cqpool);
		EXPECT_GT(MAX_POINTS - 1, n) TH_LOG("%s never ran out of points",
						    sweep[i].name);
		EXPECT_LE(sweep[i].min_in_cqpool, in_cqpool)
			TH_LOG("%s: %u failures injected, too few in cqpool.ko",
			       sweep[i].name, all);
		total += points;
	}
	ksft_print_msg("%u (command, n) fault points exercised\n", total);
	EXPECT_LT(20, total);
}

TEST_HARNESS_MAIN
