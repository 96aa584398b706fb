#!/bin/bash
# lab-boot: fans
# fan-sim itself, on the real w83793 driver: the fan model a controller
# will be tested against (stop and start duties, the speed line, the lag),
# the temperatures of a trace as the driver reports them (quarter degrees,
# below zero), --unbind, and a clean stop. What the fan checks of issue 17
# and `hwsight fans --calibrate` rely on is asserted here first.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bus=${HWS_LAB_I2C_BUS:-0}
addr=${HWS_LAB_W83793_ADDRS%%,*}
name=$(printf '%d-%04x' "$bus" $((addr)))
dev=/sys/bus/i2c/devices/$name
sim=${HWS_BUILD_DIR:-$HWS_LAB_DIR/../../build/default}/tests/vm/fan-sim
out=${HWS_LAB_RESULTS:?not inside the lab}/fan-sim
mkdir -p "$out"
rm -f "$out"/*
[ -x "$sim" ] || { echo "$sim is not built (cmake --build ... --target fan-sim)"; exit 1; }

sim_pid=
cleanup() {
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid"
	[ -e "$dev/driver" ] || echo "$name" >/sys/bus/i2c/drivers/w83793/bind
	{
		awk '!/^#/ && NF { print $1, $2 }' "$HWS_LAB_DIR/presets/w83793-fans.regs"
		printf '0 0xb3\n0 0x20\n'
	} | while read -r b r; do
		v=$(preset_reg "$HWS_LAB_PRESET" "$b" "$r")
		[ -n "$v" ] && echo "$b $r $v"
	done | "$HWS_LAB_DIR/guest/lab-regs" -
	echo 0 >"$dev/intrusion0_alarm"
}
trap cleanup EXIT

lab_run "fan overlay preset" "$HWS_LAB_DIR/guest/lab-regs" "$HWS_LAB_DIR/presets/w83793-fans.regs"
echo 0 >"$dev/intrusion0_alarm"
echo 0 >"$dev/pwm1"

# The model under test, and what it predicts: RPM at a duty, turning.
stop=80 start=120 min=700 max=2200 tau=1.0
rpm_at() { awk -v d="$1" -v s=$stop -v a=$min -v b=$max 'BEGIN { printf "%.0f", a + (b - a) * (d - s) / (252 - s) }'; }
# near WHAT WANT GOT PERCENT: GOT within PERCENT of WANT.
near() {
	lab_eq "$1 (want $2 +-$4%, got $3)" yes \
		"$(awk -v w="$2" -v g="$3" -v p="$4" 'BEGIN { print (g >= w * (1 - p / 100) && g <= w * (1 + p / 100)) ? "yes" : "no" }')"
}
last() { tail -n 1 "$out/sim.csv" | cut -d, -f"$1"; }   # 2 pwm1, 3 fan1, 4 temp1, 5 temp5, 6 races

cat >"$out/trace" <<'EOF'
time temp1 temp5
0	30.25	40
14	30.25	40
14	-5.75	-3
EOF
"$sim" --fan "1:pwm=1,stop=$stop,start=$start,min=$min,max=$max,tau=$tau" --trace "$out/trace" \
	--log "$out/sim.csv" 2>"$out/sim.err" &
sim_pid=$!

# 1. duty 0: the preset's turning fan stops.
sleep 6
lab_eq "duty 0: fan1 stops" 0 "$(last 3)"
lab_eq "the driver shows it stopped" 0 "$(cat "$dev/fan1_input")"
lab_eq "temp1 from the trace, in quarter degrees" 30250 "$(cat "$dev/temp1_input")"
lab_eq "temp5 from the trace (whole degrees)" 40000 "$(cat "$dev/temp5_input")"

# 2. between the stop and start duties, a standing fan stays standing.
echo 100 >"$dev/pwm1"
sleep 3
lab_eq "duty 100 (stop $stop < 100 < start $start): a standing fan stays" 0 "$(last 3)"

# 3. the start duty starts it; the speed follows with the lag.
echo $start >"$dev/pwm1"
sleep 6
want=$(rpm_at $start)
near "duty $start: fan1 starts, at the speed line" "$want" "$(last 3)" 2
# fan-sim moves its model on a duty from the row before the one that shows
# it, by the time the rows say passed, and each row shows the speed the
# model had at the row before: so the speed at one time constant is read
# on the first row whose predecessor is that far on. A guest that stalls
# (a loaded host) only moves the rows; their own times set what they must
# show, 63% of the way at exactly one time constant.
lag=$(awk -F, -v d=$start -v tau=$tau -v w="$want" '
	NR > 1 && $2 == d && t0 == "" { t0 = prev }
	t0 != "" && prev - t0 >= tau { printf "%.0f %.2f %s\n", w * (1 - exp(-(prev - t0) / tau)), (prev - t0) / tau, $3; exit }
	NR > 1 { prev = $1 }' "$out/sim.csv")
set -- $lag
near "the lag, ${2:-?} time constants after the start: 1 - exp(-t / tau) of the way" "${1:-}" "${3:-}" 12
near "the driver shows it (1350000 / count)" "$want" "$(cat "$dev/fan1_input")" 2

# 4. between the duties again: a turning fan keeps turning.
echo 84 >"$dev/pwm1"
sleep 6
near "duty 84 (above stop $stop): fan1 keeps turning" "$(rpm_at 84)" "$(last 3)" 2
lab_eq "temp1 below zero, quarter degrees" -5750 "$(cat "$dev/temp1_input")"
lab_eq "temp5 below zero" -3000 "$(cat "$dev/temp5_input")"

# 5. below the stop duty it stops.
echo 76 >"$dev/pwm1"
sleep 6
lab_eq "duty 76 (below stop $stop): fan1 stops" 0 "$(last 3)"

kill -TERM "$sim_pid"
wait "$sim_pid"
lab_eq "fan-sim exits 0 on SIGTERM" 0 $?
sim_pid=
lab_eq "no bank race" 0 "$(last 6)"
lab_eq "the log has a line per tick (about 10 a second)" yes \
	"$(awk -F, 'NR > 1 { n++; t = $1 } END { print (n >= t * 8 && n <= t * 10 + 2) ? "yes" : "no" }' "$out/sim.csv")"

# 6. --unbind: the chip's files go away for a while and come back.
"$sim" --unbind "0.5:3:$name" --duration 5 --log /dev/null 2>"$out/unbind.err" &
sim_pid=$!
sleep 1.5
lab_eq "unbound: temp1_input is gone" no "$([ -e "$dev/temp1_input" ] && echo yes || echo no)"
wait "$sim_pid"
lab_eq "fan-sim --duration exits 0" 0 $?
sim_pid=
lab_eq "bound again" w83793 "$(basename "$(readlink "$dev/driver")")"
lab_eq "temp1_input back" yes "$([ -r "$dev/temp1_input" ] && echo yes || echo no)"

lab_done
