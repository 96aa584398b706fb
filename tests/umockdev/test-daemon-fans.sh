#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsightd's fan control on umockdev testbeds: the PC87427's pwm1 (found in
# automatic mode, pwm1_enable 2, duty 102) driven along a curve from temp1,
# and every way the daemon can end or change handing it back: SIGTERM, a
# reload without the fan, kill -9 then --restore-fans, kill -9 then a new
# start. Also another program changing the output (conflict), a source
# that stops reading (failsafe), and applesmc's fan1 in both modes. The
# testbed's files are plain files: what is checked is what the daemon
# wrote, and that it is exactly what was there before.
. "$(dirname "$0")/lib.sh"

if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
if [ -z "${FAKE_LOGIND:-}" ] || [ ! -x "$FAKE_LOGIND" ]; then
	die "FAKE_LOGIND must name tests/helpers' fake-logind (got '${FAKE_LOGIND:-}')"
fi
command -v dbus-daemon >/dev/null || die "dbus-daemon is not installed (scripts/install-deps installs dbus)"

# The fancontrol-like curve 30:0 30:100 50:255 puts temp1 = 39.062 at
# (39.062 - 30) * 155 / 20 + 100 = 170.2 -> 170, and 45.000 at 216.
fan_conf() {
	daemon_section "fan_state = $TMP/fans.state" "$@"
	cat <<'EOF'

[fan cpu]
output = pc87427-*/pwm1
sources = pc87427-*/temp1
curve = 30:0 30:100 50:255
hysteresis = 0
start_time = 0
interval = 200ms
failsafe_after = 3
EOF
}
fan_conf >"$TMP/fans.conf"
daemon_section "fan_state = $TMP/fans.state" >"$TMP/nofans.conf"

cat >"$TMP/run.sh" <<'EOF'
chip=$UMOCKDEV_DIR/sys/devices/platform/pc87427.2304
obs() { printf '%s=%s\n' "$1" "$2" >>"$TMP/obs"; }
state() { echo "$(cat "$chip/pwm1_enable") $(cat "$chip/pwm1")"; }
# The daemon's writes truncate the testbed's plain files first: a read can
# fall between, so what until_is saw last is kept in $seen.
is() { seen=$(state); [ "$seen" = "$1" ]; }
until_is() { for _ in $(seq 50); do is "$1" && return 0; sleep 0.1; done; return 1; }
start() { "$HWSIGHTD" -f -c "$1" 2>>"$TMP/daemon.log" & pid=$!; }
stop() { kill "-$1" "$pid"; wait "$pid"; }
set_temp() { printf '%s\n' "$1" >"$chip/temp1_input"; }

obs before "$(state)"
start "$TMP/fans.conf"
until_is "1 170"; obs taken "$seen"
obs state_file "$(grep -c '^cpu ' "$TMP/fans.state" 2>/dev/null)"
set_temp 45000
until_is "1 216"; obs at_45 "$seen"
# Another program puts it back to automatic: taken back.
echo 2 >"$chip/pwm1_enable"
sleep 0.2; until_is "1 216"; obs retaken "$seen"
# temp1 stops reading: full output, then back on the curve.
set_temp garbage
until_is "1 255"; obs failsafe "$seen"
set_temp 45000
until_is "1 216"; obs recovered "$seen"
stop TERM; obs term_exit $?
obs after_term "$(state)"
obs state_after_term "$([ -e "$TMP/fans.state" ] && echo present || echo gone)"

# A reload without the fan gives it back; one with it takes it again, and
# one that keeps it keeps it.
cp "$TMP/nofans.conf" "$TMP/live.conf"
start "$TMP/live.conf"
sleep 0.5
cp "$TMP/fans.conf" "$TMP/live.conf"; kill -HUP "$pid"
until_is "1 216"; obs reload_take "$seen"
# A reload that changes only the curve keeps the fan held: no hand-back
# to the chip and take again, the new curve at once.
events() { echo "$(grep -c 'took pc87427' "$TMP/daemon.log") $(grep -c 'gave pc87427' "$TMP/daemon.log")"; }
before_reload=$(events)
sed 's/^curve = .*/curve = 30:0 30:100 50:200/' "$TMP/fans.conf" >"$TMP/live.conf"; kill -HUP "$pid"
until_is "1 175"; obs reload_curve "$seen"
obs reload_curve_events "$before_reload -> $(events)"
obs reload_curve_state "$(grep -c '^cpu ' "$TMP/fans.state" 2>/dev/null)"
cp "$TMP/nofans.conf" "$TMP/live.conf"; kill -HUP "$pid"
until_is "2 102"; obs reload_release "$seen"
stop TERM

