#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsightd exposed as a fleet scrapes it: HTTPS with a certificate made
# here by openssl, and basic auth from a users file made by htpasswd -B,
# against the umockdev PC87427. A client without the password, or with a
# wrong one, gets 401 and the header that asks for one; plain HTTP on the
# TLS port gets no answer; a real Prometheus scrapes over TLS (checking
# the certificate) with the password; a SIGHUP brings in a changed users
# file, and a broken one is refused with FILE:LINE while the running
# passwords stay. Configs that would expose what they should not (a bad
# certificate path, a key that is not the certificate's, cameras on
# 0.0.0.0 without a password) are refused with FILE:LINE.
. "$(dirname "$0")/lib.sh"

if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
for tool in prometheus curl python3 openssl htpasswd; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed (scripts/install-deps installs prometheus, curl, python3, openssl and apache2-utils)"
done
PC87427=$TESTBEDS/pc87427.umockdev

cleanup_on_exit 'prometheus_stop; daemon_cleanup; wait 2>/dev/null; rm -rf "$TMP"'

# make_cert: a new self-signed certificate for 127.0.0.1 in cert.pem, which
# the clients check against itself as the CA, and its key in key.pem.
make_cert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>"$TMP/openssl.log" ||
		die "openssl could not make a certificate: $(cat "$TMP/openssl.log")"
}
# A certificate, and a second key that is not its own.
make_cert
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$TMP/other-key.pem" 2>>"$TMP/openssl.log" ||
	die "openssl could not make a key: $(cat "$TMP/openssl.log")"
htpasswd -nbB prometheus scrape-secret >"$TMP/users" && htpasswd -nbB admin 'admin secret' >>"$TMP/users" ||
	die "htpasswd could not write the users file"

# status ARGS...: the HTTP status curl gets, 000 for none.
status() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$TMP/cert.pem" "$@"; }

# --- the exposed daemon.
daemon_conf 200ms
cat >>"$TMP/hwsightd.conf" <<EOF

[http]
tls_cert_file = $TMP/cert.pem
tls_key_file = $TMP/key.pem
basic_auth_users = $TMP/users
EOF
daemon_start "$PC87427" "$TMP/hwsightd.conf"
expect_line "it says it serves HTTPS with basic auth" '^<6>serving HTTPS on .* with basic auth$' \
	"$(cat "$TMP/daemon.log")"
port=${URL##*:}

expect_eq "no password: 401" 401 "$(status "$URL/metrics")"
expect_line "... with WWW-Authenticate: Basic" '^WWW-Authenticate: Basic realm="hwsightd"' \
	"$(curl -s -D - -o /dev/null --max-time 5 --cacert "$TMP/cert.pem" "$URL/metrics" | tr -d '\r')"
expect_eq "a wrong password: 401" 401 "$(status -u prometheus:wrong "$URL/metrics")"
expect_eq "a user not in the file: 401" 401 "$(status -u nobody:scrape-secret "$URL/metrics")"
expect_eq "another user's password: 401" 401 "$(status -u prometheus:'admin secret' "$URL/metrics")"
expect_eq "the camera routes ask too: 401" 401 "$(status "$URL/snapshot.jpg")"
expect_eq "the right password: 200" 200 "$(status -u prometheus:scrape-secret "$URL/metrics")"
expect_eq "... again, the check remembered: 200" 200 "$(status -u prometheus:scrape-secret "$URL/metrics")"
expect_eq "the other user, a password with a space: 200" 200 "$(status -u 'admin:admin secret' "$URL/api/v1/sensors")"
expect_line "the body is the metrics" '^hwsight_fan_rpm\{chip="pc87427-isa-0900",sensor="fan1".*\} 1406$' \
	"$(curl -s --max-time 5 --cacert "$TMP/cert.pem" -u prometheus:scrape-secret "$URL/metrics")"
expect_eq "plain HTTP on the TLS port: no answer" 000 "$(status "http://127.0.0.1:$port/metrics")"
expect_eq "... and the server still answers over TLS" 200 "$(status -u prometheus:scrape-secret "$URL/metrics")"

# --- a real Prometheus, checking the certificate and sending the password.
prometheus_start <<EOF
  - job_name: hwsightd
    scheme: https
    tls_config:
      ca_file: $TMP/cert.pem
    basic_auth:
      username: prometheus
      password: scrape-secret
    static_configs:
      - targets: ['127.0.0.1:$port']
  - job_name: nopassword
    scheme: https
    tls_config:
      ca_file: $TMP/cert.pem
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
prom_scrapes hwsightd 3
check "Prometheus scraped hwsightd over TLS within 30 s (scrapes: $SCRAPES)" [ "$SCRAPES" -ge 3 ]
expect_eq "Prometheus: the target is healthy, with no scrape error" '["up",""]' \
	"$(curl -s "$PROM/api/v1/targets" |
		jq -c '.data.activeTargets[] | select(.labels.job == "hwsightd") | [.health, .lastError]')"
