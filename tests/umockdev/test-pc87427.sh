#!/bin/bash
# hwsight sensors on a National PC87427 Super-I/O, as drivers/hwmon/pc87427.c
# lays it out: a platform device named after its first I/O base
# (pc87427.2304 = FMC at 0x900, so libsensors calls it pc87427-isa-0900),
# "name" and every attribute on that platform device, and a nameless hwmon
# class device (hwmon_device_register) pointing back at it. Fans 1-4 and 7,
# pwm 1-2 and temperatures 1-3 are enabled; fan3 has stalled (fault), fan4
# is below its minimum (alarm), temp2 is over its high limit, temp3's
# thermistor is open (fault). Every value is what the driver's show
# functions print for a plausible register: fanN_input and fanN_min are
# 5400000 / (reg & 0xfffc) (1406 for 0x0f00, 0 for a stalled 0xfffc),
# tempN_input is reg * 1000 / 256 truncated (39062 for 10000), the limits
# are s8 * 1000, tempN_type 3 is a diode and 4 a thermistor, pwmN_enable 2
# is automatic and 1 manual.
#
# lm-sensors' sensors(1), run on the same testbed, is the reference. The only
# differences allowed are the ones hwsight documents: it also shows pwmN and
# pwmN_enable (libsensors 3.6 has no pwm feature) in -u and the human output,
# never in -j.

. "$(dirname "$0")/lib.sh"

BED=$TESTBEDS/pc87427.umockdev
SMC=$TESTBEDS/applesmc.umockdev
CHIP=pc87427-isa-0900

# The reference first: if sensors(1) does not see the tree, agreeing with it
# proves nothing.
under "$BED" -- sensors -j
REF_J=$(json "$OUT")
expect_eq "sensors(1) sees $CHIP with the testbed's values" \
	"1406 600 39.062 -128 4" \
	"$(printf '%s\n' "$REF_J" | jq -r --arg c "$CHIP" \
		'.[$c] | [.fan1.fan1_input, .fan1.fan1_min, .temp1.temp1_input,
		          .temp3.temp3_input, .temp3.temp3_type] | map(tostring) | join(" ")')"
under "$BED" -- sensors -u
REF_U=$OUT
under "$BED" -- sensors -A -j
REF_AJ=$(json "$OUT")

for reader in default fast; do
	reader_opts "$reader"
	expect_reader_json "$reader" "$BED" "$REF_J"

	hws "$BED" -- sensors -A -j "${OPTS[@]}"
	expect_same "$reader reader: -A -j equals sensors -A -j" "$REF_AJ" "$(json "$OUT")"

	hws "$BED" -- sensors -u "${OPTS[@]}"
	expect_exit "$reader reader: sensors -u succeeds" 0
	expect_same "$reader reader: -u equals sensors -u, pwm features aside" \
		"$REF_U" "$(drop_features '^pwm[0-9]+:$' "$OUT")"
	expect_line "$reader reader: -u shows pwm1 (auto mode duty)" '^  pwm1: 102\.000$' "$OUT"
	expect_line "$reader reader: -u shows pwm1_enable = 2 (automatic)" '^  pwm1_enable: 2\.000$' "$OUT"
	expect_line "$reader reader: -u shows pwm2 = 255" '^  pwm2: 255\.000$' "$OUT"
	expect_line "$reader reader: -u shows pwm2_enable = 1 (manual)" '^  pwm2_enable: 1\.000$' "$OUT"

	expect_reader_human "$reader" "$BED"
done

# What a user reads.
expect_isa_header "$CHIP"

# Each row: has or lacks, a feature, an ERE its human line must match or
# must not; "none" with no feature: no line of the output matches.
while IFS=';' read -r want label ere what; do
	case $want in
	has) human_line "$what" "$label" "$ere" "$HUMAN" ;;
	lacks) human_no_line "$what" "$label" "$ere" "$HUMAN" ;;
	none) expect_no_line "$what" "$ere" "$HUMAN" ;;
	*) die "test-pc87427.sh: a row neither has, lacks nor none: $want" ;;
	esac
