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

#define DEVICES_FILE	"/sys/kernel/debug/cqpool/devices"
#define IB_CLASS	"/sys/class/infiniband"

/* 1 when debugfs lists @name, 0 when not, -1 when it cannot be read. */
static int debugfs_lists(const char *name)
{
	char line[256], first[64];
	FILE *f = fopen(DEVICES_FILE, "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s", first) == 1 && !strcmp(first, name))
			found = 1;
	fclose(f);
	return found;
}

/* Polls until debugfs does (@want 1) or does not (0) list @name. */
static int wait_listed(const char *name, int want)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (debugfs_lists(name) == want)
			return 0;
		usleep(50 * 1000);
	}
	return -1;
}

static const char *rxe_netdev(void)
{
	const char *n = getenv("CQPOOL_RXE_NETDEV");

	return n ? n : "v0";
}

TEST(debugfs_header_names_columns)
{
	char line[256] = "";
	FILE *f = fopen(DEVICES_FILE, "r");

	ASSERT_NE(NULL, f) TH_LOG("%s: is debugfs mounted, cqpool loaded?",
				  DEVICES_FILE);
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
		EXPECT_EQ(1, debugfs_lists(e->d_name))
			TH_LOG("%s is not in %s", e->d_name, DEVICES_FILE);
	}
	closedir(d);
	/* The VM always has rxe0; no device at all means the rig is broken. */
	EXPECT_LT(0, devices);
	EXPECT_EQ(1, debugfs_lists("rxe0"));
}

TEST(deleted_device_leaves_and_returns)
{
	char cmd[128];

	ASSERT_EQ(1, debugfs_lists("rxe0"));
	ASSERT_EQ(0, system("/usr/bin/rdma link delete rxe0"));
	EXPECT_EQ(0, wait_listed("rxe0", 0)) TH_LOG("rxe0 did not leave");

	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/rdma link add rxe0 type rxe netdev %s", rxe_netdev());
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(0, wait_listed("rxe0", 1)) TH_LOG("rxe0 did not return");
}

TEST_HARNESS_MAIN
