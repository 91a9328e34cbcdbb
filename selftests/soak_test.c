// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: the soak (make soak, scripts/soak.sh).  For
 * CQPOOL_SOAK_SECONDS (1800 by default), at random: NVMe-oF controllers
 * and an iSER session connect and go, fio writes and verifies through
 * them, the takeover is disabled (and unloaded once its reservations are
 * back) and loaded again, the caches are dropped (cqpool's shrinker), and
 * rxe0 is removed and added back under whatever is connected.  The time
 * is cut in CQPOOL_SOAK_CHECKPOINTS intervals (8 by default), and each
 * interval does every action at least once.
 *
 * At the end of each interval everything is torn down to idle and
 * sampled: cqpool's totals, rxe0's CQs, the kmalloc caches of
 * /proc/slabinfo and the modules' reference counts, each a line
 * "soak sample {json}" (scripts/cqcheck/soak.py reads them).  The test
 * asserts what must hold at every checkpoint (cqpool holds nothing) and
 * at the end, where the state is the start's (no target, no takeover,
 * rxe0 new): every count back where it started.  Growth from the first
 * quarter to the last is judged on the host, from the samples.
 *
 * The start is sampled after a warm-up that does every action once, at
 * the most connections the soak has at a time, and then goes back to
 * the start's state.  The kernel keeps what a first use allocates: the
 * nvme and iSCSI transports' first controller, session and host, the
 * IDAs and xarrays that grow to the connections' count, the workqueues
 * of a target's first port.  Sampled before any of that, the start is
 * below every later idle state by it, and a leak would not be told
 * from it.  The "boot" sample, before the warm-up, keeps its size.
 *
 * It runs in a guest with the host's userland (fio, open-iscsi).
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "storage.h"
#include "ulp.h"

#define SOAK_SECONDS		1800
#define SOAK_CHECKPOINTS	8
#define SOAK_NVME		3
#define SOAK_IDLE_MS		2000
#define FIO			"/usr/bin/fio"
#define DROP_CACHES		"/proc/sys/vm/drop_caches"
#define SLAB_DEBUGFS		"/sys/kernel/debug/slab"

/* What the modules' reference counts are sampled of. */
static const char *const soak_modules[] = {
	"cqpool", "cqpool_takeover", "ib_core", "rdma_cm", "rdma_rxe",
	"nvme_rdma", "nvmet_rdma", "ib_iser", "ib_isert",
};

enum soak_takeover { TK_ON, TK_DISABLED, TK_OFF };

struct soak_counts {
	unsigned long nvme, iser, disconnects, fio, takeover_cycles, drops,
		      removals;
};

/* What the soak has made, and how much it did. */
struct soak {
	const char *missing;
	struct conn nvme[SOAK_NVME], iser;
	bool nvme_up[SOAK_NVME], iser_up, targets;
	enum soak_takeover tk;
	struct soak_counts n;
	struct timespec t0;
	unsigned int seed, samples;
	unsigned long long objs, bytes;	/* the last sample's kmalloc caches */
};

FIXTURE(soak) {
	struct soak s;
};

static long soak_seconds(void)
{
	const char *env = getenv("CQPOOL_SOAK_SECONDS");

	return env ? atol(env) : SOAK_SECONDS;
}

/* Idle checkpoints: the host compares the first quarter's to the last's. */
static int soak_checkpoints(void)
{
	const char *env = getenv("CQPOOL_SOAK_CHECKPOINTS");

	return env ? atoi(env) : SOAK_CHECKPOINTS;
}

static double soak_elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - t0->tv_sec + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * The kmalloc caches' objects in use and their bytes, from slabinfo,
 * each cache shrunk first: its per-CPU slabs flushed, and what KASAN's
 * quarantine holds of it freed, which slabinfo would count as in use.
 * Each cache's objects as well, as JSON members ("kmalloc-64": N, ...)
 * into @caches, @len bytes, to name the caches a difference is in.
 */
