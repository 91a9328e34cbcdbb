// SPDX-License-Identifier: GPL-2.0
//
// cqpoolctl: shows what the cqpool module holds, from its debugfs or
// /dev/cqpool, and drives it through /dev/cqpool (the test harness), for
// tests, the demo and benchmarks.
#include "commands/commands.h"
#include "debugfs.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace cqpoolctl;

static const Command commands[] = {
	{&devices_spec, cmd_devices}, {&pools_spec, cmd_pools},
	{&run_spec, cmd_run},	      {&events_spec, cmd_events},
	{&inject_spec, cmd_inject},   {&bench_spec, cmd_bench},
};

static void main_usage(FILE *f)
{
	std::fprintf(f,
		     "usage: cqpoolctl [--json] COMMAND [options]   (COMMAND --help for more)\n"
		     "\n"
		     "Shows what the cqpool kernel module holds, from its debugfs (%s),\n"
		     "and drives it through the test harness's %s (root only).\n"
		     "\n"
		     "commands:\n"
		     "  devices   RDMA devices with cqpool's and upstream's CQ totals\n"
		     "  pools     cqpool's pools and their CQs\n"
		     "with the test harness (a test build's cqpool_harness.ko) only:\n"
		     "  run       a ULP-shaped workload: cqpool vs upstream vs a CQ per QP\n"
		     "  events    count a device's async events for a while\n"
		     "  inject    raise an event with a real trigger and show what arrived\n"
		     "  bench     in-kernel get/put timings, cqpool vs upstream\n"
		     "\n"
		     "--json anywhere switches the output to JSON.\n",
		     CQPOOL_DEBUGFS_DIR, CQPOOL_DEVICE_PATH);
}

int main(int argc, char **argv)
{
	Context ctx;
	std::vector<std::string> rest;
	const Command *cmd = nullptr;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if (!cmd && (a == "--help" || a == "-h")) {
			main_usage(stdout);
			return 0;
		}
		if (!cmd && a == "--json") {
			ctx.json = true;
			continue;
		}
		if (!cmd) {
			for (const auto &c : commands)
				if (a == c.spec->name)
					cmd = &c;
			if (!cmd) {
				std::fprintf(stderr, "cqpoolctl: unknown command '%s'\n\n",
					     a.c_str());
				main_usage(stderr);
				return EXIT_USAGE;
			}
			continue;
		}
		rest.push_back(a);
	}
	if (!cmd) {
		main_usage(stderr);
		return EXIT_USAGE;
	}

	Args args;
	std::string err = parse_args(*cmd->spec, rest, args);
	if (!err.empty())
		return usage_error(*cmd->spec, err);
	if (args.help) {
		std::fputs(usage(*cmd->spec).c_str(), stdout);
		return 0;
	}
	if (args.has("json"))
		ctx.json = true;
	// Only inject takes a word of its own; a stray one elsewhere is
	// probably a forgotten "--".
	if (cmd->run != cmd_inject && !args.positional.empty())
		return usage_error(*cmd->spec, "unexpected '" + args.positional[0] +
						      "'; see `cqpoolctl " +
						      cmd->spec->name + " --help`");
	return cmd->run(args, ctx);
}
