#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/package/lab-check.sh DEBDIR: in the lab guest, whose root is an
# overlay that vanishes at power-off, install the four packages of DEBDIR
# with dpkg -i and run debian/tests' autopkgtests on them, the purge last;
# the guest's root is the host's, so their dependencies are the host's
# packages (scripts/install-deps). Exit status: the number of tests that
# failed (a skip counts: every one of them can run in the guest).
set -u
debdir=${1:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${HWS_LAB:-}" ] || { echo "lab-check: run me in the lab (tests/vm/lab run)" >&2; exit 125; }
[ -d "$debdir" ] || { echo "lab-check: no package directory '$debdir'" >&2; exit 125; }

debs=""
for p in libhwsight0 libhwsight-dev hwsight hwsightd; do
	f=$(ls "$debdir/${p}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] || { echo "lab-check: no $p package in $debdir (scripts/build-debs)" >&2; exit 125; }
	debs="$debs $f"
done
# man-db's trigger would index every manual page of the host, minutes
# under TCG; the pages are not what is tested here.
rm -f /var/lib/man-db/auto-update
# shellcheck disable=SC2086 # a list of files
if ! out=$(dpkg -i $debs 2>&1); then
	printf '%s\n' "$out"
	echo "lab-check: dpkg -i failed (a dependency missing on the host? run scripts/install-deps)"
	exit 1
fi
echo "# installed:$(for d in $debs; do printf ' %s' "${d##*/}"; done)"

failed=0
cd "$top" || exit 125
for t in cli daemon udev-rules library purge; do
	start=$(date +%s)
	"$top/debian/tests/$t" 2>&1
	rc=$?
	echo "# debian/tests/$t: exit $rc, $(( $(date +%s) - start )) s"
	[ "$rc" -eq 0 ] || failed=$((failed + 1))
done
exit "$failed"