# kill -9: the state file stays, --restore-fans puts it back.
start "$TMP/fans.conf"
until_is "1 216"
stop KILL
obs killed "$(state)"
obs state_after_kill "$([ -e "$TMP/fans.state" ] && echo present || echo gone)"
"$HWSIGHTD" --restore-fans -c "$TMP/fans.conf" 2>>"$TMP/daemon.log"; obs restore_exit $?
obs restored "$(state)"
obs state_after_restore "$([ -e "$TMP/fans.state" ] && echo present || echo gone)"
"$HWSIGHTD" --restore-fans -c "$TMP/fans.conf" 2>>"$TMP/daemon.log"; obs restore_again_exit $?

# Suspend: the steps freeze with the pollers; firmware hands the output
# back to the chip meanwhile, and resume takes it again at once.
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1 | head -n 2)
bus_pid=$(sed -n 2p <<<"$bus")
mkfifo "$TMP/logind.in"
DBUS_SYSTEM_BUS_ADDRESS=$(head -n 1 <<<"$bus") "$FAKE_LOGIND" <"$TMP/logind.in" >"$TMP/logind.log" &
exec 7>"$TMP/logind.in"
for _ in $(seq 50); do grep -q '^ready' "$TMP/logind.log" && break; sleep 0.1; done
DBUS_SYSTEM_BUS_ADDRESS=$(head -n 1 <<<"$bus") start "$TMP/fans.conf"
until_is "1 216"
for _ in $(seq 50); do grep -q '^inhibit sleep' "$TMP/logind.log" && break; sleep 0.1; done
echo sleep >&7
for _ in $(seq 100); do grep -q '^slept' "$TMP/logind.log" && break; sleep 0.1; done
echo 2 >"$chip/pwm1_enable"; echo 102 >"$chip/pwm1"
set_temp 30001
sleep 1
obs frozen "$(state)"
echo resume >&7
until_is "1 100"; obs resumed "$seen"
exec 7>&-
stop TERM
obs after_sleep_term "$(state)"
kill "$bus_pid" 2>/dev/null
set_temp 45000

# kill -9 at any moment of the start and the loop: --restore-fans always
# brings back what was there.
bad=0
for delay in 0 0.02 0.05 0.1 0.15 0.2 0.3 0.45 0.6 0.9; do
	start "$TMP/fans.conf"
	sleep "$delay"
	stop KILL 2>/dev/null
	"$HWSIGHTD" --restore-fans -c "$TMP/fans.conf" 2>>"$TMP/daemon.log" || bad=$((bad + 1))
	is "2 102" || { bad=$((bad + 1)); echo "after a kill at $delay s: $(state)" >>"$TMP/kills"; }
done
obs random_kills "$bad"

# on_conflict = yield: another program's change is left alone, the state
# file forgets the output, and the stop does not undo the other program.
sed 's/^failsafe_after = 3$/on_conflict = yield/' "$TMP/fans.conf" >"$TMP/yield.conf"
start "$TMP/yield.conf"
until_is "1 216"
echo 0 >"$chip/pwm1_enable"; echo 255 >"$chip/pwm1"
sleep 1
obs yielded "$(state) $(cat "$TMP/fans.state" 2>/dev/null | grep -c '^cpu ')"
stop TERM
obs after_yield "$(state)"
echo 2 >"$chip/pwm1_enable"; echo 102 >"$chip/pwm1"

