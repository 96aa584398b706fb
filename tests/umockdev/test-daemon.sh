#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsightd against umockdev testbeds, for what the lab cannot give: the
# PC87427 polled on the freezeable queue, its alarm bits rising and falling
# while the daemon runs, and disk protection with an ams motion sensor and
# a disk whose unload_heads the daemon writes (hdapsd's protocol: a park
# time in ms, renewed while the motion lasts, 0 when it is over). It is
# also the daemon's run under the sanitizers, TSan included.
. "$(dirname "$0")/lib.sh"
# Runs with -c /dev/null keep their state (the sensor history) here.
export STATE_DIRECTORY=$TMP/state

if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
PC87427=$TESTBEDS/pc87427.umockdev

# --- --once: the values the CLI reads, the alarms the chip raises
under "$PC87427" -- "$HWSIGHTD" --once -c /dev/null
expect_eq "--once exits 0" 0 "$RC"
expect_line "--once: fan1 as the driver gives it" '^pc87427-isa-0900 fan1 1406\.000 RPM$' "$OUT"
expect_line "--once: fan3's alarm bit" '^pc87427-isa-0900 fan3 [0-9.]+ RPM ALARM\(' "$OUT"
expect_line "--once: temp2 over its max" '^pc87427-isa-0900 temp2 [0-9.]+ °C .*ALARM\(max\)' "$OUT"

# --- the running daemon, the chip's alarm bits changing under it, and
# the heads of sda parked and released as the "machine" is shaken.
{
	daemon_section "exec = echo \"\$HWSIGHT_EVENT \$HWSIGHT_DISKS\" >>$TMP/exec.log"
	printf '\n[motion]\nenabled = yes\nsensitivity = 15\ninterval = 20ms\n'
	printf 'disks = sda\npark_time = 3s\n'
} >"$TMP/hwsightd.conf"
sata_disk sda 0 >"$TMP/disk.umockdev"
cat >"$TMP/run.sh" <<'EOF'
sys=$UMOCKDEV_DIR/sys/devices
scsi=$sys/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0
cur=$sys/platform/ams/current
chip=$sys/platform/pc87427.2304
set_to() { printf '%s\n' "$2" >"$1.new" && mv "$1.new" "$1"; }
hold() { set_to "$cur" "$1"; sleep "$2"; }
# A testbed's attribute is a plain file, empty for the instant between the
# daemon's O_TRUNC and its write (sysfs never is): read it again then.
heads() {
	local v= i
	for i in 1 2 3 4 5; do
		v=$(cat "$scsi/unload_heads") && [ -n "$v" ] && break
		sleep 0.01
	done
	echo "$v $1" >>"$TMP/heads.log"
}
"$HWSIGHTD" -f -c "$TMP/hwsightd.conf" 2>"$TMP/daemon.log" &
pid=$!
hold "2 -1 49" 1.5
# In place, as sysfs changes: the daemon keeps the file open.
echo 1 >"$chip/fan1_alarm"; sleep 1
echo 0 >"$chip/fan1_alarm"; sleep 1
# A stall whose bit stays set after the fan turns again: one alarm, "min".
echo 300 >"$chip/fan1_input"; echo 1 >"$chip/fan1_alarm"; sleep 1
echo 1406 >"$chip/fan1_input"; sleep 1
echo 0 >"$chip/fan1_alarm"; sleep 1
heads calm
for i in 1 2 3 4 5 6 7 8; do hold "30 0 50" 0.04; hold "-30 0 50" 0.04; done
heads shaken
set_to "$scsi/unload_heads" 0   # as if the kernel's park timer ran out
for i in $(seq 15); do hold "30 0 50" 0.04; hold "-30 0 50" 0.04; done
heads still-shaken
hold "2 -1 49" 3
heads calm-again
kill -HUP "$pid"; sleep 1
kill -TERM "$pid"
wait "$pid"
echo "exit $?" >>"$TMP/heads.log"
EOF
TMP=$TMP HWSIGHTD=$HWSIGHTD umockdev-run -d "$PC87427" -d "$TESTBEDS/ams.umockdev" \
	-d "$TMP/disk.umockdev" -- bash "$TMP/run.sh"
log=$(cat "$TMP/daemon.log")
heads=$(cat "$TMP/heads.log")

expect_line "the chip is polled every 200 ms" '^<6>pc87427-isa-0900: polling every 200 ms \(no \[chip\] section matches it\)$' "$log"
expect_line "fan1's alarm bit raises an alarm" '^<4>alarm: pc87427-isa-0900 fan1.*: 1406 RPM, alarm$' "$log"
expect_line "... which ends when the bit clears" '^<5>alarm end: pc87427-isa-0900 fan1' "$log"
expect_line "a bare alarm bit with the fan below min is a min alarm" \
	'^<4>alarm: pc87427-isa-0900 fan1.*: 300 RPM, below min 600 RPM$' "$log"
expect_line "... which ends, as min, when the bit clears" '^<5>alarm end: pc87427-isa-0900 fan1.*: 1406 RPM, min$' "$log"
expect_eq "... not when the fan turns again with the bit still set (two alarms, two ends)" "2 2" \
	"$(grep -c '^<4>alarm: pc87427-isa-0900 fan1' <<<"$log") $(grep -c '^<5>alarm end: pc87427-isa-0900 fan1' <<<"$log")"
