// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel micro-benchmarks of CQPOOL_IOC_BENCH: cqpool's get/put
 * against upstream's ib_cq_pool_get()/ib_cq_pool_put() and against one
 * ib_alloc_cq()/ib_free_cq() per QP on the same device.  Calls are timed
 * in batches, one clock pair around CQH_BENCH_BATCH gets and one around
 * their puts: under QEMU a clock read costs about as much as the call it
 * would time, and would pull every ratio towards 1.  Nothing here asserts
 * a time; make bench compares the numbers.
 *
 * Prefilled CQs are filled to their real size (drivers round sizes up:
 * rxe makes 8191 entries of a 4096 request), so that the only room in
 * the pool is the room the benchmark made.  Upstream keeps its CQs, so a
 * later run on the same poll context finds the earlier CQs; the CQ whose
 * room is freed is therefore chosen by its place in upstream's list (the
 * first one scanned for GET_PUT, the last one for CHURN), not by the
 * order in which this run filled them.
 */
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include "uapi/linux/cqpool.h"
#include <cqpool/cqpool.h>

#include "bench_ledger.h"
#include "core/pool.h"
#include "cq_source.h"
#include "testing.h"
#include "session.h"

/*
 * Size of a prefilled CQ: what upstream allocates for a small
 * reservation (IB_MAX_SHARED_CQ_SZ in cq.c), so both pools hold the same
 * number of CQs per vector.
 */
#define CQH_BENCH_CQ		4096
#define CQH_BENCH_MAX_PREFILL 4096
#define CQH_BENCH_MAX_ITER	1000000
/*
 * CQH_BENCH_BATCH (bench_ledger.h), calls per clock pair in GET_PUT
 * and CHURN, is at most what a batch holds: enough that the clock is a
 * small part of it.  A batch is smaller where its gets would not fit the
 * room the benchmark makes on each vector (cqh_bench_batch()).
 */
/* The flags whose upstream calls land in the takeover. */
#define CQH_BENCH_TAKEN_OVER	(CQPOOL_BENCH_F_TAKEOVER | \
				 CQPOOL_BENCH_F_TAKEOVER_DIRECT)
/*
 * How long a removal waits for a run to stop: one get or put and the
 * puts of what the run holds, a few hundred milliseconds under TCG.
 */
#define CQH_BENCH_STOP_MS	10000

/**
 * struct cqh_bench_ctx - one benchmark run
 * @a: its arguments and results
 * @dev: the device
 * @pool: with CQPOOL_CQ_POOL, the pool made for the run
 * @src: where its CQs come from
 * @ledger: with CQPOOL_BENCH_F_LEDGER, the ledger whose calls are timed
 * @nvec: vectors both pools spread over
 * @cqs: with CQPOOL_CQ_PER_QP, CQs allocated now
 * @cqes: with CQPOOL_CQ_PER_QP, their entries
 * @removal: hears the device's DEVICE_FATAL, and holds the device
 * @stop: set by @removal, or when a PARALLEL run is cut short: no get
 *	succeeds from then on
 * @done: the run holds nothing on the device any more
 * @go: PARALLEL: the threads start
 * @running: PARALLEL: threads not yet done
 * @all_done: PARALLEL: the last thread is done
 * @end_ns: PARALLEL: ktime_get_ns() when it was
 */
struct cqh_bench_ctx {
	struct cqpool_bench *a;
	struct ib_device *dev;
	struct cqpool *pool;
	struct cqh_cq_source src;
	struct cqh_bench_ledger *ledger;
	unsigned int nvec;
	u32 cqs;
	u64 cqes;
	struct cqpool_event_handler removal;
	bool stop;
	struct completion done;
	struct completion go;
	atomic_t running;
	struct completion all_done;
	u64 end_ns;
};

/**
 * struct cqh_bench_thread - one thread of a PARALLEL run
 * @b: the run
 * @task: the thread
 * @vec: its vector
 * @pairs: the get+put pairs it makes
 * @ret: 0, or what its failed get said
 */
struct cqh_bench_thread {
	struct cqh_bench_ctx *b;
	struct task_struct *task;
	unsigned int vec;
	unsigned int pairs;
	int ret;
};

/**
 * struct cqh_bench_fill - one prefilled CQ
 * @cq: the CQ
 * @nr: entries of the first get, which made or found it
 * @top: entries of the second get, which filled it to its real size
 */
struct cqh_bench_fill {
	struct ib_cq *cq;
	unsigned int nr;
	unsigned int top;
};

