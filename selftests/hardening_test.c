// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: /dev/cqpool held to what a system call surface owes its
 * callers.  One test per defect a review of the ioctls found: a clear
 * errno for what makes no sense, nothing left behind by a command that
 * fails, and no command for a process that lost the privilege.
 *
 * A second rxe device, rxe1 on the other end of the veth pair, is made
 * for the cross-device case, so that it runs on the stock kernel, which
 * has no siw.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "ulp.h"
#include "verdict.h"

/* The entries LIST has of @what: its count, or -1. */
static int list_count(int fd, unsigned int what, unsigned int entry_size)
{
	struct cqpool_list l = {
		.size = sizeof(l),
		.what = what,
		.entry_size = entry_size,
	};

	return ioctl(fd, CQPOOL_IOC_LIST, &l) ? -1 : (int)l.count;
}

static int pools(int fd)
{
	return list_count(fd, CQPOOL_LIST_POOLS,
			  sizeof(struct cqpool_pool_info));
}

static int conns(int fd)
{
	return list_count(fd, CQPOOL_LIST_CONNS,
			  sizeof(struct cqpool_conn_info));
}

/* Reservations on rxe0, from debugfs: -1 if unreadable. */
static long long users(void)
{
	struct totals t;

	return read_totals(&t) ? -1 : (long long)t.users;
}

/*
 * A copy of @arg in a page the kernel can read but not write: the
 * command runs, its copy back fails.
 */
static void *read_only_copy(const void *arg, size_t len)
{
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		return NULL;
	memcpy(page, arg, len);
	if (mprotect(page, 4096, PROT_READ)) {
		munmap(page, 4096);
		return NULL;
	}
	return page;
}

/* In a child: drop to nobody, with no capability, then run @fn on @fd. */
static int as_nobody(int fd, int (*fn)(int fd))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(200);
		_exit(fn(fd) ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int try_pool_create(int fd)
{
	struct cqpool_pool_create c;

	pool_attr(&c);
	return ioctl(fd, CQPOOL_IOC_POOL_CREATE, &c);
}

static int try_bench(int fd)
{
	struct cqpool_bench b = {
		.size = sizeof(b),
		.kind = CQPOOL_BENCH_GET_PUT,
		.cq_mode = CQPOOL_CQ_POOL,
		.poll_ctx = CQPOOL_POLL_WORKQUEUE,
		.nr_cqe = 16,
		.prefill = 1,
		.iterations = 1,
	};

	strcpy(b.device, "rxe0");
	return ioctl(fd, CQPOOL_IOC_BENCH, &b);
}

static int try_list(int fd)
{
	return pools(fd) < 0 ? -1 : 0;
}

FIXTURE(hardening) {
	int fd;
	bool rxe1;
};

FIXTURE_SETUP(hardening)
{
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", CQPOOL_DEVICE_PATH,
				      strerror(errno));
}

FIXTURE_TEARDOWN(hardening)
{
	close(self->fd);
	if (self->rxe1)
		sh("/usr/bin/rdma link delete rxe1");
}

/* Defect 1: a CQ of one device under a QP of another. */
TEST_F(hardening, owned_pool_of_another_device_is_einval)
{
	struct cqpool_pool_create p;
	struct cqpool_conn_create c;
	int before;

	ASSERT_EQ(0, sh("/usr/bin/rdma link add rxe1 type rxe netdev v1"));
	self->rxe1 = true;
	ASSERT_EQ(0, wait_device_listed("rxe1", 1));
	pool_attr(&p);
	strcpy(p.device, "rxe1");
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &p));

	before = conns(self->fd);
	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	c.pool_id = p.id;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(before, conns(self->fd));
	if (conns(self->fd) > before)
		conn_destroy(self->fd, c.id);
	EXPECT_EQ(0, pool_destroy(self->fd, p.id));
}

/* Defect 2: a CQ smaller than the queues overruns, and a drain hangs. */
TEST_F(hardening, nr_cqe_below_both_depths_is_einval)
{
	static const unsigned int modes[] = {
		CQPOOL_CQ_POOL, CQPOOL_CQ_UPSTREAM, CQPOOL_CQ_PER_QP,
	};
	struct cqpool_conn_create c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		conn_attr(&c, "rxe0", modes[i]);
		c.send_depth = 256;
		c.recv_depth = 256;
		c.nr_cqe = 1;
		EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c))
			TH_LOG("mode %u took nr_cqe 1 for depths 256", modes[i]);
		EXPECT_EQ(EINVAL, errno);
		c.nr_cqe = 511;
		EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c))
			TH_LOG("mode %u took nr_cqe 511 for depths 256", modes[i]);
		EXPECT_EQ(EINVAL, errno);
	}
	EXPECT_EQ(0, conns(self->fd));
}

