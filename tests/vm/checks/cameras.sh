#!/bin/bash
# Lab check of `hwsight cameras`, inside the guest, against the real vivid
# driver, with v4l2-ctl (raw ioctls, no libv4l) as the independent reader:
#  - every vivid capture node is listed, with the driver, card, bus and
#    device caps v4l2-ctl reports;
#  - -j is valid JSON; for the webcam's 320x180 YUYV the rates are exactly
#    v4l2-ctl's, fastest first, 25 fps friendly at 12 ticks and 40 fps not,
#    and every rate is marked friendly exactly when it is whole ticks;
#  - the device's own formats and discrete sizes are v4l2-ctl's; a stepwise
#    range (the TV input) is listed by its two ends and sizes on its step;
#  - no devices, no permission, a missing node and a non-V4L2 node: exit 1,
#    one clear line;
#  - listing changes nothing on the devices (format, rate, input, standard).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build=${HWS_BUILD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/build/default}
hwsight=$build/tools/hwsight
cam=/dev/video0 # the webcam input (tests/vm/README.md)
tv=/dev/video1  # the TV input

# "Driver name" and "Device Caps" of v4l2-ctl -D (the first of each: the
# media controller's section repeats the driver name).
ctl_field() { v4l2-ctl -d "$1" -D 2>/dev/null | awk -F' *: ' -v k="$2" '$1 ~ "^\t" k "$" { print $2; exit }'; }
# The vivid nodes that capture video, by v4l2-ctl.
vivid_capture_nodes() {
	local d caps
	for d in /dev/video*; do
		[ -c "$d" ] && [ "$(ctl_field "$d" 'Driver name')" = vivid ] || continue
		caps=$(ctl_field "$d" 'Device Caps')
		[ -n "$caps" ] && (( caps & 0x1 )) && echo "$d"
	done
}
# Everything a listing could disturb.
device_state() { v4l2-ctl -d "$1" -V -P -I -S 2>&1; }
# Frame rates "%.3f", one a line, sorted, from v4l2-ctl and from our JSON.
ctl_rates() {
	v4l2-ctl -d "$1" --list-frameintervals="width=$2,height=$3,pixelformat=$4" 2>/dev/null |
		sed -n 's/.*Interval: Discrete .* (\([0-9.]*\) fps)$/\1/p' | sort -n
}
json_mode() { # JSON DEV FOURCC W H: the device's own (not emulated) mode
	jq -c --arg d "$2" --arg f "$3" --argjson w "$4" --argjson h "$5" \
		'.[] | select(.devnode == $d) | .modes[] |
		 select(.fourcc == $f and (.emulated | not) and .width == $w and .height == $h)' \
		<<<"$1" 2>/dev/null
}

if [ -z "$(vivid_capture_nodes)" ]; then
	echo "# no vivid in this lab (--no-vivid): nothing to check"
	lab_done
	exit
fi
before_cam=$(device_state $cam)
before_tv=$(device_state $tv)

# --- text
if lab_run "hwsight cameras" "$hwsight" cameras; then
	text=$LAB_OUT
	lab_eq "text lists $cam and $tv" "$cam $tv" \
		"$(grep -xE "$cam|$tv" <<<"$text" | tr '\n' ' ' | sed 's/ $//')"
	lab_eq "text gives the drivers" "vivid vivid" \
		"$(awk '$1 == "driver" { print $2 }' <<<"$text" | tr '\n' ' ' | sed 's/ $//')"
	# The 320x180 line of the webcam's own YUYV, with its continuation lines.
	line=$(awk -v cam="$cam" '
		$0 == cam { c = 1; next } /^\/dev\// { c = 0 }
		c && /^    [^ ]/ { f = ($1 == "YUYV" && !/emulated/) ; next }
		c && f && /^      [^ ]/ { s = ($1 == "320x180") }
		c && f && s { printf "%s ", $0 }' <<<"$text")
	lab_eq "text: 25 fps at 320x180 marked friendly, 12 ticks" yes \
		"$(grep -qF '25.000 fps (12 ticks) *' <<<"$line" && echo yes || echo "no: $line")"
	if ctl_rates $cam 320 180 YUYV | grep -qx 40.000; then
		lab_eq "text: 40 fps at 320x180 unmarked" yes \
			"$(grep -qE '(^|, |  )40\.000 fps(,| |$)' <<<"$line" &&
				! grep -qF '40.000 fps (' <<<"$line" && echo yes || echo "no: $line")"
	fi
	lab_eq "text has the legend" yes "$(grep -q '^\* *300 Hz-friendly' <<<"$text" && echo yes || echo no)"
