#!/bin/bash
# Every pixel format vivid's webcam offers, captured by hwsight capture and
# served by hwsightd, with the images decoded by code that is not ours
# (TurboJPEG's decompressor, a PNG reader on Python's zlib, the PPM header)
# and their size and vivid's 75% colour bars checked: the bars' order and
# hue (white, yellow, cyan, green, magenta, red, blue, black) in the colour
# formats, falling brightness in the grey ones.
#
# The formats issue 15 names go to JPEG, PNG and PPM, the others vivid
# offers to JPEG; each is captured from that format itself, without
# libv4lconvert (the stats say what the device sent). HSV, which neither
# hwsight nor libv4lconvert converts, is refused with a clear message.
# hwsightd serves /snapshot.jpg, /stream.mjpg and its periodic snapshots
# from a webcam left in YVU420 and a TV input left in NV12, and from a
# webcam left in HSV, which it moves to a format of its own that we take.
# vivid's text overlay is switched off for the bars and put back after.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

hwsight=$HWS_BUILD_DIR/tools/hwsight
hwsightd=$HWS_BUILD_DIR/daemon/hwsightd
cam=/dev/video0
tv=/dev/video1
tmp=$(mktemp -d)
url=http://127.0.0.1:9788

listed="YUYV UYVY YVYU VYUY YU12 YV12 NV12 NV21 422P NV16 NV61 GREY RGBP RGBR RGBO R444
	RGB3 BGR3 RGB4 BGR4 AR24 XR24 BA24 BX24 AB24 XB24 RA24 RX24 BA81 GBRG GRBG RGGB"
refused="HSV3 HSV4"
# Luma only: the bars must get darker from left to right.
grey="GREY Y10 Y12 Y16 Y16-BE"

cam_fmt=$(v4l2-ctl -d $cam -V | sed -n "s/.*Pixel Format *: *'\([^']*\)'.*/\1/p")
tv_fmt=$(v4l2-ctl -d $tv -V | sed -n "s/.*Pixel Format *: *'\([^']*\)'.*/\1/p")
restore() {
	v4l2-ctl -d $cam -c osd_text_mode=0 -v "pixelformat=$cam_fmt" >/dev/null 2>&1
	v4l2-ctl -d $tv -c osd_text_mode=0 -i 0 -v "pixelformat=$tv_fmt" >/dev/null 2>&1
}
trap 'restore; rm -rf "$tmp"' EXIT
v4l2-ctl -d $cam -c osd_text_mode=2 >/dev/null
v4l2-ctl -d $tv -i 1 -c osd_text_mode=2 >/dev/null

# "Y16 -BE" as v4l2-ctl lists it, "Y16-BE" as hwsight takes it.
all=$(v4l2-ctl -d $cam --list-formats | sed -n "s/.*\[[0-9]*\]: '\([^']*\)'.*/\1/p" | tr -d ' ')
lab_eq "vivid's webcam offers 83 formats" 83 "$(wc -w <<<"$all")"
for f in $listed $refused; do
	grep -qx -- "$f" <<<"$all" || lab_not_ok "vivid offers $f"
done

in_list() { [[ " $(echo $2) " == *" $1 "* ]]; }
kind() { in_list "$1" "$grey" && echo grey || echo colour; }

# check.py FILE KIND...: "FILE WxH BARS" per file, BARS the letters of the
# eight bars (W Y C G M R B K, ? for none) or "darker" for grey, each bar
# read as the mean of a 5x5 patch at its centre, three quarters down.
cat >"$tmp/check.py" <<'PY'
import ctypes, sys, zlib

tj = ctypes.CDLL("libturbojpeg.so.0")
tj.tjInitDecompress.restype = ctypes.c_void_p
tj.tjDecompressHeader3.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulong] + [ctypes.c_void_p] * 4
tj.tjDecompress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p] + [ctypes.c_int] * 5
handle = tj.tjInitDecompress()

def jpeg(data, rows_of):
    w, h, ss, cs = (ctypes.c_int() for _ in range(4))
    if tj.tjDecompressHeader3(handle, data, len(data), *(ctypes.byref(v) for v in (w, h, ss, cs))):
        raise ValueError("not a JPEG")
    out = ctypes.create_string_buffer(w.value * h.value * 3)
    if tj.tjDecompress2(handle, data, len(data), out, w.value, 0, h.value, 0, 0):  # TJPF_RGB
        raise ValueError("JPEG does not decode")
    return w.value, h.value, 3, out.raw

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c

