# recall: make targets. Every target works on a fresh Debian machine with no step done by hand:
# what a target needs (PostgreSQL 15, pg_trgm, pgvector, the private server) it installs and
# starts itself, and skips when already there.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO ?= go
PKGS ?= ./...
GOLANGCI_VERSION := v2.15.0
BIN := $(CURDIR)/.bin

.PHONY: help
help: ## Show this help (target names in bold on a terminal).
	@if [ -t 1 ]; then b=$$'\033[1m' n=$$'\033[0m'; else b= n=; fi; \
	awk -v b="$$b" -v n="$$n" 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %s%-16s%s %s\n", b, $$1, n, $$2}' $(MAKEFILE_LIST)

.PHONY: setup
setup: ## Install PostgreSQL 15, pg_trgm and pgvector where missing (apt; needs root).
	@scripts/pg-install.sh

.PHONY: db
db: ## Ensure the private server for this checkout runs; prints its admin URL last.
	@scripts/db.sh start

.PHONY: db-stop
db-stop: ## Stop the private server.
	@scripts/db.sh stop

.PHONY: db-clean
db-clean: ## Stop the private server and delete its data directory (.pg/).
	@scripts/db.sh clean

.PHONY: test
test: ## Run every test against the private server (installed and started as needed), headless Chromium for the console and Debian's python3-pytest for the Python client (installed if missing) and, when Citus's source is there, a Citus cluster; then the ONNX tests again on ONNX Runtime.
	@url=$$(scripts/db.sh start); chromium=$$(scripts/chromium-install.sh); python=$$(scripts/pytest-install.sh); citus=; workers=; \
	if scripts/citus.sh available; then citus=$$(scripts/citus.sh start); workers=$$(scripts/citus.sh workers | tr '\n' ' '); fi; \
	TEST_DATABASE_URL="$$url" RECALL_CHROMIUM="$$chromium" RECALL_PYTHON="$$python" TEST_CITUS_URL="$$citus" TEST_CITUS_WORKERS="$$workers" $(GO) test -count=1 -timeout 30m $(PKGS)
	@lib=$$(scripts/ort-install.sh); \
	$(ORT_ENV) ONNXRUNTIME_LIB="$$lib" $(GO) test -count=1 -tags ort $(ONNX_PKGS)

ONNX_PKGS := ./embed/onnx ./rerank/onnx
# ONNX Runtime keeps a device id and a small database under $XDG_CACHE_HOME (~/.cache/Microsoft):
# the tests keep them in .ort/cache instead, with Go's build cache left where it is.
ORT_ENV = GOCACHE="$$($(GO) env GOCACHE)" XDG_CACHE_HOME="$(CURDIR)/.ort/cache"

.PHONY: screenshots
screenshots: ## Make the console's screenshots (docs/console/*.png) with its browser test.
	@url=$$(scripts/db.sh start); chromium=$$(scripts/chromium-install.sh); mkdir -p docs/console; \
	TEST_DATABASE_URL="$$url" RECALL_CHROMIUM="$$chromium" RECALL_CONSOLE_SHOTS="$(CURDIR)/docs/console" \
		$(GO) test -count=1 -run '^TestConsole$$' ./server

.PHONY: citus
citus: ## Build Citus from ../shared/citus (or RECALL_CITUS_SRC) if needed and start a coordinator and two workers (.citus/); prints the coordinator's admin URL last.
	@scripts/citus.sh start

.PHONY: citus-stop
citus-stop: ## Stop the Citus cluster.
	@scripts/citus.sh stop

.PHONY: ort
ort: ## Fetch ONNX Runtime's shared library (npm onnxruntime-node) into .ort/; prints its path.
	@scripts/ort-install.sh

.PHONY: bench-models
bench-models: ## Write MiniLM-L6-shaped random-weight ONNX models into .models/ (installs python3-onnx with apt if missing).
	@scripts/bench-models.sh

.PHONY: bench-onnx
bench-onnx: bench-models ## ONNX benchmarks, both backends, GOEXPERIMENT=simd (COUNT=n, TIMES=n).
	@lib=$$(scripts/ort-install.sh); \
	$(ORT_ENV) GOEXPERIMENT=simd ONNXRUNTIME_LIB="$$lib" $(GO) test -tags ort -run='^$$' -bench='$(or $(BENCH),.)' \
		-benchtime=$(or $(TIMES),5)x -count=$(or $(COUNT),1) $(ONNX_PKGS)

.PHONY: bench-serve
bench-serve: ## HTTP API against direct Engine.Recall: 64 clients, p50/p95/p99 (N=memories, default 100000; SECONDS per arm, default 10).
	@url=$$(scripts/db.sh start); \
	TEST_DATABASE_URL="$$url" RECALL_BENCH_N=$(or $(N),100000) RECALL_BENCH_SECONDS=$(or $(SECONDS),10) \
		$(GO) test -run='^$$' -bench=BenchmarkServe -benchtime=1x -timeout=2h ./server

.PHONY: bench
bench: ## Run the benchmarks (BENCH=regexp, COUNT=n).
	@url=$$(scripts/db.sh start); \
	TEST_DATABASE_URL="$$url" $(GO) test -run='^$$' -bench='$(or $(BENCH),.)' -benchmem -count=$(or $(COUNT),1) $(PKGS)

