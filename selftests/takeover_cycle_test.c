// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the takeover enabled and disabled again and again while
 * NVMe-oF I/O runs.  One controller, connected on upstream's pool before
 * the first cycle, carries checked I/O throughout.  In each cycle the
 * takeover is loaded, a second controller connects (its queues reserve
 * through the takeover), the patch starts being disabled, and the second
 * controller is deleted while tasks switch back to ib_core's functions:
 * some of its puts go through the takeover, some through ib_core's own,
 * and the takeover settles those.  The test counts the cycles in which a
 * put came while the patch was being disabled (the takeover's
 * unpatch_puts), and fails if there is none: the race it exists for must
 * have happened.
 * Then the module is removed.  After every cycle nothing is left
 * reserved: not in the takeover's table, not in cqpool's pools.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "ulp.h"

/* Under KASAN or KCSAN (the debug kernels) a cycle takes 5x as long. */
#define CYCLES		50
#define CYCLES_DEBUG	10
/*
 * No cycle starts after this, once CYCLES_MIN have run.  On 6.12 a patch
 * transition starts and ends by rewriting every cond_resched() call site
 * (a static call there: sched_dynamic_klp_enable()), each with
 * text_poke_bp(), which syncs every CPU three times.  Under TCG a
 * transition then takes 6 to 46 s, against 1 s on 6.1, and 50 cycles
 * would take 10 to 75 minutes.
 */
#define CYCLES_MIN	2
#define CYCLES_BUDGET_S	120

static int cycles(void)
{
	const char *kind = getenv("CQPOOL_KERNEL");

	return kind && strcmp(kind, "stock") ? CYCLES_DEBUG : CYCLES;
}

/* A child checking I/O on @dev until it is told to stop: its pid. */
static pid_t io_loop(const char *dev)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			if (io_check(dev, NULL))
				_exit(1);
	}
	return pid;
}

/* 0 when the I/O child never saw a mismatch or an error. */
static int io_stop(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, WNOHANG) == pid)
		return -1;	/* it stopped by itself: an error */
	kill(pid, SIGTERM);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM ? 0 : -1;
}

FIXTURE(cycle) {
	int instance;
	pid_t io;
};

FIXTURE_SETUP(cycle)
{
	const char *missing = takeover_missing();
	char dev[64];

	self->instance = -1;
	self->io = -1;
	if (!missing)
		missing = nvme_missing();
	if (missing)
		SKIP(return, "%s", missing);
	ASSERT_EQ(0, pools_quiesce(200));
	ASSERT_EQ(0, nvme_target_up());
	self->instance = nvme_connect();
	ASSERT_LE(0, self->instance) TH_LOG("the upstream connection");
	ASSERT_EQ(0, nvme_namespace(self->instance, dev, sizeof(dev)));
	self->io = io_loop(dev);
	ASSERT_LT(0, self->io);
}

FIXTURE_TEARDOWN(cycle)
{
	if (self->io > 0)
		io_stop(self->io);
	takeover_unload();
	if (self->instance >= 0)
		nvme_disconnect(&self->instance);
	EXPECT_EQ(0, nvme_target_down());
}

/*
 * Deletes controller @instance in a child that waits for a byte on
 * @go[0]: its pid.
 */
static pid_t delete_when_told(int instance, int go[2])
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(nvme_delete(instance) ? 1 : 0);
	}
	close(go[0]);
	return pid;
}

TEST_F_TIMEOUT(cycle, enable_disable_under_io, 900)
{
	int i, second, n = cycles(), raced = 0, go[2], st;
	struct timespec t0, now;
	long before;
	struct totals t;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (i >= CYCLES_MIN && now.tv_sec - t0.tv_sec >= CYCLES_BUDGET_S)
			break;
		ASSERT_EQ(0, takeover_load()) TH_LOG("cycle %d: load", i);
		second = nvme_connect();
		ASSERT_LE(0, second) TH_LOG("cycle %d: connect", i);
		EXPECT_LT(0, read_long(TK_RES))
			TH_LOG("cycle %d: the new queues are not cqpool's", i);
		before = read_long(TK_UNPATCH_PUTS);
		/*
		 * The second controller goes while the patch is disabled: the
		 * delete in a child, the unpatch here at the same moment (on
		 * 6.12 writing "enabled" returns only once the transition is
		 * well on its way).  Its puts race the transition, some through
		 * the takeover's put and some through ib_core's, which the
		 * takeover settles; it counts both (unpatch_puts).
		 */
		ASSERT_EQ(0, pipe(go));
		pid = delete_when_told(second, go);
		ASSERT_LT(0, pid);
		ASSERT_EQ(1, write(go[1], "1", 1));
		close(go[1]);
		ASSERT_EQ(0, write_file(KLP "/enabled", "0"));
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
			TH_LOG("cycle %d: the delete failed", i);
		ASSERT_EQ(0, wait_file(KLP, -1, 60))
			TH_LOG("cycle %d: the unpatch did not end", i);
		ASSERT_EQ(0, wait_file(TK_RES, 0, 10))
			TH_LOG("cycle %d: %ld reservations never came back", i,
			       read_long(TK_RES));
		raced += read_long(TK_UNPATCH_PUTS) > before;
		ASSERT_EQ(0, takeover_unload()) TH_LOG("cycle %d: unload", i);
		ASSERT_EQ(0, read_totals(&t));
		ASSERT_EQ(0, t.users) TH_LOG("cycle %d: cqpool still has %llu",
					     i, t.users);
		ASSERT_EQ(0, t.broken);
	}
	EXPECT_EQ(0, io_stop(self->io)) TH_LOG("the upstream I/O failed");
	self->io = -1;
	EXPECT_EQ(0, wait_no_cqs());
	clock_gettime(CLOCK_MONOTONIC, &now);
	ksft_print_msg("%d of %d cycles under I/O in %ld s\n", i, n,
		       (long)(now.tv_sec - t0.tv_sec));
	ksft_print_msg("in %d a put came while the patch was being disabled\n",
		       raced);
	/* The race this test exists for happened. */
	EXPECT_LT(0, raced);
}

TEST_HARNESS_MAIN
