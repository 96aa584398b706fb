# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The checks every shell test here reports with (sourced): "ok - WHAT" or
# "not ok - WHAT" followed by "#"-lines showing both sides, a tally, and
# the exit status. The lab's checks (tests/vm/checks/lib.sh) keep their own
# lab_* names, as they run inside the guest.

PASS=0
FAIL=0

die() {
	printf 'not ok - %s\n' "$*"
	printf 'Bail out! %s\n' "$*" >&2
	exit 1
}

ok() {
	PASS=$((PASS + 1))
	printf 'ok - %s\n' "$1"
}

# not_ok WHAT [DETAIL...]: each detail line is printed after "#   ".
not_ok() {
	local what=$1 line
	FAIL=$((FAIL + 1))
	printf 'not ok - %s\n' "$what"
	shift
	for line in "$@"; do
		printf '%s\n' "$line" | cut -c1-300 | sed 's/^/#   /'
	done
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected: $2" "actual:   $3"
	fi
}

# expect_same WHAT EXPECTED_TEXT ACTUAL_TEXT: multi-line, shows a diff.
expect_same() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "$(diff -u --label expected --label actual \
			<(printf '%s\n' "$2") <(printf '%s\n' "$3"))"
	fi
}

# expect_line WHAT ERE TEXT: some line of TEXT matches the extended regex.
expect_line() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		ok "$1"
	else
		not_ok "$1" "no line matches: $2" "in:" "$3"
	fi
}

# check WHAT COMMAND...: ok if COMMAND succeeds.
check() {
	local what=$1
	shift
	if "$@"; then
		ok "$what"
	else
		not_ok "$what" "failed: $*"
	fi
}

summary() {
	printf '# %d passed, %d failed\n' "$PASS" "$FAIL"
	[ "$FAIL" -eq 0 ]
}