fi

# --- JSON
if lab_run "hwsight cameras -j" "$hwsight" cameras -j; then
	lab_eq "-j parses with jq, as a list" array "$(jq -r type <<<"$LAB_OUT" 2>&1)"
	# vivid lists thousands of modes, and jq is slow in the VM: read them
	# once, keeping each device's own formats, its own YUYV modes and the
	# count of wrongly marked rates.
	json=$(jq -c '[.[] | del(.modes) + {
		formats: ([.modes[] | select(.emulated | not) | .fourcc] | unique),
		modes: [.modes[] | select(.fourcc == "YUYV" and (.emulated | not))],
		mismarked: ([.modes[] | .intervals[] |
			select(((.num * 300) % .den == 0) != .friendly or
			       (.friendly and .ticks != (.num * 300 / .den)))] | length)}]' <<<"$LAB_OUT")
	lab_eq "-j lists the vivid capture nodes v4l2-ctl finds" \
		"$(vivid_capture_nodes | sort | tr '\n' ' ')" \
		"$(jq -r '.[] | select(.driver == "vivid") | .devnode' <<<"$json" | sort | tr '\n' ' ')"
	lab_eq "-j sorted by devnode" "$(jq -r '.[].devnode' <<<"$json" | sort -V | tr '\n' ' ')" \
		"$(jq -r '.[].devnode' <<<"$json" | tr '\n' ' ')"
	for d in $cam $tv; do
		lab_eq "$d card, bus and caps as v4l2-ctl says" \
			"$(ctl_field $d 'Card type') $(ctl_field $d 'Bus info') $(ctl_field $d 'Device Caps')" \
			"$(jq -r --arg d $d '.[] | select(.devnode == $d) |
				"\(.card) \(.bus_info) \(.device_caps)"' <<<"$json" |
				awk '{ printf "%s %s 0x%08x", $1, $2, $3 }')"
		lab_eq "$d own formats are v4l2-ctl's" \
			"$(v4l2-ctl -d $d --list-formats | sed -n "s/^.*\[[0-9]*\]: '\([^']*\)'.*/\1/p" | sort | tr '\n' ,)" \
			"$(jq -r --arg d $d '.[] | select(.devnode == $d) | .formats[]' <<<"$json" | sort | tr '\n' ,)"
	done
	lab_eq "webcam sets its interval" true \
		"$(jq -r --arg d $cam '.[] | select(.devnode == $d) | .can_set_interval' <<<"$json")"
	lab_eq "not usbvision, no USB id" "false null" \
		"$(jq -r --arg d $cam '.[] | select(.devnode == $d) | "\(.usbvision) \(.usb_vendor)"' <<<"$json")"

	lab_eq "webcam YUYV sizes are v4l2-ctl's" \
		"$(v4l2-ctl -d $cam --list-framesizes=YUYV | sed -n 's/.*Size: Discrete //p' | sort | tr '\n' ' ')" \
		"$(jq -r --arg d $cam '.[] | select(.devnode == $d) | .modes[] |
			select(.fourcc == "YUYV" and (.emulated | not)) | "\(.width)x\(.height)"' <<<"$json" |
			sort | tr '\n' ' ')"

	mode=$(json_mode "$json" $cam YUYV 320 180)
	lab_eq "webcam 320x180 YUYV rates are v4l2-ctl's" \
		"$(ctl_rates $cam 320 180 YUYV | tr '\n' ' ')" \
		"$(jq -r '.intervals[] | .den / .num' <<<"$mode" | xargs -r printf '%.3f\n' | sort -n | tr '\n' ' ')"
	lab_eq "intervals fastest first" true \
		"$(jq '[.intervals[] | .num / .den] | . == sort' <<<"$mode")"
	lab_eq "25 fps: friendly, 12 ticks" "true 12" \
		"$(jq -r '.intervals[] | select(.num * 25 == .den) | "\(.friendly) \(.ticks)"' <<<"$mode")"
	if ctl_rates $cam 320 180 YUYV | grep -qx 40.000; then
		lab_eq "40 fps: not friendly, no ticks" "false null" \
			"$(jq -r '.intervals[] | select(.num * 40 == .den) | "\(.friendly) \(.ticks)"' <<<"$mode")"
	fi
	lab_eq "every rate of every mode is friendly exactly when it is whole ticks" 0 \
		"$(jq '[.[].mismarked] | add' <<<"$json")"

	# The TV input's sizes are a range: its ends and sizes on its step.
	range=$(v4l2-ctl -d $tv --list-framesizes=YUYV |
		sed -n 's/.*Size: Stepwise \([0-9]*\)x\([0-9]*\) - \([0-9]*\)x\([0-9]*\) with step \([0-9]*\)\/\([0-9]*\).*/\1 \2 \3 \4 \5 \6/p')
	if [ -n "$range" ]; then
		read -r minw minh maxw maxh stepw steph <<<"$range"
		sizes=$(jq -r --arg d $tv '.[] | select(.devnode == $d) | .modes[] |
			select(.fourcc == "YUYV" and (.emulated | not)) | "\(.width) \(.height)"' <<<"$json")
		lab_eq "TV YUYV range: both ends listed" "yes yes" \
			"$(grep -qx "$minw $minh" <<<"$sizes" && echo yes || echo no) $(grep -qx "$maxw $maxh" <<<"$sizes" && echo yes || echo no)"
		lab_eq "TV YUYV range: every size inside it, on its step" "" \
			"$(awk -v a="$minw" -v b="$minh" -v c="$maxw" -v d="$maxh" -v e="$stepw" -v f="$steph" '
				$1 < a || $1 > c || $2 < b || $2 > d || ($1 - a) % e || ($2 - b) % f' <<<"$sizes")"
		lab_eq "TV YUYV range: the PAL size 720x576 is offered" yes \
			"$(grep -qx '720 576' <<<"$sizes" && echo yes || echo no)"
		lab_eq "TV 720x576 rates are v4l2-ctl's" \
			"$(ctl_rates $tv 720 576 YUYV | tr '\n' ' ')" \
			"$(jq -r '.intervals[] | .den / .num' <<<"$(json_mode "$json" $tv YUYV 720 576)" |
				xargs -r printf '%.3f\n' | sort -n | tr '\n' ' ')"
	else
		lab_not_ok "v4l2-ctl gives a stepwise size range for the TV input" \
			"$(v4l2-ctl -d $tv --list-framesizes=YUYV 2>&1 | head -3)"
	fi
