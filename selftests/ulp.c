// SPDX-License-Identifier: GPL-2.0
/* What the kselftests of real in-tree ULPs share; see ulp.h. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"
#include "ulp.h"

#define NULLB_DIR	"/sys/kernel/config/nullb"
#define NVMET		"/sys/kernel/config/nvmet"
#define SUBSYS		NVMET "/subsystems/" NVME_NQN
#define PORT		NVMET "/ports/1"
/* The connection of the measurement in the issue: 2 vCPUs, so 2 I/O queues. */
/* A second controller of the same host may connect (takeover_cycle_test). */
#define CONNECT		"transport=rdma,traddr=" ULP_ADDR ",trsvcid=4420,nqn=" \
			NVME_NQN ",nr_io_queues=4,queue_size=128,duplicate_connect"

static void vcmd(char *cmd, size_t len, const char *fmt, va_list ap)
{
	vsnprintf(cmd, len, fmt, ap);
	/* dd's record counts and the like are noise in the test's output. */
	strncat(cmd, " >/dev/null 2>&1", len - strlen(cmd) - 1);
}

int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vcmd(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

int wait_child(int pid, unsigned int ms)
{
	unsigned int waited;
	int status;

	for (waited = 0; ; waited += 10) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
				128 + WTERMSIG(status);
		if (got < 0 || waited >= ms)
			return -1;
		usleep(10 * 1000);
	}
}

/* Gives up on a child: it dies, or stays stuck without holding us. */
static int abandon(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	wait_child(pid, 1000);
	return -1;
}

int sh_bounded(unsigned int seconds, const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	pid_t pid;
	int ret;

	va_start(ap, fmt);
	vcmd(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* Its own group, so that the kill reaches what it started. */
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, NULL);
		_exit(127);
	}
	ret = wait_child(pid, seconds * 1000);
	return ret < 0 ? abandon(pid) : ret;
}

int call_bounded(int (*fn)(void *), void *arg, unsigned int seconds)
{
	pid_t pid = fork();
	int ret;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		_exit(fn(arg) & 0xff);
	}
	ret = wait_child(pid, seconds * 1000);
	return ret < 0 ? abandon(pid) : ret;
}

long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

int wait_file(const char *path, long want, int seconds)
{
	int i;

	for (i = 0; i < seconds * 10; i++) {
		if (want < 0 ? access(path, F_OK) != 0 : read_long(path) == want)
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

int mkdir_write(const char *dir, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_file(path, val);
}

int load(const char *name, const char *params)
{
	char path[128];

	if (!sh("modprobe -q %s %s", name, params))
		return 0;
	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) ? -1 : 0;
}

const char *modules_missing(const char *const *mods)
{
	static char why[96];
	char name[64];

	for (; *mods; mods++) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(*mods, " "),
			 *mods);
		if (load(name, *mods + strlen(name))) {
			snprintf(why, sizeof(why), "kernel without %s", name);
			return why;
		}
	}
	return NULL;
}

int rxe_active(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!sh("/usr/bin/rdma link show rxe0/1 | grep -q 'state ACTIVE'"))
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

int rxe_reset(void)
{
	pid_t pid = rxe_delete_start();

	if (pid <= 0 || rxe_delete_finish(pid))
		return -1;
	return rxe_active();
}

static const char *payload_file(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("CQPOOL_PAYLOAD");

	snprintf(buf, len, "%s/%s", dir ? dir : "/payload", name);
	return buf;
}

const char *takeover_ko(void)
{
	static char path[256];

	return payload_file(path, sizeof(path), "cqpool_takeover.ko");
}

const char *cumulative_ko(void)
{
	static char path[256];

	return payload_file(path, sizeof(path), "cqpool_cumulative_test.ko");
}

/* Inserts the payload's MOD.ko with PARAMS unless MOD is loaded: 0, or -1. */
static int module_load(const char *mod, const char *params)
{
	char path[256], name[64];

	snprintf(name, sizeof(name), "/sys/module/%s", mod);
	if (!access(name, F_OK))
		return 0;
	snprintf(name, sizeof(name), "%s.ko", mod);
	return sh("insmod %s %s", payload_file(path, sizeof(path), name),
		  params) ? -1 : 0;
}

int cqpool_load_params(const char *params)
{
	return module_load("cqpool", params) ||
	       module_load("cqpool_harness", "") ? -1 : 0;
}

int cqpool_load(void)
{
	return cqpool_load_params("");
}

int cqpool_unload(void)
{
	if (!access("/sys/module/cqpool_harness", F_OK) &&
	    sh_bounded(30, "rmmod cqpool_harness"))
		return -1;
	if (sh_bounded(30, "rmmod cqpool"))
		return -1;
	return access("/sys/module/cqpool", F_OK) ? 0 : -1;
}

