// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cqpool: the ioctl interface of the test and benchmark harness.
 * This file checks who may open it and what every argument looks like;
 * session.c carries the commands out.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/uaccess.h>
#include "uapi/linux/cqpool.h"

#include <cqpool/cqpool.h>

#include "testing.h"
#include "session.h"

/* Every argument starts with its size and flags. */
struct cqh_arg_head {
	__u32 size;
	__u32 flags;
};

/**
 * struct cqh_cmd - an ioctl command
 * @cmd: its number, with the size of the struct this module knows
 * @min_size: the size of the first version of its struct (*_SIZE_VER0)
 * @flags: the flags it knows
 * @reserved: offset of its reserved array, which runs to the struct's end
 * @run: carries it out on the copied-in argument; for an _IOWR command,
 *	the argument is copied back when it returns 0
 * @undo: for a command that makes an object, destroys it again, given
 *	its id: what the caller cannot learn (the copy back failed) must
 *	not stay behind
 * @id: offset of the made object's id in the argument
 */
struct cqh_cmd {
	unsigned int cmd;
	size_t min_size;
	u32 flags;
	size_t reserved;
	int (*run)(struct cqh_session *s, void *arg);
	int (*undo)(struct cqh_session *s, void *arg);
	size_t id;
};

/* Room for the argument of any command. */
union cqh_args {
	struct cqh_arg_head head;
	struct cqpool_version version;
	struct cqpool_pool_create pool_create;
	struct cqpool_destroy destroy;
	struct cqpool_cq_get cq_get;
	struct cqpool_events_watch events_watch;
	struct cqpool_events_read events_read;
	struct cqpool_list list;
	struct cqpool_conn_create conn_create;
	struct cqpool_traffic traffic;
	struct cqpool_trigger trigger;
	struct cqpool_bench bench;
};

static int cqpool_version(struct cqh_session *s, void *arg)
{
	struct cqpool_version *v = arg;

	v->abi_version = CQPOOL_ABI_VERSION;
	v->module_major = CQPOOL_VERSION_MAJOR;
	v->module_minor = CQPOOL_VERSION_MINOR;
	return 0;
}

#define CQH_CMD_COMMON(_cmd, _type, _ver0, _flags, _run)		\
	.cmd = _cmd,							\
	.min_size = (_ver0) + CQH_CMD_FITS(_type),			\
	.flags = _flags,						\
	.reserved = offsetof(_type, reserved),				\
	.run = _run

#define CQH_CMD(_cmd, _type, _ver0, _flags, _run) \
	{ CQH_CMD_COMMON(_cmd, _type, _ver0, _flags, _run) }

#define CQH_CMD_MAKES(_cmd, _type, _ver0, _flags, _run, _undo) {	\
	CQH_CMD_COMMON(_cmd, _type, _ver0, _flags, _run),		\
	.undo = _undo,							\
	.id = offsetof(_type, id),					\
}

/* Each command's struct must fit union cqh_args. */
#define CQH_CMD_FITS(_type) \
	BUILD_BUG_ON_ZERO(sizeof(_type) > sizeof(union cqh_args))

/* No struct is smaller than its first version. */
static_assert(sizeof(struct cqpool_version) >= CQPOOL_VERSION_SIZE_VER0);
static_assert(sizeof(struct cqpool_pool_create) >=
	      CQPOOL_POOL_CREATE_SIZE_VER0);
static_assert(sizeof(struct cqpool_destroy) >= CQPOOL_DESTROY_SIZE_VER0);
static_assert(sizeof(struct cqpool_cq_get) >= CQPOOL_CQ_GET_SIZE_VER0);
static_assert(sizeof(struct cqpool_events_watch) >=
	      CQPOOL_EVENTS_WATCH_SIZE_VER0);
static_assert(sizeof(struct cqpool_events_read) >=
	      CQPOOL_EVENTS_READ_SIZE_VER0);
