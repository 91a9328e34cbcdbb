// SPDX-License-Identifier: GPL-2.0
/*
 * The pool ledger.  See pool.h for what callers may rely on.
 */
#include "new.h"
#include "pool.h"
#include "treap.h"

namespace cqp {
namespace {

enum : cqp_u32 {
	CQ_IDLE = 1u << 0,	/* on the idle list */
};

cqp_u32 free_cqes(const cqp_cq *cq)
{
	return cq->size - cq->reserved;
}

/* Ranks CQs for selection: the maximum is the least used. */
struct LessUsed {
	bool operator()(const cqp_cq *a, const cqp_cq *b) const
	{
		return cqp_cq_below(free_cqes(a), a->users, a->id, b);
	}
};

/* What a release of @nr_cqe entries does to its CQ's key. */
struct Release {
	cqp_u32 nr_cqe;

	void operator()(cqp_cq *c) const
	{
		c->users--;
		c->reserved -= nr_cqe;
	}
};

/* Treap priorities: a fixed mix of the id, so runs are reproducible. */
cqp_u32 mix(cqp_u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return static_cast<cqp_u32>((x ^ (x >> 31)) >> 32);
}

cqp_u32 min_u64(cqp_u64 a, cqp_u64 b)
{
	return static_cast<cqp_u32>(a < b ? a : b);
}

cqp_u64 max_u64(cqp_u64 a, cqp_u64 b)
{
	return a > b ? a : b;
}

/*
 * A vector's count of entries reserved is written under its vector's
 * serialisation and read by cqp_pool_pick_vector() beside gets and puts
 * on other vectors: whole, never torn.
 */
cqp_u64 load_relaxed(const cqp_u64 &x)
{
	return __atomic_load_n(&x, __ATOMIC_RELAXED);
}

void store_relaxed(cqp_u64 &x, cqp_u64 v)
{
	__atomic_store_n(&x, v, __ATOMIC_RELAXED);
}

/*
 * A cache line: gets and puts on different vectors write their vectors'
 * records at once, from different CPUs (the glue locks each vector
 * apart), so no two vectors share one.
 */
constexpr cqp_size_t LINE = 64;

} // namespace

struct alignas(LINE) Vector {
	Treap<cqp_cq, LessUsed> cqs;
	cqp_cq *growing;	/* the CQ this vector grows in place, if any */
	cqp_u32 count;
	/* Since the vector last had no CQ: its largest reservation ... */
	cqp_u32 peak_nr;
	/* ... and the largest real size one of its CQs had. */
	cqp_u32 peak_size;
	cqp_u64 cqes;
	/*
	 * Entries reserved.  Counted here and summed by stats(), not counted
	 * for the whole pool: a get or put writes its own vector's record and
	 * its CQ's, and gets on different vectors write no count they share.
	 * Read beside the vector's gets and puts (least_reserved()), so
	 * written whole.  Reservations are not counted at all: stats() sums
	 * the CQs', and a get or put has one write fewer.
	 */
	cqp_u64 reserved;
	/* Its idle CQs, in the order they went idle; for the same reason. */
	cqp_cq *idle_head;
	cqp_cq *idle_tail;
	cqp_u64 idle;
};

class Pool {
public:
	Pool(const cqp_alloc &alloc, const cqp_pool_params &p, Vector *vec,
	     void *vec_mem)
		: alloc_(alloc), p_(p), vec_(vec), vec_mem_(vec_mem)
	{
	}
	Pool(const Pool &) = delete;
	Pool &operator=(const Pool &) = delete;

	static Pool *create(const cqp_alloc &alloc, const cqp_pool_params &p);
	static int destroy(Pool *pool);

