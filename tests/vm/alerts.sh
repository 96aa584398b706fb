#!/bin/bash
# alerts.sh - contrib/prometheus's alert rules end to end, with the real
# programs (issue 20). Run in a lab boot of its own (ctest lab.alerts):
#
#   tests/vm/lab run --timeout 600 --env HWS_BUILD_DIR=$PWD/build/default -- tests/vm/alerts.sh
#
# In the guest, all on loopback: hwsightd polls the real w83793 every
# second (with a vivid camera and a [fan] on pwm1, as the metric sample of
# contrib/ was taken); Debian's Prometheus scrapes it every 2 s and
# evaluates contrib/prometheus/hwsight-alerts.yml, unchanged, every second;
# Debian's Alertmanager (group_wait 1 s) posts to guest/alert-webhook. fan1 is
# stalled by writing its count registers (0x23, 0x24: 0xfff, as a stopped
# fan reads), and given back the preset's count. The HwsightFanStalled
# alert for fan1, and nothing else, must reach the webhook, no sooner than
# its for: allows, with its labels and summary; then its resolution. The
# times from the stall to the webhook and from the un-stall to the resolve
# are printed as "# " lines. The recording rules are loaded too: every
# rule must evaluate without an error, and every expression of the
# dashboard be answered by this Prometheus (contrib/check-promql query).
# The programs' logs and the webhook's record are left in
# $HWS_LAB_RESULTS/alerts/.
. "$(dirname "${BASH_SOURCE[0]}")/checks/lib.sh"

lab_fan_env
contrib=$HWS_LAB_DIR/../../contrib
rules=$contrib/prometheus/hwsight-alerts.yml
chip=$(printf 'w83793-i2c-%d-%02x' "$bus" $((addr)))
out=${HWS_LAB_RESULTS:?not inside the lab}/alerts
mkdir -p "$out"
rm -f "$out"/*
tmp=$(mktemp -d)
lab_require "$hwsightd" prometheus prometheus-alertmanager curl jq python3
# The rule's own for: (the earliest the alert may arrive after the stall).
for_s=$(python3 -c '
import sys, yaml
for g in yaml.safe_load(open(sys.argv[1]))["groups"]:
    for r in g["rules"]:
        if r.get("alert") == "HwsightFanStalled":
            d = r["for"]
            print(int(d[:-1]) * {"s": 1, "m": 60}[d[-1]])' "$rules")

pids=()
cleanup() {
	lab_kill "${pids[@]}"
	"$HWS_LAB_DIR/guest/lab-regs" "$HWS_LAB_PRESET" >/dev/null
}
trap cleanup EXIT

cat >"$tmp/hwsightd.conf" <<EOF
[daemon]
poll_interval = 1s
state_directory = $tmp/state
listen = 127.0.0.1:9787
log_target = stderr
fan_state = $tmp/fans.state

[camera cam0]
device = /dev/video0
size = 320x180
fps = 25

[fan cpu]
output = w83793-*/pwm1
sources = w83793-*/temp1
curve = 30:30% 60:100%
interval = 1s
EOF
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 1s
rule_files:
  - $rules
  - $contrib/prometheus/hwsight-recording.yml
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['127.0.0.1:9093']
scrape_configs:
  - job_name: hwsightd
    static_configs:
      - targets: ['127.0.0.1:9787']
EOF
cat >"$tmp/alertmanager.yml" <<EOF
route:
  receiver: webhook
  group_by: [alertname, instance, chip, sensor]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: webhook
    webhook_configs:
      - url: http://127.0.0.1:9095/
        send_resolved: true
EOF

hook=$out/webhook.jsonl
: >"$hook"
"$HWS_LAB_DIR/guest/alert-webhook" 9095 "$hook" >"$tmp/webhook.out" 2>"$out/webhook.log" &
pids+=($!)
"$hwsightd" -f -c "$tmp/hwsightd.conf" 2>"$out/hwsightd.log" &
pids+=($!)
prometheus-alertmanager --config.file="$tmp/alertmanager.yml" --storage.path="$tmp/am" \
	--web.listen-address=127.0.0.1:9093 --cluster.listen-address= 2>"$out/alertmanager.log" &
pids+=($!)
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prom" \
	--web.listen-address=127.0.0.1:9090 2>"$out/prometheus.log" &
pids+=($!)

