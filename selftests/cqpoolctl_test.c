// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: cqpoolctl, the harness's command line, against the real
 * module: what it lists, a side-by-side run of the three kinds of CQ,
 * and errors that name the problem and the fix.  The VM payload has it
 * at /payload/cqpoolctl.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define CQPOOLCTL	"/payload/cqpoolctl"
#define ON_RXE		" --device rxe0"

/*
 * Runs @cmd as @uid (0: as is), its stdout and stderr into @buf: its
 * exit status.
 */
static int run_as(uid_t uid, const char *cmd, char *buf, size_t len)
{
	size_t n = 0;
	int fds[2], status;
	ssize_t r;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(126);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (n + 1 < len && (r = read(fds[0], buf + n, len - n - 1)) > 0)
		n += r;
	buf[n] = 0;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run(const char *cmd, char *buf, size_t len)
{
	return run_as(0, cmd, buf, len);
}

static char out[1 << 16];

/* Runs cqpoolctl with @args: its exit status, its output in out[]. */
static int ctl(const char *args)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "%s %s", CQPOOLCTL, args);
	return run(cmd, out, sizeof(out));
}

TEST(devices_lists_rxe0_in_json)
{
	ASSERT_EQ(0, ctl("--json devices")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"name\":\"rxe0\"")) TH_LOG("%s", out);
}

FIXTURE(traffic) {
	int unused;
};

FIXTURE_SETUP(traffic)
{
}

FIXTURE_TEARDOWN(traffic)
{
	set_idle_timeout(30000);
}

TEST_F_TIMEOUT(traffic, run_all_modes_side_by_side, 180)
{
	ASSERT_EQ(0, pools_quiesce(100));
	ASSERT_EQ(0, ctl("run --mode all --profile nvme-rdma --connections 4 --seconds 1" ON_RXE))
		TH_LOG("%s", out);
	TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "QP pairs"));
	EXPECT_NE(NULL, strstr(out, "upstream"));
	EXPECT_NE(NULL, strstr(out, "per-QP CQ"));
	/* Everything it made went with it, but the CQs' idle timeout. */
	EXPECT_EQ(0, wait_no_cqs());
}

/*
 * The growth policy's measurements besides the storms: the device's
 * resize against a second CQ, the mixed workload on an owned pool that
 * opts in to resizing, made and destroyed each round, and the turnover of
 * reservations on the three pools.
 */
TEST(bench_growth_mixed_with_resize_and_turnover)
{
	struct totals before, after;

	ASSERT_EQ(0, ctl("--json bench --kind growth --nr-cqe 100 --iterations 2 --rounds 2"
			 ON_RXE)) TH_LOG("%s", out);
	/* rxe makes 127 entries of 100; grown to twice that plus one */
	EXPECT_NE(NULL, strstr(out, "\"grown_cqes\":255,\"second_cqes\":127,"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"resize_ratio_rounds\":[")) TH_LOG("%s", out);

	/* each round's pool is destroyed after it, or the command fails */
	ASSERT_EQ(0, read_totals(&before));
	ASSERT_EQ(0, ctl("--json bench --kind mixed --resize --modes cqpool --iterations 64"
			 ON_RXE)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"resize\":true")) TH_LOG("%s", out);
	/* ten rounds of the six sizes (1894 entries), then 33, 129, 385, 1025 */
	EXPECT_NE(NULL, strstr(out, "\"reserved\":[20512,")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "held_after_idle")) TH_LOG("%s", out);
	/* it left no CQ or pool behind, whatever the shared pools hold */
	EXPECT_EQ(0, wait_cqs_at_most(before.cqs));
	ASSERT_EQ(0, read_totals(&after));
	EXPECT_LE(after.pools, before.pools);

	/* 512 reservations, 4 steps of 128 given back and made: a sample each */
	ASSERT_EQ(0, ctl("--json bench --kind turnover --iterations 4 --poll unbound"
			 ON_RXE)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"cqpool\":{\"worst\":")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"cqpool_resize\":{\"worst\":")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"upstream\":{\"worst\":")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"steps\":4,")) TH_LOG("%s", out);
	ASSERT_EQ(0, read_totals(&after));
	EXPECT_EQ(0, after.users) TH_LOG("turnover left reservations behind");
}

TEST(unknown_device_names_the_fix)
{
	EXPECT_EQ(1, ctl("run --mode cqpool --profile nvme-rdma --device nosuch0 --seconds 1"));
	EXPECT_NE(NULL, strstr(out, "nosuch0")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "cqpoolctl devices")) TH_LOG("%s", out);
}

TEST(non_root_is_told_it_needs_root)
{
	EXPECT_EQ(1, run_as(65534, CQPOOLCTL " devices", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "root")) TH_LOG("%s", out);
}

TEST(every_subcommand_has_help)
{
	static const char *const cmds[] = {
		"devices", "pools", "run", "events", "inject", "bench",
	};
	char cmd[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		snprintf(cmd, sizeof(cmd), CQPOOLCTL " %s --help", cmds[i]);
		EXPECT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s", cmd);
		EXPECT_NE(NULL, strstr(out, cmds[i])) TH_LOG("%s", out);
	}
}

TEST_HARNESS_MAIN
