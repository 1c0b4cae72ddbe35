# SPDX-License-Identifier: GPL-2.0
# hixl: top-level build.  `make` builds kmod/hixl.ko (against KDIR), the
# library and the tools; `make userspace` all but the module (no kernel
# headers needed); `make check-host` checks what needs no root, VM
# or /dev/hixl; `make check` runs everything CI runs; `make deps` installs
# what that needs (root, Debian 12).

# the version is <hixl/hixl.h>'s HIXL_VERSION_{MAJOR,MINOR,PATCH}; the soname
# changes with an incompatible library ABI (docs/abi.md, "Library ABI")
hixl_ver = $(shell sed -n 's/^\#define HIXL_VERSION_$(1)[[:space:]]*\([0-9]*\)$$/\1/p' lib/include/hixl/hixl.h)
VERSION      := $(call hixl_ver,MAJOR).$(call hixl_ver,MINOR).$(call hixl_ver,PATCH)
SOVERSION    := 1

# `make install` directories (GNU conventions; DESTDIR is prepended to each)
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# the module's udev rule, group (sysusers.d) and loading at boot
# (modules-load.d), where udev, systemd-sysusers and systemd-modules-load
# look for a package's files: not under PREFIX (they do not search it), and
# not /etc, which is the administrator's and overrides them
UDEVRULESDIR ?= /usr/lib/udev/rules.d
SYSUSERSDIR  ?= /usr/lib/sysusers.d
MODULESLOADDIR ?= /usr/lib/modules-load.d
# bash-completion loads completions/CMD from $XDG_DATA_DIRS (/usr/local/share
# and /usr/share): /usr/share/bash-completion/completions with PREFIX=/usr
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions
# the Python package (Debian's layout: not under PREFIX)
PYTHONDIR    ?= /usr/lib/python3/dist-packages
DKMSSRCDIR   ?= /usr/src/hixl-$(VERSION)

# The kernel hixl.ko is built for (`make`, `make module`, `make
# install-module`): KDIR, a kernel build tree, or KVER, a release under
# /lib/modules; by default the running kernel (/lib/modules/$(uname -r)/build).
# Without its headers `make` stops and says what to install: a hixl.ko
# built for another kernel would not load in this one, and install-module
# would put it into that kernel's tree.  Only KVER= or KDIR= builds for
# another kernel (scripts/check.sh passes KVER on build machines, whose
# running kernel has no headers).
RUNNING_KVER := $(shell uname -r)
KVER         ?= $(RUNNING_KVER)
KDIR         ?= /lib/modules/$(KVER)/build

CC           ?= cc
CFLAGS       ?= -O2 -g
# WERROR=1 makes every warning of the library, tools, tests and Python
# extension an error (make check and CI set it: scripts/check.sh); by
# default warnings are printed and the build goes on, so a newer compiler's
# new warning does not stop a user's or a distribution's build.  The
# module's own W=1 checks (make check-compat) do not depend on it.
WERROR       ?=
WERROR_FLAG  := $(if $(filter 1,$(WERROR)),-Werror)
WARN         := -Wall -Wextra $(WERROR_FLAG) -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
		-Wno-unused-parameter -Wformat=2
HIXL_CPPFLAGS := -Ilib/include -Iuapi -D_GNU_SOURCE -DHIXL_LIB_VERSION='"$(VERSION)"'
# CPPFLAGS (yours or the distribution's, e.g. -D_FORTIFY_SOURCE=2) in every
# C and C++ compile, after the tree's own -I (so an installed <hixl/*.h>
# never shadows the tree's) and before CFLAGS/CXXFLAGS, which come last so
# they can override the rest
ALL_CFLAGS   := $(HIXL_CPPFLAGS) $(CPPFLAGS) -std=gnu11 $(WARN) $(CFLAGS)
# C++: <hixl/hixl.hpp> is header-only over the library; its test and sample
# are built with these, the test as C++11 (the oldest the header supports)
CXX          ?= g++
CXXFLAGS     ?= -O2 -g
CXX_WARN     := -Wall -Wextra -pedantic $(WERROR_FLAG)
# the preprocessor flags of the C++ test and sample
CXX_CPPFLAGS := -Ilib/include -Iuapi $(CPPFLAGS)
HPP          := lib/include/hixl/hixl.hpp lib/include/hixl/hixl_types.hpp
CPP_PROGS    := tests/cpp/hixl-cpp-test examples/cpp/hixl_sample
# Header hygiene: every installed header alone in a translation unit
# (twice: its include guard), with only lib/include on the path (the
# installed layout: <hixl/uapi.h> is the ABI header), -pedantic -Wall
# -Wextra: the C headers (HDR_C) as C99, C++11 and C++17, the C++ headers
# (HDR_CXX) as C++11 and C++17.  `make tests` builds one object per
# standard (HDR_CHECKS; warnings errors only with WERROR=1); `make
# check-headers` runs the same with -Werror always.
HDR_C        := hixl.h physmem.h prof.h uapi.h
HDR_CXX      := hixl.hpp hixl_types.hpp
HDR_STDS     := c99 c++11 c++17
HDR_CHECKS   := $(HDR_STDS:%=build/hdr-check-%.o)
# test-only headers (tests/include/raw.h: raw /dev/hixl calls) for the tests
# and benchmarks; never installed, never seen by the library
TEST_CPPFLAGS := -Itests/include
RAW_H        := tests/include/raw.h

