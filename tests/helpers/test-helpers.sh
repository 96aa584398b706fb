#!/bin/bash
# The daemon's tests believe what fake-logind and dgram-listen tell them, so
# these check the two helpers against the real clients of the real
# protocols: systemd-notify and libsystemd's sd_journal_sendv() (through
# journal-send) and logger --journald for dgram-listen; busctl,
# systemd-inhibit and dbus-monitor on a private dbus-daemon for fake-logind.
#
#   test-helpers.sh dgram-listen DGRAM_LISTEN JOURNAL_SEND
#   test-helpers.sh fake-logind FAKE_LOGIND
#
# libsystemd always sends journal entries to /run/systemd/journal/socket,
# so the dgram-listen case runs in a private mount namespace with a tmpfs
# on /run/systemd; nothing outside it is touched.
#
# Each check prints "ok - WHAT" or "not ok - WHAT" with both sides; the exit
# status says whether all passed.

set -u

. "$(dirname "$0")/../tap.sh"

usage() {
	die "usage: $0 dgram-listen DGRAM_LISTEN JOURNAL_SEND | fake-logind FAKE_LOGIND"
}

[ $# -ge 2 ] || usage
CASE=$1
shift

# A missing tool is a failure, never a skip.
need() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"
	done
}

if [ "$CASE" = dgram-listen ] && [ -z "${HWS_HELPERS_IN_NS:-}" ]; then
	need unshare mount
	export HWS_HELPERS_IN_NS=1
	if [ "$(id -u)" = 0 ]; then
		ns=(unshare --mount --propagation private)
	else
		ns=(unshare --map-root-user --mount --propagation private)
	fi
	"${ns[@]}" true ||
		die "cannot create a mount namespace with ${ns[*]} (needed to give libsystemd a journal socket)"
	exec "${ns[@]}" -- bash "$0" "$CASE" "$@"
fi