/*
 * Defect 3: a TRAFFIC held the file's lock for its whole run, and every
 * other command on the file slept, unkillable, behind it.
 */
TEST_F(hardening, traffic_does_not_hold_up_the_other_commands)
{
	struct cqpool_conn_create c;
	struct cqpool_traffic t = {
		.size = sizeof(t),
		.op = CQPOOL_OP_SEND,
		.msg_size = 512,
		.depth = 8,
		.duration_ms = 4000,
	};
	struct cqpool_cq_get g;
	int status;
	pid_t pid;

	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	t.conn_id = c.id;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(ioctl(self->fd, CQPOOL_IOC_TRAFFIC, &t) ? errno : 0);
	usleep(500 * 1000);

	/* All of these while the run (4 s) goes on. */
	EXPECT_LE(0, pools(self->fd));
	EXPECT_EQ(0, shared_get(self->fd, 16, &g));
	EXPECT_EQ(0, put(self->fd, g.id));
	EXPECT_EQ(-1, conn_destroy(self->fd, c.id));
	EXPECT_EQ(EBUSY, errno) TH_LOG("a connection in use was destroyed");
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_TRAFFIC, &t));
	EXPECT_EQ(EBUSY, errno) TH_LOG("a second run on the same fd");
	EXPECT_EQ(0, waitpid(pid, &status, WNOHANG))
		TH_LOG("the commands waited for the run to end");

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(0, conn_destroy(self->fd, c.id));
}

/*
 * Defect 4: the server's PD had a global rkey, which on a soft device
 * reaches all kernel memory.  RDMA WRITE traffic still runs: through a
 * registration of the server's buffer alone.
 */
TEST_F(hardening, no_pd_has_a_global_rkey)
{
	struct cqpool_conn_create c;
	struct cqpool_traffic t = {
		.size = sizeof(t),
		.op = CQPOOL_OP_WRITE,
		.msg_size = 512,
		.depth = 8,
		.count = 100,
	};

	conn_attr(&c, "rxe0", CQPOOL_CQ_POOL);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CONN_CREATE, &c));
	EXPECT_EQ(0, sh("/usr/bin/rdma res show pd | grep -q cqpool"))
		TH_LOG("rdma res show pd lists no PD of the harness");
	EXPECT_NE(0, sh("/usr/bin/rdma res show pd | grep -q unsafe_global_rkey"))
		TH_LOG("a PD with a global rkey");
	t.conn_id = c.id;
	EXPECT_EQ(0, ioctl(self->fd, CQPOOL_IOC_TRAFFIC, &t));
	/* A WRITE completes at the client alone. */
	EXPECT_EQ(100, t.completions);
	EXPECT_EQ(0, t.errors);
	EXPECT_EQ(0, conn_destroy(self->fd, c.id));
}

/* Defect 7: a command that made something, then could not say so. */
TEST_F(hardening, failed_copy_back_leaves_nothing_behind)
{
	struct cqpool_pool_create p;
	struct cqpool_cq_get g = {
		.size = sizeof(g),
		.flags = CQPOOL_CQ_GET_SHARED,
		.poll_ctx = CQPOOL_POLL_SOFTIRQ,
		.nr_cqe = 16,
		.vector_hint = -1,
	};
	int before = pools(self->fd);
	long long held = users();
	void *ro;

	ASSERT_LE(0, before);
	ASSERT_LE(0, held);
	pool_attr(&p);
	ro = read_only_copy(&p, sizeof(p));
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(before, pools(self->fd)) TH_LOG("a pool was left behind");
	munmap(ro, 4096);

	strcpy(g.device, "rxe0");
	ro = read_only_copy(&g, sizeof(g));
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CQ_GET, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(held, users()) TH_LOG("a reservation was left behind");
	munmap(ro, 4096);
}