static int kmalloc_in_use(unsigned long long *objs, unsigned long long *bytes,
			  char *caches, size_t len)
{
	unsigned long long active, total, size;
	char line[512], name[64];
	size_t at = 0;
	glob_t g;
	size_t i;
	FILE *f;

	if (!glob("/sys/kernel/slab/kmalloc-*/shrink", 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			write_file(g.gl_pathv[i], "1");
		globfree(&g);
	}
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	*objs = *bytes = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu %llu %llu", name, &active, &total,
			   &size) != 4 || strncmp(name, "kmalloc-", 8))
			continue;
		*objs += active;
		*bytes += active * size;
		if (at < len)
			at += snprintf(caches + at, len - at, "%s\"%s\": %llu",
				       at ? ", " : "", name, active);
	}
	fclose(f);
	return at >= len ? -1 : 0;
}

/* A module's reference count; -1 when it is not loaded. */
static long module_refs(const char *mod)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", mod);
	return access(path, F_OK) ? -1 : read_long(path);
}

/*
 * With CQPOOL_SOAK_SITES set (a directory: soak.sh -u boots with
 * slub_debug=U on the kmalloc caches), each kmalloc cache's allocation
 * sites with their stacks as well, into N-KIND-CACHE there, to name the
 * code that holds a difference between two samples (cqcheck soak-sites).
 * Copied after the counts are read, so that the copy's own 9p traffic
 * is not in them.
 */
static void soak_sites(unsigned int n, const char *kind)
{
	const char *dir = getenv("CQPOOL_SOAK_SITES");

	if (dir && *dir)
		sh("for c in %s/kmalloc-*; do cp $c/alloc_traces %s/%u-%s-${c##*/}; done",
		   SLAB_DEBUGFS, dir, n, kind);
}

/*
 * One sample, printed as "soak sample {json}", its kmalloc figures kept
 * in @s: 0, or -1.
 */
static int soak_sample(struct soak *s, const char *kind)
{
	unsigned long long objs, bytes;
	struct cq_count cqs;
	char caches[8192];
	struct totals t;
	unsigned int i;

	if (read_totals(&t) || rdma_cqs(NULL, &cqs) ||
	    kmalloc_in_use(&objs, &bytes, caches, sizeof(caches)))
		return -1;
	s->objs = objs;
	s->bytes = bytes;
	soak_sites(s->samples, kind);
	printf("soak sample {\"n\": %u, \"kind\": \"%s\", \"t\": %.1f, ",
	       s->samples++, kind, soak_elapsed(&s->t0));
	printf("\"caches\": {%s}, ", caches);
	printf("\"cqpool\": {\"cqs\": %llu, \"cqes\": %llu, ", t.cqs, t.cqes);
	printf("\"reserved\": %llu, \"users\": %llu, \"pools\": %llu}, ",
	       t.reserved, t.users, t.pools);
	printf("\"rxe0_cqs\": %llu, \"rxe0_cqes\": %llu, ", cqs.cqs, cqs.cqes);
	printf("\"kmalloc_objs\": %llu, \"kmalloc_bytes\": %llu, ", objs, bytes);
	printf("\"counts\": {\"nvme\": %lu, \"iser\": %lu, \"disconnects\": %lu, ",
	       s->n.nvme, s->n.iser, s->n.disconnects);
	printf("\"fio\": %lu, \"takeover_cycles\": %lu, \"drops\": %lu, ",
	       s->n.fio, s->n.takeover_cycles, s->n.drops);
	printf("\"removals\": %lu}, ", s->n.removals);
	printf("\"refs\": {");
	for (i = 0; i < ARRAY_SIZE(soak_modules); i++)
		printf("%s\"%s\": %ld", i ? ", " : "", soak_modules[i],
		       module_refs(soak_modules[i]));
	printf("}}\n");
	return 0;
}

static int soak_targets_up(struct soak *s)
{
	s->targets = true;
	return nvme_ulp.target_up() || iser_ulp.target_up() ? -1 : 0;
}

static int soak_targets_down(struct soak *s)
{
	int ret = nvme_ulp.target_down() | iser_ulp.target_down();

	s->targets = false;
	return ret ? -1 : 0;
}

