#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# checks/lib.sh's lab_frozen on the host, without the lab: the fan checks
# read the W83793 through i2c-dev while hwsightd drives it through the
# driver, and a driver access between the check's bank switch and its
# putting the bank back sends the driver's next write to the wrong bank
# (daemon-fans.sh once found pwm1's duty at 0x00 after a stop). The checks
# make those reads under lab_frozen; this checks that nothing the frozen
# program's threads do falls inside the command, whatever the machine's
# load: a program of three threads, each rewriting its counter file every
# 10 ms, and counters that do not move while a command sleeps frozen.
#
#   test-lab-frozen.sh

set -u

. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/checks/lib.sh"

command -v python3 >/dev/null || die "python3 is not installed"
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

python3 -c '
import os, sys, threading, time
d = sys.argv[1]
def count(i):
    n = 0
    while True:
        n += 1
        with open(f"{d}/c{i}.new", "w") as f:
            f.write(str(n))
        os.replace(f"{d}/c{i}.new", f"{d}/c{i}")
        time.sleep(0.01)
for i in range(3):
    threading.Thread(target=count, args=(i,), daemon=True).start()
threading.Event().wait()
' "$tmp" &
pid=$!

counters() { cat "$tmp"/c0 "$tmp"/c1 "$tmp"/c2 2>/dev/null | tr '\n' ' '; }
counting() { [ -e "$tmp/c0" ] && [ -e "$tmp/c1" ] && [ -e "$tmp/c2" ]; }
lab_wait_until 60 counting || die "the counting program did not start"

# What the command sees, frozen: its threads' states and the counters
# across a sleep.
frozen_view() {
	local a b threads=(/proc/"$pid"/task/*)
	a=$(counters)
	sleep 0.3
	b=$(counters)
	echo "${#threads[@]} $(lab_stopped "$pid" && echo stopped || echo running) $([ "$a" = "$b" ] && echo still || echo "moved: $a -> $b")"
}
expect_eq "inside lab_frozen: all four threads stopped, no counter moves" \
	"4 stopped still" "$(lab_frozen "$pid" frozen_view)"
expect_eq "after it the program is no longer stopped" running "$(lab_stopped "$pid" && echo stopped || echo running)"
before=$(counters)
moved() { [ "$(counters)" != "$before" ]; }
check "and the counters move again" lab_wait_until 60 moved

lab_frozen "$pid" sh -c 'exit 7'
expect_eq "the command's status comes back" 7 $?

# Killed: bash says so on stderr when it reaps it.
{ kill -KILL "$pid"; wait "$pid"; } 2>/dev/null
gone=$pid
pid=
lab_frozen "$gone" touch "$tmp/ran" 2>/dev/null
expect_eq "a process that is gone: status 1" 1 $?
expect_eq "and the command does not run" no "$([ -e "$tmp/ran" ] && echo yes || echo no)"

summary