/*
 * Whether the run goes on: -ENODEV once its device is going, -EINTR once
 * its caller is killed (a run of a million gets takes minutes), else 0.
 */
static int cqh_bench_going(struct cqh_bench_ctx *b)
{
	if (READ_ONCE(b->stop))
		return -ENODEV;
	if (fatal_signal_pending(current))
		return -EINTR;
	return 0;
}

/*
 * Where the fill's @i-th CQ is in its array: fill[v * prefill + k] is
 * the k-th CQ filled on vector v, and the fill goes round the vectors.
 */
static unsigned int cqh_bench_slot(const struct cqh_bench_ctx *b,
				   unsigned int i)
{
	return (i % b->nvec) * b->a->prefill + i / b->nvec;
}

static struct ib_cq *cqh_bench_get(struct cqh_bench_ctx *b,
				   unsigned int nr, int vec)
{
	struct ib_cq *cq;
	int ret = cqh_bench_going(b);

	if (ret)
		return ERR_PTR(ret);
	cond_resched();
	cq = cqh_cq_source_get(&b->src, nr, vec, NULL);
	/* One CQ per QP has no pool to count them. */
	if (!IS_ERR(cq) && b->a->cq_mode == CQPOOL_CQ_PER_QP) {
		b->cqs++;
		b->cqes += cq->cqe;
	}
	return cq;
}

static void cqh_bench_put(struct cqh_bench_ctx *b, struct ib_cq *cq,
			  unsigned int nr)
{
	if (b->a->cq_mode == CQPOOL_CQ_PER_QP) {
		b->cqs--;
		b->cqes -= cq->cqe;
	}
	cqh_cq_source_put(&b->src, cq, nr, NULL);
}

/* CQs and entries of the pool under test, at this moment. */
static void cqh_bench_sample(struct cqh_bench_ctx *b)
{
	struct cqpool_bench *a = b->a;
	struct cqpool_upstream_stats up;
	struct cqp_pool_stats st;

	a->cqs = 0;
	a->cqes = 0;
	a->reserved_cqes = 0;
	if (a->cq_mode == CQPOOL_CQ_PER_QP) {
		a->cqs = b->cqs;
		a->cqes = b->cqes;
		a->reserved_cqes = (u64)b->cqs * a->nr_cqe;
		return;
	}
	if (a->cq_mode == CQPOOL_CQ_POOL ||
	    a->flags & CQH_BENCH_TAKEN_OVER) {
		cqpool_test_pool_stats(b->src.pool, &st);
		a->cqs = st.cqs;
		a->cqes = st.cqes;
		a->reserved_cqes = st.reserved;
		return;
	}
	cqpool_test_upstream_count(b->dev, a->poll_ctx, &up);
	a->cqs = up.cqs;
	a->cqes = up.cqes;
	a->reserved_cqes = up.used;
}

/*
 * Times @n gets of @nr entries into @cqs, then their puts: one clock pair
 * around the gets and one around the puts.
 */
static int cqh_bench_cycle(struct cqh_bench_ctx *b, struct ib_cq **cqs,
			   unsigned int n, unsigned int nr, bool spread)
{
	struct cqpool_bench *a = b->a;
	unsigned int i, got;
	int ret = 0;
	u64 t;

	if (b->ledger) {
		/* Its calls touch no device: the run stops between batches. */
		ret = cqh_bench_going(b);
		if (ret)
			return ret;
		cond_resched();
		return cqh_bench_ledger_cycle(b->ledger, n, nr, &a->get_ns,
						 &a->put_ns);
	}
	t = ktime_get_ns();
	for (got = 0; got < n; got++) {
		cqs[got] = cqh_bench_get(b, nr, spread ? -1 : got % b->nvec);
		if (IS_ERR(cqs[got])) {
			ret = PTR_ERR(cqs[got]);
			break;
		}
	}
	a->get_ns += ktime_get_ns() - t;
	if (got == n)
		cqh_bench_sample(b);
	t = ktime_get_ns();
	for (i = 0; i < got; i++)
		cqh_bench_put(b, cqs[i], nr);
	a->put_ns += ktime_get_ns() - t;
	return ret;
}

/*
 * Gets per batch: the room made on each vector is at least a prefilled
 * CQ's request less one entry (cqh_bench_getput()), and a batch's gets
 * go round the vectors, so a batch never makes either pool grow.
 */
static unsigned int cqh_bench_batch(const struct cqh_bench_ctx *b)
{
	unsigned int per_vec = (CQH_BENCH_CQ - 1) / b->a->nr_cqe;

	return clamp_t(unsigned int, b->nvec * per_vec, 1, CQH_BENCH_BATCH);
}

