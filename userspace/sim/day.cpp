// SPDX-License-Identifier: GPL-2.0
//
// A day of an NVMe-oF target's life, replayed through cqpool's real pool
// ledger (module/core) and through a model of upstream's ib_cq_pool_get()
// (drivers/infiniband/core/cq.c), on devices this machine cannot boot.
//
// Hosts connect and leave at random all day, each with an admin queue and
// 8 to 32 I/O queues of queue_size 128, as nvmet-rdma sizes their CQs:
// recv + 2 x send + 1 entries (97 for the admin queue, 385 for an I/O
// queue), on vector 0 for the admin queue and queue index modulo the
// vectors for the rest.  The number of hosts follows the day: few at
// night, up to --hosts at its busiest.  Every simulated minute both pools
// are sampled: the CQEs they hold.  cqpool frees a CQ idle for 30 s (its
// default idle timeout); upstream never frees one.
//
// Upstream, as 6.1's cq.c does it: first fit over the poll context's list,
// newest CQs first (ib_alloc_cqs() splices them at its head); when nothing
// fits, one CQ of max(nr_cqe, 4096) entries on every vector, as the
// driver rounds it.
//
// With --check, it replays the VM benchmarks' own workloads through the
// upstream model instead, for the report to set beside what the VM
// measured of upstream: the first 32-entry reservation, the mixed
// workload of 1,024 reservations and the storm of 4,096 reservations of
// 513, on rxe's two vectors.
//
// Output: one JSON object.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "pool.h"

namespace {

struct Device {
	const char *name;
	uint32_t nvec;
	uint32_t max_cqe;
};

// rxe in the 2-vCPU VM; a ConnectX-class HCA on a 64-core server.
const Device devices[] = {
	{"rxe-2vec", 2, 32767},
	{"cx-63vec", 63, 4194303},
};

// rxe and mlx5: a CQ of n entries is made with 2^k - 1 >= n.
uint32_t driver_round(uint64_t n, uint32_t max_cqe)
{
	uint64_t p = 1;

	while (p < n + 1)
		p <<= 1;
	return uint32_t(std::min<uint64_t>(p - 1, max_cqe));
}

// upstream's pool of one poll context
class Upstream {
public:
	explicit Upstream(const Device &d) : d_(d) {}

	// The CQ a reservation lands on (an index), as ib_cq_pool_get().
	size_t get(uint32_t nr, uint32_t vec)
	{
		for (;;) {
			for (size_t i = cqs_.size(); i-- > 0;) {
				Cq &c = cqs_[i];

				if (c.vec == vec && c.used + nr <= c.size) {
					c.used += nr;
					return i;
				}
			}
			// ib_alloc_cqs(): one CQ on every vector
			uint32_t size = driver_round(std::min<uint64_t>(d_.max_cqe,
								       std::max(nr, 4096u)),
						     d_.max_cqe);
			for (uint32_t v = 0; v < d_.nvec; v++) {
				cqs_.push_back(Cq{v, size, 0});
				cqes_ += size;
			}
		}
	}
	void put(size_t i, uint32_t nr) { cqs_[i].used -= nr; }
	uint64_t cqes() const { return cqes_; }
	uint64_t cqs() const { return cqs_.size(); }

private:
	struct Cq {
		uint32_t vec, size, used;
	};
	const Device d_;
	std::vector<Cq> cqs_;
	uint64_t cqes_ = 0;
};

// cqpool's ledger, with the glue's side done here: CQs are the ledger's
// records, sized as the driver rounds.
class Cqpool {
public:
	explicit Cqpool(const Device &d) : d_(d)
	{
		const cqp_pool_params p = {d.nvec, d.max_cqe, 0, 0, 0, 0};
		cqp_alloc a = {zalloc, release, nullptr};

		pool_ = cqp_pool_create(&a, &p);
		if (!pool_)
			abort();
	}
	~Cqpool()
	{
		while (cqp_cq *cq = cqp_pool_take_idle(pool_))
			delete cq;
		cqp_pool_destroy(pool_);
	}
	Cqpool(const Cqpool &) = delete;
	Cqpool &operator=(const Cqpool &) = delete;