expect_eq "Prometheus: fan1 as the testbed has it (fan1_input=1406)" 1406 \
	"$(prom 'hwsight_fan_rpm{job="hwsightd",sensor="fan1"}' | jq -r '.data.result[0].value[1]')"
prom_scrapes nopassword 1
expect_line "Prometheus without the password: the target is down with a 401" '^\["down",".*401' \
	"$(curl -s "$PROM/api/v1/targets" |
		jq -c '.data.activeTargets[] | select(.labels.job == "nopassword") | [.health, .lastError]')"

# --- SIGHUP: a changed users file comes in, a broken one does not.
htpasswd -nbB prometheus new-secret >"$TMP/users"
kill -HUP "$DAEMON_PID"
# lets_in USER:PASSWORD: the daemon answers 200 to it.
lets_in() { [ "$(status -u "$1" "$URL/metrics")" = 200 ]; }
wait_for 100 lets_in prometheus:new-secret
expect_eq "after SIGHUP: the new password: 200" 200 "$(status -u prometheus:new-secret "$URL/metrics")"
expect_eq "... the old one (remembered before): 401" 401 "$(status -u prometheus:scrape-secret "$URL/metrics")"
expect_eq "... a user no longer in the file: 401" 401 "$(status -u 'admin:admin secret' "$URL/metrics")"

printf 'prometheus:new-secret\n' >"$TMP/users"
lines=$(wc -l <"$TMP/daemon.log")
kill -HUP "$DAEMON_PID"
wait_for 100 grep -q 'reload refused' "$TMP/daemon.log"
expect_line "a users file with a line that is no bcrypt hash: refused with its FILE:LINE" \
	"^<3>$TMP/users:1: not USER:BCRYPT-HASH .*\\($TMP/hwsightd.conf:[0-9]+: basic_auth_users\\)$" \
	"$(tail -n +"$lines" "$TMP/daemon.log")"
expect_eq "... and the running passwords stay: 200" 200 "$(status -u prometheus:new-secret "$URL/metrics")"
check "... the daemon runs on" kill -0 "$DAEMON_PID"
htpasswd -nbB prometheus new-secret >"$TMP/users"

# A new certificate and key: the server starts again with them (on
# another port, as the test listens on port 0).
cp "$TMP/cert.pem" "$TMP/old-cert.pem"
make_cert
kill -HUP "$DAEMON_PID"
# new_port: the port of the second "serving HTTPS" line, if there is one.
new_port() { sed -n 's/.*serving HTTPS on 127\.0\.0\.1:0 (port \([0-9]*\)).*/\1/p' "$TMP/daemon.log" | sed -n 2p; }
has_new_port() { [ -n "$(new_port)" ]; }
wait_for 100 has_new_port
URL=https://127.0.0.1:$(new_port)
expect_eq "after SIGHUP with a new certificate: served with it" 200 "$(status -u prometheus:new-secret "$URL/metrics")"
expect_eq "... and no longer with the old one" 000 \
	"$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$TMP/old-cert.pem" "$URL/metrics")"

# --- SIGTERM: a clean exit, and (under ASan) no leak.
prometheus_stop
daemon_stop

# --- configs refused at the start, with FILE:LINE.
# conf_http LINE...: $TMP/bad.conf, a [daemon] for a quick refusal and the
# given lines after it.
conf_http() {
	printf '[daemon]\nstate_directory = %s/state\nlog_target = stderr\n' "$TMP" >"$TMP/bad.conf"
	printf '%s\n' "$@" >>"$TMP/bad.conf"
}
# refused WHAT ERE [OPTION...]: hwsightd -f with bad.conf exits 1 and its
# error matches ERE.
refused() {
	local what=$1 ere=$2
	shift 2
	under "$PC87427" -- timeout 10 "$HWSIGHTD" -f -c "$TMP/bad.conf" --listen 127.0.0.1:0 "$@"
	expect_fail "$what: hwsightd exits 1"
	expect_line "... saying where and why" "$ere" "$ERR"
	expect_no_line "... and it never served" 'serving HTTP' "$ERR"
}

