# backfilld: one make for the daemon, clients, tests and benchmarks.
# Targets: all (default), check, asan, bench, run, install, clean.

PREFIX   ?= /usr/local
DESTDIR  ?=
BUILD    ?= build
CC       ?= cc
OPT      ?= -O2 -g
SAN      ?=
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes \
            -Wstrict-prototypes -Wformat=2 -Wvla -Werror
# Libraries in use so far (found with pkg-config): zlib reads .gz traces;
# sqlite3 is the daemon's store; libevent its event loop; yaml-0.1 (libyaml)
# reads its configuration file; libsystemd tells systemd the daemon's state
# and takes its socket (daemon/serve/sd.c) and writes the journal (daemon/sys/journal.c).
PKGS     := zlib sqlite3 libevent yaml-0.1 libsystemd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# -iquote: the project's headers for its own "..." includes only; a system
# header's <sched.h> (pthread.h's) must not find common/sched.h.
CPPFLAGS += -D_GNU_SOURCE -iquote common -iquote daemon -iquote client -iquote tests $(PKG_CFLAGS)
CFLAGS   := $(OPT) $(SAN) $(WARN) -pthread $(EXTRA_CFLAGS)
# The daemon flushes its spool and checkpoints its store on a thread
# (daemon/sys/syncer.c).
LDFLAGS  += $(SAN) -pthread
LDLIBS   := $(PKG_LIBS) -lm

