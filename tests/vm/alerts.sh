#!/bin/bash
# alerts.sh - contrib/prometheus's alert rules end to end, with the real
# programs (issue 20). Run in a lab boot of its own (ctest lab.alerts):
#
#   tests/vm/lab run --timeout 300 --env HWS_BUILD_DIR=$PWD/build/default -- tests/vm/alerts.sh
#
# In the guest, all on loopback: hwsightd polls the real w83793 every
# second; Debian's Prometheus scrapes it every second and evaluates
# contrib/prometheus/hwsight-alerts.yml, unchanged, every second; Debian's
# Alertmanager (group_wait 1 s) posts to guest/alert-webhook. fan1 is
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
EOF
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
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

# hook_time STATUS: when the webhook first got the fan1 stall with STATUS.
hook_time() {
	jq -r --arg s "$1" 'select(any(.body.alerts[]; .labels.alertname == "HwsightFanStalled"
		and .labels.sensor == "fan1" and .status == $s)) | .received' "$hook" | head -n 1
}
arrived() { [ -n "$(hook_time "$1")" ]; }
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
echo "# stall -> webhook: $to_fire s (for: ${for_s}s, scrape and evaluation every 1 s, group_wait 1 s)"
lab_eq "it came no sooner than the rule's for: ${for_s}s" yes \
	"$(awk -v t="$to_fire" -v f="$for_s" 'BEGIN { print (t + 0 >= f + 0) ? "yes" : "no (" t " s)" }')"
alert=$(jq -c 'first(.body.alerts[] | select(.labels.alertname == "HwsightFanStalled"))' "$hook" | head -n 1)
lab_eq "its labels: chip, sensor, instance, job, severity" \
	"$chip fan1 127.0.0.1:9787 hwsightd critical" \
	"$(jq -r '.labels | [.chip, .sensor, .instance, .job, .severity] | join(" ")' <<<"$alert")"
lab_eq "its summary" "127.0.0.1:9787: fan fan1 has stopped" "$(jq -r .annotations.summary <<<"$alert")"
lab_eq "no other alert reached the webhook" HwsightFanStalled/fan1 \
	"$(jq -r '.body.alerts[] | "\(.labels.alertname)/\(.labels.sensor)"' "$hook" | sort -u | paste -sd ' ')"

unstall=$EPOCHREALTIME
count_regs "$(preset_reg "$HWS_LAB_PRESET" 0 0x23)" "$(preset_reg "$HWS_LAB_PRESET" 0 0x24)"
lab_wait_until 120 arrived resolved
lab_eq "the fan turning again resolves it at the webhook" 0 "$?"
resolved=$(hook_time resolved)
echo "# un-stall -> resolved: $(since "$unstall" "${resolved:-$unstall}") s"
lab_eq "fan1 reads the preset's speed again" 1 "$(prom "hwsight_fan_rpm{sensor=\"fan1\"} > 0")"
lab_eq "every alerting and recording rule evaluates without an error" "" \
	"$(curl -s http://127.0.0.1:9090/api/v1/rules |
		jq -r '.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.lastError)"')"
lab_run "the dashboard's expressions are answered by this Prometheus" \
	"$contrib/check-promql" query --url http://127.0.0.1:9090 "$contrib/grafana/hwsight.json"
echo "# dashboard: $LAB_OUT"
lab_done
