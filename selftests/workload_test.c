// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the mixed workload of the design notes, 1024 reservations
 * cycling through ULP-like sizes, on cqpool's shared pool and on
 * upstream's ib_cq_pool_get(), side by side on rxe0.  It prints the
 * figures (make demo shows them) and checks that cqpool needs less.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/cqpool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

/* CQs and entries `rdma res show cq` lists for rxe0 under @comm. */
static int rdma_res_cqs(const char *comm, unsigned long long *cqs,
			unsigned long long *cqes)
{
	char line[512], tag[64];
	unsigned int cqe;
	FILE *p;

	*cqs = *cqes = 0;
	snprintf(tag, sizeof(tag), "[%s]", comm);
	p = popen("/usr/bin/rdma res show cq dev rxe0 2>/dev/null", "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *at = strstr(line, " cqe ");

		if (strstr(line, tag) && at && sscanf(at, " cqe %u", &cqe) == 1) {
			(*cqs)++;
			*cqes += cqe;
		}
	}
	return pclose(p) ? -1 : 0;
}

FIXTURE(workload) {
	int fd;
};

FIXTURE_SETUP(workload)
{
	/*
	 * The figures go to stdout from the harness's forked child, which
	 * leaves with _exit(): line buffering keeps them when stdout is a
	 * file or a pipe.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ASSERT_EQ(0, pools_quiesce(100))
		TH_LOG("reservations or CQs left over from before");
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(workload)
{
	close(self->fd);
	set_idle_timeout(30000);
}

/*
 * The mixed workload of the design notes: 1024 reservations cycling
 * through ULP-like sizes, on cqpool's shared pool and on upstream's
 * ib_cq_pool_get(), side by side on the same device.
 */
TEST_F(workload, mixed_workload_against_upstream)
{
	static const unsigned int sizes[] = { 33, 129, 385, 1025, 65, 257 };
	unsigned long long up_cqs0, up_cqes0, up_cqs, up_cqes;
	unsigned long long reserved = 0;
	static struct cqpool_cq_get g[1024];
	struct totals t;
	int i;

	for (i = 0; i < 1024; i++) {
		reserved += sizes[i % 6];
		ASSERT_EQ(0, shared_get(self->fd, sizes[i % 6], &g[i]));
	}
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(reserved, t.reserved);
	EXPECT_LE(t.reserved, t.cqes);
	ksft_print_msg("cqpool: %llu reservations of %llu CQEs in %llu CQs of %llu CQEs (%.3fx)\n",
		       t.users, t.reserved, t.cqs, t.cqes,
		       (double)t.cqes / t.reserved);
	for (i = 0; i < 1024; i++)
		ASSERT_EQ(0, put(self->fd, g[i].id));
	ASSERT_EQ(0, wait_no_cqs());
	ksft_print_msg("cqpool: after release and the idle timeout: 0 CQs\n");

	ASSERT_EQ(0, rdma_res_cqs("ib_core", &up_cqs0, &up_cqes0));
	for (i = 0; i < 1024; i++) {
		g[i].flags = CQPOOL_CQ_GET_UPSTREAM;
		g[i].nr_cqe = sizes[i % 6];
		g[i].vector_hint = -1;
		ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_CQ_GET, &g[i]));
	}
	ASSERT_EQ(0, rdma_res_cqs("ib_core", &up_cqs, &up_cqes));
	ksft_print_msg("upstream: %llu CQs of %llu CQEs (%.3fx); %llu CQs before\n",
		       up_cqs - up_cqs0, up_cqes - up_cqes0,
		       (double)(up_cqes - up_cqes0) / reserved, up_cqs0);
	for (i = 0; i < 1024; i++)
		ASSERT_EQ(0, put(self->fd, g[i].id));
	ASSERT_EQ(0, rdma_res_cqs("ib_core", &up_cqs, &up_cqes));
	ksft_print_msg("upstream: after release: %llu CQs, %llu CQEs stay allocated\n",
		       up_cqs, up_cqes);
	/* The point of cqpool: less memory for the same reservations. */
	EXPECT_LT(t.cqes, up_cqes - up_cqes0);
}

TEST_HARNESS_MAIN