	cqp_cq *try_reserve(cqp_u32 vec, cqp_u32 nr_cqe);
	int reserve(cqp_u32 vec, cqp_u32 nr_cqe, cqp_cq **out, cqp_plan *plan);
	int get(cqp_u32 vec, cqp_u32 nr_cqe, cqp_grower *g, cqp_cq **out,
		cqp_u32 *grown);
	int release(cqp_cq *cq, cqp_u32 nr_cqe, cqp_u64 now);
	int add(cqp_cq *cq, cqp_u32 vec, cqp_u32 size, cqp_u64 now);
	int resized(cqp_cq *cq, cqp_u32 size);
	void resize_failed(cqp_cq *cq);
	void close()
	{
		closed_ = true;
	}
	cqp_cq *reap(cqp_u64 now, cqp_u64 timeout);
	cqp_cq *take_idle();
	bool oldest_idle(cqp_u64 *since) const;
	cqp_u64 reclaimable() const;
	bool next_reap(cqp_u64 now, cqp_u64 timeout, cqp_u64 *delay) const;
	void stats(cqp_pool_stats *st) const;
	cqp_u32 pick_vector(int hint, cqp_u32 among) const
	{
		if (hint >= 0)
			return cqp_hint_vector(static_cast<cqp_u32>(hint),
					       among, p_.nvec);
		return least_reserved(cqp_vectors_among(among, p_.nvec));
	}
	cqp_u64 vec_reserved(cqp_u32 vec) const;
	const cqp_pool_params &params() const
	{
		return p_;
	}
	bool check() const;

private:
	bool resizable() const
	{
		return (p_.flags & CQP_POOL_RESIZE) && !p_.cq_size;
	}
	/* A reservation of @nr_cqe is one a CQ of this pool can hold. */
	bool fits_a_cq(cqp_u32 nr_cqe) const
	{
		return nr_cqe && nr_cqe <= (p_.cq_size ? p_.cq_size : p_.max_cqe);
	}
	cqp_u32 grow_cap(const Vector &v, cqp_u32 nr_cqe) const;
	cqp_u32 new_cq_size(const Vector &v, cqp_u32 nr_cqe) const;
	static cqp_cq *room(Vector &v, cqp_u32 nr_cqe);
	void take(Vector &v, cqp_cq *best, cqp_u32 nr_cqe);
	cqp_u32 least_reserved(cqp_u32 n) const;
	void idle_append(cqp_cq *cq, cqp_u64 now);
	void idle_remove(cqp_cq *cq);
	cqp_cq *oldest_idle_cq() const;
	cqp_u64 idle_cqs() const;
	void remove(cqp_cq *cq);

