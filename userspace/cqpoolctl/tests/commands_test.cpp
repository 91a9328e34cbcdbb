// SPDX-License-Identifier: GPL-2.0
//
// The subcommands end to end against the model in fake_kernel.cpp.
#include "../commands/commands.h"
#include "../debugfs.h"
#include "fake_kernel.h"

#include <gtest/gtest.h>

#include <cerrno>

using namespace cqpoolctl;

namespace {

class Commands : public ::testing::Test {
protected:
	// No test reads the host's debugfs: where cqpoolctl falls back to
	// it, it finds nothing (debugfs_test.cpp has one of its own).
	void SetUp() override
	{
		k.install();
		set_debugfs_dir("/nonexistent/cqpool-debugfs");
	}
	void TearDown() override
	{
		set_debugfs_dir(nullptr);
		k.uninstall();
	}

	// Runs @cmd with @argv; stdout in @out, stderr in @err.
	int run(const Command &cmd, std::vector<std::string> argv, bool json = false)
	{
		Args a;
		Context ctx;

		ctx.json = json;
		EXPECT_EQ(parse_args(*cmd.spec, argv, a), "");
		testing::internal::CaptureStdout();
		testing::internal::CaptureStderr();
		int rc = cmd.run(a, ctx);
		out = testing::internal::GetCapturedStdout();
		err = testing::internal::GetCapturedStderr();
		return rc;
	}

	bool has(const std::string &s, const std::string &what) const
	{
		return s.find(what) != std::string::npos;
	}

	fake::Kernel k;
	std::string out, err;
	const Command run_cmd{&run_spec, cmd_run};
	const Command devices_cmd{&devices_spec, cmd_devices};
	const Command bench_cmd{&bench_spec, cmd_bench};
	const Command inject_cmd{&inject_spec, cmd_inject};
	const Command pools_cmd{&pools_spec, cmd_pools};
};

} // namespace

TEST_F(Commands, NotLoadedSaysHowToLoad)
{
	// Neither /dev/cqpool nor the debugfs: cqpool is not loaded.
	k.open_errno = ENOENT;
	EXPECT_EQ(run(devices_cmd, {}), EXIT_FAIL);
	EXPECT_EQ(err, "cqpoolctl: cqpool is not loaded: run `modprobe cqpool` (no "
		       "/dev/cqpool nor /nonexistent/cqpool-debugfs/devices; if cqpool is "
		       "loaded, mount debugfs: `mount -t debugfs none /sys/kernel/debug`)\n");
	EXPECT_EQ(run(pools_cmd, {}), EXIT_FAIL);
	EXPECT_TRUE(has(err, "cqpool is not loaded: run `modprobe cqpool`")) << err;
}

TEST_F(Commands, HarnessOnlyCommandsSaySo)
{
	// A machine's cqpool (DKMS): no /dev/cqpool.  What needs the harness
	// says so, and what works without it.
	k.open_errno = ENOENT;
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--seconds", "1"}), EXIT_FAIL);
	EXPECT_EQ(err, "cqpoolctl: cqpool's test harness is not loaded (no /dev/cqpool), "
		       "and this command needs it: only the test build has it (`insmod "
		       "cqpool.ko`, then `insmod cqpool_harness.ko`, both of "
		       "scripts/kbuild.sh's build); a machine's cqpool (DKMS, the "
		       "cqpool-dkms package) has `cqpoolctl devices` and `cqpoolctl pools`\n");
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0"}), EXIT_FAIL);
	EXPECT_TRUE(has(err, "this command needs it")) << err;
}

TEST_F(Commands, NotRootSaysSo)
{
	k.open_errno = EACCES;
	EXPECT_EQ(run(devices_cmd, {}), EXIT_FAIL);
	EXPECT_EQ(err, "cqpoolctl: open: needs root (CAP_SYS_ADMIN)\n");
}

TEST_F(Commands, DevicesTable)
{
	k.dev.upstream_cqs = 2;
	k.dev.upstream_cqes = 16382;
	EXPECT_EQ(run(devices_cmd, {}), 0);
	EXPECT_TRUE(has(out, "device  vectors  max_cqe  pools  cqs  cqes  reserved  users  "
			     "upstream_cqs  upstream_cqes  upstream_used\n"))
		<< out;
	EXPECT_TRUE(has(out, "rxe0        2/2    32767")) << out;
	EXPECT_TRUE(has(out, "16382")) << out;
	EXPECT_EQ(run(devices_cmd, {}, true), 0);
	EXPECT_TRUE(has(out, R"([{"name":"rxe0","num_comp_vectors":2,"nvec":2,)")) << out;
}

