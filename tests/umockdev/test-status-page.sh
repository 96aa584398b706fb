#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsightd's status page as a browser shows it: headless Chromium loads /
# from the daemon polling the umockdev PC87427 every second and driving
# its pwm1. Its DOM must hold the chip's readings and alarm states and the
# fan's row, and its screenshot must show them, the fan's curve with its
# point, and a history graph per kind of sensor the chip has (temp, fan,
# pwm; it has no in): the screenshot is not blank, and differs from one
# taken with images off by nearly all the graphs' inked pixels.
. "$(dirname "$0")/lib.sh"

for tool in chromium ffmpeg curl python3; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool is not installed (scripts/install-deps installs chromium, ffmpeg, curl, python3)"
done
[ -n "${HWSIGHTD:-}" ] && [ -x "$HWSIGHTD" ] || die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}')"

cleanup_on_exit 'daemon_cleanup; wait 2>/dev/null; rm -rf "$TMP"'

daemon_conf 1s
sed -i "s|^\[daemon\]\$|&\nfan_state = $TMP/fans.state|" "$TMP/hwsightd.conf"
printf '\n[fan cpu]\noutput = pc87427-*/pwm1\nsources = pc87427-*/temp1\ncurve = 30:0 30:100 50:255\ninterval = 1s\n' \
	>>"$TMP/hwsightd.conf"
daemon_start "$TESTBEDS/pc87427.umockdev" "$TMP/hwsightd.conf"
chip=pc87427-isa-0900

# A few seconds of history, so that the last hour's graph has a line.
sleep 5
kinds="temp fan pwm"
# The graph of every kind, as before there were kinds, still answers.
expect_eq "the chip's graph of every kind is a PNG" "200 image/png" \
	"$(curl -s -o "$TMP/graph.png" -w '%{http_code} %{content_type}' "$URL/graph/$chip.png?range=1h")"
# graph_inked KIND: the pixels of the kind's graph that are not white
# ("W H INKED"), from the PNG decoded by ffmpeg, or nothing.
graph_inked() {
	ffmpeg -nostdin -loglevel error -y -i "$TMP/graph-$1.png" -f rawvideo -pix_fmt rgb24 "$TMP/graph-$1.rgb" &&
		python3 - "$TMP/graph-$1.rgb" "$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height \
			-of csv=p=0 "$TMP/graph-$1.png")" <<'EOF'
import sys
a = open(sys.argv[1], "rb").read()
w, h = map(int, sys.argv[2].split(","))
print(w, h, sum(1 for i in range(0, len(a), 3) if a[i:i + 3] != b"\xff\xff\xff"))
EOF
}
inked_graphs=0
for kind in $kinds; do
	expect_eq "the $kind graph is a PNG" "200 image/png" \
		"$(curl -s -o "$TMP/graph-$kind.png" -w '%{http_code} %{content_type}' \
			"$URL/graph/$chip.png?kind=$kind&range=1h")"
	read -r w h inked < <(graph_inked "$kind")
	# 720x240 of plot, its axes, title and legend; lines and text inked.
	expect_eq "the $kind graph decodes to at least 720x240 with over 20000 pixels inked" yes \
		"$([ "${w:-0}" -ge 720 ] && [ "${h:-0}" -ge 240 ] && [ "${inked:-0}" -gt 20000 ] &&
			echo yes || echo "no: ${w:-?}x${h:-?}, ${inked:-?} inked")"
	inked_graphs=$((inked_graphs + ${inked:-0}))
done
expect_eq "a kind the chip does not have: 404 with the reason" "404 $chip has no in sensor to draw" \
	"$(curl -s -w '%{http_code} ' -o "$TMP/body" "$URL/graph/$chip.png?kind=in&range=1h"; cat "$TMP/body")"
expect_eq "a setting is no graph's kind: 400" 400 \
	"$(curl -s -o /dev/null -w '%{http_code}' "$URL/graph/$chip.png?kind=beep_enable&range=1h")"

# chromium ARGS...: headless, no sandbox (root in CI), its profile in $TMP.
chromium_run() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$TMP/chromium" --window-size=1000,3000 "$@" 2>>"$TMP/chromium.log"
}

chromium_run --dump-dom "$URL/" >"$TMP/dom.html"
dom=$(tr -d '\n' <"$TMP/dom.html")
check "the page Chromium loaded names the chip" grep -q "<h2>$chip</h2>" "$TMP/dom.html"
check "fan1 reads 1406 RPM and is ok" grep -qE '<td>fan1</td><td>fan1</td><td class="?n"?>1406 RPM</td>.*<td class="?ok"?>ok</td></tr>' \
	<<<"${dom%%<td>fan2*}"
