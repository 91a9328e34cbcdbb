// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: random /dev/cqpool ioctls - commands, sizes, directions and
 * contents, most of them near a valid argument so that they get past the
 * first check - at least FUZZ_CALLS of them, bounded in time.  The
 * kernel must refuse or carry out each one, and once the file
 * descriptors are closed nothing may be left: no reservation, no CQ
 * after the idle timeout, no broken ledger (kmemleak and the console's
 * splat scan do the rest).
 *
 * CQPOOL_FUZZ_SEED picks the seed; the one used is printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define FUZZ_CALLS	100000
#define FUZZ_SECONDS	300
/* A new file descriptor this often: closing one releases all it holds. */
#define FUZZ_REOPEN	5000
#define ARG_MAX_SIZE	640

static unsigned long long rng;
/* Where LIST writes: LIST_ROOM_ENTRIES of at most a page each. */
#define LIST_ROOM_ENTRIES	16
static void *list_room;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static void ex_pool_create(void *arg)
{
	pool_attr(arg);
}

static void ex_cq_get(void *arg)
{
	struct cqpool_cq_get *g = arg;

	strcpy(g->device, "rxe0");
	g->flags = rnd(3) ? CQPOOL_CQ_GET_SHARED : 0;
	g->pool_id = 1 + rnd(8);
	g->nr_cqe = 1 + rnd(300);
	g->vector_hint = (int)rnd(4) - 1;
	if (!rnd(4))
		g->flags |= CQPOOL_CQ_GET_HOOK;
}

static void ex_destroy(void *arg)
{
	((struct cqpool_destroy *)arg)->id = 1 + rnd(16);
}

static void ex_watch(void *arg)
{
	struct cqpool_events_watch *w = arg;

	strcpy(w->device, "rxe0");
	w->event_mask = rnd(2) ? 0 : 1ULL << rnd(32);
}

static void ex_read(void *arg)
{
	((struct cqpool_events_read *)arg)->id = 1 + rnd(16);
}

static void ex_list(void *arg)
{
	static const unsigned int sizes[] = {
		sizeof(struct cqpool_device_info),
		sizeof(struct cqpool_pool_info),
		sizeof(struct cqpool_cq_info),
		sizeof(struct cqpool_conn_info),
	};
	struct cqpool_list *l = arg;

	l->what = rnd(4);
	l->entry_size = sizes[l->what] + 8 * rnd(3);
	l->count = rnd(16);
	l->entries = (uintptr_t)list_room;
}

static void ex_conn_create(void *arg)
{
	struct cqpool_conn_create *c = arg;

	/* Connecting is slow: mostly leave the device name out. */
	conn_attr(c, rnd(200) ? "" : "rxe0", rnd(3));
	c->pool_id = rnd(3);
	c->msg_size = rnd(8192);
	c->send_depth = 1 + rnd(32);
	c->recv_depth = 1 + rnd(32);
}

static void ex_traffic(void *arg)
{
	struct cqpool_traffic *t = arg;

	t->conn_id = rnd(8);
	t->op = rnd(3);
	t->msg_size = 1 + rnd(8192);
	t->depth = 1 + rnd(32);
	t->count = rnd(64);
}

static void ex_trigger(void *arg)
{
	struct cqpool_trigger *t = arg;

	t->kind = rnd(4);
	t->conn_id = rnd(8);
	if (t->kind == CQPOOL_TRIGGER_DEVICE_FATAL)
		strcpy(t->device, "rxe0");
}

static void ex_bench(void *arg)
{
	struct cqpool_bench *b = arg;

	b->kind = rnd(4);
	b->cq_mode = rnd(3);
	strcpy(b->device, "rxe0");
	b->nr_cqe = 1 + rnd(64);
	b->prefill = b->kind == CQPOOL_BENCH_STORM ? 0 : 1 + rnd(2);
	b->iterations = 1 + rnd(32);
}

/* A valid argument of each command, by number (none for VERSION). */
static void (*const examples[NR_CMDS])(void *arg) = {
	[0x01] = ex_pool_create,
	[0x02] = ex_destroy,
	[0x03] = ex_cq_get,
	[0x04] = ex_destroy,
	[0x05] = ex_watch,
	[0x06] = ex_destroy,
	[0x07] = ex_read,
	[0x08] = ex_list,
	[0x09] = ex_conn_create,
	[0x0a] = ex_destroy,
	[0x0b] = ex_traffic,
	[0x0c] = ex_trigger,
	[0x0d] = ex_bench,
};

/*
 * Mutations may not turn an argument into hours of work: the kernel
 * bounds these too, but far above what a fuzz run can wait for.
 */
