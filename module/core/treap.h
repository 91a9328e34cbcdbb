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
 * and inserts the node, O(log n), only when it does not.
 *
 * Keys must be unique under Less; a node's key changes only through
 * rekey() while it is in the tree.
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

	void insert(Node *n)
	{
		thread(n);
		n->link.left = n->link.right = nullptr;
		root_ = insert(root_, n);
	}

	void erase(Node *n)
	{
		root_ = erase(root_, n);
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
		Node key = *n;
		const Node *lo = n->link.lo, *hi = n->link.hi;

		change(&key);
		if ((!lo || Less()(lo, &key)) && (!hi || Less()(&key, hi))) {
			change(n);
			return;
		}
		erase(n);
		change(n);
		insert(n);
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

	static Node *insert(Node *t, Node *n)
	{
		if (!t)
			return n;
		if (n->link.prio > t->link.prio) {
			split(t, n, n->link.left, n->link.right);
			return n;
		}
		if (Less()(n, t))
			t->link.left = insert(t->link.left, n);
		else
			t->link.right = insert(t->link.right, n);
		return t;
	}

	/* Splits @t into the nodes below @key (@l) and above it (@r). */
	static void split(Node *t, const Node *key, Node *&l, Node *&r)
	{
		if (!t) {
			l = r = nullptr;
		} else if (Less()(t, key)) {
			split(t->link.right, key, t->link.right, r);
			l = t;
		} else {
			split(t->link.left, key, l, t->link.left);
			r = t;
		}
	}

	static Node *merge(Node *l, Node *r)
	{
		if (!l)
			return r;
		if (!r)
			return l;
		if (l->link.prio > r->link.prio) {
			l->link.right = merge(l->link.right, r);
			return l;
		}
		r->link.left = merge(l, r->link.left);
		return r;
	}

	static Node *erase(Node *t, Node *n)
	{
		if (!t)
			return nullptr;
		if (t == n)
			return merge(t->link.left, t->link.right);
		if (Less()(n, t))
			t->link.left = erase(t->link.left, n);
		else
			t->link.right = erase(t->link.right, n);
		return t;
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
