#!/bin/bash
# hwsight sensors against the real w83793 driver: both readers agree with
# lm-sensors' sensors -j, under the default config and under one with
# label/compute/ignore statements; register rewrites show as ALARM; the
# chip unbound and rebound during --watch is survived and found again.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hwsight=$HWS_BUILD_DIR/tools/hwsight
conf=$(dirname "${BASH_SOURCE[0]}")/sensors.conf
bus=${HWS_LAB_I2C_BUS:-0}
addr=${HWS_LAB_W83793_ADDRS%%,*}
chip=$(printf 'w83793-i2c-%d-%02x' "$bus" $((addr)))
client=$(printf '%d-%04x' "$bus" $((addr)))
dev=/sys/bus/i2c/devices/$client
tmp=$(mktemp -d)

# json_same WHAT EXPECTED_FILE ACTUAL_FILE: equal after sorting keys.
json_same() {
	if diff <(jq -S . "$2") <(jq -S . "$3") >"$tmp/diff" 2>&1; then
		lab_ok "$1"
	else
		lab_not_ok "$1" "$(head -n 12 "$tmp/diff")"
	fi
}

# --- default config (Debian's sensors3.conf)
sensors -j >"$tmp/ref.json" 2>/dev/null
# Exactly: in2..in6, which neither the config nor the driver names, are
# keyed in2..in6 as libsensors keys them (hwsight's datasheet names stay in
# its human and -u output).
lab_eq "sensors -j keys in2 by its bare name" true \
	"$(jq '[.[] | has("in2")] | any' "$tmp/ref.json")"
for reader in libsensors fast pread; do
	lab_run "hwsight sensors -j --reader $reader" "$hwsight" sensors -j --reader "$reader" &&
		printf '%s\n' "$LAB_OUT" >"$tmp/$reader.json"
	json_same "$reader reader equals sensors -j (default config)" "$tmp/ref.json" "$tmp/$reader.json"
done

# --- a config with label, compute and ignore statements
sensors -c "$conf" -j >"$tmp/ref-conf.json" 2>/dev/null
for reader in libsensors fast pread; do
	"$hwsight" sensors -c "$conf" -j --reader "$reader" >"$tmp/$reader-conf.json"
	json_same "$reader reader equals sensors -c conf -j" "$tmp/ref-conf.json" "$tmp/$reader-conf.json"
done
get() { jq -r --arg c "$chip" ".[\$c]$1" "$tmp/fast-conf.json"; }
raw_in6=$(cat "$dev/in6_input")
lab_eq "compute @*8 applied to in6" "$(awk -v v="$raw_in6" 'BEGIN { printf "%.3f", v * 8 / 1000 }')" \
	"$(printf '%.3f' "$(get '["+12V"].in6_input')")"
lab_eq "ignore fan5: absent" null "$(get '.fan5')"
lab_eq "label fan1 \"CPU Fan\"" "$(cat "$dev/fan1_input")" "$(printf '%.0f' "$(get '["CPU Fan"].fan1_input')")"
lab_eq "compute ^@ (not affine) agrees" "$(jq -r --arg c "$chip" '.[$c].VSEN2.in4_input' "$tmp/ref-conf.json")" \
	"$(get '.VSEN2.in4_input')"

# --- alarms from register rewrites, seen through the driver
lab_run "stall fan1, overheat temp1, open the chassis" w83793_alarms "$dev"
out=$("$hwsight" sensors --reader fast "$chip")
lab_eq "fan1 stalled shows ALARM" yes "$(grep -E '^fan1: +0 RPM .*ALARM' <<<"$out" >/dev/null && echo yes || echo no)"
lab_eq "temp1 at 90 C shows ALARM" yes "$(grep -E '^temp1: +\+90\.[0-9]°C .*ALARM' <<<"$out" >/dev/null && echo yes || echo no)"
lab_eq "intrusion shows ALARM" yes "$(grep -E '^intrusion0: +ALARM' <<<"$out" >/dev/null && echo yes || echo no)"
lab_eq "fan2 has no ALARM" no "$(grep -E '^fan2:.*ALARM' <<<"$out" >/dev/null && echo yes || echo no)"
lab_run "preset restored" w83793_restore

# --- the chip unbound and rebound while --watch runs
"$hwsight" sensors --watch 0.3 "$chip" >"$tmp/watch.log" 2>&1 &
watch=$!
sleep 1.5
echo "$client" >/sys/bus/i2c/drivers/w83793/unbind
sleep 1.5
before=$(grep -c '^VcoreA:' "$tmp/watch.log")
echo "$client" >/sys/bus/i2c/drivers/w83793/bind
sleep 2
lab_eq "watch survives the unbind" yes "$(kill -0 "$watch" 2>/dev/null && echo yes || echo no)"
after=$(grep -c '^VcoreA:' "$tmp/watch.log")
lab_eq "the chip is found again after rebinding" yes "$([ "$after" -gt "$before" ] && echo yes || echo no)"
kill -INT "$watch"
wait "$watch"
lab_eq "watch exits 0 on Ctrl-C" 0 "$?"
lab_eq "driver bound again" w83793 "$(basename "$(readlink "$dev/driver")")"

# --- a bad config is refused with its line
printf 'chip "w83793-*"\n    frobnicate in0 1\n' >"$tmp/bad.conf"
out=$("$hwsight" sensors -c "$tmp/bad.conf" 2>&1)
lab_eq "bad config: non-zero exit" 1 "$?"
lab_eq "bad config: message names file and line" yes \
	"$(grep -q "bad.conf:2" <<<"$out" && echo yes || echo no)"

rm -rf "$tmp"
lab_done
