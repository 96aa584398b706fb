#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# hwsight against real machines: every sysfs tree of tests/corpus (where
# each comes from is in tests/corpus/README.md), with lm-sensors' sensors(1)
# run on the same testbed and the same /etc/sensors3.conf as the oracle.
#
#  - hwsight sensors -j, with every reader, and -A -j: equal to sensors -j
#    as JSON values. The one difference allowed: a value sensors(1) cannot
#    read it leaves out (saying "ERROR: Can't get value of subfeature" on
#    stderr) and hwsight gives as null; nothing else may be null.
#  - -u and the human output: equal, but for the differences hwsight(1)
#    documents under "DIFFERENCES FROM SENSORS(1)", spelled out below.
#  - hwsightd --once and /api/v1/sensors: the same values as -j.
#
# Besides the trees themselves, one copy of a tree with a value made
# unreadable, so that the null rule is exercised.

. "$(dirname "$0")/lib.sh"

CORPUS=$TESTBEDS/../corpus
export STATE_DIRECTORY=$TMP/state
if [ -z "${HWSIGHTD:-}" ] || [ ! -x "$HWSIGHTD" ]; then
	die "HWSIGHTD must name hwsightd (got '${HWSIGHTD:-}'); run through ctest or set it"
fi
beds=("$CORPUS"/*.umockdev)
[ "${#beds[@]}" -ge 3 ] || die "tests/corpus holds ${#beds[@]} trees; is TESTBEDS right?"
# The NVMe's "Sensor 1" upper limit, unreadable (as a value the driver
# cannot get from the drive: -EIO; here a file that holds no number).
beds+=("$(bed_with unreadable "$CORPUS/node-exporter.umockdev" 's/^A: temp2_max=65261850\\n$/A: temp2_max=\\n/')")
grep -q '^A: temp2_max=\\n$' "${beds[-1]}" || die "the unreadable copy did not change"

# The features libsensors 3.6 does not know, which hwsight shows in -u and
# the human output: pwmN (a duty cycle, or only its mode) and applesmc's
# light sensors.
EXTRA_FEATURE='^(pwm[0-9]+|light):'

# What sensors(1) could not read, from its stderr: sorted subfeature names.
unreadable() {
	printf '%s\n' "$1" | sed -n "s/^ERROR: Can't get value of subfeature \([^:]*\): .*/\1/p" | sort
}

# nulls JSON: the names of the null subfeatures, sorted.
nulls() {
	printf '%s\n' "$1" | jq -r '.[] | .[]? | objects | to_entries[] | select(.value == null) | .key' | sort
}

# without_nulls JSON: JSON without its null subfeatures, as json prints it.
without_nulls() {
	printf '%s\n' "$1" | jq -S 'map_values(map_values(if type == "object" then
		with_entries(select(.value != null)) else . end))'
}

# same_json WHAT REF_JSON REF_STDERR ACTUAL: ACTUAL (text) is valid JSON,
# equal to REF_JSON but for nulls, which are exactly what sensors(1) could
# not read.
same_json() {
	local actual
	actual=$(json "$4")
	if [ -z "$actual" ]; then
		not_ok "$1: valid JSON" "$(printf '%s\n' "$4" | head -n 5)"
		return
	fi
	expect_same "$1" "$(without_nulls "$2")" "$(without_nulls "$actual")"
	expect_eq "$1: null exactly where sensors(1) could not read" \
		"$(unreadable "$3" | paste -sd ' ')" "$(nulls "$actual" | paste -sd ' ')"
}

# raw_allowed BED CHIP REF_ERR TEXT: hwsight's -u output of CHIP without
# what hwsight(1) documents it adds: the features libsensors does not know,
# the subfeatures libsensors does not know (each must be a file of the
# tree), and "N/A" lines for what sensors(1) could not read (which it only
# reports on stderr).
raw_allowed() {
	local bed=$1 ref_j=$2 ref_err=$3 known
	known=$(printf '%s\n' "$ref_j" | jq -r --arg c "$CHIP" '.[$c] | .[] | objects | keys[]' | sort -u)
	drop_features "$EXTRA_FEATURE\$" "$4" | while IFS= read -r line; do
		case $line in
		'  '*:*)
			name=${line#  }
			name=${name%%:*}
			if printf '%s\n' "$known" | grep -qxF -- "$name"; then
				printf '%s\n' "$line"
			elif [[ $line == *": N/A ("* ]] && unreadable "$ref_err" | grep -qxF -- "$name"; then
				:
			elif ! grep -q "^A: $name=" "$bed"; then
				printf '%s  <- not a file of the tree\n' "$line"
			fi
			;;
		*) printf '%s\n' "$line" ;;
		esac
	done
}

