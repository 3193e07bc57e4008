# The build. `make run` boots the ISO in QEMU; `make test` runs every test.
# README.md lists the targets and their variables; docs/running.md those
# of make run, debug and bochs.

BUILD   := build
# V=1 shows the full commands.
Q       := $(if $(V),,@)
VENV    := $(BUILD)/venv
PYTHON  := $(VENV)/bin/python
PYTEST  := $(VENV)/bin/pytest

.DEFAULT_GOAL := all

# Parallel by default, one job per CPU: a first `make iso` compiles about a
# hundred files. A -j on the command line wins; sub-makes share the
# jobserver of the first.
ifeq ($(MAKELEVEL),0)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif
endif

# Every variable this project's makefiles and scripts read from make's
# command line (docs/running.md). One given there that is not among them is
# named; one that looks like one of them (SHED=, sched=, SLOT=) is refused
# before anything is built.
KNOWN_VARS := SCHED TASKS SLOTS TIMING SMP CMDLINE MACHINE ACCEL FIRMWARE \
	      STUB GDB_PORT V HOST_CC CROSS NASM TEST_ARGS PYTEST_JOBS \
	      KVM_TESTS SEED BENCH BENCH_ONLY SERVERS_TIMING MODE EXP \
	      RTK_OVERHEADS RTK_OVERHEADS_LOG RTK_HYPOTHESIS DASK_SCHEDULER \
	      DASK_WORKERS EXP_CACHE ENGINE_EXP_MODE FUZZ_CC FUZZ_SECONDS \
	      FUZZ_ONLY DEV USB_ENTRY USER_PROGS_DIR RUN_ISO_FILE
ifeq ($(MAKELEVEL),0)
GIVEN_VARS := $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v)))
VARS_SAID := $(shell scripts/check-make-vars.sh "$(KNOWN_VARS)" $(GIVEN_VARS))
ifneq ($(.SHELLSTATUS),0)
$(error $(VARS_SAID))
endif
ifneq ($(VARS_SAID),)
$(info make: $(VARS_SAID))
endif
endif
.SECONDARY:
.PHONY: all deps host-deps host test test-host fuzz-props bench experiments \
        dask-worker clean

all: host

# ---------------------------------------------------------------- host side
# lib/ and sched/ are built for the host too: with sanitizers for the tests
# and the simulator, optimised (no sanitizers) for the benchmarks.

HOST_CC     ?= gcc
HOST_WARN   := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
               -D_GNU_SOURCE -I.
HOST_SAN    := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer
HOST_OPT    := -O2 -g -DNDEBUG
# sched/ checks its invariants (e.g. staggered Pfair I1/I2) when SCHED_DEBUG.
HOST_SAN_DEFS := -DSCHED_DEBUG=1