TEST_F(Commands, RunUnknownDeviceNamesItAndTheFix)
{
	EXPECT_EQ(run(run_cmd, {"--device", "mlx5_0"}), EXIT_FAIL);
	EXPECT_EQ(err, "cqpoolctl: no RDMA device 'mlx5_0': see `cqpoolctl devices` "
		       "or `rdma link show`\n");
}

TEST_F(Commands, RunAllModesSideBySide)
{
	// nvme-rdma, 4 connections of admin + 2 I/O queues: 12 QP pairs,
	// each QP reserving 129 (admin) or 513 (I/O).
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--profile", "nvme-rdma",
				"--connections", "4", "--queues", "2", "--mode", "all",
				"--seconds", "2"}),
		  0)
		<< err;
	EXPECT_TRUE(has(out, "nvme-rdma on rxe0: 4 connections x 3 QP pairs "
			     "(1 admin: cqe 129, send 97, recv 32 (fits cqe), softirq; "
			     "2 io: cqe 513, send 385, recv 128 (fits cqe), softirq)\n"))
		<< out;
	EXPECT_TRUE(has(out, "                                      cqpool  upstream     per-QP CQ\n"
			     "QP pairs                                  12        12            12\n"
			     "CQs                                        3         3            24\n"
			     "CQEs allocated                        12,288    12,288         9,240\n"
			     "CQEs reserved                          9,240     9,240         9,240\n"
			     "allocated/reserved                    1.330x    1.330x        1.000x\n"
			     "QPs per CQ (mean/max)               8.0 / 13  8.0 / 13       1.0 / 1\n"
			     "completions/s                          12.0k     12.0k         12.0k\n"))
		<< out;
	// The model's upstream made one CQ per vector, one of them unused.
	EXPECT_TRUE(has(out, "CQs left after teardown                    3         4             0\n"
			     "CQEs left after teardown              12,288    16,384             0\n"
			     "freed                     after idle timeout     never  with each QP\n"))
		<< out;
	// Two one-second steps per mode, with progress on stderr.
	EXPECT_EQ(k.traffic_calls, 6u);
	EXPECT_TRUE(has(err, "cqpool: 2/2 s, 24.0k completions\n")) << err;
	// Every connection was destroyed.
	EXPECT_EQ(k.calls[CQPOOL_IOC_CONN_CREATE], 36);
	EXPECT_EQ(k.calls[CQPOOL_IOC_CONN_DESTROY], 36);
	EXPECT_TRUE(k.conns.empty());
}

TEST_F(Commands, RunJsonHasEveryMode)
{
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--profile", "srpt", "--mode", "all",
				"--count", "100"}, true),
		  0);
	EXPECT_TRUE(has(out, R"("profile":"srpt","connections":1,"qp_pairs_per_connection":1,)")) << out;
	EXPECT_TRUE(has(out, R"("queues":[{"role":"channel","count":1,"nr_cqe":4224,"send_depth":2048,"recv_depth":128,"poll_ctx":"workqueue","clamped":false,"trimmed":false}])")) << out;
	EXPECT_TRUE(has(out, R"({"mode":"cqpool",)")) << out;
	EXPECT_TRUE(has(out, R"({"mode":"upstream",)")) << out;
	EXPECT_TRUE(has(out, R"({"mode":"perqp",)")) << out;
	EXPECT_TRUE(has(out, R"("count":100,)")) << out;
	EXPECT_EQ(k.traffic_calls, 3u);
}

TEST_F(Commands, RunSkipsATakenOverUpstream)
{
	k.upstream_busy = true;
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--profile", "iser", "--mode", "all",
				"--count", "10"}),
		  0);
	EXPECT_TRUE(has(out, "iser on rxe0: 1 connection x 1 QP pair (1 conn: cqe 5131, "
			     "send 4096 (clamped), recv 513, softirq)\n"))
		<< out;
	EXPECT_TRUE(has(out, "cqpool     per-QP CQ\n")) << out;
	EXPECT_TRUE(has(out, "upstream: skipped: the kernel's CQ pool is taken over by "
			     "cqpool (cqpool_takeover loaded)"))
		<< out;

	// Alone, there is nothing to show: a failure.
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--mode", "upstream", "--count", "10"}),
		  EXIT_FAIL);
}

