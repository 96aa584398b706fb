#!/bin/bash
# lab-boot: fans
# hwsightd's failsafe on the real drivers (issue 17): a [fan NAME] whose
# temperature source is an lm75 (on the i2c-stub address 0x48, which the
# lab's ctest boot reserves with --stub-addr 0x48) drives the W83793's
# pwm1. The lm75 is unbound from its driver: its hwmon chip vanishes, the
# poller stops reading it, and each step of the fan finds no reading
# (daemon/fans.c, reading(): the chip is no longer present). After
# failsafe_after steps the fan must be at full output -- duty register
# 0xb3 at 0x3f, what the w83793 driver writes for 255 -- with exactly one
# fan-failsafe event, and stay there; when the lm75 is bound again (at a
# new temperature) the fan must come back to the curve with exactly one
# fan-failsafe-end.
#
# A second fan, [fan pair] on pwm2, has the lm75 and the W83793's temp2 as
# sources (combine = max). The temp2 source keeps reading, so its steps
# are logged, and the steps between the lm75 going away and the failsafe
# can be counted on the daemon's own clock: at most failsafe_after - 1 on
# what is left (temp2), the next at full. At most, not exactly: the
# hotplug rescan that follows the unbind replaces every chip, the W83793
# too, and until its poller reads it again (at once since fan-rescan.sh,
# but after a step already queued) temp2 reads as unreadable as well, so a
# step that falls there is a silent hold that counts against the lm75 all
# the same (see fans/README.md).
#
# Times (unbind to full, in intervals) are printed, not asserted. The
# lm75's sysfs files vanish; a read error on a chip that stays (in->error)
# cannot be made with i2c-stub, which answers every read.
#
# It leaves in $HWS_LAB_RESULTS/fan-failsafe/: daemon.log (each line with
# the time it was written), events (exec= of each event) and figures.txt.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

lab_lm75_env fan-failsafe

failsafe_after=3
pid=
created=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	"$hwsightd" --restore-fans -c "$tmp/fans.conf" 2>/dev/null
	[ -e "$lm75_dev" ] && [ ! -e "$lm75_dev/driver" ] && echo "$lm75_name" >/sys/bus/i2c/drivers/lm75/bind
	[ -n "$created" ] && echo "$lm75_addr" >"/sys/bus/i2c/devices/i2c-$bus/delete_device"
	modprobe -r lm75 2>/dev/null
	w83793_fans_restore "$dev" 2 0x01 2 0x02 0 0xb3 0 0xb4
	rm -rf "$tmp"
}
trap cleanup EXIT

now() { echo "$EPOCHREALTIME"; }
# lm75_set C: the temperature register (0x00, MSB first: SMBus words are
# little-endian, so the bytes go swapped), in half degrees.
lm75_set() {
	local v
	v=$(awk -v c="$1" 'BEGIN { printf "%d", c * 256 }')
	i2cset -f -y "$bus" "$lm75_addr" 0x00 $(((v & 0xff) << 8 | (v >> 8 & 0xff))) w
}
# duty_reg P: pwmP's duty register (bank 0, 0xb3 + P - 1), the bank
# register put back as found (the driver caches the bank it selected);
# with hwsightd running, through lab_frozen.
duty_reg() {
	local b0 v
	b0=$(i2cget -f -y "$bus" "$addr" 0x00 b)
	i2cset -f -y "$bus" "$addr" 0x00 $((b0 & 0xfc)) b
	v=$(i2cget -f -y "$bus" "$addr" $((0xb3 + $1 - 1)) b)
	i2cset -f -y "$bus" "$addr" 0x00 "$b0" b
	echo "$v"
}
pwm_of() { cat "$dev/pwm$1"; }
# The curve below at C degrees, as the chip keeps it (6 bits).
curve() { awk -v c="$1" 'BEGIN { v = c <= 40 ? 64 : c >= 60 ? 192 : 64 + 128 * (c - 40) / 20; printf "%d", int(v) / 4 * 4 }'; }
count() { grep -c -- "$1" "$2"; }

# --- the lm75 at 52.5 C
modprobe lm75 || { echo "cannot load lm75"; exit 1; }
if [ ! -e "$lm75_dev" ]; then
	echo lm75 "$lm75_addr" >"/sys/bus/i2c/devices/i2c-$bus/new_device" || exit 1
	created=1
fi
lm75_set 52.5
lab_wait_until 10 eval 'grep -qx 52500 "$lm75_dev"/hwmon/hwmon*/temp1_input 2>/dev/null'
lab_eq "the lm75 reads 52.5 C" 52500 "$(cat "$lm75_dev"/hwmon/hwmon*/temp1_input)"

