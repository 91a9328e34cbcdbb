// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: hot removal of rxe0 under live I/O of real in-tree ULPs, on
 * upstream's CQ pool and on cqpool's through cqpool_takeover.ko.
 *
 * The ULPs' ib_clients are registered before cqpool's, as when a
 * distribution loads them at boot: ib_core removes clients in reverse,
 * so cqpool's remove runs before theirs, and the reservations they hold
 * come back only after it returns (iSER's and isert's even later, from
 * rdma_cm's remove).  For NVMe-oF (nvmet-rdma, nvme-rdma), SRP (LIO
 * ib_srpt over the RDMA CM, ib_srp) and iSER (LIO isert, open-iscsi with
 * ib_iser), each looped back on rxe0's address: connect, run I/O,
 * `rdma link delete rxe0`, then check that the delete returned within
 * 30 s, that the ULP let go of the device, that cqpool holds nothing,
 * that the takeover and cqpool unload, and that after rxe0 is added back
 * a new connection works.  Each case prints "removal ULP MODE MS ms",
 * and the CQs and CQEs its new connection took from rxe0 (all owners:
 * [ib_core]'s pools, [cqpool]'s, a ULP's own CQs), and those still held
 * after its disconnect and cqpool's idle timeout, as
 * "footprint ULP MODE CQS CQES CQS_AFTER CQES_AFTER" (scripts/ulp-table.sh
 * makes the README's table of them).
 *
 * A case skips where the kernel lacks its ULP (or livepatch, for the
 * takeover), or the VM lacks open-iscsi.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "ulp.h"

#define HUNG_TIMEOUT	"/proc/sys/kernel/hung_task_timeout_secs"
/* Left by a case whose delete never returned: rxe0 is unusable. */
#define STUCK		"/tmp/removal_test.stuck"
#define DELETE_MS	30000
#define IDLE_MS		200
#define IO_BLOCK	(64 * 1024)
#define IO_BLOCKS	16

#define LIO		"/sys/kernel/config/target"
#define IBLOCK		LIO "/core/iblock_0"
#define BACKSTORE	IBLOCK "/removal"
#define LIO_NULLB	"nullb_removal"
#define LIO_BACKING	"/dev/" LIO_NULLB

#define SRPT		LIO "/srpt"
#define SRP_CM_PORT	"5555"
#define SRPT_GUID	"/sys/module/ib_srpt/parameters/srpt_service_guid"
#define RXE_GID		"/sys/class/infiniband/rxe0/ports/1/gids/0"
#define GID_PREFIX	"fe80:0000:0000:0000:"

#define IQN		"iqn.2024-01.org.cqpool:removal"
#define ISCSI		LIO "/iscsi"
#define ISCSI_TPG	ISCSI "/" IQN "/tpgt_1"
#define ISCSI_NP	ISCSI_TPG "/np/" ULP_ADDR ":3260"
#define ISCSIADM	"/usr/sbin/iscsiadm"
#define ISCSID		"/usr/sbin/iscsid"
#define NODE		ISCSIADM " -m node -T " IQN " -p " ULP_ADDR ":3260"

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
	void (*stop)(void);
};

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
		(t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Polls until @path is gone: 0, or -1 after @seconds. */
static int wait_gone(const char *path, int seconds)
{
	return wait_file(path, -1, seconds);
}

static int mkdir_ok(const char *path)
{
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* --- SCSI: the host a ULP made, and its disk ------------------------------- */

/* The newest SCSI host whose driver is @proc_name: its number, or -1. */
static int scsi_host_of(const char *proc_name)
{
	char name[64];
	int t, host;
	glob_t g;
	size_t i;

	for (t = 0; t < 100; t++) {
		host = -1;
		if (!glob("/sys/class/scsi_host/host*/proc_name", 0, NULL, &g)) {
			for (i = 0; i < g.gl_pathc; i++) {
				int n;

				if (!read_line(g.gl_pathv[i], name, sizeof(name)) &&
				    !strcmp(name, proc_name) &&
				    sscanf(g.gl_pathv[i], "/sys/class/scsi_host/host%d",
					   &n) == 1 && n > host)
					host = n;
			}
			globfree(&g);
		}
		if (host >= 0)
			return host;
		usleep(100 * 1000);
	}
	return -1;
}

/* The block device of SCSI host @host's first LUN, once it has a node. */
static int scsi_disk(int host, char *dev, size_t len)
{
	char pattern[64];
	glob_t g;
	int t;

	snprintf(pattern, sizeof(pattern), "/sys/bus/scsi/devices/%d:*/block/*",
		 host);
	for (t = 0; t < 100; t++) {
		if (!glob(pattern, 0, NULL, &g)) {
			snprintf(dev, len, "/dev/%s", strrchr(g.gl_pathv[0], '/') + 1);
			globfree(&g);
			if (!access(dev, F_OK))
				return 0;
		}
		usleep(100 * 1000);
	}
	return -1;
}

static int scsi_host_gone(int host, int seconds)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/class/scsi_host/host%d", host);
	return wait_gone(path, seconds);
}

/* --- LIO: a null_blk backstore and its LUN -------------------------------- */

/* Where LIO is, with the iblock backstore: NULL, or what is missing. */
static const char *lio_missing(void)
{
	static const char * const mods[] = { "null_blk nr_devices=0", NULL };
	const char *missing = configfs_missing();

	if (missing)
		return missing;
	missing = modules_missing(mods);
	if (missing)
		return missing;
	/* Nothing here loads a disk driver for a new LUN, as udev would. */
	load("sd_mod", "");
	if (access("/sys/bus/scsi/drivers/sd", F_OK))
		return "kernel without SCSI disks (sd_mod)";
	load("target_core_mod", "");
	if (access(LIO "/core", F_OK))
		return "kernel without LIO (target_core_mod)";
	/* iblock has no /sys/module entry when built in: try it. */
	load("target_core_iblock", "");
	if (mkdir_ok(IBLOCK))
		return "kernel without LIO's iblock backstore";
	rmdir(IBLOCK);
	return NULL;
}

static int lio_backstore_up(void)
{
	if (nullb_up(LIO_NULLB, 64) || mkdir_ok(IBLOCK) ||
	    mkdir(BACKSTORE, 0755) ||
	    mkdir_write(BACKSTORE, "control", "udev_path=" LIO_BACKING) ||
	    mkdir_write(BACKSTORE, "enable", "1"))
		return -1;
	return 0;
}

static void lio_backstore_down(void)
{
	rmdir(BACKSTORE);
	rmdir(IBLOCK);
	nullb_down(LIO_NULLB);
}

/* LUN 0 of portal group @tpg on the backstore. */
static int lio_lun_up(const char *tpg)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/lun/lun_0", tpg);
	if (mkdir(path, 0755))
		return -1;
	strncat(path, "/removal", sizeof(path) - strlen(path) - 1);
	return symlink(BACKSTORE, path);
}

static void lio_lun_down(const char *tpg)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/lun/lun_0/removal", tpg);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* --- NVMe-oF ---------------------------------------------------------------- */

static const char *nvme_removal_missing(void)
{
	const char *missing = nvme_missing();

	if (missing)
		return missing;
	/*
	 * Built in, drivers/nvme links before drivers/infiniband: nvme-rdma's
	 * ib_client comes before rdma_cm's, so rdma_cm's remove runs first
	 * and waits for nvme-rdma's cm_ids, which nvme-rdma (ignoring
	 * DEVICE_REMOVAL) destroys only in its own remove, later.
	 */
	if (access("/sys/module/nvme_rdma/initstate", F_OK))
		return "nvme-rdma built in: its removal deadlocks with rdma_cm's upstream too";
	return NULL;
}

static int nvme_conn(struct conn *c)
{
	c->id = nvme_connect();
	if (c->id < 0)
		return -1;
	return nvme_namespace(c->dev, sizeof(c->dev));
}

static int nvme_released(const struct conn *c)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%d", c->id);
	return wait_gone(path, 10);
}

