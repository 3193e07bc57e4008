/*
 * arch/x86/cpuinfo: what CPUID says about the CPU -- vendor, family, model
 * and stepping, the features the kernel cares about, and how an APIC ID
 * splits into package, core and thread. The decoding reads CPUID through
 * a reader, so the host tests feed it recorded or generated tables
 * (tests/host/c/test_cpuinfo.c against tests/host/cpuid_ref.py).
 */
#ifndef ARCH_X86_CPUINFO_H
#define ARCH_X86_CPUINFO_H

#include <stdint.h>

#include "cpu.h"

/* The features the kernel uses or would use, in the order reports list
 * them (cpu_feature_names). */
enum cpu_feature {
	CPUF_X2APIC,            /* CPUID.1:ECX[21] */
	CPUF_TSC_DEADLINE,      /* CPUID.1:ECX[24] */
	CPUF_INVTSC,            /* CPUID.80000007H:EDX[8] */
	CPUF_ARAT,              /* CPUID.6:EAX[2] */
	CPUF_SMEP,              /* CPUID.(7,0):EBX[7] */
	CPUF_SMAP,              /* CPUID.(7,0):EBX[20] */
	CPUF_UMIP,              /* CPUID.(7,0):ECX[2] */
	CPUF_NX,                /* CPUID.80000001H:EDX[20] */
	CPUF_PCID,              /* CPUID.1:ECX[17] */
	CPUF_XSAVE,             /* CPUID.1:ECX[26] */
	CPUF_COUNT
};

extern const char *const cpu_feature_names[CPUF_COUNT];

/* Where the topology came from. */
enum cpu_topo_source {
	TOPO_NONE,              /* nothing: one thread per package */
	TOPO_LEAF_1F,           /* V2 extended topology (SDM vol. 2A, CPUID 1FH) */
	TOPO_LEAF_0B,           /* extended topology (CPUID 0BH) */
	TOPO_AMD,               /* CPUID 80000008H ECX, 8000001EH EBX (AMD APM
				   vol. 3, appendix E) */
	TOPO_LEGACY,            /* CPUID.1:EBX[23:16] and CPUID.(4,0):EAX[31:26] */
};

extern const char *const cpu_topo_names[];

/* An APIC ID is thread | core << smt_bits | package << (smt_bits +
 * core_bits); core_bits covers every level between the thread and the
 * package (cores, modules, tiles, dies). */
struct cpu_topology {
	enum cpu_topo_source source;
	unsigned smt_bits, core_bits;
};

struct cpuinfo {
	char vendor[13];        /* CPUID.0:EBX,EDX,ECX */
	char brand[49];         /* CPUID 80000002H-80000004H, spaces trimmed;
				   empty when there is none */
	uint32_t max_leaf, max_ext_leaf;   /* max_ext_leaf 0: none */
	uint32_t signature;     /* CPUID.1:EAX */
	unsigned family, model, stepping;  /* with the extended fields */
	uint32_t features;      /* bit (1u << enum cpu_feature) */
	struct cpu_topology topo;
};

typedef struct cpuid_regs (*cpuid_reader)(void *ctx, uint32_t leaf,
					   uint32_t subleaf);

/* Decodes a CPU's CPUID. Only leaves the CPU says it has are read. */
void cpuinfo_decode(cpuid_reader read, void *ctx, struct cpuinfo *out);

/* The calling CPU's CPUID. */
struct cpuid_regs cpuinfo_native(void *ctx, uint32_t leaf, uint32_t subleaf);

static inline int cpuinfo_has(const struct cpuinfo *c, enum cpu_feature f)
{
	return (c->features >> f) & 1;
}

/* apic_id split by t. */
void cpuinfo_split_apic_id(const struct cpu_topology *t, uint32_t apic_id,
			   uint32_t *package, uint32_t *core, uint32_t *thread);

#endif
