// SPDX-License-Identifier: GPL-2.0
/*
 * The kselftests' own checks (verdict.h), fed the bad cases on the host
 * (make check runs it before any VM): each must fail what it exists to
 * fail.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../verdict.h"

/* A child that exits with @code before it holds anything: not killed. */
TEST(a_child_that_exits_early_was_not_killed)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_FALSE(killed_by(status, SIGKILL));
}

TEST(a_child_killed_by_the_signal_sent_is)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0)
		for (;;)
			pause();
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(killed_by(status, SIGKILL));
	EXPECT_FALSE(killed_by(status, SIGTERM));
}

TEST(links_are_what_the_vm_made)
{
	EXPECT_TRUE(link_made("rxe0 siw0", "siw0"));
	EXPECT_TRUE(link_made("siw0", "siw0"));
	EXPECT_FALSE(link_made("rxe0", "siw0"));
	EXPECT_FALSE(link_made("rxe0 siw01", "siw0"));
	EXPECT_FALSE(link_made("", "siw0"));
	EXPECT_FALSE(link_made(NULL, "siw0"));
	setenv("CQPOOL_RDMA_LINKS", "rxe0 siw0", 1);
	EXPECT_TRUE(vm_link_made("siw0"));
	unsetenv("CQPOOL_RDMA_LINKS");
	EXPECT_FALSE(vm_link_made("siw0"));
}

TEST(a_fuzzer_whose_calls_all_fail_is_short_of_its_floor)
{
	static const struct floor f[] = {
		{ 1, "POOL_CREATE", 100 }, { 3, "CQ_GET", 300 },
	};
	unsigned long ok[64] = {};
	const struct floor *got;

	got = floor_unmet(f, 2, ok);
	ASSERT_NE(NULL, got);
	EXPECT_EQ(1, got->nr);
	ok[1] = 100;
	got = floor_unmet(f, 2, ok);
	ASSERT_NE(NULL, got);
	EXPECT_EQ(3, got->nr);
	ok[3] = 300;
	EXPECT_EQ(NULL, floor_unmet(f, 2, ok));
}

/* The exit status of the fixture @name, next to this binary. */
static int run_fixture(const char *name)
{
	char self[PATH_MAX], cmd[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status;

	if (n < 0)
		return -1;
	self[n] = 0;
	*strrchr(self, '/') = 0;
	snprintf(cmd, sizeof(cmd), "%s/%s >/dev/null 2>&1", self, name);
	status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(a_skip_after_a_failed_check_fails_the_binary)
{
	/* The harness's SKIP() erased the failure: the binary passed. */
	EXPECT_EQ(0, run_fixture("skip_after_failure_plain"));
	/* SKIP_REST() keeps it. */
	EXPECT_EQ(1, run_fixture("skip_after_failure"));
}

TEST_HARNESS_MAIN