COMMON_SRC := $(wildcard common/*.c)
DAEMON_SRC := $(wildcard daemon/*.c daemon/*/*.c)
CLIENTS    := $(filter bsub bq bkill bctl bstop bresume blaunch,$(basename $(notdir $(wildcard client/*.c))))
# Shared client code: every client/*.c that is not one of the programs.
CLIENT_LIB_SRC := $(filter-out $(CLIENTS:%=client/%.c),$(wildcard client/*.c))
TEST_SRC   := $(wildcard tests/unit/test_*.c)
BENCH_SRC  := $(wildcard bench/*.c)

COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(BUILD)/%.o)
# Tests may drive daemon code too (the replay driver), so everything but main.
DAEMON_LIB_OBJ := $(filter-out $(BUILD)/daemon/main.o,$(DAEMON_OBJ))
TEST_BIN   := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BIN  := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
LIBCOMMON  := $(BUILD)/libcommon.a
LIBDAEMON  := $(BUILD)/libdaemon.a
LIBCLIENT  := $(BUILD)/libclient.a
CLIENT_BIN := $(CLIENTS:%=$(BUILD)/%)

.PHONY: all programs deps deps-tests check test asan bench run replay-sample install clean clean-state fuzz
# Keep object files of tests and benchmarks (make would delete them as intermediates).
.SECONDARY:
all: programs $(TEST_BIN) $(BENCH_BIN)

# The daemon and the clients only: what make run and make install need.
programs: $(BUILD)/backfilld $(CLIENT_BIN)

deps:
	@sh mk/deps.sh

# The build's packages and the tools the tests use (mk/deps.sh).
deps-tests:
	@sh mk/deps.sh --tests

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIBCOMMON): $(COMMON_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBDAEMON): $(DAEMON_LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# The clients read the socket key of the configuration file with the
# daemon's own reader (client/where.c), so both agree on what it says.
$(LIBCLIENT): $(CLIENT_LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/daemon/sys/conf.o
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/backfilld: $(BUILD)/daemon/main.o $(LIBDAEMON) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(CLIENT_BIN): $(BUILD)/%: $(BUILD)/client/%.o $(LIBCLIENT) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBDAEMON) $(LIBCLIENT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIBDAEMON) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Every test: unit binaries and replay scripts, ending in "N passed, N failed".
check: deps-tests
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh $(BUILD)

# The same tests under AddressSanitizer and UBSan, in their own build tree.
asan: deps-tests
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" all
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    BACKFILLD_TEST_QUICK=1 sh tests/run.sh build-asan

bench: deps
	@$(MAKE) --no-print-directory all
	@sh bench/run.sh $(BUILD)

# The main job: the daemon in the foreground with the default paths, all
# absolute (as root /run, /var/lib, /var/spool; otherwise $$XDG_RUNTIME_DIR
# or /tmp/backfilld-UID, and ~/.local/state/backfilld: common/paths.h).
run: deps
	@$(MAKE) --no-print-directory programs
	@printf '%s\n' "backfilld: starting in the foreground (Ctrl-C stops it; running jobs go on)." \
	    "  in another terminal:  printf '#!/bin/sh\\nhostname; sleep 5\\n' > job.sh" \
	    "                        $(abspath $(BUILD))/bsub -n 2 -t 1:00 job.sh && $(abspath $(BUILD))/bq" \
	    "  the clients find the socket it prints below by default, from any directory."
	@exec $(BUILD)/backfilld --foreground

# Remove what make run leaves: as root /var/lib/backfilld and
# /var/spool/backfilld, otherwise ~/.local/state/backfilld; refused while a
# process (a backfilld, a job's supervisor) uses them. STATE_DIRS="..."
# names other directories.
clean-state:
	@sh mk/clean-state.sh $(STATE_DIRS)

# A replay of the project's own small sample trace under each policy.
replay-sample: deps
	@$(MAKE) --no-print-directory all
	@sh mk/sample-trace.sh > $(BUILD)/sample.swf
	@for p in fcfs easy conservative; do \
	    $(BUILD)/backfilld --replay $(BUILD)/sample.swf --policy $$p --check || exit 1; \
	done

# Fuzz the SWF reader, the wire-protocol decoders, the dependency
# expressions and the job array specs, for FUZZ_SECONDS each (libFuzzer with
# clang; see tests/fuzz/README.md). New inputs go to the first corpus
# directory, under $(BUILD); the seeds in tests/fuzz stay as they are.
FUZZ_SECONDS ?= 60
fuzz:
	@mkdir -p $(BUILD)/fuzz-corpus $(BUILD)/fuzz-proto-corpus \
	    $(BUILD)/fuzz-depexpr-corpus $(BUILD)/fuzz-jobarray-corpus
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -iquote common \
	    tests/fuzz/fuzz_swf.c common/swf.c common/errf.c $(PKG_LIBS) -o $(BUILD)/fuzz_swf
	$(BUILD)/fuzz_swf -max_total_time=$(FUZZ_SECONDS) -max_len=20000 $(BUILD)/fuzz-corpus tests/fuzz/corpus
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -iquote common \
	    tests/fuzz/fuzz_proto.c common/proto.c common/errf.c -o $(BUILD)/fuzz_proto
	$(BUILD)/fuzz_proto -max_total_time=$(FUZZ_SECONDS) -max_len=16384 \
	    $(BUILD)/fuzz-proto-corpus tests/fuzz/proto-corpus
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -iquote common \
	    tests/fuzz/fuzz_depexpr.c common/depexpr.c common/errf.c -o $(BUILD)/fuzz_depexpr
	$(BUILD)/fuzz_depexpr -max_total_time=$(FUZZ_SECONDS) -max_len=4200 \
	    $(BUILD)/fuzz-depexpr-corpus tests/fuzz/depexpr-corpus
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -iquote common \
	    tests/fuzz/fuzz_jobarray.c common/jobarray.c common/errf.c -o $(BUILD)/fuzz_jobarray
	$(BUILD)/fuzz_jobarray -max_total_time=$(FUZZ_SECONDS) -max_len=4200 \
	    $(BUILD)/fuzz-jobarray-corpus tests/fuzz/jobarray-corpus

# Crash torture (tests/torture/torture.c): the live daemon killed -9
# TORTURE_CRASHES times under a storm of clients, then every invariant
# checked; TORTURE_SEED repeats a run's random choices (the seed is printed),
# TORTURE_POLICY is conservative or easy. A short run is part of `make check`
# (tests/daemon/torture.sh).
TORTURE_BIN := $(BUILD)/tests/bf_torture
TORTURE_CRASHES ?= 50
TORTURE_POLICY ?= conservative
TORTURE_SEED ?=
.PHONY: torture
all: $(TORTURE_BIN)
$(TORTURE_BIN): $(BUILD)/tests/torture/torture.o $(LIBDAEMON) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
torture: deps
	@$(MAKE) --no-print-directory all
	@BF_BUILD=$(BUILD) TORTURE_CRASHES=$(TORTURE_CRASHES) TORTURE_POLICY=$(TORTURE_POLICY) \
	    TORTURE_SEED=$(TORTURE_SEED) $(TORTURE_BIN)

# The systemd tests' datagram listener (NOTIFY_SOCKET, the journal's
# socket): tests/tools/dgram.c, used by tests/daemon/systemd.sh.
DGRAM_BIN := $(BUILD)/tests/bf_dgram
all: $(DGRAM_BIN)
$(DGRAM_BIN): $(BUILD)/tests/tools/dgram.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

# The replay tests' SVG check: tests/tools/xmlcheck.c (no XML package needed).
XMLCHECK_BIN := $(BUILD)/tests/bf_xmlcheck
all: $(XMLCHECK_BIN)
$(XMLCHECK_BIN): $(BUILD)/tests/tools/xmlcheck.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

# Where a Debian package puts things (PREFIX=/usr): binaries in sbin and
# bin, pages in share/man, the units and the tmpfiles.d entry under lib
# (systemd also reads /usr/local/lib/...), the configuration in /etc
# whatever the PREFIX, as Debian's sysconfdir. The programs read
# /etc/backfilld/backfilld.yaml (clients: $$BACKFILLD_CONFIG; the daemon:
# --config) whatever SYSCONFDIR says. An existing configuration is never
# overwritten: if it differs from the example (edited, or an older one),
# the new example goes beside it as backfilld.yaml.example.
SYSCONFDIR     ?= /etc
MANDIR         ?= $(PREFIX)/share/man
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
TMPFILESDIR    ?= $(PREFIX)/lib/tmpfiles.d
CONF_DEST      := $(DESTDIR)$(SYSCONFDIR)/backfilld/backfilld.yaml
UNITS          := backfilld.service backfilld.socket
# The units name /usr/sbin/backfilld and /etc/backfilld/: point them at
# where this install puts them.
UNIT_SED       := -e 's|/usr/sbin/backfilld|$(PREFIX)/sbin/backfilld|g' \
                  -e 's|/etc/backfilld/|$(SYSCONFDIR)/backfilld/|g'
.PHONY: uninstall
install: $(BUILD)/backfilld $(CLIENT_BIN)
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/backfilld $(DESTDIR)$(PREFIX)/sbin/backfilld
	install -m 755 $(CLIENT_BIN) $(DESTDIR)$(PREFIX)/bin/
	# A page whose first line is '.\" alias: PAGE' (bresume.1) is a stub
	# that renders from the checkout; installed, it is '.so manN/PAGE',
	# which man resolves from the section's root.
	for page in man/*.[1-8]; do \
	    sec=$${page##*.}; install -d $(DESTDIR)$(MANDIR)/man$$sec; \
	    alias=$$(sed -n '1s/^\.\\" alias: *//p' $$page); \
	    if [ -n "$$alias" ]; then \
	        mkdir -p $(BUILD)/man && echo ".so man$${alias##*.}/$$alias" >$(BUILD)/$$page && \
	        install -m 644 $(BUILD)/$$page $(DESTDIR)$(MANDIR)/man$$sec/ || exit 1; \
	    else \
	        install -m 644 $$page $(DESTDIR)$(MANDIR)/man$$sec/ || exit 1; \
	    fi; \
	done
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(TMPFILESDIR)
	for u in $(UNITS); do \
	    sed $(UNIT_SED) systemd/$$u > $(BUILD)/$$u.tmp && \
	    install -m 644 $(BUILD)/$$u.tmp $(DESTDIR)$(SYSTEMDUNITDIR)/$$u && \
	    rm -f $(BUILD)/$$u.tmp || exit 1; \
	done
	install -m 644 systemd/backfilld.tmpfiles $(DESTDIR)$(TMPFILESDIR)/backfilld.conf
	install -d -m 755 $(DESTDIR)$(SYSCONFDIR)/backfilld
	@if [ ! -e $(CONF_DEST) ]; then \
	    echo "install -m 644 etc/backfilld.yaml $(CONF_DEST)"; \
	    install -m 644 etc/backfilld.yaml $(CONF_DEST); \
	elif ! cmp -s etc/backfilld.yaml $(CONF_DEST); then \
	    install -m 644 etc/backfilld.yaml $(CONF_DEST).example && \
	    echo "install: kept $(CONF_DEST) (it differs from the example); the new example is $(CONF_DEST).example"; \
	fi
	@[ -n "$(DESTDIR)" ] || echo "install: next, as root: systemd-tmpfiles --create backfilld.conf;" \
	    "systemctl daemon-reload; systemctl enable --now backfilld.socket"

# What install put, and nothing else: the configuration only if it is
# still the example as shipped (an edited one is the administrator's, and
# is kept with a message); the directories bin, sbin, man... are shared.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/backfilld
	rm -f $(CLIENTS:%=$(DESTDIR)$(PREFIX)/bin/%)
	for page in man/*.[1-8]; do \
	    rm -f $(DESTDIR)$(MANDIR)/man$${page##*.}/$${page##*/}; \
	done
	rm -f $(UNITS:%=$(DESTDIR)$(SYSTEMDUNITDIR)/%) $(DESTDIR)$(TMPFILESDIR)/backfilld.conf
	rm -f $(CONF_DEST).example
	@if [ -e $(CONF_DEST) ] && ! cmp -s etc/backfilld.yaml $(CONF_DEST); then \
	    echo "uninstall: kept $(CONF_DEST): it is not the example as shipped (remove it by hand)"; \
	else \
	    echo "rm -f $(CONF_DEST)"; rm -f $(CONF_DEST); \
	    rmdir $(DESTDIR)$(SYSCONFDIR)/backfilld 2>/dev/null || true; \
	fi

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