static_assert(sizeof(struct cqpool_list) >= CQPOOL_LIST_SIZE_VER0);
static_assert(sizeof(struct cqpool_conn_create) >=
	      CQPOOL_CONN_CREATE_SIZE_VER0);
static_assert(sizeof(struct cqpool_traffic) >= CQPOOL_TRAFFIC_SIZE_VER0);
static_assert(sizeof(struct cqpool_trigger) >= CQPOOL_TRIGGER_SIZE_VER0);
static_assert(sizeof(struct cqpool_bench) >= CQPOOL_BENCH_SIZE_VER0);

static const struct cqh_cmd cqh_cmds[] = {
	CQH_CMD(CQPOOL_IOC_VERSION, struct cqpool_version,
		CQPOOL_VERSION_SIZE_VER0, 0, cqpool_version),
	CQH_CMD_MAKES(CQPOOL_IOC_POOL_CREATE, struct cqpool_pool_create,
		      CQPOOL_POOL_CREATE_SIZE_VER0,
			 CQPOOL_POOL_NO_SHRINK | CQPOOL_POOL_NO_RESIZE |
			 CQPOOL_POOL_RESIZE, cqh_session_pool_create,
			 cqh_session_pool_destroy),
	CQH_CMD(CQPOOL_IOC_POOL_DESTROY, struct cqpool_destroy,
		CQPOOL_DESTROY_SIZE_VER0, 0, cqh_session_pool_destroy),
	CQH_CMD_MAKES(CQPOOL_IOC_CQ_GET, struct cqpool_cq_get,
		      CQPOOL_CQ_GET_SIZE_VER0,
			 CQPOOL_CQ_GET_SHARED | CQPOOL_CQ_GET_UPSTREAM |
			 CQPOOL_CQ_GET_HOOK | CQPOOL_CQ_GET_TAKEN_OVER,
			 cqh_session_cq_get,
			 cqh_session_cq_put),
	CQH_CMD(CQPOOL_IOC_CQ_PUT, struct cqpool_destroy,
		CQPOOL_DESTROY_SIZE_VER0, 0, cqh_session_cq_put),
	CQH_CMD_MAKES(CQPOOL_IOC_EVENTS_WATCH, struct cqpool_events_watch,
		      CQPOOL_EVENTS_WATCH_SIZE_VER0, 0,
			 cqh_session_events_watch,
			 cqh_session_events_unwatch),
	CQH_CMD(CQPOOL_IOC_EVENTS_UNWATCH, struct cqpool_destroy,
		CQPOOL_DESTROY_SIZE_VER0, 0, cqh_session_events_unwatch),
	CQH_CMD(CQPOOL_IOC_EVENTS_READ, struct cqpool_events_read,
		CQPOOL_EVENTS_READ_SIZE_VER0, 0, cqh_session_events_read),
	CQH_CMD(CQPOOL_IOC_LIST, struct cqpool_list, CQPOOL_LIST_SIZE_VER0,
		0, cqh_session_list),
	CQH_CMD_MAKES(CQPOOL_IOC_CONN_CREATE, struct cqpool_conn_create,
		      CQPOOL_CONN_CREATE_SIZE_VER0, 0,
			 cqh_session_conn_create,
			 cqh_session_conn_destroy),
	CQH_CMD(CQPOOL_IOC_CONN_DESTROY, struct cqpool_destroy,
		CQPOOL_DESTROY_SIZE_VER0, 0, cqh_session_conn_destroy),
	CQH_CMD(CQPOOL_IOC_TRAFFIC, struct cqpool_traffic,
		CQPOOL_TRAFFIC_SIZE_VER0, 0, cqh_session_traffic),
	CQH_CMD(CQPOOL_IOC_TRIGGER, struct cqpool_trigger,
		CQPOOL_TRIGGER_SIZE_VER0, 0, cqh_session_trigger),
	CQH_CMD(CQPOOL_IOC_BENCH, struct cqpool_bench,
		CQPOOL_BENCH_SIZE_VER0,
		   CQPOOL_BENCH_F_SHARED | CQPOOL_BENCH_F_NO_RESIZE |
			   CQPOOL_BENCH_F_RESIZE | CQPOOL_BENCH_F_TAKEOVER |
			   CQPOOL_BENCH_F_TAKEOVER_DIRECT |
			   CQPOOL_BENCH_F_LEDGER,
		   cqh_bench_run),
};