# --- the W83793: Smart Fan holds pwm1 and pwm2, as firmware leaves them
lab_run "fan overlay preset" "$HWS_LAB_DIR/guest/lab-regs" "$HWS_LAB_DIR/presets/w83793-fans.regs"
echo 0 >"$dev/intrusion0_alarm"
echo 1 >"$dev/temp1_auto_channels_pwm"
echo 2 >"$dev/temp2_auto_channels_pwm"
echo 200 >"$dev/pwm1"
echo 120 >"$dev/pwm2"
temp2=$(awk -v m="$(cat "$dev/temp2_input")" 'BEGIN { print m / 1000 }')

{
	printf '[daemon]\nlisten = off\npoll_interval = 1s\nstate_directory = %s\n' "$tmp/state"
	printf 'fan_state = %s\nlog_target = stderr\nlog_level = debug\n' "$tmp/fans.state"
	printf 'exec = echo "$(date +%%s.%%N) $HWSIGHT_EVENT $HWSIGHT_FAN" >>%s\n' "$out/events"
	printf '\n[fan cpu]\noutput = w83793-*/pwm1\nsources = lm75-*/temp1\n'
	printf 'curve = 40:64 60:192\nhysteresis = 0\nstart_time = 0\ninterval = 1s\nfailsafe_after = %d\n' "$failsafe_after"
	printf '\n[fan pair]\noutput = w83793-*/pwm2\nsources = lm75-*/temp1, w83793-*/temp2\ncombine = max\n'
	printf 'curve = 40:64 60:192\nhysteresis = 0\nstart_time = 0\ninterval = 1s\nfailsafe_after = %d\n' "$failsafe_after"
} >"$tmp/fans.conf"
touch "$out/events"
# Each line of the log with the time it came.
"$hwsightd" -f -c "$tmp/fans.conf" 2> >(lab_stamp "$out/daemon.log") &
pid=$!

c52=$(curve 52.5)
lab_wait_until 30 eval '[ "$(pwm_of 1) $(pwm_of 2)" = "$c52 $c52" ]'
lab_eq "both fans on the curve at the lm75's 52.5 C" "$c52 $c52" "$(pwm_of 1) $(pwm_of 2)"
lab_eq "no failsafe yet" 0 "$(count failsafe "$out/events")"

# --- the source goes away
t_unbind=$(now)
echo "$lm75_name" >/sys/bus/i2c/drivers/lm75/unbind
# A hang guard, not the measure: ten times failsafe_after intervals. The
# steps are counted below, on the daemon's own clock.
lab_wait_until $((10 * failsafe_after)) eval '[ "$(pwm_of 1) $(pwm_of 2)" = "252 252" ]'
t_full=$(now)
lab_eq "the lm75 unbound: both fans at full (255, reads 252)" "252 252" "$(pwm_of 1) $(pwm_of 2)"
lab_eq "duty registers 0xb3 and 0xb4 at 0x3f, as the driver writes 255" "0x3f 0x3f" \
	"$(printf '0x%02x 0x%02x' $(($(lab_frozen "$pid" duty_reg 1) & 0x3f)) $(($(lab_frozen "$pid" duty_reg 2) & 0x3f)))"
# Logged once: a few more steps add nothing.
sleep 3.2
lab_eq "still at full three steps later" "252 252" "$(pwm_of 1) $(pwm_of 2)"
lab_eq "exactly one fan-failsafe event per fan (exec=)" "1 1" \
	"$(grep -c ' fan-failsafe cpu$' "$out/events") $(grep -c ' fan-failsafe pair$' "$out/events")"
lab_eq "[fan cpu] logged its failsafe once, naming the source and the count" 1 \
	"$(count "\[fan cpu\]: lm75-\*/temp1 cannot be read $failsafe_after times in a row" "$out/daemon.log")"
lab_eq "[fan pair] logged its failsafe once" 1 \
	"$(count "\[fan pair\]: lm75-\*/temp1 cannot be read $failsafe_after times in a row" "$out/daemon.log")"

# The daemon's own account of the steps: the poller's line that the lm75
# went (vanished at a read, or gone at a rescan), then [fan pair]'s steps
# on temp2 alone, then its failsafe.
gone_line=$(grep -n -m 1 -E 'lm75-[^:]*: (vanished|gone)' "$out/daemon.log" | cut -d: -f1)
fs_line=$(grep -n -m 1 '\[fan pair\]: .* cannot be read' "$out/daemon.log" | cut -d: -f1)
lab_eq "the daemon saw the lm75 go before the failsafe" yes \
	"$([ -n "$gone_line" ] && [ -n "$fs_line" ] && [ "$gone_line" -lt "$fs_line" ] && echo yes || echo no)"
