#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/package/test-symbols.sh LIBRARY SRCDIR: the symbols file that
# debian/gen-symbols makes from lib/libhwsight.map names exactly what the
# built LIBRARY exports, each in its version node, the nodes themselves
# included (as dpkg-gensymbols lists them), and gives each a version no
# later than the package's own, so that what is built against it can be
# installed.
. "$(dirname "$0")/../tap.sh"

[ $# -eq 2 ] || die "usage: test-symbols.sh LIBRARY SRCDIR"
lib=$1 src=$2
for tool in nm dpkg dpkg-parsechangelog; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done
symbols=$("$src/debian/gen-symbols" "$src/lib/libhwsight.map") || die "debian/gen-symbols failed"

expect_eq "the symbols file is for libhwsight.so.0 in libhwsight0" \
	"libhwsight.so.0 libhwsight0 #MINVER#" "$(head -n 1 <<<"$symbols")"
listed=$(sed -n 's/^ \([^ ]*\) .*/\1/p' <<<"$symbols" | sort)
# nm shows a version node as an absolute symbol of that name, which
# dpkg-gensymbols calls NODE@NODE.
exported=$(nm -D --defined-only "$lib" |
	awk '$2 == "A" && $3 !~ /@/ { $3 = $3 "@" $3 } { sub(/@@/, "@", $3); print $3 }' | sort)
[ -n "$listed" ] || die "debian/gen-symbols listed no symbol"
expect_same "it lists exactly what nm -D shows the library export, NAME@NODE" "$exported" "$listed"

package=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
late=$(sed -n 's/^ [^ ]* \(.*\)/\1/p' <<<"$symbols" | sort -u | while read -r v; do
	dpkg --compare-versions "$v" le "$package" || echo "$v"
done)
expect_eq "no symbol asks for a release after the package's $package" "" "$late"
summary