LIB_SO       := lib/libhixl-user.so.$(VERSION)
LIB_SONAME   := libhixl-user.so.$(SOVERSION)
LIB_A        := lib/libhixl-user.a
LIB_SRCS     := lib/hixl.c lib/physmem.c lib/prof.c lib/auth.c lib/engine.c lib/status.c \
		lib/name.c lib/register.c lib/peer.c lib/request.c lib/uring.c lib/workers.c \
		lib/notify.c lib/event.c lib/allocator.c lib/gpu.c lib/staged.c
LIB_OBJS_PIC := $(LIB_SRCS:.c=.pic.o)
LIB_OBJS     := $(LIB_SRCS:.c=.o)
LIB_HDRS     := lib/include/hixl/hixl.h lib/include/hixl/physmem.h lib/include/hixl/prof.h \
		lib/internal.h uapi/rdma/hixl.h uapi/rdma/hixl_layout.h

# the installed tools, and the benchmark programs beside their results
TOOLS        := tools/hixlctl tools/hixl-bench
BENCH_PROGS  := bench/bench-reg bench/bench-xfer bench/bench-submit bench/bench-matrix \
		bench/bench-lat bench/memcpy-blocks bench/bench-rails bench/bench-table \
		bench/bench-gpu bench/bench-scale
FAKE_CUDA    := build/fake-cuda/libcuda.so.1 build/fake-cuda/libhsa-runtime64.so.1 \
		build/check-gpu/check-gpu
USER_TESTS   := tests/user/hixl-test examples/kv_transfer examples/exchange examples/poll_transfer tests/pair/hixl-pair tests/fuzz/hixl-fuzz \
		tests/fuzz/hixl-wire-fuzz

# `make python` builds the extension in the tree, python/hixl/_hixl*.so,
# linked against lib/libhixl-user.so with an rpath of $ORIGIN/../../lib (the
# tree's library); `make install` links another copy whose rpath is LIBDIR.
# `make all` builds it when the Python headers (python3-dev) are there, and
# says it skipped it otherwise; `make python` needs them.  PYTHON: Debian's
# interpreter, whose numpy and pytest the tests use.
PYTHON       ?= /usr/bin/python3
PY_CONFIG    := $(shell $(PYTHON) -c 'import sysconfig as s; print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_INC       := $(if $(wildcard $(word 1,$(PY_CONFIG))/Python.h),$(word 1,$(PY_CONFIG)))
PY_EXT       := python/hixl/_hixl$(or $(word 2,$(PY_CONFIG)),.so)
PY_EXT_INST  := build/python/$(notdir $(PY_EXT))
PY_SRCS      := python/hixl/_hixl.c python/hixl/_engine.c python/hixl/_request.c python/hixl/_descs.c
PY_FILES     := $(wildcard python/hixl/*.py)
PY_CFLAGS    = $(ALL_CFLAGS) -I$(PY_INC) -fPIC -fvisibility=hidden -Wno-missing-field-initializers \
		-Wno-cast-function-type

.PHONY: all userspace module lib tools tests python deps check check-long check-compat check-static check-headers check-host check-gpu check-abi abi-update fuzz fuzz-wire pair-soak demo bench bench-reg bench-xfer bench-submit bench-default bench-crossover bench-lat bench-local bench-rails bench-table bench-gpu bench-scale bench-py bench-nixl clean install bench-mooncake
.PHONY: python-skip install-python install-module install-dkms uninstall uninstall-module uninstall-dkms
all: module userspace
# everything but hixl.ko (the benchmarks build theirs for the VM's kernel)
userspace: lib tools tests $(if $(PY_INC),python,python-skip)
python-skip:
	@echo "python: skipped, no Python.h for $(PYTHON) (apt-get install python3-dev)"

# Without a kernel build tree at KDIR (no headers for KVER), say so and how
# to go on, instead of Kbuild's "No such file or directory": the package
# to install, the releases that do have headers, and make userspace
KVER_WHOSE    = $(if $(filter file,$(origin KVER)),the running kernel $(KVER),kernel $(KVER))
KVERS_WITH    = $(patsubst /lib/modules/%/build,%,$(wildcard /lib/modules/*/build))
KDIR_MISSING  = $(strip module: no kernel build tree at $(KDIR)$(if $(filter /lib/modules/$(KVER)/build,$(KDIR)), \
		(no headers for $(KVER_WHOSE)): sudo apt-get install linux-headers-$(KVER), \
		then make again); or build for another kernel with KVER=RELEASE$(if $(KVERS_WITH), \
		(headers installed for: $(KVERS_WITH))) or KDIR=DIR; everything but the \
		module: make userspace)
module:
	@[ -f "$(KDIR)/Makefile" ] || { echo "$(KDIR_MISSING)" >&2; exit 1; }
	@echo "module: hixl.ko against $(KDIR)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_INFINIBAND_HIXL=m modules

lib: $(LIB_SO) lib/libhixl-user.so $(LIB_A)

%.pic.o: %.c $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
lib/%.o: lib/%.c $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c -o $@ $<

$(LIB_SO): $(LIB_OBJS_PIC) lib/libhixl-user.map
	$(CC) -shared -o $@ $(LIB_OBJS_PIC) -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script,lib/libhixl-user.map -Wl,--no-undefined -luring -pthread $(LDFLAGS)
lib/libhixl-user.so: $(LIB_SO)
	ln -sf $(notdir $(LIB_SO)) lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $@
$(LIB_A): $(LIB_OBJS)
	$(AR) rcs $@ $^

tools: $(TOOLS) $(BENCH_PROGS)
tests: $(USER_TESTS) $(CPP_PROGS) $(HDR_CHECKS) $(FAKE_CUDA)

