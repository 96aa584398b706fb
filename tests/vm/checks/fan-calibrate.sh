#!/bin/bash
# lab-boot: fans
# lab-check-timeout: 150
# `hwsight fans --calibrate` on the real w83793 driver against fan-sim
# (issue 17): with fan1 turning by fans/fan1.model (stop duty 80, start
# duty 120), the calibration of pwm1 must report
#  - the stop duty: the first duty of its sweep down that the chip turns
#    into less than the model's stop duty;
#  - the start duty: the first duty of its sweep up from a standstill that
#    the chip turns into the model's start duty or more;
#  - a duty->RPM table that falls with the duty and lies on the model's line;
# and must give pwm1 back as it found it, under Smart Fan with its duty:
# every register of the chip (banks 0-3, i2cdump) as before, fan1's
# tachometer included once fan-sim has brought the fan back to its speed.
#
# The tolerance is the tool's resolution. It steps by 16 above duty 64 and
# by 4 below (hwsight(1), --calibrate), and the W83793 keeps 6 bits of the
# duty, so pwmN = D is D & ~3 on the chip: a stop found at 79 means the fan
# stopped at 76 and turned at the step before, 95 (92); the model's 80 lies
# between. So the check wants, for the stop S found one step below the
# previous P: chip(S) < 80 <= chip(P), and for the start: chip(previous) <
# 120 <= chip(start), i.e. each within one step of the model, below it for
# the stop and above it for the start.
#
# It leaves in $HWS_LAB_RESULTS/fan-calibrate/: calibrate.json, sim.csv and
# the register dumps before and after.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

