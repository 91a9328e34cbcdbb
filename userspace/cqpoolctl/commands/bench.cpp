// SPDX-License-Identifier: GPL-2.0
//
// `cqpoolctl bench`: the in-kernel micro-benchmarks, cqpool against
// upstream (and one CQ per QP), alternated A B C A B C so that drift
// (other load on the machine, caches warming) falls on all alike; and
// the mixed workload of the design notes, measured from here.
#include "commands.h"
#include "../stats.h"
#include "../table.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <map>

namespace cqpoolctl {

const CommandSpec bench_spec = {
	"bench", "--kind getput|churn|storm|parallel|latency|mixed|growth|turnover --device DEV "
	"[options]",
	"Times reservations in the kernel (CQPOOL_IOC_BENCH) on a fresh cqpool\n"
	"pool, on upstream's ib_cq_pool_get() and (with --modes) on one\n"
	"ib_alloc_cq() per QP, alternating for R rounds, and prints\n"
	"per-operation medians (min-max) and the cqpool/upstream ratio.\n"
	"  getput  get+put of --nr-cqe where --prefill CQs per vector are full\n"
	"          but one\n"
	"  churn   the same, with the room in the CQ upstream scans last\n"
	"  storm   --iterations reservations, then all released\n"
	"  parallel  getput's pool, with its get+put pairs shared by --threads\n"
	"          kernel threads at once: wall time per pair, throughput\n"
	"  latency  getput with each call timed alone: percentiles\n"
	"  mixed   1024 reservations of 33, 129, 385, 1025, 65, 257 CQEs on\n"
	"          cqpool's shared pool and on upstream's, from userspace:\n"
	"          CQEs allocated/reserved, users per CQ, CQEs held after\n"
	"          release and after cqpool's idle timeout\n"
	"  growth  the device's verbs alone, for a pool's growth: a CQ of\n"
	"          --nr-cqe grown in place to twice its size, against a\n"
	"          second CQ of --nr-cqe, --iterations of each a round\n"
	"  turnover  512 reservations of the mixed sizes, then --iterations\n"
	"          steps (default 64) that each give back a random quarter and\n"
	"          make as many anew: CQEs allocated/reserved after each step,\n"
	"          on upstream's pool, cqpool's shared pool and an owned pool\n"
	"          that resizes, one after the other on one sequence\n"
	"getput and churn also give the percentiles of their batches' time per\n"
	"call, which a host that stops QEMU for a while moves less than the mean.\n"
	"Upstream's CQs made here stay with the device, as upstream keeps them.",
	{
		{"kind", "KIND", "getput|churn|storm|parallel|latency|mixed|growth|turnover "
				 "(default getput)"},
		{"device", "DEV", "the RDMA device"},
		{"modes", "LIST", "cqpool,upstream,perqp (default cqpool,upstream)"},
		{"prefill", "N", "getput, churn, parallel, latency: full CQs per vector first "
				 "(default 8)"},
		{"nr-cqe", "N", "entries per reservation (default 32)"},
		{"iterations", "N", "operations per round (default 10000; storm 1024; mixed 1024; "
				    "growth 8)"},
		{"threads", "N", "parallel: kernel threads, thread i on vector i (default 4)"},
		{"rounds", "R", "A/B rounds (default 5)"},
		{"poll", "CTX", "softirq|workqueue|unbound (default softirq)"},
		{"shared", nullptr, "storm: cqpool on the device's shared pool, warm "
				    "within its idle timeout, not a fresh one"},
		{"resize", nullptr, "storm: cqpool's fresh pool opts in to growing its "
				    "CQs in place (ib_resize_cq()); mixed: cqpool on such "
				    "a pool, not the shared one, which never resizes"},
		{"takeover", nullptr, "upstream's calls through cqpool_takeover.ko, "
				      "which must be loaded (not with mixed)"},
		{"takeover-direct", nullptr, "as --takeover, with the takeover's functions "
					     "called directly, not through the livepatch"},
		{"ledger", nullptr, "getput, churn: cqpool's timed calls are its pool "
				    "ledger's alone, on a copy of the filled pool's ledger"},
		{"json", nullptr, "JSON output"},
	},
};

namespace {

// The percentiles LATENCY gives of its calls, and GET_PUT and CHURN of their
// batches' time per call, in struct cqpool_bench's order.
const struct {
	const char *name;
	__u64 cqpool_bench::*field;
} percentiles[] = {
	{"get_p50_ns", &cqpool_bench::get_p50_ns}, {"get_p90_ns", &cqpool_bench::get_p90_ns},
	{"get_p99_ns", &cqpool_bench::get_p99_ns}, {"get_max_ns", &cqpool_bench::get_max_ns},
	{"put_p50_ns", &cqpool_bench::put_p50_ns}, {"put_p90_ns", &cqpool_bench::put_p90_ns},
	{"put_p99_ns", &cqpool_bench::put_p99_ns}, {"put_max_ns", &cqpool_bench::put_max_ns},
};
constexpr size_t nr_percentiles = sizeof(percentiles) / sizeof(percentiles[0]);

struct Series {
	uint32_t mode;
	const char *name;
	bool skipped = false;
	std::vector<double> get, put;
	std::vector<double> cqs, cqes, reserved_cqes;
	std::vector<double> pct[nr_percentiles];
};

const char *bench_mode_name(uint32_t m)
{
	switch (m) {
	case CQPOOL_CQ_POOL: return "cqpool";
	case CQPOOL_CQ_UPSTREAM: return "upstream";
	case CQPOOL_CQ_PER_QP: return "perqp";
	}
	return "?";
}

bool parse_modes(const std::string &s, std::vector<uint32_t> &out)
{
	size_t at = 0;

	out.clear();
	while (at <= s.size()) {
		size_t comma = s.find(',', at);
		std::string m = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);

		if (m == "cqpool")
			out.push_back(CQPOOL_CQ_POOL);
		else if (m == "upstream")
			out.push_back(CQPOOL_CQ_UPSTREAM);
		else if (m == "perqp")
			out.push_back(CQPOOL_CQ_PER_QP);
		else
			return false;
		if (comma == std::string::npos)
			break;
		at = comma + 1;
	}
	return !out.empty();
}

std::string spread_cell(const Spread &s)
{
	char buf[64];

	std::snprintf(buf, sizeof(buf), "%.0f (%.0f-%.0f)", s.median, s.min, s.max);
	return buf;
}

std::string ratio_cell(const Spread &a, const Spread &b)
{
	return b.median > 0 ? ratio_str(a.median / b.median) : "-";
}

void json_spread(Json &j, const char *k, const Spread &s)
{
	j.key(k).begin_object().field("median", s.median).field("min", s.min);
	j.field("max", s.max).end_object();
}

// --- mixed workload ------------------------------------------------------------

struct MixedRound {
	double cqs = 0, cqes = 0, reserved = 0;
	double balance = 0;		// worst vector: max / mean users per CQ
	double held_release = 0, held_idle = 0, idle_wait_ms = 0;
	double get_ns = 0;		// wall time of the 1024 gets (ioctls)
};

uint32_t read_idle_timeout_ms()
{
	std::ifstream f("/sys/module/cqpool/parameters/idle_timeout_ms");
	uint32_t v = 0;

	f >> v;
	return v;
}

// Worst vector's max/mean users per CQ, from where the gets landed.
double balance_of(const std::vector<cqpool_cq_get> &g)
{
	std::map<uint32_t, std::map<uint32_t, unsigned int>> per_vec;
	double worst = 0;

	for (const auto &x : g)
		per_vec[x.vector][x.cq_id]++;
	for (const auto &v : per_vec) {
		unsigned int most = 0, sum = 0;

		for (const auto &c : v.second) {
			most = std::max(most, c.second);
			sum += c.second;
		}
		double mean = double(sum) / double(v.second.size());
		worst = std::max(worst, most / mean);
	}
	return worst;
}

// The name of the pool a --resize round makes, to find it by.
const char *const mixed_pool_name = "mixed-resize";

// The CQs and CQEs of the pool a --resize round made, by its name.
Error owned_pool_counts(Cqpool &cq, const std::string &dev, MixedRound &r)
{
	std::vector<cqpool_pool_info> pools;
	Error e = cq.list_pools(pools);

	if (e)
		return e;
	for (const auto &p : pools) {
		if (dev == p.device && std::string(p.name) == mixed_pool_name) {
			r.cqs = double(p.cqs);
			r.cqes = double(p.cqes);
			return Error();
		}
	}
	return Error(ENOENT, "CQPOOL_IOC_LIST pools", mixed_pool_name);
}

// With @pool_id (a pool of @fd), the gets are on it, and the round ends
// after the puts: the pool goes with its CQs, no idle timeout to wait for.
Error mixed_round(Cqpool &cq, int fd, const std::string &dev, uint32_t mode,
		  uint32_t poll, uint32_t n, uint32_t pool_id, MixedRound &r)
{
	static const uint32_t sizes[] = {33, 129, 385, 1025, 65, 257};
	std::vector<cqpool_cq_get> g(n);
	cqpool_device_info d;
	bool up = mode == CQPOOL_CQ_UPSTREAM;
	Error e;

	uint64_t t = now_ns();
	for (uint32_t i = 0; i < n; i++) {
		g[i] = make_arg<cqpool_cq_get>();
		g[i].flags = pool_id ? 0 : up ? CQPOOL_CQ_GET_UPSTREAM : CQPOOL_CQ_GET_SHARED;
		g[i].pool_id = pool_id;
		g[i].poll_ctx = pool_id ? 0 : poll;
		if (!pool_id)
			set_name(g[i].device, dev);
		g[i].nr_cqe = sizes[i % 6];
		g[i].vector_hint = -1;
		if (ioctl(fd, CQPOOL_IOC_CQ_GET, &g[i]) < 0) {
			e = Error(errno, "CQPOOL_IOC_CQ_GET", dev);
			n = i;
			break;
		}
		r.reserved += g[i].nr_cqe;
	}
	r.get_ns = double(now_ns() - t);
	if (!e && pool_id)
		e = owned_pool_counts(cq, dev, r);
	else if (!e)
		e = find_device(cq, dev, d);
	if (!e && !pool_id) {
		r.cqs = double(up ? d.upstream_cqs : d.cqs);
		r.cqes = double(up ? d.upstream_cqes : d.cqes);
	}
	if (!e)
		r.balance = balance_of(g);
	for (uint32_t i = 0; i < n; i++) {
		auto p = make_arg<cqpool_destroy>();

		p.id = g[i].id;
		if (ioctl(fd, CQPOOL_IOC_CQ_PUT, &p) < 0 && !e)
			e = Error(errno, "CQPOOL_IOC_CQ_PUT", dev);
	}
	if (e || pool_id)
		return e;
	e = find_device(cq, dev, d);
	if (e)
		return e;
	r.held_release = double(up ? d.upstream_cqes : d.cqes);
	// cqpool frees idle CQs after its idle timeout; upstream never.
	// Both are read again after the same wait.
	uint32_t limit = read_idle_timeout_ms() + 5000;
	t = now_ns();
	for (;;) {
		e = find_device(cq, dev, d);
		if (e)
			return e;
		uint64_t waited = (now_ns() - t) / 1000000;
		if ((!up && !d.cqs) || waited >= limit || (up && waited >= limit - 5000))
			break;
		sleep_ms(50);
	}
	r.idle_wait_ms = double((now_ns() - t) / 1000000);
	r.held_idle = double(up ? d.upstream_cqes : d.cqes);
	return Error();
}

// A pool of @fd on @dev that grows its CQs in place, for a --resize round.
Error make_resize_pool(int fd, const std::string &dev, uint32_t poll, uint32_t &id)
{
	auto c = make_arg<cqpool_pool_create>();

	c.flags = CQPOOL_POOL_RESIZE;
	set_name(c.device, dev);
	set_name(c.name, mixed_pool_name);
	c.poll_ctx = poll;
	if (ioctl(fd, CQPOOL_IOC_POOL_CREATE, &c) < 0)
		return Error(errno, "CQPOOL_IOC_POOL_CREATE", dev);
	id = c.id;
	return Error();
}

Error destroy_pool(int fd, uint32_t id)
{
	auto d = make_arg<cqpool_destroy>();

	d.id = id;
	if (ioctl(fd, CQPOOL_IOC_POOL_DESTROY, &d) < 0)
		return Error(errno, "CQPOOL_IOC_POOL_DESTROY");
	return Error();
}

int cmd_mixed(const std::string &dev, const std::vector<uint32_t> &modes,
	      uint32_t poll, uint32_t n, uint32_t rounds, bool resize,
	      const Context &ctx)
{
	Cqpool cq;
	Error e = open_cqpool(cq);

	if (e)
		return fail(e);
	int fd = ::open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(Error(errno, "open"));
	std::vector<std::vector<MixedRound>> res(modes.size());
	for (uint32_t round = 0; round < rounds; round++) {
		for (size_t m = 0; m < modes.size(); m++) {
			MixedRound r;
			uint32_t pool_id = 0;

			if (modes[m] == CQPOOL_CQ_PER_QP)
				continue;
			if (resize)
				e = make_resize_pool(fd, dev, poll, pool_id);
			if (!e)
				e = mixed_round(cq, fd, dev, modes[m], poll, n, pool_id, r);
			if (pool_id) {
				Error d = destroy_pool(fd, pool_id);

				e = e ? e : d;
			}
			if (e) {
				::close(fd);
				return fail(e);
			}
			res[m].push_back(r);
		}
		if (!ctx.json)
			std::fprintf(stderr, "bench: round %u/%u\n", round + 1, rounds);
	}
	::close(fd);

	Json j;
	j.begin_object().field("kind", "mixed").field("device", dev);
	j.field("reservations", n).field("rounds", rounds);
	j.field("poll_ctx", poll_ctx_name(poll));
	j.field("idle_timeout_ms", read_idle_timeout_ms()).field("resize", resize);
	for (size_t m = 0; m < modes.size(); m++) {
		if (res[m].empty())
			continue;
		j.key(bench_mode_name(modes[m])).begin_object();
		auto col = [&](const char *k, double MixedRound::*f) {
			std::vector<double> v;

			for (const auto &r : res[m])
				v.push_back(r.*f);
			json_samples(j, k, v);
		};
		col("cqs", &MixedRound::cqs);
		col("cqes", &MixedRound::cqes);
		col("reserved", &MixedRound::reserved);
		col("balance", &MixedRound::balance);
		if (!resize) {
			col("held_after_release", &MixedRound::held_release);
			col("held_after_idle", &MixedRound::held_idle);
			col("idle_wait_ms", &MixedRound::idle_wait_ms);
		}
		col("get_wall_ns", &MixedRound::get_ns);
		j.end_object();
	}
	j.end_object();
	if (ctx.json) {
		std::printf("%s\n", j.str().c_str());
		return 0;
	}
	for (size_t m = 0; m < modes.size(); m++) {
		if (res[m].empty())
			continue;
		const MixedRound &r = res[m].front();
		std::printf("%s%s: %.0f CQs of %.0f CQEs for %.0f reserved (%.3fx), "
			    "balance %.2f", bench_mode_name(modes[m]),
			    resize ? " (resize)" : "", r.cqs, r.cqes, r.reserved,
			    r.reserved > 0 ? r.cqes / r.reserved : 0, r.balance);
		if (resize)
			std::printf("\n");
		else
			std::printf("; held after release %.0f, after %.0f ms %.0f\n",
				    r.held_release, r.idle_wait_ms, r.held_idle);
	}
	return 0;
}

// --- growth: resize in place against a second CQ ---------------------------------

int cmd_growth(const std::string &dev, uint32_t poll, uint32_t nr_cqe,
	       uint32_t iterations, uint32_t rounds, const Context &ctx)
{
	std::vector<double> resize, second, ratio;
	Cqpool cq;
	Error e = open_cqpool(cq);
	auto b = make_arg<cqpool_bench>();

	if (e)
		return fail(e);
	for (uint32_t round = 0; round < rounds; round++) {
		b = make_arg<cqpool_bench>();
		b.kind = CQPOOL_BENCH_GROWTH;
		b.cq_mode = CQPOOL_CQ_PER_QP;
		set_name(b.device, dev);
		b.poll_ctx = poll;
		b.nr_cqe = nr_cqe;
		b.iterations = iterations;
		e = cq.bench(b);
		if (e.err == EINVAL)
			return fail(describe(e) + " (--nr-cqe or --iterations out of the "
						  "module's range, or twice --nr-cqe past "
						  "the device's max_cqe?)");
		if (e)
			return fail(e);
		resize.push_back(double(b.get_ns) / iterations);
		second.push_back(double(b.put_ns) / iterations);
		ratio.push_back(second.back() > 0 ? resize.back() / second.back() : 0);
		if (!ctx.json)
			std::fprintf(stderr, "bench: round %u/%u\n", round + 1, rounds);
	}
	Spread r = spread(resize), n = spread(second), q = spread(ratio);

	if (ctx.json) {
		Json j;

		j.begin_object().field("kind", "growth").field("device", dev);
		j.field("nr_cqe", nr_cqe).field("iterations", iterations);
		j.field("rounds", rounds).field("poll_ctx", poll_ctx_name(poll));
		j.field("grown_cqes", double(b.cqes)).field("second_cqes", double(b.reserved_cqes));
		json_spread(j, "resize_ns", r);
		json_spread(j, "new_cq_ns", n);
		json_spread(j, "resize_ratio", q);
		json_samples(j, "resize_ns_rounds", resize);
		json_samples(j, "new_cq_ns_rounds", second);
		json_samples(j, "resize_ratio_rounds", ratio);
		j.end_object();
		std::printf("%s\n", j.str().c_str());
		return 0;
	}
	std::printf("growth on %s: a CQ of %u CQEs grown in place to %llu, against a "
		    "second CQ of %llu; %u x %u rounds\n\n", dev.c_str(), nr_cqe,
		    (unsigned long long)b.cqes, (unsigned long long)b.reserved_cqes,
		    iterations, rounds);
	Table t({"", "ns median (min-max)"});
	t.add({"ib_resize_cq()", spread_cell(r)});
	t.add({"a second ib_alloc_cq()", spread_cell(n)});
	t.add({"resize/second (median of rounds)", ratio_str(q.median)});
	std::fputs(t.render().c_str(), stdout);
	return 0;
}

} // namespace