	cqp_cq *get(uint32_t nr, uint32_t vec)
	{
		Grower g;
		cqp_cq *cq = cqp_pool_try_reserve(pool_, vec, nr);
		cqp_u32 grown;

		if (cq)
			return cq;
		g.grow = grow;
		g.grew = [](cqp_grower *, const cqp_plan *, cqp_cq *) {};
		g.discard = [](cqp_grower *, cqp_cq *cq) { delete cq; };
		g.self = this;
		if (cqp_pool_get(pool_, vec, nr, &g, &cq, &grown))
			abort();
		return cq;
	}
	void put(cqp_cq *cq, uint32_t nr)
	{
		if (cqp_pool_release(pool_, cq, nr, now_))
			abort();
	}
	// The clock moves to @now (ms): CQs idle for the timeout go.
	void tick(uint64_t now, uint64_t timeout)
	{
		now_ = now;
		while (cqp_cq *cq = cqp_pool_reap(pool_, now_, timeout))
			delete cq;
	}
	uint64_t cqes() const
	{
		cqp_pool_stats st;

		cqp_pool_get_stats(pool_, &st);
		return st.cqes;
	}
	uint64_t cqs() const
	{
		cqp_pool_stats st;

		cqp_pool_get_stats(pool_, &st);
		return st.cqs;
	}

private:
	static void *zalloc(void *, cqp_size_t size) { return calloc(1, size); }
	static void release(void *, void *p) { free(p); }
	// The glue's side of a growth: the verb is a record made here.
	struct Grower : cqp_grower {
		Cqpool *self;
	};
	static int grow(cqp_grower *g, const cqp_plan *plan, cqp_grown *out)
	{
		Cqpool *pool = static_cast<Grower *>(g)->self;

		if (plan->kind != CQP_PLAN_NEW)
			abort();
		out->cq = new cqp_cq;
		out->size = driver_round(plan->size, pool->d_.max_cqe);
		out->now = pool->now_;
		return 0;
	}

