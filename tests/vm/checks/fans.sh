#!/bin/bash
# Fan outputs on the real w83793 driver: taking pwm1 and pwm2 clears their
# bits in every tempM_auto_channels_pwm map that has them and nothing else;
# set, check and another writer seen; released in either order, or
# restored from the saved line after the holder died, every map register
# (bank 2, 0x201..0x206) and every duty register (0xb3..0xb7) reads back as
# before, through i2cget; hwsight fans lists the outputs, and a calibration
# gives its output back.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hwsight=$HWS_BUILD_DIR/tools/hwsight
script=$HWS_BUILD_DIR/tests/helpers/fan-script
bus=${HWS_LAB_I2C_BUS:-0}
addr=${HWS_LAB_W83793_ADDRS%%,*}
chip=$(printf 'w83793-i2c-%d-%02x' "$bus" $((addr)))
dev=/sys/bus/i2c/devices/$(printf '%d-%04x' "$bus" $((addr)))

# regs: the map and duty registers, one "BANK:REG=VALUE" word each. The
# driver caches the bank it selected last: put the bank register back.
regs() {
	local bank0 r out=
	bank0=$(i2cget -f -y "$bus" "$addr" 0x00 b) || return 1
	i2cset -f -y "$bus" "$addr" 0x00 "$(printf 0x%02x $(((bank0 & 0xfc) | 2)))" b || return 1
	for r in 0x01 0x02 0x03 0x04 0x05 0x06; do
		out+="2:$r=$(i2cget -f -y "$bus" "$addr" "$r" b) "
	done
	i2cset -f -y "$bus" "$addr" 0x00 "$(printf 0x%02x $((bank0 & 0xfc)))" b || return 1
	for r in 0xb3 0xb4 0xb5 0xb6 0xb7; do
		out+="0:$r=$(i2cget -f -y "$bus" "$addr" "$r" b) "
	done
	i2cset -f -y "$bus" "$addr" 0x00 "$bank0" b || return 1
	printf '%s\n' "${out% }"
}

# map M: the pwm bits temp M's map holds, through sysfs.
map() {
	cat "$dev/temp$1_auto_channels_pwm"
}

# The preset maps temp1 -> pwm1, temp2 -> pwm2, temp5 -> pwm3+pwm4; two
# more maps hold pwm1 and pwm2 as well, one beside other bits, so that a
# take must clear one bit of a map and keep the rest.
maps=()
for m in 1 2 3 4 5 6; do
	[ -e "$dev/temp${m}_auto_channels_pwm" ] && maps+=("$m")
done
lab_eq "the driver has maps for temp1, temp2, temp5 and temp6 at least" yes \
	"$(for m in 1 2 5 6; do [ -e "$dev/temp${m}_auto_channels_pwm" ] || echo no; done | grep -q no && echo no || echo yes)"
orig_maps="$(map 2) $(map 6)"
echo 3 >"$dev/temp2_auto_channels_pwm"    # pwm1 + pwm2
echo 17 >"$dev/temp6_auto_channels_pwm"   # pwm1 + pwm5
lab_eq "temp2 maps pwm1 and pwm2" 3 "$(map 2)"

before=$(regs)
lab_eq "the registers hold the maps" "2:0x01=0x01 2:0x02=0x03" "$(printf '%s\n' "$before" | cut -d' ' -f1-2)"

"$hwsight" fans -j "$chip" >/tmp/fans.json
lab_eq "hwsight fans lists pwm1..pwm5 of the w83793" "pwm1 pwm2 pwm3 pwm4 pwm5" \
	"$(jq -r '[.[].output] | join(" ")' /tmp/fans.json)"
lab_eq "pwm1 is under Smart Fan, at 192" "w83793 smart fan 192" \
	"$(jq -r '.[0] | [.driver, .mode, .value] | map(tostring) | join(" ")' /tmp/fans.json)"