TEST_F(Commands, RunRejectsWhatTheKernelWould)
{
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--inflight", "64"}), EXIT_USAGE);
	EXPECT_TRUE(has(err, "--inflight wants a number from 1 to 32")) << err;
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--profile", "custom", "--queues",
				"4096", "--connections", "2"}),
		  EXIT_USAGE);
	EXPECT_TRUE(has(err, "8192 QP pairs is more than one /dev/cqpool fd may hold")) << err;
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--mode", "both"}), EXIT_USAGE);
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--count", "1", "--seconds", "1"}),
		  EXIT_USAGE);
}

TEST_F(Commands, BenchAlternatesAndComparesMedians)
{
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "3", "--iterations", "1000"}),
		  0);
	EXPECT_EQ(k.calls[CQPOOL_IOC_BENCH], 6);
	EXPECT_TRUE(has(out, "get ns/op median (min-max)      100 (100-100)     200 (200-200)           "
			     "0.500x\n"))
		<< out;
	// The batches' percentiles per call, as the module gives them.
	EXPECT_TRUE(has(out, "put_p50_ns median (min-max)        50 (50-50)     100 (100-100)           "
			     "0.500x\n"))
		<< out;
	EXPECT_TRUE(has(out, "CQs at fullest                              3                16           "
			     "0.188x\n"))
		<< out;

	k.upstream_busy = true;
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "2"}, true), 0);
	EXPECT_TRUE(has(out, R"("upstream":{"skipped":true})")) << out;
	EXPECT_TRUE(has(err, "taken over by cqpool")) << err;

	// STORM has no prefill: the module refuses one.
	k.upstream_busy = false;
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "storm", "--rounds", "1"}), 0)
		<< err;
}

TEST_F(Commands, BenchStormFlagsGoToCqpoolsRunsOnly)
{
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "storm", "--rounds", "2",
				  "--shared"}, true),
		  0)
		<< err;
	// cqpool's runs carry the flag, upstream's never do.
	EXPECT_EQ(k.bench_flags, (std::vector<uint32_t>{ CQPOOL_BENCH_F_SHARED, 0,
							 CQPOOL_BENCH_F_SHARED, 0 }));
	EXPECT_TRUE(has(out, R"("shared":true)")) << out;
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--shared"}), EXIT_USAGE);
	EXPECT_TRUE(has(err, "--shared and --resize are for --kind storm")) << err;

	k.bench_flags.clear();
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "storm", "--rounds", "1",
				  "--resize", "--modes", "cqpool"}),
		  0)
		<< err;
	EXPECT_EQ(k.bench_flags, (std::vector<uint32_t>{ CQPOOL_BENCH_F_RESIZE }));
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "storm", "--shared",
				  "--resize"}),
		  EXIT_USAGE);
}

TEST_F(Commands, BenchLedgerFlagGoesToCqpoolsRunsOnly)
{
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "1", "--ledger"}, true), 0)
		<< err;
	EXPECT_EQ(k.bench_flags, (std::vector<uint32_t>{ CQPOOL_BENCH_F_LEDGER, 0 }));
	EXPECT_TRUE(has(out, R"("ledger":true)")) << out;
	k.bench_flags.clear();
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "1", "--kind", "churn",
				  "--ledger"},
		      true),
		  0)
		<< err;
	EXPECT_EQ(k.bench_flags, (std::vector<uint32_t>{ CQPOOL_BENCH_F_LEDGER, 0 }));
	// Without it, the field says so.
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "1"}, true), 0) << err;
	EXPECT_TRUE(has(out, R"("ledger":false)")) << out;
	for (const char *kind : { "storm", "parallel", "latency", "mixed", "growth" }) {
		EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", kind, "--ledger"}),
			  EXIT_USAGE)
			<< kind;
		EXPECT_TRUE(has(err, "--ledger is for --kind getput and churn")) << kind << err;
	}
}

