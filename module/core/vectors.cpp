// SPDX-License-Identifier: GPL-2.0
/*
 * The vector ledger.  See vectors.h for the rules callers follow.
 */
#include "vectors.h"
#include "new.h"

namespace cqp {

class VectorLedger {
public:
	VectorLedger(const cqp_alloc &alloc, unsigned int nvec, cqp_u64 *load)
		: alloc_(alloc), nvec_(nvec), load_(load)
	{
	}
	~VectorLedger();
	VectorLedger(const VectorLedger &) = delete;
	VectorLedger &operator=(const VectorLedger &) = delete;

	static VectorLedger *create(const cqp_alloc &alloc, unsigned int nvec);
	static void destroy(VectorLedger *v);

	unsigned int nvec() const
	{
		return nvec_;
	}
	unsigned int pick(int hint, unsigned int among) const;
	int charge(unsigned int vec, cqp_u32 nr_cqe);
	int discharge(unsigned int vec, cqp_u32 nr_cqe);
	cqp_u64 load(unsigned int vec) const;

private:
	bool valid(unsigned int vec) const
	{
		return vec < nvec_;
	}

	const cqp_alloc alloc_;
	const unsigned int nvec_;
	cqp_u64 *const load_;
};

VectorLedger *VectorLedger::create(const cqp_alloc &alloc, unsigned int nvec)
{
	if (!nvec)
		return nullptr;

	auto *load = static_cast<cqp_u64 *>(
		alloc.zalloc(alloc.ctx, nvec * sizeof(cqp_u64)));
	if (!load)
		return nullptr;

	VectorLedger *v = make<VectorLedger>(alloc, alloc, nvec, load);

	if (!v)
		alloc.free(alloc.ctx, load);
	return v;
}

VectorLedger::~VectorLedger()
{
	alloc_.free(alloc_.ctx, load_);
}

void VectorLedger::destroy(VectorLedger *v)
{
	if (v)
		unmake(cqp_alloc(v->alloc_), v);
}

unsigned int VectorLedger::pick(int hint, unsigned int among) const
{
	const unsigned int n = among && among < nvec_ ? among : nvec_;

	if (hint >= 0)
		return static_cast<unsigned int>(hint) % n;

	unsigned int best = 0;

	for (unsigned int i = 1; i < n; i++)
		if (load_[i] < load_[best])
			best = i;
	return best;
}

int VectorLedger::charge(unsigned int vec, cqp_u32 nr_cqe)
{
	if (!valid(vec))
		return CQP_EINVAL;
	if (load_[vec] > ~static_cast<cqp_u64>(0) - nr_cqe)
		return CQP_ERANGE;
	load_[vec] += nr_cqe;
	return CQP_OK;
}

int VectorLedger::discharge(unsigned int vec, cqp_u32 nr_cqe)
{
	if (!valid(vec))
		return CQP_EINVAL;
	if (nr_cqe > load_[vec])
		return CQP_ERANGE;
	load_[vec] -= nr_cqe;
	return CQP_OK;
}

cqp_u64 VectorLedger::load(unsigned int vec) const
{
	return valid(vec) ? load_[vec] : 0;
}

} // namespace cqp

/* The C interface: struct cqp_vectors is never defined, only cast. */

static cqp::VectorLedger *ledger(cqp_vectors *v)
{
	return reinterpret_cast<cqp::VectorLedger *>(v);
}

static const cqp::VectorLedger *ledger(const cqp_vectors *v)
{
	return reinterpret_cast<const cqp::VectorLedger *>(v);
}

extern "C" unsigned int cqp_nvec(unsigned int num_comp_vectors,
				 unsigned int online_cpus)
{
	unsigned int n = num_comp_vectors < online_cpus ? num_comp_vectors :
							  online_cpus;

	return n ? n : 1;
}

extern "C" cqp_vectors *cqp_vectors_create(const cqp_alloc *alloc,
					   unsigned int nvec)
{
	if (!alloc)
		return nullptr;
	return reinterpret_cast<cqp_vectors *>(
		cqp::VectorLedger::create(*alloc, nvec));
}

extern "C" void cqp_vectors_destroy(cqp_vectors *v)
{
	cqp::VectorLedger::destroy(ledger(v));
}

extern "C" unsigned int cqp_vectors_nvec(const cqp_vectors *v)
{
	return ledger(v)->nvec();
}

extern "C" unsigned int cqp_vectors_pick(const cqp_vectors *v, int hint)
{
	return ledger(v)->pick(hint, 0);
}

extern "C" unsigned int cqp_vectors_pick_among(const cqp_vectors *v, int hint,
					       unsigned int among)
{
	return ledger(v)->pick(hint, among);
}

extern "C" int cqp_vectors_charge(cqp_vectors *v, unsigned int vec,
				  cqp_u32 nr_cqe)
{
	return ledger(v)->charge(vec, nr_cqe);
}

extern "C" int cqp_vectors_discharge(cqp_vectors *v, unsigned int vec,
				     cqp_u32 nr_cqe)
{
	return ledger(v)->discharge(vec, nr_cqe);
}

extern "C" cqp_u64 cqp_vectors_load(const cqp_vectors *v, unsigned int vec)
{
	return ledger(v)->load(vec);
}
