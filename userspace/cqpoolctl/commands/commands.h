// SPDX-License-Identifier: GPL-2.0
//
// The subcommands: each has a spec (options, help) and a function that
// returns the exit status.
#ifndef CQPOOLCTL_COMMANDS_H
#define CQPOOLCTL_COMMANDS_H

#include "../args.h"
#include "../ioctl.h"

#include <string>

namespace cqpoolctl {

struct Context {
	bool json = false;
};

struct Command {
	const CommandSpec *spec;
	int (*run)(const Args &args, const Context &ctx);
};

extern const CommandSpec devices_spec, pools_spec, run_spec, events_spec,
	inject_spec, bench_spec;

int cmd_devices(const Args &args, const Context &ctx);
int cmd_pools(const Args &args, const Context &ctx);
int cmd_run(const Args &args, const Context &ctx);
int cmd_events(const Args &args, const Context &ctx);
int cmd_inject(const Args &args, const Context &ctx);
int cmd_bench(const Args &args, const Context &ctx);
// bench --kind turnover (turnover.cpp)
int cmd_turnover(const std::string &dev, uint32_t poll, uint32_t steps, const Context &ctx);

// Exit statuses.
constexpr int EXIT_FAIL = 1;
constexpr int EXIT_USAGE = 2;

// Prints "cqpoolctl: @msg" to stderr; returns EXIT_FAIL.
int fail(const std::string &msg);
int fail(const Error &e);
int usage_error(const CommandSpec &spec, const std::string &msg);

// Opens /dev/cqpool and checks the module speaks our ABI version.
Error open_cqpool(Cqpool &cq);

// For what cqpool.ko's debugfs also says (devices, pools): /dev/cqpool
// if the test harness is loaded, else the debugfs (@debugfs true), which
// every build of cqpool.ko has.  An error only if neither is there.
Error open_cqpool_or_debugfs(Cqpool &cq, bool &debugfs);

// --device, required by most subcommands; "" after printing why not.
bool device_arg(const CommandSpec &spec, const Args &args, std::string &dev,
		const char *option = "device", bool required = true);

// The device's entry of LIST_DEVICES, or ENODEV.
Error find_device(Cqpool &cq, const std::string &name, cqpool_device_info &out);

const char *poll_ctx_name(uint32_t p);
bool parse_poll_ctx(const std::string &s, uint32_t &out);
const char *event_name(unsigned int ev);

void sleep_ms(unsigned int ms);
uint64_t now_ns();

} // namespace cqpoolctl

#endif