	const cqp_alloc alloc_;
	const cqp_pool_params p_;
	Vector *const vec_;
	void *const vec_mem_;	/* what vec_ was allocated as */
	cqp_u64 next_id_ = 1;
	/* Reservations are counted per vector (Vector), not here. */
	cqp_u64 cqs_ = 0;
	cqp_u64 cqes_ = 0;
	bool closed_ = false;
};

Pool *Pool::create(const cqp_alloc &alloc, const cqp_pool_params &p)
{
	if (!p.nvec || !p.max_cqe || p.cq_size > p.max_cqe)
		return nullptr;

	/* The allocator promises no alignment beyond a pointer's. */
	void *mem = alloc.zalloc(alloc.ctx, p.nvec * sizeof(Vector) + LINE - 1);

	if (!mem)
		return nullptr;

	auto *vec = reinterpret_cast<Vector *>(
		(reinterpret_cast<cqp_size_t>(mem) + LINE - 1) & ~(LINE - 1));

	for (cqp_u32 i = 0; i < p.nvec; i++)
		new (&vec[i]) Vector();

	Pool *pool = make<Pool>(alloc, alloc, p, vec, mem);

	if (!pool)
		alloc.free(alloc.ctx, mem);
	return pool;
}

int Pool::destroy(Pool *pool)
{
	if (!pool)
		return CQP_OK;
	if (pool->cqs_)
		return CQP_EINVAL;

	const cqp_alloc alloc = pool->alloc_;

	alloc.free(alloc.ctx, pool->vec_mem_);
	unmake(alloc, pool);
	return CQP_OK;
}

/*
 * The size a resizable vector's CQs grow to, with @nr_cqe reserved:
 * CQP_CQ_SHARE.
 */
cqp_u32 Pool::grow_cap(const Vector &v, cqp_u32 nr_cqe) const
{
	return min_u64(p_.max_cqe, static_cast<cqp_u64>(CQP_CQ_SHARE) *
					   max_u64(v.peak_nr, nr_cqe));
}

/*
 * The size to ask the driver for, for @n entries: the least 2^k - 1 that
 * holds them, up to @max_cqe.  rxe and mlx5 round every CQ up to such a
 * size, so asking for one is asking for what will be allocated, and the
 * plan is the real size; siw rounds up to 2^k, one entry more.
 */
static cqp_u32 natural_size(cqp_u64 n, cqp_u32 max_cqe)
{
	cqp_u64 p = 1;

	while (p < n + 1)
		p <<= 1;
	return min_u64(p - 1, max_cqe);
}

/*
 * Growth by new CQs, the default.  A vector's first CQ is the natural
 * size of the request, so that a small first demand allocates at most
 * twice itself.  Each later one is about CQP_NEW_GROWTH times what the
 * vector holds, but no larger than the plateau: a CQ that holds
 * CQP_NEW_SHARE of the vector's largest reservation.  So a vector that
 * serves few consumers stays small (an NVMe-oF host's admin and I/O
 * queue on one vector: 255 + 1,023 entries), and one that serves many
 * reaches CQs of one size within two or three growths, over which users
 * spread evenly, each new one a small part of the whole.
 *
 * Where the pool may resize (the owned pool's opt-in), a vector's first
 * CQ starts at the size asked for and is resized in place; later ones
 * start at half the size its CQs reached, or at the cap once the vector
 * is large (CQP_AHEAD): in a storm most CQs are then made once, not made
 * and remade twice as large.
 */
cqp_u32 Pool::new_cq_size(const Vector &v, cqp_u32 nr_cqe) const
{
	if (p_.cq_size)
		return p_.cq_size;
	if (!resizable()) {
		const cqp_u32 first = natural_size(nr_cqe, p_.max_cqe);
		const cqp_u64 plateau = static_cast<cqp_u64>(CQP_NEW_SHARE) *
					max_u64(v.peak_nr, nr_cqe);
		const cqp_u64 want = static_cast<cqp_u64>(CQP_NEW_GROWTH) *
				     v.cqes;
		cqp_u32 size;

		if (!v.count)
			return first;
		size = natural_size(want < plateau ? want : plateau,
				    p_.max_cqe);
		return size > first ? size : first;
	}
	if (!v.count)
		return nr_cqe;

	const cqp_u32 cap = grow_cap(v, nr_cqe);
	const cqp_u32 want = v.cqes >= static_cast<cqp_u64>(CQP_AHEAD) * cap ?
			     cap : min_u64(cap, v.peak_size) / 2;

	return want > nr_cqe ? want : nr_cqe;
}

/* The vector's least-used CQ, if it has room for @nr_cqe entries. */
cqp_cq *Pool::room(Vector &v, cqp_u32 nr_cqe)
{
	cqp_cq *best = v.cqs.max();

	return best && free_cqes(best) >= nr_cqe ? best : nullptr;
}

/* A reservation on @best, which room() found; inline in the fast path. */
inline __attribute__((always_inline)) void Pool::take(Vector &v,
						      cqp_cq *best,
						      cqp_u32 nr_cqe)
{
	if (!best->users)
		idle_remove(best);
	/* Fewer free entries: a lower key. */
	v.cqs.lower(best, [nr_cqe](cqp_cq *c) {
		c->users++;
		c->reserved += nr_cqe;
	});
	store_relaxed(v.reserved, v.reserved + nr_cqe);
	if (nr_cqe > v.peak_nr)
		v.peak_nr = nr_cqe;
}

/* The whole of the fast path, inline in its C entry point. */
inline __attribute__((always_inline)) cqp_cq *
Pool::try_reserve(cqp_u32 vec, cqp_u32 nr_cqe)
{
	if (closed_ || vec >= p_.nvec || !fits_a_cq(nr_cqe))
		return nullptr;

	Vector &v = vec_[vec];
	cqp_cq *best = room(v, nr_cqe);

	if (best)
		take(v, best, nr_cqe);
	return best;
}

int Pool::reserve(cqp_u32 vec, cqp_u32 nr_cqe, cqp_cq **out, cqp_plan *plan)
{
	if (closed_)
		return CQP_ENODEV;
	if (vec >= p_.nvec || !fits_a_cq(nr_cqe))
		return CQP_EINVAL;

	Vector &v = vec_[vec];

	*out = room(v, nr_cqe);
	if (*out) {
		take(v, *out, nr_cqe);
		return CQP_OK;
	}

	cqp_cq *g = v.growing;
	const cqp_u32 cap = grow_cap(v, nr_cqe);

	if (g && static_cast<cqp_u64>(g->reserved) + nr_cqe <= cap) {
		plan->kind = CQP_PLAN_RESIZE;
		plan->vec = vec;
		plan->cq = g;
		plan->size = min_u64(cap,
				     max_u64(static_cast<cqp_u64>(g->reserved) +
						     nr_cqe,
					     2ull * g->size));
		return CQP_GROW;
	}
	if (p_.max_cqs && cqs_ >= p_.max_cqs)
		return CQP_ENOSPC;

	plan->kind = CQP_PLAN_NEW;
	plan->vec = vec;
	plan->cq = nullptr;
	plan->size = new_cq_size(v, nr_cqe);
	return CQP_GROW;
}

/*
 * A growth's result goes into the ledger under the same hold of the lock
 * as the next try, so no other get can take the room a new CQ made.
 */
int Pool::get(cqp_u32 vec, cqp_u32 nr_cqe, cqp_grower *g, cqp_cq **out,
	      cqp_u32 *grown)
{
	int rc;

	for (*grown = 0;; ++*grown) {
		cqp_plan plan = {};
		cqp_grown made = {};

		rc = reserve(vec, nr_cqe, out, &plan);
		if (rc != CQP_GROW)
			return rc;
		if (*grown == CQP_MAX_GROW)
			return CQP_ELOOP;
		rc = g->grow(g, &plan, &made);
		if (plan.kind == CQP_PLAN_NEW) {
			if (rc)
				return rc;
			rc = add(made.cq, plan.vec, made.size, made.now);
			if (rc) {
				g->discard(g, made.cq);
				return rc;
			}
			g->grew(g, &plan, made.cq);
		} else if (rc) {
			/* Never this CQ again: the vector grows by new CQs. */
			resize_failed(plan.cq);
			if (!made.fallback)
				return rc;
		} else {
			rc = resized(plan.cq, made.size);
			if (rc)
				return rc;
			g->grew(g, &plan, plan.cq);
		}
	}
}

/*
 * The whole release.  cqp_pool_release() makes most in place, inline in
 * its caller (cqp_release_in_place()), and comes here with the rest: the
 * last user's, one that moves its CQ in the treap, or a bad one.
 */
int Pool::release(cqp_cq *cq, cqp_u32 nr_cqe, cqp_u64 now)
{
	if (!cqp_releasable(cq, nr_cqe))
		return CQP_ERANGE;

	cqp_u64 &reserved = vec_[cq->vec].reserved;

	store_relaxed(reserved, reserved - nr_cqe);
	/* More free entries: a higher key. */
	vec_[cq->vec].cqs.raise(cq, Release{nr_cqe});
	if (!cq->users)
		idle_append(cq, now);
	return CQP_OK;
}

int Pool::add(cqp_cq *cq, cqp_u32 vec, cqp_u32 size, cqp_u64 now)
{
	if (vec >= p_.nvec || !size)
		return CQP_EINVAL;
	if (p_.max_cqs && cqs_ >= p_.max_cqs)
		return CQP_ENOSPC;

	Vector &v = vec_[vec];

	*cq = cqp_cq{};
	cq->size = size;
	cq->vec = vec;
	cq->id = next_id_++;
	cq->link.prio = mix(cq->id);
	cq->link.vec_reserved = &v.reserved;
	v.cqs.insert(cq);
	idle_append(cq, now);
	v.count++;
	if (size > v.peak_size)
		v.peak_size = size;
	v.cqes += size;
	cqs_++;
	cqes_ += size;
	if (resizable() && size < p_.max_cqe)
		v.growing = cq;
	return CQP_OK;
}

int Pool::resized(cqp_cq *cq, cqp_u32 size)
{
	if (size < cq->reserved)
		return CQP_EINVAL;

	Vector &v = vec_[cq->vec];

	v.cqes = v.cqes - cq->size + size;
	cqes_ = cqes_ - cq->size + size;
	v.cqs.rekey(cq, [size](cqp_cq *c) { c->size = size; });
	if (size > v.peak_size)
		v.peak_size = size;
	if (size >= p_.max_cqe && v.growing == cq)
		v.growing = nullptr;
	return CQP_OK;
}

void Pool::resize_failed(cqp_cq *cq)
{
	Vector &v = vec_[cq->vec];

	if (v.growing == cq)
		v.growing = nullptr;
}

void Pool::idle_append(cqp_cq *cq, cqp_u64 now)
{
	Vector &v = vec_[cq->vec];

	cq->idle_since = now;
	cq->link.flags |= CQ_IDLE;
	cq->link.next = nullptr;
	cq->link.prev = v.idle_tail;
	if (v.idle_tail)
		v.idle_tail->link.next = cq;
	else
		v.idle_head = cq;
	v.idle_tail = cq;
	v.idle++;
}

void Pool::idle_remove(cqp_cq *cq)
{
	Vector &v = vec_[cq->vec];

	if (cq->link.prev)
		cq->link.prev->link.next = cq->link.next;
	else
		v.idle_head = cq->link.next;
	if (cq->link.next)
		cq->link.next->link.prev = cq->link.prev;
	else
		v.idle_tail = cq->link.prev;
	cq->link.prev = cq->link.next = nullptr;
	cq->link.flags &= ~CQ_IDLE;
	v.idle--;
}

/*
 * The CQ the reclaim takes next: each vector's first idle one, and of
 * those the one idle since the earliest, the lowest vector on a tie.
 */
cqp_cq *Pool::oldest_idle_cq() const
{
	cqp_cq *o = nullptr;

	for (cqp_u32 i = 0; i < p_.nvec; i++) {
		cqp_cq *cq = vec_[i].idle_head;

		if (cq && (!o || cq->idle_since < o->idle_since))
			o = cq;
	}
	return o;
}

cqp_u64 Pool::idle_cqs() const
{
	cqp_u64 n = 0;

	for (cqp_u32 i = 0; i < p_.nvec; i++)
		n += vec_[i].idle;
	return n;
}

/* Takes an idle CQ out of the ledger. */
void Pool::remove(cqp_cq *cq)
{
	Vector &v = vec_[cq->vec];

	idle_remove(cq);
	v.cqs.erase(cq);
	if (v.growing == cq)
		v.growing = nullptr;
	v.count--;
	v.cqes -= cq->size;
	cqs_--;
	cqes_ -= cq->size;
	/* A vector left without CQs starts small again. */
	if (!v.count)
		v.peak_nr = v.peak_size = 0;
}

cqp_u64 Pool::reclaimable() const
{
	const cqp_u64 idle = idle_cqs();

	if ((p_.flags & CQP_POOL_NO_SHRINK) || idle <= p_.keep_idle)
		return 0;
	return idle - p_.keep_idle;
}

bool Pool::next_reap(cqp_u64 now, cqp_u64 timeout, cqp_u64 *delay) const
{
	if (!reclaimable())
		return false;

	const cqp_u64 due = oldest_idle_cq()->idle_since + timeout;

	*delay = due > now ? due - now : 0;
	return true;
}

cqp_cq *Pool::reap(cqp_u64 now, cqp_u64 timeout)
{
	if (!reclaimable())
		return nullptr;

	cqp_cq *cq = oldest_idle_cq();

	if (!cq || now < cq->idle_since || now - cq->idle_since < timeout)
		return nullptr;
	remove(cq);
	return cq;
}

cqp_cq *Pool::take_idle()
{
	cqp_cq *cq = oldest_idle_cq();

	if (cq)
		remove(cq);
	return cq;
}

bool Pool::oldest_idle(cqp_u64 *since) const
{
	const cqp_cq *cq = oldest_idle_cq();

	if (!cq)
		return false;
	*since = cq->idle_since;
	return true;
}

void Pool::stats(cqp_pool_stats *st) const
{
	*st = cqp_pool_stats{};
	st->cqs = cqs_;
	st->idle_cqs = idle_cqs();
	st->cqes = cqes_;
	for (cqp_u32 i = 0; i < p_.nvec; i++) {
		st->reserved += vec_[i].reserved;
		for (const cqp_cq *cq = vec_[i].cqs.max(); cq; cq = cq->link.lo)
			st->users += cq->users;
	}
}

/* The first @n vectors' one with the fewest entries reserved. */
cqp_u32 Pool::least_reserved(cqp_u32 n) const
{
	cqp_u32 best = 0;

	for (cqp_u32 i = 1; i < n; i++)
		if (load_relaxed(vec_[i].reserved) <
		    load_relaxed(vec_[best].reserved))
			best = i;
	return best;
}

cqp_u64 Pool::vec_reserved(cqp_u32 vec) const
{
	return vec < p_.nvec ? load_relaxed(vec_[vec].reserved) : 0;
}

bool Pool::check() const
{
	cqp_pool_stats sum = {};

	for (cqp_u32 i = 0; i < p_.nvec; i++) {
		const Vector &v = vec_[i];
		cqp_pool_stats vs = {};
		bool growing_seen = !v.growing;

		auto visit = [&](const cqp_cq *cq) {
			if (cq->vec != i || cq->reserved > cq->size)
				return false;
			/* Every reservation holds at least one entry. */
			if (cq->reserved < cq->users)
				return false;
			if (!cq->users != !!(cq->link.flags & CQ_IDLE))
				return false;
			if (!cq->users && cq->reserved)
				return false;
			if (cq == v.growing)
				growing_seen = true;
			vs.cqs++;
			vs.cqes += cq->size;
			vs.reserved += cq->reserved;
			vs.idle_cqs += !cq->users;
			return true;
		};
		if (!v.cqs.check(visit) || !growing_seen)
			return false;
		if (vs.cqs != v.count || vs.cqes != v.cqes ||
		    vs.reserved != v.reserved)
			return false;

		/* The idle list holds the vector's idle CQs, and no other. */
		cqp_u64 idle = 0;

		for (const cqp_cq *cq = v.idle_head; cq; cq = cq->link.next) {
			if (!(cq->link.flags & CQ_IDLE) || cq->users ||
			    cq->vec != i)
				return false;
			if (cq->link.next && cq->link.next->link.prev != cq)
				return false;
			if (!cq->link.next && cq != v.idle_tail)
				return false;
			idle++;
		}
		if (idle != vs.idle_cqs || idle != v.idle ||
		    (!v.idle_head && v.idle_tail))
			return false;
		sum.cqs += vs.cqs;
		sum.cqes += vs.cqes;
	}
	return sum.cqs == cqs_ && sum.cqes == cqes_ &&
	       (!p_.max_cqs || cqs_ <= p_.max_cqs);
}

} // namespace cqp