static int nvme_disconn(struct conn *c)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%d", c->id);
	if (c->id < 0 || access(path, F_OK))
		return 0;
	return nvme_disconnect(&c->id);
}

static const struct ulp nvme_ulp = {
	.name = "nvme",
	.missing = nvme_removal_missing,
	.target_up = nvme_target_up,
	.target_down = nvme_target_down,
	.connect = nvme_conn,
	.released = nvme_released,
	.disconnect = nvme_disconn,
	.backing = NVME_BACKING,
};

/* --- SRP ----------------------------------------------------------------------- */

/*
 * ib_srpt names a port after its GID's interface id, as the initiator
 * (its source address, by the RDMA CM) is allowed in through an ACL.
 */
static int srp_paths(char *tport, char *tpg, char *acl, size_t len)
{
	char gid[64];

	if (read_line(RXE_GID, gid, sizeof(gid)) ||
	    strncmp(gid, GID_PREFIX, strlen(GID_PREFIX)))
		return -1;
	snprintf(tport, len, SRPT "/%s", gid + strlen(GID_PREFIX));
	snprintf(tpg, len, "%s/%s", tport, gid + strlen(GID_PREFIX));
	snprintf(acl, len, "%s/acls/" ULP_ADDR, tpg);
	return 0;
}

static const char *srp_missing(void)
{
	static const char * const mods[] = { "ib_srpt", "ib_srp", NULL };
	const char *missing = lio_missing();

	if (!missing)
		missing = modules_missing(mods);
	/*
	 * Built in, ulp/srp links before ulp/srpt: ib_srpt's remove runs
	 * first and disconnects the initiator, whose own teardown then polls
	 * freed memory (KASAN: use-after-free in __ib_process_cq() from
	 * srp_free_ch_ib() or, on reconnect, srp_create_ch_ib()), upstream.
	 */
	if (!missing && access("/sys/module/ib_srp/initstate", F_OK))
		missing = "ib_srp built in before ib_srpt: a use-after-free upstream";
	return missing;
}

