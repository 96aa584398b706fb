#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Disk protection that shows its work (issue 18), on umockdev testbeds:
#  - a bump of the desk (tests/traces/motion/ams-bump.trace, played by
#    motion-replay into a testbed with a rotational disk sda, found by
#    disks = auto) parks sda's heads, and /metrics, /api/v1/motion and the
#    status page show the park: its count, the seconds it held, why, when;
#  - the same with --dry-run: the journal says what it would park, exec=
#    gets the event marked HWSIGHT_DRY_RUN=1, the counters count it, and
#    unload_heads is never written;
#  - fan control with --dry-run: the PC87427's pwm1 is followed along its
#    curve, each value it would set logged, and neither the output nor the
#    fan state file (a stale one, left by a "crash") is touched;
#  - with no rotational disk (none, or only a solid-state one) and nothing
#    acting on motions, the motion sensor is not sampled at all:
#    hwsight_motion_samples_total stays 0; exec= set, it is sampled.
# Nothing here judges a time: the replays' own timing is side-by-side.sh's.
. "$(dirname "$0")/lib.sh"

for v in HWSIGHTD REPLAY; do
	[ -x "${!v:-}" ] || die "$v must name the built program (got '${!v:-}'); run through ctest or set it"
done
command -v curl >/dev/null 2>&1 || die "curl is not installed (scripts/install-deps)"
trap 'daemon_cleanup; rm -rf "$TMP"' EXIT
TRACE=$(dirname "$0")/../traces/motion/ams-bump.trace