HOST_SRC   := $(sort $(wildcard lib/*.c) $(shell find sched -name '*.c'))
HOST_SAN_OBJ := $(HOST_SRC:%.c=$(BUILD)/host/san/%.o)
HOST_OPT_OBJ := $(HOST_SRC:%.c=$(BUILD)/host/opt/%.o)

# Host programs: tools/NAME.c -> build/host/NAME (sanitized) and
# build/host/NAME-fast (optimised); C unit tests tests/host/c/test_*.c ->
# build/host/tests/test_*.
TOOLS      := $(patsubst tools/%.c,%,$(wildcard tools/*.c))
C_TESTS    := $(patsubst tests/host/c/%.c,%,$(wildcard tests/host/c/test_*.c))
HOST_BINS  := $(TOOLS:%=$(BUILD)/host/%) $(TOOLS:%=$(BUILD)/host/%-fast) \
              $(C_TESTS:%=$(BUILD)/host/tests/%)

# The QEMU plugin that counts each virtual CPU's instructions between the
# kernel's trace records (tools/qemu/insn_count.c).
QEMU_PLUGIN := $(BUILD)/host/insn_count.so

host: $(HOST_BINS) $(QEMU_PLUGIN)

$(QEMU_PLUGIN): tools/qemu/insn_count.c
	@mkdir -p $(dir $@)
	@echo "  CC (QEMU plugin)    $<"
	$(Q)$(HOST_CC) $(HOST_WARN) -O2 -fPIC -shared -fvisibility=hidden $< -o $@

$(BUILD)/host/san/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (host, sanitized) $<"
	$(Q)$(HOST_CC) $(HOST_WARN) $(HOST_SAN) $(HOST_SAN_DEFS) -MMD -MP -c $< -o $@

$(BUILD)/host/opt/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (host, -O2)      $<"
	$(Q)$(HOST_CC) $(HOST_WARN) $(HOST_OPT) -MMD -MP -c $< -o $@

$(BUILD)/host/%-fast: $(BUILD)/host/opt/tools/%.o $(HOST_OPT_OBJ)
	@echo "  LD    $@"
	$(Q)$(HOST_CC) $(HOST_OPT) $^ -o $@ -lm

$(BUILD)/host/tests/%: $(BUILD)/host/san/tests/host/c/%.o $(HOST_SAN_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD    $@"
	$(Q)$(HOST_CC) $(HOST_SAN) $^ -o $@ -lm

$(BUILD)/host/%: $(BUILD)/host/san/tools/%.o $(HOST_SAN_OBJ)
	@echo "  LD    $@"
	$(Q)$(HOST_CC) $(HOST_SAN) $^ -o $@ -lm

-include $(shell find $(BUILD)/host -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- ring 3
include mk/user.mk

# ---------------------------------------------------------------- kernel side
-include mk/kernel.mk
include mk/hardware.mk

# ---------------------------------------------------------------- fuzzing
include mk/fuzz.mk

# ---------------------------------------------------------------- set-up
host-deps:
	@scripts/ensure-deps.sh host

deps:
	@scripts/ensure-deps.sh kernel

# ---------------------------------------------------------------- tests
# TEST_ARGS passes options to pytest, e.g. TEST_ARGS="-k pfair".
TEST_ARGS ?=
PYTEST_JOBS ?= 2

# KVM_TESTS=1 adds the opt-in boot under KVM (tests/boot/test_kvm.py).
test: deps
	@$(MAKE) --no-print-directory host $(if $(wildcard mk/kernel.mk),iso)
	KVM_TESTS=$(KVM_TESTS) $(PYTEST) -n $(PYTEST_JOBS) --dist worksteal $(TEST_ARGS) tests

# Only the host-side tests: no ISO, no QEMU.
test-host: host-deps
	@$(MAKE) --no-print-directory host
	$(PYTEST) -n $(PYTEST_JOBS) --dist worksteal $(TEST_ARGS) tests/host

# Property tests with fresh random draws (the `explore` Hypothesis profile;
# `make test` runs them derandomized). SEED=N replays one run.
SEED ?=
fuzz-props: host-deps
	@$(MAKE) --no-print-directory host
	@seed=$${SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "fuzz-props: Hypothesis seed $$seed (replay: make fuzz-props SEED=$$seed)"; \
	RTK_HYPOTHESIS=explore $(PYTEST) -n $(PYTEST_JOBS) -p no:cacheprovider \
		--hypothesis-seed=$$seed $(TEST_ARGS) tests/host

# ---------------------------------------------------------------- work items
# The boots and simulations of `make bench` and `make experiments` run on
# Dask (tools/bench/workitems.py, docs/experiments.md): by default a local
# cluster over every core; DASK_WORKERS=N uses N cores (0: one item at a
# time in make's own process, no Dask); DASK_SCHEDULER=tcp://host:8786 a
# cluster whose workers were started with `make dask-worker`. Results are
# cached in build/cache/ (safe to delete); EXP_CACHE=off computes all.
DASK_SCHEDULER ?=
DASK_WORKERS ?=
EXP_CACHE ?= on
WORK_ARGS = $(if $(DASK_SCHEDULER),--scheduler $(DASK_SCHEDULER)) \
            $(if $(DASK_WORKERS),--workers $(DASK_WORKERS)) \
            $(if $(filter off,$(EXP_CACHE)),--no-cache)

# On each machine of a cluster, in a checkout built like the client's:
# a worker with every core (DASK_WORKERS=N for fewer) as its 'cores'.
dask-worker:
	@test -n "$(DASK_SCHEDULER)" || { echo "dask-worker: set DASK_SCHEDULER=tcp://host:8786" >&2; exit 2; }
	@$(MAKE) --no-print-directory deps host iso
	PYTHONPATH=tools/bench $(VENV)/bin/dask worker $(DASK_SCHEDULER) \
	  --nthreads $(or $(DASK_WORKERS),$(shell nproc)) \
	  --resources cores=$(or $(DASK_WORKERS),$(shell nproc)) --no-dashboard

# ---------------------------------------------------------------- benchmarks
# BENCH=quick (default) or full; BENCH_ONLY=name runs one benchmark.
BENCH ?= quick
BENCH_ONLY ?=

bench: deps
	@$(MAKE) --no-print-directory host $(if $(wildcard mk/kernel.mk),iso)
	$(PYTHON) tools/bench/run_all.py --mode $(BENCH) $(if $(BENCH_ONLY),--only $(BENCH_ONLY)) $(WORK_ARGS)

# ---------------------------------------------------------------- experiments
# MODE=quick (default) or full; EXP=name runs one experiment and keeps the
# other sections of build/experiments/REPORT.md (docs/experiments.md).
MODE ?= quick
EXP ?=

experiments: host-deps
	@$(MAKE) --no-print-directory host iso
	$(PYTHON) tools/experiments/run.py --mode $(MODE) $(if $(EXP),--exp $(EXP)) $(WORK_ARGS)

clean:
	rm -rf $(BUILD)/host $(BUILD)/user $(BUILD)/user-dirs $(BUILD)/kernel $(BUILD)/iso $(BUILD)/bench $(BUILD)/*.iso
