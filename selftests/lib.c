// SPDX-License-Identifier: GPL-2.0
/* What the cqpool kselftests share; see lib.h. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int read_totals(struct totals *t)
{
	const struct {
		const char *key;
		unsigned long long *val;
	} fields[] = {
		{ "cqs", &t->cqs }, { "idle_cqs", &t->idle_cqs },
		{ "cqes", &t->cqes }, { "reserved", &t->reserved },
		{ "users", &t->users }, { "pools", &t->pools },
		{ "broken_pools", &t->broken },
	};
	unsigned long long val;
	unsigned int i, seen = 0;
	FILE *f = fopen(TOTALS, "r");
	char key[64];

	if (!f)
		return -1;
	while (fscanf(f, "%63s %llu", key, &val) == 2)
		for (i = 0; i < ARRAY_SIZE(fields); i++)
			if (!strcmp(key, fields[i].key)) {
				*fields[i].val = val;
				seen++;
			}
	fclose(f);
	/* A ledger that fails its own invariants fails every caller. */
	return seen == ARRAY_SIZE(fields) && !t->broken ? 0 : -1;
}

int write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(val, f) < 0 ? -1 : 0;
	return fclose(f) ? -1 : ret;
}

int set_idle_timeout(unsigned int ms)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", ms);
	return write_file(IDLE_TIMEOUT, buf);
}

int wait_cqs_at_most(unsigned long long n)
{
	struct totals t;
	int i;

	for (i = 0; i < 100; i++) {
		if (!read_totals(&t) && t.cqs <= n)
			return 0;
		usleep(50 * 1000);
	}
	return -1;
}

int wait_no_cqs(void)
{
	return wait_cqs_at_most(0);
}

int device_listed(const char *name)
{
	char line[256], first[64];
	FILE *f = fopen(DEVICES, "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s", first) == 1 && !strcmp(first, name))
			found = 1;
	fclose(f);
	return found;
}

int shared_get_flags(int fd, unsigned int nr, int hint, unsigned int flags,
		     struct cqpool_cq_get *g)
{
	memset(g, 0, sizeof(*g));
	g->size = sizeof(*g);
	g->flags = CQPOOL_CQ_GET_SHARED | flags;
	g->poll_ctx = CQPOOL_POLL_SOFTIRQ;
	strcpy(g->device, "rxe0");
	g->nr_cqe = nr;
	g->vector_hint = hint;
	return ioctl(fd, CQPOOL_IOC_CQ_GET, g);
}

int shared_get_on(int fd, unsigned int nr, int hint, struct cqpool_cq_get *g)
{
	return shared_get_flags(fd, nr, hint, 0, g);
}

int shared_get(int fd, unsigned int nr, struct cqpool_cq_get *g)
{
	return shared_get_on(fd, nr, -1, g);
}

int put(int fd, unsigned int id)
{
	struct cqpool_destroy d = { .size = sizeof(d), .id = id };

	return ioctl(fd, CQPOOL_IOC_CQ_PUT, &d);
}

int pool_destroy(int fd, unsigned int id)
{
	struct cqpool_destroy d = { .size = sizeof(d), .id = id };

	return ioctl(fd, CQPOOL_IOC_POOL_DESTROY, &d);
}

int unwatch(int fd, unsigned int id)
{
	struct cqpool_destroy d = { .size = sizeof(d), .id = id };

	return ioctl(fd, CQPOOL_IOC_EVENTS_UNWATCH, &d);
}

int conn_destroy(int fd, unsigned int id)
{
	struct cqpool_destroy d = { .size = sizeof(d), .id = id };

	return ioctl(fd, CQPOOL_IOC_CONN_DESTROY, &d);
}

void pool_attr(struct cqpool_pool_create *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	strcpy(c->device, "rxe0");
	strcpy(c->name, "selftest");
	c->poll_ctx = CQPOOL_POLL_WORKQUEUE;
}

int wait_device_listed(const char *name, int want)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (device_listed(name) == want)
			return 0;
		usleep(50 * 1000);
	}
	return -1;
}

int rxe_add(void)
{
	const char *netdev = getenv("CQPOOL_RXE_NETDEV");
	char cmd[128];

	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/rdma link add rxe0 type rxe netdev %s",
		 netdev ? netdev : "v0");
	return system(cmd);
}

int pools_quiesce(unsigned int idle_timeout_ms)
{
	struct totals t;

	if (set_idle_timeout(idle_timeout_ms) || wait_no_cqs() ||
	    read_totals(&t))
		return -1;
	return t.users ? -1 : 0;
}

pid_t rxe_delete_start(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl("/usr/bin/rdma", "rdma", "link", "delete", "rxe0", NULL);
		_exit(127);
	}
	return pid;
}

long rxe_delete_timed(int seconds)
{
	struct timespec t0, t;
	pid_t pid = rxe_delete_start();
	int status;
	long ms;

	if (pid <= 0 || clock_gettime(CLOCK_MONOTONIC, &t0))
		return -1;
	for (;;) {
		pid_t done = waitpid(pid, &status, WNOHANG);

		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 +
			(t.tv_nsec - t0.tv_nsec) / 1000000;
		if (done == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ?
				ms : -1;
		if (done < 0 || ms > seconds * 1000L)
			return -1;
		usleep(10 * 1000);
	}
}

int rxe_delete_finish_served(pid_t pid, int served)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	if (wait_device_listed("rxe0", 0) || rxe_add())
		return -1;
	/* cqpool's client is added before rdma link add returns. */
	return served ? wait_device_listed("rxe0", 1) :
		device_listed("rxe0") ? -1 : 0;
}

int rxe_delete_finish(pid_t pid)
{
	return rxe_delete_finish_served(pid, 1);
}

void conn_attr(struct cqpool_conn_create *c, const char *dev,
	       unsigned int mode)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	strncpy(c->device, dev, sizeof(c->device) - 1);
	c->cq_mode = mode;
	c->poll_ctx = CQPOOL_POLL_SOFTIRQ;
	c->send_depth = 16;
	c->recv_depth = 16;
	c->vector_hint = -1;
	c->msg_size = 4096;
}

/*
 * In number order: cmds[nr].nr == nr.  A command without output is _IOW
 * (W), one that writes its argument back _IOWR (RW).
 */
#define W	_IOC_WRITE
#define RW	(_IOC_READ | _IOC_WRITE)
#define CMD(nr, type, dir) { nr, #type, sizeof(struct type), \
			     offsetof(struct type, reserved), dir }

const struct cmd_info cmds[NR_CMDS] = {
	CMD(0x00, cqpool_version, RW),
	CMD(0x01, cqpool_pool_create, RW),
	CMD(0x02, cqpool_destroy, W),
	CMD(0x03, cqpool_cq_get, RW),
	CMD(0x04, cqpool_destroy, W),
	CMD(0x05, cqpool_events_watch, RW),
	CMD(0x06, cqpool_destroy, W),
	CMD(0x07, cqpool_events_read, RW),
	CMD(0x08, cqpool_list, RW),
	CMD(0x09, cqpool_conn_create, RW),
	CMD(0x0a, cqpool_destroy, W),
	CMD(0x0b, cqpool_traffic, RW),
	CMD(0x0c, cqpool_trigger, W),
	CMD(0x0d, cqpool_bench, RW),
};
