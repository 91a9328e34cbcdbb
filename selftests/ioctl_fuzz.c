// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: a stateful, concurrent fuzzer of /dev/cqpool.  Random
 * ioctls - commands, sizes, directions and contents, most of them near a
 * valid argument so that they get past the first check - at least
 * FUZZ_CALLS of them, bounded in time, from FUZZ_THREADS threads on one
 * file descriptor and one more on a second, which it reopens now and
 * then.  Ids come from what earlier commands returned, so that commands
 * act on live objects of either file, while rxe0 is deleted and added
 * back, and cqpool_takeover.ko loaded and unloaded, underneath.  The
 * kernel must refuse each call with one of the ABI's errnos or carry it
 * out, and once the file descriptors are closed nothing may be left: no
 * reservation, no CQ after the idle timeout, no broken ledger (kmemleak
 * and the console's splat scan do the rest).
 *
 * CQPOOL_FUZZ_SEED picks the seed; the one used is printed.  Threads
 * make the run's order their own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "ulp.h"
#include "verdict.h"

#define FUZZ_CALLS	100000
#define FUZZ_SECONDS	300
/* Threads on the first file descriptor; one more has the second. */
#define FUZZ_THREADS	4
/* The second one is new this often: closing it releases all it holds. */
#define FUZZ_REOPEN	2000
/*
 * Past its share of FUZZ_CALLS, a worker goes on calling until the chaos
 * has made its rounds, so that calls still race every removal and every
 * load, but one call each this often.  Spinning, the five of them keep
 * the vCPUs busy, and a 6.12 patch transition rewrites every
 * cond_resched() call site, each rewrite syncing every CPU
 * (text_poke_bp()): under TCG one run took 256 s and 4.3 million calls,
 * where 6.1 takes 18 s.
 */
#define FUZZ_PACE_US	1000
#define ARG_MAX_SIZE	640
/* Command numbers: NR_CMDS, and now and then any other (fuzz_cmd()). */
#define FUZZ_NRS	64
/*
 * rxe0 deleted and added back, or the takeover loaded or unloaded, this
 * often; the run lasts at least CHAOS_ROUNDS of them, whatever its calls.
 */
#define CHAOS_SECONDS	1
#define CHAOS_ROUNDS	8

static __thread unsigned long long rng;
/* Where LIST writes: LIST_ROOM_ENTRIES of at most a page each, per thread. */
#define LIST_ROOM_ENTRIES	16
static __thread void *list_room;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

/*
 * Ids the kernel gave out, by kind, for commands to act on: what a
 * command takes is mostly one of these, of either file descriptor, now
 * and then made up.
 */
enum { ID_POOL, ID_RESV, ID_WATCH, ID_CONN, NR_ID_KINDS };
#define IDS_KEPT	32
static unsigned int ids[NR_ID_KINDS][IDS_KEPT];

static void id_learn(unsigned int kind, unsigned int id)
{
	__atomic_store_n(&ids[kind][rnd(IDS_KEPT)], id, __ATOMIC_RELAXED);
}

static unsigned int id_pick(unsigned int kind)
{
	unsigned int id = __atomic_load_n(&ids[kind][rnd(IDS_KEPT)],
					  __ATOMIC_RELAXED);

	return id && rnd(8) ? id : rnd(17);
}

/* The ids a successful command returned. */
static void learn(unsigned int nr, const void *arg)
{
	switch (nr) {
	case 0x01:
		id_learn(ID_POOL, ((const struct cqpool_pool_create *)arg)->id);
		break;
	case 0x03:
		id_learn(ID_RESV, ((const struct cqpool_cq_get *)arg)->id);
		break;
	case 0x05:
		id_learn(ID_WATCH, ((const struct cqpool_events_watch *)arg)->id);
		break;
	case 0x09:
		id_learn(ID_CONN, ((const struct cqpool_conn_create *)arg)->id);
		break;
	}
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
	g->pool_id = id_pick(ID_POOL);
	g->nr_cqe = 1 + rnd(300);
	g->vector_hint = (int)rnd(4) - 1;
	if (!rnd(4))
		g->flags |= CQPOOL_CQ_GET_HOOK;
}

static void ex_pool_destroy(void *arg)
{
	((struct cqpool_destroy *)arg)->id = id_pick(ID_POOL);
}

static void ex_cq_put(void *arg)
{
	((struct cqpool_destroy *)arg)->id = id_pick(ID_RESV);
}

static void ex_unwatch(void *arg)
{
	((struct cqpool_destroy *)arg)->id = id_pick(ID_WATCH);
}

static void ex_conn_destroy(void *arg)
{
	((struct cqpool_destroy *)arg)->id = id_pick(ID_CONN);
}

static void ex_watch(void *arg)
{
	struct cqpool_events_watch *w = arg;

	strcpy(w->device, "rxe0");
	w->event_mask = rnd(2) ? 0 : 1ULL << rnd(32);
}

static void ex_read(void *arg)
{
	((struct cqpool_events_read *)arg)->id =
		id_pick(rnd(2) ? ID_WATCH : ID_RESV);
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

	/*
	 * Connecting is slow: mostly leave the device name out.  Queues deep
	 * enough for traffic beside the slot the drain keeps.
	 */
	conn_attr(c, rnd(40) ? "" : "rxe0", rnd(3));
	c->pool_id = rnd(2) ? 0 : id_pick(ID_POOL);
	c->msg_size = rnd(8192);
	c->send_depth = 2 + rnd(31);
	c->recv_depth = 2 + rnd(31);
}

static void ex_traffic(void *arg)
{
	struct cqpool_traffic *t = arg;

	/* Mostly what any of the connections made takes: small and shallow. */
	t->conn_id = rnd(4) ? id_pick(ID_CONN) : 0;
	t->op = rnd(3);
	t->msg_size = 1 + (rnd(4) ? rnd(16) : rnd(8192));
	t->depth = 1 + (rnd(4) ? 0 : rnd(32));
	t->count = rnd(64);
}

static void ex_trigger(void *arg)
{
	struct cqpool_trigger *t = arg;

	t->kind = rnd(4);
	t->conn_id = id_pick(ID_CONN);
	if (t->kind == CQPOOL_TRIGGER_DEVICE_FATAL)
		strcpy(t->device, "rxe0");
}

static void ex_bench(void *arg)
{
	struct cqpool_bench *b = arg;

	b->kind = rnd(CQPOOL_BENCH_GROWTH + 1);
	b->cq_mode = rnd(3);
	strcpy(b->device, "rxe0");
	b->nr_cqe = 1 + rnd(64);
	b->prefill = b->kind == CQPOOL_BENCH_STORM ? 0 : 1 + rnd(2);
	b->iterations = 1 + rnd(32);
	if (b->kind == CQPOOL_BENCH_PARALLEL) {
		b->cq_mode = rnd(2);
		b->threads = 1 + rnd(4);
	}
	if (b->kind == CQPOOL_BENCH_GROWTH) {
		b->cq_mode = CQPOOL_CQ_PER_QP;
		b->prefill = 0;
		b->iterations = 1 + rnd(4);
	}
}

/* A valid argument of each command, by number (none for VERSION). */
static void (*const examples[NR_CMDS])(void *arg) = {
	[0x01] = ex_pool_create,
	[0x02] = ex_pool_destroy,
	[0x03] = ex_cq_get,
	[0x04] = ex_cq_put,
	[0x05] = ex_watch,
	[0x06] = ex_unwatch,
	[0x07] = ex_read,
	[0x08] = ex_list,
	[0x09] = ex_conn_create,
	[0x0a] = ex_conn_destroy,
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

	/*
	 * The kernel writes what it is asked to: keep it inside the room,
	 * or where no write can land (a mutated pointer could hit another
	 * thread's stack).
	 */
	if (nr == 0x08 && l->entries == (uintptr_t)list_room) {
		l->count %= LIST_ROOM_ENTRIES + 1;
		l->entry_size %= 4096 + 1;
	} else if (nr == 0x08) {
		l->entries = rnd(2) ? 0 : 0xffff800000000000ULL;
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
	unsigned int size = c->size, dir = c->dir, i, n;

	memset(arg, 0, ARG_MAX_SIZE);
	*nr = rnd(20) ? c->nr : rnd(FUZZ_NRS);
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

/* Each command's name, by number, for the log. */
static const char *const cmd_names[NR_CMDS] = {
	"VERSION", "POOL_CREATE", "POOL_DESTROY", "CQ_GET", "CQ_PUT",
	"EVENTS_WATCH", "EVENTS_UNWATCH", "EVENTS_READ", "LIST", "CONN_CREATE",
	"CONN_DESTROY", "TRAFFIC", "TRIGGER", "BENCH",
};

/*
 * What a run must have done, at least: objects made, reservations given
 * and given back, and traffic on a connection the fuzzer made, so that it
 * is shown to reach past the argument checks.  Runs on stock 6.1 did
 * about 3,200 POOL_CREATE, 2,400 CQ_GET and 950 CQ_PUT, and on the debug
 * kernel, where the removals under it fail most connects, 2 CONN_CREATE
 * and 4 TRAFFIC of a connection attempted in 100 calls (one in 40 now):
 * the floors are far enough below that a seed's luck does not fail a run,
 * and refusing every valid argument cannot pass one.
 */
static const struct floor floors[] = {
	{ 0x01, "POOL_CREATE", 100 },
	{ 0x03, "CQ_GET", 300 },
	{ 0x04, "CQ_PUT", 50 },
	{ 0x09, "CONN_CREATE", 1 },
	{ 0x0b, "TRAFFIC", 1 },
};

/* The errnos of the ABI (include/uapi/linux/cqpool.h), and EINTR. */
static int abi_errno(int e)
{
	switch (e) {
	case ENOTTY: case EINVAL: case E2BIG: case EFAULT: case ENODEV:
	case ENOENT: case EBUSY: case ENOSPC: case ENOTCONN: case ETIMEDOUT:
	case EOPNOTSUPP: case ENOMEM: case EPERM: case EADDRNOTAVAIL:
	case ECONNREFUSED: case EHOSTUNREACH: case EINTR: case EIO:
	case ENETUNREACH: case ECONNRESET: case EAGAIN: case ENOBUFS:
		return 1;
	}
	return 0;
}

struct worker {
	pthread_t thread;
	int fd;			/* the shared one; -1: a file of its own */
	unsigned long long seed;
	unsigned long calls, ok, unknown, by_errno[140];
	/* Successful calls by command number (FUZZ_NRS: any the fuzzer makes). */
	unsigned long ok_by_nr[FUZZ_NRS];
	int last_unknown;
};

static int fuzz_stop;
/* Rounds the chaos child has done, in memory it shares. */
static unsigned int *chaos_done;

static void *fuzz_worker(void *p)
{
	struct worker *w = p;
	unsigned char *arg, *guard;
	int fd = w->fd, own = w->fd < 0;

	rng = w->seed | 1;
	/* A page of argument, then one the kernel must not touch. */
	arg = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	list_room = mmap(NULL, LIST_ROOM_ENTRIES * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arg == MAP_FAILED || list_room == MAP_FAILED)
		return NULL;
	guard = arg + 4096;
	mprotect(guard, 4096, PROT_NONE);

	while (!__atomic_load_n(&fuzz_stop, __ATOMIC_RELAXED) &&
	       (w->calls < FUZZ_CALLS / (FUZZ_THREADS + 1) ||
		__atomic_load_n(chaos_done, __ATOMIC_RELAXED) < CHAOS_ROUNDS)) {
		unsigned long cmd;
		unsigned int nr;
		void *where;

		if (w->calls >= FUZZ_CALLS / (FUZZ_THREADS + 1))
			usleep(FUZZ_PACE_US);
		if (own && w->calls % FUZZ_REOPEN == 0) {
			if (fd >= 0)
				close(fd);
			fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
			if (fd < 0)
				break;
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
		__atomic_store_n(&w->calls, w->calls + 1, __ATOMIC_RELAXED);
		if (!ioctl(fd, cmd, where)) {
			w->ok++;
			w->ok_by_nr[nr]++;
			if (where == arg)
				learn(nr, arg);
		} else if (abi_errno(errno)) {
			w->by_errno[errno]++;
		} else {
			w->unknown++;
			w->last_unknown = errno;
		}
	}
	if (own && fd >= 0)
		close(fd);
	munmap(arg, 2 * 4096);
	munmap(list_room, LIST_ROOM_ENTRIES * 4096);
	return NULL;
}

/*
 * Underneath the workers, until killed: rxe0 deleted and added back, and
 * the takeover loaded or unloaded, every CHAOS_SECONDS.  A removal gives
 * back what the sessions hold on rxe0; the takeover turns their upstream
 * commands into EBUSY.
 */
static void chaos(int takeover)
{
	unsigned int round;

	for (round = 0;; round++) {
		sleep(CHAOS_SECONDS);
		if (round % 2 == 0) {
			if (sh_bounded(60, "/usr/bin/rdma link delete rxe0"))
				_exit(2);
			if (rxe_add() || rxe_active())
				_exit(3);
		} else if (takeover) {
			if (round % 4 == 1 ? takeover_load() : takeover_unload())
				_exit(4);
		}
		__atomic_store_n(chaos_done, round + 1, __ATOMIC_RELAXED);
	}
}

FIXTURE(fuzz) {
	pid_t chaos;
};

FIXTURE_SETUP(fuzz)
{
	self->chaos = 0;
}

FIXTURE_TEARDOWN(fuzz)
{
	if (self->chaos > 0) {
		kill(self->chaos, SIGKILL);
		waitpid(self->chaos, NULL, 0);
	}
	takeover_unload();
	if (sh("/usr/bin/rdma link show rxe0/1"))
		rxe_add();
	rxe_active();
	set_idle_timeout(30000);
}

TEST_F_TIMEOUT(fuzz, random_ioctls_are_refused_or_done_and_leave_nothing,
	       FUZZ_SECONDS + 180)
{
	unsigned long calls = 0, ok = 0, unknown = 0, by_errno[140] = {};
	unsigned long ok_by_nr[FUZZ_NRS] = {};
	const struct floor *short_of;
	const char *seed = getenv("CQPOOL_FUZZ_SEED");
	struct worker w[FUZZ_THREADS + 1] = {};
	unsigned long long base;
	int shared, i, e, status;
	struct totals t;
	time_t end;

	ASSERT_EQ(0, pools_quiesce(100));
	base = seed ? strtoull(seed, NULL, 0) : (unsigned long long)time(NULL);
	TH_LOG("seed %llu, %d threads on one fd, one on another, rxe0 and %s cycling",
	       base, FUZZ_THREADS,
	       takeover_missing() ? "(no takeover here)" : "the takeover");
	shared = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, shared);
	chaos_done = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, chaos_done);

	self->chaos = fork();
	ASSERT_LE(0, self->chaos);
	if (self->chaos == 0)
		chaos(!takeover_missing());

	for (i = 0; i <= FUZZ_THREADS; i++) {
		w[i].fd = i < FUZZ_THREADS ? shared : -1;
		w[i].seed = base * (i + 1) + i;
		ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, fuzz_worker,
					    &w[i]));
	}
	end = time(NULL) + FUZZ_SECONDS;
	while (time(NULL) < end) {
		for (i = 0, calls = 0; i <= FUZZ_THREADS; i++)
			calls += __atomic_load_n(&w[i].calls, __ATOMIC_RELAXED);
		if (calls >= FUZZ_CALLS - FUZZ_THREADS &&
		    __atomic_load_n(chaos_done, __ATOMIC_RELAXED) >= CHAOS_ROUNDS)
			break;
		if (waitpid(self->chaos, &status, WNOHANG) == self->chaos) {
			self->chaos = 0;
			break;
		}
		sleep(1);
	}
	__atomic_store_n(&fuzz_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i <= FUZZ_THREADS; i++)
		pthread_join(w[i].thread, NULL);
	EXPECT_LT(0, self->chaos) TH_LOG("the chaos child stopped, status %d",
					 WEXITSTATUS(status));
	close(shared);

	for (i = 0, calls = 0; i <= FUZZ_THREADS; i++) {
		calls += w[i].calls;
		ok += w[i].ok;
		unknown += w[i].unknown;
		for (e = 0; e < 140; e++)
			by_errno[e] += w[i].by_errno[e];
		for (e = 0; e < FUZZ_NRS; e++)
			ok_by_nr[e] += w[i].ok_by_nr[e];
		if (w[i].unknown)
			TH_LOG("thread %d: errno %d outside the ABI", i,
			       w[i].last_unknown);
	}
	TH_LOG("%lu calls, %lu succeeded, %u rounds of chaos", calls, ok,
	       *chaos_done);
	for (e = 0; e < 140; e++)
		if (by_errno[e])
			TH_LOG("  %-12s %lu", strerrorname_np(e) ?: "other",
			       by_errno[e]);
	for (e = 0; e < NR_CMDS; e++)
		TH_LOG("  %-15s %lu succeeded", cmd_names[e], ok_by_nr[e]);
	EXPECT_LE(FUZZ_CALLS - FUZZ_THREADS, calls) TH_LOG("ran out of time");
	EXPECT_EQ(0, unknown);
	short_of = floor_unmet(floors, ARRAY_SIZE(floors), ok_by_nr);
	EXPECT_EQ(NULL, short_of)
		TH_LOG("%s: %lu succeeded, fewer than %lu: are valid arguments refused?",
		       short_of->what, ok_by_nr[short_of->nr], short_of->min);

	/* Every fd is closed: nothing of theirs may be left. */
	if (self->chaos > 0) {
		kill(self->chaos, SIGKILL);
		waitpid(self->chaos, NULL, 0);
		self->chaos = 0;
	}
	EXPECT_EQ(0, takeover_unload());
	if (sh("/usr/bin/rdma link show rxe0/1"))
		EXPECT_EQ(0, rxe_add());
	EXPECT_EQ(0, rxe_active());
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.users);
	EXPECT_EQ(0, t.reserved);
	EXPECT_EQ(0, t.broken);
	EXPECT_EQ(0, wait_no_cqs());
	munmap(chaos_done, 4096);
}

TEST_HARNESS_MAIN
