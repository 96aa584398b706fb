#!/bin/bash
# lm-sensors' fancontrol on the real w83793 driver, with fan-sim turning
# fan1 from the duty fancontrol writes and walking temp1 up from 30 to
# 70 C and back to 40 C in 7 s steps (fans/steps-30-70-40.trace). The duty of every
# step is compared with fancontrol's formula computed here, from the trace
# and the config, so that the harness is validated against a known
# controller before hwsightd's [fan] sections are put through it (issue 17).
# It leaves in $HWS_LAB_RESULTS/fancontrol/: sim.csv (fan-sim's log),
# changes.csv (its lines where pwm1 changed), fancontrol.log (its DEBUG
# output) and steps.txt (the table below).
# It takes 84 s of trace plus fancontrol's start, 7 to 35 s of bash under
# TCG depending on the host's load:
# lab-check-timeout: 200
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bus=${HWS_LAB_I2C_BUS:-0}
addr=${HWS_LAB_W83793_ADDRS%%,*}
dev=/sys/bus/i2c/devices/$(printf '%d-%04x' "$bus" $((addr)))
fans=$HWS_LAB_DIR/fans
# The build tree: HWS_BUILD_DIR as ctest passes it, else the default preset's.
sim=${HWS_BUILD_DIR:-$HWS_LAB_DIR/../../build/default}/tests/vm/fan-sim
out=${HWS_LAB_RESULTS:?not inside the lab}/fancontrol
trace=$fans/steps-30-70-40.trace
mkdir -p "$out"
rm -f "$out"/*

command -v fancontrol >/dev/null || { echo "fancontrol is not installed on the host (scripts/install-deps)"; exit 1; }
[ -x "$sim" ] || { echo "$sim is not built (cmake --build ... --target fan-sim)"; exit 1; }

hwmon=
for h in /sys/class/hwmon/hwmon*; do
	[ "$(readlink -f "$h/device")" = "$(readlink -f "$dev")" ] && hwmon=${h##*/}
done
[ -n "$hwmon" ] || { echo "no hwmon device for $dev"; exit 1; }

pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -f /run/fancontrol.pid
	# Back to the boot preset, only where this check wrote: the overlay's
	# registers (fan-sim writes a subset of them) and pwm1's duty. All of
	# the preset would take a hundred i2cset runs.
	{
		awk '!/^#/ && NF { print $1, $2 }' "$HWS_LAB_DIR/presets/w83793-fans.regs"
		echo 0 0xb3
	} | while read -r b r; do
		v=$(preset_reg "$HWS_LAB_PRESET" "$b" "$r")
		[ -n "$v" ] && echo "$b $r $v"
	done | "$HWS_LAB_DIR/guest/lab-regs" -
	echo 0 >"$dev/intrusion0_alarm"   # the driver re-reads the maps too
}
trap cleanup EXIT

# --- the chip as a userspace controller wants it: pwm1 out of Smart Fan
lab_run "fan overlay preset" "$HWS_LAB_DIR/guest/lab-regs" "$HWS_LAB_DIR/presets/w83793-fans.regs"
echo 0 >"$dev/intrusion0_alarm"   # a full re-read, the 300 s cache included
lab_eq "temp1 maps no pwm" 0 "$(cat "$dev/temp1_auto_channels_pwm")"
sleep 2.1

sed -e "s|@HWMON@|$hwmon|g" -e "s|@DEVPATH@|$(readlink -f "$dev" | sed 's|^/sys/||')|g" \
	"$fans/fancontrol.conf.in" >"$out/fancontrol.conf"
conf_value() { sed -n "s|^$1=.*=||p" "$out/fancontrol.conf"; }
mint=$(conf_value MINTEMP) maxt=$(conf_value MAXTEMP)
minstart=$(conf_value MINSTART) minstop=$(conf_value MINSTOP)
minpwm=0 maxpwm=255    # fancontrol's defaults: the config sets neither

# --- run both for the length of the trace. fancontrol first: its start
# (reading the config with a grep per key) takes seconds under TCG, and
# the trace's clock starts with fan-sim, once fancontrol's loop runs.
DEBUG=1 fancontrol "$out/fancontrol.conf" >"$out/fancontrol.log" 2>&1 &
fc_pid=$!
pids+=("$fc_pid")
for ((i = 0; i < 900; i++)); do
	grep -q '^Starting automatic fan control' "$out/fancontrol.log" && break
	sleep 0.1
done
lab_eq "fancontrol starts its loop within 90 s" yes "$( ((i < 900)) && echo yes || echo no)"
"$sim" --fan "$(grep -v '^#' "$fans/fan1.model")" --trace "$trace" --tick 100 \
	--log "$out/sim.csv" 2>"$out/sim.err" &
