# SPDX-License-Identifier: GPL-2.0
# warden: out-of-tree build into build/. Quiet by default; V=1 shows full commands.

.DELETE_ON_ERROR:
# Skeletons and BPF objects are kept between builds, not deleted as intermediates.
.SECONDARY:
.SUFFIXES:

OUT := build
CC ?= cc
CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

PKGS := libbpf libcjson libcrypto libnl-route-3.0
# ldns: the DNS forwarder's messages (supervisor/dns/)
PKGS += ldns
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lbpf -lcjson -lcrypto -lnl-route-3 -lnl-3 -lldns)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith
CFLAGS ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -I$(OUT) -I. -Ibpf $(PKG_CFLAGS)
# A section per function and object: warden-keeper links only what it calls (--gc-sections).
ALL_CFLAGS := -std=gnu11 -pthread $(WARN) $(CFLAGS) -MMD -MP -ffunction-sections -fdata-sections
BPF_CFLAGS := -g -O2 -Wall -Werror --target=bpf -D__TARGET_ARCH_$(ARCH) -I$(OUT) -Ibpf

BPF_PROGS := wd_lsm wd_recorder wd_net wd_probe wd_rate
BPF_OBJS := $(patsubst %,$(OUT)/bpf/%.bpf.o,$(BPF_PROGS))
SKELS := $(patsubst %,$(OUT)/%.skel.h,$(BPF_PROGS)) $(OUT)/wd_hostset.lskel.h

# Pure modules: no libbpf, unit-tested without root.
POLICY_SRCS := $(wildcard policy/*.c)
# The shipped templates, built into the binary (policy/templates.h).
TEMPLATES := $(wildcard policy/templates/*.json)
TEMPLATES_OBJ := $(OUT)/policy/templates_data.o
AUDIT_SRCS := $(wildcard audit/*.c)
# Every room of supervisor/ (docs/design.md has the map).
SUPERVISOR_SRCS := $(sort $(wildcard supervisor/*/*.c))
LIB_SRCS := $(POLICY_SRCS) $(AUDIT_SRCS) $(SUPERVISOR_SRCS)
LIB_OBJS := $(patsubst %.c,$(OUT)/%.o,$(LIB_SRCS)) $(TEMPLATES_OBJ)

UNIT_TESTS := test_policy test_compile test_jsonl test_exe_cache test_capabilities test_carve \
	test_hold_rules test_units test_net test_json_locate test_effective test_explain test_templates \
	test_policy_schema test_policy_corpus test_setup test_devid test_spawn_status test_fsutil test_path \
	test_ipc test_probe_cache test_records test_net_keys test_hold_rooms
# the DNS forwarder (supervisor/dns/)
UNIT_TESTS += test_dns
# net.egress_rate's figures (supervisor/net/rate.c)
UNIT_TESTS += test_rate
# the run report against docs/report.schema.json (supervisor/run/report.c)
UNIT_TESTS += test_report
# the live status line's words (supervisor/run/status.c)
UNIT_TESTS += test_status
# resolved addresses in real LPM tries (supervisor/net/resolved.c; skipped without BPF)
UNIT_TESTS += test_resolved
# wardend's configuration file (supervisor/daemon/config.c)
UNIT_TESTS += test_daemon_config
# control-socket requests: envelope, ops and their keys (supervisor/daemon/request.c)
UNIT_TESTS += test_request
# a wardend spare's claim (supervisor/run/spare.c)
UNIT_TESTS += test_spare
UNIT_BINS := $(patsubst %,$(OUT)/tests/unit/%,$(UNIT_TESTS))
HELPERS := $(OUT)/tests/helpers/wd-try $(OUT)/tests/helpers/wd-escape \
	$(OUT)/tests/helpers/wd-lsm-check $(OUT)/tests/helpers/wd-leak $(OUT)/tests/helpers/wd-privs \
	$(OUT)/tests/helpers/wd-auditck \
	$(OUT)/tests/helpers/wd-hold \
	$(OUT)/tests/helpers/wd-pty \
	$(OUT)/tests/helpers/wd-net $(OUT)/tests/helpers/wd-hog $(OUT)/tests/helpers/wd-schemack \
	$(OUT)/tests/helpers/wd-dns