# kill -9, then a new start puts it back before taking it again.
start "$TMP/fans.conf"
until_is "1 216"
stop KILL
echo 77 >"$chip/pwm1"   # what the next take must not record
start "$TMP/fans.conf"
until_is "1 216"
stop TERM
obs restart_after_kill "$(state)"
EOF
TMP=$TMP HWSIGHTD=$HWSIGHTD FAKE_LOGIND=$FAKE_LOGIND umockdev-run -d "$TESTBEDS/pc87427.umockdev" -- bash "$TMP/run.sh"
# applesmc: fan1 held by a raised minimum, fan2 (found in manual mode at
# 3000 RPM) driven in manual mode; temp1 (TB0T) reads 31.75 degrees.
{
	daemon_section "fan_state = $TMP/fans.state"
	printf '\n[fan left]\noutput = applesmc-*/fan1\nmode = floor\nsources = applesmc-*/TB0T\n'
	printf 'curve = 30:2000 40:6000\nhysteresis = 0\ninterval = 200ms\n'
	printf '\n[fan right]\noutput = applesmc-*/fan2\nsources = applesmc-*/temp1\n'
	printf 'curve = 30:0%% 40:100%%\nhysteresis = 0\ninterval = 200ms\n'
} >"$TMP/smc.conf"
cat >"$TMP/smc.sh" <<'EOF'
smc=$UMOCKDEV_DIR/sys/devices/platform/applesmc.768
obs() { printf '%s=%s\n' "$1" "$2" >>"$TMP/obs"; }
fans() { (cd "$smc" && cat fan1_manual fan1_min fan1_output fan2_manual fan2_min fan2_output | paste -sd " "); }
obs smc_before "$(fans)"
"$HWSIGHTD" -f -c "$TMP/smc.conf" --listen 127.0.0.1:0 2>"$TMP/smc.log" & pid=$!
for _ in $(seq 50); do [ "$(fans)" = "0 2700 2000 1 2000 2735" ] && break; sleep 0.1; done
obs smc_held "$(fans)"
# What a scrape and the API show of the two fans, after a step of each.
port=$(sed -n 's/.*serving HTTP on 127\.0\.0\.1:0 (port \([0-9]*\)).*/\1/p' "$TMP/smc.log")
sleep 0.5
curl -sf "http://127.0.0.1:$port/metrics" | grep '^hwsight_fan_control' >"$TMP/fan.metrics"
curl -sf "http://127.0.0.1:$port/api/v1/fans" >"$TMP/fans.json"
curl -sf "http://127.0.0.1:$port/" >"$TMP/status.html"
kill "$pid"; wait "$pid"
cat "$TMP/smc.log" >>"$TMP/daemon.log"
obs smc_after "$(fans)"
EOF
TMP=$TMP HWSIGHTD=$HWSIGHTD umockdev-run -d "$TESTBEDS/applesmc.umockdev" -- bash "$TMP/smc.sh"

log=$(cat "$TMP/daemon.log")
obs() { sed -n "s/^$1=//p" "$TMP/obs" | tail -n 1; }

expect_eq "the testbed's pwm1 starts automatic at 102" "2 102" "$(obs before)"
expect_eq "taken: manual, 170 for 39.062 degrees" "1 170" "$(obs taken)"
expect_eq "the state file names the fan before it runs" "1" "$(obs state_file)"
expect_eq "45 degrees: 216" "1 216" "$(obs at_45)"
expect_eq "another program's change is taken back" "1 216" "$(obs retaken)"
expect_line "the conflict is logged" '\[fan cpu\]: another program changed pc87427-isa-0900/pwm1; taken back' "$log"
expect_eq "an unreadable source: full output" "1 255" "$(obs failsafe)"
expect_line "the failsafe is logged" '\[fan cpu\]: pc87427-\*/temp1 cannot be read 3 times in a row: pc87427-isa-0900/pwm1 at full output' "$log"
expect_eq "the source reads again: back on the curve" "1 216" "$(obs recovered)"
expect_line "the end of the failsafe is logged" '\[fan cpu\]: its sources read again \(45\.0 °C\): back on the curve' "$log"
expect_eq "SIGTERM: exit 0" "0" "$(obs term_exit)"
expect_eq "SIGTERM gives pwm1 back exactly" "2 102" "$(obs after_term)"
expect_eq "SIGTERM removes the state file" "gone" "$(obs state_after_term)"
expect_eq "a reload with the fan takes it" "1 216" "$(obs reload_take)"
expect_eq "a reload changing the curve: the new curve (45 degrees: 175)" "1 175" "$(obs reload_curve)"
before_reload=$(obs reload_curve_events); before_reload=${before_reload%% ->*}
expect_eq "and no give-back or take in between" "$before_reload -> $before_reload" "$(obs reload_curve_events)"
expect_eq "and the state file still names it" "1" "$(obs reload_curve_state)"
expect_line "the kept fan is logged" '\[fan cpu\]: pc87427-isa-0900/pwm1 stays held' "$log"
expect_eq "a reload without the fan gives it back" "2 102" "$(obs reload_release)"
expect_eq "frozen for sleep: no step runs" "2 102" "$(obs frozen)"
expect_eq "resume takes the output again and steps at once" "1 100" "$(obs resumed)"
expect_eq "and a stop after the sleep gives the original back" "2 102" "$(obs after_sleep_term)"
expect_eq "kill -9 leaves pwm1 taken" "1 216" "$(obs killed)"
expect_eq "kill -9 leaves the state file" "present" "$(obs state_after_kill)"
expect_eq "--restore-fans exits 0" "0" "$(obs restore_exit)"
expect_eq "--restore-fans gives pwm1 back exactly" "2 102" "$(obs restored)"
expect_eq "--restore-fans removes the state file" "gone" "$(obs state_after_restore)"
expect_eq "--restore-fans with nothing to restore exits 0" "0" "$(obs restore_again_exit)"
expect_eq "kill -9 at ten moments of the start and the loop: --restore-fans restores each" "0" "$(obs random_kills)"
expect_eq "on_conflict = yield: the other program keeps it, the state file forgets it" "0 255 0" "$(obs yielded)"
expect_line "the yield is logged" '\[fan cpu\]: another program changed pc87427-isa-0900/pwm1; yielding it' "$log"
expect_eq "and the stop leaves the other program's setting" "0 255" "$(obs after_yield)"
expect_line "a start after kill -9 puts the fan back first" 'put back 1 fan output left held' "$log"
expect_eq "and its stop gives the original back, not the crash's" "2 102" "$(obs restart_after_kill)"
expect_eq "applesmc as found: fan1 auto, fan2 manual at 3000" "0 2000 2000 1 2000 3000" "$(obs smc_before)"
expect_eq "floor raises fan1_min alone (2700); manual drives fan2_output (2735: 17.5% of 2000-6200)" \
	"0 2700 2000 1 2000 2735" "$(obs smc_held)"
