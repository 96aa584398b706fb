#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# "hwsight motion" as a user runs it, against umockdev testbeds: ams.umockdev
# (drivers/macintosh/ams: "current" is "%d %d %d\n" of s8) and an applesmc
# tree made here (drivers/hwmon/applesmc.c: "position" is "(%d,%d,%d)\n",
# "calibrate" "(%d,%d)\n" with the rest x negated). Checks what is printed,
# the one-line errors and the exit status; then moves the "machine" while
# the tool runs and checks the orientation and the events it reports.
set -u

: "${HWSIGHT:?HWSIGHT must name the hwsight binary}"
[ -x "$HWSIGHT" ] || { echo "FAIL: $HWSIGHT is not built" >&2; exit 1; }
: "${TESTBEDS:=$(dirname "$0")}"
AMS=$TESTBEDS/ams.umockdev
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# run NAME TESTBED ARGS...: runs the tool, keeps stdout, stderr, status.
run() {
	local name=$1 bed=$2
	shift 2
	if [ -n "$bed" ]; then
		umockdev-run -d "$bed" -- "$HWSIGHT" motion "$@" >"$work/$name.out" 2>"$work/$name.err"
	else
		umockdev-run -- "$HWSIGHT" motion "$@" >"$work/$name.out" 2>"$work/$name.err"
	fi
	echo $? >"$work/$name.rc"
}

expect_rc() { [ "$(cat "$work/$1.rc")" = "$2" ] || fail "$1: exit status $(cat "$work/$1.rc"), expected $2"; }
expect_out() { [ "$(cat "$work/$1.out")" = "$2" ] || fail "$1: printed '$(cat "$work/$1.out")', expected '$2'"; }
expect_grep() { grep -q -- "$3" "$work/$1.$2" || fail "$1: $2 lacks '$3': '$(cat "$work/$1.$2")'"; }

# An error is one line on stderr, nothing on stdout, status 1.
expect_error() {
	expect_rc "$1" 1
	[ "$(wc -l <"$work/$1.err")" -eq 1 ] || fail "$1: not one line of error: '$(cat "$work/$1.err")'"
	[ ! -s "$work/$1.out" ] || fail "$1: printed '$(cat "$work/$1.out")' besides the error"
	expect_grep "$1" err "^hwsight motion: $2"
}

# A copy of ams.umockdev with another "current".
ams_with() {
	sed "s|^A: current=.*|A: current=$1|" "$AMS" >"$work/ams-$2.umockdev"
	echo "$work/ams-$2.umockdev"
}

applesmc() {
	printf 'P: /devices/platform/applesmc.768\nE: DRIVER=applesmc\nE: MODALIAS=platform:applesmc\nE: SUBSYSTEM=platform\nA: name=applesmc\\n\nA: position=%s\nA: calibrate=%s\n' \
		"$1" "$2" >"$work/smc-$3.umockdev"
	echo "$work/smc-$3.umockdev"
}

# ---- reading ---------------------------------------------------------------

run once "$AMS" --once
expect_rc once 0
expect_out once "x=   40 y=  -20 z=  980 mg  face-up"

run json "$AMS" --once -j
expect_rc json 0
expect_out json '{"time":0.000,"raw":[2,-1,49],"mg":[40,-20,980],"orientation":"face-up"}'

run count "$AMS" -n 3 -i 10 -j
expect_rc count 0
[ "$(grep -c '"orientation":"face-up"' "$work/count.out")" -eq 3 ] || fail "count: not 3 samples: $(cat "$work/count.out")"

run nonewline "$(ams_with '0 50 0' nonewline)" --once
expect_rc nonewline 0
expect_out nonewline "x=    0 y= 1000 z=    0 mg  normal"

run smc "$(applesmc '(-5,3,251)\n' '(5,3)\n' ok)" --once
expect_rc smc 0
expect_out smc "x=    0 y=    0 z=  980 mg  face-up"

run verbose "$AMS" --once -v
expect_rc verbose 0
expect_grep verbose err "found ams at /sys/devices/platform/ams"

# ---- errors ----------------------------------------------------------------