# net.egress_rate's sender and receiver (t_rate.sh, bench/rows/net.sh)
HELPERS += $(OUT)/tests/helpers/wd-rate
# a streamed run through wardend, as a harness reads it (t_daemon.sh)
HELPERS += $(OUT)/tests/helpers/wd-stream
# the C client example of docs/control.md (t_examples.sh runs it)
HELPERS += $(OUT)/examples/harness

.PHONY: all
all: $(OUT)/warden $(OUT)/wardend $(OUT)/warden-init $(OUT)/warden-keeper $(HELPERS)

# vmlinux.h from the running kernel's BTF, replaced only when it changes so BPF objects are not
# rebuilt for nothing.
$(OUT)/vmlinux.h: | $(OUT)/bpf
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

.PHONY: FORCE
FORCE:
$(OUT)/vmlinux.h: FORCE

# Static patterns: a skeleton or object of a program set that no longer exists, named by an old
# build's dependency files, is never rebuilt from a source that is gone.
$(BPF_OBJS): $(OUT)/bpf/%.bpf.o: bpf/%.bpf.c $(OUT)/vmlinux.h | $(OUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(filter %.skel.h,$(SKELS)): $(OUT)/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# The landlock backend's whole set (supervisor/bpf/lite.c): the recorder, network and egress-rate
# objects statically linked into one (their shared maps are __weak, one definition kept), and its
# light skeleton, loaded with no BTF parsed in user space and the shared maps made once.
$(OUT)/bpf/wd_hostset.bpf.o: $(OUT)/bpf/wd_recorder.bpf.o $(OUT)/bpf/wd_net.bpf.o \
			     $(OUT)/bpf/wd_rate.bpf.o
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^
$(OUT)/wd_hostset.lskel.h: $(OUT)/bpf/wd_hostset.bpf.o
	$(call msg,LSKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton -L $< name wd_hostset_lbpf > $@

# The probe cache's build key (supervisor/backend/probe_cache.h): a cache file written by a build
# whose probe code or BPF objects differ is not this build's.
PROBE_KEY_SRCS := $(wildcard supervisor/backend/probe*.[ch])
$(OUT)/wd_probe_key.h: $(BPF_OBJS) $(PROBE_KEY_SRCS)
	$(call msg,GEN,$@)
	$(Q)printf '#define WD_PROBE_BUILD "%s"\n' "$$(cat $^ | sha256sum | cut -c1-16)" > $@
$(OUT)/supervisor/backend/probe_cache.o: $(OUT)/wd_probe_key.h

# The pinned program set's version (supervisor/bpf/pinset.c): both objects' bytes, hashed once
# here rather than by every run (1.9 MB of FNV was a tenth of a run's own CPU time).
$(OUT)/wd_set_key.h: $(OUT)/bpf/wd_lsm.bpf.o $(OUT)/bpf/wd_recorder.bpf.o $(OUT)/bpf/wd_net.bpf.o \
		     $(OUT)/bpf/wd_rate.bpf.o
	$(call msg,GEN,$@)
	$(Q)printf '#define WD_SET_OBJECTS 0x%sull\n' "$$(cat $^ | sha256sum | cut -c1-16)" > $@
$(OUT)/supervisor/bpf/pinset.o: $(OUT)/wd_set_key.h

$(OUT)/%.o: %.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(OUT)/warden: $(OUT)/tools/warden.o $(OUT)/tools/cmd_hold.o $(OUT)/tools/cmd_policy.o \
	$(OUT)/tools/cmd_sandbox.o \
	$(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS)

$(OUT)/wardend: $(OUT)/tools/wardend.o $(OUT)/tools/wardend_service.o $(OUT)/tools/wardend_relay.o $(OUT)/tools/wardend_status.o $(OUT)/tools/wardend_sandbox.o $(OUT)/tools/wardend_spare.o $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS)

# pid 1 of a sandbox's pid namespace, exec'd from beside warden: static, so nothing but itself,
# and with no C library but the few calls it makes (tools/warden-init-rt.c): a few pages a
# sandbox, not a static glibc's 650 KiB. Its objects are its own, built without what needs a
# library's start-up (the stack protector's canary lives in thread-local storage).
INIT_OBJS := $(OUT)/init/tools/warden-init.o $(OUT)/init/tools/warden-init-rt.o \
	$(OUT)/init/supervisor/sandbox/caps.o
$(INIT_OBJS): $(OUT)/init/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fno-stack-protector -fno-builtin -U_FORTIFY_SOURCE \
		-c $< -o $@
$(OUT)/warden-init: $(INIT_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -static -nostdlib -no-pie -Wl,--gc-sections -o $@ $^ -lgcc

# A sandbox's keeper, exec'd from beside warden: the few functions it calls out of warden's
# objects and cJSON, no libbpf (whatever calls it is collected away with what it is in).
$(OUT)/warden-keeper: $(OUT)/tools/warden-keeper.o $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Wl,--gc-sections -Wl,--as-needed -o $@ $^ -lcjson

$(OUT)/tests/helpers/%: $(OUT)/tests/helpers/%.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^

$(OUT)/tests/helpers/wd-schemack: $(OUT)/tests/helpers/wd-schemack.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ -lcjson

# The LSM check runs the loader's own choice of programs (supervisor/bpf/progs.c).
$(OUT)/tests/helpers/wd-lsm-check: $(OUT)/tests/helpers/wd-lsm-check.o $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS)

$(OUT)/examples/harness: $(OUT)/examples/harness.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ -lcjson -lcrypto

$(OUT)/tests/helpers/wd-stream: $(OUT)/tests/helpers/wd-stream.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ -lcjson -lcrypto

# The test DNS server and client speak DNS through ldns.
$(OUT)/tests/helpers/wd-dns: $(OUT)/tests/helpers/wd-dns.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ -lldns

# The audit checker parses JSON with cJSON (and nothing of warden's own).
$(OUT)/tests/helpers/wd-auditck: $(OUT)/tests/helpers/wd-auditck.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread

$(OUT)/tests/unit/%: $(OUT)/tests/unit/%.o $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS) -lcmocka

