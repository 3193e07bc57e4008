/* lib/ratsum: fixed-point bounds, and exact sums by a product tree. */
#include "ratsum.h"

#include "intmath.h"
#include "sort.h"

__extension__ typedef unsigned __int128 u128;

/*
 * floor(e 2^64 / p), and whether it dropped a remainder, in 32-bit steps:
 * a 128-bit division would need a compiler helper the kernel does not link.
 */
static u128 fixed(uint32_t e, uint32_t p, bool *inexact)
{
	uint64_t whole = e / p, r = e % p;
	uint64_t hi = (r << 32) / p;
	r = (r << 32) % p;
	uint64_t lo = (r << 32) / p;
	r = (r << 32) % p;
	*inexact = r != 0;
	return (u128)whole << 64 | hi << 32 | lo;
}

static u128 bound_of(const struct ratsum *s)
{
	return (u128)s->whole << 64 | s->frac;
}

static void set_bound(struct ratsum *s, u128 v)
{
	s->whole = (uint64_t)(v >> 64);
	s->frac = (uint64_t)v;
}

void ratsum_add(struct ratsum *s, uint32_t e, uint32_t p)
{
	bool inexact;
	set_bound(s, bound_of(s) + fixed(e, p, &inexact));
	s->inexact += inexact;
}

void ratsum_sub(struct ratsum *s, uint32_t e, uint32_t p)
{
	bool inexact;
	set_bound(s, bound_of(s) - fixed(e, p, &inexact));
	s->inexact -= inexact;
}

enum ratsum_answer ratsum_bound(const struct ratsum *a, const struct ratsum *b,
				uint32_t e, uint32_t p, uint32_t m)
{
	bool inexact;
	u128 lo = bound_of(a) + fixed(e, p, &inexact);
	uint64_t c = a->inexact + inexact;
	if (b) {
		lo -= bound_of(b);
		c -= b->inexact;
	}
	u128 limit = (u128)m << 64;
	if (lo > limit)
		return RATSUM_EXCEEDS;
	return lo + c <= limit ? RATSUM_FITS : RATSUM_UNSURE;
}

/* ---- multi-word naturals: little-endian 64-bit limbs */

/* r[0..n) += a[0..n); the carry out. */
static uint64_t add_n(uint64_t *r, const uint64_t *a, size_t n)
{
	uint64_t carry = 0;
	for (size_t i = 0; i < n; i++) {
		u128 v = (u128)r[i] + a[i] + carry;
		r[i] = (uint64_t)v;
		carry = (uint64_t)(v >> 64);
	}
	return carry;
}

/* r[0..n) -= a[0..n); the borrow out. */
static uint64_t sub_n(uint64_t *r, const uint64_t *a, size_t n)
{
	uint64_t borrow = 0;
	for (size_t i = 0; i < n; i++) {
		u128 v = (u128)r[i] - a[i] - borrow;
		r[i] = (uint64_t)v;
		borrow = (uint64_t)(v >> 64) & 1;
	}
	return borrow;
}

/* Adds c at r[0], carrying through r[0..n). */
static void carry_into(uint64_t *r, size_t n, uint64_t c)
{
	for (size_t i = 0; c && i < n; i++) {
		r[i] += c;
		c = r[i] < c;
	}
}

static void borrow_from(uint64_t *r, size_t n, uint64_t b)
{
	for (size_t i = 0; b && i < n; i++) {
		uint64_t old = r[i];
		r[i] -= b;
		b = old < b;
	}
}

/* r[0..na+nb) = a * b, schoolbook. */
static void mul_basic(uint64_t *r, const uint64_t *a, size_t na,
		      const uint64_t *b, size_t nb)
{
	for (size_t i = 0; i < na + nb; i++)
		r[i] = 0;
	for (size_t i = 0; i < na; i++) {
		uint64_t carry = 0;
		for (size_t j = 0; j < nb; j++) {
			u128 v = (u128)a[i] * b[j] + r[i + j] + carry;
			r[i + j] = (uint64_t)v;
			carry = (uint64_t)(v >> 64);
		}
		r[i + nb] = carry;
	}
}