/* The C interface: struct cqp_pool is never defined, only cast. */

static cqp::Pool *pool_of(cqp_pool *p)
{
	return reinterpret_cast<cqp::Pool *>(p);
}

static const cqp::Pool *pool_of(const cqp_pool *p)
{
	return reinterpret_cast<const cqp::Pool *>(p);
}

extern "C" cqp_pool *cqp_pool_create(const cqp_alloc *alloc,
				     const cqp_pool_params *params)
{
	if (!alloc || !params)
		return nullptr;
	return reinterpret_cast<cqp_pool *>(
		cqp::Pool::create(*alloc, *params));
}

extern "C" int cqp_pool_destroy(cqp_pool *pool)
{
	return cqp::Pool::destroy(pool_of(pool));
}

extern "C" cqp_cq *cqp_pool_try_reserve(cqp_pool *pool, cqp_u32 vec,
				       cqp_u32 nr_cqe)
{
	return pool_of(pool)->try_reserve(vec, nr_cqe);
}

extern "C" int cqp_pool_reserve(cqp_pool *pool, cqp_u32 vec, cqp_u32 nr_cqe,
				cqp_cq **cq, cqp_plan *plan)
{
	return pool_of(pool)->reserve(vec, nr_cqe, cq, plan);
}

extern "C" int cqp_pool_get(cqp_pool *pool, cqp_u32 vec, cqp_u32 nr_cqe,
			    cqp_grower *g, cqp_cq **cq, cqp_u32 *grown)
{
	return pool_of(pool)->get(vec, nr_cqe, g, cq, grown);
}