conf_http '[http]' "tls_cert_file = $TMP/missing.pem" "tls_key_file = $TMP/key.pem"
refused "a certificate path that does not exist" \
	"^<3>$TMP/bad.conf:5: tls_cert_file: $TMP/missing.pem: No such file or directory$"
conf_http '[http]' "tls_cert_file = $TMP/cert.pem" "tls_key_file = $TMP/missing.pem"
refused "a key path that does not exist" \
	"^<3>$TMP/bad.conf:6: tls_key_file: $TMP/missing.pem: No such file or directory$"
conf_http '[http]' "tls_cert_file = $TMP/users" "tls_key_file = $TMP/key.pem"
refused "a certificate file that holds none" \
	"^<3>$TMP/bad.conf:5: tls_cert_file: $TMP/users and $TMP/key.pem are not a PEM certificate"
conf_http '[http]' "tls_cert_file = $TMP/cert.pem" "tls_key_file = $TMP/other-key.pem"
refused "a key that is not the certificate's" \
	"^<3>$TMP/bad.conf:6: tls_key_file: $TMP/other-key.pem is not the key of $TMP/cert.pem$"
conf_http '[http]' "tls_cert_file = $TMP/cert.pem"
refused "a certificate without its key" \
	"^<3>$TMP/bad.conf:5: tls_cert_file without tls_key_file"
conf_http '[http]' "basic_auth_users = $TMP/missing"
refused "a users file that does not exist" \
	"^<3>$TMP/bad.conf:5: basic_auth_users: $TMP/missing: No such file or directory$"

conf_http 'listen = 0.0.0.0:9787' '[camera front]' 'device = /dev/video0'
refused "cameras on 0.0.0.0 without a password" \
	"^<3>$TMP/bad.conf:4: listen = 0\\.0\\.0\\.0:9787 serves the cameras' frames to every machine .*cameras_without_auth = yes$"
under "$PC87427" -- "$HWSIGHTD" -t -c "$TMP/bad.conf"
expect_fail "... hwsightd -t refuses it too"
conf_http '[camera front]' 'device = /dev/video0'
refused "cameras on --listen [::] without a password" \
	"^<3>--listen \\[::\\]:0 serves the cameras' frames to every machine" --listen '[::]:0'
conf_http 'listen = 0.0.0.0:9787' '[camera front]' 'device = /dev/video0' '[http]' 'cameras_without_auth = yes'
under "$PC87427" -- "$HWSIGHTD" -t -c "$TMP/bad.conf"
expect_exit "cameras on 0.0.0.0 with cameras_without_auth = yes: accepted" 0
conf_http 'listen = 0.0.0.0:9787' '[camera front]' 'device = /dev/video0' '[http]' "basic_auth_users = $TMP/users"
under "$PC87427" -- "$HWSIGHTD" -t -c "$TMP/bad.conf"
expect_exit "cameras on 0.0.0.0 with a password: accepted" 0
conf_http 'listen = 0.0.0.0:9787'
under "$PC87427" -- "$HWSIGHTD" -t -c "$TMP/bad.conf"
expect_exit "0.0.0.0 without a camera and without a password: accepted" 0

# --- the unit's IP allow-list follows listen=.
under "$PC87427" -- "$HWSIGHTD" --print-ip-allow -c "$TMP/bad.conf"
expect_eq "--print-ip-allow, listen = 0.0.0.0: any" any "$OUT"
under "$PC87427" -- "$HWSIGHTD" --print-ip-allow -c "$TMP/hwsightd.conf"
expect_eq "--print-ip-allow, the default listen: localhost" localhost "$OUT"
under "$PC87427" -- "$HWSIGHTD" --print-ip-allow -c "$TMP/hwsightd.conf" --listen '[::1]:9787'
expect_eq "--print-ip-allow, --listen [::1]: localhost" localhost "$OUT"
conf_http 'listen = 0.0.0.0:9787' 'poll_interval = soon'
under "$PC87427" -- "$HWSIGHTD" --print-ip-allow -c "$TMP/bad.conf"
expect_fail "--print-ip-allow, a config that does not load: exits 1"
expect_eq "... and prints no allow-list" "" "$OUT"
expect_line "... saying where and why" "^<3>$TMP/bad.conf:[0-9]+: " "$ERR"

summary
