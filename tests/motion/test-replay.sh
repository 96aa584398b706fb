#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# motion-replay itself: what a reader of the testbed sees while a trace
# plays must be the trace. "hwsight motion -j" reads the sensor every
# 10 ms (faster than any trace) through the library:
#  - in sysfs mode, every value it reads is a sample of the trace, whole
#    (never half of one and half of the next), in the trace's order, and
#    the last one is the trace's last;
#  - with --input, the library reads the input device (ams-input.c's,
#    emulated), and the state it rebuilds from the events and the sysfs
#    value moves as the trace does: the bump's shove shows.
# Plus the refusals: a trace without a label, and a command that never
# says it is ready.
set -u
. "$(dirname "$0")/../tap.sh"

: "${TRACES:=$(dirname "$0")/../traces/motion}"
for v in REPLAY HWSIGHT; do
	[ -x "${!v:-}" ] || die "$v must name the built program (got '${!v:-}'); run through ctest or set it"
done
command -v umockdev-wrapper >/dev/null 2>&1 || die "umockdev-wrapper is not installed (scripts/install-deps)"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hwsight-replay.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
TRACE=$TRACES/ams-bump.trace

# The rows "X Y Z" of the trace, numbered.
grep -v '^#' "$TRACE" | awk '{ print NR, $2, $3, $4 }' >"$TMP/rows"

umockdev-wrapper "$REPLAY" --lead 0.2 --tail 0.3 "$TRACE" -- "$HWSIGHT" motion -j -i 10 >"$TMP/sysfs" 2>&1
expect_eq "sysfs: the replay ends cleanly (hwsight motion ends on SIGTERM)" "# exit: 0" "$(grep '^# exit:' "$TMP/sysfs")"
sed -n 's/.*"raw":\[\(-*[0-9]*\),\(-*[0-9]*\),\(-*[0-9]*\)\].*/\1 \2 \3/p' "$TMP/sysfs" >"$TMP/seen"
# Each value seen is the first row at or after the last one matched that
# holds it: rows may be skipped (none should be at 100 Hz, but that is a
# matter of timing), never gone back to.
verdict=$(awk 'NR == FNR { row[$1] = $2 " " $3 " " $4; n = $1; next }
	{
		v = $1 " " $2 " " $3
		for (i = at; i <= n && row[i] != v; i++) ;
		if (i > n) { print "not in the trace after row " at ": " v; exit }
		at = i; seen++
	}
	END { if (at != n) print "stopped at row " at " of " n; else if (seen) print "ok" }' "$TMP/rows" "$TMP/seen")
expect_eq "sysfs: every value read is the trace's, in order, up to its last row" ok "$verdict"
expect_eq "sysfs: it read them all (the lines were not lost)" 1 "$(($(wc -l <"$TMP/seen") > $(wc -l <"$TMP/rows")))"

umockdev-wrapper "$REPLAY" --input --lead 0.2 --tail 0.3 "$TRACE" -- "$HWSIGHT" motion -v -j -i 10 >"$TMP/input" 2>&1
expect_line "input: the library reads the emulated input device" 'reading /dev/input/event5 \(driver offsets 2 -1 50' \
	"$(cat "$TMP/input")"
# The shove along x: a step far beyond the fuzz (3) passes unfiltered.
peak=$(sed -n 's/.*"raw":\[\(-*[0-9]*\),.*/\1/p' "$TMP/input" | sort -n | tail -n 1)
expect_eq "input: the shove reaches the reader through the events (x's peak)" \
	"$(awk '{ print $2 }' "$TMP/rows" | sort -n | tail -n 1)" "$peak"

grep -v '^# label:' "$TRACE" >"$TMP/nolabel.trace"
umockdev-wrapper "$REPLAY" "$TMP/nolabel.trace" -- true >"$TMP/nolabel" 2>&1
expect_eq "a trace without a label is refused" "1 motion-replay: $TMP/nolabel.trace: the header lacks sensor, label or event" \
	"$? $(cat "$TMP/nolabel")"
umockdev-wrapper "$REPLAY" --ready=never "$TRACE" -- true >"$TMP/never" 2>&1
expect_line "a command that ends before it is ready fails the replay" "^motion-replay: true ended before saying 'never'$" \
	"$(cat "$TMP/never")"
summary