c2=$(curve "$temp2")
pair_steps=$(sed -n "${gone_line:-1},${fs_line:-1}p" "$out/daemon.log" | grep -c '\[fan pair\]: [0-9.-]* °C -> ')
echo "# [fan pair]: $pair_steps steps on temp2 alone between the lm75 going and its failsafe"
lab_eq "[fan pair]: at most $((failsafe_after - 1)) steps on temp2 alone ($temp2 C -> $c2), then full" yes \
	"$( ((pair_steps <= failsafe_after - 1)) && echo yes || echo "no: $pair_steps")"
[ "$pair_steps" -gt 0 ] && lab_eq "pwm2 went through the curve of temp2 on the way" yes \
	"$(sed -n "${gone_line:-1},${fs_line:-1}p" "$out/daemon.log" | grep -q "\[fan pair\]: [0-9.]* °C -> $(awk -v c="$temp2" 'BEGIN { printf "%d", 64 + 128 * (c - 40) / 20 }')\$" && echo yes || echo no)"

# --- the source comes back, at 45 C: the curve again, from the new reading
lm75_set 45
c45=$(curve 45)
t_bind=$(now)
echo "$lm75_name" >/sys/bus/i2c/drivers/lm75/bind
lab_wait_until 30 eval '[ "$(pwm_of 1) $(pwm_of 2)" = "$c45 $c45" ]'
t_back=$(now)
lab_eq "the lm75 bound again at 45 C: both fans back on the curve" "$c45 $c45" "$(pwm_of 1) $(pwm_of 2)"
sleep 1.2
lab_eq "exactly one fan-failsafe-end per fan (exec=)" "1 1" \
	"$(grep -c ' fan-failsafe-end cpu$' "$out/events") $(grep -c ' fan-failsafe-end pair$' "$out/events")"
lab_eq "[fan cpu] logged back on the curve once" 1 "$(count '\[fan cpu\]: its sources read again' "$out/daemon.log")"
lab_eq "and still one fan-failsafe per fan" "1 1" \
	"$(grep -c ' fan-failsafe cpu$' "$out/events") $(grep -c ' fan-failsafe pair$' "$out/events")"

kill -TERM "$pid"
wait "$pid"
lab_eq "hwsightd exits 0 on SIGTERM" 0 $?
pid=
lab_eq "and gives both back to Smart Fan at their duties" "1 2 200 120" \
	"$(cat "$dev/temp1_auto_channels_pwm") $(cat "$dev/temp2_auto_channels_pwm") $(pwm_of 1) $(pwm_of 2)"
lab_eq "hwsightd logged no error but the failsafes" "" \
	"$(grep -E '^[0-9.]+ <[0-3]>' "$out/daemon.log" | grep -v 'cannot be read' | head -n 3)"

# Figures, in intervals of 1 s: from the unbind to full, and from the
# daemon seeing the lm75 go to each fan's failsafe event.
t_gone=$(sed -n "${gone_line:-1}p" "$out/daemon.log" | cut -d' ' -f1)
t_fs_cpu=$(grep -m 1 '\[fan cpu\]: .* cannot be read' "$out/daemon.log" | cut -d' ' -f1)
t_fs_pair=$(sed -n "${fs_line:-1}p" "$out/daemon.log" | cut -d' ' -f1)
t_end=$(grep -m 1 '\[fan cpu\]: its sources read again' "$out/daemon.log" | cut -d' ' -f1)
awk -v u="$t_unbind" -v f="$t_full" -v g="$t_gone" -v c="$t_fs_cpu" -v p="$t_fs_pair" \
	-v b="$t_bind" -v k="$t_back" -v e="$t_end" 'BEGIN {
	printf "# unbind -> both at full: %.2f s (interval 1 s, failsafe_after '"$failsafe_after"')\n", f - u
	printf "# unbind -> the poller sees the lm75 go: %.2f s\n", g - u
	printf "# lm75 gone -> fan-failsafe: cpu %.2f intervals, pair %.2f\n", c - g, p - g
	printf "# bind -> fan-failsafe-end (cpu): %.2f s; bind -> both on the curve: %.2f s\n", e - b, k - b
}' | tee "$out/figures.txt"
lab_done