/* Every connection gone, whatever its state: 0, or -1. */
static int soak_disconnect_all(struct soak *s)
{
	int i, ret = 0;

	for (i = 0; i < SOAK_NVME; i++) {
		if (s->nvme_up[i])
			ret |= nvme_ulp.disconnect(&s->nvme[i]);
		s->nvme_up[i] = false;
	}
	if (s->iser_up)
		ret |= iser_ulp.disconnect(&s->iser);
	s->iser_up = false;
	return ret ? -1 : 0;
}

/* The takeover loaded and on, from whatever state. */
static int soak_takeover_on(struct soak *s)
{
	if (s->tk == TK_DISABLED &&
	    (wait_file(TK_RES, 0, 30) || takeover_unload()))
		return -1;
	if (s->tk != TK_ON && takeover_load())
		return -1;
	s->tk = TK_ON;
	return 0;
}

/* The takeover gone, from whatever state: its reservations back first. */
static int soak_takeover_off(struct soak *s)
{
	if (s->tk == TK_ON && takeover_disable())
		return -1;
	s->tk = TK_DISABLED;
	if (wait_file(TK_RES, 0, 30) || takeover_unload())
		return -1;
	s->tk = TK_OFF;
	return 0;
}

FIXTURE_SETUP(soak)
{
	const char *seed = getenv("CQPOOL_SOAK_SEED");
	struct soak *s = &self->s;

	setvbuf(stdout, NULL, _IOLBF, 0);
	s->seed = seed ? strtoul(seed, NULL, 0) : (unsigned int)time(NULL);
	s->tk = TK_OFF;
	s->missing = takeover_missing();
	if (!s->missing)
		s->missing = nvme_ulp.missing();
	if (!s->missing)
		s->missing = iser_ulp.missing();
	if (s->missing)
		return;
	/* A soak without fio or its time is no soak: fail, not skip. */
	ASSERT_EQ(0, access(FIO, X_OK)) TH_LOG("no %s in the guest", FIO);
	ASSERT_LT(0, soak_seconds());
	ASSERT_LE(4, soak_checkpoints()) TH_LOG("quarters need 4 checkpoints");
	ASSERT_EQ(0, pools_quiesce(SOAK_IDLE_MS));
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
}

FIXTURE_TEARDOWN(soak)
{
	struct soak *s = &self->s;

	if (s->missing)
		return;
	soak_disconnect_all(s);
	if (s->tk != TK_OFF)
		soak_takeover_off(s);
	if (s->targets)
		soak_targets_down(s);
	if (iser_ulp.stop)
		iser_ulp.stop();
}

/* A controller connects in a free slot; fio then writes through it. */
static int soak_nvme_connect(struct soak *s, int slot)
{
	if (nvme_ulp.connect(&s->nvme[slot]))
		return -1;
	s->nvme_up[slot] = true;
	s->n.nvme++;
	return 0;
}

static int soak_iser_connect(struct soak *s)
{
	if (iser_ulp.connect(&s->iser))
		return -1;
	s->iser_up = true;
	s->n.iser++;
	return 0;
}

/*
 * fio writes 4 MiB at random through @dev and verifies it: 0, or -1 with
 * its report on stderr.
 */
static int soak_fio(struct soak *s, const char *dev)
{
	s->n.fio++;
	if (!sh_bounded(300, FIO " --name=soak --filename=%s %s %s %s", dev,
			"--ioengine=libaio --direct=1 --rw=randwrite --bs=4k",
			"--iodepth=16 --size=4m --verify=crc32c --verify_fatal=1",
			"--output=/tmp/soak-fio.log"))
		return 0;
	sh("cat /tmp/soak-fio.log >&2");
	return -1;
}

/*
 * rxe0 removed under whatever is connected, and added back: each
 * initiator lets go, cqpool holds nothing, and the targets come back up
 * on the new rxe0.
 */
static int soak_removal(struct __test_metadata *_metadata,
			struct soak *s)
{
	pid_t pid = rxe_delete_start();
	struct totals t;
	int i;

