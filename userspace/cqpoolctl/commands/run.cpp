// SPDX-License-Identifier: GPL-2.0
//
// `cqpoolctl run`: open the QPs a ULP would, with CQs from cqpool, from
// upstream's ib_cq_pool_get() or one per QP, run traffic on them and
// report what each way costs in CQs, side by side.
#include "commands.h"
#include "../profiles.h"
#include "../report.h"
#include "../table.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace cqpoolctl {

const CommandSpec run_spec = {
	"run",
	"--device DEV --profile PROFILE [options]",
	"Opens --connections ULP connections of --profile (each as many RC QP\n"
	"pairs as the ULP has queues, sized as the ULP sizes them), runs SEND or\n"
	"WRITE traffic on all of them, then reports QP pairs, distinct CQs,\n"
	"CQEs allocated vs reserved, QPs per CQ, completions/s, setup time,\n"
	"errors, and what stays allocated after teardown.  --mode all runs\n"
	"cqpool, upstream and per-QP CQs in turn and prints them side by side.\n"
	"\n"
	"profiles (Linux 6.1 defaults; N = online CPUs here):\n"
	"  nvme-rdma   host: admin queue (depth 32) + N I/O queues (queue_size 128)\n"
	"  nvmet-rdma  target: the same queues, sized as nvmet sizes them\n"
	"  iser        initiator: one QP per connection (ISER_DEF_XMIT_CMDS_MAX 512)\n"
	"  srpt        SRP target: one QP per channel (srp_sq_size 4096, rq 128)\n"
	"  custom      --queues QPs of --queue-depth send and receive WRs",
	{
		{"device", "DEV", "the RDMA device (client end)"},
		{"peer", "DEV", "the server end's device (default: --device, looped back)"},
		{"profile", "PROFILE", "nvme-rdma|nvmet-rdma|iser|srpt|custom (default nvme-rdma)"},
		{"connections", "N", "ULP connections (default 1)"},
		{"queues", "Q", "I/O queues per connection (nvme keeps its admin queue too)"},
		{"queue-depth", "D", "the profile's depth knob (nvme queue_size, iSER cmds, srp_sq_size)"},
		{"mode", "MODE", "cqpool|upstream|perqp|all (default cqpool)"},
		{"op", "OP", "send|write (default send)"},
		{"msg", "BYTES", "message size (default 512)"},
		{"seconds", "S", "traffic for S seconds, in 1 s steps (default 3)"},
		{"count", "N", "instead: N messages per QP pair"},
		{"inflight", "D", "work requests in flight per QP pair (default min(32, shallowest queue))"},
		{"poll", "CTX", "softirq|workqueue|unbound (default: the ULP's)"},
		{"wait-idle", nullptr, "after cqpool's teardown, wait (up to 60 s) for its CQs to be freed"},
		{"json", nullptr, "JSON output"},
	},
};