/* Defect 7: PUT, the destroys and TRIGGER take their argument only. */
TEST_F(hardening, commands_without_output_take_a_read_only_argument)
{
	struct cqpool_destroy d = { .size = sizeof(d) };
	struct cqpool_pool_create p;
	void *ro;

	EXPECT_EQ(0, _IOC_DIR(CQPOOL_IOC_CQ_PUT) & _IOC_READ);
	EXPECT_EQ(0, _IOC_DIR(CQPOOL_IOC_POOL_DESTROY) & _IOC_READ);
	EXPECT_EQ(0, _IOC_DIR(CQPOOL_IOC_EVENTS_UNWATCH) & _IOC_READ);
	EXPECT_EQ(0, _IOC_DIR(CQPOOL_IOC_CONN_DESTROY) & _IOC_READ);
	EXPECT_EQ(0, _IOC_DIR(CQPOOL_IOC_TRIGGER) & _IOC_READ);

	pool_attr(&p);
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &p));
	d.id = p.id;
	ro = read_only_copy(&d, sizeof(d));
	ASSERT_NE(NULL, ro);
	EXPECT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_DESTROY, ro));
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_DESTROY, ro));
	EXPECT_EQ(ENOENT, errno);
	munmap(ro, 4096);
}

/* Defect 8: the first version of each struct is what the kernel takes. */
TEST_F(hardening, first_versions_are_accepted_and_no_less)
{
	struct cqpool_version v = { .size = CQPOOL_VERSION_SIZE_VER0 };
	static const unsigned int ver0[NR_CMDS] = {
		CQPOOL_VERSION_SIZE_VER0, CQPOOL_POOL_CREATE_SIZE_VER0,
		CQPOOL_DESTROY_SIZE_VER0, CQPOOL_CQ_GET_SIZE_VER0,
		CQPOOL_DESTROY_SIZE_VER0, CQPOOL_EVENTS_WATCH_SIZE_VER0,
		CQPOOL_DESTROY_SIZE_VER0, CQPOOL_EVENTS_READ_SIZE_VER0,
		CQPOOL_LIST_SIZE_VER0, CQPOOL_CONN_CREATE_SIZE_VER0,
		CQPOOL_DESTROY_SIZE_VER0, CQPOOL_TRAFFIC_SIZE_VER0,
		CQPOOL_TRIGGER_SIZE_VER0, CQPOOL_BENCH_SIZE_VER0,
	};
	unsigned int i;

	for (i = 0; i < NR_CMDS; i++) {
		unsigned int size = ver0[i] - 4;
		__u8 arg[512] = {};

		EXPECT_LE(ver0[i], cmds[i].size);
		memcpy(arg, &size, sizeof(size));
		EXPECT_EQ(-1, ioctl(self->fd, _IOC(cmds[i].dir,
						   CQPOOL_IOC_MAGIC,
						   cmds[i].nr, size), arg));
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s below its first version",
						cmds[i].type);
	}
	/* VERSION at its first size runs. */
	EXPECT_EQ(0, ioctl(self->fd, _IOC(_IOC_READ | _IOC_WRITE,
					  CQPOOL_IOC_MAGIC, 0,
					  CQPOOL_VERSION_SIZE_VER0), &v));
	EXPECT_EQ(CQPOOL_ABI_VERSION, v.abi_version);
}

/* Defect 9: masks past the last event, and hints below -1. */
TEST_F(hardening, event_mask_past_the_last_event_is_einval)
{
	struct cqpool_events_watch w = { .size = sizeof(w) };

	strcpy(w.device, "rxe0");
	w.event_mask = 1ULL << 40;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_EVENTS_WATCH, &w));
	EXPECT_EQ(EINVAL, errno);
	w.event_mask = 1ULL << 20;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_EVENTS_WATCH, &w));
	EXPECT_EQ(EINVAL, errno);
	w.event_mask = 1ULL << CQPOOL_EVENT_GID_CHANGE;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_EVENTS_WATCH, &w));
	EXPECT_EQ(0, unwatch(self->fd, w.id));
}

TEST_F(hardening, vector_hint_below_minus_one_is_einval)
{
	struct cqpool_cq_get g;
	long long held = users();

	EXPECT_EQ(-1, shared_get_on(self->fd, 16, -5, &g));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(held, users());
}

