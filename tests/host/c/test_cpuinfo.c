/*
 * Host test of arch/x86/cpuinfo.c, the CPUID decoder. Without arguments:
 * known answers (signatures whose family, model and stepping the vendors
 * document) and the host CPU's own CPUID decoded without a fault. With
 * arguments it serves tests/host/test_cpuinfo.py, which holds the decoder
 * to an independent Python reading of the manuals (tests/host/cpuid_ref.py):
 *   test_cpuinfo --native        the host CPU, as one JSON line
 *   test_cpuinfo --tables        tables on stdin, one JSON line each:
 *     "L leaf subleaf eax ebx ecx edx" (hex) lines, "A apic_id" (hex)
 *     lines to split, then "E"; a leaf not listed reads as "fill" (the
 *     line "F eax ebx ecx edx", zeros by default), as Intel CPUs answer a
 *     leaf above the maximum with the highest basic leaf's data.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../../arch/x86/cpuinfo.c"

#include "unit.h"

#define MAX_ENTRIES 512
#define MAX_APIC_IDS 64

struct table {
	struct {
		uint32_t leaf, sub;
		struct cpuid_regs r;
	} e[MAX_ENTRIES];
	unsigned n;
	struct cpuid_regs fill;
	uint32_t apic[MAX_APIC_IDS];
	unsigned napic;
};

static struct cpuid_regs table_read(void *ctx, uint32_t leaf, uint32_t sub)
{
	const struct table *t = ctx;
	for (unsigned i = 0; i < t->n; i++)
		if (t->e[i].leaf == leaf && t->e[i].sub == sub)
			return t->e[i].r;
	return t->fill;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_json(const struct cpuinfo *c, const uint32_t *apic,
		       unsigned napic)
{
	printf("{\"vendor\": ");
	json_string(c->vendor);
	printf(", \"brand\": ");
	json_string(c->brand);
	printf(", \"max_leaf\": %u, \"max_ext_leaf\": %u, \"family\": %u, "
	       "\"model\": %u, \"stepping\": %u, \"features\": [", c->max_leaf,
	       c->max_ext_leaf, c->family, c->model, c->stepping);
	const char *sep = "";
	for (unsigned f = 0; f < CPUF_COUNT; f++)
		if (cpuinfo_has(c, f)) {
			printf("%s\"%s\"", sep, cpu_feature_names[f]);
			sep = ", ";
		}
	printf("], \"topo\": {\"source\": \"%s\", \"smt_bits\": %u, "
	       "\"core_bits\": %u}, \"split\": [", cpu_topo_names[c->topo.source],
	       c->topo.smt_bits, c->topo.core_bits);
	for (unsigned i = 0; i < napic; i++) {
		uint32_t p, k, t;
		cpuinfo_split_apic_id(&c->topo, apic[i], &p, &k, &t);
		printf("%s[%u, %u, %u]", i ? ", " : "", p, k, t);
	}
	printf("]}\n");
}

static int serve_tables(void)
{
	static struct table t;
	char line[256];
	memset(&t, 0, sizeof t);
	while (fgets(line, sizeof line, stdin)) {
		struct cpuid_regs r;
		uint32_t leaf, sub, id;
		if (sscanf(line, "L %x %x %x %x %x %x", &leaf, &sub, &r.eax, &r.ebx,
			   &r.ecx, &r.edx) == 6) {
			if (t.n == MAX_ENTRIES)
				return 2;
			t.e[t.n].leaf = leaf;
			t.e[t.n].sub = sub;
			t.e[t.n++].r = r;
		} else if (sscanf(line, "F %x %x %x %x", &r.eax, &r.ebx, &r.ecx,
				  &r.edx) == 4) {
			t.fill = r;
		} else if (sscanf(line, "A %x", &id) == 1) {
			if (t.napic == MAX_APIC_IDS)
				return 2;
			t.apic[t.napic++] = id;
		} else if (line[0] == 'E') {
			struct cpuinfo c;
			cpuinfo_decode(table_read, &t, &c);
			print_json(&c, t.apic, t.napic);
			fflush(stdout);
			memset(&t, 0, sizeof t);
		} else {
			fprintf(stderr, "test_cpuinfo: bad line: %s", line);
			return 2;
		}
	}
	return 0;
}

/* A table of leaf 0 (vendor, max leaf 1) and leaf 1 (signature). */
static void known(const char *vendor, uint32_t signature, unsigned family,
		  unsigned model, unsigned stepping)
{
	static struct table t;
	memset(&t, 0, sizeof t);
	uint32_t w[3];
	memcpy(w, vendor, 12);
	t.e[0].r = (struct cpuid_regs){ 1, w[0], w[2], w[1] };
	t.e[1].leaf = 1;
	t.e[1].r.eax = signature;
	t.n = 2;
	struct cpuinfo c;
	cpuinfo_decode(table_read, &t, &c);
	EXPECT(!strcmp(c.vendor, vendor), "vendor %s, want %s", c.vendor, vendor);
	EXPECT(c.family == family && c.model == model && c.stepping == stepping,
	       "%s %#x: family %u model %u stepping %u, want %u %u %u", vendor,
	       signature, c.family, c.model, c.stepping, family, model, stepping);
	EXPECT(c.max_ext_leaf == 0, "no extended leaves in the table, got %#x",
	       c.max_ext_leaf);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--tables"))
		return serve_tables();
	struct cpuinfo c;
	cpuinfo_decode(cpuinfo_native, 0, &c);
	if (argc > 1 && !strcmp(argv[1], "--native")) {
		print_json(&c, 0, 0);
		return 0;
	}
	EXPECT(c.max_leaf >= 1, "the host CPU has leaf 1");
	/* Signatures as the vendors' revision guides and the SDM's table of
	 * DisplayFamily_DisplayModel give them. */
	known("GenuineIntel", 0x00050654, 6, 0x55, 4);   /* Skylake-SP */
	known("GenuineIntel", 0x000606a6, 6, 0x6a, 6);   /* Ice Lake-SP */
	known("GenuineIntel", 0x00000f29, 15, 2, 9);     /* Pentium 4 */
	known("AuthenticAMD", 0x00800f12, 0x17, 1, 2);   /* EPYC 7001 */
	known("AuthenticAMD", 0x00a10f11, 0x19, 0x11, 1); /* EPYC 9004 */
	known("AuthenticAMD", 0x00020f32, 0xf, 0x23, 2); /* Athlon 64 X2 */
	/* Family 6 with extended-model bits: Intel adds them, AMD does not. */
	known("GenuineIntel", 0x00010681, 6, 0x18, 1);
	known("AuthenticAMD", 0x00010681, 6, 8, 1);
	return unit_exit_status();
}