# human_summary TEXT: per feature line, the label, the reading and the
# alarm words, blanks squeezed; the limits' layout is hwsight's own.
human_summary() {
	printf '%s\n' "$1" | awk '
		NR <= 2 || /^$/ { print; next }
		/^ / { next }
		{
			i = index($0, ":"); label = substr($0, 1, i); rest = substr($0, i + 1)
			words = ""
			while (match(rest, /ALARM( \([A-Z, ]+\))?|FAULT/)) {
				words = words " " substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
			}
			rest = substr($0, i + 1); sub(/\(.*/, "", rest); sub(/ALARM.*|FAULT.*/, "", rest)
			gsub(/[ \t]+/, " ", rest); sub(/^ /, "", rest); sub(/ $/, "", rest)
			print label " " rest words
		}'
}

# Everything the CLIs print on one testbed, in one umockdev-run (each
# costs a start of the preload): into DIR, named after the command.
cat >"$TMP/collect.sh" <<'EOF'
dir=$1
cd "$dir" || exit 1
sensors -j >ref-j 2>ref-j.err
sensors -A -j >ref-aj 2>/dev/null
chips=$(jq -r 'keys[]' ref-j 2>/dev/null)
for reader in libsensors fast pread; do
	"$HWSIGHT" sensors -j --reader "$reader" >"j-$reader" 2>"j-$reader.err"
	echo $? >"j-$reader.rc"
	"$HWSIGHT" sensors -A -j --reader "$reader" >"aj-$reader" 2>/dev/null
done
for c in $chips; do
	sensors -u "$c" >"ref-u-$c" 2>/dev/null
	sensors "$c" >"ref-h-$c" 2>/dev/null
	"$HWSIGHT" sensors "$c" >"h-$c" 2>/dev/null
done
"$HWSIGHT" sensors -u >u-all 2>/dev/null
for c in $(awk 'prev == "" && /^[^ ]/ && !/:$/ { print } { prev = $0 }' u-all); do
	"$HWSIGHT" sensors -u "$c" >"u-$c" 2>/dev/null
done
"$HWSIGHTD" --once -c /dev/null >once 2>once.err
echo $? >once.rc
EOF

for bed in "${beds[@]}"; do
	name=$(basename "$bed" .umockdev)
	d=$TMP/$name
	mkdir -p "$d"
	umockdev-run -d "$bed" -- bash "$TMP/collect.sh" "$d" || die "$name: cannot run the commands on the testbed"

	# The oracle first: if sensors(1) sees nothing, agreeing proves nothing.
	REF_ERR=$(cat "$d/ref-j.err")
	REF_J=$(json "$(cat "$d/ref-j")")
	if [ -z "$REF_J" ]; then
		not_ok "$name: sensors -j is JSON (the comparison needs it)" "$(head -n 5 "$d/ref-j")"
		continue
	fi
	chips=$(printf '%s\n' "$REF_J" | jq -r 'keys[]')
	nchips=$(grep -c '^A: name=' "$bed")
	check "$name: sensors(1) sees chips, each with a value ($(printf '%s\n' "$chips" | paste -sd ' '))" \
		test "$(printf '%s\n' "$REF_J" | jq '[.[] | [.[] | objects | .[]] | length > 0] | all and length > 0')" = true
	REF_AJ=$(json "$(cat "$d/ref-aj")")

	for reader in libsensors fast pread; do
		expect_eq "$name, $reader reader: sensors -j succeeds" 0 "$(cat "$d/j-$reader.rc")"
		expect_no_line "$name, $reader reader: no sanitizer report" 'Sanitizer|runtime error' \
			"$(cat "$d/j-$reader.err")"
		same_json "$name, $reader reader: -j equals sensors -j" "$REF_J" "$REF_ERR" "$(cat "$d/j-$reader")"
		same_json "$name, $reader reader: -A -j equals sensors -A -j" "$REF_AJ" "$REF_ERR" \
			"$(cat "$d/aj-$reader")"
	done

	for CHIP in $chips; do
		expect_same "$name: $CHIP: -u equals sensors -u but for what hwsight(1) documents" \
			"$(cat "$d/ref-u-$CHIP")" "$(raw_allowed "$bed" "$REF_J" "$REF_ERR" "$(cat "$d/u-$CHIP")")"
		expect_same "$name: $CHIP: human output: the same labels, readings and alarms" \
			"$(human_summary "$(cat "$d/ref-h-$CHIP")")" \
			"$(human_summary "$(drop_features "$EXTRA_FEATURE" "$(cat "$d/h-$CHIP")")")"
	done

	# Chips sensors(1) does not show (libsensors knows none of their
	# features): hwsight shows them outside -j, with extras only.
	all=$(awk 'prev == "" && /^[^ ]/ && !/:$/ { print } { prev = $0 }' "$d/u-all" | sort)
	expect_eq "$name: hwsight finds a chip for each name file of the tree" "$nchips" \
		"$(printf '%s\n' "$all" | grep -c .)"
	for c in $(comm -13 <(printf '%s\n' "$chips" | sort) <(printf '%s\n' "$all")); do
		expect_no_line "$name: $c (not in sensors -j) shows only features libsensors does not know" \
			'^[^ ].*:$' "$(sed 1,2d "$d/u-$c" | grep -Ev "$EXTRA_FEATURE\$")"
	done

	# hwsightd --once: each reading sensors -j has, the same value.
	expect_eq "$name: hwsightd --once succeeds" 0 "$(cat "$d/once.rc")"
	want=$(printf '%s\n' "$REF_J" | jq -r 'to_entries[] | .key as $c | .value | .[] | objects
		| to_entries[] | select(.key | test("^[a-z]+[0-9]+_input$|^intrusion[0-9]+_alarm$|^cpu[0-9]+_vid$|^beep_enable$"))
		| "\($c) \(.key | sub("_(input|alarm)$"; "")) \(.value * 1000 | round / 1000)"' | sort)
	got=$(awk '{ v = $3; if (v != "N/A") v = v + 0; print $1, $2, v }' "$d/once" | sort)
	expect_same "$name: hwsightd --once gives each reading of sensors -j" "$want" \
		"$(printf '%s\n' "$got" | grep -F -f <(printf '%s\n' "$want" | cut -d' ' -f1,2 | sed 's/$/ /'))"

	# The daemon's JSON API: sensors -j under "sensors".
	printf '[daemon]\nstate_directory = %s\nlog_target = stderr\nlog_level = debug\n' \
		"$TMP/state" >"$TMP/hwsightd.conf"
	daemon_start "$bed" "$TMP/hwsightd.conf"
	# daemon_start returns after the first chip's poll; the API has a
	# chip once its poller has read it.
	for _ in $(seq 100); do
		unpolled=$(for CHIP in $chips; do
			grep -qF "poll $CHIP: " "$TMP/daemon.log" || echo "$CHIP"
		done)
		[ -z "$unpolled" ] && break
		sleep 0.1
	done
	expect_eq "$name: hwsightd polled every chip of sensors -j" "" "$unpolled"
	api=$(curl -s "$URL/api/v1/sensors")
	daemon_cleanup 2>/dev/null
	UMOCKDEV_PID='' DAEMON_PID=''
	same_json "$name: /api/v1/sensors .sensors equals sensors -j" "$REF_J" "$REF_ERR" \
		"$(printf '%s\n' "$api" | jq '.sensors')"
	expect_no_line "$name: no sanitizer report from hwsightd" 'Sanitizer|runtime error' \
		"$(cat "$TMP/daemon.log" "$d/once.err")"
done

summary