static int srp_target_up(void)
{
	char tport[160], tpg[224], acl[288], lun[256], path[352];

	if (srp_paths(tport, tpg, acl, sizeof(tport)) || lio_backstore_up() ||
	    mkdir_ok(SRPT) ||
	    /* Not a module parameter on 6.1: RoCE logins come through it. */
	    mkdir_write(SRPT, "discovery_auth/rdma_cm_port", SRP_CM_PORT) ||
	    mkdir(tport, 0755) || mkdir(tpg, 0755) || lio_lun_up(tpg) ||
	    mkdir(acl, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/lun_0", acl);
	snprintf(lun, sizeof(lun), "%s/lun/lun_0", tpg);
	if (mkdir(path, 0755))
		return -1;
	strncat(path, "/lun_0", sizeof(path) - strlen(path) - 1);
	if (symlink(lun, path))
		return -1;
	return mkdir_write(tpg, "enable", "1");
}

static int srp_target_down(void)
{
	char tport[160], tpg[224], acl[288], path[352];

	if (!srp_paths(tport, tpg, acl, sizeof(tport))) {
		mkdir_write(tpg, "enable", "0");
		snprintf(path, sizeof(path), "%s/lun_0/lun_0", acl);
		unlink(path);
		*strrchr(path, '/') = '\0';
		rmdir(path);
		rmdir(acl);
		lio_lun_down(tpg);
		rmdir(tpg);
		rmdir(tport);
	}
	lio_backstore_down();
	return 0;
}

/* Writes attribute @attr of SCSI host @host's SRP remote port. */
static int srp_rport_write(int host, const char *attr, const char *val)
{
	char path[96];
	glob_t g;
	int ret;

	snprintf(path, sizeof(path), "/sys/class/srp_remote_ports/port-%d:*/%s",
		 host, attr);
	if (glob(path, 0, NULL, &g))
		return -1;
	ret = write_file(g.gl_pathv[0], val);
	globfree(&g);
	return ret;
}

static int srp_conn(struct conn *c)
{
	char guid[64], gid[64], ext[17], opts[256];
	unsigned int i, n = 0;

	if (read_line(SRPT_GUID, guid, sizeof(guid)) ||
	    read_line(RXE_GID, gid, sizeof(gid)))
		return -1;
	/* initiator_ext: the GID's subnet prefix, as 16 hex digits. */
	for (i = 0; gid[i] && n < 16; i++)
		if (gid[i] != ':')
			ext[n++] = gid[i];
	ext[n] = '\0';
	snprintf(opts, sizeof(opts),
		 "id_ext=%s,initiator_ext=%s,ioc_guid=%s,src=%s,dest=%s:%s",
		 guid, ext, guid, ULP_ADDR, ULP_ADDR, SRP_CM_PORT);
	/* Returns once the login is done or refused. */
	if (write_file("/sys/class/infiniband_srp/srp-rxe0-1/add_target", opts))
		return -1;
	c->host = scsi_host_of("ib_srp");
	c->id = c->host;
	if (c->host < 0)
		return -1;
	return scsi_disk(c->host, c->dev, sizeof(c->dev));
}

/* srp_remove_one() removes the SCSI hosts of the device. */
static int srp_released(const struct conn *c)
{
	return scsi_host_gone(c->host, 10);
}

static int srp_disconn(struct conn *c)
{
	if (c->host < 0)
		return 0;
	srp_rport_write(c->host, "delete", "1");
	return scsi_host_gone(c->host, 30);
}

static const struct ulp srp_ulp = {
	.name = "srp",
	.missing = srp_missing,
	.target_up = srp_target_up,
	.target_down = srp_target_down,
	.connect = srp_conn,
	.released = srp_released,
	.disconnect = srp_disconn,
	.backing = LIO_BACKING,
};

/* --- iSER ---------------------------------------------------------------------- */

static pid_t iscsid_pid;

static const char *iser_missing(void)
{
	static const char * const mods[] = {
		"iscsi_target_mod", "ib_isert", "ib_iser", NULL
	};
	const char *missing = lio_missing();

	if (!missing)
		missing = modules_missing(mods);
	if (!missing && (access(ISCSID, X_OK) || access(ISCSIADM, X_OK)))
		missing = "no open-iscsi (iscsid, iscsiadm) in the VM";
	return missing;
}

static int iser_target_up(void)
{
	static const char * const attrs[][2] = {
		{ "generate_node_acls", "1" }, { "cache_dynamic_acls", "1" },
		{ "demo_mode_write_protect", "0" }, { "authentication", "0" },
	};
	unsigned int i;

	if (lio_backstore_up() || mkdir_ok(ISCSI) ||
	    mkdir(ISCSI "/" IQN, 0755) || mkdir(ISCSI_TPG, 0755) ||
	    lio_lun_up(ISCSI_TPG))
		return -1;
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		if (mkdir_write(ISCSI_TPG "/attrib", attrs[i][0], attrs[i][1]))
			return -1;
	/* A TCP portal; iser=1 adds isert's on the same address and port. */
	if (mkdir(ISCSI_NP, 0755) || mkdir_write(ISCSI_NP, "iser", "1"))
		return -1;
	return mkdir_write(ISCSI_TPG, "enable", "1");
}

static int iser_target_down(void)
{
	mkdir_write(ISCSI_TPG, "enable", "0");
	mkdir_write(ISCSI_NP, "iser", "0");
	rmdir(ISCSI_NP);
	lio_lun_down(ISCSI_TPG);
	rmdir(ISCSI_TPG);
	rmdir(ISCSI "/" IQN);
	lio_backstore_down();
	return 0;
}

/* iscsid listens on this abstract socket once it serves iscsiadm. */
static int iscsid_listening(void)
{
	return !sh("grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix");
}

static int iscsid_start(void)
{
	int i;

	if (iscsid_pid > 0)
		return 0;
	if (sh("mkdir -p /etc/iscsi/nodes /etc/iscsi/send_targets %s",
	       "/etc/iscsi/ifaces /var/lib/iscsi /run/lock/iscsi"))
		return -1;
	iscsid_pid = fork();
	if (iscsid_pid < 0)
		return -1;
	if (iscsid_pid == 0) {
		int fd = open("/tmp/iscsid.log", O_WRONLY | O_CREAT | O_APPEND,
			      0644);

		/* Out of the test's session: stopping it touches nothing else. */
		setsid();
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(ISCSID, "iscsid", "-f", NULL);
		_exit(127);
	}
	for (i = 0; i < 100; i++) {
		if (iscsid_listening())
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

static void iscsid_stop(void)
{
	if (iscsid_pid <= 0)
		return;
	kill(iscsid_pid, SIGTERM);
	if (wait_child(iscsid_pid, 5000) < 0) {
		kill(iscsid_pid, SIGKILL);
		wait_child(iscsid_pid, 5000);
	}
	iscsid_pid = 0;
}

/* The session logged in to IQN: its number, or -1. */
static int iser_session(void)
{
	char name[128];
	int id = -1;
	glob_t g;
	size_t i;

	if (glob("/sys/class/iscsi_session/session*/targetname", 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++)
		if (!read_line(g.gl_pathv[i], name, sizeof(name)) &&
		    !strcmp(name, IQN))
			sscanf(g.gl_pathv[i], "/sys/class/iscsi_session/session%d",
			       &id);
	globfree(&g);
	return id;
}

static int iser_conn(struct conn *c)
{
	/*
	 * I/O on a failed session waits replacement_timeout (120 s by
	 * default) before it errors out; a blocked dd is a hung task.
	 */
	if (iscsid_start() ||
	    sh_bounded(30, NODE " -I iser -o new") ||
	    sh_bounded(30, NODE " -o update -n %s -v 5",
		       "node.session.timeo.replacement_timeout") ||
	    sh_bounded(30, NODE " -o update -n %s -v 1",
		       "node.session.initial_login_retry_max") ||
	    sh_bounded(60, NODE " --login"))
		return -1;
	c->id = iser_session();
	c->host = scsi_host_of("iscsi_iser");
	if (c->id < 0 || c->host < 0)
		return -1;
	return scsi_disk(c->host, c->dev, sizeof(c->dev));
}

/* The session failed (iscsid tries to recover it) or went. */
static int iser_released(const struct conn *c)
{
	char path[96], state[32];
	int i;

	snprintf(path, sizeof(path), "/sys/class/iscsi_session/session%d/state",
		 c->id);
	for (i = 0; i < 100; i++) {
		if (read_line(path, state, sizeof(state)) ||
		    strcmp(state, "LOGGED_IN"))
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

static int iser_disconn(struct conn *c)
{
	char path[64];

	if (c->id < 0)
		return 0;
	/* Also ends the recovery of a failed session. */
	sh_bounded(30, NODE " --logout");
	sh_bounded(30, NODE " -o delete");
	snprintf(path, sizeof(path), "/sys/class/iscsi_session/session%d",
		 c->id);
	return wait_gone(path, 15);
}

static const struct ulp iser_ulp = {
	.name = "iser",
	.missing = iser_missing,
	.target_up = iser_target_up,
	.target_down = iser_target_down,
	.connect = iser_conn,
	.released = iser_released,
	.disconnect = iser_disconn,
	.backing = LIO_BACKING,
	.stop = iscsid_stop,
};

/* --- I/O, removal, cqpool ------------------------------------------------ */

/*
 * Writes and reads the first MiB of @dev with O_DIRECT until killed,
 * counting completed I/Os in @done.  Open without O_CREAT: once the disk
 * is gone it waits for it, and leaves no file in its place.
 */
static pid_t io_start(const char *dev, unsigned long *done)
{
	pid_t pid = fork();
	void *buf;
	int fd, i;

	if (pid)
		return pid;
	if (posix_memalign(&buf, 4096, IO_BLOCK))
		_exit(1);
	memset(buf, 0x5a, IO_BLOCK);
	for (;;) {
		fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (fd < 0) {
			usleep(100 * 1000);
			continue;
		}
		for (i = 0; i < IO_BLOCKS; i++) {
			off_t off = (off_t)i * IO_BLOCK;

			if (pwrite(fd, buf, IO_BLOCK, off) != IO_BLOCK ||
			    pread(fd, buf, IO_BLOCK, off) != IO_BLOCK)
				break;
			__atomic_add_fetch(done, 2, __ATOMIC_RELAXED);
		}
		close(fd);
		if (i < IO_BLOCKS)
			usleep(100 * 1000);
	}
}

/* Waits until @n more I/Os completed: they run when the device goes. */
static int io_running(unsigned long *done, unsigned long n)
{
	unsigned long start = __atomic_load_n(done, __ATOMIC_RELAXED);
	int i;

	for (i = 0; i < 1000; i++) {
		if (__atomic_load_n(done, __ATOMIC_RELAXED) - start >= n)
			return 0;
		usleep(10 * 1000);
	}
	return -1;
}

/* Logs where the stuck delete waits, and every blocked task's stack. */
static void dump_blocked(struct __test_metadata *_metadata, pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	if (f) {
		TH_LOG("rdma link delete (pid %d) waits in:", pid);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			TH_LOG("  %s", line);
		}
		fclose(f);
	}
	write_file("/proc/sysrq-trigger", "w");
	TH_LOG("blocked tasks dumped to the console (sysrq w)");
}

/* cqpool holds no CQ, reservation or pool: 0, or -1 after 10 s. */
static int cqpool_empty(struct totals *t)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!read_totals(t) && !t->cqs && !t->users && !t->reserved &&
		    !t->pools)
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

/*
 * Re-registers cqpool's ib_client after the ULPs', whatever loaded them
 * when (another test may have unloaded and reloaded one).
 */
static int cqpool_reload(void)
{
	if (!access("/sys/module/cqpool", F_OK) && cqpool_unload())
		return -1;
	if (cqpool_load())
		return -1;
	return set_idle_timeout(IDLE_MS);
}

/*
 * CQPOOL_REMOVAL_SKIP names ULPs (space-separated) whose cases skip: for
 * a kernel where the ULP itself fails without cqpool, so that the other
 * ULPs' cases still run there (scripts/check.sh says which and why).
 */
static const char *skipped_here(const struct ulp *ulp)
{
	const char *list = getenv("CQPOOL_REMOVAL_SKIP");
	size_t n = strlen(ulp->name);
	const char *p;

	for (p = list; p && (p = strstr(p, ulp->name)); p += n)
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return "skipped on this kernel by CQPOOL_REMOVAL_SKIP";
	return NULL;
}

FIXTURE(removal) {
	const char *missing;
	struct conn conn;
	bool connected, target, takeover;
	pid_t io, deleter;
	unsigned long *io_done;
	char hung_old[32], idle_old[32];
};

FIXTURE_VARIANT(removal) {
	const struct ulp *ulp;
	bool takeover;
};

/* Upstream first: a takeover case that hangs spoils no measurement. */
FIXTURE_VARIANT_ADD(removal, nvme_upstream) {
	.ulp = &nvme_ulp,
};

FIXTURE_VARIANT_ADD(removal, srp_upstream) {
	.ulp = &srp_ulp,
};

FIXTURE_VARIANT_ADD(removal, iser_upstream) {
	.ulp = &iser_ulp,
};

FIXTURE_VARIANT_ADD(removal, nvme_takeover) {
	.ulp = &nvme_ulp,
	.takeover = true,
};

FIXTURE_VARIANT_ADD(removal, srp_takeover) {
	.ulp = &srp_ulp,
	.takeover = true,
};

FIXTURE_VARIANT_ADD(removal, iser_takeover) {
	.ulp = &iser_ulp,
	.takeover = true,
};

FIXTURE_SETUP(removal)
{
	/* The figures survive the harness child's _exit() into a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	self->conn.id = -1;
	self->conn.host = -1;
	self->missing = skipped_here(variant->ulp);
	if (!self->missing && variant->takeover)
		self->missing = takeover_missing();
	if (!self->missing)
		self->missing = variant->ulp->missing();
	if (self->missing)
		return;
	self->io_done = mmap(NULL, sizeof(*self->io_done),
			     PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->io_done);
	/* A delete that hangs shows up as a hung task in 20 s, not 120. */
	if (!read_line(HUNG_TIMEOUT, self->hung_old, sizeof(self->hung_old)))
		write_file(HUNG_TIMEOUT, "20");
	read_line(IDLE_TIMEOUT, self->idle_old, sizeof(self->idle_old));
}

static int ulp_disconnect(void *arg)
{
	const struct ulp *ulp = ((void **)arg)[0];
	struct conn *c = ((void **)arg)[1];

	return ulp->disconnect(c) ? 1 : 0;
}

static int ulp_target_down(void *arg)
{
	return ((const struct ulp *)arg)->target_down() ? 1 : 0;
}

FIXTURE_TEARDOWN(removal)
{
	const struct ulp *ulp = variant->ulp;
	void *args[] = { (void *)ulp, &self->conn };

	if (self->missing)
		return;
	if (self->io) {
		kill(self->io, SIGKILL);
		wait_child(self->io, 15000);
	}
	if (self->deleter) {
		/* rxe0 is half removed: touching it would hang us too. */
		write_file(STUCK, "1");
		TH_LOG("rxe0's removal is still stuck: cleanup skipped");
	} else {
		if (self->connected)
			EXPECT_EQ(0, call_bounded(ulp_disconnect, args, 60));
		if (self->target)
			EXPECT_EQ(0, call_bounded(ulp_target_down,
						  (void *)ulp, 60));
		if (self->takeover)
			EXPECT_EQ(0, takeover_unload());
		if (ulp->stop)
			ulp->stop();
		/* A failure between the delete and the re-add left no rxe0. */
		if (sh("/usr/bin/rdma link show rxe0/1") &&
		    (rxe_add() || rxe_active()))
			TH_LOG("rxe0 could not be added back");
		/* Between the unload and the load, a failure left none. */
		cqpool_load();
		if (*self->idle_old)
			write_file(IDLE_TIMEOUT, self->idle_old);
	}
	if (*self->hung_old)
		write_file(HUNG_TIMEOUT, self->hung_old);
}

/*
 * What a stuck delete waits for may come back when the ULP is torn down
 * from userspace: the delete's status then, or -1 if it is still stuck.
 */
static int unstick(struct __test_metadata *_metadata, const struct ulp *ulp,
		   struct conn *conn, pid_t deleter)
{
	void *args[] = { (void *)ulp, conn };
	struct timespec t0;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	call_bounded(ulp_disconnect, args, 30);
	call_bounded(ulp_target_down, (void *)ulp, 30);
	st = wait_child(deleter, DELETE_MS);
	if (st >= 0)
		TH_LOG("the delete returned %ld ms after the %s %s",
		       elapsed_ms(&t0), ulp->name,
		       "host and target were torn down from userspace");
	return st;
}

TEST_F_TIMEOUT(removal, delete_under_io, 240)
{
	const struct ulp *ulp = variant->ulp;
	const char *mode = variant->takeover ? "takeover" : "upstream";
	struct cq_count base, on, off;
	struct timespec t0;
	struct totals t;
	long ms;
	int st;

	if (self->missing)
		SKIP(return, "%s", self->missing);
	ASSERT_NE(0, access(STUCK, F_OK))
		TH_LOG("an earlier case left rxe0's removal stuck");
	ASSERT_EQ(0, rxe_active()) TH_LOG("rxe0 is not ACTIVE");
	ASSERT_EQ(0, cqpool_reload());
	ASSERT_EQ(0, pools_quiesce(IDLE_MS))
		TH_LOG("reservations or CQs left over from before");
	self->target = true;
	ASSERT_EQ(0, ulp->target_up()) TH_LOG("%s target setup failed", ulp->name);
	if (variant->takeover) {
		ASSERT_EQ(0, takeover_load());
		self->takeover = true;
	}
	self->connected = true;
	ASSERT_EQ(0, ulp->connect(&self->conn))
		TH_LOG("%s connection to the target failed", ulp->name);
	if (variant->takeover) {
		EXPECT_LT(0, read_long(TK_RES))
			TH_LOG("%s's queues got no CQ from cqpool", ulp->name);
	} else {
		ASSERT_EQ(0, read_totals(&t));
		EXPECT_EQ(0, t.cqs) TH_LOG("cqpool got CQs without the takeover");
	}

	self->io = io_start(self->conn.dev, self->io_done);
	ASSERT_LT(0, self->io);
	ASSERT_EQ(0, io_running(self->io_done, 32))
		TH_LOG("no I/O completes on %s", self->conn.dev);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	self->deleter = rxe_delete_start();
	ASSERT_LT(0, self->deleter);
	st = wait_child(self->deleter, DELETE_MS);
	ms = elapsed_ms(&t0);
	if (st < 0) {
		printf("removal %s %s >%d ms (did not return)\n", ulp->name,
		       mode, DELETE_MS);
		EXPECT_LE(0, st) TH_LOG("rdma link delete rxe0 under %s I/O (%s) %s",
					ulp->name, mode, "did not return within 30 s");
		dump_blocked(_metadata, self->deleter);
		/* Once it returns, the rest of the case still tells. */
		st = unstick(_metadata, ulp, &self->conn, self->deleter);
		self->connected = false;
		self->target = false;
		ASSERT_LE(0, st) TH_LOG("still stuck with the %s torn down",
					ulp->name);
	} else {
		printf("removal %s %s %ld ms\n", ulp->name, mode, ms);
		TH_LOG("rdma link delete rxe0 under %s I/O (%s): %ld ms",
		       ulp->name, mode, ms);
	}
	self->deleter = 0;
	ASSERT_EQ(0, st) TH_LOG("rdma link delete rxe0 failed");

	/* I/O to the lost device fails, it does not hang. */
	kill(self->io, SIGKILL);
	EXPECT_LE(0, wait_child(self->io, 15000))
		TH_LOG("I/O on %s still blocked 15 s after the removal",
		       self->conn.dev);
	self->io = 0;
	EXPECT_EQ(0, ulp->released(&self->conn))
		TH_LOG("%s kept its connection to the removed device", ulp->name);
	EXPECT_EQ(0, cqpool_empty(&t))
		TH_LOG("cqpool holds %llu CQs, %llu users, %llu entries, %llu pools",
		       t.cqs, t.users, t.reserved, t.pools);
	if (variant->takeover)
		EXPECT_EQ(0, read_long(TK_RES));
	/* Before rxe0 is back, or iSER's recovery would log in again. */
	EXPECT_EQ(0, ulp->disconnect(&self->conn));
	self->connected = false;

	if (variant->takeover) {
		EXPECT_EQ(0, takeover_unload())
			TH_LOG("cqpool_takeover.ko cannot be unloaded");
		self->takeover = false;
	}
	EXPECT_EQ(0, cqpool_unload())
		TH_LOG("cqpool.ko or cqpool_harness.ko cannot be unloaded");
	ASSERT_EQ(0, cqpool_reload());

	ASSERT_EQ(0, rxe_add());
	ASSERT_EQ(0, rxe_active()) TH_LOG("rxe0 added back is not ACTIVE");
	ASSERT_EQ(0, wait_device_listed("rxe0", 1));
	/* The target's objects on the old rxe0 go with it. */
	EXPECT_EQ(0, ulp->target_down());
	self->target = true;
	ASSERT_EQ(0, ulp->target_up())
		TH_LOG("%s target setup on the new rxe0 failed", ulp->name);
	if (variant->takeover) {
		ASSERT_EQ(0, takeover_load());
		self->takeover = true;
	}
	/* The new rxe0 has no CQ of an earlier case: what it gains is this one's. */
	ASSERT_EQ(0, rdma_cqs(NULL, &base));
	self->connected = true;
	ASSERT_EQ(0, ulp->connect(&self->conn))
		TH_LOG("%s connection over the new rxe0 failed", ulp->name);
	EXPECT_EQ(0, io_check(self->conn.dev, ulp->backing))
		TH_LOG("I/O through %s did not give back identical data",
		       self->conn.dev);
	if (variant->takeover)
		EXPECT_LT(0, read_long(TK_RES));
	ASSERT_EQ(0, rdma_cqs(NULL, &on));
	ASSERT_EQ(0, ulp->disconnect(&self->conn));
	self->connected = false;
	if (variant->takeover) {
		/* A target releases its queues from a work item, a little later. */
		EXPECT_EQ(0, wait_file(TK_RES, 0, 10));
		EXPECT_EQ(0, wait_no_cqs())
			TH_LOG("cqpool kept CQs after the idle timeout");
	}
	ASSERT_EQ(0, rdma_cqs(NULL, &off));
	EXPECT_LT(base.cqs, on.cqs) TH_LOG("%s took no CQ", ulp->name);
	printf("footprint %s %s %lld %lld %lld %lld\n", ulp->name, mode,
	       (long long)(on.cqs - base.cqs), (long long)(on.cqes - base.cqes),
	       (long long)(off.cqs - base.cqs), (long long)(off.cqes - base.cqes));
	ksft_print_msg("%s (%s): removal under I/O in %ld ms, then %s\n",
		       ulp->name, mode, ms,
		       "unloaded, rxe0 back and a new connection with I/O");
}

TEST_HARNESS_MAIN