expect_eq "SIGTERM gives both back exactly" "0 2000 2000 1 2000 3000" "$(obs smc_after)"
# Every series of both fans, exactly.
expect_eq "/metrics: every fan control series" "$(cat <<'EOF'
hwsight_fan_control_info{fan="left",chip="applesmc-isa-0300",output="fan1",mode="floor",unit="rpm"} 1
hwsight_fan_control_info{fan="right",chip="applesmc-isa-0300",output="fan2",mode="manual",unit="rpm"} 1
hwsight_fan_control_held{fan="left"} 1
hwsight_fan_control_held{fan="right"} 1
hwsight_fan_control_failsafe{fan="left"} 0
hwsight_fan_control_failsafe{fan="right"} 0
hwsight_fan_control_output{fan="left"} 2700
hwsight_fan_control_output{fan="right"} 2735
hwsight_fan_control_target{fan="left"} 2700
hwsight_fan_control_target{fan="right"} 2735
hwsight_fan_control_output_max{fan="left"} 6200
hwsight_fan_control_output_max{fan="right"} 6200
hwsight_fan_control_temperature_celsius{fan="left"} 31.75
hwsight_fan_control_temperature_celsius{fan="right"} 31.75
EOF
)" "$(cat "$TMP/fan.metrics")"
expect_eq "/api/v1/fans: the floor fan, its curve in RPM" \
	'{"name":"left","chip":"applesmc-isa-0300","output":"fan1","mode":"floor","unit":"rpm","held":true,"dry_run":false,"yielded":false,"failsafe":false,"temperature":31.75,"target":2700,"value":2700,"max":6200,"curve_type":"linear","curve":[{"temp":30,"value":2000},{"temp":40,"value":6000}]}' \
	"$(jq -c '.fans[0]' "$TMP/fans.json")"
expect_eq "/api/v1/fans: the manual fan, its percentages as RPM" \
	'{"name":"right","mode":"manual","value":2735,"curve":[{"temp":30,"value":2000},{"temp":40,"value":6200}]}' \
	"$(jq -c '.fans[1] | {name, mode, value, curve}' "$TMP/fans.json")"
expect_line "the status page: a row per fan, driven" '<tr><td>left</td><td>applesmc-isa-0300/fan1 \(floor\)</td><td class=ok>driven</td>' "$(cat "$TMP/status.html")"
expect_eq "the status page: each fan's curve with its current point" "2 2" \
	"$(grep -o '<polyline' "$TMP/status.html" | wc -l) $(grep -o '<circle' "$TMP/status.html" | wc -l)"
expect_no_line "no sanitizer report" 'Sanitizer|runtime error:' "$log"

summary
