# oomlint build. `make` fetches the pinned tree-sitter sources (npm registry,
# sha512-verified), compiles them and oomlint into build/oomlint.
# `make setup` installs the system packages (Debian/Ubuntu); `make test` runs
# every test, including the sanitizer build; `make bench` measures speed.

BUILD    ?= build
DEPS     := build/deps
CC       ?= cc
OPT      ?= -O2 -g
SAN      ?=
PREFIX   ?= /usr/local

SANITIZERS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_FLAGS  := $(if $(SAN),$(SANITIZERS))

PKGS       := libcjson libpcre2-8
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

TS_LIB   := $(DEPS)/tree-sitter/vendor/tree-sitter/lib
PY_SRC   := $(DEPS)/tree-sitter-python/src
JSON_SRC := $(DEPS)/tree-sitter-json/src
TOML_SRC := $(DEPS)/_tree-sitter-grammars-tree-sitter-toml/src
YAML_SRC := $(DEPS)/_tree-sitter-grammars-tree-sitter-yaml/src
DEPS_OK  := $(DEPS)/.fetched

WARN     := -Werror=implicit-function-declaration -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
CFLAGS_COMMON := -std=c11 -D_GNU_SOURCE $(OPT) $(SAN_FLAGS)
OUR_CFLAGS    := $(CFLAGS_COMMON) $(WARN) $(EXTRA_WARN) -Iinclude -I$(TS_LIB)/include $(PKG_CFLAGS)
# Third-party grammars are generated code; their warnings are not ours to fix.
DEP_CFLAGS    := $(CFLAGS_COMMON) -w -I$(TS_LIB)/include -I$(TS_LIB)/src
LDFLAGS_ALL   := $(SAN_FLAGS) $(PKG_LIBS) -lpthread -lm

LIB_SRCS  := $(sort $(filter-out src/cli/main.c src/tools/% src/deps/%,$(wildcard src/*/*.c)))
LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(BUILD)/obj/gen/rules_embedded.o
DEP_OBJS  := $(BUILD)/obj/deps/ts_lib.o $(BUILD)/obj/deps/py_parser.o $(BUILD)/obj/deps/py_scanner.o \
             $(BUILD)/obj/deps/json_parser.o $(BUILD)/obj/deps/toml_parser.o $(BUILD)/obj/deps/toml_scanner.o \
             $(BUILD)/obj/deps/yaml_parser.o $(BUILD)/obj/deps/yaml_scanner.o
TEST_SRCS := $(sort $(wildcard tests/unit/*.c))
TEST_OBJS := $(patsubst tests/unit/%.c,$(BUILD)/obj/tests/%.o,$(TEST_SRCS))
RULE_FILES := $(shell find rules -type f 2>/dev/null)
HEADERS   := $(wildcard include/oomlint/*.h src/*/*.h)

.PHONY: bench-server vsix all setup check-system deps test-tools test unit asan bench profile install clean fuzz fuzz-build validate-estimate ecosystem ecosystem-gather quick check new-rule snapshots readme-usage

all: check-system $(BUILD)/oomlint

check-system:
	@for p in $(PKGS); do \
	  if ! pkg-config --exists $$p 2>/dev/null; then \
	    case $$p in libcjson) pkg=libcjson-dev;; libpcre2-8) pkg=libpcre2-dev;; esac; \
	    echo "error: $$p not found by pkg-config; install it with: apt-get install pkg-config $$pkg (or run: make setup)" >&2; exit 1; \
	  fi; done

setup:
	@sh tests/setup.sh

deps: $(DEPS_OK)

$(DEPS_OK): src/deps/deps.lock src/deps/fetch.sh
	sh src/deps/fetch.sh $(DEPS)
	@touch $@

$(BUILD)/oomlint: $(BUILD)/obj/cli/main.o $(BUILD)/liboomlint.a
	$(CC) -o $@ $^ $(LDFLAGS_ALL)

