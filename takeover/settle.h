/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which reservations on one CQ were put back through ib_core's own put
 * (see tk_take_put_back()): pure C, no kernel header, so that the host
 * tests it too (selftests/host/settle_test.c).
 *
 * The takeover's table holds @excess entries more on the CQ than ib_core
 * counts in use there.  Reservations on one CQ are interchangeable, in
 * cqpool's ledger as in ib_core's count, so any of them whose entries sum
 * to the excess are the ones to give back: with three of s entries and
 * two put back, the excess is 2s, which no single one matches.
 */
#ifndef CQPOOL_TAKEOVER_SETTLE_H
#define CQPOOL_TAKEOVER_SETTLE_H

/*
 * The search's bound: a CQ's reservations come in a few sizes (one per
 * kind of queue of each ULP), and the search is linear in their counts
 * then.  Past it the excess stays, and the next look tries again.
 */
#define TK_SETTLE_STEPS		4096

/**
 * tk_settle_pick() - reservations whose entries sum to an excess
 * @size: the distinct sizes of the CQ's reservations, in entries,
 *	largest first, none zero
 * @count: how many reservations there are of each size
 * @nr: the number of sizes
 * @excess: the entries to account for
 * @take: on success, how many of each size to give back
 *
 * A depth-first search, the most of the largest sizes first: a CQ whose
 * reservations all came back (@excess their sum) takes every one at once.
 *
 * Return: 1 with @take set, 0 when no choice sums to @excess or the
 * search gave up after TK_SETTLE_STEPS choices.
 */
static inline int tk_settle_pick(const unsigned int *size,
				 const unsigned int *count, unsigned int nr,
				 unsigned long excess, unsigned int *take)
{
	unsigned long need = excess;	/* what sizes g and on must make */
	unsigned long steps = 0, left;
	unsigned int g = 0, i;

	if (!nr)
		return !excess;
	take[0] = excess / size[0] < count[0] ? excess / size[0] : count[0];
	for (;;) {
		if (++steps > TK_SETTLE_STEPS)
			return 0;
		left = need - (unsigned long)take[g] * size[g];
		if (!left) {
			for (i = g + 1; i < nr; i++)
				take[i] = 0;
			return 1;
		}
		if (g + 1 < nr) {
			/* The next size, as many as fit. */
			need = left;
			g++;
			take[g] = need / size[g] < count[g] ?
				  need / size[g] : count[g];
			continue;
		}
		/*
		 * The last size took as many as fit, and fewer cannot do
		 * better: back to the last size before it that can give one
		 * up.
		 */
		take[g] = 0;
		while (!take[g]) {
			if (!g)
				return 0;
			g--;
			need += (unsigned long)take[g] * size[g];
		}
		take[g]--;
	}
}

#endif