const char *takeover_missing(void)
{
	if (access("/sys/kernel/livepatch", F_OK))
		return "kernel without CONFIG_LIVEPATCH";
	if (access(takeover_ko(), R_OK))
		return "no cqpool_takeover.ko in the payload";
	return NULL;
}

int takeover_load(void)
{
	if (sh("insmod %s", takeover_ko()))
		return -1;
	return wait_file(KLP "/transition", 0, 60);
}

int takeover_disable(void)
{
	if (access(KLP, F_OK))
		return 0;
	if (write_file(KLP "/enabled", "0"))
		return -1;
	/* The patch's directory goes once every task runs ib_core's code. */
	return wait_file(KLP, -1, 60);
}

int takeover_unload(void)
{
	int i;

	if (takeover_disable())
		return -1;
	for (i = 0; i < 100; i++) {
		if (access("/sys/module/cqpool_takeover", F_OK))
			return 0;
		if (!sh("rmmod cqpool_takeover 2>/dev/null"))
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

static int configfs_mounted(void)
{
	char line[512];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " /sys/kernel/config configfs "))
			found = 1;
	fclose(f);
	return found;
}

const char *configfs_missing(void)
{
	load("configfs", "");
	if (access("/sys/kernel/config", F_OK))
		return "kernel without configfs";
	/* Mounting it again would stack a second mount on the first. */
	if (!configfs_mounted() &&
	    mount("configfs", "/sys/kernel/config", "configfs", 0, NULL))
		return "configfs cannot be mounted";
	return NULL;
}

/*
 * A null_blk disk of @mb MiB, named @name, without poll queues.  With
 * null_blk's default of one, blk_mq_register_hctx() adds every CPU's ctx
 * kobject under both the default and the poll hctx (6.1; 6.12 has the
 * same code), and the second kobject_add() keeps a reference on the
 * first hctx that nothing drops: each such disk leaves an hctx behind
 * when it goes, about 2 KiB of kmalloc caches (measured by soak.sh -u).
 * The soak brings its targets up and down dozens of times and would
 * count that as growth; no target here polls.
 */
int nullb_up(const char *name, unsigned int mb)
{
	char dir[128], size[16];

	snprintf(dir, sizeof(dir), NULLB_DIR "/%s", name);
	snprintf(size, sizeof(size), "%u", mb);
	if (mkdir(dir, 0755) ||
	    mkdir_write(dir, "size", size) ||
	    mkdir_write(dir, "memory_backed", "1") ||
	    mkdir_write(dir, "poll_queues", "0") ||
	    mkdir_write(dir, "power", "1"))
		return -1;
	return 0;
}

void nullb_down(const char *name)
{
	char dir[128];

	snprintf(dir, sizeof(dir), NULLB_DIR "/%s", name);
	mkdir_write(dir, "power", "0");
	rmdir(dir);
}

int io_check(const char *dev, const char *backing)
{
	const int n = ULP_IO_MB * 16;

	if (sh("dd if=/dev/urandom of=/tmp/ulp.in bs=64k count=%d", n) ||
	    sh("dd if=/tmp/ulp.in of=%s bs=64k oflag=direct", dev) ||
	    sh("dd if=%s of=/tmp/ulp.out bs=64k count=%d iflag=direct", dev, n) ||
	    sh("cmp /tmp/ulp.in /tmp/ulp.out"))
		return -1;
	if (!backing)
		return 0;
	return sh("dd if=%s of=/tmp/ulp.tgt bs=64k count=%d iflag=direct",
		  backing, n) ||
		sh("cmp /tmp/ulp.in /tmp/ulp.tgt");
}

const char *nvme_missing(void)
{
	/* No null_blk device of its own: the test makes one in configfs. */
	static const char * const mods[] = {
		"null_blk nr_devices=0", "nvmet_rdma", "nvme_rdma", NULL
	};
	const char *missing = configfs_missing();

	return missing ? missing : modules_missing(mods);
}

int nvme_target_up(void)
{
	if (nullb_up(NVME_NULLB, 64))
		return -1;
	if (mkdir(SUBSYS, 0755) ||
	    mkdir_write(SUBSYS, "attr_allow_any_host", "1") ||
	    mkdir(SUBSYS "/namespaces/1", 0755) ||
	    mkdir_write(SUBSYS "/namespaces/1", "device_path", NVME_BACKING) ||
	    mkdir_write(SUBSYS "/namespaces/1", "enable", "1") ||
	    mkdir(PORT, 0755) ||
	    mkdir_write(PORT, "addr_trtype", "rdma") ||
	    mkdir_write(PORT, "addr_adrfam", "ipv4") ||
	    mkdir_write(PORT, "addr_traddr", ULP_ADDR) ||
	    mkdir_write(PORT, "addr_trsvcid", "4420") ||
	    symlink(SUBSYS, PORT "/subsystems/" NVME_NQN))
		return -1;
	return 0;
}

