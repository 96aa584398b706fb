#!/bin/bash
# hwsight fans on the PC87427 and applesmc testbeds: the list (table and
# -j, the same rows), chip selection, and --calibrate's errors and its
# promise to give the output back, on success and on SIGINT. The testbed's
# tachs do not follow the duty (no driver behind the files), so the
# calibration itself finds no stop here; the lab's fan simulator is where
# it is measured.

. "$(dirname "$0")/lib.sh"

PC=$TESTBEDS/pc87427.umockdev
SMC=$TESTBEDS/applesmc.umockdev
DEV=/sys/devices/platform/pc87427.2304

hws "$PC" "$SMC" -- fans
expect_exit "fans lists the outputs" 0
expect_eq "a header and one row per output" 5 "$(printf '%s\n' "$OUT" | wc -l)"
expect_line "the header names the columns" '^CHIP +OUTPUT +DRIVER +MODE +VALUE +RPM$' "$OUT"
expect_line "pc87427 pwm1: automatic, 102 = 40%, fan1 1406 RPM" \
	'^pc87427-isa-0900 +pwm1 +pc87427 +automatic +40% \(102\) +1406$' "$OUT"
expect_line "pc87427 pwm2: manual, full" '^pc87427-isa-0900 +pwm2 +pc87427 +manual +100% \(255\) +2109$' "$OUT"
expect_line "applesmc fan1: automatic, target 2000 RPM" \
	'^applesmc-isa-0300 +fan1 +applesmc +automatic +2000 RPM +2003$' "$OUT"
expect_line "applesmc fan2: manual, target 3000 RPM" '^applesmc-isa-0300 +fan2 +applesmc +manual +3000 RPM +2997$' "$OUT"

hws "$PC" "$SMC" -- fans -j
expect_exit "fans -j" 0
expect_eq "-j has the table's rows" \
	"pc87427-isa-0900 pwm1 pc87427 automatic 102 duty 1406|pc87427-isa-0900 pwm2 pc87427 manual 255 duty 2109|applesmc-isa-0300 fan1 applesmc automatic 2000 RPM 2003|applesmc-isa-0300 fan2 applesmc manual 3000 RPM 2997" \
	"$(json "$OUT" | jq -r '.[] | [.chip, .output, .driver, .mode, .value, .unit, .rpm] | map(tostring) | join(" ")' | paste -sd '|')"

hws "$PC" "$SMC" -- fans 'applesmc-*'
expect_eq "a chip pattern selects its outputs" "fan1 fan2" \
	"$(printf '%s\n' "$OUT" | awk 'NR > 1 { print $2 }' | paste -sd ' ')"
hws "$PC" -- fans 'nope-*'
expect_exit "a pattern matching no chip" 1
expect_line "says so" "no chip matches nope-\\*" "$ERR"

# A malformed duty is N/A, not a crash.
BAD=$(bed_with bad "$PC" 's/^A: pwm1=102\\n$/A: pwm1=x1\\n/')
hws "$BAD" -- fans
expect_exit "a malformed pwm1 is listed" 0
expect_line "as N/A" '^pc87427-isa-0900 +pwm1 +pc87427 +automatic +N/A +1406$' "$OUT"

# --calibrate: the output named wrong, every way.
while IFS=';' read -r arg status ere what; do
	hws "$PC" "$SMC" -- fans --calibrate "$arg" --settle 0
	expect_exit "--calibrate $arg: $what" "$status"
	expect_line "--calibrate $arg says what is wrong" "$ere" "$ERR"
done <<'EOF2'
pwm1;2;takes CHIP/OUTPUT;no chip
pc87427-isa-0900/;2;takes CHIP/OUTPUT;no output
pc87427-isa-zz/pwm1;2;'pc87427-isa-zz' is not a chip name;a bad pattern
nope-*/pwm1;1;no chip matches nope-;no such chip
*-isa-*/pwm1;2;matches 2 chips;two chips
pc87427-*/pwm7;1;has no fan output pwm7; it has pwm1 pwm2;no such output
applesmc-*/fan1;1;driven by a target speed;an RPM output
EOF2
hws "$PC" -- fans --calibrate 'pc87427-*/pwm1' --settle -5
expect_exit "--settle takes milliseconds" 2

# A calibration gives the output back as it was: pwm1 is automatic at 102.
# shellcheck disable=SC2016 # for the testbed's shell
under "$PC" -- bash -c '"$0" fans --calibrate "pc87427-*/pwm1" --settle 0 -j; echo "rc=$?";
	cat '"$DEV"'/pwm1 '"$DEV"'/pwm1_enable' "$HWSIGHT"
expect_line "a calibration that finds no stop succeeds" '^rc=0$' "$OUT"
expect_eq "it reports no stop and no start" "null null 29" \
	"$(printf '%s\n' "$OUT" | head -n 1 | jq -r '[.stop, .start, (.down | length)] | map(tostring) | join(" ")')"
expect_eq "pwm1 and pwm1_enable are given back" "102|2" "$(printf '%s\n' "$OUT" | tail -n 2 | paste -sd '|')"

# SIGINT in the first step's wait: given back, and the exit status says
# the calibration did not finish.
# shellcheck disable=SC2016 # for the testbed's shell
under "$PC" -- bash -c '"$0" fans --calibrate "pc87427-*/pwm1" --settle 5000 & pid=$!; sleep 1;
	echo "held: $(cat '"$DEV"'/pwm1_enable) $(cat '"$DEV"'/pwm1)";
	kill -INT $pid; wait $pid; echo "rc=$?"; cat '"$DEV"'/pwm1 '"$DEV"'/pwm1_enable' "$HWSIGHT"
expect_line "pwm1 was taken and at 255 in the first step" '^held: 1 255$' "$OUT"
expect_line "interrupted, it exits 1" '^rc=1$' "$OUT"
expect_line "and says the output is given back" 'interrupted; the output is given back' "$ERR"
expect_eq "pwm1 and pwm1_enable are as before" "102|2" "$(printf '%s\n' "$OUT" | tail -n 2 | paste -sd '|')"

summary
