# wechat-drip: `make run` starts it locally, `make test` runs every check CI runs.
SHELL := /bin/bash
.DEFAULT_GOAL := help
# `make test` runs jest several times, at once where the runs do not interfere; each writes its results
# here, and scripts/jest-summary.js sums them.
JEST_RESULTS := test-artifacts/jest
JEST = npx jest --json --outputFile=$(JEST_RESULTS)/$@.json
CHAOS_MESSAGES ?= 10000
# How many of `make test`'s three parts run at once (TEST_JOBS=1: one after another).
TEST_JOBS ?= 3
COMPOSE := scripts/compose.sh
# Plugin-mode tests and the bench's plugin row: start the broker with the delayed-message plugin when this
# machine has one, and export its URL (scripts/plugin-broker.sh; without one they skip and say so).
WITH_PLUGIN_BROKER = eval "$$(scripts/plugin-broker.sh)";

.PHONY: help install build migrate run demo batch-check spine-check bench bench-retention up down logs test test-fast test-unit test-integration test-slow test-faults test-acceptance test-e2e chaos lint typecheck clean \
  ci-static ci-suites ci-faults

help: ## List the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

# npm ci first (exactly the lock file). npm 11.16+ rejects its own lock file when an optional
# platform package is unavailable (npm/cli#9846, here jest's @unrs/resolver-binding-*); then fall
# back to npm install, which installs the same locked versions and leaves the lock file unchanged.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund || npm install --no-audit --no-fund
	@touch $@

install: node_modules/.installed ## Install dependencies (npm ci) when package-lock.json changed

# Rebuilt only when a source, the admin page or a build setting changed since the last build, so that
# `make test-fast` after no change starts testing at once.
BUILD_INPUTS := $(shell find src admin -type f) package.json tsconfig.json tsconfig.build.json tsconfig.contract.json \
  tsconfig.policy.json
dist/.built: node_modules/.installed $(BUILD_INPUTS)
	npm run build
	@touch $@

build: dist/.built ## Compile TypeScript to dist/ (when anything it compiles changed)

migrate: build ## Create the database if needed and apply migrations
	npm run migrate

run: build ## Install, build, migrate and start api + worker + WeChat simulator
	scripts/run-local.sh

demo: build ## Start everything; a demo drip (1,000 follows), then a journey (two branches, a goal) played on cue, live
	scripts/run-local.sh --demo

batch-check: ## Against a running `make run`: 200,000 template reminders in one NDJSON batch, each once
	node scripts/batch-check.js

spine-check: ## Against a running `make run`: 1,000 messages, 100 cancelled, 900 must arrive once
	node scripts/spine-check.js

bench: build ## Benchmark against BullMQ and pg-boss (2–3 hours on two cores); writes docs/BENCHMARKS.md, or test-artifacts/bench/ for a partial run (BENCH_SCALE=0.05: a quick look)
	npx tsc -p tsconfig.bench.json
	$(WITH_PLUGIN_BROKER) node --enable-source-maps dist-bench/bench/run.js

bench-retention: build ## Issue 16: a burst with and without pruning 5,000,000 finished rows, interleaved pairs (about 20 min); prints the table
	npx tsc -p tsconfig.bench.json
	node --enable-source-maps dist-bench/bench/retention.js

up: ## Build and start the docker compose stack (Postgres, RabbitMQ 4.2 + plugin, api, worker, simulator, Prometheus, Grafana); the first run writes fresh secrets into docker/.env
	scripts/compose-env.sh docker/.env
	$(COMPOSE) up -d --build
	@echo "  API http://127.0.0.1:3000   simulator http://127.0.0.1:4100/__sim/messages"
	@echo "  RabbitMQ http://127.0.0.1:15672 (drip/drip)   Prometheus http://127.0.0.1:9090   Grafana http://127.0.0.1:3002"

down: ## Stop the compose stack, keeping its data (docker compose … down -v wipes it)
	$(COMPOSE) down

logs: ## Follow the api and worker logs of the compose stack
	$(COMPOSE) logs -f --tail=100 api worker