namespace {

struct RunConfig {
	std::string device, peer;
	Profile profile = Profile::NvmeRdma;
	uint32_t connections = 1;
	std::vector<QueueSpec> specs;
	std::vector<uint32_t> modes;
	uint32_t op = CQPOOL_OP_SEND;
	uint32_t msg = 512;
	uint32_t seconds = 3;
	uint64_t count = 0;
	uint32_t inflight = 0;
	bool poll_set = false;
	uint32_t poll = CQPOOL_POLL_SOFTIRQ;
	bool wait_idle = false;
	uint32_t vectors = 1;	// the device's num_comp_vectors, for hints
};

const char *mode_name(uint32_t m)
{
	switch (m) {
	case CQPOOL_CQ_POOL: return "cqpool";
	case CQPOOL_CQ_UPSTREAM: return "upstream";
	case CQPOOL_CQ_PER_QP: return "perqp";
	}
	return "?";
}

std::string parse_config(const Args &args, RunConfig &c)
{
	std::string err;
	ProfileParams pp;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	c.device = args.get("device");
	c.peer = args.get("peer");
	if (c.device.empty())
		return "--device is required (an RDMA device, e.g. rxe0; see `cqpoolctl devices`)";
	if (c.device.size() >= CQPOOL_NAME_LEN || c.peer.size() >= CQPOOL_NAME_LEN)
		return "device name too long";
	if (!parse_profile(args.get("profile", "nvme-rdma"), c.profile))
		return "unknown --profile '" + args.get("profile") +
		       "' (nvme-rdma, nvmet-rdma, iser, srpt, custom)";

	std::string mode = args.get("mode", "cqpool");
	if (mode == "cqpool")
		c.modes = {CQPOOL_CQ_POOL};
	else if (mode == "upstream")
		c.modes = {CQPOOL_CQ_UPSTREAM};
	else if (mode == "perqp")
		c.modes = {CQPOOL_CQ_PER_QP};
	else if (mode == "all")
		c.modes = {CQPOOL_CQ_POOL, CQPOOL_CQ_UPSTREAM, CQPOOL_CQ_PER_QP};
	else
		return "unknown --mode '" + mode + "' (cqpool, upstream, perqp, all)";

	std::string op = args.get("op", "send");
	if (op == "send")
		c.op = CQPOOL_OP_SEND;
	else if (op == "write")
		c.op = CQPOOL_OP_WRITE;
	else
		return "unknown --op '" + op + "' (send, write)";

	if (args.has("poll")) {
		if (!parse_poll_ctx(args.get("poll"), c.poll))
			return "unknown --poll '" + args.get("poll") +
			       "' (softirq, workqueue, unbound)";
		c.poll_set = true;
	}
	if (args.has("seconds") && args.has("count"))
		return "--seconds and --count exclude each other";

	pp.nr_cpus = cpus > 0 ? uint32_t(cpus) : 1;
	if (!args.get_u32("connections", 1, 1, CQPOOL_MAX_FD_OBJECTS, c.connections, err) ||
	    !args.get_u32("queues", 0, 1, CQPOOL_MAX_FD_OBJECTS, pp.queues, err) ||
	    !args.get_u32("queue-depth", 0, 1, 65535, pp.queue_depth, err) ||
	    !args.get_u32("msg", 512, 1, CQPOOL_MAX_MSG, c.msg, err) ||
	    !args.get_u32("seconds", 3, 1, 600, c.seconds, err) ||
	    !args.get_u64("count", 0, 1, UINT64_MAX, c.count, err))
		return err;

	c.specs = profile_queues(c.profile, pp);
	uint64_t total = uint64_t(c.connections) * queues_per_connection(c.specs);
	if (total > CQPOOL_MAX_FD_OBJECTS)
		return std::to_string(total) + " QP pairs is more than one /dev/cqpool fd may hold (" +
		       std::to_string(CQPOOL_MAX_FD_OBJECTS) + "): lower --connections or --queues";

	uint32_t deepest = min_depth(c.specs);
	// 32 keeps every CQ busy; deeper only burns CPU that a soft-RoCE
	// VM on two cores does not have.  The shallowest queue bounds it:
	// one TRAFFIC call runs every connection at the same depth.
	if (!args.get_u32("inflight", std::min(32u, deepest), 1, deepest, c.inflight, err))
		return err;
	c.wait_idle = args.has("wait-idle");
	return "";
}

// The device's CQs of @mode as LIST_DEVICES counts them.
void device_cqs(const cqpool_device_info &d, uint32_t mode, uint64_t &cqs,
		uint64_t &cqes)
{
	if (mode == CQPOOL_CQ_UPSTREAM) {
		cqs = d.upstream_cqs;
		cqes = d.upstream_cqes;
	} else if (mode == CQPOOL_CQ_POOL) {
		cqs = d.cqs;
		cqes = d.cqes;
	} else {
		cqs = cqes = 0;
	}
}

// Creates every QP pair; false on a failure, with @r.note saying which.
bool setup(Cqpool &s, const RunConfig &c, uint32_t mode, ModeResult &r,
	   std::vector<uint32_t> &ids, Error &failed)
{
	uint64_t start = now_ns();

	for (uint32_t n = 0; n < c.connections; n++) {
		for (const QueueSpec &q : c.specs) {
			for (uint32_t i = 0; i < q.count; i++) {
				auto cc = make_arg<cqpool_conn_create>();

				set_name(cc.device, c.device);
				set_name(cc.peer, c.peer);
				cc.cq_mode = mode;
				cc.pool_id = 0;	// the device's shared pool
				cc.poll_ctx = c.poll_set ? c.poll : q.poll_ctx;
				cc.nr_cqe = q.nr_cqe;
				cc.send_depth = q.send_depth;
				cc.recv_depth = q.recv_depth;
				cc.vector_hint = vector_hint(q, i, c.vectors);
				cc.msg_size = c.msg;
				failed = s.conn_create(cc);
				if (failed) {
					r.setup_wall_ns = now_ns() - start;
					return false;
				}
				ids.push_back(cc.id);
				r.setup_kernel_ns += cc.setup_ns;
			}
		}
	}
	r.setup_wall_ns = now_ns() - start;
	return true;
}

bool traffic(Cqpool &s, const RunConfig &c, ModeResult &r, Error &failed)
{
	uint32_t steps = c.count ? 1 : c.seconds;

	for (uint32_t step = 1; step <= steps; step++) {
		auto t = make_arg<cqpool_traffic>();

		t.conn_id = 0;
		t.op = c.op;
		t.msg_size = c.msg;
		t.depth = c.inflight;
		t.count = c.count;
		// One-second calls, so a long run shows it is alive and a
		// failure costs at most one step.
		t.duration_ms = c.count ? 0 : 1000;
		failed = s.traffic(t);
		if (failed)
			return false;
		r.completions += t.completions;
		r.bytes += t.bytes;
		r.errors += t.errors;
		r.traffic_ns += t.elapsed_ns;
		if (steps > 1)
			std::fprintf(stderr, "%s: %u/%u s, %s completions\n",
				     r.mode.c_str(), step, steps,
				     human_count(double(r.completions)).c_str());
	}
	return true;
}

void teardown_report(Cqpool &obs, const RunConfig &c, uint32_t mode, ModeResult &r)
{
	cqpool_device_info d;

	if (mode == CQPOOL_CQ_PER_QP) {
		r.left_note = "with each QP";
		return;
	}
	if (find_device(obs, c.device, d))
		return;
	device_cqs(d, mode, r.left_cqs, r.left_cqes);
	if (mode == CQPOOL_CQ_UPSTREAM) {
		// ib_cq_pool_get()'s CQs live until the device is removed.
		r.left_note = "never";
		return;
	}
	if (!r.left_cqs) {
		r.left_note = "-";
		return;
	}
	// cqpool frees a CQ once it has had no user for idle_timeout_ms.
	r.left_note = "after idle timeout";
	if (!c.wait_idle)
		return;
	for (int s = 1; s <= 60; s++) {
		sleep_ms(1000);
		if (find_device(obs, c.device, d))
			return;
		if (!d.cqs) {
			r.idle_wait_s = s;
			r.left_note = "all in " + std::to_string(s) + " s";
			return;
		}
	}
	r.left_note = std::to_string(d.cqs) + " not in 60 s";
}

// One mode from setup to teardown.  Returns false on a failure other
// than a skip.
bool run_mode(Cqpool &obs, const RunConfig &c, uint32_t mode, ModeResult &r)
{
	std::vector<uint32_t> ids;
	std::vector<cqpool_conn_info> conns;
	Cqpool s;
	Error e;

	r.mode = mode_name(mode);
	r.conns_wanted = uint64_t(c.connections) * queues_per_connection(c.specs);
	// A session of its own per mode: closing it is the last word on
	// anything a failed step left behind.
	e = s.open();
	if (e) {
		r.failed = true;
		r.note = describe(e);
		return false;
	}
	std::fprintf(stderr, "%s: creating %llu QP pairs\n", r.mode.c_str(),
		     (unsigned long long)r.conns_wanted);
	if (!setup(s, c, mode, r, ids, e)) {
		if (mode == CQPOOL_CQ_UPSTREAM && e.err == EBUSY && ids.empty()) {
			r.skipped = true;
			r.note = "the kernel's CQ pool is taken over by cqpool "
				 "(cqpool_takeover loaded): ib_cq_pool_get() is "
				 "cqpool here, so there is no upstream to measure";
			return true;
		}
		r.failed = true;
		r.note = describe(e) + " (after " + std::to_string(ids.size()) +
			 " of " + std::to_string(r.conns_wanted) + " QP pairs)";
		if (e.err == ENOSPC)
			r.note += ": the fd's object limit, its buffer limit (2 x --msg "
				  "per QP pair), or the pool's CQ limit";
		return false;
	}

	bool ok = traffic(s, c, r, e);
	if (!ok) {
		r.note = describe(e);
	}

	Error le = s.list_conns(conns);
	if (le) {
		r.note = describe(le);
		ok = false;
	}
	r.fp = aggregate(conns, c.device, c.peer.empty() ? c.device : c.peer);

	for (uint32_t id : ids) {
		Error de = s.conn_destroy(id);
		if (de && ok) {
			r.note = describe(de);
			ok = false;
		}
	}
	s.close();
	teardown_report(obs, c, mode, r);
	return ok && !r.errors;
}

void print_header(const RunConfig &c)
{
	uint32_t qpc = queues_per_connection(c.specs);

	std::printf("%s on %s%s%s: %u connection%s x %u QP pair%s (", profile_name(c.profile),
		    c.device.c_str(), c.peer.empty() ? "" : " -> ", c.peer.c_str(),
		    c.connections, c.connections == 1 ? "" : "s", qpc, qpc == 1 ? "" : "s");
	for (size_t i = 0; i < c.specs.size(); i++) {
		const QueueSpec &q = c.specs[i];

		std::printf("%s%u %s: cqe %u, send %u%s, recv %u%s, %s", i ? "; " : "",
			    q.count, q.role.c_str(), q.nr_cqe, q.send_depth,
			    q.clamped ? " (clamped)" : "", q.recv_depth,
			    q.trimmed ? " (fits cqe)" : "",
			    poll_ctx_name(c.poll_set ? c.poll : q.poll_ctx));
	}
	std::printf(")\n%s %u B, %u in flight, %s\n\n",
		    c.op == CQPOOL_OP_SEND ? "send" : "write", c.msg, c.inflight,
		    c.count ? (std::to_string(c.count) + " messages per QP pair").c_str()
			    : (std::to_string(c.seconds) + " s").c_str());
}

void print_json(const RunConfig &c, const std::vector<ModeResult> &results)
{
	Json j;

	j.begin_object();
	j.field("device", c.device);
	j.field("peer", c.peer.empty() ? c.device : c.peer);
	j.field("profile", profile_name(c.profile));
	j.field("connections", c.connections);
	j.field("qp_pairs_per_connection", queues_per_connection(c.specs));
	j.key("queues").begin_array();
	for (const QueueSpec &q : c.specs) {
		j.begin_object();
		j.field("role", q.role);
		j.field("count", q.count);
		j.field("nr_cqe", q.nr_cqe);
		j.field("send_depth", q.send_depth);
		j.field("recv_depth", q.recv_depth);
		j.field("poll_ctx", poll_ctx_name(c.poll_set ? c.poll : q.poll_ctx));
		j.field("clamped", q.clamped);
		j.field("trimmed", q.trimmed);
		j.end_object();
	}
	j.end_array();
	j.field("op", c.op == CQPOOL_OP_SEND ? "send" : "write");
	j.field("msg", c.msg);
	j.field("inflight", c.inflight);
	if (c.count)
		j.field("count", c.count);
	else
		j.field("seconds", c.seconds);
	j.key("modes").begin_array();
	for (const auto &r : results)
		mode_json(j, r);
	j.end_array();
	j.end_object();
	std::printf("%s\n", j.str().c_str());
}

} // namespace