$(OUT)/bpf:
	$(Q)mkdir -p $@

$(OUT)/policy/templates_data.c: policy/templates/embed.sh policy/templates/index $(TEMPLATES)
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)policy/templates/embed.sh policy/templates > $@

$(OUT)/policy/templates_data.o: $(OUT)/policy/templates_data.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

# Unit tests that read files of the source tree (the schema, the corpus) find it here.
$(OUT)/tests/unit/test_policy_schema.o $(OUT)/tests/unit/test_policy_corpus.o \
$(OUT)/tests/unit/test_templates.o $(OUT)/tests/unit/test_report.o: CPPFLAGS += -DWD_SRCDIR='"$(CURDIR)"'

# ---- dependencies -------------------------------------------------------------------------------
DEB_PKGS := make gcc clang llvm bc libbpf-dev bpftool libelf-dev zlib1g-dev libcjson-dev \
	libcmocka-dev libnl-3-dev libnl-route-3-dev libssl-dev pkg-config qemu-system-x86 busybox-static \
	cpio gzip iproute2 file btrfs-progs xz-utils debian-archive-keyring strace
# ldns parses DNS for the sandbox's forwarder (supervisor/dns/)
DEB_PKGS += libldns-dev
# examples/harness.py and docs/control.md's socat flow, run by t_examples_host.sh
DEB_PKGS += python3 socat
# the test network's DNS server (t_dns.sh, t_netmode.sh: tests/integration/lib.sh testnet_dns)
DEB_PKGS += dnsmasq-base

# the peers make bench measures warden against, and what it measures with (bench only: nothing
# else uses them); perf from linux-perf unless a perf is there already
BENCH_PKGS := bubblewrap firejail jq $(if $(shell command -v perf),,linux-perf)

