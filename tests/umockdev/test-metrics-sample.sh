#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# contrib/'s rules and dashboard are held to samples of /metrics
# (contrib/prometheus/testdata); this keeps the PC87427 one true. hwsightd
# under the umockdev PC87427 must export the same metric families with
# the same label names as pc87427-metrics.prom, and contrib/check-promql
# must find every name the rules and the dashboard use in what it exports
# now (beside the lab's sample, which tests/vm/alerts.sh keeps true). A
# metric renamed in daemon/http/metrics.c fails here; the run leaves its
# /metrics beside it to be the new sample.
. "$(dirname "$0")/lib.sh"

if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
command -v curl >/dev/null 2>&1 || die "curl is not installed (scripts/install-deps installs it)"
contrib=$(cd "$(dirname "$0")/../../contrib" && pwd)
sample=$contrib/prometheus/testdata/pc87427-metrics.prom

trap 'daemon_cleanup; rm -rf "$TMP"' EXIT

daemon_conf 200ms
daemon_start "$TESTBEDS/pc87427.umockdev" "$TMP/hwsightd.conf"
curl -s --max-time 5 "$URL/metrics" >"$TMP/metrics.prom"

# families FILE: each metric name with its label names, one a line.
families() {
	grep -v '^#' "$1" | sed 's/="\([^"\\]\|\\.\)*"//g; s/ .*//' | sort -u
}
expect_same "hwsightd exports the families and labels of $(basename "$sample")" \
	"$(families "$sample")" "$(families "$TMP/metrics.prom")"
if [ "$FAIL" -ne 0 ]; then
	cp "$TMP/metrics.prom" pc87427-metrics.prom
	printf '# if the change is meant, this run'"'"'s /metrics is the new sample: cp %s %s\n' \
		"$PWD/pc87427-metrics.prom" "$sample"
fi

out=$("$contrib/check-promql" names --sample "$TMP/metrics.prom" \
	--sample "$contrib/prometheus/testdata/lab-metrics.prom" \
	"$contrib/prometheus/hwsight-alerts.yml" "$contrib/prometheus/hwsight-recording.yml" \
	"$contrib/grafana/hwsight.json" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "every metric the rules and the dashboard name is exported ($(head -n 1 <<<"$out"))"
else
	not_ok "every metric the rules and the dashboard name is exported" "$out"
fi

summary
