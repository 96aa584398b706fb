#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsightd's history on the disk, polling the PC87427 testbed every
# second: polls wait in memory and are written in bursts ([history]
# flush_interval), a reload (SIGHUP), the freeze before a sleep (logind's
# PrepareForSleep, from tests/helpers' fake-logind) and a clean stop write
# all of them, flush_interval = 0 writes each poll, and a bad value is
# refused with its FILE:LINE. What is on the disk is read with rrdtool
# itself.
. "$(dirname "$0")/lib.sh"

if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
if [ -z "${FAKE_LOGIND:-}" ] || [ ! -x "$FAKE_LOGIND" ]; then
	die "FAKE_LOGIND must name tests/helpers' fake-logind (got '${FAKE_LOGIND:-}')"
fi
command -v rrdtool >/dev/null || die "rrdtool is not installed (scripts/install-deps installs it)"
bus_pid=
trap 'daemon_cleanup; [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null; rm -rf "$TMP"' EXIT
rrd=$TMP/state/history/pc87427-isa-0900.rrd

# polls: how many polls of the chip the daemon has logged.
polls() { grep -c '^<7>poll pc87427' "$TMP/daemon.log"; }
# polled_past N: the daemon has logged more than N polls.
polled_past() { [ "$(polls)" -gt "$1" ]; }
# last_update: the time of the file's last update, or 0.
last_update() {
	local t
	t=$(rrdtool last "$rrd" 2>/dev/null)
	[[ $t =~ ^[0-9]+$ ]] && echo "$t" || echo 0
}
# updated_since T: the file holds an update at T or later.
updated_since() { [ "$(last_update)" -ge "$1" ]; }
# wait_polls N: wait for N more polls; fails if they never come.
wait_polls() {
	local n
	n=$(polls)
	wait_for 100 polled_past $((n + $1 - 1))
}
conf() {
	{
		daemon_section
		printf '[chip pc87427-*]\npoll_interval = 1s\n[history]\nflush_interval = %s\n' "$1"
	} >"$TMP/hwsightd.conf"
}

# --- bursts an hour apart: nothing written until the reload, which writes
# every poll; nothing between; the stop writes the rest.
conf 1h
daemon_start "$TESTBEDS/pc87427.umockdev" "$TMP/hwsightd.conf"
wait_polls 4
expect_eq "polls wait in memory: no file after 4 polls" no "$([ -e "$rrd" ] && echo yes || echo no)"
seen=$(date +%s)
kill -HUP "$DAEMON_PID"
wait_for 100 updated_since $((seen - 1))
expect_line "SIGHUP writes the polls made before it" "^<6>history: $rrd: new file" "$(cat "$TMP/daemon.log")"
after_hup=$(last_update)
expect_eq "... up to the last one" yes "$([ "$after_hup" -ge $((seen - 1)) ] && echo yes || echo no)"
rows=$(rrdtool fetch "$rrd" AVERAGE --start $((after_hup - 60)) --end "$after_hup" -r 1 |
	awk '/^[0-9]+:/ && $2 !~ /nan/' | wc -l)
expect_eq "... every one of them, not only the last" yes "$([ "$rows" -ge 4 ] && echo yes || echo no)"
stamp=$(stat -c %Y.%y "$rrd")
wait_polls 3
expect_eq "no write between bursts: the file is as the reload left it" "$stamp" "$(stat -c %Y.%y "$rrd")"
wait_polls 1
seen=$(date +%s)
kill -TERM "$DAEMON_PID"
wait_for 100 gone "$DAEMON_PID"
wait "$UMOCKDEV_PID"
rc=$?
UMOCKDEV_PID='' DAEMON_PID=''
expect_eq "SIGTERM: exit 0" 0 "$rc"
expect_eq "a clean stop writes every poll: the last is on the disk" yes \
	"$([ "$(last_update)" -ge $((seen - 1)) ] && [ "$(last_update)" -gt $((after_hup + 2)) ] && echo yes || echo no)"
expect_no_line "no sanitizer report" 'Sanitizer|runtime error' "$(cat "$TMP/daemon.log")"

# --- flush_interval = 0: each poll is on the disk as it is made.
rm -rf "$TMP/state"
conf 0
daemon_start "$TESTBEDS/pc87427.umockdev" "$TMP/hwsightd.conf"
for i in 1 2 3; do
	wait_polls 1
	seen=$(date +%s)
	wait_for 100 updated_since $((seen - 1))
	expect_eq "flush_interval = 0: poll $i written without a reload or a stop" yes \
		"$(updated_since $((seen - 1)) && echo yes || echo no)"
done
kill -TERM "$DAEMON_PID"
wait_for 100 gone "$DAEMON_PID"
wait "$UMOCKDEV_PID"
UMOCKDEV_PID='' DAEMON_PID=''
expect_no_line "no sanitizer report (flush_interval = 0)" 'Sanitizer|runtime error' "$(cat "$TMP/daemon.log")"

# --- the freeze before a sleep writes every poll: a sleep may never end.
rm -rf "$TMP/state"
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1 | head -n 2)
bus_pid=$(sed -n 2p <<<"$bus")
mkfifo "$TMP/logind.in"
DBUS_SYSTEM_BUS_ADDRESS=$(head -n 1 <<<"$bus") "$FAKE_LOGIND" <"$TMP/logind.in" >"$TMP/logind.log" &
exec 7>"$TMP/logind.in"
logind_said() { grep -q "$1" "$TMP/logind.log"; }
wait_for 50 logind_said '^ready'
conf 1h
DBUS_SYSTEM_BUS_ADDRESS=$(head -n 1 <<<"$bus") daemon_start "$TESTBEDS/pc87427.umockdev" "$TMP/hwsightd.conf"
wait_for 50 logind_said '^inhibit sleep'
wait_polls 3
expect_eq "before the sleep, the polls are in memory only" no "$([ -e "$rrd" ] && echo yes || echo no)"
seen=$(date +%s)
echo sleep >&7
wait_for 100 logind_said '^slept'
expect_eq "the freeze wrote every poll before the sleep" yes \
	"$(updated_since $((seen - 1)) && echo yes || echo no)"
expect_line "... and let the sleep go on" '^slept locks-released=1 ' "$(cat "$TMP/logind.log")"
echo resume >&7
exec 7>&-
kill -TERM "$DAEMON_PID"
wait_for 100 gone "$DAEMON_PID"
wait "$UMOCKDEV_PID"
UMOCKDEV_PID='' DAEMON_PID=''
kill "$bus_pid" 2>/dev/null
bus_pid=
expect_no_line "no sanitizer report (sleep)" 'Sanitizer|runtime error' "$(cat "$TMP/daemon.log")"

# --- a bad value: refused with where it is.
conf soon
under "$TESTBEDS/pc87427.umockdev" -- "$HWSIGHTD" -t -c "$TMP/hwsightd.conf"
expect_fail "flush_interval = soon is refused"
expect_line "... with FILE:LINE" \
	"^(<3>)?$TMP/hwsightd.conf:10: flush_interval: \"soon\" is not a duration \\(300, 5min, 1h\\) or 0$" "$ERR"
conf 1.5s
under "$TESTBEDS/pc87427.umockdev" -- "$HWSIGHTD" -t -c "$TMP/hwsightd.conf"
expect_fail "flush_interval of a fraction of a second is refused"

summary