/* Defect 9: names kept whole, and nothing that reaches a terminal raw. */
TEST_F(hardening, pool_names_are_whole_and_printable)
{
	struct cqpool_pool_info info[64];
	struct cqpool_list l = {
		.size = sizeof(l),
		.what = CQPOOL_LIST_POOLS,
		.entry_size = sizeof(info[0]),
		.count = 64,
		.entries = (__u64)(unsigned long)info,
	};
	struct cqpool_pool_create p;
	int i, found = 0;

	pool_attr(&p);
	strcpy(p.name, "selftest\n\x1b[2J");
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &p));
	EXPECT_EQ(EINVAL, errno);

	memset(p.name, 'n', sizeof(p.name) - 1);
	p.name[sizeof(p.name) - 1] = 0;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_POOL_CREATE, &p));
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_LIST, &l));
	for (i = 0; i < (int)l.count && i < 64; i++)
		found |= !strcmp(info[i].name, p.name);
	EXPECT_TRUE(found) TH_LOG("the 63-byte name was not listed whole");
	EXPECT_EQ(0, pool_destroy(self->fd, p.id));
}

/*
 * Defect 5: BENCH at the header's own maxima filled gigabytes of CQs and
 * could not be killed.
 */
TEST_F(hardening, bench_beyond_its_entry_limit_is_enospc)
{
	struct cqpool_bench b = {
		.size = sizeof(b),
		.kind = CQPOOL_BENCH_GET_PUT,
		.cq_mode = CQPOOL_CQ_POOL,
		.poll_ctx = CQPOOL_POLL_WORKQUEUE,
		.nr_cqe = 16,
		.prefill = 4096,
		.iterations = 1,
	};

	strcpy(b.device, "rxe0");
	/* 4096 CQs of 4096 entries per vector: past the limit on one. */
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(0, users());
}

TEST_F(hardening, bench_storm_flags_are_for_a_storm_on_cqpool_only)
{
	struct cqpool_bench b = {
		.size = sizeof(b),
		.flags = CQPOOL_BENCH_F_SHARED,
		.kind = CQPOOL_BENCH_GET_PUT,
		.cq_mode = CQPOOL_CQ_POOL,
		.poll_ctx = CQPOOL_POLL_SOFTIRQ,
		.nr_cqe = 16,
		.prefill = 1,
		.iterations = 1,
	};

	strcpy(b.device, "rxe0");
	/* get/put needs a pool of fixed CQs: not the shared one */
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.kind = CQPOOL_BENCH_STORM;
	b.prefill = 0;
	b.cq_mode = CQPOOL_CQ_UPSTREAM;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.cq_mode = CQPOOL_CQ_POOL;
	b.flags = CQPOOL_BENCH_F_RESIZE << 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	/* the shared pool never resizes: not both */
	b.flags = CQPOOL_BENCH_F_SHARED | CQPOOL_BENCH_F_RESIZE;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.flags = CQPOOL_BENCH_F_NO_RESIZE | CQPOOL_BENCH_F_RESIZE;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, users());
	/*
	 * A storm on the shared pool: its CQs count, and nothing is held.
	 * On the softirq pool, which the other tests' shared gets made: a
	 * device keeps its shared pools, and harness_test counts rxe0's.
	 */
	b.flags = CQPOOL_BENCH_F_SHARED;
	b.iterations = 4;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_GE(b.cqs, 1);
	EXPECT_EQ(4 * 16, b.reserved_cqes);
	EXPECT_EQ(0, users());
	/* and on fresh pools: growing by new CQs, and resizing in place */
	b.flags = CQPOOL_BENCH_F_NO_RESIZE;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(4 * 16, b.reserved_cqes);
	EXPECT_EQ(0, users());
	b.flags = CQPOOL_BENCH_F_RESIZE;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(4 * 16, b.reserved_cqes);
	EXPECT_EQ(0, users());
}

/*
 * The takeover's path: upstream's calls only, and only while the takeover
 * has them; then they reach cqpool's shared pool, through the livepatch
 * or with the takeover's functions called directly.
 */