int cmd_run(const Args &args, const Context &ctx)
{
	RunConfig c;
	std::string err = parse_config(args, c);
	Cqpool obs;
	cqpool_device_info d;
	std::vector<ModeResult> results;
	bool ok = true;

	if (!err.empty())
		return usage_error(run_spec, err);

	Error e = open_cqpool(obs);
	if (!e)
		e = find_device(obs, c.device, d);
	if (!e && !c.peer.empty()) {
		cqpool_device_info pd;
		e = find_device(obs, c.peer, pd);
	}
	if (e)
		return fail(e);
	c.vectors = d.num_comp_vectors ? d.num_comp_vectors : 1;

	for (uint32_t mode : c.modes) {
		ModeResult r;

		if (!run_mode(obs, c, mode, r))
			ok = false;
		if (!r.note.empty())
			std::fprintf(stderr, "cqpoolctl: %s: %s\n", r.mode.c_str(),
				     r.note.c_str());
		// Alone, a taken-over upstream measures nothing: a failure.
		if (r.skipped && c.modes.size() == 1)
			ok = false;
		results.push_back(r);
	}

	if (ctx.json) {
		print_json(c, results);
	} else {
		print_header(c);
		std::fputs(mode_table(results).render().c_str(), stdout);
		for (const auto &r : results) {
			if (r.mode == "cqpool" && r.left_cqs && r.idle_wait_s < 0 &&
			    !r.skipped && !r.failed)
				std::printf("\ncqpool frees a CQ after it has been idle for the "
					    "module's idle_timeout_ms (default 30 s); "
					    "--wait-idle waits for it.\n");
			if (r.mode == "upstream" && !r.skipped && !r.failed)
				std::printf("\nupstream keeps its CQs until the device is "
					    "removed; the count is the device's, all runs.\n");
		}
		for (const auto &r : results)
			if (r.skipped || r.failed)
				std::printf("\n%s: %s: %s\n", column_title(r.mode).c_str(),
					    r.skipped ? "skipped" : "failed", r.note.c_str());
	}
	return ok ? 0 : EXIT_FAIL;
}

} // namespace cqpoolctl