TEST_F(Commands, BenchTakeoverFlagGoesToUpstreamsRunsOnly)
{
	k.upstream_busy = true; // cqpool_takeover loaded
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "1", "--takeover"}, true),
		  0)
		<< err;
	EXPECT_EQ(k.bench_flags, (std::vector<uint32_t>{ 0, CQPOOL_BENCH_F_TAKEOVER }));
	EXPECT_TRUE(has(out, R"("takeover":true,"takeover_direct":false)")) << out;
	// The takeover's functions called directly: their flag instead.
	k.bench_flags.clear();
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "1", "--takeover-direct"},
		      true),
		  0)
		<< err;
	EXPECT_EQ(k.bench_flags, (std::vector<uint32_t>{ 0, CQPOOL_BENCH_F_TAKEOVER_DIRECT }));
	EXPECT_TRUE(has(out, R"("takeover":true,"takeover_direct":true)")) << out;
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--takeover", "--takeover-direct"}),
		  EXIT_USAGE);

	k.upstream_busy = false;
	EXPECT_NE(run(bench_cmd, {"--device", "rxe0", "--rounds", "1", "--takeover",
				  "--modes", "upstream"}),
		  0);
	EXPECT_TRUE(has(err, "cqpool_takeover is not loaded")) << err;
	EXPECT_NE(run(bench_cmd, {"--device", "rxe0", "--rounds", "1", "--takeover-direct",
				  "--modes", "upstream"}),
		  0);
	EXPECT_TRUE(has(err, "cqpool_takeover is not loaded")) << err;
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "mixed", "--takeover"}),
		  EXIT_USAGE);
	EXPECT_TRUE(has(err, "--takeover is for the in-kernel kinds, not mixed")) << err;
	// A pool that resizes is cqpool's alone.
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "mixed", "--resize"}),
		  EXIT_USAGE);
	EXPECT_TRUE(has(err, "--kind mixed --resize is cqpool's alone")) << err;
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "getput", "--resize"}),
		  EXIT_USAGE);
	EXPECT_TRUE(has(err, "(--resize also mixed)")) << err;
}

TEST_F(Commands, BenchParallelSendsThreadsAndReportsThroughput)
{
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "parallel", "--rounds", "1",
				  "--threads", "2", "--iterations", "1000"},
		      true),
		  0)
		<< err;
	EXPECT_EQ(k.bench_threads, (std::vector<uint32_t>{ 2, 2 }));
	// The fake's wall time: 100 ns (cqpool) and 200 ns (upstream) a pair
	// over 2 threads, so cqpool has twice the throughput.
	EXPECT_TRUE(has(out, R"("threads":2)")) << out;
	EXPECT_TRUE(has(out, R"("pair_ns":{"median":50,)")) << out;
	EXPECT_TRUE(has(out, R"("throughput_ratio":2)")) << out;
	EXPECT_FALSE(has(out, "get_ns")) << out;

	k.bench_threads.clear();
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "1"}), 0) << err;
	EXPECT_EQ(k.bench_threads, (std::vector<uint32_t>{ 0, 0 }));
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--threads", "2"}), EXIT_USAGE);
	EXPECT_TRUE(has(err, "--threads is for --kind parallel")) << err;
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "parallel", "--threads", "0"}),
		  EXIT_USAGE);
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "parallel", "--modes",
				  "cqpool,perqp"}),
		  EXIT_USAGE);
	EXPECT_TRUE(has(err, "--kind parallel compares pools")) << err;
}

TEST_F(Commands, BenchLatencyReportsPercentiles)
{
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "latency", "--rounds", "1"},
		      true),
		  0)
		<< err;
	EXPECT_TRUE(has(out, R"("get_p50_ns_rounds":[100])")) << out;
	EXPECT_TRUE(has(out, R"("get_max_ns_rounds":[1000])")) << out;
	EXPECT_TRUE(has(out, R"("put_p99_ns_rounds":[100])")) << out;
	EXPECT_TRUE(has(out, R"("get_ns":{"median":100,)")) << out;
	// A batched run has its batches'; a storm none.
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--rounds", "1"}, true), 0) << err;
	EXPECT_TRUE(has(out, R"("put_p50_ns_rounds":[50])")) << out;
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "storm", "--rounds", "1"}, true),
		  0)
		<< err;
	EXPECT_FALSE(has(out, "p50")) << out;
}

