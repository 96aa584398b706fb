#!/bin/bash
# hwsight sensors on PC87427 and applesmc trees whose files say what no
# driver prints: an empty file, "abc", a number no attribute can hold,
# "12abc", and a value without its newline (which is fine: it must read as
# the number). A bad value is that value's problem alone: hwsight must not
# crash, must show it as N/A (-u, human) or null (-j), must show every other
# value exactly as on the intact tree, must exit 0 while anything was
# readable, and must say so and fail when nothing was. Both readers must
# agree, down to the reason they give.
#
# sensors(1) is the reference only for what is intact: it has no null (-j
# leaves an unreadable value out), and libsensors reads values with
# fscanf("%lf"), which takes "12abc" as 12 and the huge number as 1e23.

. "$(dirname "$0")/lib.sh"

PC=$TESTBEDS/pc87427.umockdev
SMC=$TESTBEDS/applesmc.umockdev
PC_CHIP=pc87427-isa-0900
SMC_CHIP=applesmc-isa-0300
PC_DEV=/sys/devices/platform/pc87427.2304
HUGE=99999999999999999999999
declare -A HUMAN # reader -> the human output of the last check_bad

# without CHIP "SUB...": the -j output on stdin without these subfeatures.
without() {
	jq -S --arg c "$1" --arg subs "$2" '($subs | split(" ")) as $drop
		| .[$c] |= map_values(if type == "object"
			then with_entries(select(.key as $k | $drop | index([$k]) | not))
			else . end)'
}

# check_bad NAME BED CHIP BAD EXTRA GOOD INTACT: in testbed BED, the
# subfeatures in BAD (libsensors knows them) and EXTRA (hwsight's own, not
# in -j) must be unreadable, those in GOOD ("name=value", files edited but
# fine) must read as value, and everything else must read as sensors(1)
# reads testbed INTACT.
check_bad() {
	local name=$1 bed=$2 chip=$3 bad=$4 extra=$5 good=$6 intact=$7
	local reader opts sub kv ref u_default=''

	under "$intact" -- sensors -j
	ref=$(json "$OUT" | without "$chip" "$bad")

	for reader in default fast; do
		opts=()
		[ "$reader" = default ] || opts=(--reader "$reader")

		hws "$bed" -- sensors -u "${opts[@]}"
		expect_exit "$name, $reader reader: -u does not fail over a bad value" 0
		for sub in $bad $extra; do
			expect_line "$name, $reader reader: -u shows $sub as N/A" "^  $sub: N/A" \
				"$(sub_line "$sub" "$OUT")"
		done
		for kv in $good; do
			expect_line "$name, $reader reader: -u reads ${kv%%=*} = ${kv#*=}" \
				"^  ${kv%%=*}: ${kv#*=}\$" "$(sub_line "${kv%%=*}" "$OUT")"
		done
		if [ "$reader" = default ]; then
			u_default=$OUT
		else
			expect_same "$name: both readers show the same -u, reasons included" "$u_default" "$OUT"
		fi

		hws "$bed" -- sensors -j "${opts[@]}"
		expect_exit "$name, $reader reader: -j does not fail over a bad value" 0
		if [ -z "$(json "$OUT")" ]; then
			not_ok "$name, $reader reader: -j is JSON" "$OUT"
			continue
		fi
		ok "$name, $reader reader: -j is JSON"
		for sub in $bad; do
			expect_eq "$name, $reader reader: -j has $sub = null" "[null]" \
				"$(json "$OUT" | jq -c --arg c "$chip" --arg s "$sub" \
					'[.[$c][] | objects | to_entries[] | select(.key == $s) | .value]')"
		done
		expect_same "$name, $reader reader: -j equals sensors -j on the intact tree, bad values aside" \
			"$ref" "$(json "$OUT" | without "$chip" "$bad")"

		hws "$bed" -- sensors "${opts[@]}"
		expect_exit "$name, $reader reader: the human output does not fail over a bad value" 0
		HUMAN[$reader]=$OUT
	done
}

