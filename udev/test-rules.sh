#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# udev/test-rules.sh RULES: have this system's udev parse RULES
# (70-hwsight.rules) and run it on sysfs trees of the devices it is about,
# and check that it parses without a single complaint and that exactly the
# supported devices want hwsightd.service.
#
# udev 252 has no "udevadm verify", and it reads rules only from its fixed
# directories, logging a broken line and carrying on. So each run happens
# in a private mount namespace (unshare; in a user namespace too when not
# root): a tmpfs over /run holds RULES as
# /run/udev/rules.d/70-hwsight.rules, the other rules directories are
# covered by an empty one, /dev is read-only;
# umockdev-run puts a testbed in place of /sys, and "udevadm test" loads
# the rules, prints every complaint as FILE:LINE, and lists the device's
# properties. Nothing outside the namespace is touched.
#
# The testbeds' devices have no device nodes: the rules do not look at
# them, and udevadm test would otherwise try to make links under /dev.
# TESTBEDS (tests/umockdev, from ctest) provides the PC87427, applesmc and
# ams trees; the others are written here, after the drivers' sysfs layout.
#
# Exit status: 0 all checks pass, 1 a check failed, 77 (skip) this kernel
# does not allow the namespaces the test needs.

set -u

RULES=${1:-}
. "$(dirname "$0")/../tests/tap.sh"

if [ -z "$RULES" ] || [ ! -f "$RULES" ]; then
	die "usage: $0 RULES (got '${RULES}')"
fi
if [ -z "${TESTBEDS:-}" ] || [ ! -f "$TESTBEDS/pc87427.umockdev" ]; then
	die "TESTBEDS must name tests/umockdev (got '${TESTBEDS:-}')"
fi
for tool in udevadm umockdev-run unshare; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed (scripts/install-deps installs udev, umockdev and util-linux)"
done
# Root has its own mount namespaces; anyone else borrows root's powers in
# a user namespace, which some systems refuse. So does a root that may not
# map itself, the lab guest's for one: root never asks for it.
if [ "$(id -u)" -eq 0 ]; then
	private="unshare --mount"
else
	private="unshare --map-root-user --mount"
fi
if ! $private true 2>/dev/null; then
	echo "1..0 # SKIP $private is not allowed here (user namespaces disabled?)"
	exit 77
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hwsight-udev.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/empty"

# run RULES_FILE TESTBED ACTION SYSPATH: udevadm test's output in $OUT.
run() {
	OUT=$($private /bin/sh -s -- "$@" "$TMP/empty" 2>&1 <<-'EOF'
		set -e
		rules=$1 bed=$2 action=$3 syspath=$4 empty=$5
		mount -t tmpfs -o mode=0755 tmpfs /run
		mkdir -p /run/udev/rules.d
		cp "$rules" /run/udev/rules.d/70-hwsight.rules
		for d in /etc/udev/rules.d /usr/local/lib/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d; do
			if [ -d "$d" ]; then mount --bind "$empty" "$d"; fi
		done
		mount -o remount,bind,ro /dev
		exec umockdev-run -d "$bed" -- udevadm test --action="$action" "$syspath"
	EOF
	)
}

# complaints: udev's messages about the rules file, one per line.
complaints() {
	printf '%s\n' "$OUT" | grep -E '70-hwsight\.rules:[0-9]+' || true
}

# property NAME: its value in the last run, empty if unset.
property() {
	printf '%s\n' "$OUT" | sed -n "s/^$1=//p" | tail -n 1
}

# expect WHAT TESTBED SYSPATH yes|no [ACTION]
expect() {
	local what=$1 bed=$2 syspath=$3 wanted=$4 action=${5:-add}
	local wants tags

	run "$RULES" "$bed" "$action" "$syspath"
	if ! printf '%s\n' "$OUT" | grep -q '^Reading rules file: /run/udev/rules.d/70-hwsight.rules$'; then
		not_ok "$what: udev read the rules" "$OUT"
		return
	fi
	if ! printf '%s\n' "$OUT" | grep -q "^DEVPATH=${syspath#/sys}$"; then
		not_ok "$what: udevadm test saw the device" "$OUT"
		return
	fi
	wants=$(property SYSTEMD_WANTS)
	tags=$(property TAGS)
	if [ "$wanted" = yes ]; then
		if [ "$wants" = hwsightd.service ] && [ "${tags#*:systemd:}" != "$tags" ]; then
			ok "$what wants hwsightd.service"
		else
			not_ok "$what wants hwsightd.service" "SYSTEMD_WANTS='$wants' TAGS='$tags'"
		fi
	else
		if [ -z "$wants" ]; then
			ok "$what does not start hwsightd"
		else
			not_ok "$what does not start hwsightd" "SYSTEMD_WANTS='$wants' TAGS='$tags'"
		fi
	fi
}

