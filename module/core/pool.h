/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pool ledger: which CQs a pool has on each completion vector, what is
 * reserved on each, which one a reservation goes to, how the pool grows
 * when nothing fits, and which idle CQs it may give back.
 *
 * The ledger decides; the glue acts.  cqp_pool_reserve() either reserves
 * on an existing CQ or returns a plan (resize this CQ, or add one of this
 * size on this vector) and changes nothing.  cqp_pool_get() is the whole
 * reservation, the one loop every caller runs: it has the glue carry each
 * plan out with the verbs (struct cqp_grower), puts the result in the
 * ledger (cqp_pool_add(), cqp_pool_resized()) and asks again.  A failed
 * verb changes nothing, so the ledger stays exactly as it was.  When to
 * reclaim is the ledger's to say too (cqp_pool_next_reap()).
 *
 * Selection: among the CQs of the vector, the one with the most free
 * entries (fewest users, then oldest, on a tie), found in O(log n) in the
 * number of CQs on the vector.  Invariant: the entries reserved on a CQ
 * never exceed its real size (what the driver reports, not what was asked
 * for).
 *
 * Growth, by default, is by new CQs alone: no CQ is ever resized.  A
 * vector's first CQ is the natural size of the request (the least 2^k - 1
 * that holds it, what rxe and mlx5 round every CQ to, so that what is
 * asked for is what is allocated); each later one is the natural size of
 * CQP_NEW_GROWTH times what the vector holds, capped at the plateau, a CQ
 * that holds CQP_NEW_SHARE of the vector's largest reservation (since it
 * last had no CQ).  A vector that serves a few consumers stays small, and
 * one that serves many reaches CQs of one size in a few growths, each new
 * one a small part of the whole.  Idle CQs go after the idle timeout, so
 * under churn the small early CQs, which least-used selection fills last,
 * empty and go first.
 *
 * Growth in place is an owned pool's opt-in (CQP_POOL_RESIZE, where the
 * driver has kernel-side resize): a vector's CQs grow to hold
 * CQP_CQ_SHARE of the largest reservation made on the vector, and no
 * more; then the vector adds a CQ.  Its first CQ starts at the size asked
 * for and is resized in place; later ones start at half the size its CQs
 * reached, or at the cap once the vector is large (CQP_AHEAD).  Where the
 * driver refuses a resize, the vector grows by new CQs as by default.
 *
 * Reclaim: a vector keeps its idle CQs in the order they went idle; the
 * reclaim takes the first of whichever vector's went idle the earliest.
 *
 * Locking: none inside.  The caller serialises the calls on one pool, in
 * two ways.  cqp_pool_try_reserve() and cqp_pool_release() touch only
 * the vector they name (or their CQ's) and that vector's CQs, so each
 * needs serialising only against calls on the same vector and against
 * every other call; cqp_pool_pick_vector() and cqp_pool_vec_reserved()
 * may run beside anything.  Every other call must be serialised against
 * all calls (the glue holds the pool's lock and every vector's).
 * Nothing here sleeps or allocates except cqp_pool_create().
 */
#ifndef CQPOOL_CORE_POOL_H
#define CQPOOL_CORE_POOL_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cqp_cq - the ledger's record of one CQ, embedded in the glue's
 * @size: real number of entries
 * @reserved: entries reserved
 * @users: reservations holding entries
 * @vec: completion vector
 * @id: order of creation within the pool, from 1
 * @idle_since: the caller's clock when @users last dropped to 0
 * @link: the ledger's own; do not touch
 *
 * Fields other than @link are read-only for the glue; they are valid
 * while the CQ is in the ledger, under the serialisation of its vector
 * (@vec, which never changes) or of the pool.
 */
struct cqp_cq {
	cqp_u32 size;
	cqp_u32 reserved;
	cqp_u32 users;
	cqp_u32 vec;
	cqp_u64 id;
	cqp_u64 idle_since;
	struct {
		struct cqp_cq *left, *right;	/* per-vector treap */
		struct cqp_cq *lo, *hi;		/* its nodes in order */
		struct cqp_cq *prev, *next;	/* its vector's idle list */
		cqp_u64 *vec_reserved;		/* its vector's entries reserved */
		cqp_u32 prio;
		cqp_u32 flags;
	} link;
};

/* Pool flags. */
enum {
	/*
	 * The pool opted in to growing CQs in place, and the driver and the
	 * kernel can: never set for a device's shared pool.
	 */
	CQP_POOL_RESIZE = 1u << 0,
	/* Never give idle CQs back. */
	CQP_POOL_NO_SHRINK = 1u << 1,
};

/**
 * struct cqp_pool_params - what a pool is made of
 * @nvec: completion vectors (cqp_nvec())
 * @max_cqe: the device's largest CQ
 * @max_cqs: most CQs the pool may hold; 0 for no limit
 * @cq_size: entries per CQ; 0 to size CQs to demand
 * @flags: CQP_POOL_*
 * @keep_idle: idle CQs the pool keeps when it shrinks
 */
struct cqp_pool_params {
	cqp_u32 nvec;
	cqp_u32 max_cqe;
	cqp_u32 max_cqs;
	cqp_u32 cq_size;
	cqp_u32 flags;
	cqp_u32 keep_idle;
};

enum cqp_plan_kind {
	CQP_PLAN_NEW = 1,	/* allocate a CQ of @size on @vec */
	CQP_PLAN_RESIZE,	/* resize @cq to @size */
};

/**
 * struct cqp_plan - how to grow the pool when nothing fits
 * @kind: what to do
 * @vec: the vector
 * @size: entries to ask the driver for
 * @cq: the CQ to resize (CQP_PLAN_RESIZE)
 */
struct cqp_plan {
	enum cqp_plan_kind kind;
	cqp_u32 vec;
	cqp_u32 size;
	struct cqp_cq *cq;
};

/**
 * struct cqp_pool_stats - totals over a pool
 * @cqs: CQs
 * @idle_cqs: CQs without users
 * @cqes: entries allocated (real sizes)
 * @reserved: entries reserved
 * @users: reservations
 */
struct cqp_pool_stats {
	cqp_u64 cqs;
	cqp_u64 idle_cqs;
	cqp_u64 cqes;
	cqp_u64 reserved;
	cqp_u64 users;
};

/*
 * Growth by new CQs (the default).  A new CQ, after a vector's first, is
 * about CQP_NEW_GROWTH times the entries the vector holds, and holds at
 * most CQP_NEW_SHARE of its largest reservation (the plateau), rounded up
 * to a natural size.  4: an NVMe-oF host's admin queue (129 entries, a
 * CQ of 255) and an I/O queue (513) on one vector make a second CQ of
 * 1,023, not 4,095, so a connection's host and target stay under an
 * eighth of what upstream allocates for them; and a vector reaches the
 * plateau within two or three growths.  8: the mixed workload's
 * reservations of up to 1,025 entries make CQs of 16,383, and it
 * allocates 1.03 times what it reserves; with 6 its CQs are of 8,191,
 * twice as many, whose gaps too small for the next reservation add up to
 * 1.11; with 16 they are of 32,767 and the users per CQ spread from 1.33
 * times the mean to 1.61.  (The ledger alone, with rxe's rounding and two
 * vectors; the core's tests hold the figures of 8.)
 */
#define CQP_NEW_GROWTH 4
#define CQP_NEW_SHARE 8

/*
 * Growth in place (CQP_POOL_RESIZE): how many of its vector's largest
 * reservation a CQ grows to hold.  A cap makes same-size consumers spread
 * over several CQs instead of filling one of the device's largest first: 256 QPs of 258 entries on rxe's two
 * vectors get at most 31 to a CQ, 1.21 times the mean, where a cap of
 * the device's largest CQ put 127 on one CQ and 1 on the next.  24, not
 * 16: with 16 the mixed workload of 33 to 1025 entries made twice as many
 * CQs of unequal sizes (1.26 times the mean users on its busiest CQ, and
 * 1.04 times the entries reserved, against 1.06 and 1.013 with 24).  Not
 * 32: 258 x 32 is rounded up to 16,383 entries, 63 QPs to a CQ, 1.48.
 * (The ledger alone, with rxe's rounding and two vectors; the core's
 * tests hold 24 to the first two figures.)
 */
#define CQP_CQ_SHARE 24

/*
 * Growth in place: a vector with at least CQP_AHEAD times the cap in
 * entries adds CQs at the cap, not at half of it: what such a CQ
 * allocates ahead of demand is then at most 1/CQP_AHEAD of the vector,
 * 5%.  The mixed workload and 256 same-size QPs on rxe never reach it; a
 * storm of 4,096 reservations of 513 does.
 */
#define CQP_AHEAD 20

/* Returned by cqp_pool_reserve() when @plan says how to make room. */
#define CQP_GROW 1

struct cqp_pool;

/* NULL on bad parameters or when memory runs out. */
struct cqp_pool *cqp_pool_create(const struct cqp_alloc *alloc,
				 const struct cqp_pool_params *params);
/* The pool must hold no CQ (remove them first); CQP_EINVAL otherwise. */
int cqp_pool_destroy(struct cqp_pool *pool);

/*
 * Reserve @nr_cqe entries on vector @vec (< nvec).  CQP_OK with *@cq set:
 * reserved.  CQP_GROW with @plan filled: nothing changed, grow as planned
 * and call again.  CQP_ENODEV: the pool is closed.  CQP_EINVAL: @nr_cqe
 * is 0, larger than a CQ of this pool can be, or @vec is out of range.
 * CQP_ENOSPC: the pool is at max_cqs and nothing fits.
 */
int cqp_pool_reserve(struct cqp_pool *pool, cqp_u32 vec, cqp_u32 nr_cqe,
		     struct cqp_cq **cq, struct cqp_plan *plan);

/*
 * The fast path of a get, which changes vector @vec alone: reserve
 * @nr_cqe entries on the vector's least-used CQ, if it has room.  The
 * reservation, or NULL with nothing changed: the pool is closed,
 * @nr_cqe or @vec is invalid, or the pool must grow (cqp_pool_get() says
 * which).
 */
struct cqp_cq *cqp_pool_try_reserve(struct cqp_pool *pool, cqp_u32 vec,
				    cqp_u32 nr_cqe);

/* cqp_pool_release() where its inline fast path does not apply. */
int cqp_pool_release_slow(struct cqp_pool *pool, struct cqp_cq *cq,
			  cqp_u32 nr_cqe, cqp_u64 now);

/*
 * The order of a vector's CQs, whose maximum is the least used: whether
 * a CQ with @free free entries, @users users and creation order @id comes
 * before @b.  Fewer free entries first, then more users, then the newer.
 */
static inline int cqp_cq_below(cqp_u32 free, cqp_u32 users, cqp_u64 id,
			       const struct cqp_cq *b)
{
	const cqp_u32 b_free = b->size - b->reserved;

	if (free != b_free)
		return free < b_free;
	if (users != b->users)
		return users > b->users;
	return id > b->id;
}

/*
 * Whether @nr_cqe entries can be one reservation of @cq's.  A reservation
 * holds at least one entry: the users that stay keep at least one each,
 * and the last one gives back all that is left.
 */
static inline int cqp_releasable(const struct cqp_cq *cq, cqp_u32 nr_cqe)
{
	if (!cq->users || !nr_cqe || nr_cqe > cq->reserved)
		return 0;
	if (cq->reserved - nr_cqe < cq->users - 1)
		return 0;
	return cq->users != 1 || nr_cqe == cq->reserved;
}

/*
 * A release that leaves @cq with users and where it is in its vector's
 * order, so that nothing but counts change: most puts.  Whether it was
 * made; if not, nothing changed.
 */
static inline int cqp_release_in_place(struct cqp_cq *cq, cqp_u32 nr_cqe)
{
	const cqp_u32 users = cq->users, reserved = cq->reserved;
	const struct cqp_cq *hi = cq->link.hi;
	cqp_u64 *vec_reserved = cq->link.vec_reserved;

	if (users < 2 || !cqp_releasable(cq, nr_cqe))
		return 0;
	/* More free entries: it stays below the next CQ up, or moves. */
	if (hi && !cqp_cq_below(cq->size - reserved + nr_cqe, users - 1,
				cq->id, hi))
		return 0;
	/* Read beside the vector's gets and puts: whole, never torn. */
	__atomic_store_n(vec_reserved, *vec_reserved - nr_cqe,
			 __ATOMIC_RELAXED);
	cq->users = users - 1;
	cq->reserved = reserved - nr_cqe;
	return 1;
}

/*
 * Give back @nr_cqe entries of one reservation on @cq, which changes its
 * vector alone.  CQP_ERANGE, and nothing changes, when @cq has no user
 * or fewer entries reserved.  Inline, so that most puts make no call
 * into the core: under TCG such a call cost about 0.18x of upstream's
 * whole put.  The glue's put makes the same two calls itself, so that it
 * reads its clock only when the release is not made in place: a clock is
 * a volatile load, which no compiler moves into the branch that needs it.
 */
static inline int cqp_pool_release(struct cqp_pool *pool, struct cqp_cq *cq,
				   cqp_u32 nr_cqe, cqp_u64 now)
{
	if (cqp_release_in_place(cq, nr_cqe))
		return CQP_OK;
	return cqp_pool_release_slow(pool, cq, nr_cqe, now);
}

/*
 * Add a CQ the glue allocated: @size is its real size.  @cq is zeroed by
 * the ledger; it starts idle at @now.  CQP_EINVAL for a bad vector or a
 * size of 0, CQP_ENOSPC at max_cqs.
 */
int cqp_pool_add(struct cqp_pool *pool, struct cqp_cq *cq, cqp_u32 vec,
		 cqp_u32 size, cqp_u64 now);

/*
 * @cq was resized: @size is its real new size, which must hold what is
 * reserved (CQP_EINVAL otherwise, and nothing changes).
 */
int cqp_pool_resized(struct cqp_pool *pool, struct cqp_cq *cq,
		     cqp_u32 size);

/*
 * The pool takes no more reservations (its device is going): every
 * cqp_pool_reserve() and cqp_pool_get() from now on says CQP_ENODEV.
 * Releases, growths already made and the reclaim go on.
 */
void cqp_pool_close(struct cqp_pool *pool);

/* The driver refused to resize @cq: grow its vector by new CQs instead. */
void cqp_pool_resize_failed(struct cqp_pool *pool, struct cqp_cq *cq);

/**
 * struct cqp_grown - what the verb of a growth made
 * @cq: CQP_PLAN_NEW: the glue's record of the CQ it allocated
 * @size: the CQ's real size, new or after the resize
 * @now: CQP_PLAN_NEW: the caller's clock when it was allocated
 * @fallback: a resize failed because the driver will not resize this CQ:
 *	the vector grows by new CQs instead, and the get goes on
 */
struct cqp_grown {
	struct cqp_cq *cq;
	cqp_u32 size;
	cqp_u64 now;
	int fallback;
};

/**
 * struct cqp_grower - the glue's side of cqp_pool_get()
 * @grow: carries out @plan with the verbs.  It is called with the lock
 *	that serialises the pool held, drops it around the verb (gets and
 *	puts that fit go on meanwhile; nothing else may grow the pool or take
 *	CQs out of it) and takes it again before it returns.  0 with @out
 *	filled in, or a negative errno, which the get returns unless
 *	@out->fallback is set.  A growth whose verb worked may still fail
 *	(the pool went away meanwhile): the glue then undoes it.
 * @grew: the ledger took the growth: @cq was added or resized.
 * @discard: the ledger did not take @cq, allocated for a CQP_PLAN_NEW.
 */
struct cqp_grower {
	int (*grow)(struct cqp_grower *g, const struct cqp_plan *plan,
		    struct cqp_grown *out);
	void (*grew)(struct cqp_grower *g, const struct cqp_plan *plan,
		     struct cqp_cq *cq);
	void (*discard)(struct cqp_grower *g, struct cqp_cq *cq);
};

/*
 * Growths one get may make.  Gets that fit go on while a growth runs its
 * verb and may take the room it is making, so a get can need more than
 * one resize; but each resize at least doubles its CQ or takes it to the
 * cap (CQP_CQ_SHARE), which only a larger reservation raises, up to
 * max_cqe (below 2^32), and a CQ added new is in the ledger before the
 * next try, under the same hold of the lock, so that try fits.  A get
 * that keeps losing its room to ever larger ones ends with CQP_ELOOP.
 */
#define CQP_MAX_GROW 34

/*
 * The whole reservation: cqp_pool_reserve(), and while it plans a growth,
 * the growth through @g, its result put in the ledger, and another try.
 * CQP_OK with *@cq set; otherwise what cqp_pool_reserve() or @g->grow
 * said, and CQP_ELOOP after CQP_MAX_GROW growths.  *@grown is the
 * growths made.  Called, and returns, with the pool serialised against
 * all calls.
 */
int cqp_pool_get(struct cqp_pool *pool, cqp_u32 vec, cqp_u32 nr_cqe,
		 struct cqp_grower *g, struct cqp_cq **cq, cqp_u32 *grown);

/*
 * Take out one CQ that has had no user for at least @timeout (in the
 * caller's clock) at @now, oldest first (see Reclaim above), keeping
 * keep_idle idle CQs; NULL when there is none.  The glue then destroys
 * it.
 */
struct cqp_cq *cqp_pool_reap(struct cqp_pool *pool, cqp_u64 now,
			     cqp_u64 timeout);

/*
 * Take out any CQ without users (for device removal); NULL when none is
 * left.  CQs with users are never taken out.
 */
struct cqp_cq *cqp_pool_take_idle(struct cqp_pool *pool);

/*
 * When the idle CQ cqp_pool_reap() takes next became idle; false if no
 * CQ is idle.
 */
int cqp_pool_oldest_idle(const struct cqp_pool *pool, cqp_u64 *since);

/*
 * Idle CQs cqp_pool_reap() would take out once they are old enough: those
 * beyond keep_idle, none with CQP_POOL_NO_SHRINK.
 */
cqp_u64 cqp_pool_reclaimable(const struct cqp_pool *pool);

/*
 * Whether cqp_pool_reap() will have a CQ to take out at some time, and
 * then in how long from @now, with @timeout (0 if it has one now): what
 * the glue schedules its reclaim by.
 */
int cqp_pool_next_reap(const struct cqp_pool *pool, cqp_u64 now,
		       cqp_u64 timeout, cqp_u64 *delay);

/*
 * The pool's totals.  O(CQs): the reservations are summed over the CQs,
 * which no get or put has to count.
 */
void cqp_pool_get_stats(const struct cqp_pool *pool,
			struct cqp_pool_stats *st);

/*
 * The vector a reservation goes to, among the first @among vectors (0, or
 * more than nvec: all of them; the ledger is sized for every CPU the
 * device could use, a pick is for those online now).  A @hint >= 0 maps
 * modulo that count; a negative one picks the vector with the fewest
 * entries reserved in this pool, the lowest index on a tie, so that the
 * choice is reproducible.
 */
cqp_u32 cqp_pool_pick_vector(const struct cqp_pool *pool, int hint,
			     cqp_u32 among);

/* The vectors a pick is among, as cqp_pool_pick_vector() says. */
static inline cqp_u32 cqp_vectors_among(cqp_u32 among, cqp_u32 nvec)
{
	return among && among < nvec ? among : nvec;
}

/*
 * What cqp_pool_pick_vector() picks for a @hint >= 0 on a pool of @nvec
 * vectors: inline, for a caller that knows @nvec and would rather not
 * call.
 */
static inline cqp_u32 cqp_hint_vector(cqp_u32 hint, cqp_u32 among,
				      cqp_u32 nvec)
{
	const cqp_u32 n = cqp_vectors_among(among, nvec);

	/* Most hints are in range already: spare them a division. */
	return hint < n ? hint : hint % n;
}

/* Entries reserved over the pool's CQs on @vec. */
cqp_u64 cqp_pool_vec_reserved(const struct cqp_pool *pool, cqp_u32 vec);
const struct cqp_pool_params *
cqp_pool_get_params(const struct cqp_pool *pool);

/*
 * Check every invariant of the ledger (treap order and heap property,
 * per-vector and pool totals, the idle list).  CQP_OK or CQP_EINVAL; for
 * tests and the fuzzer, O(n).
 */
int cqp_pool_check(const struct cqp_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* CQPOOL_CORE_POOL_H */
