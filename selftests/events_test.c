// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: async events from their real triggers, counted by watches
 * (device handlers) and hooks on reservations made through /dev/cqpool:
 * a netdev going down and up gives PORT_ERR and PORT_ACTIVE (rxe0, and
 * siw0 where the kernel has siw), an address added gives GID_CHANGE
 * (rxe0), a mask keeps other events away, an injected DEVICE_FATAL (the
 * one event without a soft trigger) reaches hooks and watches, and so
 * does the DEVICE_FATAL of a device's removal, once, which waits for
 * nobody.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cqpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"
#include "verdict.h"

#define INJECT		"/sys/kernel/debug/cqpool/inject"
#define BIT(e)		(1ULL << (e))

static int watch(int fd, const char *device, __u64 mask)
{
	struct cqpool_events_watch w = { .size = sizeof(w),
					 .event_mask = mask };

	snprintf(w.device, sizeof(w.device), "%s", device);
	return ioctl(fd, CQPOOL_IOC_EVENTS_WATCH, &w) ? -1 : (int)w.id;
}

static long long count(int fd, int id, int event)
{
	struct cqpool_events_read r = { .size = sizeof(r), .id = id };

	return ioctl(fd, CQPOOL_IOC_EVENTS_READ, &r) ? -1 : r.counts[event];
}

/* Polls until @id has seen @event at least @n times. */
static int wait_count(int fd, int id, int event, long long n)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (count(fd, id, event) >= n)
			return 0;
		usleep(50 * 1000);
	}
	return -1;
}

static int sh(const char *fmt, const char *arg)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), fmt, arg);
	return system(cmd);
}

FIXTURE(events) {
	int fd;
};

