/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An intrusive treap: a binary search tree ordered by Less whose nodes
 * also form a max-heap on a priority fixed at insertion, which keeps it
 * balanced in expectation.  The links live inside the node (Node::link),
 * so inserting never allocates and erasing needs no search for a slot.
 * Keys must be unique under Less; a node's key must not change while it
 * is in the tree (erase, change, insert).
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
		Node *n = root_;

		while (n && n->link.right)
			n = n->link.right;
		return n;
	}

	void insert(Node *n)
	{
		n->link.left = n->link.right = nullptr;
		root_ = insert(root_, n);
	}

	void erase(Node *n)
	{
		root_ = erase(root_, n);
		n->link.left = n->link.right = nullptr;
	}

	/*
	 * Calls @visit(node, depth) in order; returns false as soon as the
	 * order or the heap property is broken.
	 */
	template <typename Visit> bool check(Visit &&visit) const
	{
		const Node *prev = nullptr;

		return check(root_, prev, visit);
	}

private:
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
		prev = t;
		if (!visit(t))
			return false;
		return check(t->link.right, prev, visit);
	}

	Node *root_ = nullptr;
};

} // namespace cqp

#endif /* CQPOOL_CORE_TREAP_H */
