// SPDX-License-Identifier: GPL-2.0
/*
 * The storage ULPs the kselftests drive, behind one interface (struct
 * ulp in storage.h): NVMe-oF (nvmet-rdma, nvme-rdma), SRP (LIO ib_srpt,
 * ib_srp) and iSER (LIO isert, open-iscsi with ib_iser), each looped back
 * on rxe0's address, with the SCSI and LIO plumbing the last two share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib.h"
#include "storage.h"
#include "ulp.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

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

/* Polls until @path is gone: 0, or -1 after @seconds. */
int wait_gone(const char *path, int seconds)
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
	return nvme_namespace(c->id, c->dev, sizeof(c->dev));
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

const struct ulp nvme_ulp = {
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

const struct ulp srp_ulp = {
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

const struct ulp iser_ulp = {
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