extern "C" int cqp_pool_release_slow(cqp_pool *pool, cqp_cq *cq,
				     cqp_u32 nr_cqe, cqp_u64 now)
{
	return pool_of(pool)->release(cq, nr_cqe, now);
}

extern "C" int cqp_pool_add(cqp_pool *pool, cqp_cq *cq, cqp_u32 vec,
			    cqp_u32 size, cqp_u64 now)
{
	return pool_of(pool)->add(cq, vec, size, now);
}

extern "C" int cqp_pool_resized(cqp_pool *pool, cqp_cq *cq, cqp_u32 size)
{
	return pool_of(pool)->resized(cq, size);
}

extern "C" void cqp_pool_close(cqp_pool *pool)
{
	pool_of(pool)->close();
}

extern "C" void cqp_pool_resize_failed(cqp_pool *pool, cqp_cq *cq)
{
	pool_of(pool)->resize_failed(cq);
}

extern "C" cqp_cq *cqp_pool_reap(cqp_pool *pool, cqp_u64 now,
				 cqp_u64 timeout)
{
	return pool_of(pool)->reap(now, timeout);
}

extern "C" cqp_cq *cqp_pool_take_idle(cqp_pool *pool)
{
	return pool_of(pool)->take_idle();
}

extern "C" int cqp_pool_oldest_idle(const cqp_pool *pool, cqp_u64 *since)
{
	return pool_of(pool)->oldest_idle(since);
}

extern "C" cqp_u64 cqp_pool_reclaimable(const cqp_pool *pool)
{
	return pool_of(pool)->reclaimable();
}

extern "C" int cqp_pool_next_reap(const cqp_pool *pool, cqp_u64 now,
				  cqp_u64 timeout, cqp_u64 *delay)
{
	return pool_of(pool)->next_reap(now, timeout, delay);
}

extern "C" void cqp_pool_get_stats(const cqp_pool *pool, cqp_pool_stats *st)
{
	pool_of(pool)->stats(st);
}

extern "C" cqp_u32 cqp_pool_pick_vector(const cqp_pool *pool, int hint,
				       cqp_u32 among)
{
	return pool_of(pool)->pick_vector(hint, among);
}

extern "C" cqp_u64 cqp_pool_vec_reserved(const cqp_pool *pool, cqp_u32 vec)
{
	return pool_of(pool)->vec_reserved(vec);
}

extern "C" const cqp_pool_params *cqp_pool_get_params(const cqp_pool *pool)
{
	return &pool_of(pool)->params();
}

extern "C" int cqp_pool_check(const cqp_pool *pool)
{
	return pool_of(pool)->check() ? CQP_OK : CQP_EINVAL;
}
