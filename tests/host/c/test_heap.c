/*
 * lib/heap against a brute-force model: random insert / extract / delete by
 * handle / union sequences on a min- and a max-ordered heap of the same kind
 * of items, with the heap's structure checked after every operation.
 */
#include <stdint.h>
#include <stdio.h>

#include <stdlib.h>

#include "../../../lib/heap.h"
#include "unit.h"

#define N_ITEMS 300

struct item {
	struct heap_node node;
	unsigned key;
	unsigned id;
	int where;   /* -1: in no heap, else index of the heap */
};

static struct item items[N_ITEMS];

static struct item *item_of(const struct heap_node *n)
{
	return (struct item *)((const char *)n - offsetof(struct item, node));
}

/* Ties on key are broken by id so that the order is total. */
static bool min_before(const struct heap_node *a, const struct heap_node *b)
{
	const struct item *x = item_of(a), *y = item_of(b);
	return x->key != y->key ? x->key < y->key : x->id < y->id;
}

static bool max_before(const struct heap_node *a, const struct heap_node *b)
{
	const struct item *x = item_of(a), *y = item_of(b);
	return x->key != y->key ? x->key > y->key : x->id < y->id;
}

/* Checks heap order, degrees and parent links of a tree; returns its size. */
static size_t check_tree(const struct heap *h, const struct heap_node *t,
			 int where, int *bad)
{
	size_t n = 1;
	unsigned expect = t->degree;
	if (item_of(t)->where != where)
		*bad = 1;
	for (const struct heap_node *c = t->child; c; c = c->sibling) {
		if (c->parent != t || c->degree != --expect ||
		    h->before(c, t))
			*bad = 1;
		n += check_tree(h, c, where, bad);
	}
	if (expect != 0 || n != (size_t)1 << t->degree)
		*bad = 1;
	return n;
}

static void check_heap(const struct heap *h, int where)
{
	int bad = 0;
	size_t n = 0;
	int last = -1;
	for (const struct heap_node *r = h->head; r; r = r->sibling) {
		CHECK(r->parent == NULL, "root with a parent");
		CHECK((int)r->degree > last, "root list not increasing");
		last = (int)r->degree;
		n += check_tree(h, r, where, &bad);
	}
	CHECK(!bad, "heap %d: broken tree", where);
	CHECK(n == heap_size(h), "heap %d: size %zu, counted %zu", where,
	      heap_size(h), n);
	size_t model = 0;
	const struct item *best = NULL;
	for (unsigned i = 0; i < N_ITEMS; i++)
		if (items[i].where == where) {
			model++;
			if (!best || h->before(&items[i].node, &best->node))
				best = &items[i];
		}
	CHECK(model == n, "heap %d: model has %zu items, heap %zu", where,
	      model, n);
	const struct heap_node *top = heap_peek(h);
	CHECK((top == NULL) == (best == NULL) &&
	      (!top || item_of(top) == best), "heap %d: wrong top", where);
}

static void run(unsigned steps, unsigned key_range)
{
	struct heap heaps[2];
	heap_init(&heaps[0], min_before);
	heap_init(&heaps[1], min_before);
	for (unsigned i = 0; i < N_ITEMS; i++)
		items[i] = (struct item){ .id = i, .where = -1 };
	for (unsigned s = 0; s < steps && !failures; s++) {
		unsigned op = rnd(10);
		struct item *it = &items[rnd(N_ITEMS)];
		int w = (int)rnd(2);
		if (op < 4 && it->where < 0) {
			it->key = rnd(key_range);
			heap_insert(&heaps[w], &it->node);
			it->where = w;
		} else if (op < 6 && it->where >= 0) {
			heap_delete(&heaps[it->where], &it->node);
			it->where = -1;
		} else if (op < 8) {
			struct heap_node *top = heap_peek(&heaps[w]);
			struct heap_node *got = heap_extract(&heaps[w]);
			CHECK(top == got, "extract differs from peek");
			if (got)
				item_of(got)->where = -1;
		} else if (op == 8) {
			for (unsigned i = 0; i < N_ITEMS; i++)
				if (items[i].where == 1 - w)
					items[i].where = w;
			heap_union(&heaps[w], &heaps[1 - w]);
			CHECK(heap_size(&heaps[1 - w]) == 0, "union left items");
		} else {
			heap_swap(&heaps[0], &heaps[1]);
			for (unsigned i = 0; i < N_ITEMS; i++)
				if (items[i].where >= 0)
					items[i].where = 1 - items[i].where;
		}
		check_heap(&heaps[0], 0);
		check_heap(&heaps[1], 1);
	}
}

/* The same code as a max-heap: extraction yields non-increasing keys. */
static void max_order(void)
{
	struct heap h;
	heap_init(&h, max_before);
	for (unsigned i = 0; i < N_ITEMS; i++) {
		items[i] = (struct item){ .id = i, .key = rnd(50), .where = 0 };
		heap_insert(&h, &items[i].node);
	}
	for (unsigned i = 0; i < N_ITEMS; i += 3) {
		heap_delete(&h, &items[i].node);
		items[i].where = -1;
	}
	check_heap(&h, 0);
	unsigned last = ~0u, n = 0;
	for (struct heap_node *x; (x = heap_extract(&h)); n++) {
		CHECK(item_of(x)->key <= last, "max-heap out of order");
		last = item_of(x)->key;
	}
	CHECK(n == N_ITEMS - (N_ITEMS + 2) / 3, "max-heap lost items: %u", n);
}

int main(void)
{
	run(20000, 8);        /* many equal keys: ties by id */
	run(20000, 1u << 30);
	max_order();
	return unit_exit_status();
}