# the stand-ins for the CUDA driver the tests of device memory by address
# load (tests/gpu/fake_cuda.c): named and sonamed libcuda.so.1 as the real
# one, in a directory of its own so that nothing finds it by accident
build/fake-cuda/libcuda.so.1: tests/gpu/fake_cuda.c tests/gpu/fake_cuda.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-soname,libcuda.so.1 -o $@ $< $(LDFLAGS)
# make check-gpu's program (scripts/check-gpu.sh): the real driver, loaded
# at run time like the library's; links the library's internals
build/check-gpu/check-gpu: tests/gpu/check_gpu.c tests/gpu/fake_cuda.h $(LIB_A) $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ilib -o $@ $< $(LIB_A) -luring -ldl -pthread $(LDFLAGS)
check-gpu:
	scripts/check-gpu.sh
# and for ROCm (tests/gpu/fake_hsa.c), the HSA runtime
build/fake-cuda/libhsa-runtime64.so.1: tests/gpu/fake_hsa.c tests/gpu/fake_hsa.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,-soname,libhsa-runtime64.so.1 -o $@ $< $(LDFLAGS)

python: $(PY_EXT)
$(PY_EXT): $(PY_SRCS) python/hixl/_hixl.h lib/libhixl-user.so $(LIB_HDRS)
	@[ -n "$(PY_INC)" ] || { echo "python: no Python.h for $(PYTHON) (apt-get install python3-dev)" >&2; exit 1; }
	$(CC) $(PY_CFLAGS) -shared -o $@ $(PY_SRCS) -Llib -lhixl-user -pthread \
		-Wl,-rpath,'$$ORIGIN/../../lib' $(LDFLAGS)
$(PY_EXT_INST): $(PY_SRCS) python/hixl/_hixl.h lib/libhixl-user.so $(LIB_HDRS)
	@mkdir -p build/python
	$(CC) $(PY_CFLAGS) -shared -o $@ $(PY_SRCS) -Llib -lhixl-user -pthread \
		-Wl,-rpath,$(LIBDIR) $(LDFLAGS)
# the directories may differ from the last run's: always relink
.PHONY: $(PY_EXT_INST)

HIXLCTL_SRCS := tools/hixlctl.c tools/hixlctl-check.c tools/hixlctl-sys.c tools/hixlctl-stats.c
tools/hixlctl: $(HIXLCTL_SRCS) tools/hixlctl.h $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -o $@ $(HIXLCTL_SRCS) $(LIB_A) -luring -pthread $(LDFLAGS)
# hixl-bench, one concern a file (tools/bench/bench.h lists them)
BENCH_SRCS   := tools/bench/main.c tools/bench/opts.c tools/bench/kv.c tools/bench/report.c \
		tools/bench/net.c
tools/hixl-bench: $(BENCH_SRCS) tools/bench/bench.h $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -o $@ $(BENCH_SRCS) $(LIB_A) -luring -pthread $(LDFLAGS)
tools/%: tools/%.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) -luring -pthread $(LDFLAGS)
bench/bench-xfer: bench/bench-xfer.c $(RAW_H) $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(LIB_A) -luring -pthread $(LDFLAGS)
bench/bench-reg: bench/bench-reg.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(LIB_A) -luring -libverbs $(LDFLAGS)
bench/bench-submit: bench/bench-submit.c $(RAW_H) $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(LIB_A) -luring $(LDFLAGS)
bench/bench-matrix: bench/bench-matrix.c $(RAW_H) uapi/rdma/hixl.h
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< -luring $(LDFLAGS)
bench/bench-lat: bench/bench-lat.c $(RAW_H) tests/include/bench_clock.h uapi/rdma/hixl.h
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(LDFLAGS)
bench/bench-table: bench/bench-table.c $(RAW_H) tests/include/bench_clock.h uapi/rdma/hixl.h
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(LDFLAGS)
bench/bench-rails: bench/bench-rails.c tests/include/bench_clock.h tests/include/bench_blocks.h $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(LIB_A) -luring -pthread $(LDFLAGS)
bench/bench-gpu: bench/bench-gpu.c tests/include/bench_clock.h tests/include/bench_blocks.h tests/gpu/fake_cuda.h $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(LIB_A) -luring -ldl -pthread $(LDFLAGS)
bench/bench-scale: bench/bench-scale.c tests/include/bench_clock.h tests/include/bench_blocks.h tests/include/bench_kmem.h $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(LIB_A) -luring -pthread $(LDFLAGS)
bench/memcpy-blocks: bench/memcpy-blocks.c
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS)
FUZZ_SRCS := tests/fuzz/hixl-fuzz.c tests/fuzz/fuzz-local.c
tests/fuzz/hixl-fuzz: $(FUZZ_SRCS) tests/fuzz/fuzz-local.h $(RAW_H) $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ $(FUZZ_SRCS) $(LIB_A) -luring -pthread $(LDFLAGS)
# the wire fuzzer plays its hostile peer with the user tests' wire peer
WIRE_FUZZ_SRCS := tests/fuzz/hixl-wire-fuzz.c tests/fuzz/wire-rails.c tests/fuzz/wire-raillink.c tests/user/peer.c tests/user/util.c
tests/fuzz/hixl-wire-fuzz: $(WIRE_FUZZ_SRCS) tests/fuzz/wire-fuzz.h tests/user/peer.h tests/user/util.h tests/user/harness.h \
		$(RAW_H) kmod/proto.h $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -Itests/user -o $@ $(WIRE_FUZZ_SRCS) $(LIB_A) -luring -lrdmacm -libverbs -pthread $(LDFLAGS)
