#!/bin/bash
# hwsight sensors on an Intel Mac's SMC, as drivers/hwmon/applesmc.c lays it
# out: platform device applesmc.768 (the SMC data port 0x300, so libsensors
# calls it applesmc-isa-0300) carrying "name" and every attribute, beside
# the SMC's own files (key_count, key_at_index*, the motion sensor's
# position and calibrate, light), and a nameless hwmon class device
# (hwmon_device_register). Two fans labelled by their F?ID key ("Left side  ",
# blank padded, as the driver prints it), fan2 under manual control, and
# twelve temperatures labelled by their SMC key (TB0T ... Ts0P, so that
# temp10-12 check the numeric order). As the driver prints them, fan speeds
# are the SMC's fpe2 value >> 2 and temperatures 250 * (sp78 >> 6), so
# always a multiple of 250 m°C.
#
# lm-sensors' sensors(1), run on the same testbed, is the reference. The only
# differences allowed are the ones hwsight documents: the ambient light
# sensors ("light", which libsensors does not read), fanN_safe, fanN_output
# and fanN_manual, which libsensors 3.6 does not know, are shown in -u but
# never in -j.

. "$(dirname "$0")/lib.sh"

BED=$TESTBEDS/applesmc.umockdev
CHIP=applesmc-isa-0300
EXTRA='^  fan[0-9]+_(safe|output|manual): '

under "$BED" -- sensors -j
REF_J=$(json "$OUT")
expect_eq "sensors(1) sees $CHIP with the testbed's values" \
	"2003 6200 31.75 33.75" \
	"$(printf '%s\n' "$REF_J" | jq -r --arg c "$CHIP" \
		'.[$c] | [.["Left side  "].fan1_input, .["Left side  "].fan1_max,
		          .TB0T.temp1_input, .Ts0P.temp12_input] | map(tostring) | join(" ")')"
under "$BED" -- sensors -u
REF_U=$OUT
under "$BED" -- sensors
REF_H=$OUT

for reader in default fast; do
	reader_opts "$reader"
	expect_reader_json "$reader" "$BED" "$REF_J"
	expect_eq "$reader reader: -j leaves out fanN_safe, fanN_output, fanN_manual" "" \
		"$(json "$OUT" | jq -r '.[][] | objects | keys[] | select(test("_(safe|output|manual)$"))')"

	hws "$BED" -- sensors -u "${OPTS[@]}"
	expect_exit "$reader reader: sensors -u succeeds" 0
	expect_same "$reader reader: -u equals sensors -u, the extra fan files and light aside" \
		"$REF_U" "$(drop_features '^light:' "$OUT" | grep -Ev -- "$EXTRA")"
	expect_same "$reader reader: -u shows both light sensors" "$(printf 'light:\n  light_left: 12.000\n  light_right: 14.000')" \
		"$(printf '%s\n' "$OUT" | grep -A2 '^light:')"
	expect_same "$reader reader: -u shows fan1_safe, fan1_output, fan1_manual under fan1" \
		"$(printf '%s\n' 'Left side  :' '  fan1_input: 2003.000' '  fan1_min: 2000.000' \
			'  fan1_max: 6200.000' '  fan1_manual: 0.000' '  fan1_output: 2000.000' \
			'  fan1_safe: 3500.000')" \
		"$(printf '%s\n' "$OUT" | grep -A6 -x 'Left side  :')"
	expect_line "$reader reader: -u shows fan2 under manual control" '^  fan2_manual: 1\.000$' "$OUT"
	expect_line "$reader reader: -u shows fan2's target speed" '^  fan2_output: 3000\.000$' "$OUT"

	expect_reader_human "$reader" "$BED"
done

# What a user reads: the driver's labels, never fan1/temp1.
expect_isa_header "$CHIP"
expect_line "fan1 is labelled 'Left side', 2003 RPM, min 2000, max 6200" \
	'^Left side  : +2003 RPM +\(min = 2000 RPM, max = 6200 RPM\)' "$HUMAN"
expect_line "fan2 is labelled 'Right side', 2997 RPM" '^Right side : +2997 RPM' "$HUMAN"
for kv in TB0T:+31.8 TB1T:+31.5 TB2T:+30.2 TC0D:+52.5 TC0P:+47.2 TG0D:+55.0 TG0P:+49.0 \
	TH0P:+41.2 TM0P:+45.5 TN0P:+50.8 Th0H:+43.0 Ts0P:+33.8; do
	key=${kv%%:*}
	val=${kv#*:}
	expect_line "temperature $key is labelled by its SMC key, $val°C" \
		"^$key: +\\${val//./\\.}°C" "$(feature_line "$key" "$HUMAN")"
done
expect_eq "temperatures in the driver's order (temp1 ... temp12, not temp1, temp10 ...)" \
	"TB0T TB1T TB2T TC0D TC0P TG0D TG0P TH0P TM0P TN0P Th0H Ts0P" \
	"$(printf '%s\n' "$HUMAN" | grep -E '^T[A-Za-z0-9]{3}:' | cut -d: -f1 | paste -sd ' ')"
expect_no_line "no channel is shown under its sysfs name" '^(fan|temp)[0-9]+:' "$HUMAN"
expect_no_line "the SMC's own files are not sensors" 'position|calibrate|key_' "$HUMAN"
expect_line "the ambient light sensors are shown" '^light: +left 12, right 14$' "$HUMAN"
# sensors(1) pads a reading without limits with trailing blanks; hwsight
# does not: compare without them.
expect_same "human output equals sensors(1)'s (trailing blanks and light aside)" \
	"$(sed 's/ *$//' <<<"$REF_H")" "$(grep -v '^light:' <<<"$HUMAN" | sed 's/ *$//')"

hws "$BED" -- sensors applesmc-isa-0300
expect_exit "the exact chip name selects it" 0
expect_line "and shows it" "^$CHIP\$" "$OUT"
hws "$BED" -- sensors 'pc87427-*'
expect_exit "'pc87427-*' does not match an applesmc" 1

summary
