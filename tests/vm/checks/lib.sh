# Helpers for lab checks (bash, sourced inside the guest).  Each assertion
# prints what it compared; lab_done prints "N passed, N failed" and gives the
# exit status.

LAB_PASS=0
LAB_FAIL=0

lab_ok() {
	LAB_PASS=$((LAB_PASS + 1))
	printf 'ok - %s\n' "$1"
}

lab_not_ok() {
	LAB_FAIL=$((LAB_FAIL + 1))
	printf 'not ok - %s\n' "$1"
	shift
	local line
	for line in "$@"; do
		printf '#   %s\n' "$line"
	done
}

# lab_eq WHAT EXPECTED ACTUAL
lab_eq() {
	if [ "$2" = "$3" ]; then
		lab_ok "$1 ($3)"
	else
		lab_not_ok "$1" "expected: $2" "actual:   $3"
	fi
}

# lab_run WHAT COMMAND...: the command must exit 0; its output is shown if not.
lab_run() {
	local what=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		lab_ok "$what"
	else
		lab_not_ok "$what" "command: $*" "exit status: $rc (expected 0)" "output: $(printf '%s' "$out" | tail -n 5)"
	fi
	LAB_OUT=$out
	return "$rc"
}

lab_done() {
	printf '%d passed, %d failed\n' "$LAB_PASS" "$LAB_FAIL"
	[ "$LAB_FAIL" -eq 0 ]
}

# preset_reg FILE BANK REG: the value the preset leaves in a register, as a
# decimal number (empty if the preset does not set it).
preset_reg() {
	local file=$1 want_bank=$(($2)) want_reg=$(($3)) b r v rest val=
	while read -r b r v rest; do
		case $b in ''|'#'*) continue ;; esac
		if [ $((b)) -eq "$want_bank" ] && [ $((r)) -eq "$want_reg" ]; then
			val=$((v))
		fi
	done <"$file"
	printf '%s' "$val"
}

# sensors_json_value JSON CHIP SUBFEATURE: a value from `sensors -j` output.
sensors_json_value() {
	printf '%s\n' "$1" | awk -v chip="\"$2\":" -v key="\"$3\":" '
		index($0, chip) == 4 { inchip = 1; next }
		/^   "/ { inchip = 0 }
		inchip && index($0, key) {
			v = substr($0, index($0, key) + length(key))
			gsub(/[ ,]/, "", v)
			print v
			exit
		}'
}

# w83793_alarms DEV: stall fan1, overheat temp1 (90 C) and open the chassis
# of the W83793 whose sysfs directory is DEV, then wait out the driver's 2 s
# cache so that the next read sees it.  w83793_restore puts the preset back.
w83793_alarms() {
	cat "$1/fan1_input" >/dev/null   # refresh the cache now
	"$HWS_LAB_DIR/guest/lab-regs" - <<'REGS' || return
0 0x23 0x0f   # fan1 count 0xfff: stopped
0 0x24 0xff
0 0x1c 0x5a   # temp1 90 C
0 0x4c 0x10   # temp1 alarm
0 0x4d 0x04   # fan1 alarm
0 0x4e 0x40   # chassis intrusion
REGS
	sleep 2.5
}

w83793_restore() {
	"$HWS_LAB_DIR/guest/lab-regs" "$HWS_LAB_PRESET" && sleep 2.5
}