def png(data, rows_of):
    """The rows rows_of(height) (and those their filters need), others zero."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big"), body[8], body[9]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (0, 2):
        raise ValueError("PNG of depth %d type %d" % (depth, ctype))
    bpp = 3 if ctype == 2 else 1
    raw, stride = zlib.decompress(idat), w * bpp
    if len(raw) != h * (stride + 1):
        raise ValueError("PNG data of %d bytes for %dx%d" % (len(raw), w, h))
    # Decoding every row in Python is slow under emulation: start at the
    # first needed row, or before it while its filter needs the row above.
    need = rows_of(h)
    first = min(need)
    while first > 0 and raw[first * (stride + 1)] in (2, 3, 4):
        first -= 1
    rows, prev = [bytes(stride)] * h, bytearray(stride)
    for y in range(first, max(need) + 1):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            c = prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, prev[i], (a + prev[i]) // 2, paeth(a, prev[i], c))[f]) & 255
        rows[y] = bytes(line)
        prev = line
    return w, h, bpp, b"".join(rows)

def ppm(data, rows_of):
    head = data.split(maxsplit=4)
    if head[0] != b"P6" or head[3] != b"255":
        raise ValueError("not a P6 PPM")
    w, h = int(head[1]), int(head[2])
    return w, h, 3, data[len(data) - w * h * 3:]

def patch_rows(h):
    return range(h * 3 // 4 - 2, h * 3 // 4 + 3)

def bars(w, h, bpp, px, kind):
    y0, means = h * 3 // 4, []
    for b in range(8):
        x0, s = w * (2 * b + 1) // 16, [0, 0, 0]
        for y in range(y0 - 2, y0 + 3):
            for x in range(x0 - 2, x0 + 3):
                p = px[(y * w + x) * bpp:(y * w + x) * bpp + bpp]
                for c in range(3):
                    s[c] += p[c % bpp]
        means.append([v / 25 for v in s])
    if kind == "grey":
        lum = [m[0] for m in means]
        ok = all(a > b + 8 for a, b in zip(lum, lum[1:]))
        return "darker" if ok else "not-darker:" + ",".join("%.0f" % v for v in lum)
    names = {(1, 1, 1): "W", (1, 1, 0): "Y", (0, 1, 1): "C", (0, 1, 0): "G",
             (1, 0, 1): "M", (1, 0, 0): "R", (0, 0, 1): "B", (0, 0, 0): "K"}
    out = ""
    for m in means:
        if any(80 < v < 128 for v in m):
            out += "?"
        else:
            out += names[tuple(int(v >= 128) for v in m)]
    return out

args = sys.argv[1:]
for path, kind in zip(args[::2], args[1::2]):
    try:
        data = open(path, "rb").read()
        w, h, bpp, px = {"jpg": jpeg, "png": png, "ppm": ppm}[path.rsplit(".", 1)[1]](data, patch_rows)
        print(path, "%dx%d" % (w, h), bars(w, h, bpp, px, kind))
    except Exception as e:
        print(path, "unreadable", str(e).replace(" ", "_"))
PY

# --- hwsight capture: every format, from the device's own frames
declare -A result
start=$(date +%s)
for f in $all; do
	in_list "$f" "$refused" && continue
	exts=jpg
	in_list "$f" "$listed" && exts="jpg png ppm"
	name=$tmp/cli-$f
	for ext in $exts; do
		out=$("$hwsight" capture -d $cam -s 320x180 --fps 60 -f "$f" -o "$name.$ext" \
			--stats "$tmp/stats-$f.$ext.json" 2>&1 >/dev/null) ||
			result[$f]+="$ext failed: $out; "
	done
done
lab_ok "captured every format in $(($(date +%s) - start)) s"
# The frames' format, the device's, and whether libv4lconvert was used.
stats=0
while read -r file sent; do
	stats=$((stats + 1))
	f=${file##*/stats-}
	f=${f%.*.json}
	[ "$sent" = "$f $f false" ] || result[$f]+="${file%.json}: frames, device, converting: $sent; "
done < <(jq -r '"\(input_filename) \(.fourcc|gsub(" ";"")) \(.device_fourcc|gsub(" ";"")) \(.converting)"' \
	"$tmp"/stats-*.json)

args=()
for f in $all; do
	for file in "$tmp/cli-$f".{jpg,png,ppm}; do
		[ -e "$file" ] && args+=("$file" "$(kind "$f")")
	done
done
decoded=0
while read -r file size verdict; do
	decoded=$((decoded + 1))
	f=${file##*/cli-}
	f=${f%.*}
	want=WYCGMRBK
	[ "$(kind "$f")" = grey ] && want=darker
	[ "$size $verdict" = "320x180 $want" ] || result[$f]+="${file##*.}: $size $verdict; "
done < <(python3 "$tmp/check.py" "${args[@]}")
lab_eq "every capture left its image and its stats, and each was read" \
	"$((${#args[@]} / 2)) $((${#args[@]} / 2))" "$stats $decoded"

for f in $all; do
	in_list "$f" "$refused" && continue
	exts=.jpg
	in_list "$f" "$listed" && exts=".jpg .png .ppm"
	if [ -z "${result[$f]}" ]; then
		lab_ok "$f: $exts from $f frames, 320x180, bars $( [ "$(kind "$f")" = grey ] && echo darker || echo WYCGMRBK)"
	else
		lab_not_ok "$f" "${result[$f]}"
	fi
done

for f in $refused; do
	out=$("$hwsight" capture -d $cam -s 320x180 -f $f -o "$tmp/$f.jpg" 2>&1)
	lab_eq "$f: refused" "1 yes" \
		"$? $(grep -q "cannot make .* images from $f frames, and libv4lconvert cannot convert them" <<<"$out" && echo yes || echo no)"
done

# --- hwsightd: cameras left in YVU420, NV12, and a format it cannot take
daemon() {
	log=$tmp/hwsightd-$1.log
	"$hwsightd" -f -c "$tmp/hwsightd.conf" --listen 127.0.0.1:9788 2>"$log" &
	pid=$!
	for _ in $(seq 50); do
		grep -q 'ready:' "$log" && break
		sleep 0.1
	done
}
stop_daemon() {
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# frames FILE N: the first N JPEGs of a multipart stream, as FILE-1.jpg ...
frames() {
	python3 - "$1" "$2" <<'PY'
import sys
data, n, at = open(sys.argv[1], "rb").read(), int(sys.argv[2]), 0
for i in range(1, n + 1):
    start = data.find(b"\xff\xd8", at)
    end = data.find(b"\xff\xd9", start)
    if start < 0 or end < 0:
        break
    open("%s-%d.jpg" % (sys.argv[1], i), "wb").write(data[start:end + 2])
    at = end + 2
PY
}

v4l2-ctl -d $cam -v width=320,height=180,pixelformat=YV12 >/dev/null
v4l2-ctl -d $tv -v pixelformat=NV12 >/dev/null
cat >"$tmp/hwsightd.conf" <<EOF
[daemon]
state_directory = $tmp/state
log_level = debug

[camera yv12]
device = $cam
snapshot_interval = 1s
format = png

[camera nv12]
device = $tv
snapshot_interval = 1s
format = ppm
EOF
daemon planar
lab_run "hwsightd serves HTTP" grep -q 'serving HTTP on 127.0.0.1:9788' "$log"
for name in yv12 nv12; do
	curl -s -o "$tmp/$name-snap.jpg" "$url/snapshot.jpg?camera=$name"
	curl -s -N --max-time 3 -o "$tmp/$name.mjpg" "$url/stream.mjpg?camera=$name"
	frames "$tmp/$name.mjpg" 3
done
for _ in $(seq 30); do
	ls "$tmp"/state/snapshots/yv12-*.png "$tmp"/state/snapshots/nv12-*.ppm >/dev/null 2>&1 && break
	sleep 0.2
done
stop_daemon
# streamed LOG NAME: each way camera NAME was streamed (it is opened again
# whenever something wants frames after nothing did).
streamed() { grep -o "camera $1: streaming .*" "$log" | sort -u | tr '\n' ';'; }
lab_eq "the webcam streamed in YVU420 itself" "camera yv12: streaming 320x180 YV12;" "$(streamed yv12)"
lab_eq "the TV input streamed in NV12 itself" "camera nv12: streaming 720x576 NV12;" "$(streamed nv12)"
lab_eq "no camera was busy or failed" 0 "$(grep -c 'camera .*\(busy\|failed\)' "$log")"
args=()
for name in yv12 nv12; do
	for file in "$tmp/$name-snap.jpg" "$tmp/$name.mjpg"-{1,2,3}.jpg \
		$(ls "$tmp"/state/snapshots/$name-*.p[np][gm] 2>/dev/null | head -n 1); do
		args+=("$file" colour)
	done
done
declare -A seen
while read -r file size verdict; do
	seen[$file]=1
	want=320x180
	[[ $file == */nv12* ]] && want=720x576
	lab_eq "hwsightd: ${file#"$tmp"/} decodes, bars in order" "$want WYCGMRBK" "$size $verdict"
done < <(python3 "$tmp/check.py" "${args[@]}")
for name in yv12-snap.jpg yv12.mjpg-3.jpg nv12-snap.jpg nv12.mjpg-3.jpg; do
	[ -n "${seen[$tmp/$name]}" ] || lab_not_ok "hwsightd: $name was served"
done
lab_eq "hwsightd: periodic snapshots written as PNG and PPM" "1 1" \
	"$(ls "$tmp"/state/snapshots/yv12-*.png 2>/dev/null | head -n 1 | wc -l) $(ls "$tmp"/state/snapshots/nv12-*.ppm 2>/dev/null | head -n 1 | wc -l)"

# A webcam left in HSV: the daemon picks a format of the camera's own
# that it takes, in the one libv4l2 wrap, and serves it.
v4l2-ctl -d $cam -v pixelformat=HSV3 >/dev/null
sed -i '/^\[camera nv12\]/,$d' "$tmp/hwsightd.conf"
daemon hsv
curl -s -o "$tmp/hsv-snap.jpg" "$url/snapshot.jpg?camera=yv12"
stop_daemon
lab_eq "a webcam left in HSV: moved to one of its own formats" "camera yv12: streaming 320x180 YUYV;" \
	"$(streamed yv12)"
lab_eq "a webcam left in HSV: /snapshot.jpg has the bars" "320x180 WYCGMRBK" \
	"$(python3 "$tmp/check.py" "$tmp/hsv-snap.jpg" colour | cut -d' ' -f2-)"

lab_done