	if (pid <= 0 || wait_child(pid, 60000)) {
		TH_LOG("rdma link delete rxe0 failed or did not return in 60 s");
		return -1;
	}
	s->n.removals++;
	for (i = 0; i < SOAK_NVME; i++) {
		if (s->nvme_up[i] && nvme_ulp.released(&s->nvme[i])) {
			TH_LOG("nvme%d kept the removed rxe0", s->nvme[i].id);
			return -1;
		}
	}
	if (s->iser_up && iser_ulp.released(&s->iser)) {
		TH_LOG("the iSER session kept the removed rxe0");
		return -1;
	}
	if (read_totals(&t) || t.users || t.reserved) {
		TH_LOG("cqpool holds %llu reservations after the removal", t.users);
		return -1;
	}
	if (soak_disconnect_all(s) || rxe_add() || rxe_active() ||
	    wait_device_listed("rxe0", 1)) {
		TH_LOG("rxe0 did not come back");
		return -1;
	}
	/* The targets' objects on the old rxe0 went with it. */
	if (soak_targets_down(s) || soak_targets_up(s)) {
		TH_LOG("the targets did not come back on the new rxe0");
		return -1;
	}
	return 0;
}

/* Steps the takeover: on, disabled, unloaded, on again. */
static int soak_takeover_step(struct soak *s)
{
	switch (s->tk) {
	case TK_ON:
		s->n.takeover_cycles++;
		if (takeover_disable())
			return -1;
		s->tk = TK_DISABLED;
		return 0;
	case TK_DISABLED:
		/* Unloadable once its reservations are back (disconnects). */
		if (read_long(TK_RES) || takeover_unload())
			return 0;
		s->tk = TK_OFF;
		return 0;
	case TK_OFF:
		if (takeover_load())
			return -1;
		s->tk = TK_ON;
		return 0;
	}
	return -1;
}

/* A random connection: NVMe slot 0.. or SOAK_NVME for iSER; -1 if none. */
static int soak_pick_connected(struct soak *s)
{
	int up[SOAK_NVME + 1], n = 0, i;

	for (i = 0; i < SOAK_NVME; i++)
		if (s->nvme_up[i])
			up[n++] = i;
	if (s->iser_up)
		up[n++] = SOAK_NVME;
	return n ? up[rand_r(&s->seed) % n] : -1;
}

/* Connection @c (as soak_pick_connected() names them) goes. */
static int soak_disconnect(struct __test_metadata *_metadata,
			   struct soak *s, int c)
{
	s->n.disconnects++;
	if (c < SOAK_NVME) {
		s->nvme_up[c] = false;
		if (nvme_ulp.disconnect(&s->nvme[c])) {
			TH_LOG("an NVMe-oF disconnect failed");
			return -1;
		}
		return 0;
	}
	s->iser_up = false;
	if (iser_ulp.disconnect(&s->iser)) {
		TH_LOG("the iSER logout failed");
		return -1;
	}
	return 0;
}

/* What the soak does, one at a time. */
enum soak_action {
	SOAK_NVME_CONNECT, SOAK_ISER_LOGIN, SOAK_FIO, SOAK_DISCONNECT,
	SOAK_TAKEOVER, SOAK_DROP, SOAK_REMOVAL, SOAK_NR_ACTIONS
};

/* How often each is picked, in percent: I/O and churn most. */
static const unsigned int soak_weights[SOAK_NR_ACTIONS] = {
	[SOAK_NVME_CONNECT] = 15, [SOAK_ISER_LOGIN] = 8, [SOAK_FIO] = 25,
	[SOAK_DISCONNECT] = 25, [SOAK_TAKEOVER] = 12, [SOAK_DROP] = 10,
	[SOAK_REMOVAL] = 5,
};

static enum soak_action soak_pick(struct soak *s)
{
	unsigned int roll = rand_r(&s->seed) % 100, a;

	for (a = 0; a < SOAK_NR_ACTIONS - 1; a++) {
		if (roll < soak_weights[a])
			break;
		roll -= soak_weights[a];
	}
	return a;
}

/* Does @a, making room or a connection first where it needs one. */
static int soak_do(struct __test_metadata *_metadata,
		   struct soak *s, enum soak_action a)
{
	int i, c;