lint: install ## ESLint + Prettier
	npm run lint

typecheck: install ## tsc --noEmit over src, test, bench and admin/
	npm run typecheck

test-unit: install ## Unit tests only (no services)
	npx jest --selectProjects unit

test-integration: build ## Integration tests (real Postgres + RabbitMQ; never stops them), three files at a time
	$(WITH_PLUGIN_BROKER) npx jest --selectProjects integration

test-fast: build ## The developer's loop (under a minute): unit + integration tests in parallel; no lint, slow, fault, acceptance or browser tests
	npm run test:fast

test-slow: build ## Measurements and tool validations: the 1,000-message end-to-end run, NDJSON memory, docker/ checks
	$(WITH_PLUGIN_BROKER) npx jest --selectProjects slow --runInBand

test-faults: build ## The fault suite at 500 messages per scenario (on private Postgres and RabbitMQ servers of its own)
	$(WITH_PLUGIN_BROKER) npx jest --selectProjects faults --runInBand

test-acceptance: build ## Acceptance tests: the promises of the README and docs/, against the built service and simulator
	$(WITH_PLUGIN_BROKER) npx jest --selectProjects acceptance --runInBand

test-e2e: install ## Browser tests of the admin app (installs Chromium, builds admin/ when needed)
	npx jest --selectProjects e2e --runInBand

# The same scenarios as inside `make test` (500 messages each there), at CHAOS_MESSAGES each; the table of
# messages / delivered once / lost / duplicates per scenario is printed at the end, pass or fail.
chaos: build ## Fault suite: RabbitMQ (and a 3-node cluster), Postgres, worker, api and WeChat faults at 10,000 messages each; lost = duplicates = 0
	@mkdir -p test-artifacts
	@rm -f test-artifacts/chaos-report.txt test-artifacts/cluster-chaos-report.txt
	$(WITH_PLUGIN_BROKER) CHAOS_MESSAGES=$(CHAOS_MESSAGES) npx jest --selectProjects faults --runInBand; \
	  status=$$?; echo; cat test-artifacts/chaos-report.txt test-artifacts/cluster-chaos-report.txt 2>/dev/null; exit $$status

test: install ## Everything CI runs: lint, typecheck, build, then every jest project, the independent parts at once
	@rm -rf $(JEST_RESULTS) && mkdir -p $(JEST_RESULTS)
	@$(WITH_PLUGIN_BROKER) node scripts/service-stamps.js > test-artifacts/service-stamps.json; \
	  $(MAKE) --no-print-directory --keep-going -j$(TEST_JOBS) --output-sync=target ci-static ci-suites ci-faults; status=$$?; \
	  npx jest --selectProjects services --json --outputFile=$(JEST_RESULTS)/services.json || status=1; \
	  exit $$status

# The three parts of `make test` that run at once (two cores): none stops a server the others use (the
# fault suite runs on private ones). Lint and typecheck need no build. Unit and integration files run
# three at a time, then the acceptance files and then the browser files one at a time; beside them the
# fault suite, then the slow files, one file at a time (the two chains take about as long, ~11 min each
# run at once on two cores; the fault scenarios and the slow files measure lateness and recovery, which
# two at a time would stretch).
ci-static: install
	npm run lint
	npm run typecheck

ci-suites: build
	$(JEST) --selectProjects unit integration; status=$$?; \
	  npx jest --selectProjects acceptance --runInBand --json --outputFile=$(JEST_RESULTS)/$@-acceptance.json \
	  || status=1; \
	  npx jest --selectProjects e2e --runInBand --json --outputFile=$(JEST_RESULTS)/$@-e2e.json || status=1; \
	  exit $$status

ci-faults: build
	$(JEST) --selectProjects faults --runInBand; status=$$?; \
	  npx jest --selectProjects slow --runInBand --json --outputFile=$(JEST_RESULTS)/$@-slow.json \
	  || status=1; exit $$status

clean: ## Remove build output and test artifacts
	rm -rf dist test-artifacts