$(BUILD)/liboomlint.a: $(LIB_OBJS) $(DEP_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/oomlint-tests: $(TEST_OBJS) $(BUILD)/liboomlint.a
	$(CC) -o $@ $^ $(LDFLAGS_ALL)

# The one file that reads tree-sitter's private structures (see its header
# comment); -isystem, because those headers are not written to our warnings.
$(BUILD)/obj/lang/layout.o: OUR_CFLAGS += -isystem $(TS_LIB)/src

$(BUILD)/obj/%.o: src/%.c $(HEADERS) $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(OUR_CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/unit/%.c $(HEADERS) $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(OUR_CFLAGS) -Isrc -c $< -o $@

# The list of rule files, rewritten only when it changes: a file added with
# an old modification time (a checkout, a move) still re-embeds the rules.
$(BUILD)/gen/rule-files.list: FORCE
	@mkdir -p $(dir $@)
	@echo '$(RULE_FILES)' | cmp -s - $@ || echo '$(RULE_FILES)' > $@

$(BUILD)/gen/rules_embedded.c: $(RULE_FILES) $(BUILD)/gen/rule-files.list $(BUILD)/tools/embed
	@mkdir -p $(dir $@)
	$(BUILD)/tools/embed rules > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/rules_embedded.o: $(BUILD)/gen/rules_embedded.c $(HEADERS) $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(OUR_CFLAGS) -c $< -o $@

# Built without sanitizers: it only runs at build time.
$(BUILD)/tools/embed: src/tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 $(WARN) -o $@ $<

$(BUILD)/obj/deps/ts_lib.o: $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DEP_CFLAGS) -c $(TS_LIB)/src/lib.c -o $@
$(BUILD)/obj/deps/py_parser.o: $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DEP_CFLAGS) -I$(PY_SRC) -c $(PY_SRC)/parser.c -o $@
$(BUILD)/obj/deps/py_scanner.o: $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DEP_CFLAGS) -I$(PY_SRC) -c $(PY_SRC)/scanner.c -o $@
$(BUILD)/obj/deps/json_parser.o: $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DEP_CFLAGS) -I$(JSON_SRC) -c $(JSON_SRC)/parser.c -o $@
$(BUILD)/obj/deps/toml_parser.o: $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DEP_CFLAGS) -I$(TOML_SRC) -c $(TOML_SRC)/parser.c -o $@
$(BUILD)/obj/deps/toml_scanner.o: $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DEP_CFLAGS) -I$(TOML_SRC) -c $(TOML_SRC)/scanner.c -o $@
$(BUILD)/obj/deps/yaml_parser.o: $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DEP_CFLAGS) -I$(YAML_SRC) -c $(YAML_SRC)/parser.c -o $@
# The scanner includes its scalar schema; the default (core, YAML 1.2) is kept:
# oomlint resolves scalars itself as PyYAML (YAML 1.1) does (model/yaml.c).
# It is compiled through src/deps/yaml_scanner.c, which bounds its state's
# serialization (see that file).
$(BUILD)/obj/deps/yaml_scanner.o: src/deps/yaml_scanner.c $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(DEP_CFLAGS) -I$(YAML_SRC) -c src/deps/yaml_scanner.c -o $@

$(BUILD)/tools/parse-only: $(BUILD)/obj/tools/parse_only.o $(BUILD)/liboomlint.a
	$(CC) -o $@ $^ $(LDFLAGS_ALL)

# The analysis against the parse, file by file in one process (see the file).
$(BUILD)/tools/lint-vs-parse: $(BUILD)/obj/tools/lint_vs_parse.o $(BUILD)/liboomlint.a
	$(CC) -o $@ $^ $(LDFLAGS_ALL)

# oomlint's query matcher against tree-sitter's cursor, on the files named on stdin.
$(BUILD)/tools/match-diff: $(BUILD)/obj/tools/match_diff.o $(BUILD)/liboomlint.a
	$(CC) -o $@ $^ $(LDFLAGS_ALL)

$(BUILD)/tools/validate-estimate: $(BUILD)/obj/tools/validate_estimate.o $(BUILD)/liboomlint.a
	$(CC) -o $@ $^ $(LDFLAGS_ALL)