	switch (a) {
	case SOAK_NVME_CONNECT:
		i = 0;
		while (i < SOAK_NVME && s->nvme_up[i])
			i++;
		if (i == SOAK_NVME) {
			i = rand_r(&s->seed) % SOAK_NVME;
			if (soak_disconnect(_metadata, s, i))
				return -1;
		}
		if (soak_nvme_connect(s, i)) {
			TH_LOG("an NVMe-oF connect failed");
			return -1;
		}
		return 0;
	case SOAK_ISER_LOGIN:
		if (s->iser_up && soak_disconnect(_metadata, s, SOAK_NVME))
			return -1;
		if (soak_iser_connect(s)) {
			TH_LOG("the iSER login failed");
			return -1;
		}
		return 0;
	case SOAK_FIO:
		c = soak_pick_connected(s);
		if (c < 0) {
			if (soak_do(_metadata, s, SOAK_NVME_CONNECT))
				return -1;
			c = soak_pick_connected(s);
		}
		if (soak_fio(s, c < SOAK_NVME ? s->nvme[c].dev :
			     s->iser.dev)) {
			TH_LOG("fio failed on %s", c < SOAK_NVME ?
			       s->nvme[c].dev : s->iser.dev);
			return -1;
		}
		return 0;
	case SOAK_DISCONNECT:
		c = soak_pick_connected(s);
		return c < 0 ? 0 : soak_disconnect(_metadata, s, c);
	case SOAK_TAKEOVER:
		if (soak_takeover_step(s)) {
			TH_LOG("a takeover step failed");
			return -1;
		}
		return 0;
	case SOAK_DROP:
		s->n.drops++;
		if (write_file(DROP_CACHES, "3")) {
			TH_LOG("drop_caches failed");
			return -1;
		}
		return 0;
	case SOAK_REMOVAL:
		return soak_removal(_metadata, s);
	default:
		return -1;
	}
}

/*
 * Random actions until @until seconds into the soak, then each action
 * the interval did not pick, so that every interval has them all.
 */
static int soak_interval(struct __test_metadata *_metadata,
			 struct soak *s, double until)
{
	bool done[SOAK_NR_ACTIONS] = { false };
	enum soak_action a;

	while (soak_elapsed(&s->t0) < until) {
		a = soak_pick(s);
		if (soak_do(_metadata, s, a))
			return -1;
		done[a] = true;
	}
	for (a = 0; a < SOAK_NR_ACTIONS; a++)
		if (!done[a] && soak_do(_metadata, s, a))
			return -1;
	return 0;
}

/*
 * Everything torn down to idle, with the takeover on and the targets
 * made again, then sampled: cqpool holds nothing once its idle timeout
 * has passed.  The targets are new so that each checkpoint is the same
 * state: their memory-backed null_blk disks keep what fio wrote to them,
 * up to fio's 4 MiB, 1024 pages, each a kmalloc-16 object besides.
 */
static int soak_checkpoint(struct __test_metadata *_metadata,
			   struct soak *s)
{
	struct totals t;

	if (soak_disconnect_all(s) || soak_takeover_on(s) ||
	    wait_file(TK_RES, 0, 30) || soak_targets_down(s) ||
	    soak_targets_up(s)) {
		TH_LOG("teardown to idle failed");
		return -1;
	}
	if (pools_quiesce(SOAK_IDLE_MS) || read_totals(&t) || t.cqs ||
	    t.users || t.reserved) {
		TH_LOG("cqpool holds %llu CQs, %llu reservations at idle",
		       t.cqs, t.users);
		return -1;
	}
	/* The same caches in every sample: what reclaim can free, freed. */
	write_file(DROP_CACHES, "3");
	return soak_sample(s, "idle");
}

/* Back to the start's state: no connection, target or takeover, rxe0 new. */
static int soak_to_start(struct soak *s)
{
	if (soak_disconnect_all(s) || soak_takeover_off(s) ||
	    soak_targets_down(s) || rxe_reset() || pools_quiesce(SOAK_IDLE_MS))
		return -1;
	write_file(DROP_CACHES, "3");
	return 0;
}

/*
 * Every action once, with every connection up at the same time where it
 * can be, then back to the start's state (see the top of the file).
 */
static int soak_warm_up(struct __test_metadata *_metadata,
			struct soak *s)
{
	int i;