TEST_F(hardening, bench_takeover_flag_is_for_upstreams_calls_taken_over)
{
	const char *missing = takeover_missing();
	struct cqpool_bench direct;
	struct cqpool_bench b = {
		.size = sizeof(b),
		.flags = CQPOOL_BENCH_F_TAKEOVER,
		.kind = CQPOOL_BENCH_STORM,
		.cq_mode = CQPOOL_CQ_POOL,
		/* the softirq pool, which the other tests' shared gets made */
		.poll_ctx = CQPOOL_POLL_SOFTIRQ,
		.nr_cqe = 16,
		.iterations = 64,
	};
	int ret, err;

	strcpy(b.device, "rxe0");
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.cq_mode = CQPOOL_CQ_PER_QP;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.cq_mode = CQPOOL_CQ_UPSTREAM;
	b.flags = CQPOOL_BENCH_F_TAKEOVER | CQPOOL_BENCH_F_SHARED;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.flags = CQPOOL_BENCH_F_TAKEOVER_DIRECT | CQPOOL_BENCH_F_TAKEOVER;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.flags = CQPOOL_BENCH_F_TAKEOVER_DIRECT;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(ENOENT, errno) TH_LOG("without the takeover loaded");
	b.flags = CQPOOL_BENCH_F_TAKEOVER;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(ENOENT, errno) TH_LOG("without the takeover loaded");
	EXPECT_EQ(0, users());
	if (missing)
		SKIP_REST(return, "%s", missing);

	/* Unloaded before any check, so that no later test finds it. */
	direct = b;
	direct.flags = CQPOOL_BENCH_F_TAKEOVER_DIRECT;
	ASSERT_EQ(0, takeover_load());
	ret = ioctl(self->fd, CQPOOL_IOC_BENCH, &b);
	err = errno;
	if (!ret) {
		ret = ioctl(self->fd, CQPOOL_IOC_BENCH, &direct);
		err = errno;
	}
	ASSERT_EQ(0, takeover_unload());
	ASSERT_EQ(0, ret) TH_LOG("taken over: errno %d", err);
	/* both storms' reservations were on cqpool's shared pool */
	EXPECT_LE(1, b.cqs);
	EXPECT_EQ(64 * 16, b.reserved_cqes);
	EXPECT_LE(1, direct.cqs);
	EXPECT_EQ(64 * 16, direct.reserved_cqes);
	EXPECT_EQ(0, users());
	/* upstream's own again: refused with either flag */
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &direct));
	EXPECT_EQ(ENOENT, errno);
}

/* A BENCH of @kind on rxe0: 16 entries a get, one CQ per vector filled. */
static struct cqpool_bench bench_arg(__u32 kind, __u32 iterations)
{
	struct cqpool_bench b = {
		.size = sizeof(b),
		.kind = kind,
		.cq_mode = CQPOOL_CQ_POOL,
		/* upstream's CQs stay: on a poll context no ULP test counts */
		.poll_ctx = CQPOOL_POLL_UNBOUND_WORKQUEUE,
		.nr_cqe = 16,
		.prefill = 1,
		.iterations = iterations,
	};

	strcpy(b.device, "rxe0");
	return b;
}

/*
 * Threads are PARALLEL's alone; its threads must find room on their
 * vectors; and a run holds nothing after it.
 */
TEST_F(hardening, bench_threads_are_for_parallel_alone)
{
	struct cqpool_bench b = bench_arg(CQPOOL_BENCH_GET_PUT, 1000);
	unsigned int mode;

	b.threads = 2;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.kind = CQPOOL_BENCH_PARALLEL;
	b.threads = 0;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.threads = CQPOOL_BENCH_MAX_THREADS + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.threads = 2;
	b.cq_mode = CQPOOL_CQ_PER_QP;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	/* two threads of 2048 on a vector: more than the room made on it */
	b.cq_mode = CQPOOL_CQ_POOL;
	b.threads = CQPOOL_BENCH_MAX_THREADS;
	b.nr_cqe = 2048;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(0, users());

	b.threads = 4;
	b.nr_cqe = 16;
	for (mode = CQPOOL_CQ_POOL; mode <= CQPOOL_CQ_UPSTREAM; mode++) {
		b.cq_mode = mode;
		b.get_ns = 0;
		b.put_ns = 1;
		ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_BENCH, &b))
			TH_LOG("mode %u: errno %d", mode, errno);
		EXPECT_LT(0, b.get_ns) TH_LOG("mode %u: no wall time", mode);
		EXPECT_EQ(0, b.put_ns);
		EXPECT_LE(1, b.cqs);
		EXPECT_EQ(0, users());
	}
}

/*
 * GROWTH times the device's verbs alone: no pool, no prefill, no threads,
 * a first CQ the device can hold twice; and it leaves nothing behind.
 */
