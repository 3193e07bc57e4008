/* arch/x86/cpuinfo: CPUID decoded (SDM vol. 2A, CPUID; AMD APM vol. 3,
 * appendix E). */
#include "cpuinfo.h"

#include "../../lib/str.h"

const char *const cpu_feature_names[CPUF_COUNT] = {
	[CPUF_X2APIC] = "x2apic", [CPUF_TSC_DEADLINE] = "tsc_deadline",
	[CPUF_INVTSC] = "invtsc", [CPUF_ARAT] = "arat",
	[CPUF_SMEP] = "smep", [CPUF_SMAP] = "smap", [CPUF_UMIP] = "umip",
	[CPUF_NX] = "nx", [CPUF_PCID] = "pcid", [CPUF_XSAVE] = "xsave",
};

const char *const cpu_topo_names[] = {
	[TOPO_NONE] = "none", [TOPO_LEAF_1F] = "leaf1f",
	[TOPO_LEAF_0B] = "leaf0b", [TOPO_AMD] = "amd", [TOPO_LEGACY] = "legacy",
};

/* The level types of CPUID 0BH/1FH ECX[15:8]. */
#define TOPO_LEVEL_INVALID 0
#define TOPO_LEVEL_SMT 1
#define TOPO_MAX_SUBLEAVES 8

struct reader {
	cpuid_reader read;
	void *ctx;
	uint32_t max_leaf, max_ext_leaf;
};

/* A leaf the CPU has, else zeros: a leaf above the maximum returns the
 * highest basic leaf's data on Intel CPUs (SDM vol. 2A, CPUID), not zeros. */
static struct cpuid_regs leaf(const struct reader *r, uint32_t l, uint32_t sub)
{
	uint32_t max = l >= 0x80000000u ? r->max_ext_leaf : r->max_leaf;
	if (l > max || (l >= 0x80000000u && !max))
		return (struct cpuid_regs){ 0, 0, 0, 0 };
	return r->read(r->ctx, l, sub);
}

static unsigned bit(uint32_t v, unsigned b)
{
	return (v >> b) & 1;
}

/* The smallest b with 2^b >= n. */
static unsigned ceil_log2(uint32_t n)
{
	unsigned b = 0;
	while (b < 32 && (1ull << b) < n)
		b++;
	return b;
}

static void put_reg(char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (char)(v >> (8 * i));
}

static int amd_like(const struct cpuinfo *c)
{
	return str_eq(c->vendor, "AuthenticAMD") || str_eq(c->vendor, "HygonGenuine");
}

static void brand(const struct reader *r, struct cpuinfo *c)
{
	char raw[49];
	c->brand[0] = 0;
	if (r->max_ext_leaf < 0x80000004u)
		return;
	for (uint32_t i = 0; i < 3; i++) {
		struct cpuid_regs v = leaf(r, 0x80000002u + i, 0);
		put_reg(raw + 16 * i, v.eax);
		put_reg(raw + 16 * i + 4, v.ebx);
		put_reg(raw + 16 * i + 8, v.ecx);
		put_reg(raw + 16 * i + 12, v.edx);
	}
	raw[48] = 0;
	unsigned start = 0, end = 0;
	while (raw[end])
		end++;
	while (start < end && raw[start] == ' ')
		start++;
	while (end > start && raw[end - 1] == ' ')
		end--;
	unsigned n = 0;
	for (unsigned i = start; i < end; i++)
		c->brand[n++] = raw[i] >= 0x20 && raw[i] < 0x7f ? raw[i] : '?';
	c->brand[n] = 0;
}

/* CPUID 1FH or 0BH: the SMT level's shift, and the last level's (the
 * package's). Returns 0 when the leaf enumerates nothing. */
static int extended_topology(const struct reader *r, uint32_t l,
			     struct cpu_topology *t)
{
	if (r->max_leaf < l || !leaf(r, l, 0).ebx)
		return 0;
	unsigned smt = 0, pkg = 0, levels = 0;
	for (uint32_t sub = 0; sub < TOPO_MAX_SUBLEAVES; sub++) {
		struct cpuid_regs v = leaf(r, l, sub);
		unsigned type = (v.ecx >> 8) & 0xff;
		if (type == TOPO_LEVEL_INVALID)
			break;
		unsigned shift = v.eax & 0x1f;
		if (type == TOPO_LEVEL_SMT)
			smt = shift;
		pkg = shift;
		levels++;
	}
	if (!levels)
		return 0;
	if (smt > pkg)
		smt = pkg;
	t->smt_bits = smt;
	t->core_bits = pkg - smt;
	return 1;
}

/* AMD APM vol. 3, E.5: 80000008H ECX[15:12] ApicIdSize (0: derive it from
 * NC, ECX[7:0], the cores less one), and from family 17h on 8000001EH
 * EBX[15:8], the threads per core less one, where TopologyExtensions
 * (80000001H ECX[22]) says the leaf is there. */
static void amd_topology(const struct reader *r, const struct cpuinfo *c,
			 struct cpu_topology *t)
{
	uint32_t ecx = leaf(r, 0x80000008u, 0).ecx;
	unsigned size = (ecx >> 12) & 0xf;
	unsigned pkg = size ? size : ceil_log2((ecx & 0xff) + 1);
	unsigned smt = 0;
	if (c->family >= 0x17 && r->max_ext_leaf >= 0x8000001eu &&
	    bit(leaf(r, 0x80000001u, 0).ecx, 22))
		smt = ceil_log2(((leaf(r, 0x8000001eu, 0).ebx >> 8) & 0xff) + 1);
	if (smt > pkg)
		smt = pkg;
	t->source = TOPO_AMD;
	t->smt_bits = smt;
	t->core_bits = pkg - smt;
}