# prom QUERY: the number of series an instant query gives.
prom() {
	curl -s --max-time 5 -G http://127.0.0.1:9090/api/v1/query --data-urlencode "query=$1" |
		jq -r '.data.result | length'
}
ready() {
	grep -q ready "$tmp/webhook.out" &&
		curl -sf --max-time 2 http://127.0.0.1:9093/-/ready >/dev/null &&
		[ "$(prom 'up{job="hwsightd"} == 1')" = 1 ] &&
		[ "$(prom "hwsight_fan_rpm{sensor=\"fan1\"} > 0")" = 1 ] &&
		[ "$(curl -s http://127.0.0.1:9090/api/v1/rules | jq '[.data.groups[].rules[]] | length')" -gt 0 ]
}
lab_wait_until 120 ready
lab_eq "Prometheus scrapes hwsightd with the rules loaded, Alertmanager and the webhook listen" 0 "$?"
lab_eq "every rule of hwsight-alerts.yml is loaded" \
	"$(grep -c '^ *- alert:' "$rules")" \
	"$(curl -s http://127.0.0.1:9090/api/v1/rules | jq '[.data.groups[].rules[] | select(.type == "alerting")] | length')"
lab_eq "no alert fires before the stall" 0 "$(prom 'ALERTS{alertstate="firing"}')"

# The sample the contrib checks hold the rules and the dashboard to
# (contrib/prometheus/testdata/lab-metrics.prom, taken with this config and
# a viewer) must still be what hwsightd exports: a metric renamed, added or
# removed in daemon/http/metrics.c shows here until the sample is taken
# again (the file this leaves in the results is one).
# The camera's pacing series appear once it has kept frames for a viewer.
curl -s -N --max-time 120 "http://127.0.0.1:9787/stream.mjpg?camera=cam0" >/dev/null &
viewer=$!
pids+=("$viewer")
streamed() {
	curl -s http://127.0.0.1:9787/metrics >"$out/lab-metrics.prom" &&
		awk '/^hwsight_camera_frames_total/ { n = $2 } END { exit !(n >= 3) }' "$out/lab-metrics.prom"
}
lab_wait_until 60 streamed
kill "$viewer"
metric_names() { grep -v '^#' "$1" | sed 's/[{ ].*//' | sort -u; }
lab_eq "hwsightd exports the metrics of contrib's lab sample, no more, no fewer" "" \
	"$(diff <(metric_names "$contrib/prometheus/testdata/lab-metrics.prom") \
		<(metric_names "$out/lab-metrics.prom") | grep '^[<>]' | paste -sd ' ')"

# hook_time STATUS [AFTER]: when the webhook first got the fan1 stall with
# STATUS (after the time AFTER).
hook_time() {
	jq -r --arg s "$1" --argjson after "${2:-0}" 'select(.received > $after and
		any(.body.alerts[]; .labels.alertname == "HwsightFanStalled"
		and .labels.sensor == "fan1" and .status == $s)) | .received' "$hook" | head -n 1
}
arrived() { [ -n "$(hook_time "$@")" ]; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

count_regs() {
	"$HWS_LAB_DIR/guest/lab-regs" - <<EOF
0 0x23 $1
0 0x24 $2
EOF
}

stall=$EPOCHREALTIME
count_regs 0x0f 0xff
lab_wait_until $((for_s + 120)) arrived firing
lab_eq "the HwsightFanStalled alert for fan1 reaches the webhook" 0 "$?"
fired=$(hook_time firing)
to_fire=$(since "$stall" "${fired:-$stall}")
[ -z "$fired" ] || echo "# stall -> webhook: $to_fire s (for: ${for_s}s, scrapes every 2 s, evaluation every 1 s, group_wait 1 s)"
lab_eq "it came no sooner than the rule's for: ${for_s}s" yes \
	"$(awk -v t="$to_fire" -v f="$for_s" 'BEGIN { print (t + 0 >= f + 0) ? "yes" : "no (" t " s)" }')"
alert=$(jq -c 'first(.body.alerts[] | select(.labels.alertname == "HwsightFanStalled"))' "$hook" | head -n 1)
lab_eq "its labels: chip, sensor, instance, job, severity" \
	"$chip fan1 127.0.0.1:9787 hwsightd critical" \
	"$(jq -r '.labels | [.chip, .sensor, .instance, .job, .severity] | join(" ")' <<<"$alert")"
lab_eq "its summary" "127.0.0.1:9787: fan fan1 has stopped" "$(jq -r .annotations.summary <<<"$alert")"
lab_eq "no other alert reached the webhook" HwsightFanStalled/fan1 \
	"$(jq -r '.body.alerts[] | "\(.labels.alertname)/\(.labels.sensor)"' "$hook" | sort -u | paste -sd ' ')"

# Un-stall a firing alert: if a failed scrape resolved it meanwhile, wait
# until its for: has passed again.
firing() { [ "$(prom 'ALERTS{alertname="HwsightFanStalled",alertstate="firing",sensor="fan1"}')" = 1 ]; }
lab_wait_until $((for_s + 120)) firing
unstall=$EPOCHREALTIME
count_regs "$(preset_reg "$HWS_LAB_PRESET" 0 0x23)" "$(preset_reg "$HWS_LAB_PRESET" 0 0x24)"
lab_wait_until 120 arrived resolved "$unstall"
lab_eq "the fan turning again resolves it at the webhook" 0 "$?"
resolved=$(hook_time resolved "$unstall")
[ -z "$resolved" ] || echo "# un-stall -> resolved: $(since "$unstall" "$resolved") s"
# A scrape that fails under the emulator's load leaves the series stale:
# the alert's for: starts again, and a firing alert resolves for a while.
# Say so beside the times.
failed=$(curl -s --max-time 5 -G http://127.0.0.1:9090/api/v1/query --data-urlencode \
	'query=count_over_time(up{job="hwsightd"}[30m]) - sum_over_time(up{job="hwsightd"}[30m])' |
	jq -r '.data.result[0].value[1] // "?"')
echo "# scrapes that failed: $failed; notifications: $(jq -r .body.status "$hook" | paste -sd ' ')"
lab_eq "fan1 reads the preset's speed again" 1 "$(prom "hwsight_fan_rpm{sensor=\"fan1\"} > 0")"
lab_eq "every alerting and recording rule evaluates without an error" "" \
	"$(curl -s http://127.0.0.1:9090/api/v1/rules |
		jq -r '.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.lastError)"')"
lab_run "the dashboard's expressions are answered by this Prometheus" \
	"$contrib/check-promql" query --url http://127.0.0.1:9090 "$contrib/grafana/hwsight.json"
echo "# dashboard: $LAB_OUT"
lab_done