# One of each in the PC87427: inputs, a limit, and pwm1, which hwsight reads
# itself whatever the reader.
bed=$(bed_with pc87427-bad "$PC" "
	s/^A: fan1_input=.*/A: fan1_input=/
	s/^A: fan2_input=.*/A: fan2_input=abc\\\\n/
	s/^A: fan7_input=.*/A: fan7_input=$HUGE\\\\n/
	s/^A: temp1_input=.*/A: temp1_input=12abc\\\\n/
	s/^A: temp1_max=.*/A: temp1_max=abc\\\\n/
	s/^A: pwm1=.*/A: pwm1=/
	s/^A: temp2_input=.*/A: temp2_input=61500/
	s/^A: fan4_min=.*/A: fan4_min=600/
")
under "$bed" -- cat $PC_DEV/fan1_input $PC_DEV/fan2_input $PC_DEV/temp2_input
expect_eq "the edited PC87427 tree holds the bad values" "abc
61500" "$OUT"
check_bad "PC87427" "$bed" "$PC_CHIP" \
	"fan1_input fan2_input fan7_input temp1_input temp1_max" "pwm1" \
	"temp2_input=61.500 fan4_min=600.000" "$PC"
for reader in default fast; do
	h=${HUMAN[$reader]}
	human_line "PC87427, $reader reader: fan1 (empty file) shows N/A" fan1 '^fan1: +N/A' "$h"
	human_line "PC87427, $reader reader: fan2 (\"abc\") shows N/A" fan2 '^fan2: +N/A' "$h"
	human_line "PC87427, $reader reader: fan7 ($HUGE) shows N/A" fan7 '^fan7: +N/A' "$h"
	human_line "PC87427, $reader reader: temp1 (\"12abc\") shows N/A" temp1 '^temp1: +N/A' "$h"
	human_line "PC87427, $reader reader: temp2 (no newline) shows +61.5°C" \
		temp2 '^temp2: +\+61\.5°C' "$h"
	human_line "PC87427, $reader reader: fan4 still shows 450 RPM and ALARM" \
		fan4 '^fan4: +450 RPM.*ALARM' "$h"
	human_line "PC87427, $reader reader: fan3 still shows FAULT" fan3 '^fan3: .*FAULT' "$h"
done

# The applesmc: a label, limits and the files libsensors does not know.
bed=$(bed_with applesmc-bad "$SMC" "
	s/^A: fan1_min=.*/A: fan1_min=abc\\\\n/
	s/^A: fan2_safe=.*/A: fan2_safe=12abc\\\\n/
	s/^A: fan1_manual=.*/A: fan1_manual=$HUGE\\\\n/
	s/^A: temp5_input=.*/A: temp5_input=/
	s/^A: temp12_input=.*/A: temp12_input=33750/
	s/^A: temp3_label=.*/A: temp3_label=/
")
# An empty label file is no label: the channel keeps its sysfs name, as in
# sensors(1) (the intact tree's TB2T is then temp3 in the reference too).
intact=$(bed_with applesmc-nolabel "$SMC" 's/^A: temp3_label=.*/A: temp3_label=/')
check_bad "applesmc" "$bed" "$SMC_CHIP" \
	"fan1_min temp5_input" "fan2_safe fan1_manual" \
	"temp12_input=33.750 fan1_input=2003.000" "$intact"
for reader in default fast; do
	h=${HUMAN[$reader]}
	human_line "applesmc, $reader reader: fan1 still shows 2003 RPM" \
		'Left side  ' '^Left side  : +2003 RPM' "$h"
	human_line "applesmc, $reader reader: TC0P (empty file) shows N/A" TC0P '^TC0P: +N/A' "$h"
	human_line "applesmc, $reader reader: Ts0P (no newline) shows +33.8°C" \
		Ts0P '^Ts0P: +\+33\.8°C' "$h"
	human_line "applesmc, $reader reader: temp3 (empty label) keeps its sysfs name" \
		temp3 '^temp3: +\+30\.2°C' "$h"
done

# Nothing readable: every value of the PC87427 is "abc".
bed=$(bed_with pc87427-allbad "$PC" \
	's/^A: \(\(fan\|pwm\|temp\)[0-9][0-9]*\(_[a-z_]*\)\{0,1\}\)=.*/A: \1=abc\\n/')
under "$bed" -- grep -c -x abc $PC_DEV/fan1_input $PC_DEV/temp3_type $PC_DEV/pwm2_enable
expect_eq "the all-bad PC87427 tree holds \"abc\" everywhere" \
	"$PC_DEV/fan1_input:1|$PC_DEV/temp3_type:1|$PC_DEV/pwm2_enable:1" \
	"$(printf '%s\n' "$OUT" | paste -sd '|')"
for reader in default fast; do
	opts=()
	[ "$reader" = default ] || opts=(--reader "$reader")
	for fmt in human -u -j; do
		args=()
		[ "$fmt" = human ] || args=("$fmt")
		hws "$bed" -- sensors "${args[@]}" "${opts[@]}"
		expect_fail "nothing readable, $reader reader, $fmt: fails"
		expect_line "nothing readable, $reader reader, $fmt: says no value could be read" \
			'no value could be read' "$ERR"
		case $fmt in
		-u)
			expect_no_line "nothing readable, $reader reader: -u shows no number" ': -?[0-9]' "$OUT"
			;;
		-j)
			expect_eq "nothing readable, $reader reader: -j is JSON with nothing but nulls" "[null]" \
				"$(json "$OUT" | jq -c '[.[][] | objects | .[]] | unique')"
			;;
		esac
	done
