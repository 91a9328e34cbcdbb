// SPDX-License-Identifier: GPL-2.0
#include "commands.h"
#include "../table.h"

#include <cstdio>

namespace cqpoolctl {

const CommandSpec events_spec = {
	"events", "--device DEV [--seconds S]",
	"Counts the device's unaffiliated async events (port, GID, device\n"
	"fatal, ...) for S seconds and prints those that arrived.  Trigger some\n"
	"meanwhile with `ip link set dev NETDEV down; ip link set dev NETDEV up`.",
	{
		{"device", "DEV", "the RDMA device"},
		{"seconds", "S", "how long to watch (default 5)"},
		{"json", nullptr, "JSON output"},
	},
};

int cmd_events(const Args &args, const Context &ctx)
{
	std::string dev, err;
	uint32_t seconds;
	Cqpool cq;

	if (!device_arg(events_spec, args, dev))
		return EXIT_USAGE;
	if (!args.get_u32("seconds", 5, 1, 3600, seconds, err))
		return usage_error(events_spec, err);

	Error e = open_cqpool(cq);
	if (e)
		return fail(e);
	auto w = make_arg<cqpool_events_watch>();
	set_name(w.device, dev);
	w.event_mask = 0;	// every event
	e = cq.events_watch(w);
	if (e)
		return fail(e);

	if (!ctx.json)
		std::fprintf(stderr, "watching %s for %u s\n", dev.c_str(), seconds);
	sleep_ms(seconds * 1000);

	auto r = make_arg<cqpool_events_read>();
	r.id = w.id;
	e = cq.events_read(r);
	Error ue = cq.events_unwatch(w.id);
	if (e)
		return fail(e);
	if (ue)
		return fail(ue);

	Json j;
	Table t({"event", "count"});
	j.begin_object().field("device", dev).field("seconds", seconds);
	j.key("events").begin_object();
	for (unsigned int i = 0; i < CQPOOL_NR_EVENTS; i++) {
		if (!r.counts[i])
			continue;
		const char *name = event_name(i);
		std::string n = name ? name : "event_" + std::to_string(i);

		j.field(n, uint64_t(r.counts[i]));
		t.add({n, std::to_string(r.counts[i])});
	}
	j.end_object().end_object();

	if (ctx.json)
		std::printf("%s\n", j.str().c_str());
	else if (!t.rows())
		std::printf("no events on %s in %u s\n", dev.c_str(), seconds);
	else
		std::fputs(t.render().c_str(), stdout);
	return 0;
}

} // namespace cqpoolctl
