#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsightd's HTTP side against the umockdev PC87427, as its users meet it.
# A real Prometheus (Debian's package) scrapes /metrics every second, and
# its query API must give back the values hwsightd's own JSON API gives.
# Then clients that misbehave (a 1 MB header, garbage, resets, methods and
# parameters it does not take, 60 slowloris connections from other
# addresses) come while the chip is polled every 200 ms: the daemon must
# keep serving, polling and Prometheus' scrapes succeeding, and once they
# are gone hold no more threads and descriptors than before. It is also
# the HTTP side's run under the sanitizers (label "daemon").
. "$(dirname "$0")/lib.sh"

if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
for tool in prometheus curl python3; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed (scripts/install-deps installs prometheus, curl and python3)"
done
PC87427=$TESTBEDS/pc87427.umockdev

# Everything started here is stopped on every way out.
SLOW_PID=''
cleanup() {
	local pid
	for pid in $SLOW_PID $PROM_PID; do
		kill -TERM "$pid" 2>/dev/null
	done
	daemon_cleanup
	for pid in $SLOW_PID $PROM_PID; do
		kill -KILL "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$TMP"
}
cleanup_on_exit cleanup

# The clients curl cannot be: raw bytes, resets, slowloris.
CLIENT=$(dirname "$0")/../helpers/http-client.py
# (Those run in the background are started without it, for their pid.)
client() { python3 "$CLIENT" "$@"; }

