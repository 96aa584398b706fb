#!/bin/bash
# lab-boot: daemon
# hwsightd against the real drivers: the w83793 polled on the freezeable
# queue, a fan stall written to its registers logged to the journal with
# structured fields by the next poll that reads it and followed by a snapshot from
# vivid, SIGHUP with a broken config refused, freeze and thaw driven by
# logind's PrepareForSleep on a private bus, chips and cameras that go and
# come back, sd_notify as systemd would see it, and a SIGTERM that leaves
# no partial file.  The journal and NOTIFY_SOCKET are datagram listeners
# (tests/helpers/dgram-listen), logind is tests/helpers/fake-logind.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hwsightd=$HWS_BUILD_DIR/daemon/hwsightd
helpers=$HWS_BUILD_DIR/tests/helpers
tmp=$(mktemp -d)
conf=$tmp/hwsightd.conf
journal=$tmp/journal.log
notify=$tmp/notify.log
POLL=3

dev=
for h in /sys/class/hwmon/hwmon*; do
	[ "$(cat "$h/name" 2>/dev/null || cat "$h/device/name" 2>/dev/null)" = w83793 ] && dev=$(readlink -f "$h/device")
done
chip=w83793-i2c-$HWS_LAB_I2C_BUS-${HWS_LAB_W83793_ADDRS#0x}
client=$(basename "$dev")

write_config() {
	cat >"$conf" <<EOF
[daemon]
poll_interval = 10s
state_directory = $tmp/state
log_level = debug
exec = echo "\$HWSIGHT_EVENT \$HWSIGHT_CHIP \$HWSIGHT_SENSOR \$HWSIGHT_CONDITION \$HWSIGHT_VALUE" >>$tmp/exec.log

[chip w83793-*]
poll_interval = ${POLL}s
temp2.max = 80
hysteresis = 5

[camera cam0]
device = /dev/video0
size = 320x180
fps = 25
snapshot_on_alarm = yes
skip_frames = 1
EOF
}

# wait_for FILE PATTERN SECONDS: until a line of FILE matches (grep -E).
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
polls() { grep -c "^MESSAGE=poll $chip" "$journal"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- the config is checked before anything starts
write_config
lab_run "hwsightd -t accepts the config" "$hwsightd" -t -c "$conf"
printf '[chip w83793-*]\npoll_interval = 3 fortnights\n' >"$tmp/bad.conf"
out=$("$hwsightd" -f -c "$tmp/bad.conf" 2>&1)
lab_eq "a bad config is refused at start" 1 "$?"
lab_eq "... with FILE:LINE and the reason" yes \
	"$(grep -q "bad.conf:2: poll_interval: \"3 fortnights\" is not a duration" <<<"$out" && echo yes || echo "$out")"

# --- --once: one poll, one line per value, the driver's values
out=$("$hwsightd" --once -c "$conf")
lab_eq "--once exits 0" 0 "$?"
lab_eq "--once: fan1 as the driver gives it" "$(awk '{ printf "%.3f", $1 }' "$dev/fan1_input")" \
	"$(awk -v c="$chip" '$1 == c && $2 == "fan1" { print $3 }' <<<"$out")"
lab_eq "--once: temp1 in °C" "°C" "$(awk -v c="$chip" '$1 == c && $2 == "temp1" { print $4 }' <<<"$out")"

# --- a private system bus with a fake logind, the journal, NOTIFY_SOCKET
mkdir -p /run/systemd/journal
"$helpers/dgram-listen" /run/systemd/journal/socket >"$journal" &
journal_pid=$!
"$helpers/dgram-listen" "$tmp/notify.sock" >"$notify" &
notify_pid=$!
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1 | head -n 2)
bus_address=$(head -n 1 <<<"$bus")
bus_pid=$(sed -n 2p <<<"$bus")
mkfifo "$tmp/logind.in"
# A freeze writes the history first (one rrdtool run): well under logind's
# 5 s on hardware, but not in a TCG guest on a busy host. The check is that
# the lock is released, not how fast, so the delay is long.
DBUS_SYSTEM_BUS_ADDRESS=$bus_address "$helpers/fake-logind" --inhibit-delay-max=60 \
	<"$tmp/logind.in" >"$tmp/logind.log" &