# The estimate against published figures and any GPU measurements
# (tests/gpu/measure.py writes them to tests/gpu/results/), and image models
# against the CPU measurements of tests/gpu/cnn_profile.py.
validate-estimate: $(BUILD)/tools/validate-estimate
	@$(BUILD)/tools/validate-estimate tests/gpu/results tests/gpu/cnn_profile.json tests/estimate/measured.json

$(BUILD)/obj/tools/%.o: src/tools/%.c $(HEADERS) $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(OUR_CFLAGS) -c $< -o $@

# Test-only tools (the SARIF validator), fetched and verified like the sources.
test-tools: $(DEPS)/.test-tools
$(DEPS)/.test-tools: src/deps/test-tools.lock src/deps/fetch.sh
	sh src/deps/fetch.sh $(DEPS) src/deps/test-tools.lock
	@chmod +x $(DEPS)/_microsoft-sarif-multitool-linux/Sarif.Multitool
	@touch $@

REPLAYS := $(patsubst %,$(BUILD)/tools/replay-%,python json toml yaml suppress rule match notebook fix launch rpc)

unit: check-system $(BUILD)/oomlint $(BUILD)/oomlint-tests $(BUILD)/tools/match-diff $(REPLAYS)

# A fuzz target without libFuzzer, to replay the kept regression inputs.
$(BUILD)/tools/replay-%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_common.h $(BUILD)/liboomlint.a
	@mkdir -p $(dir $@)
	$(CC) $(OUR_CFLAGS) -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay.c $(BUILD)/liboomlint.a $(LDFLAGS_ALL)

# libFuzzer targets (clang): Python, JSON, TOML, YAML and notebooks (and single
# cells' IPython masking) through the whole pipeline, suppression comments,
# a user rule, the language server's message reader (rpc), and oomlint's query matcher against tree-sitter's cursor
# (differential). `make fuzz FUZZ_SECONDS=N` runs each
# for N seconds on a corpus seeded from the fixtures and the rules.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := python json toml yaml suppress rule match notebook fix launch rpc
FUZZ_SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

fuzz-build:
	$(MAKE) BUILD=build/fuzz CC=clang SAN=1 OPT="-O1 -g" SANITIZERS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" build/fuzz/liboomlint.a
	@for t in $(FUZZ_TARGETS); do \
	  clang -std=c11 -D_GNU_SOURCE -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer -Iinclude -I$(TS_LIB)/include $(PKG_CFLAGS) \
	    tests/fuzz/fuzz_$$t.c build/fuzz/liboomlint.a $(PKG_LIBS) -lpthread -o build/fuzz/fuzz_$$t || exit 1; \
	done

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The sanitizer build lives in its own folder so both can coexist.
asan:
	$(MAKE) BUILD=build/asan SAN=1 OPT="-O1 -g" unit

test:
	@sh tests/run.sh

# The plain build's unit tests, fixtures and CLI suites, without the warning
# builds, valgrind and sanitizers of `make test`; FIXTURES=fixtures/rules/OOM201
# runs one folder of fixtures.
quick:
	@QUICK=1 FIXTURES="$(or $(FIXTURES),fixtures)" sh tests/run.sh

# The same, named as the issue tracker and CONTRIBUTING.md use it: `make check`,
# and `make check T=OOM301` for one rule's fixtures.
check:
	@QUICK=1 FIXTURES="$(if $(T),fixtures/rules/$(T),$(or $(FIXTURES),fixtures))" sh tests/run.sh

# The VS Code extension (src/integrations/vscode) as build/vscode/oomlint.vsix:
# its locked dependencies, packaged with the pinned vsce. Not part of `make test`.
VSCE_VERSION := 4.1.0
vsix:
	@rm -rf $(BUILD)/vscode && mkdir -p $(BUILD)/vscode
	cp src/integrations/vscode/package.json src/integrations/vscode/package-lock.json \
	   src/integrations/vscode/extension.js src/integrations/vscode/README.md \
	   src/integrations/vscode/.vscodeignore $(BUILD)/vscode/
	cd $(BUILD)/vscode && npm ci --omit=dev --no-audit --no-fund && \
	  npx --yes @vscode/vsce@$(VSCE_VERSION) package --skip-license --allow-missing-repository --out oomlint.vsix
	@echo "built $(BUILD)/vscode/oomlint.vsix (code --install-extension $(BUILD)/vscode/oomlint.vsix)"

