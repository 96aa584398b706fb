#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsightd told to serve HTTP where it cannot: on a port another program
# listens on, or on an address this machine does not have. It must say
# where and why (the reason the kernel gave, never "Success" or an errno
# left over from something else) and exit 1, so that systemd and scripts
# see it fail, rather than run on without its HTTP side.
. "$(dirname "$0")/lib.sh"

if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
command -v python3 >/dev/null 2>&1 || die "python3 is not installed (scripts/install-deps installs it)"
PC87427=$TESTBEDS/pc87427.umockdev

# The other program: it holds a free port until the test ends.
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(300)
' >"$TMP/port" &
HOLDER=$!
trap 'kill "$HOLDER" 2>/dev/null; rm -rf "$TMP"' EXIT
wait_for 50 test -s "$TMP/port"
port=$(cat "$TMP/port")
[ -n "$port" ] || die "the port holder did not start"

printf '[daemon]\nstate_directory = %s/state\n' "$TMP" >"$TMP/hwsightd.conf"

# A daemon that ran on would be stopped by timeout (exit 124).
under "$PC87427" -- timeout 10 "$HWSIGHTD" -f -c "$TMP/hwsightd.conf" --listen "127.0.0.1:$port"
expect_fail "a port in use: hwsightd exits 1"
expect_line "... saying where, and that the port is in use" \
	"^<3>listen: cannot serve HTTP on 127\\.0\\.0\\.1:$port: Address already in use" "$ERR"
expect_no_line "... not \"Success\"" 'Success' "$ERR"
expect_no_line "... and it never said it was serving" 'serving HTTP' "$ERR"

# 192.0.2.1 (TEST-NET-1) is no address of this machine.
under "$PC87427" -- timeout 10 "$HWSIGHTD" -f -c "$TMP/hwsightd.conf" --listen 192.0.2.1:9787
expect_fail "an address that is not this machine's: hwsightd exits 1"
expect_line "... saying where and why" \
	'^<3>listen: cannot serve HTTP on 192\.0\.2\.1:9787: Cannot assign requested address' "$ERR"

summary