static void keep_it_short(unsigned int nr, void *arg)
{
	struct cqpool_traffic *t = arg;
	struct cqpool_bench *b = arg;
	struct cqpool_list *l = arg;

	/* The kernel writes what it is asked to: keep it inside the room. */
	if (nr == 0x08 && l->entries == (uintptr_t)list_room) {
		l->count %= LIST_ROOM_ENTRIES + 1;
		l->entry_size %= 4096 + 1;
	} else if (nr == 0x0b) {
		t->count %= 1000;
		t->duration_ms %= 100;
	} else if (nr == 0x0d) {
		b->iterations %= 100;
		b->prefill %= 3;
	}
}

/* A random command: mostly a mutated example, sometimes noise. */
static unsigned long fuzz_cmd(unsigned char *arg, unsigned int *nr)
{
	const struct cmd_info *c = &cmds[rnd(NR_CMDS)];
	unsigned int size = c->size, dir = _IOC_READ | _IOC_WRITE, i, n;

	memset(arg, 0, ARG_MAX_SIZE);
	*nr = rnd(20) ? c->nr : rnd(64);
	if (!rnd(10))
		size = rnd(ARG_MAX_SIZE);
	else if (!rnd(10))
		size += 8 * rnd(4);
	if (!rnd(20))
		dir = rnd(4);
	if (rnd(4) && examples[c->nr])
		examples[c->nr](arg);
	else
		for (i = 0; i < size; i++)
			arg[i] = rnd(256);
	if (size >= 4 && rnd(8))
		memcpy(arg, &size, 4);
	for (n = rnd(4), i = 0; i < n && size; i++)
		arg[rnd(size)] = rnd(2) ? 0 : rnd(256);
	keep_it_short(*nr, arg);
	return _IOC(dir, CQPOOL_IOC_MAGIC, *nr, size);
}

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
}

FIXTURE_TEARDOWN(fuzz)
{
	set_idle_timeout(30000);
}

TEST_F_TIMEOUT(fuzz, random_ioctls_are_refused_or_done_and_leave_nothing,
	       FUZZ_SECONDS + 120)
{
	unsigned long calls = 0, ok = 0, by_errno[140] = {};
	const char *seed = getenv("CQPOOL_FUZZ_SEED");
	unsigned char *arg, *guard;
	time_t end = time(NULL) + FUZZ_SECONDS;
	struct totals t;
	unsigned int nr;
	int fd = -1, e;

	ASSERT_EQ(0, pools_quiesce(100));
	rng = seed ? strtoull(seed, NULL, 0) : (unsigned long long)time(NULL);
	rng |= 1;
	TH_LOG("seed %llu", rng);
	/* A page of argument, then one the kernel must not touch. */
	arg = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, arg);
	guard = arg + 4096;
	ASSERT_EQ(0, mprotect(guard, 4096, PROT_NONE));
	list_room = mmap(NULL, LIST_ROOM_ENTRIES * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, list_room);

	while (calls < FUZZ_CALLS && time(NULL) < end) {
		unsigned long cmd;
		void *where;
		int ret;

		if (calls % FUZZ_REOPEN == 0) {
			if (fd >= 0)
				close(fd);
			fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
			ASSERT_LE(0, fd);
		}
		cmd = fuzz_cmd(arg, &nr);
		/* Now and then at a page's end, in the guard, or NULL. */
		where = arg;
		switch (rnd(100)) {
		case 0:
			where = NULL;
			break;
		case 1:
			where = guard;
			break;
		case 2:
			where = guard - _IOC_SIZE(cmd) / 2;
			memmove(where, arg, _IOC_SIZE(cmd) / 2);
			break;
		}
		ret = ioctl(fd, cmd, where);
		calls++;
		if (!ret)
			ok++;
		else
			by_errno[errno < 140 ? errno : 0]++;
	}
	close(fd);
	TH_LOG("%lu calls, %lu succeeded", calls, ok);
	for (e = 0; e < 140; e++)
		if (by_errno[e])
			TH_LOG("  %-12s %lu", strerrorname_np(e) ?: "other",
			       by_errno[e]);
	EXPECT_LE(FUZZ_CALLS, calls) TH_LOG("ran out of time");
	/* Success and the ordinary refusals, nothing else. */
	EXPECT_EQ(0, by_errno[0]);

	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.users);
	EXPECT_EQ(0, t.reserved);
	EXPECT_EQ(0, t.broken);
	EXPECT_EQ(0, wait_no_cqs());
	munmap(arg, 2 * 4096);
	munmap(list_room, LIST_ROOM_ENTRIES * 4096);
}

TEST_HARNESS_MAIN
