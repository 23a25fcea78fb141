#!/usr/bin/env bash
# Installs Prometheus's promtool (Debian package `prometheus`) when missing: the metrics tests run
# `promtool check metrics` on the service's /metrics output.
exec bash "$(dirname "$0")/ensure-command.sh" promtool prometheus