PIDS=()

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hwsight-helpers.XXXXXX") ||
	die "cannot create a temporary directory"
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# wait_for FILE ERE [SECONDS]: until a line of FILE matches.
wait_for() {
	local file=$1 re=$2 tries=$((${3:-20} * 20))
	while [ "$tries" -gt 0 ]; do
		grep -qE -- "$re" "$file" 2>/dev/null && return 0
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

# ---------------------------------------------------------------------------
# dgram-listen

# records FILE: how many records (each ends with an empty line) are complete.
records() {
	grep -c '^$' "$1"
}

# record FILE N: the Nth record's lines, "ready" left out.
record() {
	tail -n +2 "$1" | awk -v n="$2" 'BEGIN { RS = "" } NR == n { print; exit }'
}

# wait_records FILE N: until N records are complete.
wait_records() {
	local tries=400
	while [ "$tries" -gt 0 ]; do
		[ "$(records "$1")" -ge "$2" ] && return 0
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

# listen PATH OUT: start dgram-listen, wait for "ready"; sets LISTENER.
listen() {
	"$DGRAM_LISTEN" "$1" >"$2" 2>"$2.err" &
	LISTENER=$!
	PIDS+=("$LISTENER")
	wait_for "$2" '^ready$' || die "dgram-listen $1 never said ready: $(cat "$2.err")"
}

# stop PID SIGNAL: signal a listener; its exit status in STATUS.
stop() {
	kill -s "$2" "$1"
	wait "$1"
	STATUS=$?
}

test_dgram_listen() {
	[ $# -eq 2 ] || usage
	DGRAM_LISTEN=$1
	local send=$2 out st
	need systemd-notify logger timeout
	[ -x "$DGRAM_LISTEN" ] || die "not executable: $DGRAM_LISTEN"
	[ -x "$send" ] || die "not executable: $send"

	# sd_notify: systemd-notify ends each message with a barrier, an fd
	# it waits (5 s) to see closed, so its success says the fds went.
	out=$TMP/notify.out
	listen "$TMP/notify" "$out"
	check "dgram-listen binds a socket at PATH" test -S "$TMP/notify"
	NOTIFY_SOCKET=$TMP/notify timeout 10 systemd-notify --ready --status="warming up"
	st=$?
	expect_eq "systemd-notify gets its barrier fd closed" 0 "$st"
	NOTIFY_SOCKET=$TMP/notify timeout 10 systemd-notify --pid=$$ WATCHDOG=1 'X=a=b'
	wait_records "$out" 4
	expect_eq "sd_notify fields, one per line" \
		"$(printf 'READY=1\nSTATUS=warming up')" "$(record "$out" 1)"
	expect_eq "the barrier is a record of its own" "BARRIER=1" "$(record "$out" 2)"
	expect_eq "a second message is the next record, '=' in a value kept" \
		"$(printf 'MAINPID=%s\nWATCHDOG=1\nX=a=b' $$)" "$(record "$out" 3)"
	stop "$LISTENER" TERM
	expect_eq "SIGTERM: exit status 0" 0 "$STATUS"
	check "SIGTERM: PATH removed" test ! -e "$TMP/notify"

	# journald's native protocol, from libsystemd itself.
	mount -t tmpfs -o mode=0755 hwsight-helpers /run/systemd 2>"$TMP/mount.err" ||
		mount -t tmpfs -o mode=0755 hwsight-helpers /run 2>>"$TMP/mount.err" ||
		die "cannot mount a tmpfs for /run/systemd/journal: $(cat "$TMP/mount.err")"
	mkdir -p /run/systemd/journal
	out=$TMP/journal.out
	listen /run/systemd/journal/socket "$out"
	"$send" MESSAGE=hello PRIORITY=6 "MULTI=one
two\\three" EMPTY=
	expect_eq "journal-send succeeds" 0 $?
	wait_records "$out" 1
	expect_eq "journal fields; a value with newlines (the binary form) escaped" \
		'MESSAGE=hello
PRIORITY=6
MULTI=one\ntwo\\three
EMPTY=
SYSLOG_IDENTIFIER=journal-send' "$(record "$out" 1)"
	printf 'MESSAGE=from logger\nSYSLOG_IDENTIFIER=lg\n' | logger --journald
	wait_records "$out" 2
	expect_eq "logger --journald's entry" \
		"$(printf 'MESSAGE=from logger\nSYSLOG_IDENTIFIER=lg')" "$(record "$out" 2)"

	# 2 MB still fits one datagram; 25 MB does not even fit libsystemd's
	# 8 MB (doubled by the kernel) send buffer, so it comes as a memfd.
	head -c 2000000 /dev/zero | tr '\0' y >"$TMP/mid"
	head -c 25000000 /dev/zero | tr '\0' x >"$TMP/big"
	"$send" "MID<$TMP/mid" MESSAGE=mid
	"$send" "BIG<$TMP/big" MESSAGE=big
	wait_records "$out" 4
	expect_eq "a 2 MB datagram whole" "MID=2000000:y MESSAGE=mid" \
		"$(record "$out" 3 | awk -F= '$1 == "MID" { v = $2; gsub(/y/, "", v); printf "MID=%d:y%s ", length($2), v } $1 == "MESSAGE"{ print }')"
	expect_eq "a 25 MB message passed as a memfd, whole" "BIG=25000000:x MESSAGE=big" \
		"$(record "$out" 4 | awk -F= '$1 == "BIG" { v = $2; gsub(/x/, "", v); printf "BIG=%d:x%s ", length($2), v } $1 == "MESSAGE"{ print }')"
	check "nothing on stderr" test ! -s "$out.err"

	# A socket left by a killed listener is replaced; SIGINT stops it too.
	kill -KILL "$LISTENER"
	wait "$LISTENER" 2>/dev/null
	check "SIGKILL leaves the socket behind" test -S /run/systemd/journal/socket
	out=$TMP/again.out
	listen /run/systemd/journal/socket "$out"
	"$send" MESSAGE=again
	wait_records "$out" 1
	expect_eq "a stale socket is replaced" \
		"$(printf 'MESSAGE=again\nSYSLOG_IDENTIFIER=journal-send')" "$(record "$out" 1)"
	stop "$LISTENER" INT
	expect_eq "SIGINT: exit status 0" 0 "$STATUS"
	check "SIGINT: PATH removed" test ! -e /run/systemd/journal/socket

	# Anything but a socket at PATH is left alone.
	echo precious >"$TMP/file"
	timeout 10 "$DGRAM_LISTEN" "$TMP/file" >"$TMP/file.out" 2>"$TMP/file.err"
	st=$?
	check "a regular file at PATH: non-zero exit (got $st)" test "$st" -ne 0 -a "$st" -ne 124
	expect_eq "a regular file at PATH is kept" precious "$(cat "$TMP/file")"
	check "a regular file at PATH: says why on stderr" grep -q 'not a socket' "$TMP/file.err"
}

# ---------------------------------------------------------------------------
# fake-logind

# logind_says ERE: until a line of fake-logind's output matches.
logind_says() {
	wait_for "$LOGIND_OUT" "$1" || {
		not_ok "fake-logind says /$1/" "its output:" "$(cat "$LOGIND_OUT")" \
			"its stderr:" "$(cat "$LOGIND_OUT.err")"
		return 1
	}
	ok "fake-logind says /$1/"
}

# signals: the PrepareForSleep arguments dbus-monitor has seen, in order.
signals() {
	awk '/member=PrepareForSleep$/ { getline; printf "%s%s", sep, $2; sep = " " }' "$TMP/monitor"
}

wait_signals() {
	local tries=400
	while [ "$tries" -gt 0 ]; do
		[ "$(signals)" = "$1" ] && return 0
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

# login1 VERB MEMBER [ARGS...]: busctl VERB on fake-logind's Manager.
login1() {
	local verb=$1
	shift
	busctl --address="$ADDRESS" "$verb" org.freedesktop.login1 /org/freedesktop/login1 \
		org.freedesktop.login1.Manager "$@"
}

# holder MODE WHAT WHO: systemd-inhibit holding a lock; sets HOLDER. Its
# lock is released when it is killed (its child goes with it).
holder() {
	DBUS_SYSTEM_BUS_ADDRESS=$ADDRESS systemd-inhibit --mode="$1" --what="$2" --who="$3" \
		--why="keeps it" sleep 120 &
	HOLDER=$!
	PIDS+=("$HOLDER")
}

test_fake_logind() {
	[ $# -eq 1 ] || usage
	local logind=$1 out st t
	need dbus-daemon busctl dbus-monitor dbus-send systemd-inhibit timeout
	[ -x "$logind" ] || die "not executable: $logind"

	dbus-daemon --session --nofork --print-address --address="unix:path=$TMP/bus" \
		>"$TMP/address" 2>"$TMP/dbus.err" &
	PIDS+=($!)
	wait_for "$TMP/address" '^unix:' || die "dbus-daemon did not start: $(cat "$TMP/dbus.err")"
	ADDRESS=$(head -n 1 "$TMP/address")

	mkfifo "$TMP/ctl"
	LOGIND_OUT=$TMP/logind.out
	DBUS_SYSTEM_BUS_ADDRESS=$ADDRESS "$logind" --inhibit-delay-max=2 \
		<"$TMP/ctl" >"$LOGIND_OUT" 2>"$LOGIND_OUT.err" &
	local pid=$!
	PIDS+=("$pid")
	exec 7>"$TMP/ctl"
	logind_says '^ready$' || die "fake-logind did not start"

	dbus-monitor --address "$ADDRESS" \
		"type='signal',interface='org.freedesktop.login1.Manager'" \
		"type='signal',interface='org.hwsight.Test'" >"$TMP/monitor" 2>&1 &
	PIDS+=($!)
	# Until the monitor sees a signal of ours, it might miss one.
	for t in $(seq 200); do
		dbus-send --address="$ADDRESS" --type=signal /org/hwsight/Test org.hwsight.Test.Probe
		grep -q 'member=Probe$' "$TMP/monitor" && break
		sleep 0.05
	done
	grep -q 'member=Probe$' "$TMP/monitor" || die "dbus-monitor never saw the probe signal"

	# busctl takes a lock and exits, which releases it.
	out=$(login1 call Inhibit ssss sleep test why delay 2>&1)
	check "Inhibit returns a file descriptor (busctl: '$out')" grep -qE '^h [0-9]+$' <<<"$out"
	logind_says '^inhibit sleep test why delay$'
	logind_says '^released sleep test why delay$'

	out=$(login1 call Inhibit ssss sleep test why bogus 2>&1)
	st=$?
	check "a bad mode is refused (busctl: '$out')" test "$st" -ne 0
	check "a bad mode is refused as logind words it" grep -q 'Invalid mode specification bogus' <<<"$out"
	out=$(login1 call Inhibit ssss idle test why delay 2>&1)
	st=$?
	check "a delay lock on idle is refused (busctl: '$out')" test "$st" -ne 0
	check "... as logind words it" grep -q 'Delay inhibitors only supported' <<<"$out"
	expect_eq "InhibitDelayMaxUSec follows --inhibit-delay-max" "t 2000000" \
		"$(login1 get-property InhibitDelayMaxUSec 2>&1)"
	expect_eq "PreparingForSleep is false at rest" "b false" \
		"$(login1 get-property PreparingForSleep 2>&1)"

	DBUS_SYSTEM_BUS_ADDRESS=$ADDRESS timeout 10 "$logind" </dev/null >"$TMP/second.out" 2>"$TMP/second.err"
	st=$?
	check "a second fake-logind on the bus fails (status $st)" test "$st" -ne 0 -a "$st" -ne 124
	check "... and says the name is taken" grep -q 'org.freedesktop.login1' "$TMP/second.err"

	# A delay lock holds the sleep until released; a block lock does not.
	holder delay sleep delayer
	local delayer=$HOLDER
	logind_says '^inhibit sleep delayer keeps it delay$'
	holder block sleep:shutdown blocker
	local blocker=$HOLDER
	logind_says '^inhibit sleep:shutdown blocker keeps it block$'
	printf 'sleep\nresume\n' >&7
	check "PrepareForSleep(true) on the bus" wait_signals "true"
	sleep 0.5
	check "the sleep waits for the delay lock" not grep -q '^slept' "$LOGIND_OUT"
	check "... and so does the queued resume" not grep -q '^resumed' "$LOGIND_OUT"
	expect_eq "PreparingForSleep is true meanwhile" "b true" \
		"$(login1 get-property PreparingForSleep 2>&1)"
	kill "$delayer"
	logind_says '^released sleep delayer keeps it delay$'
	logind_says '^slept locks-released=1 locks-unreleased=0 wait-ms=[0-9]+$'
	t=$(sed -n 's/^slept .* wait-ms=//p' "$LOGIND_OUT" | head -n 1)
	check "the sleep ended when the lock went, before the delay (${t} ms)" test "${t:-9999}" -lt 2000
	logind_says '^resumed$'
	check "PrepareForSleep(false) on the bus, after true" wait_signals "true false"
	expect_eq "slept before resumed" "slept resumed" \
		"$(grep -oE '^(slept|resumed)' "$LOGIND_OUT" | xargs)"

	# A lock never released: the sleep goes ahead after the delay.
	holder delay sleep stubborn
	local stubborn=$HOLDER
	logind_says '^inhibit sleep stubborn keeps it delay$'
	echo sleep >&7
	check "PrepareForSleep(true) again" wait_signals "true false true"
	logind_says '^slept locks-released=0 locks-unreleased=1 wait-ms=[0-9]+$'
	t=$(sed -n 's/^slept .* wait-ms=//p' "$LOGIND_OUT" | sed -n 2p)
	check "an unreleased lock holds the sleep for the delay, 2000 ms (${t} ms)" \
		test "${t:-0}" -ge 1990 -a "${t:-0}" -lt 10000   # ms rounding; a loaded machine is late
	echo resume >&7
	check "PrepareForSleep(false) again" wait_signals "true false true false"
	kill "$stubborn" "$blocker"
	logind_says '^released sleep stubborn keeps it delay$'
	logind_says '^released sleep:shutdown blocker keeps it block$'

	echo quit >&7
	wait "$pid"
	st=$?
	expect_eq "quit: exit status 0" 0 "$st"
	check "nothing on stderr" test ! -s "$LOGIND_OUT.err"

	# Commands from a pipe that ends; end of input is a quit.
	printf 'sleep\nresume\n' | DBUS_SYSTEM_BUS_ADDRESS=$ADDRESS timeout 10 "$logind" \
		>"$TMP/piped.out" 2>&1
	st=$?
	expect_eq "commands from a pipe, then end of input: exit status 0" 0 "$st"
	expect_eq "... with no locks the sleep does not wait" \
		"$(printf 'ready\nslept locks-released=0 locks-unreleased=0 wait-ms=0\nresumed')" \
		"$(cat "$TMP/piped.out")"
	DBUS_SYSTEM_BUS_ADDRESS=$ADDRESS timeout 10 "$logind" </dev/null >"$TMP/null.out" 2>&1
	st=$?
	expect_eq "stdin /dev/null: exit status 0" 0 "$st"
	expect_eq "... after ready" ready "$(cat "$TMP/null.out")"
	echo 'suspend' | DBUS_SYSTEM_BUS_ADDRESS=$ADDRESS timeout 10 "$logind" >"$TMP/bad.out" 2>"$TMP/bad.err"
	st=$?
	check "an unknown command: non-zero exit (status $st)" test "$st" -ne 0 -a "$st" -ne 124
	check "... naming it on stderr" grep -q "unknown command 'suspend'" "$TMP/bad.err"
}

not() {
	! "$@"
}

case $CASE in
dgram-listen) test_dgram_listen "$@" ;;
fake-logind) test_fake_logind "$@" ;;
*) usage ;;
esac
summary
