#!/bin/bash
# hwsight detect on a PC87427: a Super-I/O chip is not probed (its ports are
# not I2C), it is reported once the kernel's platform device exists, with
# the driver bound or with the command that loads it. The testbed has no
# I2C bus, which detect reports as a failure after listing the chip.

. "$(dirname "$0")/lib.sh"

BED=$TESTBEDS/pc87427.umockdev

hws "$BED" -- detect
expect_line "the bound PC87427 is reported" '^  pc87427\.2304 +National PC87427, in use by driver pc87427 \(hwmon0\)$' "$OUT"
expect_eq "no I2C bus: exit 1" 1 "$RC"
expect_line "no I2C bus: says how to get one" "no I2C buses: .*modprobe i2c-dev" "$ERR"

hws "$BED" -- detect -j
expect_eq "JSON: the chip, bound, no bind command" "pc87427 bound pc87427.2304 null" \
	"$(printf '%s\n' "$OUT" | jq -r '.chips[0] | "\(.chip) \(.state) \(.device) \(.bind)"')"

# The same device with no driver bound: the command to load it.
UNBOUND=$(bed_with unbound "$BED" '/^L: driver=/d')
hws "$UNBOUND" -- detect
expect_line "an unbound PC87427 gets its modprobe line" 'modprobe pc87427' "$OUT"

summary
