/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kselftests that drive real in-tree ULPs share: commands and
 * files with bounded waits, the takeover livepatch, a null_blk backing
 * device, data checks on a remote block device, and NVMe-oF (nvmet-rdma
 * exporting null_blk, nvme-rdma connecting to it) on rxe0's address.
 */
#ifndef CQPOOL_SELFTEST_ULP_H
#define CQPOOL_SELFTEST_ULP_H

#include <stddef.h>

#define ULP_ADDR	"10.99.0.1"
#define KLP		"/sys/kernel/livepatch/cqpool_takeover"
#define TK_RES		"/sys/module/cqpool_takeover/parameters/reservations"
#define TK_UNPATCH_PUTS	"/sys/module/cqpool_takeover/parameters/unpatch_puts"
#define TK_UPSTREAM_GETS "/sys/module/cqpool_takeover/parameters/upstream_gets"
#define CQPOOL_EXCLUDE	"/sys/module/cqpool/parameters/exclude"
/* The cumulative livepatch of the payload, and where it shows. */
#define KLP_CUMULATIVE	"/sys/kernel/livepatch/cqpool_cumulative_test"
/* What io_check() writes and reads back. */
#define ULP_IO_MB	4
#define NVME_NQN	"cqpool-nvmeof-test"
#define NVME_NULLB	"nullb_nvmeof"
#define NVME_BACKING	"/dev/" NVME_NULLB

struct cq_count {
	unsigned long long cqs, cqes;
};

/* CQs and entries `rdma res show cq` lists for rxe0, under [@comm] or all. */
int rdma_cqs(const char *comm, struct cq_count *c);

/* Runs a shell command line, output discarded: its exit status, or -1. */
int sh(const char *fmt, ...);
/*
 * The same in a child of its own process group that is given @seconds:
 * -1 when it did not finish by then.  A task stuck in the kernel ignores
 * the SIGKILL it then gets; it is left behind, the caller goes on.
 */
int sh_bounded(unsigned int seconds, const char *fmt, ...);
/* @fn(@arg) in a child given @seconds: its status 0..255, or -1 as above. */
int call_bounded(int (*fn)(void *), void *arg, unsigned int seconds);
/*
 * Waits up to @ms for child @pid: its exit status, 128 + signal if it
 * was killed, or -1 if it is still running.
 */
int wait_child(int pid, unsigned int ms);

long read_long(const char *path);
/* The first line of @path without its newline: 0, or -1. */
int read_line(const char *path, char *buf, size_t len);
/* Polls @path until it reads @want (or, with @want < 0, is gone). */
int wait_file(const char *path, long want, int seconds);
int mkdir_write(const char *dir, const char *file, const char *val);
/* Loads module @name (or finds it built in): 0, or -1 if it has none. */
int load(const char *name, const char *params);
/*
 * Loads each module of the NULL-terminated @mods, "NAME [PARAMS]": NULL,
 * or "kernel without NAME" for the first that the kernel lacks.
 */
const char *modules_missing(const char *const *mods);
/* Polls until rxe0's port is ACTIVE (a new link is DOWN for a moment). */
int rxe_active(void);
/* rxe0 deleted and added back, ACTIVE: ib_core's pools of it are gone. */
int rxe_reset(void);

/* What the takeover needs that this kernel or payload lacks, or NULL. */
const char *takeover_missing(void);
const char *takeover_ko(void);
/* A cumulative livepatch that knows nothing of the takeover (takeover/). */
const char *cumulative_ko(void);
/*
 * Loads the payload's cqpool.ko and cqpool_harness.ko (which the VM's
 * payload script loaded first), whichever of them is not loaded.
 */
int cqpool_load(void);
/* cqpool.ko with module parameters, "name=value ...", and the harness. */
int cqpool_load_params(const char *params);
/* Unloads both, the harness first: 0, or -1 if cqpool.ko stayed. */
int cqpool_unload(void);
/* Loads cqpool_takeover.ko and waits for the patch transition to end. */
int takeover_load(void);
/* Disables the livepatch and waits for the unpatch to be complete. */
int takeover_disable(void);
/* Disables and removes the takeover; 0 once it is gone. */
int takeover_unload(void);

/* Mounts configfs if it is not: NULL, or what is missing. */
const char *configfs_missing(void);
/* A memory-backed null_blk device /dev/@name of @mb MiB, from configfs. */
int nullb_up(const char *name, unsigned int mb);
void nullb_down(const char *name);
/*
 * Writes ULP_IO_MB of random data to @dev, reads it back, and, unless
 * @backing is NULL, reads it from the target's backing device too, all
 * with O_DIRECT: 0 when every copy is identical.
 */
int io_check(const char *dev, const char *backing);

/* What NVMe-oF over RDMA needs that this kernel lacks, or NULL. */
const char *nvme_missing(void);
/* nvmet exporting 64 MiB of null_blk as namespace 1 on ULP_ADDR:4420. */
int nvme_target_up(void);
/*
 * Takes it down: 0, or -1 if rxe0 could not be reset first or lockdep
 * has now seen an RDMA-CM handler_mutex taken under nvmet_config_sem
 * (see ulp.c).
 */
int nvme_target_down(void);
/* Connects through /dev/nvme-fabrics: the controller's instance, or -1. */
int nvme_connect(void);
/* Asks for the controller's deletion, without waiting for it. */
int nvme_delete(int instance);
/* Deletes the controller and waits (30 s) until it is gone. */
int nvme_disconnect(int *instance);
/*
 * The block device of controller @instance's namespace (its multipath
 * head where the kernel has native multipath): 0, or -1.
 */
int nvme_namespace(int instance, char *dev, size_t len);

#endif
