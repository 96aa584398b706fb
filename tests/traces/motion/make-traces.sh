#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the synthesised traces again (README.md); they are committed, so
# this runs only when synth.awk changes. They were made with Debian's mawk;
# the noise uses only arithmetic that is exact in doubles.
set -eu
cd "$(dirname "$0")"
for sensor in ams applesmc lis3lv02d hdaps; do
	for situation in desk typing lid-close walking bump lift-put-down slide-off drop-flat \
			 tilt-left tilt-right tilt-front tilt-back; do
		awk -v sensor="$sensor" -v situation="$situation" -f synth.awk >"$sensor-$situation.trace"
	done
done
