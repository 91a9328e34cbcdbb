/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks the kselftests make that could pass without checking, each
 * a small function of its own, so that verdict_test, which runs on the
 * host in make check, can feed it the bad case and see it fail.
 * Include after kselftest_harness.h.
 */
#ifndef CQPOOL_SELFTEST_VERDICT_H
#define CQPOOL_SELFTEST_VERDICT_H

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/*
 * SKIP() for the rest of a test that has already checked things.  6.1's
 * kselftest harness marks a skipped test as passed (_metadata->passed =
 * 1), which erases every EXPECT that failed before it: so a test that has
 * failed ends as a failure here, and only a test with nothing wrong so
 * far is skipped.
 */
#define SKIP_REST(statement, fmt, ...) do {				\
	if (_metadata->passed)						\
		SKIP(, fmt, ##__VA_ARGS__);				\
	else								\
		TH_LOG("not skipped: a check failed before the skip");	\
	statement;							\
} while (0)

/*
 * Whether a child's wait @status says it died of signal @sig, rather than
 * exiting, or dying of anything else: a child that exits early (its open
 * or its ioctl failed) holds nothing, and a test that reads the totals
 * after it proves nothing.
 */
static inline int killed_by(int status, int sig)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

/*
 * Whether @name is one of the RDMA links the VM made, from @links
 * (vm/init's CQPOOL_RDMA_LINKS, "rxe0 siw0"): the environment decides
 * which devices a test may expect, never the module under test.
 */
static inline int link_made(const char *links, const char *name)
{
	size_t n = strlen(name);
	const char *p = links;

	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, name, n) && (p[n] == ' ' || !p[n]))
			return 1;
		p = strchr(p, ' ');
	}
	return 0;
}

/* link_made() of the VM's own links. */
static inline int vm_link_made(const char *name)
{
	return link_made(getenv("CQPOOL_RDMA_LINKS"), name);
}

/**
 * struct floor - the least a run must have done of one command
 * @nr: the command's number
 * @what: what it is, for the log
 * @min: successful calls, at least
 */
struct floor {
	unsigned int nr;
	const char *what;
	unsigned long min;
};

/*
 * The first of the @n floors that @ok, successful calls by command
 * number, does not reach; NULL when every one is reached.  A fuzzer whose
 * every call is refused checks only the refusals: a regression that
 * rejects every argument must fail it.
 */
static inline const struct floor *floor_unmet(const struct floor *f,
					      unsigned int n,
					      const unsigned long *ok)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ok[f[i].nr] < f[i].min)
			return &f[i];
	return NULL;
}

#endif