lab_fan_env
chip=$(printf 'w83793-i2c-%d-%02x' "$bus" $((addr)))
out=${HWS_LAB_RESULTS:?not inside the lab}/fan-calibrate
mkdir -p "$out"
rm -f "$out"/*
lab_require "$hwsight" "$sim"

# The model, from the file the other fan checks use.
model=$(grep -v '^#' "$HWS_LAB_DIR/fans/fan1.model")
key() { printf '%s\n' "${model#*:}" | tr , '\n' | sed -n "s/^$1=//p"; }
stop=$(key stop) start=$(key start) min=$(key min) max=$(key max)
# 2.1 s a step: more than the driver's 2 s cache, so that every tach read
# is a fresh one, and two time constants of the model's 1 s lag (88% of
# the way: a fan going from 92 to 76 is down from 805 to under 330 RPM,
# which the chip reports as stopped).
settle=2100

sim_pid=
cleanup() {
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid"
	w83793_fans_restore "$dev" 2 0x01 0 0xb3
}
trap cleanup EXIT

# dump: every register of the four banks i2c-stub emulates, one i2cdump
# each, and the bank register as found (put back: the driver caches it).
dump() {
	local b0 b
	b0=$(i2cget -f -y "$bus" "$addr" 0x00 b) || return 1
	echo "bank register $b0"
	for b in 0 1 2 3; do
		i2cset -f -y "$bus" "$addr" 0x00 $(((b0 & 0xfc) | b)) b || return 1
		# The hex columns only; register 0x00 shows the bank selected here.
		i2cdump -f -y "$bus" "$addr" b | sed -n '2,$p' | cut -c1-52 | sed "s/^/bank $b /"
	done
	i2cset -f -y "$bus" "$addr" 0x00 "$b0" b
}

# fan1's speed as fan-sim last wrote it, and a wait until it holds still
# (the lag converges: the count stops changing).
sim_rpm() { tail -n 1 "$1" | cut -d, -f3; }
settled() {
	local log=$1 want=${2:-}
	[ -e "$log" ] && [ "$(wc -l <"$log")" -gt 20 ] || return 1
	[ "$(tail -n 20 "$log" | cut -d, -f3 | sort -u | wc -l)" = 1 ] || return 1
	[ -z "$want" ] || [ "$(sim_rpm "$log")" = "$want" ]
}
start_sim() {
	"$sim" --fan "$model" --log "$1" 2>>"$out/sim.err" &
	sim_pid=$!
}
stop_sim() {
	kill -TERM "$sim_pid"
	wait "$sim_pid"
	lab_eq "fan-sim exits 0 on SIGTERM" 0 $?
	sim_pid=
	lab_eq "fan-sim saw no bank race" 0 "$(tail -n 1 "$1" | cut -d, -f4)"
}

# pwm1 as firmware leaves it: under Smart Fan (temp1's map holds it) at
# duty 200, fan1 turning at the model's speed for 200: its count written
# so that the fan starts there.
lab_run "fan overlay preset" "$HWS_LAB_DIR/guest/lab-regs" "$HWS_LAB_DIR/presets/w83793-fans.regs"
echo 0 >"$dev/intrusion0_alarm"
echo 1 >"$dev/temp1_auto_channels_pwm"
echo 200 >"$dev/pwm1"
rpm200=$(awk -v s="$stop" -v a="$min" -v b="$max" 'BEGIN { printf "%.6f", a + (b - a) * (200 - s) / (252 - s) }')
count=$(awk -v r="$rpm200" 'BEGIN { printf "%d", 1350000 / r + 0.5 }')
"$HWS_LAB_DIR/guest/lab-regs" - <<EOF
0 0x23 $(((count >> 8) & 0x0f))
0 0x24 $((count & 0xff))
EOF
start_sim "$out/sim-before.csv"
lab_wait_until 20 settled "$out/sim-before.csv"
lab_eq "fan-sim turns fan1 at duty 200" 200 "$(tail -n 1 "$out/sim-before.csv" | cut -d, -f2)"
stop_sim "$out/sim-before.csv"
dump >"$out/before.txt"
rpm_before=$(sim_rpm "$out/sim-before.csv")

start_sim "$out/sim.csv"
t0=$(date +%s.%N)
"$hwsight" fans --calibrate "$chip/pwm1" --settle "$settle" -j >"$out/calibrate.json" 2>"$out/calibrate.err"
lab_eq "hwsight fans --calibrate $chip/pwm1 --settle $settle exits 0, silent" "0" "$?$(head -n 3 "$out/calibrate.err")"
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cal=$out/calibrate.json

# The sweep the tool documents, and what the chip keeps of each duty.
steps=()
for ((d = 255; d > 0; d -= d > 64 ? 16 : 4)); do steps+=("$d"); done
steps+=(0)
chip_duty() { echo $(($1 >> 2 << 2)); }

got_stop=$(jq -r .stop "$cal")
got_start=$(jq -r .start "$cal")
want_stop= prev=
for d in "${steps[@]}"; do
	if (($(chip_duty "$d") < stop)); then want_stop=$d; break; fi
	prev=$d
done
stop_prev=$prev
want_start=
for ((i = ${#steps[@]} - 1; i >= 0; i--)); do
	d=${steps[i]}
	((d != 0 && d < want_stop)) && continue
	if (($(chip_duty "$d") >= start)); then want_start=$d; break; fi
	prev=$d
done
start_prev=$prev
echo "# model: stop $stop, start $start; calibrate: stop $got_stop, start $got_start ($took s, $settle ms a step)"
echo "# stop: the fan turned at $stop_prev (chip $(chip_duty "$stop_prev")) and stopped at $want_stop (chip $(chip_duty "$want_stop")); start: standing at $start_prev (chip $(chip_duty "$start_prev")), turning at $want_start (chip $(chip_duty "$want_start"))"
lab_eq "stop duty: one step below the model's $stop (chip $(chip_duty "$want_stop") < $stop <= $(chip_duty "$stop_prev"))" \
	"$want_stop" "$got_stop"
lab_eq "start duty: one step above the model's $start (chip $(chip_duty "$start_prev") < $start <= $(chip_duty "$want_start"))" \
	"$want_start" "$got_start"

# The table: the sweep down visits the documented duties down to the
# stop, its RPM falls with the duty and, turning, lies within 5% of the
# model's line (the fan is 88% of the way there after a step of 16); the
# sweep up reads 0 until the start duty.
jq -r '.down[] | "\(.duty) \(.rpm)"' "$cal" >"$out/down.txt"
jq -r '.up[] | "\(.duty) \(.rpm)"' "$cal" >"$out/up.txt"
paste -d' ' "$out/down.txt" <(printf '%s\n' "${steps[@]}" | head -n "$(wc -l <"$out/down.txt")") |
	awk -v s="$stop" -v a="$min" -v b="$max" '{
		c = int($1 / 4) * 4; m = c >= s ? a + (b - a) * (c - s) / (252 - s) : 0
		printf "# down %3d (chip %3d): %4d RPM, model %4.0f\n", $1, c, $2, m }'
awk '{ printf "# up   %3d: %4d RPM\n", $1, $2 }' "$out/up.txt"
lab_eq "the sweep down visits 255, 239, ... down to the stop" \
	"$(printf '%s\n' "${steps[@]}" | awk -v s="$want_stop" '{ print } $1 == s { exit }' | paste -sd' ')" \
	"$(cut -d' ' -f1 "$out/down.txt" | paste -sd' ')"
lab_eq "duty->RPM falls with the duty" "" \
	"$(awk 'NR > 1 && $2 > r { print "at " $1 ": " $2 " > " r } { r = $2 }' "$out/down.txt")"
lab_eq "turning, each RPM is within 5% of the model's line" "" \
	"$(awk -v s="$stop" -v a="$min" -v b="$max" '{
		c = int($1 / 4) * 4
		if (c < s) next
		m = a + (b - a) * (c - s) / (252 - s)
		if ($2 < m * 0.95 || $2 > m * 1.05) print "at " $1 ": " $2 " RPM, model " m
	}' "$out/down.txt")"
lab_eq "the sweep up reads 0 until the start, then turns" "0 yes" \
	"$(awk '{ n++; v[n] = $2 } END { z = 0; for (i = 1; i < n; i++) z += v[i]; print z, (v[n] > 0 ? "yes" : "no") }' "$out/up.txt")"

# Given back: Smart Fan holds pwm1 again at 200; once fan-sim has brought
# fan1 back to that speed, every register is as before.
lab_eq "pwm1 back under Smart Fan at 200" "1 200" "$(cat "$dev/temp1_auto_channels_pwm") $(cat "$dev/pwm1")"
lab_wait_until 30 settled "$out/sim.csv" "$rpm_before"
lab_eq "fan1 back at its speed ($rpm_before RPM)" "$rpm_before" "$(sim_rpm "$out/sim.csv")"
stop_sim "$out/sim.csv"
dump >"$out/after.txt"
lab_eq "every register of the chip (banks 0-3) as before the calibration" "" \
	"$(diff "$out/before.txt" "$out/after.txt" | grep '^[<>]' | head -n 8)"
echo "# calibration: $took s"
lab_done