# bed NAME: write the testbed read from stdin to $TMP/NAME.umockdev.
bed() {
	cat >"$TMP/$1.umockdev"
}

bed w83793 <<'EOF'
P: /devices/pci0000:00/0000:00:1f.3/i2c-0/0-002f/hwmon/hwmon2
E: SUBSYSTEM=hwmon
L: device=../../../0-002f

P: /devices/pci0000:00/0000:00:1f.3/i2c-0/0-002f
E: DRIVER=w83793
E: MODALIAS=i2c:w83793
E: SUBSYSTEM=i2c
L: driver=../../../../../bus/i2c/drivers/w83793
A: name=w83793\n
A: temp1_input=45000\n

P: /devices/pci0000:00/0000:00:1f.3/i2c-0
E: SUBSYSTEM=i2c
A: name=SMBus I801 adapter at 0400\n

P: /devices/pci0000:00/0000:00:1f.3
E: DRIVER=i801_smbus
E: PCI_ID=8086:A323
E: SUBSYSTEM=pci
L: driver=../../../bus/pci/drivers/i801_smbus
EOF

# A chip hwsight has no business starting for: its name is on the hwmon
# device itself, as with every driver using hwmon_device_register_with_info().
bed coretemp <<'EOF'
P: /devices/platform/coretemp.0/hwmon/hwmon3
E: SUBSYSTEM=hwmon
L: device=../../../coretemp.0
A: name=coretemp\n
A: temp1_input=41000\n

P: /devices/platform/coretemp.0
E: DRIVER=coretemp
E: MODALIAS=platform:coretemp
E: SUBSYSTEM=platform
L: driver=../../../bus/platform/drivers/coretemp
EOF

# usbvision: a WinTV USB grabber's interface, with its capture and radio
# nodes; ID_V4L_CAPABILITIES is what 60-persistent-v4l.rules' v4l_id sets.
bed usbvision <<'EOF'
P: /devices/pci0000:00/0000:00:1d.7/usb1/1-2/1-2:1.0/video4linux/video0
E: SUBSYSTEM=video4linux
E: ID_V4L_VERSION=2
E: ID_V4L_PRODUCT=USBVision USB Video
E: ID_V4L_CAPABILITIES=:capture:audio:tuner:
A: name=USBVision USB Video\n
A: index=0\n

P: /devices/pci0000:00/0000:00:1d.7/usb1/1-2/1-2:1.0/video4linux/radio0
E: SUBSYSTEM=video4linux
E: ID_V4L_VERSION=2
E: ID_V4L_PRODUCT=USBVision Radio
E: ID_V4L_CAPABILITIES=:audio:tuner:radio:
A: name=USBVision Radio\n
A: index=0\n

P: /devices/pci0000:00/0000:00:1d.7/usb1/1-2/1-2:1.0
E: DEVTYPE=usb_interface
E: DRIVER=usbvision
E: PRODUCT=573/4d31/100
E: SUBSYSTEM=usb
L: driver=../../../../../../bus/usb/drivers/usbvision
A: bInterfaceNumber=00\n

P: /devices/pci0000:00/0000:00:1d.7/usb1/1-2
E: DEVTYPE=usb_device
E: DRIVER=usb
E: PRODUCT=573/4d31/100
E: SUBSYSTEM=usb
L: driver=../../../../../bus/usb/drivers/usb
A: idVendor=0573\n
A: idProduct=4d31\n

P: /devices/pci0000:00/0000:00:1d.7/usb1
E: DEVTYPE=usb_device
E: DRIVER=usb
E: SUBSYSTEM=usb
L: driver=../../../../bus/usb/drivers/usb

P: /devices/pci0000:00/0000:00:1d.7
E: DRIVER=ehci-pci
E: SUBSYSTEM=pci
L: driver=../../../bus/pci/drivers/ehci-pci
EOF

# The OLPC XO-1's camera: an OV7670 behind the Cafe's PCI function.
bed cafe <<'EOF'
P: /devices/pci0000:00/0000:00:0c.2/video4linux/video0
E: SUBSYSTEM=video4linux
E: ID_V4L_VERSION=2
E: ID_V4L_PRODUCT=mcam
E: ID_V4L_CAPABILITIES=:capture:
A: name=mcam\n
A: index=0\n

P: /devices/pci0000:00/0000:00:0c.2
E: DRIVER=cafe1000-ccic
E: PCI_ID=11AB:4102
E: SUBSYSTEM=pci
L: driver=../../../bus/pci/drivers/cafe1000-ccic
EOF

# A webcam and the test driver: served when configured, never a reason to
# start the daemon.
bed uvc <<'EOF'
P: /devices/pci0000:00/0000:00:14.0/usb1/1-5/1-5:1.0/video4linux/video0
E: SUBSYSTEM=video4linux
E: ID_V4L_VERSION=2
E: ID_V4L_PRODUCT=Integrated Camera
E: ID_V4L_CAPABILITIES=:capture:
A: name=Integrated Camera\n
A: index=0\n

