// SPDX-License-Identifier: GPL-2.0
#include "commands.h"
#include "../debugfs.h"
#include "../table.h"

#include <cstdio>

namespace cqpoolctl {

const CommandSpec devices_spec = {
	"devices", "",
	"The RDMA devices cqpool serves: vectors used of those the device has,\n"
	"its largest CQ, cqpool's pools, CQs, CQEs, entries reserved and\n"
	"reservations, and for comparison what the kernel's own CQ pool\n"
	"(ib_cq_pool_get) holds on it.  Read from /dev/cqpool with the test\n"
	"harness loaded, else from cqpool.ko's debugfs\n"
	"(/sys/kernel/debug/cqpool/devices, pools and ib_core_pools).",
	{
		{"json", nullptr, "JSON output"},
	},
};

int cmd_devices(const Args &, const Context &ctx)
{
	std::vector<cqpool_device_info> devs;
	Cqpool cq;
	bool debugfs;
	Error e = open_cqpool_or_debugfs(cq, debugfs);

	if (!e)
		e = debugfs ? debugfs_devices(devs) : cq.list_devices(devs);
	if (e)
		return fail(e);

	if (ctx.json) {
		Json j;

		j.begin_array();
		for (const auto &d : devs) {
			j.begin_object();
			j.field("name", get_name(d.name));
			j.field("num_comp_vectors", d.num_comp_vectors);
			j.field("nvec", d.nvec);
			j.field("max_cqe", d.max_cqe);
			j.field("max_cq", d.max_cq);
			j.field("pools", d.pools);
			j.field("cqs", d.cqs);
			j.field("cqes", uint64_t(d.cqes));
			j.field("reserved_cqes", uint64_t(d.reserved_cqes));
			j.field("users", uint64_t(d.users));
			j.field("events", uint64_t(d.events));
			j.field("delivered", uint64_t(d.delivered));
			j.field("masked", uint64_t(d.masked));
			j.field("upstream_cqs", uint64_t(d.upstream_cqs));
			j.field("upstream_cqes", uint64_t(d.upstream_cqes));
			j.field("upstream_used", uint64_t(d.upstream_used));
			j.end_object();
		}
		j.end_array();
		std::printf("%s\n", j.str().c_str());
		return 0;
	}

	if (devs.empty()) {
		std::printf("no RDMA devices (add one: `rdma link add rxe0 type rxe netdev eth0`)\n");
		return 0;
	}
	Table t({"device", "vectors", "max_cqe", "pools", "cqs", "cqes", "reserved",
		 "users", "upstream_cqs", "upstream_cqes", "upstream_used"});
	for (const auto &d : devs)
		t.add({get_name(d.name),
		       std::to_string(d.nvec) + "/" + std::to_string(d.num_comp_vectors),
		       std::to_string(d.max_cqe), std::to_string(d.pools),
		       std::to_string(d.cqs), std::to_string(d.cqes),
		       std::to_string(d.reserved_cqes), std::to_string(d.users),
		       std::to_string(d.upstream_cqs), std::to_string(d.upstream_cqes),
		       std::to_string(d.upstream_used)});
	std::fputs(t.render().c_str(), stdout);
	return 0;
}

} // namespace cqpoolctl