static int cqh_bench_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Sorts the @n times in @t and gives their 50th, 90th, 99th and 100th. */
static void cqh_bench_pct(u32 *t, unsigned int n, __u64 *p50, __u64 *p90,
			  __u64 *p99, __u64 *max)
{
	sort(t, n, sizeof(*t), cqh_bench_cmp_u32, NULL);
	*p50 = t[(n - 1) / 2];
	*p90 = t[(u64)(n - 1) * 90 / 100];
	*p99 = t[(u64)(n - 1) * 99 / 100];
	*max = t[n - 1];
}

/* @a's get and put percentiles, of the @n times in @get and in @put. */
static void cqh_bench_pcts(struct cqpool_bench *a, u32 *get, u32 *put,
			   unsigned int n)
{
	cqh_bench_pct(get, n, &a->get_p50_ns, &a->get_p90_ns,
		      &a->get_p99_ns, &a->get_max_ns);
	cqh_bench_pct(put, n, &a->put_p50_ns, &a->put_p90_ns,
		      &a->put_p99_ns, &a->put_max_ns);
}

/*
 * @a->iterations get+put pairs, in batches of cqh_bench_batch(), and
 * the distribution of the batches' time per call.  Its median is what a
 * call costs whatever the host does: a batch the host stopped for a few
 * milliseconds moves the mean of a round by tens of percent, and does
 * not move the median.
 */
static int cqh_bench_batches(struct cqh_bench_ctx *b)
{
	struct cqpool_bench *a = b->a;
	unsigned int i, k, n, iter = a->iterations;
	unsigned int batch = cqh_bench_batch(b);
	unsigned int nb = DIV_ROUND_UP(iter, batch);
	u64 get_ns, put_ns;
	struct ib_cq **cqs;
	u32 *get, *put;
	int ret = 0;

	cqs = kcalloc(CQH_BENCH_BATCH, sizeof(*cqs), GFP_KERNEL);
	get = kvcalloc(nb, sizeof(*get), GFP_KERNEL_ACCOUNT);
	put = kvcalloc(nb, sizeof(*put), GFP_KERNEL_ACCOUNT);
	if (!cqs || !get || !put) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0, k = 0; i < iter && !ret; i += n, k++) {
		n = min(iter - i, batch);
		get_ns = a->get_ns;
		put_ns = a->put_ns;
		ret = cqh_bench_cycle(b, cqs, n, a->nr_cqe, false);
		get[k] = min_t(u64, DIV_ROUND_CLOSEST_ULL(a->get_ns - get_ns, n),
			       U32_MAX);
		put[k] = min_t(u64, DIV_ROUND_CLOSEST_ULL(a->put_ns - put_ns, n),
			       U32_MAX);
	}
	if (!ret)
		cqh_bench_pcts(a, get, put, nb);
out:
	kvfree(put);
	kvfree(get);
	kfree(cqs);
	return ret;
}

/*
 * LATENCY: get+put pairs with a clock pair around each call, on the room
 * cqh_bench_getput() made (one CQ per QP: each get allocates); the
 * distribution of the calls, clock included.
 */
static int cqh_bench_latency(struct cqh_bench_ctx *b)
{
	struct cqpool_bench *a = b->a;
	unsigned int n = a->iterations, i;
	u32 *get, *put;
	struct ib_cq *cq;
	u64 t0, t1, t2;
	int ret = 0;

	get = kvcalloc(n, sizeof(*get), GFP_KERNEL_ACCOUNT);
	put = kvcalloc(n, sizeof(*put), GFP_KERNEL_ACCOUNT);
	if (!get || !put) {
		ret = -ENOMEM;
		goto out;
	}
	cqh_bench_sample(b);
	for (i = 0; i < n; i++) {
		t0 = ktime_get_ns();
		cq = cqh_bench_get(b, a->nr_cqe, i % b->nvec);
		t1 = ktime_get_ns();
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq);
			goto out;
		}
		cqh_bench_put(b, cq, a->nr_cqe);
		t2 = ktime_get_ns();
		get[i] = min_t(u64, t1 - t0, U32_MAX);
		put[i] = min_t(u64, t2 - t1, U32_MAX);
		a->get_ns += t1 - t0;
		a->put_ns += t2 - t1;
	}
	cqh_bench_pcts(a, get, put, n);
out:
	kvfree(put);
	kvfree(get);
	return ret;
}

