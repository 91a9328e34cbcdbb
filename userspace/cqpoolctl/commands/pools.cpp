// SPDX-License-Identifier: GPL-2.0
#include "commands.h"
#include "../debugfs.h"
#include "../table.h"

#include <cstdio>

namespace cqpoolctl {

const CommandSpec pools_spec = {
	"pools", "[--device DEV]",
	"Every cqpool pool (shared per device and poll context, or owned by one\n"
	"consumer), then each of its CQs: vector, real size, entries reserved,\n"
	"users, age and time idle.  Read from /dev/cqpool with the test harness\n"
	"loaded, else from cqpool.ko's debugfs (/sys/kernel/debug/cqpool/pools).",
	{
		{"device", "DEV", "only the pools of this RDMA device"},
		{"json", nullptr, "JSON output"},
	},
};

static std::string pool_flags(uint32_t f)
{
	std::string s = f & CQPOOL_POOL_INFO_OWNED ? "owned" : "shared";

	if (f & CQPOOL_POOL_NO_SHRINK)
		s += ",no-shrink";
	if (f & CQPOOL_POOL_NO_RESIZE)
		s += ",no-resize";
	if (f & CQPOOL_POOL_RESIZE)
		s += ",resize";
	if (f & CQPOOL_POOL_INFO_BROKEN)
		s += ",BROKEN";
	return s;
}

static bool in_pool(const cqpool_cq_info &c, const cqpool_pool_info &p)
{
	return get_name(c.device) == get_name(p.device) &&
	       get_name(c.pool) == get_name(p.name);
}

int cmd_pools(const Args &args, const Context &ctx)
{
	std::vector<cqpool_pool_info> pools;
	std::vector<cqpool_cq_info> cqs;
	std::string only = args.get("device");
	Cqpool cq;
	bool debugfs;
	Error e = open_cqpool_or_debugfs(cq, debugfs);

	if (!e && debugfs)
		e = debugfs_pools(pools, cqs);
	if (!e && !debugfs)
		e = cq.list_pools(pools);
	if (!e && !debugfs)
		e = cq.list_cqs(cqs);
	if (e)
		return fail(e);

	Json j;
	bool any = false;

	if (ctx.json)
		j.begin_array();
	for (const auto &p : pools) {
		if (!only.empty() && get_name(p.device) != only)
			continue;
		any = true;
		if (ctx.json) {
			j.begin_object();
			j.field("device", get_name(p.device));
			j.field("name", get_name(p.name));
			j.field("poll_ctx", poll_ctx_name(p.poll_ctx));
			j.field("flags", pool_flags(p.flags));
			j.field("cqs", p.cqs);
			j.field("idle_cqs", p.idle_cqs);
			j.field("cqes", uint64_t(p.cqes));
			j.field("reserved_cqes", uint64_t(p.reserved_cqes));
			j.field("users", uint64_t(p.users));
			j.key("cq").begin_array();
			for (const auto &c : cqs) {
				if (!in_pool(c, p))
					continue;
				j.begin_object();
				j.field("cq_id", c.cq_id);
				j.field("vector", c.vector);
				j.field("cqe", c.cqe);
				j.field("reserved_cqes", c.reserved_cqes);
				j.field("users", c.users);
				j.field("age_ms", uint64_t(c.age_ms));
				j.field("idle_ms", uint64_t(c.idle_ms));
				j.field("events", uint64_t(c.events));
				j.field("delivered", uint64_t(c.delivered));
				j.end_object();
			}
			j.end_array();
			j.end_object();
			continue;
		}

		std::printf("%s pool %s %s %s cqs %u idle %u cqes %llu reserved %llu users %llu\n",
			    get_name(p.device).c_str(), get_name(p.name).c_str(),
			    poll_ctx_name(p.poll_ctx), pool_flags(p.flags).c_str(),
			    p.cqs, p.idle_cqs, (unsigned long long)p.cqes,
			    (unsigned long long)p.reserved_cqes,
			    (unsigned long long)p.users);
		Table t({"  cq", "vector", "cqe", "reserved", "users", "age", "idle",
			 "events"});
		for (const auto &c : cqs)
			if (in_pool(c, p))
				t.add({"  " + std::to_string(c.cq_id),
				       std::to_string(c.vector), std::to_string(c.cqe),
				       std::to_string(c.reserved_cqes),
				       std::to_string(c.users),
				       human_ns(double(c.age_ms) * 1e6),
				       c.users ? "-" : human_ns(double(c.idle_ms) * 1e6),
				       std::to_string(c.events)});
		if (t.rows())
			std::fputs(t.render().c_str(), stdout);
	}
	if (ctx.json) {
		j.end_array();
		std::printf("%s\n", j.str().c_str());
	} else if (!any) {
		std::printf("no pools%s%s\n", only.empty() ? "" : " on ", only.c_str());
	}
	return 0;
}

} // namespace cqpoolctl