# The language server's latency (didChange to publishDiagnostics) and memory
# after 10,000 edits; a benchmark, never a test.
bench-server: all
	@[ -d /usr/lib/python3/dist-packages/torch ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch >/dev/null 2>&1 || true
	@node tests/bench_server.js $(BUILD)/oomlint

bench: all $(BUILD)/tools/parse-only $(BUILD)/tools/match-diff $(BUILD)/tools/lint-vs-parse
	@status=0; sh tests/bench.sh || status=1; sh tests/bench_cache.sh || status=1; exit $$status

# The on-disk cache alone: a second `oomlint .` over PyTorch's sources, and
# one with a file changed, against a run without the cache.
.PHONY: bench-cache
bench-cache: all
	@sh tests/bench_cache.sh

# The ecosystem check (tests/ecosystem/): oomlint on pinned public training
# code, each finding against its reviewed verdict, and the bug cases' recall.
# The code itself is gathered outside the repository into ECOSYSTEM_DIR.
ECOSYSTEM_DIR ?=
ecosystem: all
	@if [ -z "$(ECOSYSTEM_DIR)" ] || [ ! -d "$(ECOSYSTEM_DIR)/repos" ]; then \
	  echo "ecosystem: no corpus. Create one outside the repository, from git mirrors of the"; \
	  echo "repositories in tests/ecosystem/repos.json and bugs.json:"; \
	  echo "  ECOSYSTEM_GIT_BASE=<a git host, e.g. https://<host>> make ecosystem-gather ECOSYSTEM_DIR=../oomlint-ecosystem"; \
	  echo "  (or ECOSYSTEM_MIRRORS=<folder of <owner>+<name>.git bare clones>)"; \
	  echo "then: make ecosystem ECOSYSTEM_DIR=../oomlint-ecosystem"; \
	else node tests/ecosystem/ecosystem.js check "$(ECOSYSTEM_DIR)"; fi

ecosystem-gather:
	@test -n "$(ECOSYSTEM_DIR)" || { echo "ecosystem-gather: set ECOSYSTEM_DIR=<a folder outside the repository>"; exit 2; }
	@node tests/ecosystem/ecosystem.js gather "$(ECOSYSTEM_DIR)"

# Where the time goes, in instructions (callgrind): deterministic, unlike wall time.
# Writes each fixture's snapshot (<fixture>.snap: span, code and message of
# every finding) from the current build; review the diff before committing.
# The README's usage block, from the option table (src/cli/options.c).
readme-usage: $(BUILD)/oomlint
	@sh tests/readme_usage.sh update $(BUILD)/oomlint README.md

snapshots: $(BUILD)/oomlint-tests
	@OOM_UPDATE_SNAPSHOTS=1 $(BUILD)/oomlint-tests fixtures | grep -c '^PASS fixture' | sed 's/^/fixtures snapshotted: /'

# Scaffolds a rule: rules/python/CODE-NAME/ and two fixtures (CONTRIBUTING.md).
new-rule:
	@sh src/tools/new_rule.sh "$(CODE)" "$(NAME)"

profile: all $(BUILD)/tools/parse-only
	@sh tests/profile.sh

# The manual page is generated by the binary from its --help text and the
# rules' documentation, so it cannot disagree with either.
$(BUILD)/oomlint.1: $(BUILD)/oomlint
	$(BUILD)/oomlint manpage > $@.tmp && mv $@.tmp $@

install: all $(BUILD)/oomlint.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/oomlint $(DESTDIR)$(PREFIX)/bin/oomlint
	install -m 644 $(BUILD)/oomlint.1 $(DESTDIR)$(PREFIX)/share/man/man1/oomlint.1

clean:
	rm -rf build/obj build/gen build/tools build/asan build/oomlint build/oomlint-tests build/liboomlint.a build/oomlint.1

.PHONY: FORCE
FORCE:
