#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# SIGHUP is a transaction: a reload whose motion sensor cannot be read,
# whose camera cannot be set up, or whose sensors.conf broke since the
# start is refused in one log line and the running configuration goes on
# polling; one whose motion sensor is gone goes through without disk
# protection, as a start would. READY=1 follows only a start of the
# pollers. The daemon runs without CAP_DAC_OVERRIDE, so that a file made
# unreadable is unreadable to it although it runs as root.
. "$(dirname "$0")/lib.sh"

if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
if [ -z "${DGRAM_LISTEN:-}" ] || [ ! -x "$DGRAM_LISTEN" ]; then
	die "DGRAM_LISTEN must name tests/helpers' dgram-listen; run through ctest or set it"
fi
command -v setpriv >/dev/null || die "setpriv (util-linux) is not installed"

{
	daemon_section "sensors_config = $TMP/sensors.conf"
	printf '\n[motion]\nenabled = yes\ninterval = 20ms\n'
} >"$TMP/hwsightd.conf"
printf 'chip "pc87427-*"\n    label fan1 "CPU fan"\n' >"$TMP/sensors.conf"

cat >"$TMP/run.sh" <<'EOF'
log=$TMP/daemon.log
polls() { grep -c '^<7>poll pc87427-isa-0900: ' "$log"; }
# hup MARK: SIGHUP, then wait for MARK in the log and for two more polls.
hup() {
	local n
	echo "== $1" >>"$TMP/steps"
	kill -HUP "$pid"
	for _ in $(seq 50); do grep -q "$1" "$log" && break; sleep 0.1; done
	n=$(polls)
	for _ in $(seq 50); do [ "$(polls)" -ge $((n + 2)) ] && break; sleep 0.1; done
	echo "polls after: $(($(polls) - n))" >>"$TMP/steps"
}
"$DGRAM_LISTEN" "$TMP/notify.sock" >"$TMP/notify.log" &
listener=$!
for _ in $(seq 50); do grep -q '^ready' "$TMP/notify.log" && break; sleep 0.1; done
NOTIFY_SOCKET=$TMP/notify.sock setpriv --bounding-set=-dac_override,-dac_read_search \
	"$HWSIGHTD" -f -c "$TMP/hwsightd.conf" 2>"$log" &
pid=$!
for _ in $(seq 100); do grep -q '^READY=1' "$TMP/notify.log" && break; sleep 0.1; done
ams=$UMOCKDEV_DIR/sys/devices/platform/ams

chmod 000 "$ams/current"
hup 'reload refused'
chmod 644 "$ams/current"

cp "$TMP/hwsightd.conf" "$TMP/good.conf"
printf '\n[camera cam0]\ndevice = /dev/video7\ndirectory = /dev/null/snapshots\n' >>"$TMP/hwsightd.conf"
hup 'camera cam0: cannot create'
cp "$TMP/good.conf" "$TMP/hwsightd.conf"

cp "$TMP/sensors.conf" "$TMP/sensors.good"
printf 'chip "pc87427-*"\n    label fan1 "Rear fan"\n    nonsense here\n' >"$TMP/sensors.conf"
hup 'sensors configuration refused'

cp "$TMP/sensors.good" "$TMP/sensors.conf"
rm -rf "$ams"
hup 'no motion sensor'

sed -i 's/^poll_interval = 200ms/poll_interval = 300ms/' "$TMP/hwsightd.conf"
hup 'polling every 300 ms'
kill -TERM "$pid"
wait "$pid"
echo "exit $?" >>"$TMP/steps"
kill -TERM "$listener"
EOF
TMP=$TMP HWSIGHTD=$HWSIGHTD DGRAM_LISTEN=$DGRAM_LISTEN \
	umockdev-run -d "$TESTBEDS/pc87427.umockdev" -d "$TESTBEDS/ams.umockdev" -- bash "$TMP/run.sh"
log=$(cat "$TMP/daemon.log")
steps=$(cat "$TMP/steps")
notify=$(cat "$TMP/notify.log")

# step N: the lines the run wrote for its Nth reload.
step() { awk -v n="$1" '/^== / { i++ } i == n && !/^== /' "$TMP/steps"; }

# No disk in the testbed (disks = auto by default): the guard runs, idle.
expect_line "started, the motion guard idle without a disk" '^<6>motion sensor idle: no rotational disk' "$log"
expect_line "an unreadable motion sensor: refused, saying why" \
	'^<3>reload refused: motion sensor: Permission denied; the running configuration stays in force$' "$log"
expect_line "... and polling went on" '^polls after: [2-9]' "$(step 1)"
expect_line "a camera that cannot be set up: refused, saying why" \
	'^<3>reload refused: camera cam0: cannot create /dev/null/snapshots: Not a directory; the running configuration stays in force$' "$log"
expect_line "... and polling went on" '^polls after: [2-9]' "$(step 2)"
expect_line "a sensors.conf broken since the start: refused, saying where and why" \
	"^<3>reload refused: sensors configuration refused: $TMP/sensors.conf:3: .*; the running configuration stays in force\$" "$log"
expect_line "... and polling went on" '^polls after: [2-9]' "$(step 3)"
expect_eq "three reloads refused, each in one line" 3 "$(grep -c 'reload refused' <<<"$log")"
expect_eq "nothing was stopped for the first two (RELOADING=1 only from the third)" 3 \
	"$(grep -c '^RELOADING=1' <<<"$notify")"
expect_line "a motion sensor gone: the reload goes through without disk protection" \
	'^<5>no motion sensor \(ams, applesmc, lis3lv02d, hdaps\): disk protection is off$' "$log"
expect_line "... and polling went on" '^polls after: [2-9]' "$(step 4)"
expect_eq "... said once by each reload that wants it (this one and the next)" 2 \
	"$(grep -c 'no motion sensor' <<<"$log")"
expect_line "a good reload is in force" '^<6>pc87427-isa-0900: polling every 300 ms' "$log"
expect_line "... and polling went on" '^polls after: [2-9]' "$(step 5)"
expect_eq "READY=1 once for each start of the pollers" \
	"$(grep -c '^<6>pc87427-isa-0900: polling every' <<<"$log")" "$(grep -c '^READY=1' <<<"$notify")"
expect_eq "READY=1 at the start and after each of the three reloads that stopped the pollers" 4 \
	"$(grep -c '^READY=1' <<<"$notify")"
expect_line "SIGTERM: exit 0" '^exit 0$' "$steps"
expect_no_line "no sanitizer report" 'Sanitizer|runtime error' "$log"
summary
