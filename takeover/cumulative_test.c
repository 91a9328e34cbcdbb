// SPDX-License-Identifier: GPL-2.0
/*
 * cqpool_cumulative_test - a cumulative livepatch (atomic replace), as
 * kpatch and vendor livepatch services build them, that knows nothing of
 * the takeover: the kselftest loads it while the takeover is on, which
 * livepatch must refuse (the takeover's klp_state), and once the takeover
 * is gone, which must work.  It patches what /proc/cmdline shows, as
 * samples/livepatch does, so that the test sees it took.
 */
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/seq_file.h>

static int cumulative_cmdline_show(struct seq_file *m, void *v)
{
	seq_puts(m, "cqpool_cumulative_test\n");
	return 0;
}

static struct klp_func cumulative_funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = cumulative_cmdline_show,
	}, { }
};

static struct klp_object cumulative_objs[] = {
	{
		/* NULL: vmlinux. */
		.funcs = cumulative_funcs,
	}, { }
};

static struct klp_patch cumulative_patch = {
	.mod = THIS_MODULE,
	.objs = cumulative_objs,
	.replace = true,
};

static int __init cumulative_init(void)
{
	return klp_enable_patch(&cumulative_patch);
}

static void __exit cumulative_exit(void)
{
}

module_init(cumulative_init);
module_exit(cumulative_exit);

MODULE_DESCRIPTION("Test: a cumulative livepatch that does not carry the takeover's state");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
