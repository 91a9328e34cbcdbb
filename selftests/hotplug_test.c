// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: CPUs taken offline and back while reservations are held.
 * The vectors cqpool spreads over follow the online CPUs, as upstream's
 * ib_cq_pool_get() recomputes them on every call: a get after CPUs went
 * offline lands on a vector an online CPU serves, and reservations made
 * before on the vectors that went away are given back like any other.
 *
 * Needs a VM with at least 3 CPUs (check.sh boots one with 4 for it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define CPU_ONLINE	"/sys/devices/system/cpu/cpu%d/online"
#define NR_RESV		8

/* The nvec debugfs shows for rxe0, or -1. */
static int rxe_nvec(void)
{
	unsigned int vectors, nvec;
	char line[256], name[64];
	FILE *f = fopen(DEVICES, "r");
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %u %u", name, &vectors, &nvec) == 3 &&
		    !strcmp(name, "rxe0"))
			found = nvec;
	fclose(f);
	return found;
}

static int set_online(int cpu, int online)
{
	char path[64];

	snprintf(path, sizeof(path), CPU_ONLINE, cpu);
	return write_file(path, online ? "1" : "0");
}

FIXTURE(hotplug) {
	int fd;
	int cpus;
};

FIXTURE_SETUP(hotplug)
{
	self->fd = -1;
	self->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (self->cpus < 3)
		return;
	ASSERT_EQ(0, pools_quiesce(100));
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(hotplug)
{
	int cpu;

	/* Every CPU back, whatever happened. */
	for (cpu = 1; cpu < self->cpus; cpu++)
		set_online(cpu, 1);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(hotplug, vectors_follow_the_online_cpus)
{
	struct cqpool_cq_get before[NR_RESV], after;
	struct totals t;
	int i, cpu, left = 2;

	if (self->cpus < 3)
		SKIP(return, "%d CPUs: the test needs 3 or more", self->cpus);
	ASSERT_EQ(self->cpus, rxe_nvec())
		TH_LOG("rxe0 has a vector per CPU: nvec should be %d",
		       self->cpus);
	/* One reservation on each vector, the last ones included. */
	for (i = 0; i < NR_RESV; i++)
		ASSERT_EQ(0, shared_get_on(self->fd, 32, i, &before[i]));
	EXPECT_EQ(self->cpus - 1, before[self->cpus - 1].vector);

	for (cpu = left; cpu < self->cpus; cpu++)
		ASSERT_EQ(0, set_online(cpu, 0)) TH_LOG("cpu%d offline", cpu);
	EXPECT_EQ(left, rxe_nvec());

	/* Hinted or not, a get lands where an online CPU polls. */
	for (i = 0; i < NR_RESV; i++) {
		ASSERT_EQ(0, shared_get_on(self->fd, 32, i, &after));
		EXPECT_EQ(i % left, after.vector);
		EXPECT_EQ(0, put(self->fd, after.id));
		ASSERT_EQ(0, shared_get(self->fd, 32, &after));
		EXPECT_GT(left, after.vector);
		EXPECT_EQ(0, put(self->fd, after.id));
	}

	/* What was reserved on the vectors that went away goes back. */
	for (i = 0; i < NR_RESV; i++)
		EXPECT_EQ(0, put(self->fd, before[i].id));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.users);
	EXPECT_EQ(0, t.reserved);
	EXPECT_EQ(0, t.broken);

	for (cpu = left; cpu < self->cpus; cpu++)
		ASSERT_EQ(0, set_online(cpu, 1)) TH_LOG("cpu%d online", cpu);
	EXPECT_EQ(self->cpus, rxe_nvec());
	ASSERT_EQ(0, shared_get_on(self->fd, 32, self->cpus - 1, &after));
	EXPECT_EQ(self->cpus - 1, after.vector);
	EXPECT_EQ(0, put(self->fd, after.id));
	EXPECT_EQ(0, wait_no_cqs());
}

TEST_HARNESS_MAIN
