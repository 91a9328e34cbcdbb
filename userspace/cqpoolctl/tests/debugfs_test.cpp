// SPDX-License-Identifier: GPL-2.0
//
// devices and pools on a machine's cqpool, without the test harness:
// read from cqpool.ko's debugfs, here a directory of files written as
// module/debugfs.c writes them (the same formats, below).
#include "../commands/commands.h"
#include "../debugfs.h"
#include "fake_kernel.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace cqpoolctl;

namespace {

// seq_printf()'s lines of module/debugfs.c, format for format.
std::string fmt(const char *f, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, f);
	std::vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return buf;
}

std::string device_header()
{
	return fmt("%-16s %8s %5s %10s %10s %10s %10s %10s\n", "device", "vectors", "nvec",
		   "max_cqe", "max_cq", "events", "delivered", "masked");
}

std::string device_line(const char *name, unsigned vectors, unsigned nvec, unsigned max_cqe,
			unsigned max_cq, unsigned long long events)
{
	return fmt("%-16s %8u %5u %10u %10u %10llu %10llu %10llu\n", name, vectors, nvec,
		   max_cqe, max_cq, events, events, 0ULL);
}

std::string pool_line(const char *name, const char *dev, const char *ctx, bool owned,
		      unsigned flags, unsigned cqs, unsigned long long cqes,
		      unsigned long long reserved, unsigned long long users)
{
	return fmt("pool %s device %s ctx %s %s flags 0x%x cqs %u cqes %llu reserved %llu users %llu\n",
		   name, dev, ctx, owned ? "owned" : "shared", flags, cqs, cqes, reserved, users);
}

std::string cq_line(unsigned id, unsigned vec, unsigned size, unsigned reserved, unsigned users,
		    unsigned long long age_ms, unsigned long long idle_ms)
{
	return fmt("  cq %u vec %u size %u reserved %u users %u age_ms %llu idle_ms %llu events %llu delivered %llu\n",
		   id, vec, size, reserved, users, age_ms, idle_ms, 0ULL, 0ULL);
}

class Debugfs : public ::testing::Test {
protected:
	void SetUp() override
	{
		char tmpl[] = "/tmp/cqpoolctl-debugfs-XXXXXX";

		ASSERT_NE(mkdtemp(tmpl), nullptr);
		dir = tmpl;
		set_debugfs_dir(dir.c_str());
		// No harness: /dev/cqpool is not there.
		k.open_errno = ENOENT;
		k.install();
	}
	void TearDown() override
	{
		k.uninstall();
		set_debugfs_dir(nullptr);
		for (const char *f : {"devices", "pools", "ib_core_pools", "totals"})
			unlink((dir + "/" + f).c_str());
		rmdir(dir.c_str());
	}

	void write(const char *name, const std::string &text)
	{
		FILE *f = std::fopen((dir + "/" + name).c_str(), "w");

		ASSERT_NE(f, nullptr);
		std::fputs(text.c_str(), f);
		std::fclose(f);
	}

	// rxe0 with a shared pool of two CQs, one idle, and an owned pool;
	// siw0 with none; ib_core's pool on rxe0.
	void machine()
	{
		write("devices", device_header() + device_line("rxe0", 2, 2, 32767, 65536, 3) +
					 device_line("siw0", 1, 1, 16383, 1024, 0));
		write("pools", pool_line("shared-softirq", "rxe0", "softirq", false, 0, 2, 8192, 1026, 2) +
				       cq_line(7, 0, 4096, 1026, 2, 5000, 0) +
				       cq_line(8, 1, 4096, 0, 0, 4000, 1500) +
				       pool_line("nvmet", "rxe0", "unbound_workqueue", true, 0x5, 1, 1024, 129, 1) +
				       cq_line(9, 1, 1024, 129, 1, 300, 0));
		write("ib_core_pools", "rxe0 cqs 2 cqes 8192 used 513\nsiw0 cqs 0 cqes 0 used 0\n");
	}

	int run(int (*cmd)(const Args &, const Context &), const CommandSpec &spec,
		std::vector<std::string> argv, bool json = false)
	{
		Args a;
		Context ctx;

		ctx.json = json;
		EXPECT_EQ(parse_args(spec, argv, a), "");
		testing::internal::CaptureStdout();
		testing::internal::CaptureStderr();
		int rc = cmd(a, ctx);
		out = testing::internal::GetCapturedStdout();
		err = testing::internal::GetCapturedStderr();
		return rc;
	}

	static bool has(const std::string &s, const std::string &what)
	{
		return s.find(what) != std::string::npos;
	}

	fake::Kernel k;
	std::string dir, out, err;
};

} // namespace

TEST_F(Debugfs, DevicesWithoutTheHarness)
{
	machine();
	ASSERT_EQ(run(cmd_devices, devices_spec, {}), 0) << err;
	EXPECT_EQ(err, "");
	EXPECT_TRUE(has(out, "device  vectors  max_cqe  pools  cqs  cqes  reserved  users  "
			     "upstream_cqs  upstream_cqes  upstream_used\n"))
		<< out;
	// Both pools of rxe0 summed: 3 CQs, 9216 entries, 1155 reserved by
	// 3 users; ib_core's pool beside them.
	EXPECT_TRUE(has(out, "rxe0        2/2    32767      2    3  9216      1155      3             2"
			     "           8192            513\n"))
		<< out;
	EXPECT_TRUE(has(out, "siw0        1/1    16383      0    0     0         0      0")) << out;
	// Not a single ioctl: the harness is not there.
	EXPECT_TRUE(k.calls.empty());

	ASSERT_EQ(run(cmd_devices, devices_spec, {}, true), 0) << err;
	EXPECT_TRUE(has(out, R"([{"name":"rxe0","num_comp_vectors":2,"nvec":2,"max_cqe":32767,)"
			     R"("max_cq":65536,"pools":2,"cqs":3,"cqes":9216,"reserved_cqes":1155,)"
			     R"("users":3,"events":3,"delivered":3,"masked":0,"upstream_cqs":2,)"
			     R"("upstream_cqes":8192,"upstream_used":513},{"name":"siw0",)"))
		<< out;
}