/* Below this many limbs schoolbook is faster than splitting. */
#define KARATSUBA_MIN 24

/*
 * r[0..2n) = a * b for n-limb a and b (Karatsuba): with a = a0 + a1 X,
 * b = b0 + b1 X, X = 2^(64h), the product is z0 + z1 X + z2 X^2 where
 * z1 = (a0 + a1)(b0 + b1) - z0 - z2. Scratch: 4n + 12 log2(n) limbs.
 */
static void karatsuba(uint64_t *r, const uint64_t *a, const uint64_t *b,
		      size_t n, uint64_t *s)
{
	if (n < KARATSUBA_MIN) {
		mul_basic(r, a, n, b, n);
		return;
	}
	size_t h = n / 2, l = n - h;
	karatsuba(r, a, b, h, s);                       /* z0 */
	karatsuba(r + 2 * h, a + h, b + h, l, s);       /* z2 */
	uint64_t *sa = s, *sb = s + l + 1, *z1 = s + 2 * (l + 1);
	for (size_t i = 0; i < l; i++) {
		sa[i] = a[h + i];
		sb[i] = b[h + i];
	}
	sa[l] = sb[l] = 0;
	carry_into(sa + h, l + 1 - h, add_n(sa, a, h));
	carry_into(sb + h, l + 1 - h, add_n(sb, b, h));
	karatsuba(z1, sa, sb, l + 1, s + 4 * (l + 1));
	borrow_from(z1 + 2 * h, 2 * (l + 1) - 2 * h, sub_n(z1, r, 2 * h));
	borrow_from(z1 + 2 * l, 2, sub_n(z1, r + 2 * h, 2 * l));
	/* z1 < 2^(64(h + l + 1)): its higher limbs are zero. */
	carry_into(r + h + (h + l + 1), 2 * n - h - (h + l + 1),
		   add_n(r + h, z1, h + l + 1));
}

/* r[0..na+nb) = a * b, r apart from a and b. Scratch: 8 max(na, nb) + 1024
 * limbs. */
static void mul(uint64_t *r, const uint64_t *a, size_t na, const uint64_t *b,
		size_t nb, uint64_t *s)
{
	if (na < nb) {
		const uint64_t *t = a;
		a = b;
		b = t;
		size_t tn = na;
		na = nb;
		nb = tn;
	}
	if (nb < KARATSUBA_MIN) {
		mul_basic(r, a, na, b, nb);
		return;
	}
	if (na == nb) {
		karatsuba(r, a, b, na, s);
		return;
	}
	/* Unbalanced: a in nb-limb pieces, each a balanced product. */
	for (size_t i = 0; i < na + nb; i++)
		r[i] = 0;
	for (size_t off = 0; off < na; off += nb) {
		size_t len = na - off < nb ? na - off : nb;
		mul(s, a + off, len, b, nb, s + len + nb);
		carry_into(r + off + len + nb, na - off - len,
			   add_n(r + off, s, len + nb));
	}
}

/* ---- the exact sum */

/*
 * Reduces every term, sorts them by period and merges each period's terms:
 * their integer part goes to *whole, the rest stays as one reduced term
 * r/p, 0 < r < p. Returns how many terms are left.
 */
static size_t merge_periods(uint64_t *term, size_t n, uint64_t *whole)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t e = (uint32_t)term[i], p = (uint32_t)(term[i] >> 32);
		uint32_t g = (uint32_t)gcd_u64(e, p);
		term[i] = ratsum_term(e / g, p / g);
	}
	sort_u64(term, n);
	size_t out = 0;
	for (size_t i = 0; i < n;) {
		uint64_t p = term[i] >> 32, sum = 0;
		for (; i < n && term[i] >> 32 == p; i++)
			sum += (uint32_t)term[i];
		*whole += sum / p;
		uint64_t r = sum % p, g = gcd_u64(r, p);
		if (r)
			term[out++] = ratsum_term((uint32_t)(r / g),
						  (uint32_t)(p / g));
	}
	return out;
}