/*
 * Whether the port's RDMA-CM listener must go with rxe0 before the port
 * does.  nvmet destroys a port's listener under nvmet_config_sem, and
 * it takes that semaphore under a connection's handler_mutex when a
 * connect command came before the queue's ESTABLISHED event.  The two
 * mutexes are two IDs', so nothing can deadlock, but lockdep puts every
 * ID's in one class and reports a cycle: upstream's, with or without
 * cqpool (CHANGELOG.md).  Removing rxe0 destroys the listener without
 * nvmet's semaphore, and none comes back with the new rxe0.  Where
 * lockdep does not run, the port goes with its listener, as an
 * administrator removes one.
 */
static bool listener_under_lockdep(void)
{
	return !access("/proc/lockdep", F_OK) &&
	       !sh("/usr/bin/rdma res show cm_id link rxe0 | grep -q 'state LISTEN.*:4420 '");
}

/* Whether lockdep saw a handler_mutex taken right under nvmet_config_sem. */
static bool lockdep_saw_port_removal(void)
{
	FILE *f = fopen("/proc/lockdep", "r");
	bool under = false, seen = false;
	char line[256];

	if (!f)
		return false;
	/* Each class, then the classes taken right under it, indented. */
	while (!seen && fgets(line, sizeof(line), f)) {
		if (line[0] != ' ')
			under = strstr(line, ": nvmet_config_sem\n");
		else
			seen = under && strstr(line, "handler_mutex");
	}
	fclose(f);
	return seen;
}

int nvme_target_down(void)
{
	int ret = listener_under_lockdep() ? rxe_reset() : 0;

	unlink(PORT "/subsystems/" NVME_NQN);
	rmdir(PORT);
	mkdir_write(SUBSYS "/namespaces/1", "enable", "0");
	rmdir(SUBSYS "/namespaces/1");
	rmdir(SUBSYS);
	nullb_down(NVME_NULLB);
	return ret || lockdep_saw_port_removal() ? -1 : 0;
}

int nvme_connect(void)
{
	int fd = open("/dev/nvme-fabrics", O_RDWR | O_CLOEXEC);
	char buf[256] = "";
	int instance = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	if (write(fd, CONNECT, strlen(CONNECT)) == (ssize_t)strlen(CONNECT)) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0 && sscanf(buf, "instance=%d", &instance) != 1)
			instance = -1;
	}
	close(fd);
	return instance;
}

int nvme_delete(int instance)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/class/nvme/nvme%d/delete_controller", instance);
	return write_file(path, "1");
}

int nvme_disconnect(int *instance)
{
	int ret = nvme_delete(*instance);
	char path[64];

	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%d", *instance);
	*instance = -1;
	/* The queues are gone once the controller's directory is. */
	return ret ? ret : wait_file(path, -1, 30);
}

int nvme_namespace(int instance, char *dev, size_t len)
{
	unsigned int head, sub;
	char pattern[64], *name;
	glob_t g;
	int t;

	/*
	 * The controller's namespace: nvmeXn1, its own block device, or,
	 * with native multipath, nvmeHcXn1, a path under the head nvmeHn1.
	 */
	snprintf(pattern, sizeof(pattern), "/sys/class/nvme/nvme%d/nvme*n1",
		 instance);
	for (t = 0; t < 100; t++) {
		if (!glob(pattern, 0, NULL, &g)) {
			name = strrchr(g.gl_pathv[0], '/') + 1;
			if (sscanf(name, "nvme%uc%un1", &head, &sub) == 2)
				snprintf(dev, len, "/dev/nvme%un1", head);
			else
				snprintf(dev, len, "/dev/%s", name);
			globfree(&g);
			if (!access(dev, F_OK))
				return 0;
		}
		usleep(100 * 1000);
	}
	return -1;
}

int rdma_cqs(const char *comm, struct cq_count *c)
{
	char line[512], tag[64];
	unsigned int cqe;
	FILE *p;

	c->cqs = 0;
	c->cqes = 0;
	snprintf(tag, sizeof(tag), "[%s]", comm ? comm : "");
	p = popen("/usr/bin/rdma res show cq dev rxe0 2>/dev/null", "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *at = strstr(line, " cqe ");

		if ((!comm || strstr(line, tag)) && at &&
		    sscanf(at, " cqe %u", &cqe) == 1) {
			c->cqs++;
			c->cqes += cqe;
		}
	}
	return pclose(p) ? -1 : 0;
}
