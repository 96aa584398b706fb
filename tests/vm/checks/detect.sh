#!/bin/bash
# Lab check of `hwsight detect`, inside the guest, against the real w83793
# driver on i2c-stub:
#  - a bound chip is reported as in use, and not read;
#  - unbound, it is found, nothing is written to it, and the printed command
#    binds the driver again;
#  - with a wrong chip ID or address register it is not found, and the real
#    driver's own detection agrees;
#  - with no device and no driver at all, the printed new_device command
#    brings the driver back as the lab had it.
# Everything is put back as found (registers, driver, device, sub-clients):
# other checks run after this one in the same boot.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build=${HWS_BUILD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/build/default}
hwsight=$build/tools/hwsight
regs=$HWS_LAB_DIR/guest/lab-regs
bus=${HWS_LAB_I2C_BUS:-0}
addr=${HWS_LAB_W83793_ADDRS%%,*}

if [ -z "$addr" ]; then
	echo "# no W83793 in this lab (--no-w83793): nothing to check"
	lab_done
	exit
fi
hex=$(printf '0x%02x' $((addr)))
devname=$(printf '%d-%04x' "$bus" $((addr)))
dev=/sys/bus/i2c/devices/$devname
adapter=/sys/bus/i2c/devices/i2c-$bus
drv=/sys/bus/i2c/drivers/w83793
# The lab loads the driver with these, so that its LM75 sub-clients do not
# collide; a modprobe run by a printed command must get them too.
subclients="$bus,$hex,0x4a,0x4b"
modconf=/etc/modprobe.d/hws-lab-detect.conf

get() { i2cget -f -y "$bus" "$addr" "$1" b; }
bound_driver() { basename "$(readlink "$dev/driver" 2>/dev/null)" 2>/dev/null; }
# The w83793 driver predates the hwmon attribute groups: "name" is on the
# i2c device, and its hwmon class device has none (libsensors knows).
hwmon_name() { ls -d "$dev"/hwmon/hwmon* >/dev/null 2>&1 && cat "$dev/name"; }
# The text output's line about $hex, and the command printed under it.
chip_line() { printf '%s\n' "$1" | awk -v a="$hex" '$1 == a { sub(/^ +/, ""); print; exit }'; }
bind_line() { printf '%s\n' "$1" | awk -v a="$hex" 'f { sub(/^ +/, ""); print; exit } $1 == a { f = 1 }'; }
json_chip() { printf '%s\n' "$1" | grep -F "\"address\": \"$hex\""; }
has() { case $1 in *"$2"*) echo yes ;; *) echo no ;; esac; }

orig_chipid=
restore() {
	if [ -n "$orig_chipid" ]; then
		"$regs" -b "$bus" -a "$addr" -s "$bank" 0x0e "$orig_chipid"
		"$regs" -b "$bus" -a "$addr" -s "$bank" 0x0b "$orig_addrreg"
	fi
	if [ ! -e "$drv" ]; then
		modprobe w83793 force_subclients="$subclients"
	fi
	rm -f "$modconf"
	if [ ! -e "$dev" ]; then
		echo w83793 "$hex" >"$adapter/new_device"
	elif [ -z "$(bound_driver)" ]; then
		echo "$devname" >"$drv/bind"
	fi
}
trap restore EXIT

lab_eq "$devname is bound to w83793 at the start" w83793 "$(bound_driver)"

# --- bound: reported as in use, with its driver
if lab_run "detect (all buses) with the driver bound" "$hwsight" detect; then
	lab_eq "bound chip reported as in use" yes \
		"$(has "$(chip_line "$LAB_OUT")" "Winbond W83793, in use by driver w83793 ($devname")"
	lab_eq "no bind command for a bound chip" "" "$(bind_line "$LAB_OUT" | grep '^echo\|^modprobe')"
fi
if lab_run "detect -j with the driver bound" "$hwsight" detect -j -b "$bus"; then
	lab_eq "JSON: state bound" yes "$(has "$(json_chip "$LAB_OUT")" '"state": "bound", "chip": "w83793"')"
	lab_eq "JSON: bound_driver" yes "$(has "$(json_chip "$LAB_OUT")" '"bound_driver": "w83793"')"
fi

# --- not root: a clear refusal, not an empty result
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if nobody test -x "$hwsight"; then
	out=$(nobody "$hwsight" detect -b "$bus" 2>&1)
	lab_eq "detect as nobody exits 1" 1 "$?"
	lab_eq "detect as nobody says why" \
		"hwsight detect: /dev/i2c-$bus: permission denied; detection must run as root" "$out"
else
	echo "# $hwsight cannot be run by nobody here: skipping the non-root test"
fi

# --- unbound: found, read-only, and the printed command binds it back
echo "$devname" >"$drv/unbind"
lab_eq "unbound" "" "$(bound_driver)"
# Now that no driver switches banks behind our back: the ID registers are
# changed below in the bank that is selected, so that no bank switch is
# needed, and put back from these.
bank_reg=$(get 0x00)
bank=$((bank_reg & 3))
orig_addrreg=$(get 0x0b)
orig_chipid=$(get 0x0e)
dump_before=$(i2cdump -f -y "$bus" "$addr" b 2>&1)
if lab_run "detect -b $bus with the chip unbound" "$hwsight" detect -b "$bus"; then
	lab_eq "chip found" "$hex  Winbond W83793 (driver w83793), no driver bound" "$(chip_line "$LAB_OUT")"
	line=$(bind_line "$LAB_OUT")
	lab_eq "bind command for the existing device" "echo $devname > /sys/bus/i2c/drivers/w83793/bind" "$line"
fi
dump_after=$(i2cdump -f -y "$bus" "$addr" b 2>&1)
lab_eq "detect wrote nothing (register dump of the selected bank)" unchanged \
	"$([ "$dump_before" = "$dump_after" ] && echo unchanged ||
	   diff <(echo "$dump_before") <(echo "$dump_after") | grep '^[<>]' | tr '\n' ' ')"
