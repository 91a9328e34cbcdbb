// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: cqpool's trace events, read back from tracefs, against what
 * the test did and what debugfs says: the mixed workload's gets and puts
 * balance with the reservations held, every CQ allocated is freed after
 * the idle timeout, an injected DEVICE_FATAL reaches on each CQ exactly
 * the hooks attached to it; with keep_idle_cqs=1 the pool keeps one CQ
 * past the timeout and says so; and one NVMe-oF connection through the
 * takeover gets and puts its queues' CQs, all given back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "ulp.h"

#define TRACEFS		"/sys/kernel/tracing"
#define INJECT		"/sys/kernel/debug/cqpool/inject"
#define IDLE_MS		200
#define WORKLOAD	1024
/* Per CPU: the workload leaves about 3000 events of under 200 bytes. */
#define BUFFER_KB	"4096"
#define MAX_CQS		512

/* What the events of the trace buffer say. */
struct tally {
	long gets, puts, allocs, frees, resizes, keeps;
	long tk_gets, tk_failed, tk_puts_cqpool, tk_puts_other;
	/* By the CQ's restrack id: allocated, freed, DEVICE_FATALs heard. */
	int ids[MAX_CQS];
	int alloc[MAX_CQS], freed[MAX_CQS], fatal[MAX_CQS], kept[MAX_CQS];
	long kept_idle_ms[MAX_CQS];
	long delivered[MAX_CQS];
	int nr;
	long device_fatal_delivered;
	long remove_starts, remove_users, remove_finishes;
	bool lost;
};

static int tracefs_write(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	return write_file(path, val);
}

/*
 * An empty buffer, every cqpool event on; -1 if there is no tracefs.
 *
 * Without record-cmd: with it, the first event enabled and the last one
 * disabled register and unregister probes on the scheduler's tracepoints,
 * which rewrites the text of __schedule() while the other CPU may run it
 * with interrupts off.  Under TCG that once left the 6.1 guest's CPU 0
 * stuck at the patched call in __schedule() and CPU 1 in text_poke_bp()
 * waiting for it, for good (an RCU stall, 1 boot in 6 of this test
 * after takeover_cycle_test).  The test reads no task's name.
 */