P: /devices/pci0000:00/0000:00:14.0/usb1/1-5/1-5:1.0
E: DEVTYPE=usb_interface
E: DRIVER=uvcvideo
E: SUBSYSTEM=usb
L: driver=../../../../../../bus/usb/drivers/uvcvideo

P: /devices/pci0000:00/0000:00:14.0/usb1/1-5
E: DEVTYPE=usb_device
E: DRIVER=usb
E: SUBSYSTEM=usb
L: driver=../../../../../bus/usb/drivers/usb

P: /devices/pci0000:00/0000:00:14.0/usb1
E: DEVTYPE=usb_device
E: DRIVER=usb
E: SUBSYSTEM=usb
L: driver=../../../../bus/usb/drivers/usb

P: /devices/pci0000:00/0000:00:14.0
E: DRIVER=xhci_hcd
E: SUBSYSTEM=pci
L: driver=../../../bus/pci/drivers/xhci_hcd
EOF

bed vivid <<'EOF'
P: /devices/platform/vivid.0/video4linux/video0
E: SUBSYSTEM=video4linux
E: ID_V4L_VERSION=2
E: ID_V4L_PRODUCT=vivid-000-vid-cap
E: ID_V4L_CAPABILITIES=:capture:
A: name=vivid-000-vid-cap\n
A: index=0\n

P: /devices/platform/vivid.0
E: DRIVER=vivid
E: MODALIAS=platform:vivid
E: SUBSYSTEM=platform
L: driver=../../../bus/platform/drivers/vivid
EOF

# The check itself must see a broken rule: a key udev does not know, as a
# typo would make one. If this udev stopped complaining, every "parses
# without complaint" above would pass for nothing.
{ cat "$RULES"; echo 'SUBSYSTEM=="hwmon", SYSTEMD_WANT+="hwsightd.service"'; } >"$TMP/broken.rules"
run "$TMP/broken.rules" "$TESTBEDS/pc87427.umockdev" add /sys/devices/platform/pc87427.2304/hwmon/hwmon0
bad=$(complaints)
if [ -n "$bad" ]; then
	ok "a broken rule is reported: $(printf '%s\n' "$bad" | head -n 1 | sed 's|.*/||')"
else
	not_ok "a broken rule is reported" "$OUT"
fi

run "$RULES" "$TESTBEDS/pc87427.umockdev" add /sys/devices/platform/pc87427.2304/hwmon/hwmon0
bad=$(complaints)
if ! printf '%s\n' "$OUT" | grep -q '^Reading rules file: /run/udev/rules.d/70-hwsight.rules$'; then
	not_ok "udev reads the rules" "$OUT"
elif [ -n "$bad" ]; then
	not_ok "the rules parse without complaint" "$bad"
else
	ok "the rules parse without complaint"
fi

expect "PC87427 hwmon" "$TESTBEDS/pc87427.umockdev" /sys/devices/platform/pc87427.2304/hwmon/hwmon0 yes
expect "applesmc hwmon" "$TESTBEDS/applesmc.umockdev" /sys/devices/platform/applesmc.768/hwmon/hwmon1 yes
expect "ams platform device" "$TESTBEDS/ams.umockdev" /sys/devices/platform/ams yes
expect "W83793 hwmon" "$TMP/w83793.umockdev" /sys/devices/pci0000:00/0000:00:1f.3/i2c-0/0-002f/hwmon/hwmon2 yes
expect "W83793's I2C client itself" "$TMP/w83793.umockdev" /sys/devices/pci0000:00/0000:00:1f.3/i2c-0/0-002f no
expect "coretemp hwmon" "$TMP/coretemp.umockdev" /sys/devices/platform/coretemp.0/hwmon/hwmon3 no
expect "usbvision capture node" "$TMP/usbvision.umockdev" /sys/devices/pci0000:00/0000:00:1d.7/usb1/1-2/1-2:1.0/video4linux/video0 yes
expect "usbvision radio node" "$TMP/usbvision.umockdev" /sys/devices/pci0000:00/0000:00:1d.7/usb1/1-2/1-2:1.0/video4linux/radio0 no
expect "Cafe OV7670 capture node" "$TMP/cafe.umockdev" /sys/devices/pci0000:00/0000:00:0c.2/video4linux/video0 yes
expect "uvcvideo webcam" "$TMP/uvc.umockdev" /sys/devices/pci0000:00/0000:00:14.0/usb1/1-5/1-5:1.0/video4linux/video0 no
expect "vivid capture node" "$TMP/vivid.umockdev" /sys/devices/platform/vivid.0/video4linux/video0 no
expect "PC87427 hwmon removed" "$TESTBEDS/pc87427.umockdev" /sys/devices/platform/pc87427.2304/hwmon/hwmon0 no remove

printf '1..%d\n' $((PASS + FAIL))
summary
