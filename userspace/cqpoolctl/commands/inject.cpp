// SPDX-License-Identifier: GPL-2.0
#include "commands.h"
#include "../table.h"

#include <cerrno>
#include <cstdio>

namespace cqpoolctl {

const CommandSpec inject_spec = {
	"inject", "sq-drain|bad-rkey|device-fatal --device DEV",
	"Raises an async event through a real trigger and prints what arrived.\n"
	"sq-drain and bad-rkey make a looped-back connection on cqpool's shared\n"
	"pool, trigger on it (SQ_DRAINED; QP_ACCESS_ERR or a remote access error\n"
	"completion) and wait up to 2 s for its counters to move.  device-fatal\n"
	"delivers DEVICE_FATAL on DEV and needs the module parameter\n"
	"event_injection=1.",
	{
		{"device", "DEV", "the RDMA device"},
		{"json", nullptr, "JSON output"},
	},
};

namespace {

bool find_conn(Cqpool &cq, uint32_t id, cqpool_conn_info &out, Error &e)
{
	std::vector<cqpool_conn_info> conns;

	e = cq.list_conns(conns);
	if (e)
		return false;
	for (const auto &c : conns)
		if (c.id == id) {
			out = c;
			return true;
		}
	e = Error{ENOENT, "CQPOOL_IOC_LIST"};
	return false;
}

// Not @broken: the trigger itself sets it, before anything arrived.
bool moved(const cqpool_conn_info &a, const cqpool_conn_info &b)
{
	return a.qp_events != b.qp_events || a.cq_events != b.cq_events ||
	       a.errors != b.errors;
}

int device_fatal(Cqpool &cq, const std::string &dev, const Context &ctx)
{
	auto t = make_arg<cqpool_trigger>();

	t.kind = CQPOOL_TRIGGER_DEVICE_FATAL;
	set_name(t.device, dev);
	Error e = cq.trigger(t);
	// Opening /dev/cqpool already needed root, so EPERM here is the
	// module refusing to fake a fatal event.
	if (e.err == EPERM || e.err == EOPNOTSUPP)
		return fail("device-fatal needs the module parameter event_injection=1: "
			    "`echo 1 > /sys/module/cqpool/parameters/event_injection` "
			    "(or load with `modprobe cqpool event_injection=1`)");
	if (e)
		return fail(e);
	if (ctx.json)
		std::printf("{\"trigger\":\"device-fatal\",\"device\":%s,\"delivered\":true}\n",
			    json_escape(dev).c_str());
	else
		std::printf("DEVICE_FATAL delivered on %s (see `cqpoolctl events`, "
			    "`cqpoolctl devices`)\n", dev.c_str());
	return 0;
}

} // namespace

int cmd_inject(const Args &args, const Context &ctx)
{
	std::string dev;
	Cqpool cq;
	uint32_t kind;

	if (args.positional.size() != 1)
		return usage_error(inject_spec, "which trigger? sq-drain, bad-rkey or device-fatal");
	const std::string what = args.positional[0];
	if (what == "sq-drain")
		kind = CQPOOL_TRIGGER_SQ_DRAIN;
	else if (what == "bad-rkey")
		kind = CQPOOL_TRIGGER_BAD_RKEY;
	else if (what == "device-fatal")
		kind = CQPOOL_TRIGGER_DEVICE_FATAL;
	else
		return usage_error(inject_spec, "unknown trigger '" + what +
						       "' (sq-drain, bad-rkey, device-fatal)");
	if (!device_arg(inject_spec, args, dev))
		return EXIT_USAGE;

	Error e = open_cqpool(cq);
	if (e)
		return fail(e);
	if (kind == CQPOOL_TRIGGER_DEVICE_FATAL)
		return device_fatal(cq, dev, ctx);

	auto cc = make_arg<cqpool_conn_create>();
	set_name(cc.device, dev);
	cc.cq_mode = CQPOOL_CQ_POOL;
	cc.poll_ctx = CQPOOL_POLL_SOFTIRQ;
	cc.send_depth = 16;
	cc.recv_depth = 16;
	cc.vector_hint = -1;
	e = cq.conn_create(cc);
	if (e)
		return fail(e);

	cqpool_conn_info before, after;
	if (!find_conn(cq, cc.id, before, e))
		return fail(e);

	auto t = make_arg<cqpool_trigger>();
	t.kind = kind;
	t.conn_id = cc.id;
	e = cq.trigger(t);
	if (e.err == EOPNOTSUPP)
		return fail(what + ": " + dev + " has no way to raise it (try the other soft "
					       "device: rxe for sq-drain, siw or rxe for bad-rkey)");
	if (e)
		return fail(e);

	// Events come from the driver asynchronously: poll rather than
	// trust one read right after the trigger.
	after = before;
	int waited_ms = 0;
	for (; waited_ms < 2000; waited_ms += 50) {
		if (!find_conn(cq, cc.id, after, e))
			return fail(e);
		if (moved(before, after))
			break;
		sleep_ms(50);
	}
	// Let stragglers (the peer's event after the local one) land.
	sleep_ms(100);
	if (!find_conn(cq, cc.id, after, e))
		return fail(e);

	uint64_t qp_ev = after.qp_events - before.qp_events;
	uint64_t cq_ev = after.cq_events - before.cq_events;
	uint64_t errs = after.errors - before.errors;
	bool arrived = moved(before, after);

	if (ctx.json) {
		Json j;

		j.begin_object().field("trigger", what).field("device", dev);
		j.field("arrived", arrived).field("qp_events", qp_ev);
		j.field("cq_events", cq_ev).field("error_completions", errs);
		j.field("broken", after.broken != 0).field("within_ms", waited_ms);
		j.end_object();
		std::printf("%s\n", j.str().c_str());
	} else {
		Table tb({"after " + what, "count"});
		tb.add({"QP events", std::to_string(qp_ev)});
		tb.add({"CQ events (hooks)", std::to_string(cq_ev)});
		tb.add({"error completions", std::to_string(errs)});
		tb.add({"connection broken", after.broken ? "yes" : "no"});
		std::fputs(tb.render().c_str(), stdout);
		if (!arrived)
			std::printf("nothing arrived within 2 s\n");
	}
	cq.conn_destroy(cc.id);
	return arrived ? 0 : EXIT_FAIL;
}

} // namespace cqpoolctl