FIXTURE_SETUP(events)
{
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(events)
{
	close(self->fd);
	write_file(INJECTION, "0");
}

/* Down and up on the netdev under @device. */
static void port_down_up(struct __test_metadata *_metadata, int fd,
			 const char *device, const char *netdev)
{
	int all = watch(fd, device, 0);

	ASSERT_LT(0, all) TH_LOG("watch %s: %s", device, strerror(errno));
	ASSERT_EQ(0, sh("/usr/sbin/ip link set %s down", netdev));
	EXPECT_EQ(0, wait_count(fd, all, CQPOOL_EVENT_PORT_ERR, 1))
		TH_LOG("no PORT_ERR on %s", device);
	ASSERT_EQ(0, sh("/usr/sbin/ip link set %s up", netdev));
	EXPECT_EQ(0, wait_count(fd, all, CQPOOL_EVENT_PORT_ACTIVE, 1))
		TH_LOG("no PORT_ACTIVE on %s", device);
	EXPECT_EQ(0, count(fd, all, CQPOOL_EVENT_DEVICE_FATAL));
}

TEST_F(events, rxe_port_down_and_up_are_port_err_and_active)
{
	const char *netdev = getenv("CQPOOL_RXE_NETDEV");

	port_down_up(_metadata, self->fd, "rxe0", netdev ? netdev : "v0");
}

TEST_F(events, siw_port_down_and_up_are_port_err_and_active)
{
	if (!vm_link_made("siw0"))
		SKIP(return, "the VM made no siw0 (CQPOOL_RDMA_LINKS=%s)",
		     getenv("CQPOOL_RDMA_LINKS"));
	ASSERT_EQ(1, device_listed("siw0"))
		TH_LOG("the VM made siw0, and cqpool does not list it");
	port_down_up(_metadata, self->fd, "siw0", "v1");
}

TEST_F(events, address_added_is_gid_change_and_masks_hold)
{
	int all = watch(self->fd, "rxe0", 0);
	int port = watch(self->fd, "rxe0", BIT(CQPOOL_EVENT_PORT_ERR));

	ASSERT_LT(0, all);
	ASSERT_LT(0, port);
	ASSERT_EQ(0, sh("/usr/sbin/ip addr add 10.99.0.7/24 dev %s",
			getenv("CQPOOL_RXE_NETDEV") ?: "v0"));
	EXPECT_EQ(0, wait_count(self->fd, all, CQPOOL_EVENT_GID_CHANGE, 1));
	EXPECT_EQ(0, count(self->fd, port, CQPOOL_EVENT_GID_CHANGE));
	EXPECT_EQ(0, sh("/usr/sbin/ip addr del 10.99.0.7/24 dev %s",
			getenv("CQPOOL_RXE_NETDEV") ?: "v0"));
}

TEST_F(events, injected_device_fatal_reaches_hooks_and_watches)
{
	struct cqpool_cq_get g, plain;
	int all = watch(self->fd, "rxe0", 0);

	ASSERT_LT(0, all);
	ASSERT_EQ(0, shared_get_flags(self->fd, 16, -1, CQPOOL_CQ_GET_HOOK,
				      &g));
	ASSERT_EQ(0, shared_get(self->fd, 16, &plain));

	/* Off by default: nothing is injected. */
	EXPECT_NE(0, write_file(INJECT, "rxe0 device_fatal"));
	EXPECT_EQ(0, count(self->fd, all, CQPOOL_EVENT_DEVICE_FATAL));

	ASSERT_EQ(0, write_file(INJECTION, "1"));
	EXPECT_EQ(0, write_file(INJECT, "rxe0 device_fatal"));
	EXPECT_NE(0, write_file(INJECT, "rxe0 port_err"));
	EXPECT_EQ(1, count(self->fd, all, CQPOOL_EVENT_DEVICE_FATAL));
	EXPECT_EQ(1, count(self->fd, g.id, CQPOOL_EVENT_DEVICE_FATAL));
	/* A reservation without a hook has nothing to read. */
	EXPECT_EQ(-1, count(self->fd, plain.id, CQPOOL_EVENT_DEVICE_FATAL));
	EXPECT_EQ(EINVAL, errno);

	EXPECT_EQ(0, put(self->fd, g.id));
	EXPECT_EQ(0, put(self->fd, plain.id));
}

/*
 * The removal tells every hook and watch once, and does not wait for
 * them: the session gives them back, and what they heard stays readable.
 */
TEST_F(events, device_removal_tells_hooks_and_watches_once)
{
	struct cqpool_cq_get g;
	int all = watch(self->fd, "rxe0", 0);
	long ms;

	ASSERT_LT(0, all);
	ASSERT_EQ(0, shared_get_flags(self->fd, 16, -1, CQPOOL_CQ_GET_HOOK,
				      &g));

	ms = rxe_delete_timed(30);
	ASSERT_LE(0, ms) TH_LOG("rdma link delete did not return in 30 s");
	EXPECT_EQ(1, count(self->fd, all, CQPOOL_EVENT_DEVICE_FATAL));
	EXPECT_EQ(1, count(self->fd, g.id, CQPOOL_EVENT_DEVICE_FATAL));
	EXPECT_EQ(0, put(self->fd, g.id));
	EXPECT_EQ(0, unwatch(self->fd, all));
	ASSERT_EQ(0, rxe_add());
	EXPECT_EQ(0, wait_device_listed("rxe0", 1));
}

TEST_F(events, bad_watches_are_refused)
{
	struct cqpool_events_read r = { .size = sizeof(r), .id = 4242 };
	struct cqpool_destroy d = { .size = sizeof(d), .id = 4242 };
	struct cqpool_cq_get g;
	int w;

	EXPECT_EQ(-1, watch(self->fd, "nosuch0", 0));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_EVENTS_READ, &r));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_EVENTS_UNWATCH, &d));
	EXPECT_EQ(ENOENT, errno);
	w = watch(self->fd, "rxe0", 0);
	ASSERT_LT(0, w);
	r.id = w;
	r.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_EVENTS_READ, &r));
	EXPECT_EQ(EINVAL, errno);
	d.id = w;
	EXPECT_EQ(0, ioctl(self->fd, CQPOOL_IOC_EVENTS_UNWATCH, &d));
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_EVENTS_UNWATCH, &d));
	EXPECT_EQ(ENOENT, errno);
	/* Hooks are cqpool's: an upstream reservation cannot have one. */
	memset(&g, 0, sizeof(g));
	g.size = sizeof(g);
	g.flags = CQPOOL_CQ_GET_UPSTREAM | CQPOOL_CQ_GET_HOOK;
	strcpy(g.device, "rxe0");
	g.nr_cqe = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_CQ_GET, &g));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