/*
 * A node of the product tree is the fraction num/den of the sum of its
 * leaves: [nd, leaves, num (nd + 1 limbs), den (nd limbs)], den trimmed of
 * zero top limbs. num/den < leaves, so num needs at most one limb more.
 */
static size_t node_size(const uint64_t *x)
{
	return 2 * x[0] + 3;
}

static uint64_t *num_of(uint64_t *x)
{
	return x + 2;
}

static uint64_t *den_of(uint64_t *x)
{
	return x + 3 + x[0];
}

/* z = x + y = (num_x den_y + num_y den_x) / (den_x den_y), written at z
 * (after y), with scratch after it. */
static void merge_nodes(uint64_t *z, uint64_t *x, uint64_t *y)
{
	size_t nx = x[0], ny = y[0], nz = nx + ny;
	uint64_t *num = z + 2, *den = z + 3 + nz, *tmp = den + nz;

	mul(num, num_of(x), nx + 1, den_of(y), ny, tmp);
	mul(tmp, num_of(y), ny + 1, den_of(x), nx, tmp + nz + 1);
	add_n(num, tmp, nz + 1);        /* no carry: num/den < leaves */
	mul(tmp, den_of(x), nx, den_of(y), ny, tmp + nz);
	while (nz > 1 && tmp[nz - 1] == 0)
		nz--;
	z[0] = nz;
	z[1] = x[1] + y[1];
	for (size_t i = 0; i < nz; i++)
		den_of(z)[i] = tmp[i];
}

/* Moves node z down to x (x before z). */
static void move_node(uint64_t *x, const uint64_t *z)
{
	for (size_t i = 0, n = node_size(z); i < n; i++)
		x[i] = z[i];
}

/*
 * Whether the sum of the n terms r/p (0 < r < p) is at most k: the sum as
 * one fraction A/B, merged pairwise like a binary counter so that the two
 * sides of every product are about the same size, then A <= k B.
 */
static bool tree_fits(const uint64_t *term, size_t n, uint64_t k,
		      uint64_t *w)
{
	uint64_t *node[66];
	unsigned depth = 0;
	uint64_t *top = w;

	for (size_t i = 0; i <= n; i++) {
		if (i < n) {
			uint64_t *x = node[depth++] = top;
			x[0] = 1;
			x[1] = 1;
			x[2] = (uint32_t)term[i];
			x[3] = 0;
			x[4] = term[i] >> 32;
			top = x + node_size(x);
		}
		/* Equal leaf counts merge; at the end everything does. */
		while (depth >= 2 && (i == n || node[depth - 1][1] ==
						node[depth - 2][1])) {
			uint64_t *x = node[depth - 2], *y = node[depth - 1];
			merge_nodes(top, x, y);
			move_node(x, top);
			top = x + node_size(x);
			depth--;
		}
	}
	uint64_t *x = node[0], nd = x[0], *kb = top;
	kb[nd] = 0;
	for (size_t i = 0; i < nd; i++)
		kb[i] = den_of(x)[i];
	/* kb = k * den, nd + 1 limbs */
	uint64_t carry = 0;
	for (size_t i = 0; i <= nd; i++) {
		u128 v = (u128)kb[i] * k + carry;
		kb[i] = (uint64_t)v;
		carry = (uint64_t)(v >> 64);
	}
	for (size_t i = nd + 1; i-- > 0;)
		if (num_of(x)[i] != kb[i])
			return num_of(x)[i] < kb[i];
	return true;
}

bool ratsum_exact_fits(uint64_t *term, size_t n, uint64_t m,
		       uint64_t *scratch)
{
	uint64_t whole = 0;
	/*
	 * Twice: a period's remainder, reduced, may share its period with
	 * another's. More passes could merge more; two catch what reduction
	 * by common factors usually brings together.
	 */
	for (int pass = 0; pass < 2; pass++) {
		n = merge_periods(term, n, &whole);
		if (whole > m)
			return false;
	}
	/* n fractions below 1 sum to less than n. */
	if (n <= m - whole)
		return true;
	return tree_fits(term, n, m - whole, scratch);
}