static int trace_start(void)
{
	if (access(TRACEFS "/events", F_OK) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return -1;
	if (tracefs_write("events/cqpool/enable", "0") ||
	    tracefs_write("options/record-cmd", "0") ||
	    tracefs_write("buffer_size_kb", BUFFER_KB) ||
	    tracefs_write("trace", "") ||
	    tracefs_write("events/cqpool/enable", "1"))
		return -1;
	return tracefs_write("tracing_on", "1");
}

static void trace_stop(void)
{
	tracefs_write("events/cqpool/enable", "0");
	tracefs_write("trace", "");
	/* The default back, with no event on: nothing is rewritten. */
	tracefs_write("options/record-cmd", "1");
}

/* The value of " name=" in @line, or -1. */
static long field(const char *line, const char *name)
{
	char key[32];
	const char *at;

	snprintf(key, sizeof(key), " %s=", name);
	at = strstr(line, key);
	return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

static int slot(struct tally *t, int id)
{
	int i;

	for (i = 0; i < t->nr; i++)
		if (t->ids[i] == id)
			return i;
	if (t->nr == MAX_CQS)
		return -1;
	t->ids[t->nr] = id;
	return t->nr++;
}

/* Reads the whole buffer into @t; -1 if it cannot, or lost events. */
static int trace_read(struct tally *t)
{
	char line[512];
	FILE *f;
	int s;

	memset(t, 0, sizeof(*t));
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* The header counts what the ring buffer dropped. */
		if (!strncmp(line, "# entries-in-buffer/entries-written:", 36)) {
			long in, written;

			if (sscanf(line + 36, " %ld/%ld", &in, &written) == 2 &&
			    in != written)
				t->lost = true;
			continue;
		}
		if (strstr(line, " cqpool_get: ")) {
			t->gets++;
		} else if (strstr(line, " cqpool_put: ")) {
			t->puts++;
		} else if (strstr(line, " cqpool_cq_alloc: ")) {
			t->allocs++;
			s = slot(t, field(line, "cq"));
			if (s >= 0)
				t->alloc[s]++;
		} else if (strstr(line, " cqpool_cq_free: ")) {
			t->frees++;
			s = slot(t, field(line, "cq"));
			if (s >= 0)
				t->freed[s]++;
		} else if (strstr(line, " cqpool_cq_keep: ")) {
			t->keeps++;
			s = slot(t, field(line, "cq"));
			if (s >= 0) {
				t->kept[s]++;
				t->kept_idle_ms[s] = field(line, "idle_ms");
			}
		} else if (strstr(line, " cqpool_cq_resize: ")) {
			t->resizes++;
		} else if (strstr(line, " cqpool_cq_event: ") &&
			   strstr(line, " event=DEVICE_FATAL ")) {
			s = slot(t, field(line, "cq"));
			if (s >= 0) {
				t->fatal[s]++;
				t->delivered[s] += field(line, "delivered");
			}
		} else if (strstr(line, " cqpool_device_event: ") &&
			   strstr(line, " event=DEVICE_FATAL ")) {
			t->device_fatal_delivered += field(line, "delivered");
		} else if (strstr(line, " cqpool_remove_start: device=rxe0 ")) {
			t->remove_starts++;
			t->remove_users += field(line, "users");
		} else if (strstr(line, " cqpool_remove_finish: device=rxe0 ")) {
			t->remove_finishes++;
		} else if (strstr(line, " cqpool_takeover_get: ")) {
			if (field(line, "err"))
				t->tk_failed++;
			else
				t->tk_gets++;
		} else if (strstr(line, " cqpool_takeover_put: ")) {
			if (strstr(line, " whose=cqpool"))
				t->tk_puts_cqpool++;
			else
				t->tk_puts_other++;
		}
	}
	fclose(f);
	return t->lost ? -1 : 0;
}

/* Every CQ allocated was freed once, and nothing else was freed. */
static void expect_all_freed(struct __test_metadata *_metadata,
			     const struct tally *t)
{
	int i;

	EXPECT_LT(0, t->allocs);
	EXPECT_EQ(t->allocs, t->frees);
	for (i = 0; i < t->nr; i++)
		EXPECT_EQ(t->alloc[i], t->freed[i])
			TH_LOG("CQ %d: allocated %d times, freed %d", t->ids[i],
			       t->alloc[i], t->freed[i]);
}

FIXTURE(trace) {
	int fd;
	bool traced, target, takeover, reloaded;
	int instance;
};

FIXTURE_SETUP(trace)
{
	self->fd = -1;
	self->instance = -1;
	ASSERT_EQ(0, pools_quiesce(IDLE_MS))
		TH_LOG("reservations or CQs left over from before");
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, trace_start()) TH_LOG("no tracefs, or no cqpool events");
	self->traced = true;
}

FIXTURE_TEARDOWN(trace)
{
	if (self->traced)
		trace_stop();
	if (self->instance >= 0)
		EXPECT_EQ(0, nvme_delete(self->instance));
	if (self->takeover)
		EXPECT_EQ(0, takeover_unload());
	if (self->target) {
		EXPECT_EQ(0, nvme_target_down());
		/* Fails, harmlessly, where they are built in. */
		sh("rmmod nvme-rdma nvmet-rdma nvmet null_blk");
	}
	if (self->fd >= 0)
		close(self->fd);
	/* Back to the default, keep_idle_cqs=0, for what runs next. */
	if (self->reloaded && !cqpool_unload())
		cqpool_load();
	write_file(INJECTION, "0");
	set_idle_timeout(30000);
}

/*
 * The mixed workload's sizes, every fourth reservation with a hook, then
 * an injected DEVICE_FATAL, then every reservation put back.
 */
