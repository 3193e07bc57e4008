/*
 * lib/heap: binomial heap (Vuillemin; the textbook root-list form). Each
 * tree is heap-ordered by `before`; child lists run from the highest degree
 * down, the root list from the lowest degree up.
 */
#include "heap.h"

#define HEAP_MAX_DEGREE 64

void heap_init(struct heap *h, heap_before_fn before)
{
	h->head = h->top = NULL;
	h->size = 0;
	h->before = before;
}

/* The first root in `before` order: the first item, since every tree is
 * heap-ordered. */
static struct heap_node *first_root(const struct heap *h)
{
	struct heap_node *best = h->head;
	if (!best)
		return NULL;
	for (struct heap_node *x = best->sibling; x; x = x->sibling)
		if (h->before(x, best))
			best = x;
	return best;
}

/* y becomes the first child of z; both roots of equal degree. */
static void link(struct heap_node *y, struct heap_node *z)
{
	y->parent = z;
	y->sibling = z->child;
	z->child = y;
	z->degree++;
}

static struct heap_node *merge_lists(struct heap_node *a, struct heap_node *b)
{
	struct heap_node *head = NULL, **tail = &head;
	while (a && b) {
		struct heap_node **pick = a->degree <= b->degree ? &a : &b;
		*tail = *pick;
		tail = &(*pick)->sibling;
		*pick = (*pick)->sibling;
	}
	*tail = a ? a : b;
	return head;
}

/* Adds the root list `list` (increasing degree, parents NULL) to h. */
static void union_roots(struct heap *h, struct heap_node *list)
{
	struct heap_node *head = merge_lists(h->head, list);
	struct heap_node *prev = NULL, *x = head;
	if (!x) {
		h->head = NULL;
		return;
	}
	for (struct heap_node *next = x->sibling; next; next = x->sibling) {
		if (x->degree != next->degree ||
		    (next->sibling && next->sibling->degree == x->degree)) {
			prev = x;
			x = next;
		} else if (!h->before(next, x)) {
			x->sibling = next->sibling;
			link(next, x);
		} else {
			if (prev)
				prev->sibling = next;
			else
				head = next;
			link(x, next);
			x = next;
		}
	}
	h->head = head;
}

/*
 * n joins as a tree of degree 0 and carries into the trees of equal degree
 * at the front of the root list, like adding 1 to a binary counter: O(1)
 * amortised, where a union with the whole root list cost O(log n) always.
 */
void heap_insert(struct heap *h, struct heap_node *n)
{
	struct heap_node *carry = n, *rest = h->head;
	n->parent = n->child = n->sibling = NULL;
	n->degree = 0;
	h->size++;
	if (!h->top || h->before(n, h->top))
		h->top = n;
	while (rest && rest->degree == carry->degree) {
		struct heap_node *next = rest->sibling;
		if (h->before(rest, carry)) {
			link(carry, rest);
			carry = rest;
		} else {
			link(rest, carry);
		}
		rest = next;
	}
	carry->sibling = rest;
	h->head = carry;
}

static void unlink_root(struct heap *h, struct heap_node *r)
{
	struct heap_node **pp = &h->head;
	while (*pp != r)
		pp = &(*pp)->sibling;
	*pp = r->sibling;
	r->sibling = NULL;
}

/* Removes the root r: its children, lowest degree first, rejoin h. */
static void remove_root(struct heap *h, struct heap_node *r)
{
	struct heap_node *list = NULL, *next;
	unlink_root(h, r);
	for (struct heap_node *ch = r->child; ch; ch = next) {
		next = ch->sibling;
		ch->parent = NULL;
		ch->sibling = list;
		list = ch;
	}
	r->child = NULL;
	r->degree = 0;
	h->size--;
	union_roots(h, list);
}

struct heap_node *heap_extract(struct heap *h)
{
	struct heap_node *best = h->top;
	if (best) {
		remove_root(h, best);
		h->top = first_root(h);
	}
	return best;
}

/*
 * Deleting n from its tree B_k leaves binomial trees of degrees 0..k-1:
 * n's children, and on each level of the path from n up to the root an
 * ancestor a cut just above the path child c (a keeps only its children
 * below c, so it becomes a tree of c's degree) plus a's children above c.
 * Those pieces form a heap that is united with the rest: O(log n) with no
 * key changes, so handles stay valid.
 */
void heap_delete(struct heap *h, struct heap_node *n)
{
	struct heap_node *piece[HEAP_MAX_DEGREE];
	struct heap_node *root = n, *next;
	if (!n->parent) {
		remove_root(h, n);
		if (n == h->top)
			h->top = first_root(h);
		return;
	}
	while (root->parent)
		root = root->parent;
	/* Every piece has a degree below the root's: only those slots. */
	unsigned top = root->degree;
	for (unsigned d = 0; d < top; d++)
		piece[d] = NULL;
	unlink_root(h, root);
	h->size--;

	for (struct heap_node *ch = n->child; ch; ch = next) {
		next = ch->sibling;
		ch->parent = ch->sibling = NULL;
		piece[ch->degree] = ch;
	}
	struct heap_node *c = n;
	unsigned cdeg = n->degree;
	for (struct heap_node *a = n->parent; a; a = next) {
		unsigned adeg = a->degree;
		struct heap_node *after;
		for (struct heap_node *ch = a->child; ch != c; ch = after) {
			after = ch->sibling;
			ch->parent = ch->sibling = NULL;
			piece[ch->degree] = ch;
		}
		a->child = c->sibling;
		a->degree = cdeg;
		c->sibling = NULL;
		next = a->parent;
		a->parent = NULL;
		piece[cdeg] = a;
		c = a;
		cdeg = adeg;
	}
	c->sibling = NULL;
	n->parent = n->child = n->sibling = NULL;
	n->degree = 0;

	struct heap_node *list = NULL;
	for (unsigned d = top; d-- > 0;)
		if (piece[d]) {
			piece[d]->sibling = list;
			list = piece[d];
		}
	/* n was no root, so not the first item, which stays a root. */
	union_roots(h, list);
}

void heap_union(struct heap *dst, struct heap *src)
{
	if (src->top && (!dst->top || dst->before(src->top, dst->top)))
		dst->top = src->top;
	dst->size += src->size;
	union_roots(dst, src->head);
	src->head = src->top = NULL;
	src->size = 0;
}

void heap_swap(struct heap *a, struct heap *b)
{
	struct heap t = *a;
	a->head = b->head;
	a->top = b->top;
	a->size = b->size;
	b->head = t.head;
	b->top = t.top;
	b->size = t.size;
}
