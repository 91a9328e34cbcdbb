// SPDX-License-Identifier: GPL-2.0
#include "fake_kernel.h"

#include "../ioctl.h"

#include <cerrno>
#include <cstring>

namespace fake {

Kernel *current;

Kernel::Kernel()
{
	std::strcpy(dev.name, "rxe0");
	dev.num_comp_vectors = vectors;
	dev.nvec = vectors;
	dev.max_cqe = 32767;
	dev.max_cq = 65536;
}

namespace {

constexpr int FAKE_FD = 42;

int fail(int e)
{
	errno = e;
	return -1;
}

template <typename T> bool size_ok(void *arg)
{
	return static_cast<T *>(arg)->size == sizeof(T);
}

// Upstream's rule: first fit; when nothing fits, one CQ of
// max(nr_cqe, 4096) on every vector.
Cq &upstream_get(Kernel &k, uint32_t nr_cqe)
{
	for (auto &c : k.upstream_cqs)
		if (c.cqe - c.reserved >= nr_cqe)
			return c;
	size_t first = k.upstream_cqs.size();
	for (uint32_t v = 0; v < k.vectors; v++) {
		uint32_t size = nr_cqe > 4096 ? nr_cqe : 4096;

		k.upstream_cqs.push_back(Cq{k.next_cq++, v, size, 0, 0});
		k.dev.upstream_cqs++;
		k.dev.upstream_cqes += size;
	}
	return k.upstream_cqs[first];
}

// A stand-in pool: first fit, else one CQ of max(nr_cqe, pool_cq_size).
Cq &pool_get(Kernel &k, uint32_t nr_cqe)
{
	for (auto &c : k.pool_cqs)
		if (c.cqe - c.reserved >= nr_cqe)
			return c;
	uint32_t size = nr_cqe > k.pool_cq_size ? nr_cqe : k.pool_cq_size;
	k.pool_cqs.push_back(Cq{k.next_cq++, 0, size, 0, 0});
	k.dev.cqs++;
	k.dev.cqes += size;
	return k.pool_cqs.back();
}

Cq *find_cq(std::vector<Cq> &v, uint32_t id)
{
	for (auto &c : v)
		if (c.id == id)
			return &c;
	return nullptr;
}

int conn_create(Kernel &k, cqpool_conn_create *c)
{
	if (std::strcmp(c->device, "rxe0") || (c->peer[0] && std::strcmp(c->peer, "rxe0")))
		return fail(ENODEV);
	if (!c->send_depth || c->send_depth > CQPOOL_MAX_DEPTH || !c->recv_depth ||
	    c->recv_depth > CQPOOL_MAX_DEPTH || c->flags || c->pad ||
	    c->msg_size > CQPOOL_MAX_MSG ||
	    (c->nr_cqe && c->nr_cqe < c->send_depth + c->recv_depth))
		return fail(EINVAL);
	if (c->cq_mode == CQPOOL_CQ_UPSTREAM && k.upstream_busy)
		return fail(EBUSY);

	uint32_t nr = c->nr_cqe ? c->nr_cqe : c->send_depth + c->recv_depth;
	cqpool_conn_info info{};
	uint32_t *ids[2] = {&info.client_cq_id, &info.server_cq_id};
	uint32_t *cqes[2] = {&info.client_cqe, &info.server_cqe};

	for (int end = 0; end < 2; end++) {
		Cq *cq;
		Cq own{};

		if (c->cq_mode == CQPOOL_CQ_POOL) {
			cq = &pool_get(k, nr);
		} else if (c->cq_mode == CQPOOL_CQ_UPSTREAM) {
			cq = &upstream_get(k, nr);
		} else {
			own = Cq{k.next_cq++, 0, nr, 0, 0};
			cq = &own;
		}
		cq->reserved += nr;
		cq->users++;
		*ids[end] = cq->id;
		*cqes[end] = cq->cqe;
	}
	c->id = k.next_id++;
	c->client_qpn = c->id * 2;
	c->server_qpn = c->id * 2 + 1;
	c->setup_ns = 1000000;
	info.id = c->id;
	info.cq_mode = c->cq_mode;
	info.nr_cqe = nr;
	info.setup_ns = c->setup_ns;
	k.conns[c->id] = info;
	return 0;
}

int conn_destroy(Kernel &k, uint32_t id)
{
	auto it = k.conns.find(id);

	if (it == k.conns.end())
		return fail(ENOENT);
	const cqpool_conn_info &i = it->second;
	std::vector<Cq> *v = i.cq_mode == CQPOOL_CQ_POOL     ? &k.pool_cqs
			     : i.cq_mode == CQPOOL_CQ_UPSTREAM ? &k.upstream_cqs
							       : nullptr;
	if (v)
		for (uint32_t cqid : {i.client_cq_id, i.server_cq_id}) {
			Cq *cq = find_cq(*v, cqid);

			cq->reserved -= i.nr_cqe;
			cq->users--;
		}
	k.conns.erase(it);
	return 0;
}

template <typename T> int copy_list(cqpool_list *l, const std::vector<T> &v)
{
	if (l->entry_size != sizeof(T))
		return fail(EINVAL);
	uint32_t n = l->count < v.size() ? l->count : uint32_t(v.size());
	if (n)
		std::memcpy(reinterpret_cast<void *>(uintptr_t(l->entries)), v.data(),
			    n * sizeof(T));
	l->count = uint32_t(v.size());
	return 0;
}

int list(Kernel &k, cqpool_list *l)
{
	switch (l->what) {
	case CQPOOL_LIST_DEVICES:
		return copy_list(l, std::vector<cqpool_device_info>{k.dev});
	case CQPOOL_LIST_CONNS: {
		std::vector<cqpool_conn_info> v;

		for (const auto &kv : k.conns)
			v.push_back(kv.second);
		return copy_list(l, v);
	}
	case CQPOOL_LIST_POOLS: {
		cqpool_pool_info p{};

		std::strcpy(p.device, "rxe0");
		std::strcpy(p.name, "shared-softirq");
		p.cqs = uint32_t(k.pool_cqs.size());
		return copy_list(l, k.pool_cqs.empty() ? std::vector<cqpool_pool_info>{}
						       : std::vector<cqpool_pool_info>{p});
	}
	case CQPOOL_LIST_CQS: {
		std::vector<cqpool_cq_info> v;

		for (const auto &c : k.pool_cqs) {
			cqpool_cq_info i{};

			std::strcpy(i.device, "rxe0");
			std::strcpy(i.pool, "shared-softirq");
			i.cq_id = c.id;
			i.cqe = c.cqe;
			i.reserved_cqes = c.reserved;
			i.users = c.users;
			v.push_back(i);
		}
		return copy_list(l, v);
	}
	}
	return fail(EINVAL);
}

int do_open(const char *, int)
{
	if (current->open_errno)
		return fail(current->open_errno);
	current->open_fds++;
	return FAKE_FD;
}

int do_close(int)
{
	// As the module: everything the fd made goes with it.  One model
	// serves every fd, so only the last close may clear connections.
	if (--current->open_fds == 0)
		while (!current->conns.empty())
			conn_destroy(*current, current->conns.begin()->first);
	return 0;
}

int do_ioctl(int fd, unsigned long req, void *arg)
{
	Kernel &k = *current;

	if (fd != FAKE_FD)
		return fail(EBADF);
	k.calls[req]++;
	switch (req) {
	case CQPOOL_IOC_VERSION: {
		auto *v = static_cast<cqpool_version *>(arg);

		if (!size_ok<cqpool_version>(arg))
			return fail(EINVAL);
		v->abi_version = CQPOOL_ABI_VERSION;
		return 0;
	}
	case CQPOOL_IOC_LIST:
		if (!size_ok<cqpool_list>(arg))
			return fail(EINVAL);
		return list(k, static_cast<cqpool_list *>(arg));
	case CQPOOL_IOC_CONN_CREATE:
		if (!size_ok<cqpool_conn_create>(arg))
			return fail(EINVAL);
		return conn_create(k, static_cast<cqpool_conn_create *>(arg));
	case CQPOOL_IOC_CONN_DESTROY:
		if (!size_ok<cqpool_destroy>(arg))
			return fail(EINVAL);
		return conn_destroy(k, static_cast<cqpool_destroy *>(arg)->id);
	case CQPOOL_IOC_TRAFFIC: {
		auto *t = static_cast<cqpool_traffic *>(arg);

		if (!size_ok<cqpool_traffic>(arg) || !t->depth || !t->msg_size ||
		    (!t->count && !t->duration_ms) || (t->count && t->duration_ms))
			return fail(EINVAL);
		k.traffic_calls++;
		t->conns = uint32_t(k.conns.size());
		t->completions = 1000ULL * t->conns;
		t->bytes = t->completions / 2 * t->msg_size;
		t->elapsed_ns = t->count ? 1000000 : uint64_t(t->duration_ms) * 1000000;
		return 0;
	}
	case CQPOOL_IOC_TRIGGER: {
		auto *t = static_cast<cqpool_trigger *>(arg);

		if (!size_ok<cqpool_trigger>(arg))
			return fail(EINVAL);
		if (k.trigger_errno)
			return fail(k.trigger_errno);
		if (t->kind != CQPOOL_TRIGGER_DEVICE_FATAL) {
			auto it = k.conns.find(t->conn_id);

			if (it == k.conns.end())
				return fail(ENOENT);
			it->second.qp_events++;
			it->second.broken = 1;
		}
		return 0;
	}
	case CQPOOL_IOC_BENCH: {
		auto *b = static_cast<cqpool_bench *>(arg);

		bool storm_flag = b->flags == CQPOOL_BENCH_F_SHARED ||
				  b->flags == CQPOOL_BENCH_F_NO_RESIZE ||
				  b->flags == CQPOOL_BENCH_F_RESIZE;

		// GROWTH: the verbs alone; 3 us a resize, 2 us a second CQ.
		if (size_ok<cqpool_bench>(arg) && b->kind == CQPOOL_BENCH_GROWTH) {
			if (b->flags || b->cq_mode != CQPOOL_CQ_PER_QP || b->prefill ||
			    b->threads || !b->nr_cqe || b->nr_cqe > CQPOOL_BENCH_GROWTH_MAX ||
			    !b->iterations || b->iterations > CQPOOL_BENCH_GROWTH_ITER)
				return fail(EINVAL);
			b->get_ns = 3000ULL * b->iterations;
			b->put_ns = 2000ULL * b->iterations;
			b->cqs = 2;
			b->cqes = 2ULL * b->nr_cqe + 1;
			b->reserved_cqes = b->nr_cqe;
			return 0;
		}
		bool takeover_flag = b->flags == CQPOOL_BENCH_F_TAKEOVER ||
				     b->flags == CQPOOL_BENCH_F_TAKEOVER_DIRECT;
		bool ledger_flag = b->flags == CQPOOL_BENCH_F_LEDGER;

		if (!size_ok<cqpool_bench>(arg) ||
		    (b->kind == CQPOOL_BENCH_STORM) != !b->prefill ||
		    (b->flags && !storm_flag && !takeover_flag && !ledger_flag) ||
		    (ledger_flag && ((b->kind != CQPOOL_BENCH_GET_PUT &&
				      b->kind != CQPOOL_BENCH_CHURN) ||
				     b->cq_mode != CQPOOL_CQ_POOL)) ||
		    (storm_flag && (b->kind != CQPOOL_BENCH_STORM ||
				    b->cq_mode != CQPOOL_CQ_POOL)) ||
		    (takeover_flag && b->cq_mode != CQPOOL_CQ_UPSTREAM) ||
		    (b->kind == CQPOOL_BENCH_PARALLEL) != !!b->threads ||
		    b->threads > CQPOOL_BENCH_MAX_THREADS ||
		    (b->threads && b->cq_mode == CQPOOL_CQ_PER_QP))
			return fail(EINVAL);
		k.bench_flags.push_back(b->flags);
		k.bench_threads.push_back(b->threads);
		if (takeover_flag && !k.upstream_busy)
			return fail(ENOENT);
		if (b->cq_mode == CQPOOL_CQ_UPSTREAM && k.upstream_busy && !takeover_flag)
			return fail(EBUSY);
		// cqpool: 100 ns per get, upstream 200 ns.
		uint64_t per = b->cq_mode == CQPOOL_CQ_POOL ? 100 : 200;
		b->get_ns = per * b->iterations;
		b->put_ns = per / 2 * b->iterations;
		// LATENCY: each call's time; GET_PUT, CHURN: each batch's per
		// call.  The slowest ten times the median.
		if (b->kind == CQPOOL_BENCH_LATENCY || b->kind == CQPOOL_BENCH_GET_PUT ||
		    b->kind == CQPOOL_BENCH_CHURN) {
			b->get_p50_ns = b->get_p90_ns = b->get_p99_ns = per;
			b->get_max_ns = per * 10;
			b->put_p50_ns = b->put_p90_ns = b->put_p99_ns = per / 2;
			b->put_max_ns = per * 5;
		}
		// PARALLEL: the wall time of the run, no puts of their own.
		if (b->threads) {
			b->get_ns = per * b->iterations / b->threads;
			b->put_ns = 0;
		}
		b->cqs = b->cq_mode == CQPOOL_CQ_POOL ? 3 : 16;
		b->cqes = b->cqs * 4096ULL;
		b->reserved_cqes = b->cqes - 100;
		return 0;
	}
	}
	return fail(ENOTTY);
}

const cqpoolctl::Backend fake_backend = {do_open, do_ioctl, do_close};

} // namespace

void Kernel::install()
{
	current = this;
	cqpoolctl::set_backend(&fake_backend);
}

void Kernel::uninstall()
{
	cqpoolctl::set_backend(nullptr);
	current = nullptr;
}

} // namespace fake