run none "" --once
expect_error none "no motion sensor found (looked for ams, applesmc and lis3lv02d)$"

run empty "$(ams_with '' empty)" --once
expect_error empty '/sys/devices/platform/ams/current: empty value (expected "X Y Z")'
run abc "$(ams_with 'abc\\n' abc)" --once
expect_error abc '/sys/devices/platform/ams/current: malformed value (expected "X Y Z")'
run extra "$(ams_with '1 2 3 4\\n' extra)" --once
expect_error extra '/sys/devices/platform/ams/current: malformed value'
run huge "$(ams_with '99999999999999999999 0 0\\n' huge)" --once
expect_error huge "/sys/devices/platform/ams/current: value out of the driver's range"
run s8 "$(ams_with '0 0 200\\n' s8)" -n 2
expect_error s8 "/sys/devices/platform/ams/current: value out of the driver's range"
run smcbad "$(applesmc '(1 2 3)\n' '(0,0)\n' bad)" --once
expect_error smcbad '/sys/devices/platform/applesmc.768/position: malformed value (expected "(X,Y,Z)")'
run calbad "$(applesmc '(0,0,256)\n' '(abc)\n' calbad)" --once
expect_error calbad '/sys/devices/platform/applesmc.768/calibrate: malformed value (expected "(X,Y)")'

# Bad options: status 2, one line that says what and where to look.
for args in "-n abc" "-n 0" "-i 0" "-i 99999" "-s 0" "--bogus" "-x" "extra" "--once -n 2" "-i"; do
	name=usage-${args// /_}
	# shellcheck disable=SC2086 # split on purpose
	run "$name" "$AMS" $args
	expect_rc "$name" 2
	[ "$(wc -l <"$work/$name.err")" -eq 1 ] || fail "$name: not one line: '$(cat "$work/$name.err")'"
	expect_grep "$name" err "^hwsight motion: "
done
run help "" --help
expect_rc help 0
expect_grep help out "^Usage: hwsight motion"

# ---- moving the machine while the tool runs ------------------------------

# The script runs inside the testbed: it writes the attribute in
# $UMOCKDEV_DIR, which is what /sys reads there.
cat >"$work/move.sh" <<'EOF'
cur=$UMOCKDEV_DIR/sys/devices/platform/ams/current
set_to() { printf '%s\n' "$1" >"$cur.new" && mv "$cur.new" "$cur"; }
hold() { set_to "$1"; sleep "$2"; }
"$HWSIGHT" motion -i 20 >"$OUT" 2>&1 &
tool=$!
hold "0 0 50" 1
for i in 1 2 3 4 5 6 7 8; do hold "30 0 50" 0.04; hold "-30 0 50" 0.04; done  # shaken
hold "0 0 50" 2
hold "0 0 1" 0.3                                                           # dropped
hold "0 0 50" 2
for y in 10 20 30 40 45 50; do hold "0 $y $((50 - y))" 0.15; done          # stood up
hold "0 50 0" 2
kill "$tool"
wait "$tool" 2>/dev/null
exit 0
EOF
OUT=$work/move.out umockdev-run -d "$AMS" -- bash "$work/move.sh"
grep -q '^ams at /sys/devices/platform/ams, polling sysfs$' "$work/move.out" || fail "move: no header: $(head -3 "$work/move.out")"
events=$(grep -o '^event: [a-z-]*' "$work/move.out" | cut -d' ' -f2 | tr '\n' ' ')
case "$events" in
"sudden-motion motion-stopped sudden-motion free-fall free-fall-end"*) ;;
*) fail "move: events '$events'" ;;
esac
[ "$(grep -c 'motion-stopped' "$work/move.out")" -ge 2 ] || fail "move: motion did not stop after the fall: '$events'"
grep -q ' face-up$' "$work/move.out" || fail "move: never face-up"
tail -n 3 "$work/move.out" | grep -q ' normal$' || fail "move: not standing at the end: $(tail -n 3 "$work/move.out")"

if [ "$failures" -ne 0 ]; then
	echo "$failures failure(s); outputs were in $work" >&2
	exit 1
fi
echo "ok - hwsight motion"
