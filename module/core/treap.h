/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An intrusive treap: a binary search tree ordered by Less whose nodes
 * also form a max-heap on a priority fixed at insertion, which keeps it
 * balanced in expectation.  The links live inside the node (Node::link),
 * so inserting never allocates and erasing needs no search for a slot.
 *
 * The nodes are also threaded in order (link.lo, link.hi: the next lower
 * and higher), so the maximum is at hand and a key can change in place:
 * rekey() leaves the tree as it is when the node's new key still falls
 * between its neighbours', which is the steady state of a pool (a
 * reservation or a release on the CQ that has the most room), and erases
 * and inserts the node, O(log n), only when it does not.  raise() and
 * lower() do the same for a change known to go one way, with one
 * neighbour to compare.
 *
 * Keys must be unique under Less; a node's key changes only through
 * rekey(), raise() or lower() while it is in the tree.
 */
#ifndef CQPOOL_CORE_TREAP_H
#define CQPOOL_CORE_TREAP_H

#include "types.h"

namespace cqp {

template <typename Node, typename Less> class Treap {
public:
	Treap() = default;
	Treap(const Treap &) = delete;
	Treap &operator=(const Treap &) = delete;

	bool empty() const
	{
		return !root_;
	}

	Node *max() const
	{
		return max_;
	}

	/*
	 * Down to where @n's priority belongs, then the subtree there split
	 * around @n.  Iterative, as erase() is: a descent costs no calls.
	 */
	void insert(Node *n)
	{
		Node **at = &root_;

		thread(n);
		while (*at && (*at)->link.prio >= n->link.prio)
			at = child(*at, n);
		split(*at, n, &n->link.left, &n->link.right);
		*at = n;
	}

	void erase(Node *n)
	{
		Node **at = &root_;

		while (*at && *at != n)
			at = child(*at, n);
		if (*at)
			*at = merge(n->link.left, n->link.right);
		n->link.left = n->link.right = nullptr;
		unthread(n);
	}

	/*
	 * Changes @n's key by @change(node), which may touch nothing but the
	 * fields Less reads.  @change runs on a copy first, to see whether
	 * the node can stay where it is.
	 */
	template <typename Change> void rekey(Node *n, Change &&change)
	{
		if (!stays(n, change, n->link.hi, n->link.lo))
			move(n, change);
	}

	/*
	 * rekey() for a @change that only ever raises the key (lower(): only
	 * lowers it), which has one neighbour to compare with, not two.
	 * Inline: the check in place is a get's or put's fast path.
	 */
	template <typename Change>
	__attribute__((always_inline)) void raise(Node *n, Change &&change)
	{
		if (!stays(n, change, n->link.hi, nullptr))
			move(n, change);
	}

	template <typename Change>
	__attribute__((always_inline)) void lower(Node *n, Change &&change)
	{
		if (!stays(n, change, nullptr, n->link.lo))
			move(n, change);
	}

	/*
	 * Calls @visit(node, depth) in order; returns false as soon as the
	 * order or the heap property is broken.
	 */
	template <typename Visit> bool check(Visit &&visit) const
	{
		const Node *prev = nullptr;

		if (!check(root_, prev, visit))
			return false;
		/* The last node in order is the maximum, and the end of the thread. */
		return prev == max_ && (!prev || !prev->link.hi);
	}

private:
	/*
	 * Changes @n by @change if its new key still falls below @above and
	 * above @below, either of which may be null; false, and nothing
	 * changed, if not.
	 */
	template <typename Change>
	__attribute__((always_inline)) bool stays(Node *n, Change change,
						  const Node *above,
						  const Node *below)
	{
		Node key = *n;

		change(&key);
		if ((above && !Less()(&key, above)) ||
		    (below && !Less()(below, &key)))
			return false;
		change(n);
		return true;
	}

	/* Out of line, so that rekey() in place keeps a small frame. */
	template <typename Change>
	__attribute__((noinline)) void move(Node *n, Change change)
	{
		erase(n);
		change(n);
		insert(n);
	}

	/* Links @n between its neighbours in order: a search, no change. */
	void thread(Node *n)
	{
		Node *lo = nullptr, *hi = nullptr;

		for (Node *t = root_; t;) {
			if (Less()(n, t)) {
				hi = t;
				t = t->link.left;
			} else {
				lo = t;
				t = t->link.right;
			}
		}
		n->link.lo = lo;
		n->link.hi = hi;
		if (lo)
			lo->link.hi = n;
		if (hi)
			hi->link.lo = n;
		else
			max_ = n;
	}

	void unthread(Node *n)
	{
		if (n->link.lo)
			n->link.lo->link.hi = n->link.hi;
		if (n->link.hi)
			n->link.hi->link.lo = n->link.lo;
		else
			max_ = n->link.lo;
		n->link.lo = n->link.hi = nullptr;
	}

	/* The link under @t that @n's search follows. */
	static Node **child(Node *t, const Node *n)
	{
		return Less()(n, t) ? &t->link.left : &t->link.right;
	}

	/* Splits @t into the nodes below @key (*@l) and above it (*@r). */
	static void split(Node *t, const Node *key, Node **l, Node **r)
	{
		while (t) {
			if (Less()(t, key)) {
				*l = t;
				l = &t->link.right;
				t = t->link.right;
			} else {
				*r = t;
				r = &t->link.left;
				t = t->link.left;
			}
		}
		*l = *r = nullptr;
	}

	/* Joins @l and @r, every node of @l below every node of @r. */
	static Node *merge(Node *l, Node *r)
	{
		Node *root = nullptr, **at = &root;

		while (l && r) {
			if (l->link.prio > r->link.prio) {
				*at = l;
				at = &l->link.right;
				l = l->link.right;
			} else {
				*at = r;
				at = &r->link.left;
				r = r->link.left;
			}
		}
		*at = l ? l : r;
		return root;
	}

	template <typename Visit>
	static bool check(const Node *t, const Node *&prev, Visit &visit)
	{
		if (!t)
			return true;
		if (t->link.left && t->link.left->link.prio > t->link.prio)
			return false;
		if (t->link.right && t->link.right->link.prio > t->link.prio)
			return false;
		if (!check(t->link.left, prev, visit))
			return false;
		if (prev && !Less()(prev, t))
			return false;
		if (t->link.lo != prev || (prev && prev->link.hi != t))
			return false;
		prev = t;
		if (!visit(t))
			return false;
		return check(t->link.right, prev, visit);
	}

	Node *root_ = nullptr;
	Node *max_ = nullptr;
};

} // namespace cqp

#endif /* CQPOOL_CORE_TREAP_H */