	if (soak_targets_up(s) || soak_takeover_on(s))
		return -1;
	for (i = 0; i < SOAK_NVME; i++)
		if (soak_nvme_connect(s, i) || soak_fio(s, s->nvme[i].dev))
			return -1;
	if (soak_iser_connect(s) || soak_fio(s, s->iser.dev) ||
	    soak_do(_metadata, s, SOAK_REMOVAL))
		return -1;
	for (i = 0; i < SOAK_NVME; i++)
		if (soak_nvme_connect(s, i))
			return -1;
	/* Disabled with reservations out, unloaded once they are back. */
	if (soak_do(_metadata, s, SOAK_TAKEOVER) || soak_disconnect_all(s) ||
	    soak_takeover_on(s) || soak_do(_metadata, s, SOAK_DROP))
		return -1;
	return soak_to_start(s);
}

TEST_F_TIMEOUT(soak, connections_takeover_pressure_removal, 14400)
{
	struct soak *s = &self->s;
	const long seconds = soak_seconds();
	const int checkpoints = soak_checkpoints();
	struct totals t;
	long refs[ARRAY_SIZE(soak_modules)];
	unsigned long long objs0, bytes0;
	struct cq_count cqs0, cqs;
	unsigned int i;
	int cp;

	if (s->missing)
		SKIP(return, "%s", s->missing);
	ksft_print_msg("soak: %ld s, seed %u\n", seconds, s->seed);

	/* The start: rxe0 new, no target, no takeover, caches dropped. */
	ASSERT_EQ(0, rxe_reset());
	ASSERT_EQ(0, pools_quiesce(SOAK_IDLE_MS));
	write_file(DROP_CACHES, "3");
	ASSERT_EQ(0, soak_sample(s, "boot"));
	ASSERT_EQ(0, soak_warm_up(_metadata, s)) TH_LOG("the warm-up failed");
	ksft_print_msg("soak: warm-up done in %.0f s\n", soak_elapsed(&s->t0));
	/* The soak's own counts and time, from here. */
	memset(&s->n, 0, sizeof(s->n));
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	ASSERT_EQ(0, rdma_cqs(NULL, &cqs0));
	for (i = 0; i < ARRAY_SIZE(soak_modules); i++)
		refs[i] = module_refs(soak_modules[i]);
	ASSERT_EQ(0, soak_sample(s, "start"));
	objs0 = s->objs;
	bytes0 = s->bytes;

	ASSERT_EQ(0, soak_targets_up(s));
	ASSERT_EQ(0, soak_takeover_on(s));
	for (cp = 1; cp <= checkpoints; cp++) {
		ASSERT_EQ(0, soak_interval(_metadata, s,
					   (double)seconds * cp / checkpoints));
		ASSERT_EQ(0, soak_checkpoint(_metadata, s));
	}

	/* The end, as the start. */
	ASSERT_EQ(0, soak_to_start(s));
	ASSERT_EQ(0, soak_sample(s, "end"));
	ASSERT_EQ(0, read_totals(&t));
	EXPECT_EQ(0, t.cqs + t.cqes + t.reserved + t.users + t.pools);
	ASSERT_EQ(0, rdma_cqs(NULL, &cqs));
	EXPECT_EQ(cqs0.cqs, cqs.cqs);
	EXPECT_EQ(cqs0.cqes, cqs.cqes);
	for (i = 0; i < ARRAY_SIZE(soak_modules); i++) {
		const char *mod = soak_modules[i];

		EXPECT_EQ(refs[i], module_refs(mod))
			TH_LOG("%s's references", mod ? mod : "?");
	}
	ksft_print_msg("soak: %lu NVMe-oF connects, %lu iSER logins, %s\n",
		       s->n.nvme, s->n.iser, "and their teardowns");
	ksft_print_msg("soak: %lu disconnects, %lu fio runs\n",
		       s->n.disconnects, s->n.fio);
	ksft_print_msg("soak: %lu takeover disables, %lu cache drops, %lu removals of rxe0\n",
		       s->n.takeover_cycles, s->n.drops,
		       s->n.removals);
	ksft_print_msg("soak: kmalloc %llu objects, %llu KiB at the start\n",
		       objs0, bytes0 >> 10);
	ksft_print_msg("soak: kmalloc %llu objects, %llu KiB at the end\n",
		       s->objs, s->bytes >> 10);
}

TEST_HARNESS_MAIN
