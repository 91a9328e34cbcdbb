/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The storage ULPs the kselftests drive, behind one interface: a target
 * on rxe0's address, an initiator's connection to it, and their
 * teardown (storage.c).
 */
#ifndef CQPOOL_SELFTEST_STORAGE_H
#define CQPOOL_SELFTEST_STORAGE_H

#include <stddef.h>

/* One initiator's connection: an NVMe instance, SCSI host or session. */
struct conn {
	int id;
	int host;
	char dev[64];
};

struct ulp {
	const char *name;
	/* Loads the modules; what the kernel or VM lacks, or NULL. */
	const char *(*missing)(void);
	int (*target_up)(void);
	/* 0, or -1 where it left a lock order that lockdep reports */
	int (*target_down)(void);
	int (*connect)(struct conn *c);
	/* 0 once the initiator dropped what the removal took from it. */
	int (*released)(const struct conn *c);
	/* 0 once nothing is left of the connection, whatever its state. */
	int (*disconnect)(struct conn *c);
	/* The target's backing device, read back by io_check(). */
	const char *backing;
	/* Stops what the initiator started (iscsid), or NULL. */
	void (*stop)(void);
};

extern const struct ulp nvme_ulp, srp_ulp, iser_ulp;

/* Polls until @path is gone: 0, or -1 after @seconds. */
int wait_gone(const char *path, int seconds);

#endif