motion_conf() {
	printf '[daemon]\nlisten = 127.0.0.1:0\nstate_directory = %s\n' "$TMP/state"
	printf 'log_target = stderr\nlog_level = info\n'
	[ $# -eq 0 ] || printf '%s\n' "$@"
	printf '\n[motion]\nenabled = yes\ninterval = 20ms\npark_time = 5s\n'
}

# The command motion-replay runs: hwsightd, its log on stdout and in
# $OUT_DIR/log; when the replay ends (SIGTERM), the pages and the disk's
# unload_heads (its content and when it was last written) are kept in
# $OUT_DIR before the daemon is stopped.
cat >"$TMP/replayed.sh" <<'EOF'
heads=$UMOCKDEV_DIR/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/unload_heads
stat -c %y "$heads" >"$OUT_DIR/heads-before"
"$HWSIGHTD" -f -c "$OUT_DIR/conf" "$@" > >(tee "$OUT_DIR/log") 2>&1 &
pid=$!
end() {
	port=$(sed -n 's/.*serving HTTP on 127\.0\.0\.1:0 (port \([0-9]*\)).*/\1/p' "$OUT_DIR/log")
	for page in metrics api/v1/motion ''; do
		curl -s "http://127.0.0.1:$port/$page" >"$OUT_DIR/${page//\//-}.page"
	done
	stat -c %y "$heads" >"$OUT_DIR/heads-after"
	cat "$heads" >>"$OUT_DIR/heads-after"
	kill -TERM "$pid"
	wait "$pid"
	exit
}
trap end TERM
wait
EOF

# replay NAME [HWSIGHTD OPTION...]: the bump under hwsightd with
# $TMP/NAME/conf; its files in $TMP/NAME. A replay that missed the bump
# is played again, twice at most: on a loaded machine the samples around
# it may have come late (the detector's own test, test-motion-traces,
# needs no clock).
replay() {
	local name=$1
	shift
	for _ in 1 2 3; do
		OUT_DIR=$TMP/$name HWSIGHTD=$HWSIGHTD umockdev-wrapper "$REPLAY" --disk=sda \
			--ready='watching the motion sensor' "$TRACE" -- bash "$TMP/replayed.sh" "$@" \
			>"$TMP/$name/replay" 2>&1
		grep -q 'sudden motion' "$TMP/$name/log" && return
		printf '# %s: no motion seen, %s; played again\n' "$name" "$(grep '^# late' "$TMP/$name/replay" | paste -sd ' ')"
	done
}

# --- the bump, for real
mkdir -p "$TMP/real"
motion_conf >"$TMP/real/conf"
replay real
log=$(cat "$TMP/real/log")
metrics=$(cat "$TMP/real/metrics.page")
expect_line "disks = auto (the default) finds the testbed's rotational sda" \
	'^<6>watching the motion sensor every 20 ms to protect sda$' "$log"
expect_line "the bump parks it" '^<5>sudden motion: parking the heads of sda$' "$log"
expect_eq "unload_heads was written, and released to 0" 0 "$(sed -n 2p "$TMP/real/heads-after")"
expect_eq "... after the start (its time changed)" 1 \
	"$([ "$(cat "$TMP/real/heads-before")" != "$(sed -n 1p "$TMP/real/heads-after")" ] && echo 1)"
expect_line "/metrics: one park of sda" '^hwsight_disk_parks_total\{disk="sda"\} 1$' "$metrics"
expect_line "/metrics: the seconds it held, more than none" \
	'^hwsight_disk_park_seconds_total\{disk="sda"\} ([1-9]|0\.0*[1-9])' "$metrics"
expect_line "/metrics: sda no longer parked" '^hwsight_disk_parked\{disk="sda"\} 0$' "$metrics"
expect_line "/metrics: the sensor, read through sysfs" \
	'^hwsight_motion_sensor_info\{driver="ams",method="sysfs"\} 1$' "$metrics"
expect_line "/metrics: the configured sensitivity" '^hwsight_motion_threshold_base 15$' "$metrics"
expect_line "/metrics: the detector's threshold" '^hwsight_motion_threshold [0-9]' "$metrics"
expect_line "/metrics: the last score" '^hwsight_motion_score [0-9]' "$metrics"
expect_line "/metrics: the last sample's z, about 1 g" '^hwsight_motion_acceleration_g\{axis="z"\} (0\.9|1\.0)' "$metrics"
expect_line "/metrics: samples taken" '^hwsight_motion_samples_total [1-9][0-9]*$' "$metrics"
expect_line "/metrics: not a dry run" '^hwsight_motion_dry_run 0$' "$metrics"
expect_line "/metrics: one motion event" '^hwsight_motion_events_total 1$' "$metrics"
if command -v promtool >/dev/null 2>&1; then
	expect_eq "promtool check metrics finds nothing to say" "" "$(promtool check metrics <"$TMP/real/metrics.page" 2>&1)"
else
	not_ok "promtool is not installed (scripts/install-deps installs prometheus)"
fi
api=$TMP/real/api-v1-motion.page
expect_eq "/api/v1/motion: the sensor, sda's one park, the last park's reason" \
	'{"driver":"ams","method":"sysfs"} sda 1 true "sudden motion" false' \
	"$(jq -c '.motion.sensor' "$api") $(jq -r '.motion.disks[0] | "\(.name) \(.parks) \(.park_seconds > 0)"' "$api") $(jq -c '.motion.last_park.why, .motion.last_park.ongoing' "$api" | paste -sd ' ')"
expect_line "/api/v1/motion: when, as ISO 8601" '^"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"$' \
	"$(jq '.motion.last_park.time' "$api")"
page=$(tr -d '\n' <"$TMP/real/.page")
expect_line "the status page has a disk protection section: sensor, state" \
	'<h2>Disk protection</h2><p>ams motion sensor, read through sysfs &middot; sensitivity 15 &middot; <span class=ok>watching</span></p>' "$page"
expect_line "... sda, watching, parked once" '<tr><td>sda</td><td class=ok>watching</td><td class=n>1</td><td class=n>[0-9.]+ s</td></tr>' "$page"
expect_line "... and the last park: when, why, how long" \
	'<p>Last park: [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}, on a sudden motion; the heads stayed parked [0-9.]+ s</p>' "$page"

# --- the bump, dry
mkdir -p "$TMP/dry"
motion_conf "exec = echo \"\$HWSIGHT_EVENT \$HWSIGHT_DISKS dry=\$HWSIGHT_DRY_RUN\" >>$TMP/dry/exec.log" >"$TMP/dry/conf"
replay dry --dry-run
log=$(cat "$TMP/dry/log")
metrics=$(cat "$TMP/dry/metrics.page")
expect_line "--dry-run: it says so when it starts" \
	'^<6>watching the motion sensor every 20 ms to protect sda \(dry run: no heads are parked\)$' "$log"
expect_line "--dry-run: the bump is reported, the park only said" \
	'^<5>sudden motion: would park the heads of sda \(dry run\)$' "$log"
expect_line "--dry-run: ... and the release" '^<5>motion over: would release the heads of sda \(dry run\)$' "$log"
expect_no_line "--dry-run: nothing is parked" 'parking the heads|releasing the heads|cannot park' "$log"
expect_eq "--dry-run: unload_heads never written" "$(cat "$TMP/dry/heads-before") 0" \
	"$(paste -sd ' ' "$TMP/dry/heads-after")"
expect_eq "--dry-run: exec= gets the events, marked dry" "$(printf 'motion sda dry=1\nmotion-end sda dry=1')" \
	"$(cat "$TMP/dry/exec.log" 2>/dev/null)"
expect_line "--dry-run: /metrics counts the park it would have made" '^hwsight_disk_parks_total\{disk="sda"\} 1$' "$metrics"
expect_line "--dry-run: /metrics says it is a dry run" '^hwsight_motion_dry_run 1$' "$metrics"
expect_eq "--dry-run: /api/v1/motion says so" true "$(jq '.motion.dry_run' "$TMP/dry/api-v1-motion.page")"

# --- fan control, dry: the curve puts temp1 = 39.062 at duty 170, 45 at 216
# (as in test-daemon-fans.sh); pwm1 is found automatic at 102.
{
	daemon_section "fan_state = $TMP/fans.state" "log_level = info"
	printf '\n[fan cpu]\noutput = pc87427-*/pwm1\nsources = pc87427-*/temp1\n'
	printf 'curve = 30:0 30:100 50:255\nhysteresis = 0\nstart_time = 0\ninterval = 200ms\n'
} >"$TMP/fans.conf"
printf 'cpu hwmon-stale-line-from-a-crash\n' >"$TMP/fans.state"
cp "$TMP/fans.state" "$TMP/fans.state.before"
cat >"$TMP/fans.sh" <<'EOF'
chip=$UMOCKDEV_DIR/sys/devices/platform/pc87427.2304
files() { for f in pwm1 pwm1_enable; do echo "$f $(cat "$chip/$f") $(stat -c %y "$chip/$f")"; done; }
said() { grep -q "$1" "$TMP/fans.log"; }
until_said() { for _ in $(seq 100); do said "$1" && return 0; sleep 0.1; done; return 1; }
files >"$TMP/fans.before"
"$HWSIGHTD" -f --dry-run -c "$TMP/fans.conf" 2>"$TMP/fans.log" &
pid=$!
until_said 'to 170 (dry run)'
printf '45000\n' >"$chip/temp1_input"
until_said 'to 216 (dry run)'
kill -TERM "$pid"
wait "$pid"
files >"$TMP/fans.after"
EOF
TMP=$TMP HWSIGHTD=$HWSIGHTD umockdev-run -d "$TESTBEDS/pc87427.umockdev" -- bash "$TMP/fans.sh"
log=$(cat "$TMP/fans.log")
expect_line "fans, --dry-run: the stale state file is left for --restore-fans" \
	"^<5>$TMP/fans.state: dry run: the fan outputs it lists are left as they are" "$log"
expect_line "fans, --dry-run: the output is found, not taken" \
	'^<5>\[fan cpu\]: would take pc87427-isa-0900/pwm1 from mode .* at 102 \(dry run\)$' "$log"
expect_line "fans, --dry-run: the value it would set, at info" \
	'^<6>\[fan cpu\]: would set pc87427-isa-0900/pwm1 to 170 \(dry run\)$' "$log"
expect_line "fans, --dry-run: ... and its change" '^<6>\[fan cpu\]: would set pc87427-isa-0900/pwm1 to 216 \(dry run\)$' "$log"
expect_eq "fans, --dry-run: each change once" 1 "$(grep -c 'to 170 (dry run)' <<<"$log")"
expect_eq "fans, --dry-run: pwm1 and pwm1_enable never written" "$(cat "$TMP/fans.before")" "$(cat "$TMP/fans.after")"
expect_eq "fans, --dry-run: the state file untouched" "$(cat "$TMP/fans.state.before")" "$(cat "$TMP/fans.state" 2>&1)"
expect_no_line "fans, --dry-run: nothing taken, written or given back" '\]: (took|gave) |writing .* failed' "$log"

# --- no rotational disk: the sensor left alone. A testbed with the chip
# (for daemon_start), ams and a solid-state disk sdb that could unload its
# heads (libata offers unload_heads on any ATA disk).
{
	cat "$TESTBEDS/pc87427.umockdev"
	printf '\n'
	sata_disk sdb 1 0
	cat "$TESTBEDS/ams.umockdev"
} >"$TMP/ssd.umockdev"
# idle_run NAME DAEMON-LINE MOTION-LINE: hwsightd on that testbed with
# the lines in [daemon] and [motion]; keeps its log and, a second after it
# polled, its /metrics.
idle_run() {
	{
		daemon_section "$2"
		printf '\n[motion]\nenabled = yes\ninterval = 20ms\n%s\n' "$3"
	} >"$TMP/$1.conf"
	daemon_start "$TMP/ssd.umockdev" "$TMP/$1.conf"
	sleep 1
	curl -s "$URL/metrics" >"$TMP/$1.metrics"
	daemon_cleanup
	cp "$TMP/daemon.log" "$TMP/$1.log"
	UMOCKDEV_PID='' DAEMON_PID=''
}
idle_run auto "" ""
expect_line "only a solid-state disk, disks = auto: idle, and says so" \
	'^<6>motion sensor idle: no rotational disk \(disks = auto\) to protect, and no exec= or snapshot_on_motion acts on motions; sampling starts when a disk appears$' \
	"$(cat "$TMP/auto.log")"
expect_eq "... once" 1 "$(grep -c 'motion sensor idle' "$TMP/auto.log")"
expect_line "... not a single sample in a second (at 20 ms)" '^hwsight_motion_samples_total 0$' "$(cat "$TMP/auto.metrics")"
expect_line "... /metrics says it is not sampling" '^hwsight_motion_sampling 0$' "$(cat "$TMP/auto.metrics")"
expect_no_line "... and shows no disk" '^hwsight_disk_' "$(cat "$TMP/auto.metrics")"
idle_run named "" "disks = sdb"
expect_line "disks = sdb, solid-state: it is told why sdb is not protected" \
	'^<4>sdb: not a rotational disk \(queue/rotational is 0\); it is not protected while that lasts$' "$(cat "$TMP/named.log")"
expect_line "... and samples nothing" '^hwsight_motion_samples_total 0$' "$(cat "$TMP/named.metrics")"
idle_run exec "exec = true" ""
expect_line "with exec= acting on motions, the sensor is sampled all the same" \
	'^<6>watching the motion sensor every 20 ms \(no disks to protect\)$' "$(cat "$TMP/exec.log")"
expect_line "... and its samples counted" '^hwsight_motion_samples_total [1-9][0-9]*$' "$(cat "$TMP/exec.metrics")"
expect_no_line "no sanitizer report" 'Sanitizer|runtime error' \
	"$(cat "$TMP/real/log" "$TMP/dry/log" "$TMP/fans.log" "$TMP"/{auto,named,exec}.log)"

summary