logind_pid=$!
exec 7>"$tmp/logind.in"
wait_for "$journal" '^ready' 5 && wait_for "$notify" '^ready' 5 && wait_for "$tmp/logind.log" '^ready' 5
lab_eq "journal, notify socket and logind are listening" 0 "$?"

start=$(now)
DBUS_SYSTEM_BUS_ADDRESS=$bus_address NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=3000000 \
	"$hwsightd" -c "$conf" --log-target journal &
pid=$!
lab_regs_pid=$pid   # its register writes stop hwsightd (lab_regs)
wait_for "$notify" '^READY=1' 10
lab_eq "READY=1 on NOTIFY_SOCKET" 0 "$?"
lab_eq "STATUS= says what it polls" yes \
	"$(grep -q '^STATUS=polling 1 chip, 1 camera, 0 alarms active' "$notify" && echo yes || grep STATUS "$notify")"
wait_for "$tmp/logind.log" '^inhibit sleep hwsightd' 5
lab_eq "it takes a delay lock from logind" 0 "$?"
wait_for "$notify" '^WATCHDOG=1' 5
lab_eq "WATCHDOG=1 within WatchdogSec" 0 "$?"
lab_eq "the poller logs at debug level to the journal" 0 "$(wait_for "$journal" "^MESSAGE=poll $chip" 5; echo $?)"
lab_eq "journal records carry PRIORITY" yes "$(grep -q '^PRIORITY=7' "$journal" && echo yes || echo no)"

# --- steady polling at the chip's interval
n0=$(polls)
sleep $((POLL * 3 + 1))
n1=$(polls)
lab_eq "polls every ${POLL} s (3 or 4 in $((POLL * 3 + 1)) s)" yes \
	"$([ $((n1 - n0)) -ge 3 ] && [ $((n1 - n0)) -le 4 ] && echo yes || echo "$((n1 - n0))")"

# --- a fan stall: an alarm at the next poll that sees it, then a snapshot.
# Counted in polls, not seconds: in a TCG guest on a busy host the time a
# poll takes is the host's, not the daemon's.
w83793_alarms "$dev" >/dev/null
# w83793_alarms waits out the driver's cache: every poll from here on reads
# the stall. The alarm must come before the second one has ended.
n0=$(polls)
wait_for "$journal" '^HWSIGHT_SENSOR=fan1' 60
rc=$?
at=$(awk -v m="MESSAGE=poll $chip" 'index($0, m) == 1 { n++ } /^HWSIGHT_SENSOR=fan1$/ { print n + 0; exit }' "$journal")
lab_eq "fan stall logged by the first or second poll that reads it (poll $((${at:-0} - n0)))" yes \
	"$([ $rc -eq 0 ] && [ "${at:-0}" -le $((n0 + 2)) ] && echo yes || echo no)"
record=$(awk 'BEGIN { RS = "" } /HWSIGHT_SENSOR=fan1\n/ && /HWSIGHT_EVENT=alarm\n/ { print; exit }' "$journal")
for field in "PRIORITY=4" "HWSIGHT_EVENT=alarm" "HWSIGHT_CHIP=$chip" "HWSIGHT_SENSOR=fan1" \
	     "HWSIGHT_CONDITION=min" "HWSIGHT_VALUE=0.000" \
	     "HWSIGHT_LIMIT=$(awk '{ printf "%.3f", $1 }' "$dev/fan1_min")"; do
	lab_eq "alarm record has $field" yes "$(grep -qx "$field" <<<"$record" && echo yes || echo no)"
done
lab_eq "alarm MESSAGE names chip, sensor, value and limit" yes \
	"$(grep -q "^MESSAGE=alarm: $chip fan1.*: 0 RPM, below min" <<<"$record" && echo yes || echo "$record")"