lab_eq "bank register unchanged" "$bank_reg" "$(get 0x00)"
if lab_run "detect -j with the chip unbound" "$hwsight" detect -j; then
	lab_eq "JSON: state found" yes "$(has "$(json_chip "$LAB_OUT")" '"state": "found", "chip": "w83793"')"
	lab_eq "JSON: bind command" yes "$(has "$(json_chip "$LAB_OUT")" "\"bind\": \"$line\"}")"
fi

# --- a wrong chip ID: not a W83793
"$regs" -b "$bus" -a "$addr" -s "$bank" 0x0e 0x7a
lab_eq "chip ID register now wrong" 0x7a "$(get 0x0e)"
if lab_run "detect with chip ID 0x7a" "$hwsight" detect -b "$bus"; then
	lab_eq "nothing found at $hex (wrong chip ID)" "" "$(chip_line "$LAB_OUT")"
	lab_eq "says so" yes "$(has "$LAB_OUT" "no supported chips found")"
fi
if lab_run "detect -j with chip ID 0x7a" "$hwsight" detect -j -b "$bus"; then
	lab_eq "JSON: no chip" "" "$(json_chip "$LAB_OUT")"
fi
"$regs" -b "$bus" -a "$addr" -s "$bank" 0x0e "$orig_chipid"

# --- a wrong address register, which the chip shows in bank 0 only
if [ $((bank_reg & 7)) -eq 0 ]; then
	"$regs" -b "$bus" -a "$addr" -s 0 0x0b $(((addr ^ 1) << 1))
	if lab_run "detect with the address register saying $(printf '0x%02x' $((addr ^ 1)))" \
		"$hwsight" detect -b "$bus"; then
		lab_eq "nothing found at $hex (wrong address register)" "" "$(chip_line "$LAB_OUT")"
	fi
	"$regs" -b "$bus" -a "$addr" -s 0 0x0b "$orig_addrreg"
else
	echo "# bank $bank selected: the address register is not checked, skipping its test"
fi

if lab_run "detect after restoring the ID registers" "$hwsight" detect -b "$bus"; then
	lab_eq "found again" "echo $devname > /sys/bus/i2c/drivers/w83793/bind" "$(bind_line "$LAB_OUT")"
fi
if [ -n "$line" ] && lab_run "run the printed bind command" sh -c "$line"; then
	lab_eq "bound to w83793 again" w83793 "$(bound_driver)"
	lab_eq "hwmon name" w83793 "$(hwmon_name)"
fi

# --- no device, no driver: the new_device command
# Unloading the driver removes the device its own detection created; one
# the lab made with new_device stays, and is deleted.
rmmod w83793
[ -e "$dev" ] && echo "$hex" >"$adapter/delete_device"
lab_eq "no device at $hex, driver unloaded" "no no" \
	"$([ -e "$dev" ] && echo yes || echo no) $([ -e "$drv" ] && echo yes || echo no)"
echo "options w83793 force_subclients=$subclients" >"$modconf"

"$regs" -b "$bus" -a "$addr" -s "$bank" 0x0e 0x7a
if lab_run "detect with chip ID 0x7a, no driver" "$hwsight" detect -b "$bus"; then
	lab_eq "nothing found at $hex (wrong chip ID, no driver)" "" "$(chip_line "$LAB_OUT")"
fi
# The real driver is the reference: its detection must not take it either
# (the stub adapter is of class hwmon, so loading the driver probes 0x2c-0x2f).
modprobe w83793
lab_eq "the w83793 driver's own detection agrees: no device" no "$([ -e "$dev" ] && echo yes || echo no)"
rmmod w83793
"$regs" -b "$bus" -a "$addr" -s "$bank" 0x0e "$orig_chipid"

line=
if lab_run "detect with no device and no driver" "$hwsight" detect -b "$bus"; then
	lab_eq "chip found" "$hex  Winbond W83793 (driver w83793), no driver bound" "$(chip_line "$LAB_OUT")"
	line=$(bind_line "$LAB_OUT")
	lab_eq "new_device bind command" \
		"echo w83793 $hex > /sys/bus/i2c/devices/i2c-$bus/new_device && modprobe w83793" "$line"
fi
if [ -n "$line" ] && lab_run "run the printed new_device command" sh -c "$line"; then
	lab_eq "bound to w83793" w83793 "$(bound_driver)"
	lab_eq "hwmon name" w83793 "$(hwmon_name)"
	lab_eq "LM75 sub-clients as the lab made them" "$bus-004a $bus-004b" \
		"$(cd /sys/bus/i2c/devices && echo "$bus"-004a "$bus"-004b | xargs ls -d 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
fi
rm -f "$modconf"

if lab_run "detect at the end" "$hwsight" detect -b "$bus"; then
	lab_eq "in use again" yes "$(has "$(chip_line "$LAB_OUT")" "in use by driver w83793")"
fi

lab_done
