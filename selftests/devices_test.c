// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the devices cqpool tracks, as debugfs shows them, against
 * what ib_core shows in sysfs; a device deleted with `rdma link delete`
 * leaves and comes back when added again.
 *
 * The VM runner makes rxe0 on the veth end named by $CQPOOL_RXE_NETDEV
 * (default v0).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define IB_CLASS	"/sys/class/infiniband"

TEST(debugfs_header_names_columns)
{
	char line[256] = "";
	FILE *f = fopen(DEVICES, "r");

	ASSERT_NE(NULL, f) TH_LOG("%s: is debugfs mounted, cqpool loaded?",
				  DEVICES);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	EXPECT_NE(NULL, strstr(line, "device"));
	EXPECT_NE(NULL, strstr(line, "nvec"));
	EXPECT_NE(NULL, strstr(line, "max_cqe"));
	EXPECT_NE(NULL, strstr(line, "max_cq"));
}

TEST(every_ib_device_is_listed)
{
	struct dirent *e;
	DIR *d = opendir(IB_CLASS);
	int devices = 0;

	ASSERT_NE(NULL, d) TH_LOG("no %s: is ib_core loaded?", IB_CLASS);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		devices++;
		EXPECT_EQ(1, device_listed(e->d_name))
			TH_LOG("%s is not in %s", e->d_name, DEVICES);
	}
	closedir(d);
	/* The VM always has rxe0; no device at all means the rig is broken. */
	EXPECT_LT(0, devices);
	EXPECT_EQ(1, device_listed("rxe0"));
}

TEST(deleted_device_leaves_and_returns)
{
	ASSERT_EQ(1, device_listed("rxe0"));
	ASSERT_EQ(0, system("/usr/bin/rdma link delete rxe0"));
	EXPECT_EQ(0, wait_device_listed("rxe0", 0)) TH_LOG("rxe0 did not leave");

	ASSERT_EQ(0, rxe_add());
	EXPECT_EQ(0, wait_device_listed("rxe0", 1)) TH_LOG("rxe0 did not return");
}

TEST_HARNESS_MAIN
