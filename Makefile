# SPDX-License-Identifier: GPL-2.0
# hixl: top-level build.  `make` builds kmod/hixl.ko (against KDIR), the
# library and the tools; `make check` runs everything CI runs; `make deps`
# installs what that needs (root, Debian 12).

VERSION      := 0.1.0
SOVERSION    := 0

# Debian's stock kernel: the one the linux-image-amd64 meta-package points at
STOCK_KVER   ?= $(shell dpkg-query -W -f='$${Depends}' linux-image-amd64 2>/dev/null | \
		  sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
KDIR         ?= $(if $(STOCK_KVER),/lib/modules/$(STOCK_KVER)/build,/lib/modules/$(shell uname -r)/build)

CC           ?= cc
CFLAGS       ?= -O2 -g
WARN         := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
		-Wno-unused-parameter -Wformat=2
HIXL_CPPFLAGS := -Ilib/include -Iuapi -D_GNU_SOURCE -DHIXL_LIB_VERSION='"$(VERSION)"'
ALL_CFLAGS   := -std=gnu11 $(WARN) $(CFLAGS) $(HIXL_CPPFLAGS)

LIB_SO       := lib/libhixl-user.so.$(VERSION)
LIB_SONAME   := libhixl-user.so.$(SOVERSION)
LIB_A        := lib/libhixl-user.a
LIB_SRCS     := lib/hixl.c lib/physmem.c lib/prof.c lib/engine.c
LIB_OBJS_PIC := $(LIB_SRCS:.c=.pic.o)
LIB_OBJS     := $(LIB_SRCS:.c=.o)
LIB_HDRS     := lib/include/hixl/hixl.h lib/include/hixl/physmem.h lib/include/hixl/prof.h \
		lib/internal.h uapi/hixl.h uapi/hixl_layout.h

TOOLS        := tools/hixlctl tools/bench-reg tools/bench-xfer tools/hixl-bench
USER_TESTS   := tests/user/hixl-test examples/kv_transfer tests/pair/hixl-pair

.PHONY: all module lib tools tests deps check check-compat demo bench bench-reg bench-xfer clean install
all: module lib tools tests

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

lib: $(LIB_SO) lib/libhixl-user.so $(LIB_A)

%.pic.o: %.c $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
lib/%.o: lib/%.c $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c -o $@ $<

$(LIB_SO): $(LIB_OBJS_PIC) lib/libhixl-user.map
	$(CC) -shared -o $@ $(LIB_OBJS_PIC) -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script,lib/libhixl-user.map -Wl,--no-undefined -pthread $(LDFLAGS)
lib/libhixl-user.so: $(LIB_SO)
	ln -sf $(notdir $(LIB_SO)) lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $@
$(LIB_A): $(LIB_OBJS)
	$(AR) rcs $@ $^

tools: $(TOOLS)
tests: $(USER_TESTS)

tools/%: tools/%.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) -pthread $(LDFLAGS)
tools/bench-reg: tools/bench-reg.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) -libverbs $(LDFLAGS)
tests/pair/hixl-pair: tests/pair/hixl-pair.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) $(LDFLAGS)
tests/user/hixl-test: tests/user/*.c tests/user/*.h $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -Itests/user -o $@ tests/user/*.c $(LIB_A) -pthread $(LDFLAGS)
examples/%: examples/%.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) -pthread $(LDFLAGS)

deps:
	tools/deps.sh

check:
	tools/check.sh

# the module must build without warnings (W=1) against both Debian kernels
check-compat:
	tools/check.sh compat

# A 256 MiB KV cache between two engines (tools/hixl-bench) in one VM on
# Debian's stock 6.12 kernel; exit status = the benchmark's
demo:
	tools/demo.sh

bench: bench-reg bench-xfer

# Registration time, hixl vs ibv_reg_mr, in one VM run on Debian's stock 6.12
# kernel (no debug options); writes bench/results-reg.md
bench-reg: all
	tools/bench.sh reg

# WRITE/READ throughput, hixl vs perftest (ib_write_bw/ib_read_bw), same VM run;
# writes bench/results-xfer.md
bench-xfer: all
	tools/bench.sh xfer

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -f lib/*.o lib/*.so* lib/*.a $(TOOLS) $(USER_TESTS)
	rm -rf build