TEST_F(trace, workload_gets_puts_cqs_and_fanout_add_up)
{
	static const unsigned int sizes[] = { 33, 129, 385, 1025, 65, 257 };
	static struct cqpool_cq_get g[WORKLOAD];
	static struct tally t;
	int hooks[MAX_CQS] = {}, ids[MAX_CQS], nr = 0;
	struct totals tot;
	int i, j, watch_id;
	struct cqpool_events_watch w = { .size = sizeof(w) };

	strcpy(w.device, "rxe0");
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_EVENTS_WATCH, &w));
	watch_id = w.id;
	for (i = 0; i < WORKLOAD; i++) {
		unsigned int flags = i % 4 ? 0 : CQPOOL_CQ_GET_HOOK;

		ASSERT_EQ(0, shared_get_flags(self->fd, sizes[i % 6], -1,
					      flags, &g[i]))
			TH_LOG("get %d: %s", i, strerror(errno));
		for (j = 0; j < nr && ids[j] != (int)g[i].cq_id; j++)
			;
		ASSERT_GT(MAX_CQS, j);
		if (j == nr)
			ids[nr++] = g[i].cq_id;
		hooks[j] += !!flags;
	}

	ASSERT_EQ(0, read_totals(&tot));
	ASSERT_EQ(0, trace_read(&t)) TH_LOG("events lost: a bigger buffer?");
	EXPECT_EQ(WORKLOAD, (long)tot.users);
	EXPECT_EQ(WORKLOAD, t.gets);
	EXPECT_EQ((long)tot.users, t.gets - t.puts);
	EXPECT_EQ((long)tot.cqs, t.allocs);

	/* Each CQ hears it once, and calls exactly the hooks on it. */
	ASSERT_EQ(0, write_file(INJECTION, "1"));
	ASSERT_EQ(0, write_file(INJECT, "rxe0 device_fatal"));
	ASSERT_EQ(0, trace_read(&t));
	EXPECT_EQ(1, t.device_fatal_delivered) TH_LOG("the one watch");
	for (j = 0; j < nr; j++) {
		int s = slot(&t, ids[j]);

		ASSERT_LE(0, s);
		EXPECT_EQ(1, t.fatal[s]) TH_LOG("CQ %d", ids[j]);
		EXPECT_EQ(hooks[j], t.delivered[s])
			TH_LOG("CQ %d has %d hooks", ids[j], hooks[j]);
	}

	for (i = 0; i < WORKLOAD / 2; i++)
		ASSERT_EQ(0, put(self->fd, g[i].id));
	ASSERT_EQ(0, read_totals(&tot));
	ASSERT_EQ(0, trace_read(&t));
	EXPECT_EQ(WORKLOAD / 2, (long)tot.users);
	EXPECT_EQ((long)tot.users, t.gets - t.puts);

	for (; i < WORKLOAD; i++)
		ASSERT_EQ(0, put(self->fd, g[i].id));
	EXPECT_EQ(0, unwatch(self->fd, watch_id));
	ASSERT_EQ(0, wait_no_cqs()) TH_LOG("CQs kept after the idle timeout");
	ASSERT_EQ(0, trace_read(&t));
	EXPECT_EQ(t.gets, t.puts);
	expect_all_freed(_metadata, &t);
	ksft_print_msg("%ld gets, %ld puts, %ld CQs allocated, %ld resized, %ld freed\n",
		       t.gets, t.puts, t.allocs, t.resizes, t.frees);
	/* A device's shared pool grows by new CQs: it never resizes one. */
	EXPECT_EQ(0, t.resizes);
	EXPECT_LT(1, t.allocs) TH_LOG("the workload should grow the pool");
}

/*
 * rxe0 removed with a reservation out: the removal starts with it, and
 * finishes once the session has given it back, which it does on its own.
 */
TEST_F(trace, removal_starts_with_the_reservation_out_and_finishes)
{
	static struct tally t;
	struct cqpool_cq_get g;
	int s;

	ASSERT_EQ(0, shared_get_flags(self->fd, 16, -1, CQPOOL_CQ_GET_HOOK,
				      &g));
	ASSERT_LE(0, rxe_delete_timed(30))
		TH_LOG("rdma link delete did not return in 30 s");
	ASSERT_EQ(0, trace_read(&t));
	EXPECT_EQ(1, t.remove_starts);
	EXPECT_EQ(1, t.remove_users);
	EXPECT_EQ(1, t.remove_finishes);
	s = slot(&t, g.cq_id);
	ASSERT_LE(0, s);
	EXPECT_EQ(1, t.fatal[s]);
	EXPECT_EQ(1, t.delivered[s]);
	EXPECT_EQ(t.gets, t.puts);
	EXPECT_EQ(0, put(self->fd, g.id));
	ASSERT_EQ(0, rxe_add());
	EXPECT_EQ(0, wait_device_listed("rxe0", 1));
}

/*
 * keep_idle_cqs=1: the mixed workload put back leaves its pool the one
 * CQ it keeps, and frees every other.  A reap that finds the kept CQ idle
 * past the timeout says so: the one after a last get and put on it.
 */