/* SDM vol. 3A, 10.9.1 (the legacy way): CPUID.1:EBX[23:16] addressable
 * logical processors per package when HTT (CPUID.1:EDX[28]), CPUID.(4,0):
 * EAX[31:26] addressable cores less one; each rounded up to a power of
 * two. An AMD CPU without 80000008H counts cores there (CmpLegacy). */
static void legacy_topology(const struct reader *r, const struct cpuinfo *c,
			    struct cpu_topology *t)
{
	struct cpuid_regs one = leaf(r, 1, 0);
	if (!bit(one.edx, 28)) {
		t->source = TOPO_NONE;
		return;
	}
	unsigned pkg = ceil_log2((one.ebx >> 16) & 0xff);
	unsigned cores = pkg;
	if (!amd_like(c)) {
		struct cpuid_regs four = leaf(r, 4, 0);
		cores = (four.eax & 0x1f) ? ceil_log2(((four.eax >> 26) & 0x3f) + 1)
					  : 0;
	}
	if (cores > pkg)
		cores = pkg;
	t->source = TOPO_LEGACY;
	t->smt_bits = pkg - cores;
	t->core_bits = cores;
}

void cpuinfo_decode(cpuid_reader read, void *ctx, struct cpuinfo *c)
{
	struct reader r = { read, ctx, 0, 0 };
	*c = (struct cpuinfo){ 0 };
	struct cpuid_regs v = read(ctx, 0, 0);
	r.max_leaf = v.eax;
	put_reg(c->vendor, v.ebx);
	put_reg(c->vendor + 4, v.edx);
	put_reg(c->vendor + 8, v.ecx);
	c->vendor[12] = 0;
	for (int i = 0; i < 12; i++)
		if (c->vendor[i] < 0x20 || c->vendor[i] >= 0x7f)
			c->vendor[i] = '?';
	v = read(ctx, 0x80000000u, 0);
	/* Without extended leaves the answer is not of the form 8000xxxxH. */
	r.max_ext_leaf = (v.eax & 0xffff0000u) == 0x80000000u ? v.eax : 0;
	c->max_leaf = r.max_leaf;
	c->max_ext_leaf = r.max_ext_leaf;

	struct cpuid_regs one = leaf(&r, 1, 0);
	c->signature = one.eax;
	unsigned base_family = (one.eax >> 8) & 0xf;
	unsigned base_model = (one.eax >> 4) & 0xf;
	c->stepping = one.eax & 0xf;
	c->family = base_family;
	if (base_family == 0xf)
		c->family += (one.eax >> 20) & 0xff;
	c->model = base_model;
	/* The extended model counts for family 6 on Intel's side only: AMD
	 * adds it from family 0Fh on. */
	if (base_family == 0xf || (base_family == 6 && !amd_like(c)))
		c->model += ((one.eax >> 16) & 0xf) << 4;
	brand(&r, c);

	struct cpuid_regs six = leaf(&r, 6, 0);
	struct cpuid_regs seven = leaf(&r, 7, 0);
	struct cpuid_regs e1 = leaf(&r, 0x80000001u, 0);
	struct cpuid_regs e7 = leaf(&r, 0x80000007u, 0);
	const struct {
		enum cpu_feature f;
		uint32_t reg;
		unsigned bit;
	} map[] = {
		{ CPUF_X2APIC, one.ecx, 21 }, { CPUF_TSC_DEADLINE, one.ecx, 24 },
		{ CPUF_INVTSC, e7.edx, 8 }, { CPUF_ARAT, six.eax, 2 },
		{ CPUF_SMEP, seven.ebx, 7 }, { CPUF_SMAP, seven.ebx, 20 },
		{ CPUF_UMIP, seven.ecx, 2 }, { CPUF_NX, e1.edx, 20 },
		{ CPUF_PCID, one.ecx, 17 }, { CPUF_XSAVE, one.ecx, 26 },
	};
	for (unsigned i = 0; i < sizeof map / sizeof map[0]; i++)
		if (bit(map[i].reg, map[i].bit))
			c->features |= 1u << map[i].f;

	if (extended_topology(&r, 0x1f, &c->topo))
		c->topo.source = TOPO_LEAF_1F;
	else if (extended_topology(&r, 0xb, &c->topo))
		c->topo.source = TOPO_LEAF_0B;
	else if (amd_like(c) && r.max_ext_leaf >= 0x80000008u)
		amd_topology(&r, c, &c->topo);
	else
		legacy_topology(&r, c, &c->topo);
}

struct cpuid_regs cpuinfo_native(void *ctx, uint32_t l, uint32_t subleaf)
{
	(void)ctx;
	return cpuid(l, subleaf);
}

void cpuinfo_split_apic_id(const struct cpu_topology *t, uint32_t apic_id,
			   uint32_t *package, uint32_t *core, uint32_t *thread)
{
	unsigned s = t->smt_bits, c = t->core_bits;
	*thread = s >= 32 ? apic_id : apic_id & ((1u << s) - 1);
	*core = s >= 32 ? 0 : (apic_id >> s) & (c >= 32 ? ~0u : (1u << c) - 1);
	*package = s + c >= 32 ? 0 : apic_id >> (s + c);
}