TEST_F(hardening, bench_growth_is_the_verbs_alone)
{
	struct cqpool_bench b = bench_arg(CQPOOL_BENCH_GROWTH, 2);

	/* bench_arg()'s pool and prefill are not GROWTH's */
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.prefill = 0;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.cq_mode = CQPOOL_CQ_PER_QP;
	b.iterations = CQPOOL_BENCH_GROWTH_ITER + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.iterations = 2;
	b.nr_cqe = CQPOOL_BENCH_GROWTH_MAX + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	/* rxe holds 32767 entries at most: not twice this */
	b.nr_cqe = 32767;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.nr_cqe = 100;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_BENCH, &b)) TH_LOG("errno %d", errno);
	EXPECT_LT(0, b.get_ns);
	EXPECT_LT(0, b.put_ns);
	EXPECT_EQ(2, b.cqs);
	/* the first CQ's real size, doubled plus one; the second's, real */
	EXPECT_LE(2 * 100 + 1, b.cqes);
	EXPECT_EQ(1, b.cqes % 2);
	EXPECT_LE(100, b.reserved_cqes);
	EXPECT_LE(2 * b.reserved_cqes + 1, b.cqes);
	EXPECT_EQ(0, users());
}

/* Percentiles in order, within the total they come from. */
static void expect_ordered(struct __test_metadata *_metadata, __u64 p50,
			   __u64 p90, __u64 p99, __u64 max, __u64 total)
{
	EXPECT_LT(0, p50);
	EXPECT_LE(p50, p90);
	EXPECT_LE(p90, p99);
	EXPECT_LE(p99, max);
	EXPECT_LE(max, total);
}

/* A run's get and put percentiles, each in order. */
static void expect_percentiles(struct __test_metadata *_metadata,
			       const struct cqpool_bench *b)
{
	expect_ordered(_metadata, b->get_p50_ns, b->get_p90_ns, b->get_p99_ns,
		       b->get_max_ns, b->get_ns);
	expect_ordered(_metadata, b->put_p50_ns, b->put_p90_ns, b->put_p99_ns,
		       b->put_max_ns, b->put_ns);
}

/*
 * Percentiles: zero in; out, LATENCY's of its calls for each mode, and a
 * batched kind's of its batches' time per call.
 */
TEST_F(hardening, bench_gives_ordered_percentiles)
{
	struct cqpool_bench b = bench_arg(CQPOOL_BENCH_LATENCY, 200);
	unsigned int mode;

	b.get_p90_ns = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.get_p90_ns = 0;
	for (mode = CQPOOL_CQ_POOL; mode <= CQPOOL_CQ_PER_QP; mode++) {
		b.cq_mode = mode;
		ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_BENCH, &b))
			TH_LOG("mode %u: errno %d", mode, errno);
		expect_percentiles(_metadata, &b);
		EXPECT_EQ(0, users());
		/* the percentiles are the struct's tail: zero in again */
		memset((char *)&b + offsetof(struct cqpool_bench, get_p50_ns), 0,
		       sizeof(b) - offsetof(struct cqpool_bench, get_p50_ns));
	}
	b.kind = CQPOOL_BENCH_GET_PUT;
	b.cq_mode = CQPOOL_CQ_POOL;
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_BENCH, &b));
	expect_percentiles(_metadata, &b);
	/*
	 * Per call, not per batch: half the batches take at least the
	 * median, so the mean is at least about half of it, where a batch's
	 * whole time would be 64 times it.
	 */
	EXPECT_LT(b.get_p50_ns, 8 * b.get_ns / b.iterations);
	EXPECT_LT(b.put_p50_ns, 8 * b.put_ns / b.iterations);
}

/*
 * The ledger alone: batched GET_PUT and CHURN on cqpool only, with the
 * batches' percentiles, and nothing held after it.
 */
