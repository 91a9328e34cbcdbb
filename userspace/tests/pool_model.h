/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of the pool ledger, written from pool.h with plain
 * vectors and O(n) scans, and a rig that drives the real ledger the way the
 * glue does while the model predicts every answer: the return code of each
 * call, the plan, which CQ a reservation lands on, which CQ reap gives back,
 * and every field and total.  Shared by pool_test.cpp (the property test)
 * and fuzz/pool_fuzz.cpp.
 *
 * The rig never aborts: the first mismatch is kept in error() and every
 * later call is a no-op, so a test can report it and the fuzzer can
 * abort on it.
 */
#ifndef CQPOOL_TEST_POOL_MODEL_H
#define CQPOOL_TEST_POOL_MODEL_H

#include <algorithm>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "pool.h"
#include "test_alloc.h"

namespace model {

/* How a driver rounds the size asked for: what the ledger must honour. */
enum class Round { IDENTITY, RXE, POW2 };

inline cqp_u64 roundup_pow_of_two(cqp_u64 n)
{
	cqp_u64 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* The real size a driver gives for @n, never more than @max_cqe. */
inline cqp_u32 driver_round(Round r, cqp_u32 n, cqp_u32 max_cqe)
{
	cqp_u64 real = n;

	if (r == Round::RXE)		/* rxe: a power of two minus one */
		real = roundup_pow_of_two(real + 1) - 1;
	else if (r == Round::POW2)
		real = roundup_pow_of_two(real);
	if (real > max_cqe && n <= max_cqe)
		real = max_cqe;
	return static_cast<cqp_u32>(real);
}

inline const char *round_name(Round r)
{
	return r == Round::RXE ? "rxe" : r == Round::POW2 ? "pow2" : "identity";
}

struct Cq {
	cqp_cq *cq;	/* identity only: the model never reads through it */
	cqp_u32 vec;
	cqp_u32 size;
	cqp_u32 reserved;
	cqp_u32 users;
	cqp_u64 id;
	cqp_u64 idle_since;
	cqp_u64 idle_seq;	/* order in which CQs became idle */
	bool resize_failed;
};

class Pool {
public:
	explicit Pool(const cqp_pool_params &p)
		: p_(p), growing_(p.nvec), peak_nr_(p.nvec), peak_size_(p.nvec)
	{
	}

	static bool params_ok(const cqp_pool_params &p)
	{
		return p.nvec && p.max_cqe && p.cq_size <= p.max_cqe;
	}

	const cqp_pool_params &params() const
	{
		return p_;
	}

	bool resizable() const
	{
		return (p_.flags & CQP_POOL_RESIZE) && !p_.cq_size;
	}

	/* The largest reservation: what one CQ of this pool can hold. */
	cqp_u32 largest() const
	{
		return p_.cq_size ? p_.cq_size : p_.max_cqe;
	}

	const std::vector<Cq> &cqs() const
	{
		return cqs_;
	}

	const Cq *find(const cqp_cq *cq) const
	{
		for (const Cq &c : cqs_)
			if (c.cq == cq)
				return &c;
		return nullptr;
	}

	cqp_cq *growing(cqp_u32 vec) const
	{
		return growing_[vec];
	}

	/* Most free entries, then fewest users, then lowest id. */
	static bool less_used(const Cq &a, const Cq &b)
	{
		cqp_u32 fa = a.size - a.reserved, fb = b.size - b.reserved;

		if (fa != fb)
			return fa > fb;
		if (a.users != b.users)
			return a.users < b.users;
		return a.id < b.id;
	}

	const Cq *least_used(cqp_u32 vec) const
	{
		const Cq *best = nullptr;

		for (const Cq &c : cqs_)
			if (c.vec == vec && (!best || less_used(c, *best)))
				best = &c;
		return best;
	}

	cqp_u64 vec_cqes(cqp_u32 vec) const
	{
		cqp_u64 n = 0;

		for (const Cq &c : cqs_)
			if (c.vec == vec)
				n += c.size;
		return n;
	}

	cqp_u64 vec_count(cqp_u32 vec) const
	{
		cqp_u64 n = 0;

		for (const Cq &c : cqs_)
			n += c.vec == vec;
		return n;
	}

	/* The least 2^k - 1 that holds @n, up to max_cqe. */
	cqp_u64 natural(cqp_u64 n) const
	{
		cqp_u64 p = 1;

		while (p < n + 1)
			p <<= 1;
		return std::min<cqp_u64>(p - 1, p_.max_cqe);
	}

	/* What a CQ of @vec grows to with @nr reserved: CQP_CQ_SHARE. */
	cqp_u64 cap(cqp_u32 vec, cqp_u32 nr) const
	{
		cqp_u64 c = CQP_CQ_SHARE * cqp_u64(std::max(nr, peak_nr_[vec]));

		return std::min<cqp_u64>(c, p_.max_cqe);
	}

	int reserve(cqp_u32 vec, cqp_u32 nr, cqp_cq **out, cqp_plan *plan)
	{
		if (vec >= p_.nvec || !nr || nr > largest())
			return CQP_EINVAL;

		Cq *best = mut(least_used(vec));

		if (best && best->size - best->reserved >= nr) {
			best->users++;
			best->reserved += nr;
			peak_nr_[vec] = std::max(peak_nr_[vec], nr);
			*out = best->cq;
			return CQP_OK;
		}

		const Cq *g = find(growing_[vec]);

		if (g && cqp_u64(g->reserved) + nr <= cap(vec, nr)) {
			cqp_u64 want = cqp_u64(g->reserved) + nr;

			if (want < 2ull * g->size)
				want = 2ull * g->size;
			if (want > cap(vec, nr))
				want = cap(vec, nr);
			*plan = cqp_plan{ CQP_PLAN_RESIZE, vec,
					  static_cast<cqp_u32>(want), g->cq };
			return CQP_GROW;
		}
		if (p_.max_cqs && cqs_.size() >= p_.max_cqs)
			return CQP_ENOSPC;

		cqp_u64 size;

		if (p_.cq_size)
			size = p_.cq_size;
		else if (resizable() && !vec_count(vec))
			size = nr;
		else if (resizable() &&
			 vec_cqes(vec) >= CQP_AHEAD * cap(vec, nr))
			size = std::max<cqp_u64>(nr, cap(vec, nr));
		else if (resizable())
			size = std::max<cqp_u64>(
				nr, std::min<cqp_u64>(cap(vec, nr),
						      peak_size_[vec]) / 2);
		else if (!vec_count(vec))
			size = natural(nr);
		else
			size = std::max<cqp_u64>(
				natural(nr),
				natural(std::min<cqp_u64>(
					CQP_NEW_GROWTH * vec_cqes(vec),
					CQP_NEW_SHARE *
						cqp_u64(std::max(nr, peak_nr_[vec])))));
		*plan = cqp_plan{ CQP_PLAN_NEW, vec, static_cast<cqp_u32>(size),
				  nullptr };
		return CQP_GROW;
	}

	int release(cqp_cq *cq, cqp_u32 nr, cqp_u64 now)
	{
		Cq *c = mut(find(cq));

		if (!c || !c->users || nr > c->reserved)
			return CQP_ERANGE;

		/* each user left keeps an entry; the last leaves none */
		cqp_u32 left = c->reserved - nr, users_left = c->users - 1;

		if (!nr || left < users_left || (!users_left && left))
			return CQP_ERANGE;
		c->reserved -= nr;
		if (!--c->users)
			make_idle(*c, now);
		return CQP_OK;
	}

	int add(cqp_cq *cq, cqp_u32 vec, cqp_u32 size, cqp_u64 now)
	{
		if (vec >= p_.nvec || !size)
			return CQP_EINVAL;
		if (p_.max_cqs && cqs_.size() >= p_.max_cqs)
			return CQP_ENOSPC;
		cqs_.push_back(Cq{ cq, vec, size, 0, 0, next_id_++, 0, 0,
				   false });
		make_idle(cqs_.back(), now);
		peak_size_[vec] = std::max(peak_size_[vec], size);
		if (resizable() && size < p_.max_cqe)
			growing_[vec] = cq;
		return CQP_OK;
	}

	int resized(cqp_cq *cq, cqp_u32 size)
	{
		Cq *c = mut(find(cq));

		if (size < c->reserved)
			return CQP_EINVAL;
		c->size = size;
		peak_size_[c->vec] = std::max(peak_size_[c->vec], size);
		if (size >= p_.max_cqe && growing_[c->vec] == cq)
			growing_[c->vec] = nullptr;
		return CQP_OK;
	}

	void resize_failed(cqp_cq *cq)
	{
		Cq *c = mut(find(cq));

		c->resize_failed = true;
		if (growing_[c->vec] == cq)
			growing_[c->vec] = nullptr;
	}

	/*
	 * The CQ the reclaim takes next: of each vector's idle CQs the one
	 * that went idle first, and of those the one idle since the
	 * earliest, the lowest vector on a tie.
	 */
	const Cq *oldest_idle() const
	{
		std::vector<const Cq *> first(p_.nvec, nullptr);
		const Cq *o = nullptr;

		for (const Cq &c : cqs_)
			if (!c.users && (!first[c.vec] ||
					 c.idle_seq < first[c.vec]->idle_seq))
				first[c.vec] = &c;
		for (const Cq *c : first)
			if (c && (!o || c->idle_since < o->idle_since))
				o = c;
		return o;
	}

	cqp_u64 idle_cqs() const
	{
		cqp_u64 n = 0;

		for (const Cq &c : cqs_)
			n += !c.users;
		return n;
	}

	cqp_u64 reclaimable() const
	{
		if ((p_.flags & CQP_POOL_NO_SHRINK) ||
		    idle_cqs() <= p_.keep_idle)
			return 0;
		return idle_cqs() - p_.keep_idle;
	}

	cqp_cq *reap(cqp_u64 now, cqp_u64 timeout)
	{
		if (!reclaimable())
			return nullptr;

		const Cq *o = oldest_idle();

		if (!o || now < o->idle_since || now - o->idle_since < timeout)
			return nullptr;

		cqp_cq *cq = o->cq;

		remove(cq);
		return cq;
	}

	/* take_idle may give any idle CQ: false if @cq is not one. */
	bool take(cqp_cq *cq)
	{
		const Cq *c = find(cq);

		if (!c || c->users)
			return false;
		remove(cq);
		return true;
	}

	cqp_pool_stats stats() const
	{
		cqp_pool_stats st = {};

		for (const Cq &c : cqs_) {
			st.cqs++;
			st.idle_cqs += !c.users;
			st.cqes += c.size;
			st.reserved += c.reserved;
			st.users += c.users;
		}
		return st;
	}

	cqp_u64 vec_reserved(cqp_u32 vec) const
	{
		cqp_u64 n = 0;

		for (const Cq &c : cqs_)
			if (c.vec == vec)
				n += c.reserved;
		return n;
	}

private:
	Cq *mut(const Cq *c)
	{
		return const_cast<Cq *>(c);
	}

	void make_idle(Cq &c, cqp_u64 now)
	{
		c.idle_since = now;
		c.idle_seq = next_seq_++;
	}

	void remove(cqp_cq *cq)
	{
		for (auto it = cqs_.begin(); it != cqs_.end(); ++it) {
			if (it->cq != cq)
				continue;
			const cqp_u32 vec = it->vec;

			if (growing_[vec] == cq)
				growing_[vec] = nullptr;
			cqs_.erase(it);
			/* a vector left without CQs starts small again */
			if (!vec_count(vec))
				peak_nr_[vec] = peak_size_[vec] = 0;
			return;
		}
	}

	const cqp_pool_params p_;
	std::vector<cqp_cq *> growing_;
	/* per vector, since it last had no CQ: largest reservation, CQ size */
	std::vector<cqp_u32> peak_nr_;
	std::vector<cqp_u32> peak_size_;
	std::vector<Cq> cqs_;
	cqp_u64 next_id_ = 1;
	cqp_u64 next_seq_ = 1;
};

/*
 * The real ledger and the model side by side, driven like the glue:
 * reserve() runs the glue's loop (carry out each plan, with the driver's
 * rounding and the failures it is told to inject, and ask again), the
 * other calls are the glue's other uses of the ledger plus the bad input
 * the contract defines.  After every call, verify() compares everything.
 */
class Rig {
public:
	/* @max_live: the glue's allocations fail beyond this many CQs (0: no cap) */
	Rig(const cqp_pool_params &p, Round round, size_t max_live = 0)
		: round_(round), max_live_(max_live), model_(p)
	{
		cqp_alloc a = alloc_.iface();

		op_ = "create";
		pool_ = cqp_pool_create(&a, &p);
		if (!Pool::params_ok(p)) {
			expect(!pool_, "create accepted bad params");
			expect(alloc_.live == 0, "create leaked");
			return;
		}
		if (expect(pool_ != nullptr, "create refused good params"))
			verify();
	}

	~Rig()
	{
		/* on an error the ledger may be corrupt: leak, don't crash */
		if (pool_ && ok())
			teardown();
	}

	Rig(const Rig &) = delete;
	Rig &operator=(const Rig &) = delete;

	bool ok() const
	{
		return err_.empty();
	}
	const std::string &error() const
	{
		return err_;
	}
	bool created() const
	{
		return pool_ != nullptr;
	}
	cqp_pool *pool() const
	{
		return pool_;
	}
	const Pool &model() const
	{
		return model_;
	}
	size_t cqs() const
	{
		return live_.size();
	}
	size_t held() const
	{
		return held_.size();
	}
	cqp_u64 now() const
	{
		return now_;
	}
	/* reservations that landed on an existing CQ / plans carried out */
	cqp_u64 hits = 0, grows = 0, resizes = 0, reaped = 0;

	/*
	 * One reservation through cqp_pool_get(), the loop the glue runs
	 * (every other one after cqp_pool_try_reserve(), as the glue does),
	 * with this rig as the glue's verbs.  Bit i of @fail_bits fails the
	 * i-th growth: an allocation (the get fails) or a resize (the
	 * driver will not resize: the vector grows by new CQs).  Each plan is
	 * checked against the model's as it comes, with the ledger unchanged
	 * by it.
	 */
	void reserve(cqp_u32 vec, cqp_u32 nr, cqp_u64 fail_bits)
	{
		if (!begin("reserve", vec, nr))
			return;

		Grower g;
		cqp_cq *got_cq = nullptr, *want_cq = nullptr;
		cqp_plan want_plan = {};
		cqp_u32 grown = 0;

		g.grow = grow;
		g.grew = grew;
		g.discard = discard;
		g.rig = this;
		g.vec = vec;
		g.nr = nr;
		g.fail_bits = fail_bits;
		/* Where the fast path reserves, the loop would not grow. */
		if (++reserves_ % 2)
			got_cq = cqp_pool_try_reserve(pool_, vec, nr);

		int got = got_cq ? CQP_OK :
				   cqp_pool_get(pool_, vec, nr, &g, &got_cq,
						&grown);

		if (!ok())
			return;
		/* a growth counts once the ledger took it */
		bool failed = g.discarded || (g.verb_rc && g.verb_rc == got);

		if (!eq(grown + failed, cqp_u32(g.calls), "growths"))
			return;
		if (g.discarded) {
			/* the model refused the CQ too, for the same reason */
			eq(got, g.model_add, "add rc");
			verify();
			return;
		}
		if (failed) {
			verify();
			return; /* the verb failed: nothing reserved */
		}
		int want = model_.reserve(vec, nr, &want_cq, &want_plan);

		if (got == CQP_ELOOP) {
			eq(grown, cqp_u32(CQP_MAX_GROW), "growths before ELOOP");
			eq(want, CQP_GROW, "reserve rc after the last growth");
			verify();
			return;
		}
		if (!eq(got, want, "reserve rc"))
			return;
		if (got == CQP_OK) {
			if (!eq_cq(got_cq, want_cq, "reserved on"))
				return;
			held_.push_back(Held{ got_cq, nr });
			hits += grown == 0;
		}
		verify();
	}

	/* The glue's side of cqp_pool_get(), for reserve(). */
	struct Grower : cqp_grower {
		Rig *rig;
		cqp_u32 vec, nr;
		cqp_u64 fail_bits;
		int calls = 0;
		int verb_rc = CQP_OK;
		int model_add = CQP_OK;
		cqp_cq *discarded = nullptr;
	};

	static int grow(cqp_grower *cg, const cqp_plan *plan, cqp_grown *out)
	{
		Grower *g = static_cast<Grower *>(cg);
		Rig &r = *g->rig;
		int i = g->calls++;
		cqp_cq *want_cq = nullptr;
		cqp_plan want_plan = {};
		int want = r.model_.reserve(g->vec, g->nr, &want_cq,
					    &want_plan);

		/* a plan changes nothing; an error here ends the get */
		if (!r.ok() || !r.eq(want, CQP_GROW, "reserve rc") ||
		    !r.eq(int(plan->kind), int(want_plan.kind), "plan kind") ||
		    !r.eq(plan->vec, want_plan.vec, "plan vec") ||
		    !r.eq(plan->size, want_plan.size, "plan size") ||
		    !r.verify())
			return CQP_EINVAL;

		bool fail = i < 64 && ((g->fail_bits >> i) & 1);
		cqp_u32 real = driver_round(r.round_, plan->size,
					    r.model_.params().max_cqe);

		if (plan->kind == CQP_PLAN_NEW) {
			if (fail || (r.max_live_ && r.live_.size() >= r.max_live_))
				return g->verb_rc = CQP_ENOMEM;
			std::unique_ptr<cqp_cq> cq(new cqp_cq);

			/* the ledger must zero it, links included */
			std::memset(cq.get(), 0xa5, sizeof(*cq));
			g->model_add = r.model_.add(cq.get(), plan->vec, real,
						    r.now_);
			out->cq = cq.get();
			out->size = real;
			out->now = r.now_;
			r.live_.push_back(std::move(cq));
			r.grows++;
			return CQP_OK;
		}
		if (!r.eq_cq(plan->cq, want_plan.cq, "plan cq") ||
		    !r.expect(real >= plan->cq->reserved,
			      "resize plan below what is reserved"))
			return CQP_EINVAL;
		if (fail) {
			r.model_.resize_failed(plan->cq);
			out->fallback = 1;
			return -95; /* EOPNOTSUPP */
		}
		if (!r.eq(r.model_.resized(plan->cq, real), int(CQP_OK),
			  "model resized rc"))
			return CQP_EINVAL;
		out->size = real;
		r.resizes++;
		return CQP_OK;
	}

	static void grew(cqp_grower *cg, const cqp_plan *plan, cqp_cq *cq)
	{
		Grower *g = static_cast<Grower *>(cg);

		if (plan->kind == CQP_PLAN_RESIZE)
			g->rig->eq_cq(cq, plan->cq, "resized");
	}

	static void discard(cqp_grower *cg, cqp_cq *cq)
	{
		Grower *g = static_cast<Grower *>(cg);
		Rig &r = *g->rig;

		g->discarded = cq;
		for (auto it = r.live_.begin(); it != r.live_.end(); ++it)
			if (it->get() == cq) {
				r.live_.erase(it);
				r.grows--;
				return;
			}
		r.expect(false, "discarded a CQ the glue did not make");
	}

	/* Give back one reservation exactly. */	/* Give back one reservation exactly. */
	void release(size_t which)
	{
		if (held_.empty() || !begin("release", which, 0))
			return;

		size_t i = which % held_.size();
		Held h = held_[i];

		held_[i] = held_.back();
		held_.pop_back();
		int want = model_.release(h.cq, h.nr, now_);
		int got = cqp_pool_release(pool_, h.cq, h.nr, now_);

		if (eq(got, want, "release rc"))
			verify();
	}

	/*
	 * A release no reservation can make: anything on an idle CQ; on a CQ
	 * in use, more than is reserved, 0 entries, or so many that a user
	 * left would hold nothing (the last user giving back only part).
	 */
	void bad_release(size_t which, cqp_u32 extra)
	{
		if (live_.empty() || !begin("bad release", which, extra))
			return;

		cqp_cq *cq = live_[which % live_.size()].get();
		cqp_u64 nr = cqp_u64(cq->reserved) + 1 + (extra >> 2) % 4;
		cqp_u32 x = extra >> 4;

		if (!cq->users) {
			nr = extra % 3;	/* 0, 1 or 2 on an idle CQ */
		} else if (extra % 4 == 2) {
			nr = 0;
		} else if (extra % 4 == 3 && cq->users > 1) {
			nr = cq->reserved - cq->users + 2 + x % (cq->users - 1);
		} else if (extra % 4 == 3 && cq->reserved > 1) {
			nr = 1 + x % (cq->reserved - 1);
		}
		if (nr > 0xffffffffu)
			return;
		int want = model_.release(cq, cqp_u32(nr), now_);
		int got = cqp_pool_release(pool_, cq, cqp_u32(nr), now_);

		if (expect(want == CQP_ERANGE, "rig: release should be bad") &&
		    eq(got, want, "bad release rc"))
			verify();
	}

	/* nr_cqe 0, larger than a CQ, or a vector out of range. */
	void bad_reserve(cqp_u32 kind, cqp_u32 x)
	{
		const cqp_pool_params &p = model_.params();
		cqp_u32 vec = x % p.nvec, nr = 1;

		switch (kind % 3) {
		case 0:
			nr = 0;
			break;
		case 1:
			nr = model_.largest() + 1 + x % 8;
			if (nr <= model_.largest())	/* wrapped */
				nr = 0xffffffffu;
			break;
		default:
			vec = p.nvec + x % 8;
			if (vec < p.nvec)
				vec = 0xffffffffu;
			break;
		}
		if (!begin("bad reserve", vec, nr))
			return;

		cqp_cq *cq = nullptr, *mcq = nullptr;
		cqp_plan plan = {}, mplan = {};
		int want = model_.reserve(vec, nr, &mcq, &mplan);
		int got = cqp_pool_reserve(pool_, vec, nr, &cq, &plan);

		if (!expect(want == CQP_EINVAL, "rig: reserve should be bad") ||
		    !eq(got, want, "bad reserve rc"))
			return;
		/* The fast path refuses it too. */
		if (vec < p.nvec &&
		    !expect(!cqp_pool_try_reserve(pool_, vec, nr),
			    "bad reserve: the fast path took it"))
			return;
		verify();
	}

	/* A bad vector, a size of 0, or a CQ too many. */
	void bad_add(cqp_u32 kind, cqp_u32 x)
	{
		const cqp_pool_params &p = model_.params();
		cqp_u32 vec = x % p.nvec, size = 1 + x % 64;

		switch (kind % 3) {
		case 0:
			vec = p.nvec + x % 4;
			break;
		case 1:
			size = 0;
			break;
		default:
			if (!p.max_cqs || live_.size() < p.max_cqs)
				return;
			break;
		}
		if (!begin("bad add", vec, size))
			return;

		/* on the heap: if the ledger takes it, it must outlive the pool */
		std::unique_ptr<cqp_cq> cq(new cqp_cq());
		int want = model_.add(cq.get(), vec, size, now_);
		int got = cqp_pool_add(pool_, cq.get(), vec, size, now_);

		if (got == CQP_OK)
			live_.push_back(std::move(cq));
		if (expect(want != CQP_OK, "rig: add should be bad") &&
		    eq(got, want, "bad add rc"))
			verify();
	}

	/* A resize that would not hold what is reserved. */
	void bad_resized(size_t which, cqp_u32 x)
	{
		if (live_.empty())
			return;

		cqp_cq *cq = live_[which % live_.size()].get();

		if (!cq->reserved || !begin("bad resized", which, x))
			return;

		cqp_u32 size = cq->reserved - 1 - x % cq->reserved;
		int want = model_.resized(cq, size);
		int got = cqp_pool_resized(pool_, cq, size);

		if (expect(want == CQP_EINVAL, "rig: resized should be bad") &&
		    eq(got, want, "bad resized rc"))
			verify();
	}

	/*
	 * Calls the contract allows though the glue's loop does not make
	 * them: a CQ added without a plan (any size, even above max_cqe), a
	 * CQ resized to any size that holds what is reserved, a resize
	 * refused on any CQ.
	 */
	void add_any(cqp_u32 vec, cqp_u32 size)
	{
		const cqp_pool_params &p = model_.params();

		if (!begin("add any", vec, size) ||
		    (max_live_ && live_.size() >= max_live_))
			return;

		std::unique_ptr<cqp_cq> cq(new cqp_cq);

		std::memset(cq.get(), 0x5a, sizeof(*cq));
		vec %= p.nvec;
		if (!size)
			size = 1;
		int want = model_.add(cq.get(), vec, size, now_);
		int got = cqp_pool_add(pool_, cq.get(), vec, size, now_);

		if (got == CQP_OK)
			live_.push_back(std::move(cq));
		if (eq(got, want, "add any rc"))
			verify();
	}

	void resize_any(size_t which, cqp_u32 size)
	{
		if (live_.empty() || !begin("resize any", which, size))
			return;

		cqp_cq *cq = live_[which % live_.size()].get();

		if (size < cq->reserved)
			size = cq->reserved;
		int want = model_.resized(cq, size);
		int got = cqp_pool_resized(pool_, cq, size);

		if (eq(got, want, "resize any rc"))
			verify();
	}

	void resize_failed_any(size_t which)
	{
		if (live_.empty() || !begin("resize failed any", which, 0))
			return;

		cqp_cq *cq = live_[which % live_.size()].get();

		model_.resize_failed(cq);
		cqp_pool_resize_failed(pool_, cq);
		verify();
	}

	void advance(cqp_u64 dt)
	{
		now_ += dt;
	}

	void reap(cqp_u64 timeout)
	{
		if (!begin("reap", timeout, 0))
			return;

		cqp_cq *want = model_.reap(now_, timeout);
		cqp_cq *got = cqp_pool_reap(pool_, now_, timeout);

		if (!eq_cq(got, want, "reaped"))
			return;
		if (got) {
			if (!expect(!got->users, "reaped a CQ with users") ||
			    !expect(now_ - got->idle_since >= timeout,
				    "reaped a CQ idle for less than the timeout"))
				return;
			forget(got);
			reaped++;
		}
		verify();
	}

	void take_idle()
	{
		if (!begin("take idle", 0, 0))
			return;

		cqp_cq *got = cqp_pool_take_idle(pool_);

		if (!got) {
			expect(!model_.oldest_idle(),
			       "take_idle gave nothing with idle CQs left");
		} else {
			if (!expect(model_.take(got),
				    "take_idle gave a CQ with users or none of ours"))
				return;
			forget(got);
		}
		verify();
	}

	void destroy_refused()
	{
		if (live_.empty() || !begin("destroy", 0, 0))
			return;
		if (eq(cqp_pool_destroy(pool_), int(CQP_EINVAL), "destroy rc"))
			verify();
	}

	/* Release everything, drain, destroy: nothing may be left. */
	bool teardown()
	{
		if (!pool_)
			return ok();
		while (ok() && !held_.empty())
			release(held_.size() - 1);
		while (ok() && !live_.empty()) {
			size_t before = live_.size();

			take_idle();
			if (!expect(live_.size() < before,
				    "take_idle left idle CQs in the pool"))
				break;
		}
		if (!ok())
			return false;
		op_ = "destroy";
		if (!eq(cqp_pool_destroy(pool_), int(CQP_OK), "destroy rc"))
			return false;
		pool_ = nullptr;
		return expect(alloc_.live == 0, "allocations live after destroy");
	}

	/* Everything the ledger says against the model. */
	bool verify()
	{
		if (!ok())
			return false;
		if (!expect(cqp_pool_check(pool_) == CQP_OK,
			    "cqp_pool_check failed"))
			return false;

		const cqp_pool_params &p = model_.params();
		const cqp_pool_params *gp = cqp_pool_get_params(pool_);

		if (!expect(std::memcmp(gp, &p, sizeof(p)) == 0, "params"))
			return false;

		cqp_pool_stats st, want = model_.stats();

		cqp_pool_get_stats(pool_, &st);
		if (!eq(st.cqs, want.cqs, "stats.cqs") ||
		    !eq(st.idle_cqs, want.idle_cqs, "stats.idle_cqs") ||
		    !eq(st.cqes, want.cqes, "stats.cqes") ||
		    !eq(st.reserved, want.reserved, "stats.reserved") ||
		    !eq(st.users, want.users, "stats.users") ||
		    !eq(st.cqs, cqp_u64(live_.size()), "stats.cqs vs live"))
			return false;
		for (cqp_u32 v = 0; v <= p.nvec; v++)
			if (!eq(cqp_pool_vec_reserved(pool_, v),
				v < p.nvec ? model_.vec_reserved(v) : 0,
				"vec_reserved"))
				return false;

		cqp_u64 since = 0;
		const Cq *o = model_.oldest_idle();
		bool idle = cqp_pool_oldest_idle(pool_, &since);

		if (!eq(idle, o != nullptr, "oldest_idle") ||
		    (o && !eq(since, o->idle_since, "oldest_idle since")))
			return false;

		/* when the glue's reclaim is due, for two timeouts */
		cqp_u64 left = model_.reclaimable();

		if (!eq(cqp_pool_reclaimable(pool_), left, "reclaimable"))
			return false;
		for (cqp_u64 timeout : { cqp_u64(0), cqp_u64(10) }) {
			cqp_u64 delay = ~0ull;
			bool due = cqp_pool_next_reap(pool_, now_, timeout,
						      &delay);

			if (!eq(due, left != 0, "next_reap"))
				return false;
			if (due && !eq(delay, o->idle_since + timeout > now_ ?
						      o->idle_since + timeout - now_ : 0,
				       "next_reap delay"))
				return false;
		}

		/* what the glue holds adds up to what each CQ says */
		std::unordered_map<const cqp_cq *, std::pair<cqp_u64, cqp_u32>>
			holds;
		for (const Held &h : held_) {
			holds[h.cq].first += h.nr;
			holds[h.cq].second++;
		}
		std::unordered_map<const cqp_cq *, const Cq *> in_model;
		for (const Cq &c : model_.cqs())
			in_model[c.cq] = &c;
		if (!eq(in_model.size(), live_.size(), "model CQs"))
			return false;
		for (const auto &up : live_) {
			const cqp_cq *cq = up.get();
			auto it = in_model.find(cq);

			if (!expect(it != in_model.end(), "CQ missing from model"))
				return false;

			const Cq &c = *it->second;
			auto &hold = holds[cq];

			if (!eq(cq->size, c.size, "cq size") ||
			    !eq(cq->reserved, c.reserved, "cq reserved") ||
			    !eq(cq->users, c.users, "cq users") ||
			    !eq(cq->vec, c.vec, "cq vec") ||
			    !eq(cq->id, c.id, "cq id") ||
			    !eq(cq->idle_since, c.idle_since, "cq idle_since") ||
			    !expect(cq->reserved <= cq->size,
				    "reserved above the real size") ||
			    !eq(cqp_u64(cq->reserved), hold.first,
				"reserved vs held") ||
			    !eq(cq->users, hold.second, "users vs held"))
				return false;
		}
		return true;
	}

private:
	struct Held {
		cqp_cq *cq;
		cqp_u32 nr;
	};

	bool begin(const char *op, cqp_u64 a, cqp_u64 b)
	{
		step_++;
		op_ = op;
		arg_a_ = a;
		arg_b_ = b;
		return ok() && pool_;
	}

	void fail(const std::string &what)
	{
		if (!err_.empty())
			return;

		std::ostringstream s;

		s << "step " << step_ << " (" << op_ << " " << arg_a_ << " "
		  << arg_b_ << ", now " << now_ << ", " << live_.size()
		  << " CQs, " << held_.size() << " held): " << what;
		err_ = s.str();
	}

	bool expect(bool cond, const char *what)
	{
		if (!cond)
			fail(what);
		return cond;
	}

	template <typename A, typename B>
	bool eq(const A &got, const B &want, const char *what)
	{
		if (got == want)
			return true;

		std::ostringstream s;

		s << what << ": got " << got << ", want " << want;
		fail(s.str());
		return false;
	}

	std::string label(const cqp_cq *cq) const
	{
		const Cq *c = cq ? model_.find(cq) : nullptr;

		if (!cq)
			return "none";
		return c ? "cq#" + std::to_string(c->id) : "unknown cq";
	}

	bool eq_cq(const cqp_cq *got, const cqp_cq *want, const char *what)
	{
		if (got == want)
			return true;
		fail(std::string(what) + ": got " + label(got) + ", want " +
		     label(want));
		return false;
	}

	void forget(const cqp_cq *cq)
	{
		for (auto it = live_.begin(); it != live_.end(); ++it) {
			if (it->get() == cq) {
				live_.erase(it);
				return;
			}
		}
	}

	const Round round_;
	const size_t max_live_;
	TestAlloc alloc_;
	cqp_pool *pool_ = nullptr;
	Pool model_;
	std::vector<std::unique_ptr<cqp_cq>> live_;
	std::vector<Held> held_;
	cqp_u64 reserves_ = 0;
	cqp_u64 now_ = 1000;
	cqp_u64 step_ = 0;
	const char *op_ = "";
	cqp_u64 arg_a_ = 0, arg_b_ = 0;
	std::string err_;
};

} // namespace model

#endif /* CQPOOL_TEST_POOL_MODEL_H */