.PHONY: deps
deps:
	@missing=$$(for p in $(DEB_PKGS) $(BENCH_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
		| grep -q 'install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: all installed"; exit 0; fi; \
	echo "deps: installing$$(printf ' %s' $$missing)"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $$missing

# ---- tests --------------------------------------------------------------------------------------
VM_CACHE := $(OUT)/vm
VM_STAGE := $(OUT)/vm/stage
# a bound for a hung VM, not its expected time: on a loaded shared host the 6.1 VM's ~12 minutes
# went past 900 s
VM_TIMEOUT ?= 1500
VM_KERNEL ?= 6.1

.PHONY: unit
unit: $(UNIT_BINS)
	$(Q)rc=0; for t in $(UNIT_BINS); do WD_SRCDIR=$(CURDIR) $$t || rc=1; done; exit $$rc

# btrfs-progs for the btrfs tests (tests/escape/t_btrfs.sh), which make their filesystem in the VM
BTRFS_TOOLS = $(shell command -v mkfs.btrfs || echo /sbin/mkfs.btrfs) \
	$(shell command -v btrfs || echo /bin/btrfs)
# bpftool and strace for t_lsm_btf, which checks the LSM programs against each VM kernel's BTF;
# dnsmasq for the name tests' DNS server
VM_TOOLS = $(shell command -v bpftool || echo /usr/sbin/bpftool) \
	$(shell command -v strace || echo /usr/bin/strace) \
	$(shell command -v dnsmasq || echo /usr/sbin/dnsmasq)

# `make install [DESTDIR=...] [PREFIX=/usr/local]`: the programs into one directory (warden-init
# and warden-keeper are found beside warden and wardend, never through PATH), the systemd unit
# (dist/systemd/, its paths filled in), the docs and the man pages. The configuration file is not installed: a
# missing /etc/warden/wardend.json is the defaults (docs/control.md).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DOCDIR ?= $(PREFIX)/share/doc/warden
UNITDIR ?= $(PREFIX)/lib/systemd/system
MANDIR ?= $(PREFIX)/share/man

.PHONY: install
install: $(OUT)/warden $(OUT)/wardend $(OUT)/warden-init $(OUT)/warden-keeper
	$(call msg,INSTALL,$(DESTDIR)$(BINDIR))
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)
	$(Q)install -m 0755 $^ $(DESTDIR)$(BINDIR)/
	$(Q)sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
		dist/systemd/wardend.service > $(DESTDIR)$(UNITDIR)/wardend.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/wardend.service
	$(Q)install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/
	$(Q)install -d $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	$(Q)install -m 0644 docs/man/*.5 $(DESTDIR)$(MANDIR)/man5/
	$(Q)install -m 0644 docs/man/*.8 $(DESTDIR)$(MANDIR)/man8/

.PHONY: vmstage
vmstage: all
	$(Q)rm -rf $(VM_STAGE) && mkdir -p $(VM_STAGE)/bin $(VM_STAGE)/tests
	$(Q)cp $(OUT)/warden $(OUT)/wardend $(OUT)/warden-init $(OUT)/warden-keeper $(HELPERS) \
		$(VM_STAGE)/bin/
	$(Q)cp -r tests/integration tests/escape $(VM_STAGE)/tests/
	$(Q)cp docs/report.schema.json $(VM_STAGE)/bin/
	$(Q)cp $(BTRFS_TOOLS) $(VM_TOOLS) $(VM_STAGE)/bin/

.PHONY: vmtest
vmtest: vmstage
	$(Q)tests/vm/run.sh --kernel $(VM_KERNEL) --cache $(VM_CACHE) --stage $(VM_STAGE) \
		--timeout $(VM_TIMEOUT) --cmd "tests/integration/run.sh --where vm --bin /warden/bin --backend auto --backend landlock"

.PHONY: vmdemo
vmdemo: vmstage
	$(Q)cp docs/examples/demo.json $(VM_STAGE)/
	$(Q)cp /usr/bin/cat $(VM_STAGE)/bin/
	$(Q)tests/vm/run.sh --cache $(VM_CACHE) --stage $(VM_STAGE) --timeout $(VM_TIMEOUT) \
		--cmd "tests/integration/demo.sh"

# Unit tests, the host integration tests and the VM suite on kernels 6.1 and 6.12; one closing
# tally for all the integration runs.
.PHONY: test
test: all $(UNIT_BINS) vmstage
	$(Q)tests/run-all.sh --out $(OUT) --vm-timeout $(VM_TIMEOUT)

# docs/backends.md: the prose of backends.md.in around the table the code generates.
.PHONY: docs
docs: $(OUT)/warden
	$(Q)$(OUT)/warden doctor --table > $(OUT)/backends-table.md
	$(Q)awk -v t=$(OUT)/backends-table.md '/^@TABLE@$$/ { \
		print "<!-- generated by `warden doctor --table`: do not edit -->"; \
		while ((getline l < t) > 0) print l; \
		print "<!-- end of generated table -->"; next } { print }' \
		docs/backends.md.in > docs/backends.md

# ---- fuzzing ------------------------------------------------------------------------------------
# libFuzzer with ASan and UBSan over the policy parser and compiler (fuzz/fuzz_policy.c), seeded
# from the templates and the malformed-policy corpus; runs FUZZ_SECONDS. Findings are written to
# build/fuzz/ (crash-*, leak-*, ...), never into the source tree.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_OUT := $(OUT)/fuzz
FUZZ_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_SRCS := fuzz/fuzz_policy.c $(POLICY_SRCS) $(FUZZ_OUT)/templates_data.c

$(FUZZ_OUT)/templates_data.c: $(OUT)/policy/templates_data.c
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@

$(FUZZ_OUT)/fuzz_policy: $(FUZZ_SRCS) $(wildcard policy/*.h)
	$(call msg,FUZZ-LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 $(CPPFLAGS) $(WARN) $(FUZZ_FLAGS) -o $@ $(FUZZ_SRCS) $(PKG_LIBS)

# The audit formatter (fuzz/fuzz_audit.c): kernel records and strings from outside, as bytes.
FUZZ_AUDIT_SRCS := fuzz/fuzz_audit.c $(AUDIT_SRCS) $(POLICY_SRCS) $(FUZZ_OUT)/templates_data.c

$(FUZZ_OUT)/fuzz_audit: $(FUZZ_AUDIT_SRCS) $(wildcard audit/*.h policy/*.h)
	$(call msg,FUZZ-LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 $(CPPFLAGS) $(WARN) $(FUZZ_FLAGS) -o $@ $(FUZZ_AUDIT_SRCS) $(PKG_LIBS)

# The DNS forwarder's messages (fuzz/fuzz_dns.c): queries from the sandbox, answers from upstream.
FUZZ_DNS_SRCS := fuzz/fuzz_dns.c supervisor/dns/names.c supervisor/dns/message.c $(POLICY_SRCS) \
	$(FUZZ_OUT)/templates_data.c

$(FUZZ_OUT)/fuzz_dns: $(FUZZ_DNS_SRCS) $(wildcard supervisor/dns/*.h policy/*.h)
	$(call msg,FUZZ-LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 $(CPPFLAGS) $(WARN) $(FUZZ_FLAGS) -o $@ $(FUZZ_DNS_SRCS) $(PKG_LIBS)

.PHONY: fuzz-dns
fuzz-build: $(FUZZ_OUT)/fuzz_dns

fuzz-dns: $(FUZZ_OUT)/fuzz_dns
	$(Q)mkdir -p $(FUZZ_OUT)/corpus-dns $(FUZZ_OUT)/findings-dns
	$(Q)cd $(FUZZ_OUT)/findings-dns && ../fuzz_dns -max_total_time=$(FUZZ_SECONDS) \
		-max_len=4200 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 ../corpus-dns

# Control-socket requests (fuzz/fuzz_request.c): a line as any client sends it to wardend.
FUZZ_REQUEST_SRCS := fuzz/fuzz_request.c supervisor/daemon/request.c

$(FUZZ_OUT)/fuzz_request: $(FUZZ_REQUEST_SRCS) supervisor/daemon/request.h
	$(call msg,FUZZ-LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 $(CPPFLAGS) $(WARN) $(FUZZ_FLAGS) -o $@ $(FUZZ_REQUEST_SRCS) $(PKG_LIBS)

.PHONY: fuzz-request
fuzz-build: $(FUZZ_OUT)/fuzz_request

fuzz-request: $(FUZZ_OUT)/fuzz_request
	$(Q)mkdir -p $(FUZZ_OUT)/corpus-request $(FUZZ_OUT)/findings-request
	$(Q)cd $(FUZZ_OUT)/findings-request && ../fuzz_request -max_total_time=$(FUZZ_SECONDS) \
		-max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		../corpus-request $(CURDIR)/fuzz/request

.PHONY: fuzz fuzz-build fuzz-audit
fuzz-build: $(FUZZ_OUT)/fuzz_policy $(FUZZ_OUT)/fuzz_audit

fuzz-audit: $(FUZZ_OUT)/fuzz_audit
	$(Q)mkdir -p $(FUZZ_OUT)/corpus-audit $(FUZZ_OUT)/findings-audit
	$(Q)cd $(FUZZ_OUT)/findings-audit && ../fuzz_audit -max_total_time=$(FUZZ_SECONDS) \
		-max_len=4200 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 ../corpus-audit

fuzz: fuzz-build
	$(Q)mkdir -p $(FUZZ_OUT)/corpus $(FUZZ_OUT)/findings
	$(Q)cd $(FUZZ_OUT)/findings && ../fuzz_policy -max_total_time=$(FUZZ_SECONDS) \
		-max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-dict=$(CURDIR)/fuzz/policy.dict ../corpus $(CURDIR)/policy/templates \
		$(CURDIR)/tests/policy/malformed $(CURDIR)/tests/policy/valid

# Benchmarks (bench/): every bench/*.c is a program of its own; bench/run.sh runs the rows of
# bench/rows/ with them and warden's programs staged in one directory, then the bpf-lsm rows in
# the 6.1 VM (BENCH_VM=0: the host's rows only), and writes bench/results.json
# (docs/performance.md).
BENCH_PROGS := $(patsubst bench/%.c,$(OUT)/bench/%,$(wildcard bench/*.c))
BENCH_BIN := $(OUT)/bench/bin
BENCH_VM ?= 1

$(OUT)/bench/%: $(OUT)/bench/%.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^

# The floor row's programs (bench/bpf/): empty ones on the recorder's tracepoints, a skeleton.
$(OUT)/bench/bpf/%.bpf.o: bench/bpf/%.bpf.c $(OUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(OUT)/tp_floor.skel.h: $(OUT)/bench/bpf/tp_floor.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name tp_floor_bpf > $@
$(OUT)/bench/tp_floor.o: $(OUT)/tp_floor.skel.h
$(OUT)/bench/tp_floor: $(OUT)/bench/tp_floor.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS)

# The audit consumer's capacity drives the run's own record callback: warden's objects linked in.
$(OUT)/bench/audit_replay: $(OUT)/bench/audit_replay.o $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(PKG_LIBS)

.PHONY: bench
bench: all $(BENCH_PROGS)
	$(Q)rm -rf $(BENCH_BIN) && mkdir -p $(BENCH_BIN)
	$(Q)cp $(OUT)/warden $(OUT)/wardend $(OUT)/warden-init $(OUT)/warden-keeper $(BENCH_PROGS) \
		$(OUT)/tests/helpers/wd-rate $(OUT)/tests/helpers/wd-try $(OUT)/bpf/wd_rate.bpf.o \
		$(BENCH_BIN)/
	$(Q)bench/run.sh --bin $(BENCH_BIN) $(if $(filter 1,$(BENCH_VM)),--vm $(VM_CACHE))

.PHONY: clean
clean:
	$(Q)rm -rf $(OUT)

-include $(shell find $(OUT) -path $(OUT)/vm -prune -o -name '*.d' -type f -print 2>/dev/null)