tests/pair/hixl-pair: tests/pair/hixl-pair.c tests/pair/pair-rails.c tests/pair/pair.h $(RAW_H) \
		$(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -o $@ tests/pair/hixl-pair.c tests/pair/pair-rails.c \
		$(LIB_A) -luring $(LDFLAGS)
tests/user/hixl-test: tests/user/*.c tests/user/*.h $(RAW_H) kmod/proto.h $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) $(TEST_CPPFLAGS) -Itests/user -o $@ tests/user/*.c $(LIB_A) -luring -lrdmacm -libverbs -pthread $(LDFLAGS)
examples/%: examples/%.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) -luring -pthread $(LDFLAGS)
tests/cpp/hixl-cpp-test: tests/cpp/*.cpp tests/cpp/*.hpp $(HPP) $(LIB_A) $(LIB_HDRS)
	$(CXX) $(CXX_CPPFLAGS) -std=c++11 $(CXX_WARN) $(CXXFLAGS) -o $@ tests/cpp/*.cpp $(LIB_A) \
		-luring -pthread $(LDFLAGS)
examples/cpp/%: examples/cpp/%.cpp $(HPP) $(LIB_A) $(LIB_HDRS)
	$(CXX) $(CXX_CPPFLAGS) -std=c++17 $(CXX_WARN) $(CXXFLAGS) -o $@ $< $(LIB_A) -luring -pthread $(LDFLAGS)
# $(call hdr_check,STD,EXTRA,OUT): the header hygiene of standard STD
# (c99, c++NN) with the flags EXTRA, into the object OUT; the standard and
# the warnings after CFLAGS/CXXFLAGS, which must not change what is checked
hdr_list      = $(HDR_C) $(if $(filter c++%,$(1)),$(HDR_CXX))
hdr_cc        = $(if $(filter c++%,$(1)),$(CXX) -x c++ -Ilib/include $(CPPFLAGS) $(CXXFLAGS),$(CC) -x c \
		-Ilib/include $(CPPFLAGS) $(CFLAGS)) -std=$(1) -pedantic -Wall -Wextra
hdr_check     = for h in $(call hdr_list,$(1)); do \
		printf '\043include <hixl/%s>\n\043include <hixl/%s>\n' $$h $$h | \
		$(call hdr_cc,$(1)) $(2) -c -o $(3) - || exit; done
$(HDR_CHECKS): build/hdr-check-%.o: $(addprefix lib/include/hixl/,$(HDR_C) $(HDR_CXX)) uapi/rdma/hixl.h
	@mkdir -p build
	$(call hdr_check,$*,$(WERROR_FLAG),$@)

# The checks of the build host itself, no root, VM or /dev/hixl, in well
# under a minute once built: header hygiene, the device-less user, C++ and
# Python tests, the install check (scripts/check-host.sh says which)
check-host: lib tools tests $(if $(PY_INC),python)
	scripts/check-host.sh

# the library's ABI against lib/libhixl-user.abi (libabigail); abi-update
# rewrites the baseline after an intended change (commit it)
check-abi: lib
	scripts/check-abi.sh
abi-update: lib
	scripts/check-abi.sh --update

# the header hygiene above, warnings as errors whatever WERROR says
check-headers:
	$(foreach std,$(HDR_STDS),$(call hdr_check,$(std),-Werror,/dev/null) &&) true

deps:
	scripts/deps.sh

check:
	scripts/check.sh

# make check with the user tests' long cases on the debug kernel too
# (HIXL_TEST_LONG=1; docs/developing.md): the release checklist's
check-long:
	HIXL_TEST_LONG=1 scripts/check.sh

# the module must build without warnings (W=1) against both Debian kernels
check-compat:
	scripts/check.sh compat

# the kernel's static checks on kmod/ (sparse, checkpatch --strict,
# coccicheck, kernel-doc) against the debug kernel's tree, built or taken
# from its cache (tests/vm/build-kernel.sh); exceptions in
# scripts/check-static.ignore
check-static:
	kdir=$$(tests/vm/build-kernel.sh) && scripts/check-static.sh "$$kdir"

# The fuzzer in the debug VM: 1,000,000 calls (FUZZ_CALLS=, FUZZ_SEED= to
# change); make check runs 10,000
fuzz: userspace
	scripts/check.sh fuzz $(or $(FUZZ_CALLS),1000000) $(or $(FUZZ_SEED),1)

# The wire fuzzer in the debug VM: a hostile peer against a victim engine,
# 6,000 cases or 25 minutes, whichever comes first (WIRE_CASES=, WIRE_SEED=,
# WIRE_TIME= seconds to change); make check runs 60 s of it
fuzz-wire: userspace
	scripts/check.sh fuzz-wire $(or $(WIRE_CASES),6000) $(or $(WIRE_SEED),1) $(or $(WIRE_TIME),1500)

# The two-VM run (Debian 6.1 <-> 6.12) PAIR_RUNS times in a row (default 30),
# stopping at the first failure; make check runs it once
pair-soak: userspace
	scripts/check.sh pair $(or $(PAIR_RUNS),30)

# A 256 MiB KV cache between two engines (tools/hixl-bench) in one VM on
# Debian's stock 6.12 kernel; exit status = the benchmark's
demo:
	scripts/demo.sh

# Everything side by side in one VM run on Debian's stock 6.12 kernel: hixl
# (ioctl and io_uring) vs perftest and UCX, CPU per GiB, memcpy ceiling,
# registration, same-host links, rails; writes bench/results.md, bench/results.png and bench/results.json
bench: userspace
	bench/bench.sh all

# NIXL+HIXL vs hixl's own API vs NIXL+UCX on the main job's shape (32 KiB
# blocks, layers of 256 scattered descriptors), one VM run (also part of
# `make bench`); builds NIXL, the plugin and NIXL's UCX plugin first (cached);
# writes bench/results-nixl.md
bench-nixl: userspace
	bench/bench.sh nixl

# Mooncake's TransferEngine (built by scripts/build-mooncake.sh from
# ../shared/third_party, cached) beside hixl.mooncake's, the same Python
# code: the KV job's WRITE/READ, CPU per GiB, the submit cost of 8,192
# descriptors, registration; one VM run; writes bench/results-mooncake.md
bench-mooncake: userspace
	bench/bench.sh mooncake

# Registration time, hixl vs ibv_reg_mr, in one VM run on Debian's stock 6.12
# kernel (no debug options); writes bench/results-reg.md
bench-reg: userspace
	bench/bench.sh reg

# WRITE/READ throughput, hixl vs perftest (ib_write_bw/ib_read_bw), same VM run;
# writes bench/results-xfer.md
bench-xfer: userspace
	bench/bench.sh xfer

# Descriptors/s of 4 KiB batches (1..256), TRANSFER ioctl vs io_uring URING_CMD,
# same VM run; writes bench/results-submit.md
bench-submit: userspace
	bench/bench.sh submit

# the main job's defaults (tools/hixl-bench) beside its best configuration,
# 0.2's defaults and ib_write_bw/ib_read_bw at 32 KiB, interleaved in one VM
# run; writes bench/results-default.md (and its raw lines)
bench-default: userspace
	bench/bench.sh default

# staging vs direct work requests over descriptor sizes and batches (the
# crossover the staging cost model is fitted to); writes
# bench/results-crossover.md
bench-crossover: userspace
	bench/bench.sh crossover

# 64 B and 4 KiB round trips, hixl sync (hybrid polling on and off) vs
# perftest (ib_write_lat/ib_read_lat), p50 and p99, and the sync 4 KiB
# batch-1 throughput and CPU per GiB with polling on and off, same VM run;
# writes bench/results-lat.md
bench-lat: userspace
	bench/bench.sh lat

# same-host links: the kernel copy inline and parallel vs rxe vs
# UCX's intra-host transport (cma,posix) vs single-thread memcpy, CPU per
# GiB, blocks 64 KiB..4 MiB, batches 1 and 8, one VM run (also part of
# `make bench`); writes bench/results-local.md
bench-local: userspace
	bench/bench.sh local

# device memory (the stand-in CUDA driver's) registered peer-to-peer and
# staged beside host memory at the KV job's shape, WRITE and READ, GB/s,
# CPU, bytes verified; one VM run; writes bench/results-gpu.md
bench-gpu: userspace
	bench/bench.sh gpu

# scale: the KV job fanned out to and in from 1..128 links at once (aggregate
# GB/s, fairness), CONNECT time and kernel memory per link, kernel memory per
# registered GiB, time per descriptor of one request of 1..65,536
# descriptors; one VM run; writes bench/results-scale.md and results-scale.png
bench-scale: userspace
	bench/bench.sh scale

# rails: one large WRITE/READ batch with one rail, two
# rails, and two with rail 1 (veth2) taken down mid-batch, GB/s, the time
# lost, bytes verified, packets per rail; one VM run (also part of `make
# bench`); writes bench/results-rails.md
bench-rails: userspace
	bench/bench.sh rails

# the Python package: Python-side time to build and submit one 8,192-descriptor
# KV-cache request, a list of TransferOpDesc vs an (n, 3) numpy array vs
# OpDescs.from_blocks(); one VM run (also part of `make bench`); writes
# bench/results-py.md
bench-py: userspace
	bench/bench.sh py

# CONNECT time against registrations per side, 1 to 10,000 (bench/bench-table.c);
# writes bench/results-table.md
bench-table: userspace
	bench/bench.sh table

# ---- the NIXL backend plugin (nixl/, docs/nixl.md) ----------------------
# `make nixl` builds build/nixl/libplugin_HIXL.so, NIXL's backend "HIXL", and
# its test program, against NIXL's installed headers: NIXL_PREFIX=DIR (the
# prefix scripts/build-nixl.sh prints, or any NIXL install with its
# headers), else `pkg-config nixl`.  The plugin carries libhixl-user (its PIC
# objects) and exports only nixl_plugin_init/nixl_plugin_fini; it needs
# NIXL's libnixl_common.so (its Abseil logging), found as NIXL's own plugins
# find it ($ORIGIN/.., from NIXL's plugin directory) or in NIXL's libdir
# (NIXL_LIBDIR: lib/<multiarch>, lib or lib64 of the prefix, whichever holds
# it; pkg-config's libdir without NIXL_PREFIX).
# build/nixl/prefix records the NIXL prefix for the Python test
# (tests/nixl/test_nixl_vllm.py).  `make install-nixl` copies it to NIXL_PLUGIN_DIR (default
# NIXL_LIBDIR/plugins, where NIXL looks first).
NIXL_PREFIX  ?=
NIXL_INC     := $(if $(NIXL_PREFIX),$(NIXL_PREFIX)/include,$(shell pkg-config --variable=includedir nixl 2>/dev/null))
# NIXL's libdir in a prefix: meson's default on Debian and Ubuntu is
# lib/<multiarch> (lib/x86_64-linux-gnu), scripts/build-nixl.sh's and
# Fedora's lib and lib64; the first that holds libnixl_common.so, else lib
# (the link then names what is missing).  NIXL_LIBDIR= overrides.
NIXL_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
nixl_libdir_in = $(firstword $(foreach d,$(if $(NIXL_MULTIARCH),lib/$(NIXL_MULTIARCH)) lib lib64,\
		 $(if $(wildcard $(1)/$(d)/libnixl_common.so),$(1)/$(d))) $(1)/lib)
ifeq ($(origin NIXL_LIBDIR),undefined)
NIXL_LIBDIR  := $(if $(NIXL_PREFIX),$(call nixl_libdir_in,$(NIXL_PREFIX)),$(shell pkg-config --variable=libdir nixl 2>/dev/null))
endif
NIXL_PLUGIN_DIR ?= $(NIXL_LIBDIR)/plugins
# -isystem: NIXL's headers are not built with our warnings
NIXL_CXXFLAGS = -std=c++20 $(patsubst %,-isystem %,$(NIXL_INC) $(NIXL_INC)/backend $(NIXL_INC)/utils \
		$(NIXL_INC)/utils/common $(NIXL_INC)/utils/serdes)
NIXL_SRCS    := nixl/hixl_backend.cpp nixl/hixl_cost.cpp nixl/hixl_devices.cpp nixl/hixl_params.cpp \
		nixl/hixl_plugin.cpp
NIXL_HDRS    := nixl/hixl_backend.h nixl/hixl_cost.h nixl/hixl_devices.h
# where the plugin and its programs go (tests/tools/nixl-layout.sh builds
# elsewhere)
NIXL_BUILD   ?= build/nixl
NIXL_PLUGIN  := $(NIXL_BUILD)/libplugin_HIXL.so
NIXL_TEST    := $(NIXL_BUILD)/hixl-nixl-test
# the NIXL table of `make bench` (bench/bench-nixl-guest.sh)
NIXL_BENCH   := $(NIXL_BUILD)/bench-nixl
# NIXL's own generic backend test (its test/gtest/test_transfer.cpp) for
# HIXL (tests/nixl/gtest/hixl_transfer.cpp): built when NIXL_SRC holds NIXL's
# source tree (scripts/build-nixl.sh keeps it beside its prefix) and
# GoogleTest is installed; NIXL's meson builds its gtest suite only with a
# non-release buildtype, so the one binary is built here against the release
# NIXL instead, about 15 s at -j1
NIXL_SRC     ?= $(if $(NIXL_PREFIX),$(abspath $(NIXL_PREFIX)/../nixl))
NIXL_GTEST_DIR = $(NIXL_SRC)/test/gtest
NIXL_GTEST   := $(if $(wildcard $(NIXL_GTEST_DIR)/test_transfer.cpp),$(if $(wildcard /usr/include/gtest/gtest.h),$(NIXL_BUILD)/nixl-gtest-hixl))
NIXL_MISSING  = nixl: no NIXL headers: NIXL_PREFIX=DIR (scripts/build-nixl.sh prints one) or a nixl.pc on PKG_CONFIG_PATH
.PHONY: nixl install-nixl nixl-check-inc nixl-libdir
# the libdir the plugin links against and records (tests/tools/nixl-layout.sh)
nixl-libdir:
	@echo "$(NIXL_LIBDIR)"
nixl: nixl-check-inc $(NIXL_PLUGIN) $(NIXL_TEST) $(NIXL_BENCH) $(NIXL_GTEST)
	@echo "$(or $(NIXL_PREFIX),$(shell pkg-config --variable=prefix nixl))" > $(NIXL_BUILD)/prefix
nixl-check-inc:
	@[ -n "$(NIXL_INC)" ] && [ -r "$(NIXL_INC)/backend/backend_plugin.h" ] || { echo "$(NIXL_MISSING)" >&2; exit 1; }
$(NIXL_PLUGIN): $(NIXL_SRCS) $(NIXL_HDRS) nixl/libplugin_HIXL.map $(LIB_OBJS_PIC) $(LIB_HDRS) | nixl-check-inc
	@mkdir -p $(NIXL_BUILD)
	$(CXX) $(CXX_CPPFLAGS) $(NIXL_CXXFLAGS) $(CXX_WARN) $(CXXFLAGS) -fPIC -shared -o $@ $(NIXL_SRCS) \
		$(LIB_OBJS_PIC) -Wl,--version-script,nixl/libplugin_HIXL.map -Wl,--no-undefined \
		-L$(NIXL_LIBDIR) -Wl,-rpath,'$$ORIGIN/..' -Wl,-rpath,$(NIXL_LIBDIR) -lnixl_common -luring \
		-pthread $(LDFLAGS)
$(NIXL_TEST): tests/nixl/*.cpp tests/nixl/*.h $(LIB_A) $(LIB_HDRS) | nixl-check-inc
	@mkdir -p $(NIXL_BUILD)
	$(CXX) $(CXX_CPPFLAGS) $(NIXL_CXXFLAGS) $(CXX_WARN) $(CXXFLAGS) -Itests/nixl -o $@ tests/nixl/*.cpp \
		-L$(NIXL_LIBDIR) -Wl,-rpath,$(NIXL_LIBDIR) -lnixl -lnixl_build -lnixl_common -lserdes $(LIB_A) -luring \
		-pthread $(LDFLAGS)
$(NIXL_BENCH): bench/bench-nixl.cpp $(LIB_A) $(LIB_HDRS) | nixl-check-inc
	@mkdir -p $(NIXL_BUILD)
	$(CXX) $(CXX_CPPFLAGS) $(NIXL_CXXFLAGS) $(CXX_WARN) $(CXXFLAGS) -o $@ bench/bench-nixl.cpp \
		-L$(NIXL_LIBDIR) -Wl,-rpath,$(NIXL_LIBDIR) -lnixl -lnixl_build -lnixl_common -lserdes $(LIB_A) -luring \
		-pthread $(LDFLAGS)
$(NIXL_BUILD)/nixl-gtest-hixl: tests/nixl/gtest/hixl_transfer.cpp | nixl-check-inc
	@mkdir -p $(NIXL_BUILD)
	$(CXX) -std=c++20 -O1 -w -DBUILD_DIR='"/nonexistent"' -I$(NIXL_GTEST_DIR) $(patsubst %,-I%,$(NIXL_INC) \
		$(NIXL_INC)/utils $(NIXL_INC)/backend $(addprefix $(NIXL_SRC)/src/,core core/telemetry utils \
		utils/common infra api/cpp)) -o $@ $(NIXL_GTEST_DIR)/main.cpp $(NIXL_GTEST_DIR)/common.cpp $< \
		-L$(NIXL_LIBDIR) -Wl,-rpath,$(NIXL_LIBDIR) -lnixl -lnixl_build -lnixl_common -lserdes -lgtest -lgmock \
		-labsl_strings -labsl_time -labsl_log_internal_message -labsl_log_internal_check_op \
		-labsl_log_sink -labsl_log_internal_log_sink_set -pthread $(LDFLAGS)
install-nixl: $(NIXL_PLUGIN)
	install -D -m 0755 $(NIXL_PLUGIN) $(DESTDIR)$(NIXL_PLUGIN_DIR)/libplugin_HIXL.so

clean:
	-[ ! -f "$(KDIR)/Makefile" ] || $(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -f lib/*.o lib/*.so* lib/*.a $(TOOLS) $(BENCH_PROGS) $(USER_TESTS) $(CPP_PROGS) python/hixl/_hixl*.so
	rm -rf build

# ---- installation ----------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=] [LIBDIR=] [INCLUDEDIR=] [MANDIR=]
# installs the library (shared, with its soname and development symlinks,
# and static), the headers as <hixl/*.h>, the header-only C++ API as
# <hixl/hixl.hpp> and <hixl/hixl_types.hpp>, hixl-user.pc, the man pages (with
# one symlink per function named in a page's NAME section) and the tools
# hixl-bench and hixlctl with their man pages (hixl-bench.1, hixlctl.8) and
# bash completions.  `make install-module` installs hixl.ko for KDIR's
# kernel (extra/hixl.ko, then depmod), `make install-dkms` the module sources
# for DKMS; both the MODULE_FILES below (udev rule, sysusers.d,
# modules-load.d).
INST_HDRS    := lib/include/hixl/hixl.h lib/include/hixl/physmem.h lib/include/hixl/prof.h \
		lib/include/hixl/hixl.hpp lib/include/hixl/hixl_types.hpp
INST_TOOLS   := tools/hixl-bench tools/hixlctl
MAN3_PAGES   := $(wildcard man/*.3)
# the tools' pages, man/NAME.SECTION -> MANDIR/manSECTION/
TOOL_PAGES   := man/hixl-bench.1 man/hixlctl.8
BASH_COMPS   := contrib/bash-completion/hixl-bench contrib/bash-completion/hixlctl
# the function names a page documents: its NAME line up to " \-"
MAN_NAME_SED := /^\.SH NAME/{n;s/ *\\-.*//;s/,/ /g;p;q;}
man_names     = $(shell sed -n '$(MAN_NAME_SED)' $(1))
# libdir and includedir in hixl-user.pc, relative to ${prefix} when inside it
pc_dir        = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