/*
 * The object a command made, destroyed again.  Its id was never seen by
 * the caller; another thread of the same file may have guessed it and
 * destroyed it first, which leaves nothing to do.
 */
static void cqh_undo(const struct cqh_cmd *c, struct cqh_session *s,
		     const void *karg)
{
	struct cqpool_destroy d = { .size = sizeof(d) };

	memcpy(&d.id, (const u8 *)karg + c->id, sizeof(d.id));
	c->undo(s, &d);
}

/* Two commands are the same when only the size they encode differs. */
static bool cqh_cmd_is(unsigned int cmd, unsigned int known)
{
	const unsigned int mask = ~(_IOC_SIZEMASK << _IOC_SIZESHIFT);

	return (cmd & mask) == (known & mask);
}

/*
 * The size encoded in the command and the struct's own size field must
 * agree.  A struct smaller than the first version is refused; a larger
 * one is accepted when its tail (what this module does not know) is
 * zero.  Unknown flags and non-zero reserved fields are refused.
 */
static long cqh_run(const struct cqh_cmd *c, unsigned int cmd,
		    struct cqh_session *s, void __user *uarg)
{
	size_t ksize = _IOC_SIZE(c->cmd), usize = _IOC_SIZE(cmd);
	union cqh_args karg;
	int ret;

	if (usize < c->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(&karg, ksize, uarg, usize);
	if (ret)
		return ret;
	if (karg.head.size != usize || (karg.head.flags & ~c->flags) ||
	    memchr_inv((u8 *)&karg + c->reserved, 0, ksize - c->reserved))
		return -EINVAL;

	ret = c->run(s, &karg);
	if (ret || !(_IOC_DIR(c->cmd) & _IOC_READ))
		return ret;
	if (copy_to_user(uarg, &karg, min(ksize, usize))) {
		if (c->undo)
			cqh_undo(c, s, &karg);
		return -EFAULT;
	}
	return 0;
}

/*
 * The capability open checked is checked again for every command: a file
 * passed to another process, or kept across a drop of privilege, does
 * not keep what it could do.
 */
static long cqh_ioctl(struct file *file, unsigned int cmd,
		      unsigned long arg)
{
	int i;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	for (i = 0; i < ARRAY_SIZE(cqh_cmds); i++)
		if (cqh_cmd_is(cmd, cqh_cmds[i].cmd))
			return cqh_run(&cqh_cmds[i], cmd,
					  file->private_data,
					  (void __user *)arg);
	return -ENOTTY;
}

static int cqh_open(struct inode *inode, struct file *file)
{
	/* The mode already says root only; a root without the cap is refused too. */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	file->private_data = cqh_session_create();
	if (!file->private_data)
		return -ENOMEM;
	return nonseekable_open(inode, file);
}

static int cqh_release(struct inode *inode, struct file *file)
{
	cqh_session_destroy(file->private_data);
	return 0;
}

static const struct file_operations cqh_fops = {
	.owner = THIS_MODULE,
	.open = cqh_open,
	.release = cqh_release,
	.unlocked_ioctl = cqh_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice cqh_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "cqpool",
	.fops = &cqh_fops,
	.mode = 0600,
};

int cqh_chardev_init(void)
{
	return misc_register(&cqh_miscdev);
}

void cqh_chardev_exit(void)
{
	misc_deregister(&cqh_miscdev);
}