wait_for "$journal" '^HWSIGHT_EVENT=snapshot' 15
lab_eq "a snapshot follows the alarm" 0 "$?"
snap=$(ls "$tmp"/state/snapshots/cam0-*-alarm.jpg 2>/dev/null | head -n 1)
lab_eq "the alarm snapshot decodes as 320x180" "320 180" \
	"$(djpeg -pnm "$snap" 2>/dev/null | head -c 20 | awk 'NR == 2 { print $1, $2 }')"
wait_for "$tmp/exec.log" "^alarm $chip fan1 min 0.000" 5
lab_eq "exec= ran with the event in its environment" 0 "$?"
lab_eq "the chip's temp1 alarm is logged too" yes \
	"$(grep -q "^MESSAGE=alarm: $chip temp1.*above max" "$journal" && echo yes || echo no)"
lab_eq "STATUS= counts the alarms" yes \
	"$(grep -qE '^STATUS=polling 1 chip, 1 camera, [1-9][0-9]* alarms? active' "$notify" && echo yes || echo no)"
n=$(grep -c '^HWSIGHT_EVENT=alarm$' "$journal")
sleep $((POLL * 2))
lab_eq "an alarm that lasts is logged once" "$n" "$(grep -c '^HWSIGHT_EVENT=alarm$' "$journal")"
w83793_restore >/dev/null
wait_for "$journal" "^MESSAGE=alarm end: $chip fan1" $((POLL * 2 + 1))
lab_eq "the alarm ends when the fan turns again" 0 "$?"
lab_eq "the end is logged at notice" yes \
	"$(awk 'BEGIN { RS = "" } /MESSAGE=alarm end: [^\n]* fan1/ { print; exit }' "$journal" | grep -qx 'PRIORITY=5' && echo yes || echo no)"

# --- a configured threshold, with hysteresis: no flapping at the limit
temp2_reg() { lab_regs - <<<"0 0x1d $1"; }   # temp2, whole degrees
flaps() { grep -c "^MESSAGE=alarm[^:]*: $chip temp2" "$journal"; }
temp2_reg 0x52; sleep $((POLL + 2))                  # 82 C: over 80
lab_eq "temp2 over its configured max raises an alarm" yes \
	"$(grep -q "^MESSAGE=alarm: $chip temp2.*above max 80.0 °C (configured)" "$journal" && echo yes || echo no)"
before=$(flaps)
temp2_reg 0x4f; sleep $((POLL + 2))                  # 79 C: inside the 5 degree band
temp2_reg 0x51; sleep $((POLL + 2))                  # 81 C
lab_eq "wobbling inside the hysteresis logs nothing" "$before" "$(flaps)"
temp2_reg 0x46; sleep $((POLL + 2))                  # 70 C: out of the band
lab_eq "well below the limit the alarm ends" yes \
	"$(grep -q "^MESSAGE=alarm end: $chip temp2" "$journal" && echo yes || echo no)"
w83793_restore >/dev/null

# --- SIGHUP: a broken config is refused, the running one stays
cp "$conf" "$tmp/good.conf"
printf '[camera cam0]\nfps = 40\n' >>"$conf"
kill -HUP $pid
wait_for "$journal" '^MESSAGE=reload refused' 5
lab_eq "SIGHUP with a broken config is refused" 0 "$?"
lab_eq "... saying FILE:LINE and why" yes \
	"$(grep -q "^MESSAGE=$conf:[0-9]*: fps: 40 fps is not a whole number" "$journal" && echo yes || echo no)"
n0=$(polls)
sleep $((POLL * 2 + 1))
lab_eq "still running and polling on the old config" yes \
	"$(kill -0 $pid && [ "$(polls)" -gt "$n0" ] && echo yes || echo no)"
cp "$tmp/good.conf" "$conf"
sed -i "s/^poll_interval = ${POLL}s/poll_interval = 2s/" "$conf"
kill -HUP $pid
wait_for "$notify" '^RELOADING=1' 5
lab_eq "a good config reloads: RELOADING=1" 0 "$?"
wait_for "$journal" "^MESSAGE=$chip: polling every 2000 ms" 5
lab_eq "... and the new interval is in force" 0 "$?"

