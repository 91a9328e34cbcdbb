// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: /dev/cqpool - who may open it, and what every ioctl does with
 * good and bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/cqpool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

/* An ioctl number for struct cqpool_version of @size bytes. */
#define VERSION_CMD(size) _IOC(_IOC_READ | _IOC_WRITE, CQPOOL_IOC_MAGIC, \
			       _IOC_NR(CQPOOL_IOC_VERSION), (size))

FIXTURE(dev) {
	int fd;
	struct cqpool_version v;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s (is cqpool_harness.ko loaded?)",
				      CQPOOL_DEVICE_PATH, strerror(errno));
	memset(&self->v, 0, sizeof(self->v));
	self->v.size = sizeof(self->v);
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST_F(dev, version_reports_abi)
{
	ASSERT_EQ(0, ioctl(self->fd, CQPOOL_IOC_VERSION, &self->v));
	EXPECT_EQ(CQPOOL_ABI_VERSION, self->v.abi_version);
	EXPECT_EQ(sizeof(self->v), self->v.size);
	/* The module reports its release; 0.0 would mean nothing was written. */
	EXPECT_NE(0, self->v.module_major * 1000 + self->v.module_minor);
}

TEST_F(dev, unknown_command_is_enotty)
{
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(CQPOOL_IOC_MAGIC, 0x3f,
					    struct cqpool_version), &self->v));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR('x', 0x00, struct cqpool_version),
			    &self->v));
	EXPECT_EQ(ENOTTY, errno);
	/* The version command with the wrong direction is another command. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOR(CQPOOL_IOC_MAGIC, 0x00,
					   struct cqpool_version), &self->v));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, size_below_first_version_is_einval)
{
	self->v.size = 8;
	EXPECT_EQ(-1, ioctl(self->fd, VERSION_CMD(8), &self->v));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, self->v.abi_version);
}

TEST_F(dev, size_field_disagreeing_with_command_is_einval)
{
	self->v.size = sizeof(self->v) + 8;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_VERSION, &self->v));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, self->v.abi_version);
}

TEST_F(dev, larger_struct_with_zero_tail_is_accepted)
{
	struct {
		struct cqpool_version v;
		__u64 future[2];
	} big = { .v.size = sizeof(big) };

	ASSERT_EQ(0, ioctl(self->fd, VERSION_CMD(sizeof(big)), &big));
	EXPECT_EQ(CQPOOL_ABI_VERSION, big.v.abi_version);
	EXPECT_EQ(0, big.future[0]);
	EXPECT_EQ(0, big.future[1]);
}

TEST_F(dev, larger_struct_with_unknown_tail_is_e2big)
{
	struct {
		struct cqpool_version v;
		__u64 future;
	} big = { .v.size = sizeof(big), .future = 1 };

	EXPECT_EQ(-1, ioctl(self->fd, VERSION_CMD(sizeof(big)), &big));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, big.v.abi_version);
}

TEST_F(dev, nonzero_flags_are_einval)
{
	self->v.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_VERSION, &self->v));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, self->v.abi_version);
}

TEST_F(dev, nonzero_reserved_is_einval)
{
	self->v.reserved[3] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_VERSION, &self->v));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, self->v.abi_version);
}

TEST_F(dev, unmapped_argument_is_efault)
{
	void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ASSERT_NE(MAP_FAILED, page);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_VERSION, page));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CQPOOL_IOC_VERSION, NULL));
	EXPECT_EQ(EFAULT, errno);
	munmap(page, 4096);
}

/* ioctl of command @i with a @size-byte argument @arg: errno, or 0. */
static int try_cmd(int fd, unsigned int i, unsigned int size, void *arg)
{
	unsigned long cmd = _IOC(cmds[i].dir, CQPOOL_IOC_MAGIC, cmds[i].nr,
				 size);

	if (arg)
		memcpy(arg, &size, sizeof(size));
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/*
 * The checks every command shares, before it does anything: each bad
 * argument gets its errno, whatever else the argument says.
 */
TEST_F(dev, every_command_refuses_malformed_arguments)
{
	unsigned int i;

	for (i = 0; i < NR_CMDS; i++) {
		unsigned int size = cmds[i].size;
		__u8 arg[1024] = {};

		EXPECT_EQ(EINVAL, try_cmd(self->fd, i, 8, arg))
			TH_LOG("%s below its first size", cmds[i].type);
		memset(arg, 0, sizeof(arg));
		arg[size] = 1;
		EXPECT_EQ(E2BIG, try_cmd(self->fd, i, size + 8, arg))
			TH_LOG("%s with an unknown tail", cmds[i].type);
		memset(arg, 0, sizeof(arg));
		arg[7] = 0x80;	/* flags bit 31 */
		EXPECT_EQ(EINVAL, try_cmd(self->fd, i, size, arg))
			TH_LOG("%s with an unknown flag", cmds[i].type);
		memset(arg, 0, sizeof(arg));
		arg[size - 1] = 1;	/* the last reserved byte */
		EXPECT_EQ(EINVAL, try_cmd(self->fd, i, size, arg))
			TH_LOG("%s with a reserved byte set", cmds[i].type);
		memset(arg, 0, sizeof(arg));
		arg[cmds[i].reserved] = 1;	/* the first */
		EXPECT_EQ(EINVAL, try_cmd(self->fd, i, size, arg))
			TH_LOG("%s with a reserved byte set", cmds[i].type);
		memset(arg, 0, sizeof(arg));
		memcpy(arg, &size, sizeof(size));
		size += 8;
		EXPECT_EQ(EINVAL, ioctl(self->fd, _IOC(cmds[i].dir,
						       CQPOOL_IOC_MAGIC,
						       cmds[i].nr, size),
					arg) ? errno : 0)
			TH_LOG("%s whose size field disagrees", cmds[i].type);
		EXPECT_EQ(EFAULT, try_cmd(self->fd, i, cmds[i].size, NULL))
			TH_LOG("%s at NULL", cmds[i].type);
	}
}

/* Runs @fn in a child and returns the errno its open() of the device got. */
static int open_errno_in_child(void (*drop)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd;

		drop();
		fd = open(CQPOOL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		_exit(fd >= 0 ? 0 : errno);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void become_nobody(void)
{
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		_exit(200);
}

static void drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		_exit(201);
	data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &=
		~CAP_TO_MASK(CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &hdr, data))
		_exit(202);
}

TEST(non_root_open_is_eacces)
{
	ASSERT_EQ(0, getuid()) TH_LOG("run as root: the test drops to nobody");
	EXPECT_EQ(EACCES, open_errno_in_child(become_nobody));
}

TEST(root_without_cap_sys_admin_is_eperm)
{
	ASSERT_EQ(0, getuid()) TH_LOG("run as root: the test drops a cap");
	EXPECT_EQ(EPERM, open_errno_in_child(drop_cap_sys_admin));
}

TEST_HARNESS_MAIN
