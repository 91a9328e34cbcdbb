/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the cqpool kselftests share: debugfs and module parameters, and
 * short forms of the /dev/cqpool pool ioctls on rxe0.
 */
#ifndef CQPOOL_SELFTEST_LIB_H
#define CQPOOL_SELFTEST_LIB_H

#include <linux/cqpool.h>
#include <sys/types.h>

#define TOTALS		"/sys/kernel/debug/cqpool/totals"
#define DEVICES		"/sys/kernel/debug/cqpool/devices"
#define IDLE_TIMEOUT	"/sys/module/cqpool/parameters/idle_timeout_ms"
#define INJECTION	"/sys/module/cqpool/parameters/event_injection"

struct totals {
	unsigned long long cqs, idle_cqs, cqes, reserved, users, pools, broken;
};

/* 0 with @t filled, -1 if unreadable or a pool's ledger is broken. */
int read_totals(struct totals *t);
int write_file(const char *path, const char *val);
int set_idle_timeout(unsigned int ms);
/* Waits (5 s at most) until at most @n CQs are left: 0, or -1. */
int wait_cqs_at_most(unsigned long long n);
/* Waits until no CQ is left: the idle timeout has done its work. */
int wait_no_cqs(void);
/*
 * Sets the idle timeout, then waits for every CQ to go: 0 when no
 * reservation and no CQ is left, the state each test starts from.
 */
int pools_quiesce(unsigned int idle_timeout_ms);
/* 1 when debugfs lists device @name, 0 when not, -1 when unreadable. */
int device_listed(const char *name);
/* Polls until debugfs does (@want 1) or does not (0) list @name. */
int wait_device_listed(const char *name, int want);
/* `rdma link add rxe0` again, on the netdev the VM runner made it on. */
int rxe_add(void);
/* A reservation on rxe0's shared softirq pool, on vector @hint. */
int shared_get_on(int fd, unsigned int nr, int hint, struct cqpool_cq_get *g);
/* The same with more CQPOOL_CQ_GET_* @flags (CQPOOL_CQ_GET_HOOK). */
int shared_get_flags(int fd, unsigned int nr, int hint, unsigned int flags,
		     struct cqpool_cq_get *g);
/* The same on the least-loaded vector. */
int shared_get(int fd, unsigned int nr, struct cqpool_cq_get *g);
int put(int fd, unsigned int id);
int pool_destroy(int fd, unsigned int id);
int unwatch(int fd, unsigned int id);
int conn_destroy(int fd, unsigned int id);
/*
 * `rdma link delete rxe0` in a child, which inherits no O_CLOEXEC file
 * descriptor, so it holds nothing the removal waits for.
 */
pid_t rxe_delete_start(void);
/*
 * Waits for that child to succeed and rxe0 to leave debugfs, then adds
 * rxe0 back and waits for it: 0 when all of that worked.
 */
int rxe_delete_finish(pid_t pid);
/* The same for a device cqpool serves (@served 1) or must not list (0). */
int rxe_delete_finish_served(pid_t pid, int served);
/*
 * `rdma link delete rxe0`, given @seconds to return: how long it took in
 * ms, or -1 if it failed or did not return in time (the child is then
 * left behind, stuck in the kernel).
 */
long rxe_delete_timed(int seconds);
/* Attributes of an owned pool on rxe0. */
void pool_attr(struct cqpool_pool_create *c);
/*
 * Attributes of a connection looped back on @dev with CQs of @mode:
 * depth 16 both ways, 4096-byte messages.
 */
void conn_attr(struct cqpool_conn_create *c, const char *dev,
	       unsigned int mode);

/*
 * Every /dev/cqpool command, by number: its struct's name and size, and
 * where its reserved words start (they run to the struct's end).
 */
struct cmd_info {
	unsigned int nr;
	const char *type;
	unsigned int size;
	unsigned int reserved;
	unsigned int dir;	/* _IOC_WRITE, with _IOC_READ if it has output */
};

#define NR_CMDS		14
extern const struct cmd_info cmds[NR_CMDS];

#endif