# --- suspend: PrepareForSleep(true) freezes the pollers, false thaws them
echo sleep >&7
wait_for "$tmp/logind.log" '^slept' 70
lab_eq "logind's delay lock is released once frozen" yes \
	"$(grep -q '^slept locks-released=1' "$tmp/logind.log" && echo yes || cat "$tmp/logind.log")"
wait_for "$notify" '^STATUS=frozen' 5
n0=$(polls)
sleep 7
lab_eq "no poll runs while frozen (7 s at 2 s)" "$n0" "$(polls)"
echo resume >&7
wait_for "$journal" "^MESSAGE=the system woke up" 30
lab_wait_until 10 eval '[ "$(polls)" -gt "$n0" ]'
lab_eq "after resume every chip is polled at once" yes \
	"$([ "$(polls)" -gt "$n0" ] && echo yes || echo no)"
n0=$(polls)
lab_wait_until 30 eval '[ "$(polls)" -ge $((n0 + 2)) ]'
lab_eq "and polling goes on" yes "$([ "$(polls)" -ge $((n0 + 2)) ] && echo yes || echo no)"
wait_for "$tmp/logind.log" '^inhibit sleep hwsightd.*' 5
lab_eq "the delay lock is taken again" 2 "$(grep -c '^inhibit sleep hwsightd' "$tmp/logind.log")"

# --- hotplug: the chip unbound and bound again, the camera away and back
echo "$client" >/sys/bus/i2c/drivers/w83793/unbind
wait_for "$journal" "^MESSAGE=$chip: (gone|vanished)" 10
lab_eq "an unbound chip is dropped" 0 "$?"
n0=$(polls)
sleep 5
lab_eq "... and not polled" "$n0" "$(polls)"
echo "$client" >/sys/bus/i2c/drivers/w83793/bind
wait_for "$journal" "^MESSAGE=$chip: polling every" 10
lab_eq "bound again, it is polled again without a restart" yes \
	"$(sleep 3; [ "$(polls)" -gt "$n0" ] && echo yes || echo no)"
rmmod vivid
wait_for "$journal" '^MESSAGE=camera cam0: /dev/video0 went away' 10
lab_eq "a camera that goes away is noticed" 0 "$?"
modprobe vivid $HWS_LAB_VIVID_PARAMS
wait_for "$journal" '^MESSAGE=camera cam0: /dev/video0 appeared' 10
lab_eq "... and so is its return" 0 "$?"

# --- SIGTERM: exit 0 within a couple of seconds, nothing half written
t0=$(now)
kill -TERM $pid
wait $pid
rc=$?
took=$(elapsed "$t0")
lab_eq "SIGTERM: exit 0" 0 "$rc"
# It writes the history first (one rrdtool run): reported, and bounded by
# systemd's default stop timeout only, as the guest's speed is the host's.
lab_eq "SIGTERM: gone before systemd's 90 s stop timeout (${took} s)" yes \
	"$(awk -v t="$took" 'BEGIN { print t < 90 ? "yes" : "no" }')"
lab_eq "STOPPING=1 on NOTIFY_SOCKET" 0 "$(grep -q '^STOPPING=1' "$notify"; echo $?)"
bad=0
for f in "$tmp"/state/snapshots/*; do
	case $f in *.jpg) djpeg "$f" >/dev/null 2>&1 || bad=$((bad + 1)) ;; *) bad=$((bad + 1)) ;; esac
done
lab_eq "every file in the snapshot directory is a whole JPEG" 0 "$bad"
lab_eq "no exec= command left running" 0 "$(pgrep -fc 'HWSIGHT_EVENT' || true)"

echo quit >&7
exec 7>&-
kill $journal_pid $notify_pid $bus_pid 2>/dev/null
wait 2>/dev/null
rm -rf "$tmp"
lab_done