int cmd_bench(const Args &args, const Context &ctx)
{
	std::string dev, err;
	uint32_t kind = 0, prefill, nr_cqe, iterations, rounds, poll = CQPOOL_POLL_SOFTIRQ;
	std::string k = args.get("kind", "getput");
	std::vector<uint32_t> modes;
	bool mixed = false;
	Cqpool cq;

	if (k == "getput")
		kind = CQPOOL_BENCH_GET_PUT;
	else if (k == "churn")
		kind = CQPOOL_BENCH_CHURN;
	else if (k == "storm")
		kind = CQPOOL_BENCH_STORM;
	else if (k == "parallel")
		kind = CQPOOL_BENCH_PARALLEL;
	else if (k == "latency")
		kind = CQPOOL_BENCH_LATENCY;
	else if (k == "mixed")
		mixed = true;
	else if (k == "growth")
		kind = CQPOOL_BENCH_GROWTH;
	else if (k != "turnover")
		return usage_error(bench_spec, "unknown --kind '" + k +
				   "' (getput, churn, storm, parallel, latency, mixed, growth, "
				   "turnover)");
	if (!device_arg(bench_spec, args, dev))
		return EXIT_USAGE;
	if (args.has("poll") && !parse_poll_ctx(args.get("poll"), poll))
		return usage_error(bench_spec, "unknown --poll '" + args.get("poll") + "'");
	if (!parse_modes(args.get("modes", "cqpool,upstream"), modes))
		return usage_error(bench_spec, "bad --modes '" + args.get("modes") +
				   "' (cqpool,upstream,perqp)");
	bool storm = kind == CQPOOL_BENCH_STORM && !mixed;
	bool parallel = kind == CQPOOL_BENCH_PARALLEL;
	bool growth = kind == CQPOOL_BENCH_GROWTH;
	bool pct = kind == CQPOOL_BENCH_LATENCY || kind == CQPOOL_BENCH_GET_PUT ||
		   kind == CQPOOL_BENCH_CHURN;
	uint32_t threads = 0;
	if (!args.get_u32("prefill", 8, 1, 4096, prefill, err) ||
	    !args.get_u32("nr-cqe", 32, 1, UINT32_MAX, nr_cqe, err) ||
	    !args.get_u32("iterations", growth ? 8 : storm || mixed ? 1024 : 10000, 1,
			  growth ? CQPOOL_BENCH_GROWTH_ITER :
			  storm || mixed ? CQPOOL_MAX_FD_OBJECTS : 1000000, iterations, err) ||
	    !args.get_u32("rounds", 5, 1, 1000, rounds, err) ||
	    (parallel && !args.get_u32("threads", 4, 1, CQPOOL_BENCH_MAX_THREADS,
				       threads, err)))
		return usage_error(bench_spec, err);
	if (args.has("threads") && !parallel)
		return usage_error(bench_spec, "--threads is for --kind parallel");
	if (k == "turnover") {
		for (const char *o : {"modes", "prefill", "nr-cqe", "rounds", "threads",
				      "shared", "resize", "takeover", "takeover-direct",
				      "ledger"})
			if (args.has(o))
				return usage_error(bench_spec, std::string("--kind turnover "
						   "runs its three pools itself: no --") + o);
		return cmd_turnover(dev, poll, args.has("iterations") ? iterations : 64, ctx);
	}
	if (parallel && std::count(modes.begin(), modes.end(), CQPOOL_CQ_PER_QP))
		return usage_error(bench_spec, "--kind parallel compares pools: "
				   "cqpool,upstream");
	bool direct = args.has("takeover-direct");
	bool takeover = args.has("takeover") || direct;
	if (args.has("takeover") && direct)
		return usage_error(bench_spec, "--takeover or --takeover-direct");
	if (mixed && takeover)
		return usage_error(bench_spec, "--takeover is for the in-kernel kinds, not mixed");
	bool ledger = args.has("ledger");
	if (ledger && (mixed || (kind != CQPOOL_BENCH_GET_PUT && kind != CQPOOL_BENCH_CHURN)))
		return usage_error(bench_spec, "--ledger is for --kind getput and churn");
	bool resize = args.has("resize");
	if (mixed && resize && modes != std::vector<uint32_t>{CQPOOL_CQ_POOL})
		return usage_error(bench_spec, "--kind mixed --resize is cqpool's alone: "
				   "--modes cqpool");
	if (mixed)
		return cmd_mixed(dev, modes, poll, iterations, rounds, resize, ctx);
	if (growth && (args.has("modes") || args.has("prefill") || takeover ||
		       args.has("shared") || args.has("resize")))
		return usage_error(bench_spec, "--kind growth times the device's verbs: "
				   "no --modes, --prefill, --takeover, --shared or "
				   "--resize");
	if (growth)
		return cmd_growth(dev, poll, nr_cqe, iterations, rounds, ctx);
	bool shared = args.has("shared");
	if ((shared || resize) && !storm)
		return usage_error(bench_spec, "--shared and --resize are for --kind storm "
				   "(--resize also mixed)");
	if (shared && resize)
		return usage_error(bench_spec, "--shared or --resize: the shared pool never "
				   "resizes");

	Error e = open_cqpool(cq);
	if (e)
		return fail(e);

	std::vector<Series> s(modes.size());
	for (size_t m = 0; m < modes.size(); m++) {
		s[m].mode = modes[m];
		s[m].name = bench_mode_name(modes[m]);
	}
	for (uint32_t round = 0; round < rounds; round++) {
		for (auto &x : s) {
			if (x.skipped)
				continue;
			auto b = make_arg<cqpool_bench>();

			b.kind = kind;
			b.cq_mode = x.mode;
			if (x.mode == CQPOOL_CQ_POOL)
				b.flags = (shared ? CQPOOL_BENCH_F_SHARED : 0) |
					  (resize ? CQPOOL_BENCH_F_RESIZE : 0) |
					  (ledger ? CQPOOL_BENCH_F_LEDGER : 0);
			else if (x.mode == CQPOOL_CQ_UPSTREAM && takeover)
				b.flags = direct ? CQPOOL_BENCH_F_TAKEOVER_DIRECT :
						   CQPOOL_BENCH_F_TAKEOVER;
			set_name(b.device, dev);
			b.poll_ctx = poll;
			b.nr_cqe = nr_cqe;
			b.prefill = storm ? 0 : prefill;
			b.iterations = iterations;
			b.threads = threads;
			e = cq.bench(b);
			if (x.mode == CQPOOL_CQ_UPSTREAM && e.err == EBUSY) {
				std::fprintf(stderr,
					     "cqpoolctl: upstream: the kernel's CQ pool is taken "
					     "over by cqpool (cqpool_takeover loaded); skipped\n");
				x.skipped = true;
				continue;
			}
			if (x.mode == CQPOOL_CQ_UPSTREAM && takeover && e.err == ENOENT)
				return fail(describe(e) + " (--takeover: cqpool_takeover "
							  "is not loaded)");
			if (e.err == EINVAL)
				return fail(describe(e) + " (--nr-cqe, --prefill, --iterations, "
							  "--threads or --modes out of the module's "
							  "range?)");
			if (e)
				return fail(e);
			x.get.push_back(double(b.get_ns) / iterations);
			x.put.push_back(double(b.put_ns) / iterations);
			for (size_t i = 0; i < nr_percentiles; i++)
				x.pct[i].push_back(double(b.*percentiles[i].field));
			x.cqs.push_back(b.cqs);
			x.cqes.push_back(double(b.cqes));
			x.reserved_cqes.push_back(double(b.reserved_cqes));
		}
		if (!ctx.json)
			std::fprintf(stderr, "bench: round %u/%u\n", round + 1, rounds);
	}

	std::vector<Spread> g(s.size()), p(s.size());
	int up = -1;
	for (size_t m = 0; m < s.size(); m++) {
		g[m] = spread(s[m].get);
		p[m] = spread(s[m].put);
		if (s[m].mode == CQPOOL_CQ_UPSTREAM && !s[m].skipped)
			up = int(m);
	}

	if (ctx.json) {
		Json j;

		j.begin_object().field("kind", k).field("device", dev);
		j.field("nr_cqe", nr_cqe).field("iterations", iterations);
		j.field("rounds", rounds).field("poll_ctx", poll_ctx_name(poll));
		j.field("takeover", takeover).field("takeover_direct", direct);
		if (!storm)
			j.field("prefill", prefill).field("ledger", ledger);
		else
			j.field("shared", shared).field("resize", resize);
		if (parallel)
			j.field("threads", threads);
		for (size_t m = 0; m < s.size(); m++) {
			j.key(s[m].name).begin_object();
			j.field("skipped", s[m].skipped);
			if (!s[m].skipped && parallel) {
				// The run's wall time over its pairs: all threads'.
				json_spread(j, "pair_ns", g[m]);
				json_samples(j, "pair_ns_rounds", s[m].get);
			} else if (!s[m].skipped) {
				json_spread(j, "get_ns", g[m]);
				json_spread(j, "put_ns", p[m]);
				json_samples(j, "get_ns_rounds", s[m].get);
				json_samples(j, "put_ns_rounds", s[m].put);
			}
			// Each round's percentile.
			for (size_t i = 0; pct && !s[m].skipped && i < nr_percentiles; i++)
				json_samples(j, (std::string(percentiles[i].name) + "_rounds").c_str(),
					     s[m].pct[i]);
			if (!s[m].skipped) {
				json_samples(j, "cqs_rounds", s[m].cqs);
				json_samples(j, "cqes_rounds", s[m].cqes);
				json_samples(j, "reserved_cqes_rounds", s[m].reserved_cqes);
				j.field("cqs", s[m].cqs.empty() ? 0.0 : s[m].cqs.back());
				j.field("cqes", s[m].cqes.empty() ? 0.0 : s[m].cqes.back());
				j.field("reserved_cqes", s[m].reserved_cqes.empty() ? 0.0 :
							 s[m].reserved_cqes.back());
			}
			j.end_object();
		}
		if (parallel && up >= 0 && s[0].mode == CQPOOL_CQ_POOL &&
		    g[0].median > 0)
			j.field("throughput_ratio", g[up].median / g[0].median);
		else if (up >= 0 && s[0].mode == CQPOOL_CQ_POOL && g[up].median > 0 &&
			 p[up].median > 0) {
			j.field("get_ratio", g[0].median / g[up].median);
			j.field("put_ratio", p[0].median / p[up].median);
		}
		j.end_object();
		std::printf("%s\n", j.str().c_str());
		return 0;
	}

	std::printf("%s on %s: %u x %u CQEs, %u rounds%s%s\n\n", k.c_str(), dev.c_str(),
		    iterations, nr_cqe, rounds,
		    storm ? "" : (", prefill " + std::to_string(prefill) + " CQs/vector").c_str(),
		    parallel ? (", " + std::to_string(threads) + " threads").c_str() : "");
	std::vector<std::string> header{""};
	for (const auto &x : s)
		if (!x.skipped)
			header.push_back(x.name);
	bool ratio = up >= 0 && s[0].mode == CQPOOL_CQ_POOL;
	if (ratio)
		header.push_back("cqpool/upstream");
	Table t(header);
	auto row = [&](const std::string &name, auto cell, auto rcell) {
		std::vector<std::string> v{name};

		for (size_t m = 0; m < s.size(); m++)
			if (!s[m].skipped)
				v.push_back(cell(m));
		if (ratio)
			v.push_back(rcell());
		t.add(v);
	};
	auto last = [&](const std::vector<double> &v) { return v.empty() ? 0.0 : v.back(); };
	if (parallel) {
		row("wall ns per get+put pair median (min-max)",
		    [&](size_t m) { return spread_cell(g[m]); },
		    [&] { return ratio_cell(g[0], g[up]); });
		row("get+put pairs per second (median)",
		    [&](size_t m) {
			    return g[m].median > 0 ? grouped(uint64_t(1e9 / g[m].median))
						   : std::string("-");
		    },
		    [&] { return ratio_cell(g[up], g[0]); });
	} else {
		row("get ns/op median (min-max)", [&](size_t m) { return spread_cell(g[m]); },
		    [&] { return ratio_cell(g[0], g[up]); });
		row("put ns/op median (min-max)", [&](size_t m) { return spread_cell(p[m]); },
		    [&] { return ratio_cell(p[0], p[up]); });
	}
	for (size_t i = 0; pct && i < nr_percentiles; i++) {
		std::vector<Spread> pc(s.size());

		for (size_t m = 0; m < s.size(); m++)
			pc[m] = spread(s[m].pct[i]);
		row(std::string(percentiles[i].name) + " median (min-max)",
		    [&](size_t m) { return spread_cell(pc[m]); },
		    [&] { return ratio_cell(pc[0], pc[up]); });
	}
	row("CQs at fullest", [&](size_t m) { return grouped(uint64_t(last(s[m].cqs))); },
	    [&] {
		    double u = last(s[up].cqs);
		    return u > 0 ? ratio_str(last(s[0].cqs) / u) : std::string("-");
	    });
	row("CQEs at fullest", [&](size_t m) { return grouped(uint64_t(last(s[m].cqes))); },
	    [&] {
		    double u = last(s[up].cqes);
		    return u > 0 ? ratio_str(last(s[0].cqes) / u) : std::string("-");
	    });
	row("CQEs reserved",
	    [&](size_t m) { return grouped(uint64_t(last(s[m].reserved_cqes))); },
	    [&] { return std::string(); });
	std::fputs(t.render().c_str(), stdout);
	return 0;
}

} // namespace cqpoolctl
