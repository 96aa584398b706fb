# shellcheck shell=bash
# Shared helpers for the umockdev shell tests (sourced by test-*.sh).
#
# Each check prints "ok - WHAT" or "not ok - WHAT" followed by "#"-lines
# showing both sides; summary prints the tally and its status is the
# script's exit status. ctest gives HWSIGHT (the CLI) and TESTBEDS (this
# directory); run by hand as
#   HWSIGHT=build/default/tools/hwsight TESTBEDS=tests/umockdev \
#	bash tests/umockdev/test-pc87427.sh

set -u

. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# A missing tool is a failure, never a skip: these tests are the only
# thing that runs hwsight against PC87427 and applesmc sysfs trees.
for tool in umockdev-run sensors jq; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed (scripts/install-deps installs umockdev, lm-sensors and jq)"
done
if [ -z "${HWSIGHT:-}" ] || [ ! -x "$HWSIGHT" ]; then
	die "HWSIGHT must name the hwsight CLI (got '${HWSIGHT:-}'); run through ctest or set it"
fi
if [ -z "${TESTBEDS:-}" ] || [ ! -d "$TESTBEDS" ]; then
	die "TESTBEDS must name tests/umockdev (got '${TESTBEDS:-}')"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hwsight-umockdev.XXXXXX") ||
	die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT

# cleanup_on_exit COMMAND: COMMAND (which removes TMP too) ends the test,
# however it ends: a signal exits through the EXIT trap as well.
cleanup_on_exit() {
	trap "$1" EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# under BED... -- COMMAND...: run COMMAND in a testbed made of the given
# .umockdev files. Sets OUT, ERR (without trailing newlines) and RC.
under() {
	local beds=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		beds+=(-d "$1")
		shift
	done
	[ $# -gt 1 ] || die "under: no command after --"
	shift
	umockdev-run "${beds[@]}" -- "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	# shellcheck disable=SC2034 # for the tests
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# hws BED... -- ARGS...: "hwsight ARGS" under the testbeds.
hws() {
	local beds=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		beds+=("$1")
		shift
	done
	shift
	under "${beds[@]}" -- "$HWSIGHT" "$@"
}

# wait_for TENTHS COMMAND...: runs COMMAND every tenth of a second until it
# succeeds, at most TENTHS times; fails if it never did. The caller checks
# the outcome itself, so that its message says what did not happen.
wait_for() {
	local n=$1
	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# gone PID: the process has exited.
gone() {
	! kill -0 "$1" 2>/dev/null
}

# expect_no_line WHAT ERE TEXT: no line of TEXT matches.
expect_no_line() {
	local hit
	hit=$(printf '%s\n' "$3" | grep -E -- "$2")
	if [ -z "$hit" ]; then
		ok "$1"
	else
		not_ok "$1" "unexpected line(s) matching: $2" "$hit"
	fi
}

# sanitized: no sanitizer report in the last "under"'s stderr.
sanitized() {
	! printf '%s\n' "$ERR" | grep -Eq 'Sanitizer|runtime error:'
}

# expect_exit WHAT WANTED: RC of the last "under" is WANTED, the program
# did not die of a signal, and no sanitizer complained.
expect_exit() {
	if [ "$RC" -eq "$2" ] && sanitized; then
		ok "$1 (exit $RC)"
	else
		not_ok "$1" "exit status: $RC (wanted $2)" "stderr:" "$(printf '%s\n' "$ERR" | head -n 20)"
	fi
}

# expect_fail WHAT: the last "under" failed cleanly, with one of hwsight's
# own exit statuses (1 failure, 2 usage) and no sanitizer report. Anything
# else is a crash: umockdev-run passes a SIGABRT (assert, abort_on_error)
# on as status 6 and other signals as 128 + N.
expect_fail() {
	if { [ "$RC" -eq 1 ] || [ "$RC" -eq 2 ]; } && sanitized; then
		ok "$1 (exit $RC)"
	else
		not_ok "$1" "exit status: $RC (wanted 1 or 2)" "stderr:" "$(printf '%s\n' "$ERR" | head -n 20)"
	fi
}

# json TEXT: TEXT as jq -S prints it; fails (and prints nothing) if TEXT is
# not JSON.
json() {
	printf '%s\n' "$1" | jq -S . 2>/dev/null
}

# feature_line LABEL TEXT: the line of human output for a feature label.
feature_line() {
	printf '%s\n' "$2" | awk -v l="$1:" 'index($0, l) == 1 { print; exit }'
}

# bed_with NAME SRC SED_SCRIPT: a copy of testbed SRC edited by sed, in TMP;
# prints its path.
bed_with() {
	sed -e "$3" "$2" >"$TMP/$1.umockdev" || die "cannot write $TMP/$1.umockdev"
	printf '%s\n' "$TMP/$1.umockdev"
}

# drop_features ERE TEXT: TEXT (-u output) without the features whose
# header line ("pwm1:") matches ERE, nor their subfeature lines.
drop_features() {
	printf '%s\n' "$2" | awk -v re="$1" '/^[^ ]/ { skip = ($0 ~ re) } !skip'
}

# sub_line NAME TEXT: the line of -u output for subfeature NAME.
sub_line() {
	printf '%s\n' "$2" | awk -v l="  $1: " 'index($0, l) == 1 { print; exit }'
}

# human_line WHAT LABEL ERE TEXT: the human-output line of feature LABEL
# matches ERE.
human_line() {
	expect_line "$1" "$3" "$(feature_line "$2" "$4")"
}

# human_no_line WHAT LABEL ERE TEXT: the human-output line of feature LABEL
# does not match ERE.
human_no_line() {
	expect_no_line "$1" "$3" "$(feature_line "$2" "$4")"
}

# The sensors(1) comparisons run once a reader: reader_opts READER sets
# OPTS, the options that choose it ("default": none, as a user runs it).
reader_opts() {
	OPTS=()
	[ "$1" = default ] || OPTS=(--reader "$1")
}

# expect_reader_json READER BED REF: "hwsight sensors -j" with READER
# succeeds on BED and prints what sensors -j printed (REF, through json).
expect_reader_json() {
	hws "$2" -- sensors -j "${OPTS[@]}"
	expect_exit "$1 reader: sensors -j succeeds" 0
	expect_same "$1 reader: -j equals sensors -j" "$3" "$(json "$OUT")"
}

# expect_reader_human READER BED: "hwsight sensors" with READER succeeds on
# BED; the default reader's output is kept in HUMAN, and any other reader's
# must equal it.
expect_reader_human() {
	hws "$2" -- sensors "${OPTS[@]}"
	expect_exit "$1 reader: sensors succeeds" 0
	if [ "$1" = default ]; then
		HUMAN=$OUT
	else
		expect_same "$1 reader: human output equals the default reader's" "$HUMAN" "$OUT"
	fi
}

# expect_isa_header CHIP: the human output (HUMAN) starts with CHIP on an
# ISA adapter, as sensors(1) prints a Super-I/O or SMC chip.
expect_isa_header() {
	expect_eq "human output starts with the chip and its adapter" \
		"$1|Adapter: ISA adapter" "$(printf '%s\n' "$HUMAN" | head -n 2 | paste -sd '|')"
}

# sata_disk NAME PORT [ROTATIONAL]: a SATA disk /sys/block/NAME on ATA
# port PORT (0, 1 ...) in umockdev's format, as libata and sd show it: its
# SCSI device with unload_heads (0), and the block device with its device
# link, removable 0 and, given ROTATIONAL (1 or 0), queue/rotational.
sata_disk() {
	local scsi="/devices/pci0000:00/0000:00:1f.2/ata$(($2 + 1))/host$2/target$2:0:0/$2:0:0:0"
	printf 'P: %s\nE: SUBSYSTEM=scsi\nE: DEVTYPE=scsi_device\nA: unload_heads=0\\n\n\n' "$scsi"
	printf 'P: %s/block/%s\nE: SUBSYSTEM=block\nE: DEVTYPE=disk\nE: DEVNAME=/dev/%s\n' "$scsi" "$1" "$1"
	printf 'L: device=../..\nA: removable=0\\n\n'
	[ $# -lt 3 ] || printf 'A: queue/rotational=%s\\n\n' "$3"
	printf '\n'
}

# daemon_conf INTERVAL: $TMP/hwsightd.conf for a daemon that polls every
# chip every INTERVAL, its state in TMP and its log on stderr at debug.
daemon_conf() {
	cat >"$TMP/hwsightd.conf" <<EOF
[daemon]
state_directory = $TMP/state
log_target = stderr
log_level = debug

[chip *]
poll_interval = $1
EOF
}

# daemon_section [LINE]...: the [daemon] section of a run watched through
# its log: no HTTP (9787 may be another run's, and a port in use stops the
# daemon), 200 ms polls, its state in TMP, the log on stderr at debug;
# then each LINE.
daemon_section() {
	printf '[daemon]\nlisten = off\npoll_interval = 200ms\nstate_directory = %s\n' "$TMP/state"
	printf 'log_target = stderr\nlog_level = debug\n'
	[ $# -eq 0 ] || printf '%s\n' "$@"
}

# daemon_start TESTBED CONF: hwsightd -f under umockdev-run on TESTBED,
# listening on a free port, its log in $TMP/daemon.log; once it serves and
# has polled, sets DAEMON_PID, UMOCKDEV_PID and URL (https:// when CONF
# has a certificate). daemon_cleanup ends
# them, the daemon first so that umockdev-run ends by itself and removes
# its testbed; call it from the test's EXIT trap.
UMOCKDEV_PID='' DAEMON_PID='' URL=''
daemon_start() {
	local port= scheme= serving
	# shellcheck disable=SC2016 # for the wrapper's shell
	umockdev-run -d "$1" -- bash -c 'echo $$ >"$0" && exec "$@"' "$TMP/daemon.pid" \
		"$HWSIGHTD" -f -c "$2" --listen 127.0.0.1:0 2>"$TMP/daemon.log" &
	UMOCKDEV_PID=$!
	for _ in $(seq 150); do
		# The scheme and the port from one read of the line: read apart,
		# the log may gain the line between the two.
		serving=$(grep -m1 -o 'serving HTTPS\{0,1\} on 127\.0\.0\.1:0 (port [0-9]*)' "$TMP/daemon.log")
		scheme=$(echo "$serving" | sed -n 's/^serving \(HTTPS\{0,1\}\) .*/\1/p')
		port=$(echo "$serving" | sed -n 's/.*(port \([0-9]*\))$/\1/p')
		[ -n "$port" ] && grep -q '^<7>poll ' "$TMP/daemon.log" && break
		kill -0 "$UMOCKDEV_PID" 2>/dev/null || break
		sleep 0.1
	done
	DAEMON_PID=$(cat "$TMP/daemon.pid" 2>/dev/null)
	if [ -z "$port" ] || [ -z "$DAEMON_PID" ]; then
		die "hwsightd did not start serving: $(tail -n 5 "$TMP/daemon.log")"
	fi
	if [ "$scheme" = HTTPS ]; then URL=https://127.0.0.1:$port; else URL=http://127.0.0.1:$port; fi
}

# daemon_stop: SIGTERM to the daemon daemon_start started; it must exit 0
# within 20 s, and its log hold no sanitizer report (under ASan, a leak is
# reported at this exit).
daemon_stop() {
	kill -TERM "$DAEMON_PID"
	if ! wait_for 200 gone "$UMOCKDEV_PID"; then
		not_ok "SIGTERM: exit within 20 s" "still running; its threads: $(cat /proc/"$DAEMON_PID"/task/*/comm | sort | uniq -c)"
	else
		wait "$UMOCKDEV_PID"
		expect_eq "SIGTERM: exit 0" 0 "$?"
	fi
	DAEMON_PID='' UMOCKDEV_PID=''
	if grep -Eq 'Sanitizer|runtime error' "$TMP/daemon.log"; then
		not_ok "no sanitizer report" "$(grep -E -A 30 -m 1 'Sanitizer|runtime error' "$TMP/daemon.log")"
	else
		ok "no sanitizer report"
	fi
}

daemon_cleanup() {
	[ -n "$UMOCKDEV_PID" ] && [ -z "$DAEMON_PID" ] && DAEMON_PID=$(cat "$TMP/daemon.pid" 2>/dev/null)
	[ -n "$DAEMON_PID" ] && kill -KILL "$DAEMON_PID" 2>/dev/null
	[ -n "$UMOCKDEV_PID" ] && wait_for 50 gone "$UMOCKDEV_PID"
	[ -n "$UMOCKDEV_PID" ] && kill -KILL "$UMOCKDEV_PID" 2>/dev/null
}

# prometheus_start <JOBS: a real Prometheus (Debian's package) scraping
# every second the jobs read from stdin (entries of scrape_configs), its
# config, data and log in TMP. It cannot take port 0: ask the kernel for a
# free port, and try again should another program take it first. Sets
# PROM (its URL) and PROM_PID; the caller's EXIT trap calls prometheus_stop.
PROM='' PROM_PID=''
prometheus_start() {
	local prom_port
	{
		printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n'
		cat
	} >"$TMP/prometheus.yml"
	PROM=
	for _ in 1 2 3; do
		prom_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prometheus" \
			--web.listen-address="127.0.0.1:$prom_port" >"$TMP/prometheus.log" 2>&1 &
		PROM_PID=$!
		for _ in $(seq 100); do
			kill -0 "$PROM_PID" 2>/dev/null || break
			[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$prom_port/-/ready")" = 200 ] &&
				PROM=http://127.0.0.1:$prom_port && return 0
			sleep 0.1
		done
		kill -TERM "$PROM_PID" 2>/dev/null
		wait "$PROM_PID"
		PROM_PID=
	done
	die "prometheus did not start: $(tail -n 5 "$TMP/prometheus.log")"
}

# prometheus_stop: the Prometheus prometheus_start started, if any.
prometheus_stop() {
	[ -n "$PROM_PID" ] || return 0
	kill -TERM "$PROM_PID" 2>/dev/null
	wait_for 50 gone "$PROM_PID" || kill -KILL "$PROM_PID" 2>/dev/null
	wait "$PROM_PID" 2>/dev/null
	PROM_PID=
}

# prom QUERY: the result of an instant query to PROM, as JSON.
prom() { curl -s --max-time 5 -G "$PROM/api/v1/query" --data-urlencode "query=$1"; }

# prom_scrapes JOB N: waits (30 s at most) until Prometheus has scraped JOB
# N times, successful or not; sets SCRAPES to the count it saw last.
SCRAPES=0
prom_scrapes() {
	SCRAPES=0
	for _ in $(seq 300); do
		SCRAPES=$(prom "count_over_time(up{job=\"$1\"}[5m])" | jq -r '.data.result[0].value[1] // 0')
		SCRAPES=${SCRAPES:-0}
		[ "$SCRAPES" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