threads() { find "/proc/$DAEMON_PID/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
fds() { find "/proc/$DAEMON_PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
# status ARGS...: the HTTP status curl gets, 000 for none.
status() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
polls() {
	curl -s --max-time 5 "$URL/metrics" |
		sed -n 's/^hwsight_chip_polls_total{chip="pc87427-isa-0900"} \([0-9]*\)$/\1/p'
}

# --- hwsightd under the testbed; the wrapper tells its pid.
daemon_conf 200ms
start=$SECONDS
daemon_start "$PC87427" "$TMP/hwsightd.conf"
port=${URL##*:}
curl -s "$URL/api/v1/sensors" >"$TMP/sensors.json"

# --- Prometheus, scraping every second.
prometheus_start <<EOF
  - job_name: hwsightd
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF

# Until three scrapes are in (the first one within about a second).
prom_scrapes hwsightd 3
check "Prometheus scraped hwsightd within 30 s (scrapes: $SCRAPES)" [ "$SCRAPES" -ge 3 ]
expect_eq "Prometheus: up{job=\"hwsightd\"} is 1" 1 \
	"$(prom 'up{job="hwsightd"}' | jq -r '.data.result[0].value[1]')"
expect_eq "Prometheus: the target is healthy, with no scrape error" '["up",""]' \
	"$(curl -s "$PROM/api/v1/targets" |
		jq -c '.data.activeTargets[] | select(.labels.job == "hwsightd") | [.health, .lastError]')"

# same_values WHAT METRIC KIND FIELD: Prometheus' METRIC series and the
# JSON API's FIELD of the features of KIND, as (chip, sensor, value).
same_values() {
	local api from_prom
	api=$(jq -c --arg kind "$3" --arg field "$4" '[.hwsight.chips[] | .name as $chip | .features[]
		| select(.kind == $kind and .[$field] != null)
		| {chip: $chip, sensor: .name, value: (.[$field] | if type == "boolean" then (if . then 1 else 0 end) else . end)}]
		| sort' "$TMP/sensors.json")
	from_prom=$(prom "$2" | jq -c '[.data.result[]
		| {chip: .metric.chip, sensor: .metric.sensor, value: (.value[1] | tonumber)}] | sort')
	if [ "$api" = "[]" ]; then
		not_ok "$1" "/api/v1/sensors has no $3 sensor with a $4"
	else
		expect_eq "$1" "$api" "$from_prom"
	fi
}
same_values "Prometheus: hwsight_fan_rpm, each fan as /api/v1/sensors has it" hwsight_fan_rpm fan value
same_values "Prometheus: hwsight_temp_celsius, each temperature" hwsight_temp_celsius temp value
same_values "Prometheus: hwsight_pwm_raw, each PWM output" hwsight_pwm_raw pwm value
same_values "Prometheus: hwsight_fan_min_rpm, the fans' low limits" hwsight_fan_min_rpm fan min
same_values "Prometheus: hwsight_temp_max_celsius, the high limits" hwsight_temp_max_celsius temp max
same_values "Prometheus: hwsight_temp_alarm, the alarm bits" hwsight_temp_alarm temp alarm
# Both sides could be wrong the same way: anchor them to the testbed.
expect_eq "Prometheus: fan1 as the testbed has it (fan1_input=1406)" 1406 \
	"$(prom 'hwsight_fan_rpm{sensor="fan1"}' | jq -r '.data.result[0].value[1]')"
expect_eq "Prometheus: temp1 as the testbed has it (temp1_input=39062)" 39.062 \
	"$(prom 'hwsight_temp_celsius{sensor="temp1"}' | jq -r '.data.result[0].value[1]')"

# --- misbehaving clients, while the chip is polled and Prometheus scrapes.
# The levels to come back to; a closed connection's descriptor is let go
# when the next one comes, so one request first.
status "$URL/metrics" >/dev/null
sleep 0.5
threads0=$(threads) fds0=$(fds) polls0=$(polls)

# 60 slowloris connections, 15 from each of four addresses (the limits are
# 64 in all and 16 from one address), so 127.0.0.1 has room.
rm -f "$TMP/release"
python3 "$CLIENT" slow "$port" 60 "$TMP/release" 60 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 >"$TMP/slow.out" &
SLOW_PID=$!
wait_for 100 grep -q '^opened' "$TMP/slow.out"
attack_start=$SECONDS
sleep 1
expect_eq "60 slow connections from 127.0.0.2-5 are accepted" "opened 60 failed 0" \
	"$(sed -n 1p "$TMP/slow.out")"
fds_held=$(fds)
check "... and held by the daemon, a socket each (descriptors: $fds0 before, $fds_held now)" \
	[ "$fds_held" -ge $((fds0 + 55)) ]
check "... by its pool of threads, not a thread each (threads: $threads0 before, $(threads) now)" \
	[ "$(threads)" -le $((threads0 + 2)) ]

# While they are held: the requests it must refuse, each with its reason.
out=$(printf 'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n' "$(head -c 1048576 /dev/zero | tr '\0' a)" |
	client raw "$port")
check "a 1 MB header: 431 or the connection closed (got \"$out\")" \
	grep -Eqx 'HTTP/1\.1 431 .*|closed' <<<"$out"
out=$(curl -s -i --max-time 5 "$URL/metrics?range=1h" | tr -d '\r')
expect_line "an unknown parameter: 400 ..." '^HTTP/1\.1 400 ' "$out"
expect_line "... saying which" '^/metrics takes no parameter "range"$' "$out"
out=$(curl -s -i --max-time 5 "$URL/api/v1/sensors?a=1&b=2&c" | tr -d '\r')
expect_line "several on the JSON API: 400 and the first one" '^/api/v1/sensors takes no parameter "a"$' "$out"
out=$(curl -s -i --max-time 5 --path-as-is "$URL/nope/../etc/passwd" | tr -d '\r')
expect_line "an unknown path: 404 ..." '^HTTP/1\.1 404 ' "$out"
expect_line "... saying so" '^no such page$' "$out"
expect_eq "two requests on one connection (keep-alive): one connect" "1 0" \
	"$(curl -s -o /dev/null -o /dev/null -w '%{num_connects} ' "$URL/metrics" "$URL/api/v1/sensors" | sed 's/ $//')"
# Names from the request are only compared with known ones: none is a path.
for path in "graph/../../../etc/passwd.png" "graph/..%2f..%2fetc%2fpasswd.png" "graph/%2e%2e.png" \
	    "graph/pc87427-isa-0900" "graph/nochip.png" "snapshot.jpg?camera=..%2f..%2fetc%2fpasswd" \
	    "stream.mjpg?camera=nocam"; do
	expect_eq "/$path: 404" 404 "$(status --path-as-is "$URL/$path")"
done
expect_eq "a history range it does not draw: 400" 400 "$(status "$URL/graph/pc87427-isa-0900.png?range=..%2f1h")"
expect_eq "a camera request without camera=: 400" 400 "$(status "$URL/snapshot.jpg")"
for method in POST PUT DELETE; do
	out=$(curl -s -i --max-time 5 -X "$method" "$URL/metrics" | tr -d '\r')
	expect_eq "$method: 405 with \"Allow: GET, HEAD\"" "HTTP/1.1 405 Method Not Allowed|Allow: GET, HEAD" \
		"$(grep -E '^HTTP/|^Allow:' <<<"$out" | paste -sd'|')"
done
expect_eq "POST with a body: 405" 405 "$(status -d 'a=1' "$URL/metrics")"
expect_eq "GET with a body: 400 \"a GET has no body\"" 400 "$(status -X GET -d 'a=1' "$URL/metrics")"
out=$(printf '\x01\xfe\x80\x7fgarbage \xff\xff HTTP/\x01\r\n\r\n' | client raw "$port")
expect_eq "a request line of garbage bytes: 400" "HTTP/1.1 400 Bad Request" "$out"
out=$(printf '\x00\x00\r\n\x00GET / HTTP/1.1\r\n\r\n' | client raw "$port" 1)
check "NUL bytes: refused, dropped or left to time out, never served (got \"$out\")" \
	grep -Eqvx 'HTTP/1\.1 [23].*' <<<"$out"
out=$(printf 'GET /metrics\r\n\r\n' | client raw "$port")
check "HTTP/0.9 style (no version): refused (got \"$out\")" \
	grep -Eqx 'HTTP/1\.1 (400|505) .*' <<<"$out"
out=$(printf 'GET /metrics HTTP/0.9\r\n\r\n' | client raw "$port")
expect_eq "\"HTTP/0.9\": 505" "HTTP/1.1 505 HTTP Version Not Supported" "$out"
for _ in 1 2 3 4 5; do client knock "$port"; done
for _ in 1 2 3 4 5; do client reset "$port"; done
expect_eq "HEAD /metrics: 200 after clients that connected and left, or reset mid-request" 200 \
	"$(status -I "$URL/metrics")"

# Hold them past the 10 s idle timeout: a byte a second keeps each alive.
while [ $((SECONDS - attack_start)) -lt 12 ]; do sleep 0.5; done
out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 2 "$URL/metrics")
check "held for $((SECONDS - attack_start)) s, /metrics still answers 200 within 2 s (got: $out)" \
	[ "${out%% *}" = 200 ]
polls1=$(polls)
elapsed=$((SECONDS - attack_start + 1))
check "the chip is polled on: $((polls1 - polls0)) polls in ~$elapsed s at 200 ms" \
	[ "$((polls1 - polls0))" -ge "$((elapsed * 5 / 2))" ]
# Else the checks above were not made under attack.
check "the slow connections were held all along (descriptors: $(fds))" \
	[ "$(fds)" -ge $((fds0 + 55)) ]

# Released: their descriptors are closed, without waiting for the next
# connection to wake libmicrohttpd.
touch "$TMP/release"
wait "$SLOW_PID"
SLOW_PID=
for _ in $(seq 30); do
	[ "$(fds)" -le $((fds0 + 3)) ] && break
	sleep 0.1
done
n=$(fds)
expect_eq "... and the descriptors back near $fds0 without a new request" yes "$([ "$n" -le $((fds0 + 3)) ] && echo yes || echo "no: $n")"
expect_eq "after them, /metrics answers 200" 200 "$(status "$URL/metrics")"
sleep 0.3
check "then the descriptors are back near $fds0 (now: $(fds))" [ "$(fds)" -le $((fds0 + 3)) ]

# The limit of one address.
rm -f "$TMP/release"
python3 "$CLIENT" slow "$port" 17 "$TMP/release" 60 127.0.0.6 >"$TMP/slow.out" &
SLOW_PID=$!
# Released once the server has taken all 17 from its accept queue and
# closed the one past the limit: a loaded machine (TSan) may take seconds.
# In that order: the queue empty, then 16 held.
all_taken() {
	grep -q '^opened 17 ' "$TMP/slow.out" &&
		[ "$(ss -Hltn "sport = :$port" | awk '{ print $2 }')" = 0 ] &&
		[ "$(ss -Htn state established "( sport = :$port and dst 127.0.0.6 )" | wc -l)" = 16 ]
}
wait_for 300 all_taken
touch "$TMP/release"
wait "$SLOW_PID"
SLOW_PID=
expect_eq "the 17th connection from one address is closed at once" "held 16 dropped 1" \
	"$(sed -n 2p "$TMP/slow.out")"
scrapes=$(prom "count_over_time(up{job=\"hwsightd\"}[$((SECONDS - attack_start))s])" | jq -r '.data.result[0].value[1] // 0')
scrapes=${scrapes:-0}
expect_eq "Prometheus' scrapes all succeeded, through the attacks (scrapes in them: $scrapes)" 1 \
	"$(prom 'min_over_time(up{job="hwsightd"}[5m])' | jq -r '.data.result[0].value[1]')"
check "... and went on every second or so" [ "$scrapes" -ge $(((SECONDS - attack_start) / 2)) ]
kill -TERM "$PROM_PID"
wait "$PROM_PID"
PROM_PID=

# A full house, Prometheus gone: what its 64 connections leave behind.
status "$URL/metrics" >/dev/null
rm -f "$TMP/release"
python3 "$CLIENT" slow "$port" 64 "$TMP/release" 60 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 >"$TMP/slow.out" &
SLOW_PID=$!
wait_for 100 grep -q '^opened' "$TMP/slow.out"
sleep 0.5
expect_eq "with 64 connections held, a 65th is refused" 000 "$(status "$URL/metrics")"
touch "$TMP/release"
wait "$SLOW_PID"
SLOW_PID=
sleep 0.5
expect_eq "once they are gone, the next request is served" 200 "$(status "$URL/metrics")"
expect_eq "... and the one after it" 200 "$(status "$URL/metrics")"

polls2=$(polls)
check "polling went on throughout ($polls0, $polls1, $polls2 polls)" [ "$polls2" -gt "$polls1" ]

# --- SIGTERM: a clean exit, and (under ASan) no leak.
daemon_stop
printf '# %d s\n' $((SECONDS - start))

summary