TEST_F(Commands, BenchGrowthTimesTheVerbsAlone)
{
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "growth", "--nr-cqe", "511",
				  "--rounds", "2"},
		      true),
		  0)
		<< err;
	EXPECT_TRUE(has(out, R"("kind":"growth")")) << out;
	EXPECT_TRUE(has(out, R"("iterations":8,)")) << out;
	EXPECT_TRUE(has(out, R"("grown_cqes":1023,"second_cqes":511,)")) << out;
	EXPECT_TRUE(has(out, R"("resize_ns":{"median":3000,)")) << out;
	EXPECT_TRUE(has(out, R"("new_cq_ns_rounds":[2000,2000])")) << out;
	EXPECT_TRUE(has(out, R"("resize_ratio":{"median":1.5,)")) << out;
	// No pool: nothing of the pools' options.
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "growth", "--modes", "cqpool"}),
		  EXIT_USAGE);
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "growth", "--prefill", "1"}),
		  EXIT_USAGE);
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "growth", "--resize"}),
		  EXIT_USAGE);
	EXPECT_TRUE(has(err, "--kind growth times the device's verbs")) << err;
	// The module's range.
	EXPECT_EQ(run(bench_cmd, {"--device", "rxe0", "--kind", "growth", "--nr-cqe", "65537"}),
		  EXIT_FAIL);
	EXPECT_TRUE(has(err, "max_cqe")) << err;
}

TEST_F(Commands, InjectShowsWhatArrived)
{
	EXPECT_EQ(run(inject_cmd, {"sq-drain", "--device", "rxe0"}, true), 0);
	EXPECT_TRUE(has(out, R"("arrived":true,"qp_events":1,)")) << out;
	EXPECT_TRUE(k.conns.empty());
}

TEST_F(Commands, DeviceFatalWithoutInjectionSaysHowToEnableIt)
{
	k.trigger_errno = EPERM;
	EXPECT_EQ(run(inject_cmd, {"device-fatal", "--device", "rxe0"}), EXIT_FAIL);
	EXPECT_TRUE(has(err, "echo 1 > /sys/module/cqpool/parameters/event_injection")) << err;
}

TEST_F(Commands, PoolsListsEachPoolThenItsCqs)
{
	EXPECT_EQ(run(run_cmd, {"--device", "rxe0", "--profile", "custom", "--count", "1"}), 0);
	// The model keeps its CQs after teardown, as cqpool does until the
	// idle timeout.
	EXPECT_EQ(run(pools_cmd, {}), 0);
	EXPECT_TRUE(has(out, "rxe0 pool shared-softirq softirq shared cqs 1 idle 0")) << out;
	EXPECT_TRUE(has(out, "  cq   vector   cqe  reserved  users")) << out;
}

TEST(Describe, OtherErrnosNameTheIoctl)
{
	EXPECT_EQ(describe(Error{EINVAL, "CQPOOL_IOC_TRAFFIC"}),
		  "CQPOOL_IOC_TRAFFIC: Invalid argument");
	EXPECT_EQ(describe(Error{ENOTTY, "CQPOOL_IOC_BENCH"}),
		  "CQPOOL_IOC_BENCH: not known to the loaded cqpool module "
		  "(older than this cqpoolctl?)");
	EXPECT_EQ(describe(Error{EPERM, "CQPOOL_IOC_LIST"}),
		  "CQPOOL_IOC_LIST: needs root (CAP_SYS_ADMIN)");
}

TEST(Abi, ArgumentsCarryTheirSize)
{
	EXPECT_EQ(make_arg<cqpool_conn_create>().size, sizeof(cqpool_conn_create));
	EXPECT_EQ(make_arg<cqpool_traffic>().size, sizeof(cqpool_traffic));
	EXPECT_EQ(make_arg<cqpool_bench>().size, sizeof(cqpool_bench));
}

TEST(Abi, NamesMustFit)
{
	char name[CQPOOL_NAME_LEN];

	EXPECT_TRUE(set_name(name, "rxe0"));
	EXPECT_EQ(get_name(name), "rxe0");
	EXPECT_FALSE(set_name(name, std::string(CQPOOL_NAME_LEN, 'x')));
}