fi

# --- one device
if lab_run "hwsight cameras -j $cam" "$hwsight" cameras -j $cam; then
	lab_eq "one device: a list of one" "1 $cam" "$(jq -r '"\(length) \(.[0].devnode)"' <<<"$LAB_OUT")"
fi

# --- errors: exit 1, nothing on stdout, one line on stderr
check_error() { # WHAT EXPECTED-STDERR COMMAND...
	local what=$1 want=$2 out=/tmp/hws-cameras.out err rc
	shift 2
	err=$("$@" 2>&1 >"$out")
	rc=$?
	lab_eq "$what: exit status" 1 "$rc"
	lab_eq "$what: message" "$want" "$err"
	lab_eq "$what: nothing on stdout" "" "$(cat "$out")"
	rm -f "$out"
}
check_error "/dev/null" "hwsight cameras: /dev/null: not a V4L2 device" \
	"$hwsight" cameras /dev/null
check_error "/dev/nonexistent" \
	"hwsight cameras: /dev/nonexistent: no such device ('hwsight cameras' lists the capture devices)" \
	"$hwsight" cameras /dev/nonexistent
# No devices, without touching the real ones: hide the video4linux class
# from hwsight only, in a mount namespace of its own.
check_error "no devices" "hwsight cameras: no V4L2 capture devices found" \
	unshare -m sh -c 'mount -t tmpfs none /sys/class/video4linux && exec "$0" cameras' "$hwsight"
# A user who may open no node is told why, not that there is nothing.
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
if $nobody true 2>/dev/null && ! $nobody test -r $cam; then
	check_error "no permission" "hwsight cameras: cannot list the V4L2 devices: permission denied; run as root or join the group that owns the device (usually 'video')" \
		$nobody "$hwsight" cameras
fi

# --- and nothing changed
for d in $cam $tv; do
	if [ $d = $cam ]; then before=$before_cam; else before=$before_tv; fi
	lab_eq "$d left as found" unchanged \
		"$(diff <(printf '%s\n' "$before") <(device_state $d) >/dev/null && echo unchanged ||
			diff <(printf '%s\n' "$before") <(device_state $d) | tr '\n' ' ')"
done

lab_done