TEST_F(hardening, bench_ledger_flag_is_for_batches_on_cqpool)
{
	static const struct {
		__u32 kind, cq_mode, flags, threads, prefill;
	} bad[] = {
		{ CQPOOL_BENCH_GET_PUT, CQPOOL_CQ_UPSTREAM, 0, 0, 2 },
		{ CQPOOL_BENCH_GET_PUT, CQPOOL_CQ_PER_QP, 0, 0, 2 },
		{ CQPOOL_BENCH_GET_PUT, CQPOOL_CQ_POOL, CQPOOL_BENCH_F_NO_RESIZE, 0, 2 },
		{ CQPOOL_BENCH_LATENCY, CQPOOL_CQ_POOL, 0, 0, 2 },
		{ CQPOOL_BENCH_PARALLEL, CQPOOL_CQ_POOL, 0, 1, 2 },
		{ CQPOOL_BENCH_STORM, CQPOOL_CQ_POOL, 0, 0, 0 },
	};
	__u32 kinds[] = { CQPOOL_BENCH_GET_PUT, CQPOOL_BENCH_CHURN };
	struct cqpool_bench b;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		b = bench_arg(bad[i].kind, 1000);
		b.cq_mode = bad[i].cq_mode;
		b.flags = CQPOOL_BENCH_F_LEDGER | bad[i].flags;
		b.threads = bad[i].threads;
		b.prefill = bad[i].prefill;
		EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_BENCH, &b)) TH_LOG("case %u", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %u", i);
	}
	EXPECT_EQ(0, users());

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		b = bench_arg(kinds[i], 1000);
		b.flags = CQPOOL_BENCH_F_LEDGER;
		b.prefill = 2;
		ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_BENCH, &b))
			TH_LOG("kind %u: errno %d", kinds[i], errno);
		expect_percentiles(_metadata, &b);
		/* the pool it copied: two CQs a vector, full */
		EXPECT_LE(2, b.cqs);
		EXPECT_LT(0, b.reserved_cqes);
		EXPECT_LE(b.reserved_cqes, b.cqes);
		EXPECT_EQ(0, users());
	}
}

TEST_F(hardening, bench_ends_when_its_caller_is_killed)
{
	struct cqpool_bench b = {
		.size = sizeof(b),
		.kind = CQPOOL_BENCH_GET_PUT,
		.cq_mode = CQPOOL_CQ_PER_QP,
		.poll_ctx = CQPOOL_POLL_WORKQUEUE,
		.nr_cqe = 16,
		.prefill = 1,
		.iterations = 1000000,
	};
	int status, i;
	pid_t pid;

	strcpy(b.device, "rxe0");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(ioctl(self->fd, CQPOOL_IOC_BENCH, &b) ? errno : 0);
	/* A million CQ allocations take minutes; the kill, no time. */
	sleep(1);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	for (i = 0; i < 100 && !waitpid(pid, &status, WNOHANG); i++)
		usleep(100 * 1000);
	EXPECT_LT(i, 100) TH_LOG("the killed BENCH ran on for 10 s");
	if (i == 100)
		waitpid(pid, &status, 0);
	EXPECT_TRUE(WIFSIGNALED(status));
}

/*
 * Defect 6: the limits were per file descriptor only; any number of
 * them could each hold the most.
 */
TEST_F(hardening, objects_are_limited_across_file_descriptors)
{
	int fds[CQPOOL_MAX_OBJECTS / CQPOOL_MAX_FD_OBJECTS];
	struct cqpool_cq_get g;
	unsigned int i, n;
	int extra;

	fds[0] = self->fd;
	for (i = 1; i < ARRAY_SIZE(fds); i++) {
		fds[i] = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fds[i]);
	}
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		for (n = 0; n < CQPOOL_MAX_FD_OBJECTS; n++)
			ASSERT_EQ(0, shared_get(fds[i], 1, &g))
				TH_LOG("fd %u, reservation %u", i, n);
	extra = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, extra);
	EXPECT_EQ(-1, shared_get(extra, 1, &g));
	EXPECT_EQ(ENOSPC, errno);
	close(extra);
	/* Closing one gives its share back. */
	close(fds[1]);
	fds[1] = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fds[1]);
	EXPECT_EQ(0, shared_get(fds[1], 1, &g));
	for (i = 1; i < ARRAY_SIZE(fds); i++)
		close(fds[i]);
}

/* Defect 10: the fd of a process that dropped its privilege. */
TEST_F(hardening, commands_need_the_privilege_not_just_the_open)
{
	int before = pools(self->fd);

	ASSERT_EQ(0, getuid()) TH_LOG("run as root: the test drops to nobody");
	EXPECT_EQ(EPERM, as_nobody(self->fd, try_pool_create));
	EXPECT_EQ(EPERM, as_nobody(self->fd, try_bench));
	EXPECT_EQ(EPERM, as_nobody(self->fd, try_list));
	EXPECT_EQ(before, pools(self->fd));
	/* The fd itself still works for the root that holds it. */
	EXPECT_EQ(0, try_list(self->fd));
}

TEST_HARNESS_MAIN