done

# A chip directory with no readable attribute at all: every channel file of
# the PC87427 with mode 0 (libsensors and hwsight both go by the mode, so
# this holds for root too), or a chip with nothing but its name.
strip_pc="$TMP/strip-pc.sh"
cat >"$strip_pc" <<'EOF'
chmod 000 "$UMOCKDEV_DIR"/sys/devices/platform/pc87427.2304/fan* \
	"$UMOCKDEV_DIR"/sys/devices/platform/pc87427.2304/temp* \
	"$UMOCKDEV_DIR"/sys/devices/platform/pc87427.2304/pwm* ||
	{ echo "cannot take the read permission off the testbed's files" >&2; exit 99; }
exec "$@"
EOF
bare=$(bed_with pc87427-bare "$PC" '/^A: \(fan\|pwm\|temp\)/d')
for kind in mode0 bare; do
	if [ $kind = mode0 ]; then
		pre=(bash "$strip_pc")
		bed=$PC
	else
		pre=()
		bed=$bare
	fi
	under "$bed" -- "${pre[@]}" "$HWSIGHT" sensors
	expect_fail "$kind: a chip with nothing readable alone: fails"
	expect_line "$kind: and says why" 'no value could be read|no sensors found' "$ERR"
	under "$bed" -- "${pre[@]}" "$HWSIGHT" sensors -j
	expect_fail "$kind: -j of a chip with nothing readable alone: fails"
	if [ -n "$(json "$OUT")" ]; then
		ok "$kind: -j is still JSON"
	else
		not_ok "$kind: -j is still JSON" "$OUT"
	fi

	under "$bed" "$SMC" -- sensors -j "$SMC_CHIP"
	ref=$(json "$OUT")
	for reader in default fast; do
		opts=()
		[ "$reader" = default ] || opts=(--reader "$reader")
		under "$bed" "$SMC" -- "${pre[@]}" "$HWSIGHT" sensors -j "${opts[@]}"
		expect_exit "$kind, $reader reader: beside an applesmc, -j succeeds" 0
		expect_same "$kind, $reader reader: the applesmc reads as in sensors -j" \
			"$ref" "$(json "$OUT" | jq -S --arg c "$SMC_CHIP" '{($c): .[$c]}')"
		under "$bed" "$SMC" -- "${pre[@]}" "$HWSIGHT" sensors "${opts[@]}"
		expect_exit "$kind, $reader reader: beside an applesmc, sensors succeeds" 0
		expect_line "$kind, $reader reader: and shows the applesmc's fans" \
			'^Left side  : +2003 RPM' "$OUT"
	done
done

summary