check "fan3 shows its fault" grep -qE '<td>fan3</td>.*<td class="?fault"?>FAULT</td>' <<<"${dom%%<td>fan4*}"
check "temp2 shows its alarm over max" grep -qE '<td>temp2</td>.*<td class="?alarm"?>ALARM max</td>' \
	<<<"${dom%%<td>temp3*}"
check "the page refreshes itself" grep -qE '<meta http-equiv="?refresh"? content="?[0-9]+' "$TMP/dom.html"
for kind in $kinds; do
	check "the page shows the $kind graph" grep -q "src=\"/graph/$chip.png?kind=$kind&amp;range=1h\"" "$TMP/dom.html"
done
expect_eq "and no other graph (none of in, the chip has no voltage)" 3 "$(grep -o 'src="/graph/' "$TMP/dom.html" | wc -l)"
check "the page has no script" bash -c '! grep -qi "<script" "$0"' "$TMP/dom.html"
check "the fan's row: driven, 39.1 degrees, 170 of 255" grep -qE \
	'<tr><td>cpu</td><td>pc87427-isa-0900/pwm1 \(manual\)</td><td class="?ok"?>driven</td><td class="?n"?>39.1 °C</td><td class="?n"?>170</td><td class="?n"?>170 / 255</td>' \
	"$TMP/dom.html"
# As the browser parsed it: an unquoted value before "/>" would keep the
# slash and leave the frame undrawn.
check "the fan's curve is an SVG with its frame and its point" grep -qE \
	'<svg class="curve"[^>]*><title>[^<]*</title><rect width="160" height="60"></rect><polyline points="[^"]+"></polyline><circle r="3.5" cx="[0-9.]+" cy="[0-9.]+"></circle></svg>' \
	"$TMP/dom.html"

chromium_run --screenshot="$TMP/page.png" "$URL/"
chromium_run --blink-settings=imagesEnabled=false --screenshot="$TMP/noimages.png" "$URL/"
for shot in page noimages; do
	ffmpeg -nostdin -loglevel error -y -i "$TMP/$shot.png" -f rawvideo -pix_fmt rgb24 "$TMP/$shot.rgb" ||
		die "ffmpeg cannot read Chromium's $shot screenshot"
done
# Pixels that are not white, pixels that differ between the two, and the
# pixels of the fan's curve (#36c) and its point (#e70), antialiased.
read -r inked differ total curve point < <(python3 - "$TMP/page.rgb" "$TMP/noimages.rgb" <<'EOF'
import sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
n = min(len(a), len(b)) // 3
inked = sum(1 for i in range(0, n * 3, 3) if a[i:i + 3] != b"\xff\xff\xff")
differ = sum(1 for i in range(0, n * 3, 3) if a[i:i + 3] != b[i:i + 3])
near = lambda i, c: all(abs(a[i + k] - c[k]) < 40 for k in range(3))
curve = sum(1 for i in range(0, n * 3, 3) if near(i, (0x33, 0x66, 0xcc)))
point = sum(1 for i in range(0, n * 3, 3) if near(i, (0xee, 0x77, 0)))
print(inked, differ, n, curve, point)
EOF
)
expect_eq "the screenshot is not blank (over 2% inked)" yes \
	"$([ "$inked" -gt $((total / 50)) ] && echo yes || echo "no: $inked of $total")"
# Each graph's inked pixels are on the page, drawn over white where the
# page without images has its alt text: nine tenths of them at least, which
# a missing graph (a third or so) would fall short of.
expect_eq "the graphs are drawn in it ($differ pixels differ from the page without images; graphs ink $inked_graphs)" yes \
	"$([ "$inked_graphs" -gt 0 ] && [ "$differ" -gt $((inked_graphs * 9 / 10)) ] && echo yes || echo "no: $differ")"

# A 160-pixel-wide curve is some 150 pixels of line, a 7-pixel dot 40;
# nothing else on the page has either colour.
expect_eq "the fan's curve is drawn ($curve pixels of its blue; over 100)" yes \
	"$([ "$curve" -gt 100 ] && echo yes || echo "no: $curve")"
expect_eq "and its point on it ($point pixels of its orange; over 15)" yes \
	"$([ "$point" -gt 15 ] && echo yes || echo "no: $point")"

kill -TERM "$DAEMON_PID"
wait_for 50 gone "$UMOCKDEV_PID"
expect_no_line "no sanitizer report" 'Sanitizer|runtime error' "$(cat "$TMP/daemon.log")"
summary