TEST_F(Debugfs, NoDevicesSaysHowToAddOne)
{
	write("devices", device_header());
	write("pools", "");
	write("ib_core_pools", "");
	ASSERT_EQ(run(cmd_devices, devices_spec, {}), 0) << err;
	EXPECT_TRUE(has(out, "no RDMA devices (add one: `rdma link add rxe0 type rxe")) << out;
}

TEST_F(Debugfs, PoolsWithoutTheHarness)
{
	machine();
	ASSERT_EQ(run(cmd_pools, pools_spec, {}), 0) << err;
	EXPECT_TRUE(has(out, "rxe0 pool shared-softirq softirq shared cqs 2 idle 1 cqes 8192 "
			     "reserved 1026 users 2\n"))
		<< out;
	EXPECT_TRUE(has(out, "rxe0 pool nvmet unbound owned,no-shrink,resize cqs 1 idle 0 "
			     "cqes 1024 reserved 129 users 1\n"))
		<< out;
	// The CQs under their pools: the idle one with its time idle.
	EXPECT_TRUE(has(out, "  8        1  4096         0      0  4.00 s  1.50 s")) << out;

	ASSERT_EQ(run(cmd_pools, pools_spec, {"--device", "siw0"}), 0) << err;
	EXPECT_EQ(out, "no pools on siw0\n");

	ASSERT_EQ(run(cmd_pools, pools_spec, {}, true), 0) << err;
	EXPECT_TRUE(has(out, R"({"device":"rxe0","name":"nvmet","poll_ctx":"unbound",)"
			     R"("flags":"owned,no-shrink,resize","cqs":1,"idle_cqs":0,"cqes":1024,)"
			     R"("reserved_cqes":129,"users":1,"cq":[{"cq_id":9,"vector":1,"cqe":1024,)"))
		<< out;
}

TEST_F(Debugfs, TheHarnessFirstWhenItIsThere)
{
	// A test build: /dev/cqpool answers, and the debugfs is not read,
	// whatever it holds.
	k.open_errno = 0;
	write("devices", "garbage\n");
	ASSERT_EQ(run(cmd_devices, devices_spec, {}), 0) << err;
	EXPECT_TRUE(has(out, "rxe0        2/2    32767")) << out;
	EXPECT_GT(k.calls[CQPOOL_IOC_LIST], 0);
}

TEST_F(Debugfs, NotWhatTheModuleWritesIsAnError)
{
	machine();
	write("pools", "pool p device rxe0 ctx softirq shared flags 0x0 cqs 1\n");
	EXPECT_EQ(run(cmd_pools, pools_spec, {}), EXIT_FAIL);
	EXPECT_EQ(err, "cqpoolctl: cqpool's debugfs is not as this cqpoolctl reads it (" + dir +
			       "/pools, line 1: not a pool: pool p device rxe0 ctx softirq "
			       "shared flags 0x0 cqs 1): a cqpool.ko of another version?\n");
	// devices reads the pools too, for its sums.
	EXPECT_EQ(run(cmd_devices, devices_spec, {}), EXIT_FAIL);
	EXPECT_TRUE(has(err, "not a pool")) << err;
}

TEST(DebugfsParse, RejectsWhatIsNotTheModules)
{
	std::vector<cqpool_pool_info> pools;
	std::vector<cqpool_cq_info> cqs;
	std::vector<cqpool_device_info> devs;

	// A CQ before any pool, an unknown poll context, an unknown line, a
	// number that is not one.
	EXPECT_EQ(parse_debugfs_pools(cq_line(1, 0, 64, 0, 0, 1, 1), pools, cqs),
		  "pools, line 1: not a CQ of a pool: " + cq_line(1, 0, 64, 0, 0, 1, 1).substr(
								     0, cq_line(1, 0, 64, 0, 0, 1, 1).size() - 1));
	EXPECT_NE(parse_debugfs_pools(pool_line("p", "rxe0", "direct", false, 0, 0, 0, 0, 0),
				      pools, cqs),
		  "");
	EXPECT_NE(parse_debugfs_pools("totals 3\n", pools, cqs), "");
	EXPECT_NE(parse_debugfs_pools(pool_line("p", "rxe0", "softirq", false, 0, 0, 0, 0, 0) +
					      "  cq 1 vec x size 1 reserved 0 users 0 age_ms 0 "
					      "idle_ms 0 events 0 delivered 0\n",
				      pools, cqs),
		  "");
	// devices: its header, then eight columns.
	EXPECT_EQ(parse_debugfs_devices("rxe0 2 2 1 1 0 0 0\n", "", "", devs),
		  "devices: no header line");
	EXPECT_EQ(parse_debugfs_devices(device_header() + "rxe0 2 2 1\n", "", "", devs),
		  "devices, line 2: not a device: rxe0 2 2 1");
	EXPECT_EQ(parse_debugfs_devices(device_header(), "", "rxe0 cqs 1 cqes\n", devs),
		  "ib_core_pools, line 1: not a device: rxe0 cqs 1 cqes");
	// An empty machine is no error.
	EXPECT_EQ(parse_debugfs_devices(device_header(), "", "", devs), "");
	EXPECT_TRUE(devs.empty());
}