.PHONY: bench-statement
bench-statement: ## Statement benchmarks at N memories (N=500|10000|100000|1000000, at least 100; PLANS=maximal,-title picks BenchmarkMaximal's plans; SETTINGS='{"TitleFuzzyWords":2}' overrides defaults; CONTROL=10000 times a control corpus beside each iteration); the corpus is generated once and kept.
	@url=$$(scripts/db.sh start); \
	RECALL_BENCH_N=$(or $(N),100000) RECALL_BENCH_PLANS='$(PLANS)' RECALL_BENCH_SETTINGS='$(SETTINGS)' RECALL_BENCH_CONTROL='$(CONTROL)' TEST_DATABASE_URL="$$url" $(GO) test -timeout 4h -run='^$$' \
		-bench='$(or $(BENCH),.)' -benchtime=$(or $(TIMES),40)x -count=$(or $(COUNT),1) ./statement

.PHONY: bench-citus
bench-citus: ## The maximal statement on the Citus cluster against the single server, alternating (N=memories, default 10000; TIMES per caller, default 40); the cluster's corpus is loaded and distributed anew each run.
	@url=$$(scripts/db.sh start); curl=$$(scripts/citus.sh start); \
	RECALL_BENCH_N=$(or $(N),10000) TEST_DATABASE_URL="$$url" TEST_CITUS_URL="$$curl" TEST_CITUS_WORKERS="$$(scripts/citus.sh workers | tr '\n' ' ')" \
		$(GO) test -timeout 4h -run='^$$' -bench=BenchmarkCitusMaximal -benchtime=$(or $(TIMES),40)x ./statement

.PHONY: bench-citus-direct
bench-citus-direct: ## On a kept cluster database (RECALL_BENCH_CITUS_DB), the single server, the routed statement and the engine's direct read of the set's shards on its worker (statement.RunDirect), alternating (N=memories, TIMES per caller).
	@url=$$(scripts/db.sh start); curl=$$(scripts/citus.sh start); \
	RECALL_BENCH_N=$(or $(N),10000) TEST_DATABASE_URL="$$url" TEST_CITUS_URL="$$curl" TEST_CITUS_WORKERS="$$(scripts/citus.sh workers | tr '\n' ' ')" \
		$(GO) test -timeout 4h -run='^$$' -bench=BenchmarkCitusDirect -benchtime=$(or $(TIMES),40)x ./statement

.PHONY: bench-chat
bench-chat: ## A long user-assistant chat (N=messages of 100-400 words, default 1200; TIMES questions, default 200): the default plan against the bm25 plan, alternating, p50/p95 and their ratios; written once per server and kept.
	@url=$$(scripts/db.sh start); \
	RECALL_BENCH_CHAT_N=$(or $(N),1200) TEST_DATABASE_URL="$$url" $(GO) test -timeout 1h -run='^$$' \
		-bench=BenchmarkLongChat -benchtime=$(or $(TIMES),200)x -count=$(or $(COUNT),1) .

.PHONY: bench-1m
bench-1m: ## The statement benchmarks at 1,000,000 memories (first run generates them: tens of minutes).
	@$(MAKE) --no-print-directory bench-statement N=1000000

# The commit a build says it was built from (recall version).
LDFLAGS := -X main.commit=$(shell git rev-parse --short HEAD 2>/dev/null)

.PHONY: build
build: ## Build recall and aizk-eval into .bin/ (add .bin to PATH, or make install).
	@$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/recall ./cmd/recall
	@$(GO) build -o $(BIN)/aizk-eval ./cmd/aizk-eval
	@echo "built $(BIN)/recall and $(BIN)/aizk-eval"

.PHONY: install
install: ## Install recall and aizk-eval into $(go env GOBIN), else $(go env GOPATH)/bin: on your PATH if that is.
	@$(GO) install -ldflags "$(LDFLAGS)" ./cmd/recall ./cmd/aizk-eval
	@dir=$$($(GO) env GOBIN); dir=$${dir:-$$($(GO) env GOPATH)/bin}; \
	echo "installed recall and aizk-eval in $$dir"; \
	case ":$$PATH:" in *":$$dir:"*) ;; *) echo "note: $$dir is not on your PATH: export PATH=\"$$dir:\$$PATH\"";; esac

.PHONY: demo
demo: ## Build recall and run its demo on the embedded database (installs PostgreSQL if missing; the second run reuses the data).
	@$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/recall ./cmd/recall
	@$(BIN)/recall demo

SCIFACT ?= ../shared/data/scifact

.PHONY: eval-scifact
eval-scifact: ## The plan study on BEIR SciFact (SCIFACT=dir), written to eval/results/.
	@url=$$(scripts/db.sh start); \
	$(GO) build -o $(BIN)/aizk-eval ./cmd/aizk-eval && \
	RECALL_DATABASE_URL="$$url" $(BIN)/aizk-eval plans --dataset $(SCIFACT) \
		--json eval/results/scifact.json --report eval/results/scifact.md

.PHONY: schema
schema: ## Write sql/schema.sql anew from a freshly migrated database (after a migration or function file changed).
	@url=$$(scripts/db.sh start); \
	RECALL_UPDATE_SCHEMA=1 TEST_DATABASE_URL="$$url" $(GO) test -count=1 -run '^TestSchemaFile$$' ./migrations

.PHONY: lint
lint: $(BIN)/golangci-lint ## gofmt, go vet and golangci-lint (.golangci.yml).
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo 'gofmt: the files above need formatting'; exit 1; }
	@$(GO) vet $(PKGS)
	@$(BIN)/golangci-lint run $(PKGS)

$(BIN)/golangci-lint:
	@echo "installing golangci-lint $(GOLANGCI_VERSION) (built from the module proxy, once)"
	@GOBIN=$(BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