static int cqh_bench_thread_fn(void *arg)
{
	struct cqh_bench_thread *t = arg;
	struct cqh_bench_ctx *b = t->b;
	unsigned int nr = b->a->nr_cqe, i;
	struct ib_cq *cq;

	wait_for_completion(&b->go);
	for (i = 0; i < t->pairs; i++) {
		cq = cqh_bench_get(b, nr, t->vec);
		if (IS_ERR(cq)) {
			t->ret = PTR_ERR(cq);
			break;
		}
		cqh_bench_put(b, cq, nr);
	}
	/* The last thread to finish reads the clock after every other. */
	if (atomic_dec_and_test(&b->running)) {
		b->end_ns = ktime_get_ns();
		complete(&b->all_done);
	}
	/* Its struct stays until kthread_stop(), which waits for this. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * @a->threads threads share @a->iterations get+put pairs, one pair at a
 * time each, on the room cqh_bench_getput() made; one clock pair
 * around them all.  A thread's pairs are its own vector's, as a ULP's
 * queue keeps to its vector.  Where the threads run is the scheduler's
 * choice: the VM has a CPU for each.
 */
static int cqh_bench_parallel(struct cqh_bench_ctx *b)
{
	struct cqpool_bench *a = b->a;
	struct cqh_bench_thread *th;
	unsigned int i, made;
	int ret = 0;
	u64 t0;

	th = kcalloc(a->threads, sizeof(*th), GFP_KERNEL);
	if (!th)
		return -ENOMEM;
	init_completion(&b->go);
	init_completion(&b->all_done);
	for (made = 0; made < a->threads; made++) {
		th[made].b = b;
		th[made].vec = made % b->nvec;
		th[made].pairs = a->iterations / a->threads +
				 (made < a->iterations % a->threads);
		th[made].task = kthread_create(cqh_bench_thread_fn,
					       &th[made], "cqpool_bench/%u",
					       made);
		if (IS_ERR(th[made].task)) {
			ret = PTR_ERR(th[made].task);
			break;
		}
		wake_up_process(th[made].task);
	}
	/* Set before the start: no thread counts down before it. */
	atomic_set(&b->running, made);
	cqh_bench_sample(b);
	if (ret)
		WRITE_ONCE(b->stop, true);
	t0 = ktime_get_ns();
	complete_all(&b->go);
	if (made && wait_for_completion_killable(&b->all_done)) {
		/* Each thread stops at its next get. */
		WRITE_ONCE(b->stop, true);
		wait_for_completion(&b->all_done);
		ret = -EINTR;
	}
	a->get_ns = made ? b->end_ns - t0 : 0;
	for (i = 0; i < made; i++) {
		kthread_stop(th[i].task);
		if (!ret)
			ret = th[i].ret;
	}
	kfree(th);
	return ret;
}

/*
 * The fill of each vector whose room GET_PUT (the first CQ upstream
 * scans) or CHURN (the last one) frees.  For cqpool, whose pool is new,
 * the newest or the oldest CQ of the vector.
 */
static void cqh_bench_pick(struct cqh_bench_ctx *b,
			   struct cqh_bench_fill *fill,
			      unsigned int *pick)
{
	struct cqpool_bench *a = b->a;
	bool last = a->kind == CQPOOL_BENCH_CHURN;
	unsigned int v, i, n = b->nvec * a->prefill;
	struct ib_cq *cq, **want;

	for (v = 0; v < b->nvec; v++)
		pick[v] = v * a->prefill + (last ? 0 : a->prefill - 1);
	if (b->pool)
		return;
	want = kcalloc(b->nvec, sizeof(*want), GFP_KERNEL);
	if (!want)
		return;
	spin_lock_irq(&b->dev->cq_pools_lock);
	list_for_each_entry(cq, &b->dev->cq_pools[a->poll_ctx], pool_entry) {
		v = cq->comp_vector;
		if (v < b->nvec && (last || !want[v]))
			want[v] = cq;
	}
	spin_unlock_irq(&b->dev->cq_pools_lock);
	for (i = 0; i < n; i++) {
		v = i / a->prefill;
		if (want[v] && fill[i].cq == want[v])
			pick[v] = i;
	}
	kfree(want);
}

/* The timed part of a get+put run, as its kind says. */
static int cqh_bench_timed(struct cqh_bench_ctx *b)
{
	switch (b->a->kind) {
	case CQPOOL_BENCH_PARALLEL:
		return cqh_bench_parallel(b);
	case CQPOOL_BENCH_LATENCY:
		return cqh_bench_latency(b);
	default:
		return cqh_bench_batches(b);
	}
}

/*
 * CQPOOL_BENCH_F_LEDGER: the ledger of the pool as @fill left it, its
 * first @filled CQs made, reserved and in that order.
 */
static int cqh_bench_mirror(struct cqh_bench_ctx *b,
			    const struct cqh_bench_fill *fill,
			       unsigned int filled)
{
	const struct cqh_bench_fill *f;
	unsigned int i, k;
	int ret;

	for (i = 0; i < filled; i++) {
		k = cqh_bench_slot(b, i);
		f = &fill[k];
		ret = cqh_bench_ledger_add(b->ledger, k, i % b->nvec,
					   f->cq->cqe) ?:
		      cqh_bench_ledger_reserve(b->ledger, k, f->nr);
		if (!ret && f->top) {
			ret = cqh_bench_ledger_reserve(b->ledger, k, f->top);
			if (ret)
				cqh_bench_ledger_release(b->ledger, k, f->nr);
		}
		if (ret)
			break;
	}
	if (!ret) {
		cqh_bench_sample(b);
		return 0;
	}
	/* Back to no reservation, for cqh_bench_ledger_exit(). */
	while (i--) {
		k = cqh_bench_slot(b, i);
		cqh_bench_ledger_release(b->ledger, k, fill[k].nr);
		if (fill[k].top)
			cqh_bench_ledger_release(b->ledger, k, fill[k].top);
	}
	return ret;
}

/*
 * Gives back a reservation of @nr on @f's CQ, the run's @i-th, and, if
 * @mirrored, the same on the ledger.
 */
static void cqh_bench_unfill(struct cqh_bench_ctx *b,
			     const struct cqh_bench_fill *f,
				unsigned int i, unsigned int nr, bool mirrored)
{
	cqh_bench_put(b, f->cq, nr);
	if (mirrored)
		cqh_bench_ledger_release(b->ledger, i, nr);
}

/*
 * Fills @prefill CQs of each vector to their real size, then frees room
 * in one CQ per vector (see cqh_bench_pick()) and times get+put
 * pairs of @nr_cqe, which all land in the room that was made: in
 * batches, from PARALLEL's threads, or one call at a time (LATENCY).  One
 * CQ per QP has no pool to fill: it times ib_alloc_cq() and ib_free_cq().
 */
static int cqh_bench_getput(struct cqh_bench_ctx *b)
{
	struct cqpool_bench *a = b->a;
	unsigned int n = b->nvec * a->prefill, i, k, v, filled, top;
	struct cqh_bench_fill *fill, *f;
	unsigned int *pick;
	struct ib_cq *cq;
	bool mirrored;
	int ret = 0;

	if (a->cq_mode == CQPOOL_CQ_PER_QP)
		return cqh_bench_timed(b);
	fill = kvcalloc(n, sizeof(*fill), GFP_KERNEL_ACCOUNT);
	pick = kcalloc(b->nvec, sizeof(*pick), GFP_KERNEL_ACCOUNT);
	if (!fill || !pick) {
		ret = -ENOMEM;
		goto out;
	}
	for (filled = 0; filled < n; filled++) {
		v = filled % b->nvec;
		f = &fill[cqh_bench_slot(b, filled)];
		cq = cqh_bench_get(b, CQH_BENCH_CQ, v);
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq);
			break;
		}
		f->cq = cq;
		f->nr = CQH_BENCH_CQ;
		/*
		 * The rest of its real size: every other CQ of the vector
		 * is full, so this lands on the same CQ in both pools.
		 */
		top = cq->cqe > CQH_BENCH_CQ ? cq->cqe - CQH_BENCH_CQ : 0;
		if (!top)
			continue;
		cq = cqh_bench_get(b, top, v);
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq);
			filled++;
			break;
		}
		if (cq != f->cq) {
			cqh_bench_put(b, cq, top);
			ret = -EAGAIN;
			filled++;
			break;
		}
		f->top = top;
	}
	if (!ret && b->ledger)
		ret = cqh_bench_mirror(b, fill, filled);
	mirrored = !ret && b->ledger;
	if (!ret) {
		cqh_bench_pick(b, fill, pick);
		/*
		 * The room: the second get of the picked CQ.  Its first one
		 * stays, as a live pool's CQ has other users, so the timed
		 * puts do not leave it idle each time.
		 */
		for (v = 0; v < b->nvec; v++) {
			f = &fill[pick[v]];
			if (f->top) {
				cqh_bench_unfill(b, f, pick[v], f->top,
						 mirrored);
				f->top = 0;
			} else {
				cqh_bench_unfill(b, f, pick[v], f->nr,
						 mirrored);
				f->cq = NULL;
			}
		}
		ret = cqh_bench_timed(b);
	}
	for (i = 0; i < filled; i++) {
		k = cqh_bench_slot(b, i);
		f = &fill[k];
		if (!f->cq)
			continue;
		cqh_bench_unfill(b, f, k, f->nr, mirrored);
		if (f->top)
			cqh_bench_unfill(b, f, k, f->top, mirrored);
	}
out:
	kfree(pick);
	kvfree(fill);
	return ret;
}

static int cqh_bench_storm(struct cqh_bench_ctx *b)
{
	struct ib_cq **cqs;
	int ret;

	cqs = kvcalloc(b->a->iterations, sizeof(*cqs), GFP_KERNEL_ACCOUNT);
	if (!cqs)
		return -ENOMEM;
	ret = cqh_bench_cycle(b, cqs, b->a->iterations, b->a->nr_cqe, true);
	kvfree(cqs);
	return ret;
}

/*
 * Grows a CQ of @nr_cqe in place to twice its real size plus one, as a
 * pool's vector grows its first CQ, and allocates a second CQ of @nr_cqe
 * instead, which adds as many entries: @iterations of each, the first of
 * the two alternating, so that neither always finds the other's memory
 * just freed.
 */
#ifdef CQPOOL_HAVE_KERNEL_RESIZE
/* GROWTH's second CQ, its allocation timed into @put_ns. */
static struct ib_cq *cqh_bench_second_cq(struct cqh_bench_ctx *b)
{
	struct cqpool_bench *a = b->a;
	struct ib_cq *cq;
	u64 t = ktime_get_ns();

	cq = ib_alloc_cq(b->dev, NULL, a->nr_cqe, 0, a->poll_ctx);
	a->put_ns += ktime_get_ns() - t;
	return cq;
}

static int cqh_bench_growth(struct cqh_bench_ctx *b)
{
	struct cqpool_bench *a = b->a;
	struct ib_cq *cq, *second;
	unsigned int i, grown;
	int ret = 0;
	u64 t;

	if (!b->dev->ops.resize_cq)
		return -EOPNOTSUPP;
	for (i = 0; i < a->iterations && !ret; i++) {
		ret = cqh_bench_going(b);
		if (ret)
			return ret;
		cq = ib_alloc_cq(b->dev, NULL, a->nr_cqe, 0, a->poll_ctx);
		if (IS_ERR(cq))
			return PTR_ERR(cq);
		grown = 2 * cq->cqe + 1;
		if (grown > b->dev->attrs.max_cqe) {
			ib_free_cq(cq);
			return -EINVAL;
		}
		if (i & 1)
			second = cqh_bench_second_cq(b);
		t = ktime_get_ns();
		ret = ib_resize_cq(cq, grown);
		a->get_ns += ktime_get_ns() - t;
		if (!(i & 1))
			second = cqh_bench_second_cq(b);
		if (IS_ERR(second)) {
			ret = ret ?: PTR_ERR(second);
		} else {
			a->cqs = 2;
			a->cqes = cq->cqe;
			a->reserved_cqes = second->cqe;
			ib_free_cq(second);
		}
		ib_free_cq(cq);
	}
	return ret;
}
#else
/* No kernel-side resize to time: the kernel made CQ resize user-space's. */
static int cqh_bench_growth(struct cqh_bench_ctx *b)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * The most CQ entries a run holds at once: its prefill's CQs on every
 * vector, or a storm's reservations.  Upstream's pool keeps its CQs as
 * long as the device lives, so this bounds what a run leaves behind too.
 * A PARALLEL run's threads must find room on their vectors (at least a
 * prefilled CQ's request less one entry, cqh_bench_getput()), or the
 * run would time the pools' growth.
 */
static bool cqh_bench_fits(const struct cqpool_bench *a, unsigned int nvec)
{
	u64 cqes = a->kind == CQPOOL_BENCH_STORM ?
		(u64)a->iterations * a->nr_cqe :
		(u64)nvec * a->prefill * CQH_BENCH_CQ;

	if (a->kind == CQPOOL_BENCH_PARALLEL &&
	    DIV_ROUND_UP(a->threads, nvec) * a->nr_cqe > CQH_BENCH_CQ - 1)
		return false;
	return cqes <= CQPOOL_BENCH_MAX_CQES;
}

static bool cqh_bench_valid(const struct cqpool_bench *a)
{
	bool growth = a->kind == CQPOOL_BENCH_GROWTH;
	u32 most = a->kind == CQPOOL_BENCH_STORM ? CQPOOL_MAX_FD_OBJECTS :
		   growth ? CQPOOL_BENCH_GROWTH_ITER : CQH_BENCH_MAX_ITER;
	u32 largest = growth ? CQPOOL_BENCH_GROWTH_MAX : CQH_BENCH_CQ / 2;
	bool parallel = a->kind == CQPOOL_BENCH_PARALLEL;

	switch (a->flags) {
	case 0:
		break;
	case CQPOOL_BENCH_F_SHARED:
	case CQPOOL_BENCH_F_NO_RESIZE:
	case CQPOOL_BENCH_F_RESIZE:
		/* Only a storm chooses its pool: get/put need fixed CQs. */
		if (a->kind != CQPOOL_BENCH_STORM ||
		    a->cq_mode != CQPOOL_CQ_POOL)
			return false;
		break;
	case CQPOOL_BENCH_F_TAKEOVER:
	case CQPOOL_BENCH_F_TAKEOVER_DIRECT:
		if (a->cq_mode != CQPOOL_CQ_UPSTREAM)
			return false;
		break;
	case CQPOOL_BENCH_F_LEDGER:
		/* The batches alone: the ledger's calls touch no device. */
		if ((a->kind != CQPOOL_BENCH_GET_PUT &&
		     a->kind != CQPOOL_BENCH_CHURN) ||
		    a->cq_mode != CQPOOL_CQ_POOL)
			return false;
		break;
	default:
		return false;
	}
	/* Threads are PARALLEL's alone, and share a pool. */
	if (parallel != !!a->threads ||
	    a->threads > CQPOOL_BENCH_MAX_THREADS ||
	    (a->threads && a->cq_mode == CQPOOL_CQ_PER_QP))
		return false;
	/* GROWTH times the verbs alone: no pool, no prefill. */
	if (growth && a->cq_mode != CQPOOL_CQ_PER_QP)
		return false;
	return a->kind <= CQPOOL_BENCH_GROWTH &&
	       a->cq_mode <= CQPOOL_CQ_PER_QP &&
	       a->poll_ctx <= CQPOOL_POLL_UNBOUND_WORKQUEUE &&
	       memchr(a->device, 0, CQPOOL_NAME_LEN) && !a->pad &&
	       a->nr_cqe && a->nr_cqe <= largest &&
	       a->iterations && a->iterations <= most &&
	       (a->kind == CQPOOL_BENCH_STORM || growth ? !a->prefill :
		a->prefill && a->prefill <= CQH_BENCH_MAX_PREFILL);
}

/*
 * The device is going: the run stops at its next get and puts back what
 * it holds.  Upstream frees its pool's CQs once every client is removed,
 * so this waits (a bounded time) for those puts.
 */
static void cqh_bench_removal(struct cqpool_event_handler *h,
			      const struct ib_event *event)
{
	struct cqh_bench_ctx *b = container_of(h, struct cqh_bench_ctx,
						  removal);

	WRITE_ONCE(b->stop, true);
	if (!wait_for_completion_timeout(&b->done,
					 msecs_to_jiffies(CQH_BENCH_STOP_MS)))
		dev_warn(&b->dev->dev, "cqpool: a benchmark did not stop in %u ms\n",
			 CQH_BENCH_STOP_MS);
}

/**
 * cqh_bench_run() - CQPOOL_IOC_BENCH
 * @s: the session; a benchmark keeps nothing in it
 * @arg: struct cqpool_bench
 *
 * CQPOOL_CQ_POOL runs on a pool made for the run and destroyed after it:
 * of fixed CQH_BENCH_CQ CQs for GET_PUT and CHURN, sized to demand
 * for STORM (growing its CQs in place with CQPOOL_BENCH_F_RESIZE); a
 * STORM with CQPOOL_BENCH_F_SHARED runs on the device's shared pool of
 * @poll_ctx instead, warm within the idle timeout.
 * CQPOOL_CQ_UPSTREAM runs on the device's own pool, whose CQs upstream
 * keeps; they count in the next upstream run.  With
 * CQPOOL_BENCH_F_TAKEOVER the same calls go through cqpool_takeover.ko to
 * the device's shared cqpool pool of @poll_ctx; with
 * CQPOOL_BENCH_F_TAKEOVER_DIRECT the takeover's functions are called
 * without the livepatch.  With CQPOOL_BENCH_F_LEDGER a GET_PUT or CHURN
 * on cqpool times its pool ledger's calls alone (bench_ledger.c).
 * CQPOOL_CQ_PER_QP allocates and frees one CQ of @nr_cqe per get.
 * PARALLEL runs GET_PUT from @threads kernel threads at once, LATENCY
 * times each of its calls alone.  GROWTH times the device's resize
 * against a second CQ, for no pool.
 *
 * Context: process context.
 * Return: 0, -EINVAL for bad arguments, -ENODEV for an unknown device,
 * -ENOENT for CQPOOL_BENCH_F_TAKEOVER or _DIRECT without the takeover,
 * -EOPNOTSUPP for one without completion vectors (GROWTH and
 * CQPOOL_BENCH_F_RESIZE: without kernel-side resize), -ENOSPC for a run
 * that would hold more than CQPOOL_BENCH_MAX_CQES entries or whose
 * threads the room on a vector would not hold, -EINTR when
 * the caller is killed, or what a get said.
 */
int cqh_bench_run(struct cqh_session *s, void *arg)
{
	struct cqpool_bench *a = arg;
	struct cqpool_attr attr = {
		.poll_ctx = a->poll_ctx,
		.name = "bench",
	};
	struct cqh_bench_ctx b = { .a = a };
	int ret;

	if (!cqh_bench_valid(a))
		return -EINVAL;
	b.dev = ib_device_get_by_name(a->device, RDMA_DRIVER_UNKNOWN);
	if (!b.dev)
		return -ENODEV;
	init_completion(&b.done);
	b.removal.device = b.dev;
	b.removal.event_mask = BIT_ULL(IB_EVENT_DEVICE_FATAL);
	b.removal.handler = cqh_bench_removal;
	ret = cqpool_register_event_handler(&b.removal);
	if (ret)
		goto out_put;
	/* As both pools count them. */
	b.nvec = min_t(unsigned int, b.dev->num_comp_vectors,
		       num_online_cpus());
	/* Upstream's pool divides by the vectors: nothing to compare with. */
	if (!b.nvec) {
		ret = -EOPNOTSUPP;
		goto out_unhold;
	}
	if (!cqh_bench_fits(a, b.nvec)) {
		ret = -ENOSPC;
		goto out_unhold;
	}
	if (a->cq_mode == CQPOOL_CQ_POOL && !(a->flags & CQPOOL_BENCH_F_SHARED)) {
		if (a->kind != CQPOOL_BENCH_STORM)
			attr.cq_size = CQH_BENCH_CQ;
		else if (a->flags & CQPOOL_BENCH_F_RESIZE)
			attr.flags = CQPOOL_F_RESIZE;
		/* make bench counts the resizes of the pools so named apart. */
		if (attr.flags & CQPOOL_F_RESIZE)
			attr.name = "bench-resize";
		b.pool = cqpool_create(b.dev, &attr);
		if (IS_ERR(b.pool)) {
			ret = PTR_ERR(b.pool);
			b.pool = NULL;
			goto out_unhold;
		}
	}
	if (a->flags & CQPOOL_BENCH_F_LEDGER) {
		ret = -ENOMEM;
		b.ledger = kzalloc(sizeof(*b.ledger), GFP_KERNEL);
		if (!b.ledger ||
		    cqh_bench_ledger_init(b.ledger, b.nvec,
					  b.dev->attrs.max_cqe, attr.cq_size,
					     b.nvec * a->prefill))
			goto out_pool;
	}
	if (a->flags & CQH_BENCH_TAKEN_OVER)
		ret = cqh_cq_source_init_takeover(&b.src, b.dev, a->poll_ctx,
						  a->flags &
						     CQPOOL_BENCH_F_TAKEOVER_DIRECT);
	else
		ret = cqh_cq_source_init(&b.src, a->cq_mode, b.dev, b.pool,
					 a->poll_ctx);
	if (!ret) {
		a->get_ns = 0;
		a->put_ns = 0;
		if (a->kind == CQPOOL_BENCH_STORM)
			ret = cqh_bench_storm(&b);
		else if (a->kind == CQPOOL_BENCH_GROWTH)
			ret = cqh_bench_growth(&b);
		else
			ret = cqh_bench_getput(&b);
		cqh_cq_source_exit(&b.src);
	}
	if (b.ledger)
		cqh_bench_ledger_exit(b.ledger);
out_pool:
	kfree(b.ledger);
	if (b.pool)
		WARN_ON(cqpool_destroy(b.pool));
out_unhold:
	/* Before the unregister, which waits for a removal waiting for this. */
	complete(&b.done);
	cqpool_unregister_event_handler(&b.removal);
out_put:
	ib_device_put(b.dev);
	return ret;
}