sim_pid=$!
pids+=("$sim_pid")
end=$(awk '!/^#/ && NF && $1 != "time" { t = $1 } END { print t }' "$trace")
sleep "$end"
kill -0 "$fc_pid" 2>/dev/null
lab_eq "fancontrol ran the whole trace" 0 $?
kill -TERM "$fc_pid"
wait "$fc_pid"
lab_eq "fancontrol exits 0 on SIGTERM" 0 $?
# With no pwm1_enable, fancontrol's restore is "full speed".
sleep 0.3
lab_eq "fancontrol leaves pwm1 at full (255, reads 252)" 252 "$(cat "$dev/pwm1")"
kill -TERM "$sim_pid"
wait "$sim_pid"
lab_eq "fan-sim exits 0 on SIGTERM" 0 $?
pids=()
lab_eq "fan-sim saw no bank race" 0 "$(tail -n 1 "$out/sim.csv" | awk -F, '{ print $NF }')"

# Every duty change, for reading beside another controller's.
awk -F, 'NR == 1 || $2 != prev { print; prev = $2 }' "$out/sim.csv" >"$out/changes.csv"

# --- each step's settled duty against the formula, computed here
# steps: "start end degrees" for every step of the trace.
awk '!/^#/ && NF && $1 != "time" {
	if (n && $2 != v) { print s, $1, v; s = $1 }
	if (!n) s = $1
	v = $2; n++
} END { print s, $1, v }' "$trace" >"$out/steps"

# expect DEGREES: the duty fancontrol computes (bash integer arithmetic,
# truncating) and the duty the w83793 keeps of it (6 bits: v >> 2 << 2).
expect() {
	local t m
	t=$(awk -v d="$1" 'BEGIN { printf "%d", d * 1000 }')   # as temp1_input reads it
	if ((t <= mint * 1000)); then
		m=$minpwm
	elif ((t >= maxt * 1000)); then
		m=$maxpwm
	else
		m=$(( (t - mint * 1000) * (maxpwm - minstop) / (maxt * 1000 - mint * 1000) + minstop ))
	fi
	echo "$m $(( m >> 2 << 2 ))"
}

# observed START END: the duty and RPM fan-sim logged last before END,
# 0.3 s of margin for the tick.
observed() {
	awk -F, -v e="$2" 'NR > 1 && $1 < e - 0.3 { d = $2; r = $3 } END { print d, r }' "$out/sim.csv"
}

printf '%-6s %-7s %7s %8s %9s %9s %8s\n' step "time s" "temp C" formula "expected" observed "fan1 RPM" |
	tee "$out/steps.txt"
i=0
while read -r s e deg; do
	i=$((i + 1))
	read -r formula want < <(expect "$deg")
	read -r got rpm < <(observed "$s" "$e")
	printf '%-6s %-7s %7s %8s %9s %9s %8s\n' "$i" "$s-$e" "$deg" "$formula" "$want" "$got" "$rpm" |
		tee -a "$out/steps.txt"
	lab_eq "step $i ($deg C): pwm1 settles at fancontrol's formula" "$want" "$got"
	if [ "$want" -ge "$minstop" ]; then
		lab_eq "step $i: fan1 turns at duty $got" yes "$([ "${rpm:-0}" -gt 0 ] && echo yes || echo no)"
	fi
done <"$out/steps"

# --- the start kick: from a stopped fan, MINSTART first (150, reads 148)
kick=$(awk -F, -v k=$((minstart >> 2 << 2)) 'NR == 2 { prev = $2; next } NR > 2 {
	if (prev == 0 && $2 != 0) { print ($2 == k ? "kick" : "no kick: " $2); exit }
	prev = $2
}' "$out/sim.csv")
lab_eq "first duty after a stop is MINSTART" kick "$kick"

# --- fancontrol's own account agrees with the formula for every cycle
bad=$(awk -v mint="$mint" -v maxt="$maxt" -v lo="$minstop" -v hi="$maxpwm" -v mp="$minpwm" '
	/^tval=/ { t = substr($0, 6) }
	/^new pwmval=/ {
		v = substr($0, 12); n++
		if (t <= mint * 1000) w = mp
		else if (t >= maxt * 1000) w = hi
		else w = int((t - mint * 1000) * (hi - lo) / (maxt * 1000 - mint * 1000)) + lo
		if (v != w) { print "tval " t ": wrote " v ", formula " w; exit }
	}
	END { if (!n) print "no cycles logged" }' "$out/fancontrol.log")
lab_eq "every fancontrol cycle wrote the formula's value" "" "$bad"

lab_done