# take_both ORDER...: take pwm1 and pwm2, drive and check them, release in
# ORDER; the registers must be as before.
take_both() {
	local out
	out=$("$script" "$chip" take:pwm1 take:pwm2 set:pwm1:177 set:pwm2:100 check:pwm1 check:pwm2 \
		saved:pwm1 "$@" 2>&1)
	lab_eq "take pwm1, pwm2, set 177 and 100, release $*: all succeed" \
		"take pwm1 0|take pwm2 0|set pwm1 177 176|set pwm2 100 100|check pwm1 1|check pwm2 1" \
		"$(printf '%s\n' "$out" | head -n 6 | paste -sd '|')"
	lab_eq "pwm1's saved line names its maps (temp1, temp2, temp6) and duty" \
		"saved pwm1 v1 w83793 $(readlink -f "$dev") pwm1 manual duty=192 maps=35" \
		"$(printf '%s\n' "$out" | grep '^saved')"
	lab_eq "both released" "release ${1#release:} 0|release ${2#release:} 0" \
		"$(printf '%s\n' "$out" | grep '^release' | paste -sd '|')"
	lab_eq "released ($*): the map and duty registers are as before" "$before" "$(regs)"
}
take_both release:pwm1 release:pwm2
take_both release:pwm2 release:pwm1

# While held: the bits are clear in every map, the other bits kept. Then
# the holder dies holding both (no release, as after kill -9); the lines
# it saved are all another process needs.
out=$("$script" "$chip" take:pwm1 take:pwm2 set:pwm1:64 saved:pwm1 saved:pwm2 die)
lab_eq "held: temp1 maps nothing, temp2 nothing, temp5 pwm3+4, temp6 pwm5" "0 0 12 16" \
	"$(map 1) $(map 2) $(map 5) $(map 6)"
lab_eq "held: pwm1 at 64, pwm2 as it was" "64 160" "$(cat "$dev/pwm1") $(cat "$dev/pwm2")"
lab_eq "hwsight fans shows the held pwm1 manual" manual "$("$hwsight" fans -j "$chip" | jq -r '.[0].mode')"
line1=$(printf '%s\n' "$out" | sed -n 's/^saved pwm1 //p')
line2=$(printf '%s\n' "$out" | sed -n 's/^saved pwm2 //p')
lab_run "restore pwm2 from its saved line" "$script" "$chip" "restore:$line2"
lab_run "restore pwm1 from its saved line" "$script" "$chip" "restore:$line1"
lab_eq "restored from the lines: registers as before" "$before" "$(regs)"

# Another program maps pwm1 again while it is held: check says so.
out=$("$script" "$chip" take:pwm1 set:pwm1:120 check:pwm1 write:temp1_auto_channels_pwm:1 check:pwm1 \
	release:pwm1 2>&1)
lab_eq "another writer's map is seen, and release still restores" \
	"take pwm1 0|set pwm1 120 120|check pwm1 1|write 0|check pwm1 0|release pwm1 0" \
	"$(printf '%s\n' "$out" | paste -sd '|')"
lab_eq "after the remap and release: registers as before" "$before" "$(regs)"
# ... and another duty.
out=$("$script" "$chip" take:pwm2 set:pwm2:120 write:pwm2:200 check:pwm2 release:pwm2 2>&1)
lab_eq "another writer's duty is seen" "check pwm2 0" "$(printf '%s\n' "$out" | grep '^check')"
lab_eq "after that release: registers as before" "$before" "$(regs)"

# A calibration without a simulator finds no stop (the tach does not
# follow), and gives the output back.
lab_run "hwsight fans --calibrate $chip/pwm2 --settle 0" "$hwsight" fans --calibrate "$chip/pwm2" --settle 0 -j
lab_eq "no stop found without a fan behind the register" null "$(printf '%s\n' "$LAB_OUT" | jq -r .stop)"
lab_eq "after the calibration: registers as before" "$before" "$(regs)"

# The next checks get the maps as the lab left them.
read -r m2 m6 <<<"$orig_maps"
echo "$m2" >"$dev/temp2_auto_channels_pwm"
echo "$m6" >"$dev/temp6_auto_channels_pwm"
w83793_restore
lab_done