expect_eq "the alarms present at start are logged once each" 1 \
	"$(grep -c '^<4>alarm: pc87427-isa-0900 fan3' <<<"$log")"
expect_line "the motion sensor is watched" '^<6>watching the motion sensor every 20 ms to protect sda$' "$log"
expect_eq "heads not parked while calm" "0 calm" "$(sed -n 1p <<<"$heads")"
expect_eq "a shake parks them for park_time" "3000 shaken" "$(sed -n 2p <<<"$heads")"
expect_line "... and says so" '^<5>sudden motion: parking the heads of sda$' "$log"
expect_eq "parked once while the shaking lasts" 1 "$(grep -c 'parking the heads' <<<"$log")"
expect_eq "the park is renewed while the shaking lasts" "3000 still-shaken" "$(sed -n 3p <<<"$heads")"
expect_eq "released with 0 once calm" "0 calm-again" "$(sed -n 4p <<<"$heads")"
expect_line "... and says so" '^<5>motion over: releasing the heads of sda$' "$log"
expect_line "exec= ran for the motion" '^motion sda$' "$(cat "$TMP/exec.log")"
expect_line "... and for its end" '^motion-end sda$' "$(cat "$TMP/exec.log")"
expect_line "SIGHUP reloads" '^<6>reloading ' "$log"
expect_eq "SIGTERM: exit 0" "exit 0" "$(sed -n 5p <<<"$heads")"
expect_no_line "no sanitizer report" 'Sanitizer|runtime error' "$log"

# --- the HTTP side: /metrics as Prometheus reads it, the JSON API, and
# requests it must refuse, while the chip is polled.
cat >"$TMP/http.sh" <<'EOF'
"$HWSIGHTD" -f -c /dev/null --listen 127.0.0.1:0 2>"$TMP/http.log" &
pid=$!
for i in $(seq 50); do
	port=$(sed -n 's/.*serving HTTP on 127.0.0.1:0 (port \([0-9]*\)).*/\1/p' "$TMP/http.log")
	[ -n "$port" ] && grep -q '^<7>poll pc87427' "$TMP/http.log" && break
	sleep 0.2
done
url=http://127.0.0.1:$port
curl -s "$url/metrics" >"$TMP/metrics"
curl -s "$url/api/v1/sensors" >"$TMP/sensors.json"
curl -s "$url/api/v1/alarms" >"$TMP/alarms.json"
curl -s -o /dev/null -w '%{http_code}\n' "$url/nope" >"$TMP/codes"
curl -s -o /dev/null -w '%{http_code}\n' "$url/metrics?range=1h" >>"$TMP/codes"
curl -s -o /dev/null -w '%{http_code}\n' -X POST "$url/metrics" >>"$TMP/codes"
curl -s -o /dev/null -w '%{http_code}\n' -H "X-Big: $(head -c 40000 /dev/zero | tr '\0' x)" "$url/metrics" >>"$TMP/codes"
curl -s -o /dev/null -w '%{http_code}\n' "$url/metrics" >>"$TMP/codes"
kill -TERM "$pid"
wait "$pid"
echo "exit $?" >>"$TMP/codes"
EOF
TMP=$TMP HWSIGHTD=$HWSIGHTD umockdev-run -d "$PC87427" -- bash "$TMP/http.sh"
metrics=$(cat "$TMP/metrics")
expect_line "/metrics: fan1 in RPM, with chip, sensor and label" \
	'^hwsight_fan_rpm\{chip="pc87427-isa-0900",sensor="fan1",label="[^"]*"\} 1406$' "$metrics"
expect_line "/metrics: its low limit" '^hwsight_fan_min_rpm\{chip="pc87427-isa-0900",sensor="fan1",.*\} 600$' "$metrics"
expect_line "/metrics: fan3's alarm bit" '^hwsight_fan_alarm\{chip="pc87427-isa-0900",sensor="fan3",.*\} 1$' "$metrics"
expect_line "/metrics: the chip's info series" '^hwsight_chip_info\{chip="pc87427-isa-0900",prefix="pc87427",.*\} 1$' "$metrics"
if command -v promtool >/dev/null 2>&1; then
	out=$(promtool check metrics <"$TMP/metrics" 2>&1)
	expect_eq "promtool check metrics finds nothing to say" "" "$out"
else
	not_ok "promtool is not installed (scripts/install-deps installs prometheus)"
fi
expect_eq "/api/v1/sensors: fan1" 1406 \
	"$(jq '.hwsight.chips[] | select(.name == "pc87427-isa-0900") | .features[] | select(.name == "fan1") | .value' "$TMP/sensors.json")"
expect_eq "/api/v1/alarms: the alarms logged, fan3's among them" '["fault","min"]' \
	"$(jq -c '.alarms[] | select(.name == "fan3") | .conditions | sort' "$TMP/alarms.json")"
expect_eq "404 for an unknown page, 400 for a parameter, 405 for POST, 431 for huge headers; then still 200" \
	"$(printf '404\n400\n405\n431\n200\nexit 0')" "$(cat "$TMP/codes")"
expect_no_line "no sanitizer report (HTTP run)" 'Sanitizer|runtime error' "$(cat "$TMP/http.log")"

summary
