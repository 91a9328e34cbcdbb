// SPDX-License-Identifier: GPL-2.0
#include "commands.h"
#include "../debugfs.h"

#include <cerrno>
#include <cstdio>
#include <ctime>

namespace cqpoolctl {

int fail(const std::string &msg)
{
	std::fprintf(stderr, "cqpoolctl: %s\n", msg.c_str());
	return EXIT_FAIL;
}

int fail(const Error &e)
{
	return fail(describe(e));
}

int usage_error(const CommandSpec &spec, const std::string &msg)
{
	std::fprintf(stderr, "cqpoolctl %s: %s\n", spec.name, msg.c_str());
	return EXIT_USAGE;
}

Error open_cqpool(Cqpool &cq)
{
	Error e = cq.open();

	if (e)
		return e;
	auto v = make_arg<cqpool_version>();
	e = cq.version(v);
	if (e)
		return e;
	// A newer struct layout is still accepted by the kernel (sizes are
	// checked per call); only an ABI break makes our numbers wrong.
	if (v.abi_version != CQPOOL_ABI_VERSION)
		std::fprintf(stderr,
			     "cqpoolctl: warning: module ABI %u, cqpoolctl built for %u\n",
			     v.abi_version, CQPOOL_ABI_VERSION);
	return Error{};
}

Error open_cqpool_or_debugfs(Cqpool &cq, bool &debugfs)
{
	Error e = open_cqpool(cq);

	debugfs = false;
	// Only a missing /dev/cqpool sends us to the debugfs: a harness
	// that is there and refuses (not root, another ABI) says so itself.
	if (!e || e.err != ENOENT || std::string(e.what) != "open")
		return e;
	e = debugfs_probe();
	if (!e)
		debugfs = true;
	return e;
}

bool device_arg(const CommandSpec &spec, const Args &args, std::string &dev,
		const char *option, bool required)
{
	dev = args.get(option);
	if (dev.empty() && required) {
		usage_error(spec, std::string("--") + option +
					  " is required (an RDMA device, e.g. rxe0; "
					  "see `cqpoolctl devices`)");
		return false;
	}
	if (dev.size() >= CQPOOL_NAME_LEN) {
		usage_error(spec, std::string("--") + option + " is too long");
		return false;
	}
	return true;
}

Error find_device(Cqpool &cq, const std::string &name, cqpool_device_info &out)
{
	std::vector<cqpool_device_info> devs;
	Error e = cq.list_devices(devs);

	if (e)
		return e;
	for (const auto &d : devs)
		if (get_name(d.name) == name) {
			out = d;
			return Error{};
		}
	return Error{ENODEV, "CQPOOL_IOC_LIST", name};
}

const char *poll_ctx_name(uint32_t p)
{
	switch (p) {
	case CQPOOL_POLL_SOFTIRQ: return "softirq";
	case CQPOOL_POLL_WORKQUEUE: return "workqueue";
	case CQPOOL_POLL_UNBOUND_WORKQUEUE: return "unbound";
	}
	return "?";
}

bool parse_poll_ctx(const std::string &s, uint32_t &out)
{
	for (uint32_t p = CQPOOL_POLL_SOFTIRQ; p <= CQPOOL_POLL_UNBOUND_WORKQUEUE; p++)
		if (s == poll_ctx_name(p)) {
			out = p;
			return true;
		}
	return false;
}

const char *event_name(unsigned int ev)
{
	switch (ev) {
	case CQPOOL_EVENT_CQ_ERR: return "CQ_ERR";
	case CQPOOL_EVENT_QP_FATAL: return "QP_FATAL";
	case CQPOOL_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case CQPOOL_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case CQPOOL_EVENT_COMM_EST: return "COMM_EST";
	case CQPOOL_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case CQPOOL_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	case CQPOOL_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
	case CQPOOL_EVENT_PORT_ERR: return "PORT_ERR";
	case CQPOOL_EVENT_LID_CHANGE: return "LID_CHANGE";
	case CQPOOL_EVENT_PKEY_CHANGE: return "PKEY_CHANGE";
	case CQPOOL_EVENT_SM_CHANGE: return "SM_CHANGE";
	case CQPOOL_EVENT_CLIENT_REREGISTER: return "CLIENT_REREGISTER";
	case CQPOOL_EVENT_GID_CHANGE: return "GID_CHANGE";
	}
	// ib_event_type has more (path migration, SRQ, WQ); name them by
	// number rather than guess.
	return nullptr;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = {time_t(ms / 1000), long(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

uint64_t now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
}

} // namespace cqpoolctl
