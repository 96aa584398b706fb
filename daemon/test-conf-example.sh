#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# daemon/test-conf-example.sh CONF PAGE: the example that hwsightd.conf(5)
# (PAGE) prints under EXAMPLES must be the example file installed as
# /etc/hwsight/hwsightd.conf (CONF), character for character, so that
# neither can change without the other. The page's first .EX block in
# that section is taken, and the escapes it needs undone.

set -u

conf=${1:-}
page=${2:-}
if ! [ -f "$conf" ] || ! [ -f "$page" ]; then
	echo "usage: $0 CONF PAGE" >&2
	exit 1
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hwsight-example.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

sed -n '/^\.SH EXAMPLES/,$p' "$page" |
	sed -n '/^\.EX$/,/^\.EE$/{/^\.EX$/d;/^\.EE$/q;p;}' |
	sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' -e 's/\\&//g' -e 's/\\e/\\/g' \
		>"$TMP/page.conf"

if ! [ -s "$TMP/page.conf" ]; then
	echo "not ok - $page has no .EX block under EXAMPLES"
	exit 1
fi
if diff -u "$conf" "$TMP/page.conf" >"$TMP/diff"; then
	echo "ok - the example in $(basename "$page") is $(basename "$conf")"
	exit 0
fi
echo "not ok - the example in $(basename "$page") differs from $(basename "$conf"):"
sed 's/^/#   /' "$TMP/diff"
exit 1