build/hixl-user.pc: lib/hixl-user.pc.in Makefile
	@mkdir -p build
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call pc_dir,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(call pc_dir,$(INCLUDEDIR))|' -e 's|@VERSION@|$(VERSION)|' \
	    $< > $@
# the directories may differ from the last run's: always regenerate
.PHONY: build/hixl-user.pc

install: lib $(INST_TOOLS) build/hixl-user.pc $(if $(PY_INC),install-python)
	install -D -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO))
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libhixl-user.so
	install -D -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_A))
	for h in $(INST_HDRS); do \
		install -D -m 0644 $$h $(DESTDIR)$(INCLUDEDIR)/hixl/$${h##*/} || exit; \
	done
	install -D -m 0644 uapi/rdma/hixl.h $(DESTDIR)$(INCLUDEDIR)/hixl/uapi.h
	install -D -m 0644 build/hixl-user.pc $(DESTDIR)$(PKGCONFIGDIR)/hixl-user.pc
	for p in $(MAN3_PAGES); do \
		install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man3/$${p##*/} || exit; \
		for n in $$(sed -n '$(MAN_NAME_SED)' $$p); do \
			[ "$$n.3" = "$${p##*/}" ] || \
			ln -sf $${p##*/} $(DESTDIR)$(MANDIR)/man3/$$n.3 || exit; \
		done; \
	done
	for t in $(INST_TOOLS); do \
		install -D -m 0755 $$t $(DESTDIR)$(BINDIR)/$${t##*/} || exit; \
	done
	for p in $(TOOL_PAGES); do \
		install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/} || exit; \
	done
	for c in $(BASH_COMPS); do \
		install -D -m 0644 $$c $(DESTDIR)$(BASHCOMPDIR)/$${c##*/} || exit; \
	done
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

# What the installed module needs beside it, SOURCE:DEST: the udev rule
# (/dev/hixl to the group hixl), the group (sysusers.d) and loading at boot
# (modules-load.d).  install-module and install-dkms install them,
# uninstall-module and uninstall-dkms remove them; the group itself stays
# (a package never deletes a system group).
MODULE_FILES  = udev/60-hixl.rules:$(UDEVRULESDIR)/60-hixl.rules \
		systemd/sysusers.d/hixl.conf:$(SYSUSERSDIR)/hixl.conf \
		systemd/modules-load.d/hixl.conf:$(MODULESLOADDIR)/hixl.conf
# Before 0.1.0 install-module put the udev rule in /etc/udev/rules.d, where
# it shadows the new one: removed when it is that file unchanged (its
# sha256), never when the administrator edited it
OLD_UDEV_RULE = $(DESTDIR)/etc/udev/rules.d/60-hixl.rules
OLD_UDEV_SUM  = 54f8f500b85bab0eb22d53a2333cfc39ef649b0577dabc79ba68d9cdf045e3f5
rm_old_udev_rule = if [ -f $(OLD_UDEV_RULE) ] && \
		[ "$$(sha256sum < $(OLD_UDEV_RULE))" = "$(OLD_UDEV_SUM)  -" ]; then rm -f $(OLD_UDEV_RULE); fi
# the recipe lines of install-module and install-dkms: the files; with no
# DESTDIR, as root, the group (systemd-sysusers, else groupadd) and udev's
# rules reloaded (udevd may not run, in a container: not an error)
define install_module_files
	for f in $(MODULE_FILES); do \
		install -D -m 0644 $${f%%:*} $(DESTDIR)$${f#*:} || exit; \
	done
	$(rm_old_udev_rule)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		if command -v systemd-sysusers >/dev/null; then \
			echo "systemd-sysusers $(SYSUSERSDIR)/hixl.conf"; \
			systemd-sysusers $(SYSUSERSDIR)/hixl.conf || exit; \
		elif ! getent group hixl >/dev/null; then \
			echo "groupadd --system hixl"; groupadd --system hixl || exit; \
		fi; \
		udevadm control --reload 2>/dev/null || :; \
	fi
endef
# the recipe line of uninstall-module and uninstall-dkms
uninstall_module_files = rm -f $(foreach f,$(MODULE_FILES),$(DESTDIR)$(lastword $(subst :, ,$(f)))); \
		$(rm_old_udev_rule)

# hixl.ko goes to /lib/modules/RELEASE/extra/ of the kernel it was built for
# (KDIR_KVER), and depmod runs for that release (not under DESTDIR: a
# package runs it when installed).  Not `make modules_install`: Debian's
# headers report the upstream release (6.1.x for 6.1.0-N-amd64), so it
# would install where that kernel never looks.
install-module: module
	@[ -n "$(KDIR_KVER)" ] || { echo "install-module: no kernel release for $(KDIR)" >&2; exit 1; }
	install -D -m 0644 kmod/hixl.ko $(DESTDIR)/lib/modules/$(KDIR_KVER)/extra/hixl.ko
	$(install_module_files)
	@if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KDIR_KVER)"; depmod -a $(KDIR_KVER); fi

# the sources dkms.conf builds: dkms install hixl/$(VERSION)
DKMS_SRCS     = dkms.conf Kbuild kmod/Kbuild tests/kunit/Kbuild $(wildcard uapi/rdma/*.h) \
		$(filter-out %.mod.c,$(wildcard kmod/*.[ch] tests/kunit/*.[ch]))
install-dkms:
	for f in $(DKMS_SRCS); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMSSRCDIR)/$$f || exit; \
	done
	$(install_module_files)

# the package into PYTHONDIR/hixl (DESTDIR honoured), without byte code
install-python: $(PY_EXT_INST)
	for f in $(PY_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(PYTHONDIR)/hixl/$${f##*/} || exit; \
	done
	install -D -m 0755 $(PY_EXT_INST) $(DESTDIR)$(PYTHONDIR)/hixl/$(notdir $(PY_EXT))

uninstall:
	rm -rf $(DESTDIR)$(PYTHONDIR)/hixl
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME) \
	      $(DESTDIR)$(LIBDIR)/libhixl-user.so $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_A)) \
	      $(DESTDIR)$(PKGCONFIGDIR)/hixl-user.pc
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/hixl/,$(notdir $(INST_HDRS)) uapi.h)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/hixl
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3_PAGES)) \
	      $(foreach p,$(MAN3_PAGES),$(addsuffix .3,$(call man_names,$(p)))))
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(INST_TOOLS)))
	rm -f $(foreach p,$(TOOL_PAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p)))
	rm -f $(addprefix $(DESTDIR)$(BASHCOMPDIR)/,$(notdir $(BASH_COMPS)))

# the kernel release of KDIR: from its /lib/modules/RELEASE/build path, else
# the release hixl.ko was built for (its vermagic), else the tree's own
# `make kernelrelease` (Debian's headers answer it with the upstream version)
KDIR_KVER     = $(or $(patsubst /lib/modules/%/build,%,$(filter /lib/modules/%/build,$(KDIR))),$(shell \
		  modinfo -F vermagic kmod/hixl.ko 2>/dev/null | cut -d' ' -f1),$(shell \
		  $(MAKE) -s -C $(KDIR) kernelrelease))
# also the path install-module used before 0.1.0 (updates/kmod/)
uninstall-module:
	rm -f $(DESTDIR)/lib/modules/$(KDIR_KVER)/extra/hixl.ko \
	      $(DESTDIR)/lib/modules/$(KDIR_KVER)/updates/kmod/hixl.ko
	$(uninstall_module_files)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then depmod -a $(KDIR_KVER); fi

uninstall-dkms:
	rm -rf $(DESTDIR)$(DKMSSRCDIR)
	$(uninstall_module_files)
