#!/bin/bash
# A usbvision grabber on a kernel without the usbvision driver (the testbed,
# usbvision.umockdev: a Hauppauge WinTV USB Pro, 0573:4d31, with its USB
# descriptors and no interface driver, under an EHCI root hub): it has no
# video node, so only its USB id (read through libusb) tells hwsight
# cameras that it is there and why it cannot be used.

. "$(dirname "$0")/lib.sh"

BED=$TESTBEDS/usbvision.umockdev
MSG='0573:4d31 Hauppauge WinTV USB Pro \(PAL B/G FM\) on USB bus 001 device 003: no driver \(usbvision'

hws "$BED" -- cameras
expect_eq "no capture device: exit 1" 1 "$RC"
expect_line "the grabber is named, with the reason it has no node" "$MSG" "$ERR"
expect_line "and the usual message follows" '^hwsight cameras: no V4L2 capture devices found$' "$ERR"

hws "$BED" -- cameras -j
expect_eq "JSON mode: stdout holds no prose" "" "$OUT"
expect_line "JSON mode: the grabber is told on stderr" "$MSG" "$ERR"

# The same grabber with an interface bound to a driver that made no node.
BOUND=$(bed_with bound "$BED" '$a\
\
P: /devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0\
E: DEVTYPE=usb_interface\
E: DRIVER=usbvision\
E: SUBSYSTEM=usb\
L: driver=../../../../../../bus/usb/drivers/usbvision\
A: bInterfaceNumber=00\\n')
hws "$BOUND" -- cameras
expect_line "a bound grabber without a node says so" '0573:4d31 .*: its driver made no capture node' "$ERR"

summary