done <<'EOF'
has;fan1;^fan1: +1406 RPM +\(min = +600 RPM\);fan1 shows 1406 RPM, min 600 RPM
lacks;fan1;ALARM|FAULT;fan1 shows no ALARM or FAULT
has;fan2;^fan2: +2109 RPM +\(min = +1000 RPM\);fan2 shows 2109 RPM, min 1000 RPM
lacks;fan2;ALARM|FAULT;fan2 shows no ALARM or FAULT
has;fan3;FAULT;fan3 (fan3_fault = 1, stalled) shows FAULT
has;fan4;^fan4: +450 RPM +\(min = +600 RPM\);fan4 shows 450 RPM under its min 600 RPM
has;fan4;ALARM;fan4 (fan4_alarm = 1) shows ALARM
lacks;fan4;FAULT;fan4 shows no FAULT
has;fan7;^fan7: +1687 RPM;fan7 shows 1687 RPM
lacks;fan7;ALARM|FAULT;fan7 shows no ALARM or FAULT
none;;^fan[568]:;no line for the fans the driver did not create
has;temp1;^temp1: +\+39\.1°C;temp1 shows +39.1°C
has;temp1;low += +\+5\.0°C.*high += +\+60\.0°C;temp1 shows low +5.0°C and high +60.0°C
has;temp1;crit += +\+85\.0°C;temp1 shows crit +85.0°C
lacks;temp1;ALARM|FAULT;temp1 shows no ALARM or FAULT
has;temp2;^temp2: +\+61\.5°C;temp2 shows +61.5°C
has;temp2;ALARM;temp2 (temp2_max_alarm = 1) shows ALARM
has;temp3;FAULT;temp3 (temp3_fault = 1, open thermistor) shows FAULT
none;;^temp[456]:;no line for the temperatures the driver did not create
has;pwm1;^pwm1: +40% .*automatic;pwm1 shows 40% (102/255) in automatic mode
has;pwm2;^pwm2: +100% .*manual;pwm2 shows 100% in manual mode
EOF

# Choosing chips, with an applesmc in the same machine.
under "$BED" "$SMC" -- sensors -j 'pc87427-*'
REF_SEL=$(json "$OUT")
hws "$BED" "$SMC" -- sensors -j 'pc87427-*'
expect_exit "'pc87427-*' selects a chip" 0
expect_same "-j 'pc87427-*' equals sensors -j 'pc87427-*'" "$REF_SEL" "$(json "$OUT")"
expect_eq "-j 'pc87427-*' lists only $CHIP" "$CHIP" "$(json "$OUT" | jq -r 'keys | join(" ")')"

hws "$BED" "$SMC" -- sensors 'pc87427-*'
expect_line "'pc87427-*' shows $CHIP" "^$CHIP\$" "$OUT"
expect_no_line "'pc87427-*' does not show the applesmc" 'applesmc|Left side|TC0P' "$OUT"

hws "$BED" "$SMC" -- sensors '*-isa-0900'
expect_exit "'*-isa-0900' selects a chip" 0
expect_eq "'*-isa-0900' shows only $CHIP" "$CHIP" "$(printf '%s\n' "$OUT" | grep -E -- '-isa-')"

hws "$BED" "$SMC" -- sensors
expect_eq "no pattern shows both chips" "applesmc-isa-0300 $CHIP" \
	"$(printf '%s\n' "$OUT" | grep -E -- '-isa-' | sort | paste -sd ' ')"

hws "$BED" "$SMC" -- sensors 'nope-*'
expect_exit "'nope-*' matches no chip" 1
expect_eq "'nope-*' prints nothing on stdout" "" "$OUT"
expect_line "'nope-*' says no chip matches it" "no chip matches nope-\\*" "$ERR"

hws "$BED" "$SMC" -- sensors 'pc87427-isa-zz'
expect_fail "a pattern that is no chip name fails"
expect_line "and says which pattern is wrong" "'pc87427-isa-zz' is not a chip name" "$ERR"

summary
