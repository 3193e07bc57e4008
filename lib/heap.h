/*
 * lib/heap: an addressable, mergeable priority queue (binomial heap).
 *
 * Intrusive: the caller embeds a struct heap_node in each item and gets the
 * item back with container_of-style arithmetic. A node is its own handle, so
 * delete-by-handle needs no search. The order is the caller's `before`
 * relation: before(a, b) is true when a must leave the heap before b. One
 * implementation thus serves min- and max-ordered use: a min-heap and a
 * max-heap of the same items differ only in the relation they are given.
 *
 * Costs for n items: extract, delete, union O(log n); insert O(1)
 * amortised (a carry through the smallest trees, as in a binary counter);
 * peek and size O(1) (the first item is kept; the `before` relation must be
 * a strict total order, so that it is one item). No allocation;
 * freestanding.
 */
#ifndef LIB_HEAP_H
#define LIB_HEAP_H

#include <stdbool.h>
#include <stddef.h>

struct heap_node {
	struct heap_node *parent, *child, *sibling;
	unsigned degree;
};

typedef bool (*heap_before_fn)(const struct heap_node *a,
			       const struct heap_node *b);

struct heap {
	struct heap_node *head;   /* root list, increasing degree */
	struct heap_node *top;    /* the first item (always a root) */
	size_t size;
	heap_before_fn before;
};

void heap_init(struct heap *h, heap_before_fn before);
static inline size_t heap_size(const struct heap *h) { return h->size; }

void heap_insert(struct heap *h, struct heap_node *n);
/* The first item in `before` order, or NULL when empty. */
static inline struct heap_node *heap_peek(const struct heap *h)
{
	return h->top;
}
struct heap_node *heap_extract(struct heap *h);
/* n must be in h. */
void heap_delete(struct heap *h, struct heap_node *n);
/* Moves every item of src into dst (same order relation); src ends empty. */
void heap_union(struct heap *dst, struct heap *src);
/* Exchanges the contents of two heaps with the same relation, O(1). */
void heap_swap(struct heap *a, struct heap *b);

#endif
