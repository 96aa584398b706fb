#!/bin/bash
# Smoke check of the lab, run inside the guest: the W83793 on i2c-stub reads
# back the preset through the real driver (sysfs and lm-sensors), a register
# rewrite shows up once the driver's 2 s cache expires, and vivid streams.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bus=${HWS_LAB_I2C_BUS:-0}
addr=${HWS_LAB_W83793_ADDRS%%,*}
preset=$HWS_LAB_PRESET
chip=$(printf 'w83793-i2c-%d-%02x' "$bus" $((addr)))
dev=/sys/bus/i2c/devices/$(printf '%d-%04x' "$bus" $((addr)))

# --- expectations, from the preset and the driver's conversions
reg() { preset_reg "$preset" "$@"; }
fan1_count=$(( ($(reg 0 0x23) << 8 | $(reg 0 0x24)) & 0xfff ))
want_fan1=$((1350000 / fan1_count))
want_temp1=$(( $(reg 0 0x1c) * 1000 + ($(reg 0 0x22) & 3) * 250 ))
want_in0=$(( ($(reg 0 0x10) << 2 | ($(reg 0 0x1b) & 3)) * 2 ))
want_in7=$(( $(reg 0 0x18) * 24 + 150 ))

# --- sysfs, straight from the driver
lab_eq "$chip is bound to w83793" w83793 "$(basename "$(readlink "$dev/driver")")"
lab_eq "fan1_input from preset" "$want_fan1" "$(cat "$dev/fan1_input")"
lab_eq "temp1_input from preset" "$want_temp1" "$(cat "$dev/temp1_input")"
lab_eq "in0_input from preset" "$want_in0" "$(cat "$dev/in0_input")"
lab_eq "in7_input from preset (5VDD, +150 mV offset)" "$want_in7" "$(cat "$dev/in7_input")"
lab_eq "fan1_alarm clear" 0 "$(cat "$dev/fan1_alarm")"

# --- lm-sensors, an independent reader
if lab_run "sensors -j" sensors -j; then
	json=$LAB_OUT
	lab_eq "sensors -j lists $chip" yes "$(grep -q "\"$chip\":" <<<"$json" && echo yes || echo no)"
	lab_eq "sensors -j fan1_input" "$(printf '%d.000' "$want_fan1")" \
		"$(sensors_json_value "$json" "$chip" fan1_input)"
	lab_eq "sensors -j temp1_input" "$(awk -v t="$want_temp1" 'BEGIN { printf "%.3f", t / 1000 }')" \
		"$(sensors_json_value "$json" "$chip" temp1_input)"
	lab_eq "sensors -j in0_input (VcoreA)" "$(awk -v v="$want_in0" 'BEGIN { printf "%.3f", v / 1000 }')" \
		"$(sensors_json_value "$json" "$chip" in0_input)"
fi

# --- a register rewrite reaches sysfs after the driver's cache period
lab_run "stall fan1, overheat temp1, open the chassis" w83793_alarms "$dev"
lab_eq "fan1_input after stall" 0 "$(cat "$dev/fan1_input")"
lab_eq "fan1_alarm after stall" 1 "$(cat "$dev/fan1_alarm")"
lab_eq "temp1_input after overheat" $((90000 + ($(reg 0 0x22) & 3) * 250)) "$(cat "$dev/temp1_input")"
lab_eq "temp1_alarm after overheat" 1 "$(cat "$dev/temp1_alarm")"
lab_eq "intrusion0_alarm" 1 "$(cat "$dev/intrusion0_alarm")"
lab_eq "fan2 untouched" $((1350000 / (($(reg 0 0x25) << 8 | $(reg 0 0x26)) & 0xfff))) "$(cat "$dev/fan2_input")"
lab_run "preset restored" w83793_restore
lab_eq "fan1_input back to the preset" "$want_fan1" "$(cat "$dev/fan1_input")"

# --- vivid: webcam at 25 fps, 50 frames through mmap
cam=/dev/video0
tv=/dev/video1
lab_run "webcam 320x180 YUYV" v4l2-ctl -d $cam --set-fmt-video=width=320,height=180,pixelformat=YUYV
lab_run "webcam at 25 fps" v4l2-ctl -d $cam --set-parm=25
lab_eq "webcam frame interval" "25.000 (25/1)" \
	"$(v4l2-ctl -d $cam -P | sed -n 's/.*Frames per second: *//p')"
if lab_run "webcam streams 50 frames (mmap)" \
	v4l2-ctl -d $cam --stream-mmap --stream-count=50 --stream-to=/dev/null; then
	lab_eq "frames dequeued" 50 "$(tr -cd '<' <<<"$LAB_OUT" | wc -c)"
fi
lab_eq "webcam offers 40 fps at 320x180 (not 300 Hz-friendly)" yes \
	"$(v4l2-ctl -d $cam --list-frameintervals=width=320,height=180,pixelformat=YUYV |
		grep -q '(40.000 fps)' && echo yes || echo no)"
lab_eq "error injection controls" "disconnect percentage_of_dropped_buffers" \
	"$(v4l2-ctl -d $cam -l | awk '$1 == "disconnect" || $1 == "percentage_of_dropped_buffers" { print $1 }' |
		sort | tr '\n' ' ' | sed 's/ $//')"

# --- vivid: TV input, PAL and NTSC
lab_run "TV input PAL" v4l2-ctl -d $tv -i 0 -s pal
lab_eq "PAL frame rate" "25.000 (25000/1000)" "$(v4l2-ctl -d $tv -P | sed -n 's/.*Frames per second: *//p')"
lab_run "TV PAL streams 10 frames" v4l2-ctl -d $tv --stream-mmap --stream-count=10 --stream-to=/dev/null
lab_run "TV input NTSC" v4l2-ctl -d $tv -s ntsc
lab_eq "NTSC frame rate" "29.970 (30000/1001)" "$(v4l2-ctl -d $tv -P | sed -n 's/.*Frames per second: *//p')"

lab_done