TEST_F(trace, keep_idle_cqs_keeps_one_cq_and_says_so)
{
	static const unsigned int sizes[] = { 33, 129, 385, 1025, 65, 257 };
	static struct cqpool_cq_get g[WORKLOAD];
	static struct tally t;
	struct totals tot;
	int i, s, left = -1;

	close(self->fd);
	self->fd = -1;
	self->reloaded = true;
	ASSERT_EQ(0, cqpool_unload());
	ASSERT_EQ(0, cqpool_load_params("keep_idle_cqs=1"));
	ASSERT_EQ(0, set_idle_timeout(IDLE_MS));
	/* The new module's events are new: enabled afresh. */
	ASSERT_EQ(0, trace_start());
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);

	for (i = 0; i < WORKLOAD; i++)
		ASSERT_EQ(0, shared_get_flags(self->fd, sizes[i % 6], -1, 0,
					      &g[i]));
	for (i = 0; i < WORKLOAD; i++)
		ASSERT_EQ(0, put(self->fd, g[i].id));
	ASSERT_EQ(0, wait_cqs_at_most(1)) TH_LOG("more CQs than the one kept");
	ASSERT_EQ(0, read_totals(&tot));
	ASSERT_EQ(1, (long)tot.cqs) TH_LOG("not the one CQ kept");
	ASSERT_EQ(0, shared_get_flags(self->fd, sizes[0], -1, 0, &g[0]));
	ASSERT_EQ(0, put(self->fd, g[0].id));
	usleep(3 * IDLE_MS * 1000);

	ASSERT_EQ(0, read_totals(&tot));
	ASSERT_EQ(0, trace_read(&t));
	EXPECT_EQ(1, (long)tot.cqs);
	EXPECT_EQ(t.gets, t.puts);
	EXPECT_EQ(t.allocs - 1, t.frees);
	for (s = 0; s < t.nr; s++)
		if (t.alloc[s] && !t.freed[s]) {
			EXPECT_EQ(-1, left) TH_LOG("CQs %d and %d both left",
						   t.ids[left], t.ids[s]);
			left = s;
		}
	ASSERT_LE(0, left);
	EXPECT_LE(1, t.kept[left]) TH_LOG("CQ %d kept, never said", t.ids[left]);
	EXPECT_LE(IDLE_MS, t.kept_idle_ms[left]);
	ksft_print_msg("%ld CQs allocated, %ld freed, CQ %d kept (%ld keep events)\n",
		       t.allocs, t.frees, t.ids[left], t.keeps);
}

/* nvme-rdma and nvmet-rdma's queues through the takeover, and back. */
TEST_F(trace, nvmeof_through_the_takeover_puts_back_every_get)
{
	const char *missing = takeover_missing();
	static struct tally t;
	struct totals tot;
	long res;

	if (!missing)
		missing = nvme_missing();
	if (missing)
		SKIP(return, "%s", missing);
	self->target = true;
	ASSERT_EQ(0, nvme_target_up()) TH_LOG("nvmet configfs setup failed");
	ASSERT_EQ(0, takeover_load());
	self->takeover = true;
	ASSERT_EQ(0, trace_start());

	self->instance = nvme_connect();
	ASSERT_LE(0, self->instance) TH_LOG("connect failed");
	res = read_long(TK_RES);
	ASSERT_EQ(0, read_totals(&tot));
	ASSERT_EQ(0, trace_read(&t));
	EXPECT_LT(0, res);
	EXPECT_EQ(res, t.tk_gets - t.tk_puts_cqpool);
	EXPECT_EQ(0, t.tk_failed);
	EXPECT_EQ((long)tot.users, t.gets - t.puts);

	EXPECT_EQ(0, nvme_disconnect(&self->instance));
	/* A target releases its queues from a work item, a little later. */
	EXPECT_EQ(0, wait_file(TK_RES, 0, 10));
	EXPECT_EQ(0, wait_no_cqs()) TH_LOG("CQs kept after the idle timeout");
	ASSERT_EQ(0, trace_read(&t));
	EXPECT_EQ(t.tk_gets, t.tk_puts_cqpool);
	EXPECT_EQ(0, t.tk_puts_other);
	EXPECT_EQ(t.gets, t.puts);
	expect_all_freed(_metadata, &t);
	ksft_print_msg("takeover: %ld gets, %ld puts; cqpool: %ld CQs allocated and freed\n",
		       t.tk_gets, t.tk_puts_cqpool, t.allocs);
}

TEST_HARNESS_MAIN
