#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# daemon/test-unit.sh verify UNIT DAEMON MANDIR
# daemon/test-unit.sh security UNIT THRESHOLD
# daemon/test-unit.sh generator UNIT DAEMON GENERATOR
#
# verify: systemd-analyze verify on the configured hwsightd.service, with
# ExecStart= and ExecStopPost= pointed at the daemon just built (the installed path does not
# exist yet) and the manual pages of MANDIR where man(1) looks for the
# unit's Documentation=. Any message fails the test, not only a non-zero
# exit: systemd-analyze exits 0 on an unknown or misspelt setting
# ("Unknown key 'ProtectKernelTunable' in section [Service], ignoring"),
# and a setting that is silently dropped is a hole in the sandbox.
#
# security: systemd-analyze security --offline on the unit; fails when
# the overall exposure rises above THRESHOLD (as it prints it: 2.0), and
# lists what is exposed either way.
#
# generator: hwsightd-generator with DAEMON on configs listening on
# loopback, on 0.0.0.0 and on a config that does not load: only the
# second gets a drop-in, IPAddressAllow=any, and the unit with it still
# passes systemd-analyze verify.

set -u

die() {
	echo "test-unit: $*" >&2
	exit 1
}

command -v systemd-analyze >/dev/null 2>&1 ||
	die "systemd-analyze is not installed (Debian package systemd)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hwsight-unit.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT

mode=${1:-}
unit=${2:-}
[ -f "$unit" ] || die "no unit file '$unit'"

# unit_with DAEMON DIR: the unit in DIR/hwsightd.service, with only the
# program's path changed to DAEMON's (ExecStart=, and ExecStopPost=, which
# runs --restore-fans): the installed path does not exist yet.
unit_with() {
	[ -x "$1" ] || die "no daemon binary '$1'"
	grep -q '^ExecStart=/[^ ]*/hwsightd ' "$unit" ||
		die "$unit: ExecStart= does not run hwsightd by absolute path"
	sed "s|^\(Exec[A-Za-z]*=\)/[^ ]*/hwsightd |\1$1 |" "$unit" >"$2/hwsightd.service"
}

case $mode in
verify)
	daemon=${3:-}
	mandir=${4:-}
	[ -d "$mandir" ] || die "no manual page directory '$mandir'"
	# systemd-analyze runs in $TMP, and ExecStart= wants an absolute path.
	case $daemon in /*) ;; *) daemon=$PWD/$daemon ;; esac
	case $mandir in /*) ;; *) mandir=$PWD/$mandir ;; esac
	unit_with "$daemon" "$TMP"

	man_opt=--man=yes
	if command -v man >/dev/null 2>&1; then
		for page in "$mandir"/*.[1-8]; do
			section=${page##*.}
			mkdir -p "$TMP/man/man$section"
			ln -s "$page" "$TMP/man/man$section/"
		done
		MANPATH=$TMP/man
		export MANPATH
	else
		echo "# man(1) is not installed: Documentation= is not checked"
		man_opt=--man=no
	fi

	out=$(cd "$TMP" && systemd-analyze verify "$man_opt" ./hwsightd.service 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
		echo "not ok - systemd-analyze verify (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/#   /'
		exit 1
	fi
	echo "ok - systemd-analyze verify: no complaint"
	;;
security)
	threshold=${3:-}
	# --threshold counts in tenths of the exposure it prints.
	tenths=$(echo "$threshold" | awk '/^[0-9]+(\.[0-9])?$/ { printf "%d", $1 * 10 + 0.5 }')
	[ -n "$tenths" ] || die "security needs a THRESHOLD such as 2.0 (got '$threshold')"
	cp "$unit" "$TMP/hwsightd.service"
	out=$(cd "$TMP" && systemd-analyze security --offline=yes --threshold="$tenths" \
		./hwsightd.service 2>&1)
	rc=$?
	verdict=$(printf '%s\n' "$out" | grep 'Overall exposure')
	if [ -z "$verdict" ]; then
		echo "not ok - systemd-analyze security gave no verdict (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/#   /'
		exit 1
	fi
	# What is exposed, and the verdict.
	printf '%s\n' "$out" | grep -E '^✗' | sed 's/^/# /'
	printf '# %s\n' "$verdict"
	if [ "$rc" -ne 0 ]; then
		echo "not ok - exposure above $threshold"
		exit 1
	fi
	echo "ok - exposure at most $threshold"
	;;
generator)
	daemon=${3:-}
	generator=${4:-}
	[ -f "$generator" ] || die "no generator '$generator'"
	case $daemon in /*) ;; *) daemon=$PWD/$daemon ;; esac
	fail=0
	# run NAME LISTEN_LINE: the generator on a config with LISTEN_LINE,
	# into $TMP/NAME.
	run() {
		mkdir -p "$TMP/$1"
		printf '[daemon]\n%s\n' "$2" >"$TMP/$1.conf"
		HWSIGHTD=$daemon HWSIGHTD_CONFIG=$TMP/$1.conf /bin/sh "$generator" "$TMP/$1" "$TMP/$1" "$TMP/$1" ||
			{ echo "not ok - $1: the generator failed"; fail=1; }
	}
	run loopback 'listen = 127.0.0.1:9787'
	if [ -e "$TMP/loopback/hwsightd.service.d" ]; then
		echo "not ok - listen = 127.0.0.1: no drop-in (the unit's localhost is right)"
		fail=1
	else
		echo "ok - listen = 127.0.0.1: no drop-in"
	fi
	run broken 'listen = 0.0.0.0:9787
no key here'
	if [ -e "$TMP/broken/hwsightd.service.d" ]; then
		echo "not ok - a config that does not load: no drop-in"
		fail=1
	else
		echo "ok - a config that does not load: no drop-in"
	fi
	run any 'listen = 0.0.0.0:9787'
	dropin=$TMP/any/hwsightd.service.d/50-listen.conf
	if [ "$(grep '^IPAddressAllow=' "$dropin" 2>/dev/null)" = IPAddressAllow=any ]; then
		echo "ok - listen = 0.0.0.0: a drop-in with IPAddressAllow=any"
	else
		echo "not ok - listen = 0.0.0.0: a drop-in with IPAddressAllow=any"
		sed 's/^/#   /' "$dropin" 2>/dev/null
		fail=1
	fi
	unit_with "$daemon" "$TMP/any"
	out=$(cd "$TMP/any" && systemd-analyze verify --man=no ./hwsightd.service 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
		echo "not ok - systemd-analyze verify with the drop-in (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/#   /'
		fail=1
	else
		echo "ok - systemd-analyze verify with the drop-in: no complaint"
	fi
	exit "$fail"
	;;
*)
	die "usage: $0 verify UNIT DAEMON MANDIR | security UNIT THRESHOLD | generator UNIT DAEMON GENERATOR"
	;;
esac
