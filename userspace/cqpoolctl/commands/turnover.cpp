// SPDX-License-Identifier: GPL-2.0
//
// bench --kind turnover: reservations of mixed sizes made and given back at
// random, as connections come and go, with what each pool allocates against
// what is reserved after every step.  Growth by new CQs can fragment: a CQ
// keeps its size while what is on it comes and goes.  This is where that
// shows.
#include "commands.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <random>

#include "../table.h"

namespace cqpoolctl {

namespace {

// The mixed workload's sizes; the live reservations a run keeps, and how
// many of them each step gives back and makes anew.
const uint32_t sizes[] = {33, 129, 385, 1025, 65, 257};
constexpr uint32_t live = 512;
constexpr uint32_t per_step = live / 4;
// One sequence for every pool, so that each sees the same demand.
constexpr uint32_t seed = 1;

// Where a run reserves, and how its allocation is read.
struct Side {
	const char *name;
	uint32_t get_flags;	// CQPOOL_CQ_GET_SHARED or _UPSTREAM; 0: pool_id
	uint32_t pool_flags;	// the owned pool's, when get_flags is 0
};

const Side sides[] = {
	{"upstream", CQPOOL_CQ_GET_UPSTREAM, 0},
	{"cqpool", CQPOOL_CQ_GET_SHARED, 0},
	{"cqpool_resize", 0, CQPOOL_POOL_RESIZE},
};

const char *const resize_pool_name = "turnover-resize";

struct Run {
	std::vector<double> cqes, reserved;
};

// What @side has allocated on @dev for @poll: the shared pool's CQEs, the
// owned pool's, or upstream's less what it held before the run.
Error allocated(Cqpool &cq, const std::string &dev, const Side &side, uint32_t poll,
		uint64_t upstream_before, double &out)
{
	if (side.get_flags == CQPOOL_CQ_GET_UPSTREAM) {
		cqpool_device_info d;
		Error e = find_device(cq, dev, d);

		out = double(d.upstream_cqes - upstream_before);
		return e;
	}
	std::vector<cqpool_pool_info> pools;
	Error e = cq.list_pools(pools);

	out = 0;
	for (const auto &p : pools) {
		bool owned = p.flags & CQPOOL_POOL_INFO_OWNED;

		if (dev != p.device || p.poll_ctx != poll)
			continue;
		if (side.get_flags ? !owned : owned && std::string(p.name) == resize_pool_name)
			out += double(p.cqes);
	}
	return e;
}

Error one_run(Cqpool &cq, int fd, const std::string &dev, const Side &side, uint32_t poll,
	      uint32_t steps, Run &run)
{
	std::mt19937 rng(seed);
	std::vector<cqpool_cq_get> held;
	uint32_t pool_id = 0;
	uint64_t upstream_before = 0;
	double reserved = 0;
	Error e;

	if (side.get_flags == CQPOOL_CQ_GET_UPSTREAM) {
		cqpool_device_info d;

		e = find_device(cq, dev, d);
		upstream_before = d.upstream_cqes;
	} else if (!side.get_flags) {
		auto c = make_arg<cqpool_pool_create>();

		c.flags = side.pool_flags;
		set_name(c.device, dev);
		set_name(c.name, resize_pool_name);
		c.poll_ctx = poll;
		if (ioctl(fd, CQPOOL_IOC_POOL_CREATE, &c) < 0)
			e = Error(errno, "CQPOOL_IOC_POOL_CREATE", dev);
		pool_id = c.id;
	}
	auto get = [&]() {
		auto g = make_arg<cqpool_cq_get>();

		g.flags = side.get_flags;
		g.pool_id = pool_id;
		if (side.get_flags) {
			g.poll_ctx = poll;
			set_name(g.device, dev);
		}
		g.nr_cqe = sizes[rng() % (sizeof(sizes) / sizeof(sizes[0]))];
		g.vector_hint = -1;
		if (ioctl(fd, CQPOOL_IOC_CQ_GET, &g) < 0)
			return Error(errno, "CQPOOL_IOC_CQ_GET", dev);
		held.push_back(g);
		reserved += g.nr_cqe;
		return Error();
	};
	auto put = [&](size_t i) {
		auto p = make_arg<cqpool_destroy>();

		p.id = held[i].id;
		reserved -= held[i].nr_cqe;
		held[i] = held.back();
		held.pop_back();
		if (ioctl(fd, CQPOOL_IOC_CQ_PUT, &p) < 0)
			return Error(errno, "CQPOOL_IOC_CQ_PUT", dev);
		return Error();
	};

	while (!e && held.size() < live)
		e = get();
	for (uint32_t s = 0; s < steps && !e; s++) {
		for (uint32_t i = 0; i < per_step && !e; i++)
			e = put(rng() % held.size());
		for (uint32_t i = 0; i < per_step && !e; i++)
			e = get();
		double cqes = 0;

		if (!e)
			e = allocated(cq, dev, side, poll, upstream_before, cqes);
		run.cqes.push_back(cqes);
		run.reserved.push_back(reserved);
	}
	while (!held.empty()) {
		Error p = put(held.size() - 1);

		e = e ? e : p;
	}
	if (pool_id) {
		auto d = make_arg<cqpool_destroy>();

		d.id = pool_id;
		if (ioctl(fd, CQPOOL_IOC_POOL_DESTROY, &d) < 0 && !e)
			e = Error(errno, "CQPOOL_IOC_POOL_DESTROY", dev);
	}
	return e;
}

} // namespace

int cmd_turnover(const std::string &dev, uint32_t poll, uint32_t steps, const Context &ctx)
{
	Cqpool cq;
	Error e = open_cqpool(cq);
	Json j;

	if (e)
		return fail(e);
	int fd = ::open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(Error(errno, "open"));
	j.begin_object().field("kind", "turnover").field("device", dev);
	j.field("poll_ctx", poll_ctx_name(poll)).field("live", live);
	j.field("per_step", per_step).field("steps", steps);
	for (const Side &side : sides) {
		Run run;

		e = one_run(cq, fd, dev, side, poll, steps, run);
		if (e.err == EBUSY && side.get_flags == CQPOOL_CQ_GET_UPSTREAM) {
			std::fprintf(stderr, "cqpoolctl: upstream: taken over by cqpool; skipped\n");
			continue;
		}
		if (e) {
			::close(fd);
			return fail(e);
		}
		std::vector<double> ratio;
		for (size_t i = 0; i < run.cqes.size(); i++)
			ratio.push_back(run.reserved[i] > 0 ? run.cqes[i] / run.reserved[i] : 0);
		double worst = ratio.empty() ? 0 : *std::max_element(ratio.begin(), ratio.end());
		double mean = 0;
		for (double r : ratio)
			mean += r / double(ratio.size());
		j.key(side.name).begin_object();
		j.field("worst", worst).field("mean", mean);
		json_samples(j, "ratio", ratio);
		json_samples(j, "cqes", run.cqes);
		json_samples(j, "reserved", run.reserved);
		j.end_object();
		if (!ctx.json)
			std::printf("%-14s allocated/reserved over %u steps: worst %.3f, mean %.3f\n",
				    side.name, steps, worst, mean);
	}
	::close(fd);
	j.end_object();
	if (ctx.json)
		std::printf("%s\n", j.str().c_str());
	return 0;
}

} // namespace cqpoolctl
