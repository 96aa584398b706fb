#!/bin/bash
# lab-boot: fans
# A hwmon chip that comes or goes while hwsightd drives a fan from another
# chip's temperature (issue 17): the rescan that follows replaces every
# chip, and each one's values are unread until its poller reads it again.
# The pollers read straight after a rescan, so no step of the fan may see
# its source unreadable: with a 10 s poll interval and failsafe_after = 2
# at 1 s steps, a fan that waited for the next poll would go to full
# output with a fan-failsafe event (as it did before daemon/pollers.c
# polled at once after a rescan).
#
# It leaves in $HWS_LAB_RESULTS/fan-rescan/: daemon.log and events.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

lab_lm75_env fan-rescan

pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	"$hwsightd" --restore-fans -c "$tmp/fans.conf" 2>/dev/null
	[ -e "/sys/bus/i2c/devices/$lm75_name" ] && echo "$lm75_addr" >"/sys/bus/i2c/devices/i2c-$bus/delete_device"
	modprobe -r lm75 2>/dev/null
	w83793_fans_restore "$dev" 1 0x01 0 0xb3
	rm -rf "$tmp"
}
trap cleanup EXIT

lab_run "fan overlay preset" "$HWS_LAB_DIR/guest/lab-regs" "$HWS_LAB_DIR/presets/w83793-fans.regs"
echo 1 >"$dev/temp1_auto_channels_pwm"
echo 200 >"$dev/pwm1"
{
	printf '[daemon]\nlisten = off\npoll_interval = 10s\nstate_directory = %s\n' "$tmp/state"
	printf 'fan_state = %s\nlog_target = stderr\nlog_level = debug\n' "$tmp/fans.state"
	printf 'exec = echo "$HWSIGHT_EVENT $HWSIGHT_FAN" >>%s\n' "$out/events"
	printf '\n[fan steady]\noutput = w83793-*/pwm1\nsources = w83793-*/temp1\n'
	printf 'curve = 20:100 60:200\nhysteresis = 0\nstart_time = 0\ninterval = 1s\nfailsafe_after = 2\n'
} >"$tmp/fans.conf"
touch "$out/events"
"$hwsightd" -f -c "$tmp/fans.conf" 2> >(lab_stamp "$out/daemon.log") &
pid=$!
lab_wait_until 30 eval 'grep -q "^fan-take steady" "$out/events"'
sleep 2
held=$(cat "$dev/pwm1")
lab_eq "the fan is taken and on its curve, below full" yes "$([ "$held" -lt 252 ] && echo yes || echo "no: $held")"

modprobe lm75 || { echo "cannot load lm75"; exit 1; }
echo lm75 "$lm75_addr" >"/sys/bus/i2c/devices/i2c-$bus/new_device"
lab_wait_until 20 eval 'grep -q "lm75-i2c-.*polling every" "$out/daemon.log"'
# Six steps: each would count a failure while the W83793 waited for its
# next poll (up to 10 s away).
sleep 6
lab_eq "an lm75 came: the fan stays on its curve" "$held" "$(cat "$dev/pwm1")"
echo "$lm75_addr" >"/sys/bus/i2c/devices/i2c-$bus/delete_device"
sleep 6
lab_eq "and went: still on its curve" "$held" "$(cat "$dev/pwm1")"
lab_eq "no fan-failsafe event" 0 "$(grep -c failsafe "$out/events")"
lab_eq "the W83793 was polled after each rescan, not 10 s later" yes \
	"$([ "$(grep -c 'poll w83793' "$out/daemon.log")" -ge 3 ] && echo yes || echo no)"
kill -TERM "$pid"; wait "$pid"; pid=
lab_done