	const Device d_;
	cqp_pool *pool_;
	uint64_t now_ = 1;
};

struct Queue {
	uint32_t nr, vec;
	size_t up;
	cqp_cq *cq;
};

struct Host {
	uint64_t leaves;	// ms
	std::vector<Queue> queues;
};

struct Day {
	std::vector<double> cqpool, upstream;	// CQEs a minute
	uint64_t connects = 0, peak_hosts = 0;
};

// Hosts connected at @minute of the day at most @hosts: a night's tenth,
// an afternoon's whole.
uint32_t wanted(uint32_t minute, uint32_t hosts)
{
	double h = minute / 60.0;
	double busy = 0.55 - 0.45 * std::cos((h - 2.0) / 24.0 * 2 * 3.14159265358979);

	return uint32_t(hosts * std::min(1.0, busy));
}

Day one_day(const Device &d, uint32_t hosts, uint32_t seed)
{
	std::mt19937 rng(seed);
	Cqpool cqp(d);
	Upstream up(d);
	std::vector<Host> live;
	uint32_t qidx = 0;
	Day day;

	for (uint32_t minute = 0; minute < 24 * 60; minute++) {
		uint64_t now = uint64_t(minute) * 60000;

		// Hosts whose session ended leave.
		for (size_t i = live.size(); i-- > 0;) {
			if (live[i].leaves > now)
				continue;
			for (const Queue &q : live[i].queues) {
				cqp.put(q.cq, q.nr);
				up.put(q.up, q.nr);
			}
			live[i] = std::move(live.back());
			live.pop_back();
		}
		// Others arrive, up to the hour's number.
		while (live.size() < wanted(minute, hosts)) {
			Host h;
			uint32_t io = 8 + rng() % 25;

			h.leaves = now + 60000ull * (10 + rng() % 240);
			for (uint32_t i = 0; i <= io; i++) {
				Queue q;

				q.nr = i ? 385 : 97;
				q.vec = i ? qidx++ % d.nvec : 0;
				q.cq = cqp.get(q.nr, q.vec);
				q.up = up.get(q.nr, q.vec);
				h.queues.push_back(q);
			}
			live.push_back(std::move(h));
			day.connects++;
		}
		day.peak_hosts = std::max<uint64_t>(day.peak_hosts, live.size());
		cqp.tick(now + 59999, 30000);
		day.cqpool.push_back(double(cqp.cqes()));
		day.upstream.push_back(double(up.cqes()));
	}
	for (Host &h : live)
		for (const Queue &q : h.queues)
			cqp.put(q.cq, q.nr);
	return day;
}

void series(const char *k, const std::vector<double> &v)
{
	double peak = 0, mean = 0;

	for (double x : v) {
		peak = std::max(peak, x);
		mean += x / double(v.size());
	}
	std::printf("\"%s\":{\"peak\":%.0f,\"mean\":%.1f,\"hourly\":[", k, peak, mean);
	for (size_t i = 0; i < v.size(); i += 60)
		std::printf("%s%.0f", i ? "," : "", v[i]);
	std::printf("]}");
}

// The VM benchmarks' workloads through the upstream model, on rxe.
void check()
{
	static const uint32_t mixed[] = {33, 129, 385, 1025, 65, 257};
	const Device &rxe = devices[0];
	uint32_t next = 0;
	// ib_cq_pool_get() with no hint: round robin over the vectors.
	auto rr = [&]() { return next++ % rxe.nvec; };

	Upstream first(rxe);
	first.get(32, rr());
	std::printf("{\"first32\":{\"cqs\":%llu,\"cqes\":%llu},",
		    (unsigned long long)first.cqs(), (unsigned long long)first.cqes());
	Upstream mx(rxe);
	next = 0;
	for (int i = 0; i < 1024; i++)
		mx.get(mixed[i % 6], rr());
	std::printf("\"mixed\":{\"cqs\":%llu,\"cqes\":%llu},",
		    (unsigned long long)mx.cqs(), (unsigned long long)mx.cqes());
	Upstream st(rxe);
	next = 0;
	for (int i = 0; i < 4096; i++)
		st.get(513, rr());
	std::printf("\"storm\":{\"cqs\":%llu,\"cqes\":%llu}}\n",
		    (unsigned long long)st.cqs(), (unsigned long long)st.cqes());
}

} // namespace

int main(int argc, char **argv)
{
	uint32_t hosts = 1000, seed = 1;

	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--check")) {
			check();
			return 0;
		} else if (!std::strcmp(argv[i], "--hosts") && i + 1 < argc) {
			hosts = uint32_t(std::atoi(argv[++i]));
		} else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = uint32_t(std::atoi(argv[++i]));
		} else {
			std::fprintf(stderr, "usage: %s [--hosts N] [--seed S] | --check\n",
				     argv[0]);
			return 2;
		}
	}
	std::printf("{\"hosts\":%u,\"seed\":%u,\"devices\":{", hosts, seed);
	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
		Day day = one_day(devices[i], hosts, seed);

		std::printf("%s\"%s\":{\"nvec\":%u,\"max_cqe\":%u,\"connects\":%llu,"
			    "\"peak_hosts\":%llu,", i ? "," : "", devices[i].name,
			    devices[i].nvec, devices[i].max_cqe,
			    (unsigned long long)day.connects,
			    (unsigned long long)day.peak_hosts);
		series("cqpool", day.cqpool);
		std::printf(",");
		series("upstream", day.upstream);
		std::printf("}");
	}
	std::printf("}}\n");
	return 0;
}
