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
	lab_regs - <<'REGS' || return
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
	lab_regs "$HWS_LAB_PRESET" && sleep 2.5
}

# lab_regs ARG...: guest/lab-regs ARG..., with the process $lab_regs_pid
# (when a check sets it) stopped meanwhile: lab-regs switches the W83793's
# bank and puts it back, which races the driver's cached bank while a
# program reads the chip through it (lab_frozen).
lab_regs() {
	if [ -n "${lab_regs_pid:-}" ]; then
		lab_frozen "$lab_regs_pid" "$HWS_LAB_DIR/guest/lab-regs" "$@"
	else
		"$HWS_LAB_DIR/guest/lab-regs" "$@"
	fi
}

# lab_wait_until SECONDS COMMAND...: run COMMAND every 0.1 s until it
# succeeds or SECONDS (fractions allowed) of wall time have passed; its
# status. Wall time, not a count of tries: under TCG each try's forks cost
# more than the 0.1 s it sleeps.
lab_wait_until() {
	local end
	end=$(( ${EPOCHREALTIME/[.,]/} + $(awk -v s="$1" 'BEGIN { printf "%d", s * 1000000 }') ))
	shift
	until "$@"; do
		((${EPOCHREALTIME/[.,]/} < end)) || return 1
		sleep 0.1
	done
}

# lab_frozen PID COMMAND...: run COMMAND while every thread of PID is
# stopped (SIGSTOP, then SIGCONT); COMMAND's status, or 1 without running
# it if PID is gone or does not stop within 10 s.
#
# For a check that reads the W83793 through i2c-dev while a program
# drives it through the driver: the driver caches the bank it selected
# last and never reads register 0x00 back, so a driver access between a
# check's bank switch and its putting the bank back leaves the cache and
# the chip in different banks, and the driver's next bank-0 write lands in
# bank 2 (a hwsightd stop putting pwm1's duty, 0xb3, back in the wrong
# bank). A thread in stopped state is inside no driver call, so nothing
# the program does can fall between the check's accesses.
lab_frozen() {
	local pid=$1 rc
	shift
	kill -STOP "$pid" 2>/dev/null || { echo "lab_frozen: no process $pid" >&2; return 1; }
	if ! lab_wait_until 10 lab_stopped "$pid"; then
		kill -CONT "$pid" 2>/dev/null
		echo "lab_frozen: $pid did not stop" >&2
		return 1
	fi
	"$@"
	rc=$?
	kill -CONT "$pid" 2>/dev/null
	return "$rc"
}

# lab_stopped PID: every thread of PID is in stopped state (T, or t under
# a tracer).
lab_stopped() {
	local t s
	for t in /proc/"$1"/task/*/stat; do
		s=$(<"$t") || return 1
		# The state follows the name, which may hold blanks and ')'.
		s=${s##*) }
		case ${s%% *} in T|t) ;; *) return 1 ;; esac
	done
}

# lab_stamp FILE: copy standard input to FILE, each line prefixed with the
# time it was read ($EPOCHREALTIME), for logs whose timing a check reports.
lab_stamp() {
	local l
	while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done >"$1"
}

# w83793_fans_restore DEV [BANK REG]...: put back the boot preset on every
# register presets/w83793-fans.regs writes and on the ones given (0 where
# the preset leaves one unset), for the fan checks' cleanup.
w83793_fans_restore() {
	local dev=$1 b r v
	shift
	{
		awk '!/^#/ && NF { print $1, $2 }' "$HWS_LAB_DIR/presets/w83793-fans.regs"
		while [ $# -ge 2 ]; do echo "$1 $2"; shift 2; done
	} | while read -r b r; do
		v=$(preset_reg "$HWS_LAB_PRESET" "$b" "$r")
		echo "$b $r ${v:-0}"
	done | lab_regs -
	echo 0 >"$dev/intrusion0_alarm"
}

# lab_require PROGRAM...: exit 1, saying what is missing, unless every
# PROGRAM is there: a path must be an executable (built by cmake), a bare
# name a command on the host.
lab_require() {
	local p
	for p; do
		case $p in
		*/*) [ -x "$p" ] || { echo "$p is not built"; exit 1; } ;;
		*) command -v "$p" >/dev/null || { echo "$p is not installed on the host (scripts/install-deps)"; exit 1; } ;;
		esac
	done
}

# lab_kill PID...: SIGKILL each of a check's background processes still
# running, and reap them (for cleanup traps).
lab_kill() {
	local p
	for p; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
}

# lab_fan_env: what the fan checks share: bus and addr (the W83793's), dev
# (its sysfs directory), build (the build tree) and the programs they run
# from it: hwsight, hwsightd and sim (fan-sim).
lab_fan_env() {
	bus=${HWS_LAB_I2C_BUS:-0}
	addr=${HWS_LAB_W83793_ADDRS%%,*}
	dev=/sys/bus/i2c/devices/$(printf '%d-%04x' "$bus" $((addr)))
	build=${HWS_BUILD_DIR:-$HWS_LAB_DIR/../../build/default}
	hwsight=$build/tools/hwsight
	hwsightd=$build/daemon/hwsightd
	sim=$build/tests/vm/fan-sim
}

# lab_lm75_env NAME: lab_fan_env, the spare i2c-stub chip at 0x48 for an
# lm75 (lm75_addr, lm75_name, lm75_dev; the lab's ctest boot reserves it
# with --stub-addr 0x48), an empty $out = $HWS_LAB_RESULTS/NAME and a
# $tmp; exits 1 unless hwsightd is built and the chip is there.
lab_lm75_env() {
	lab_fan_env
	lm75_addr=0x48
	lm75_name=$(printf '%d-%04x' "$bus" $((lm75_addr)))
	lm75_dev=/sys/bus/i2c/devices/$lm75_name
	out=${HWS_LAB_RESULTS:?not inside the lab}/$1
	mkdir -p "$out"
	rm -f "$out"/*
	tmp=$(mktemp -d)
	lab_require "$hwsightd"
	i2cget -y "$bus" "$lm75_addr" 0x01 b >/dev/null 2>&1 ||
		{ echo "no i2c-stub chip at $lm75_addr on i2c-$bus: run the lab with --stub-addr $lm75_addr"; exit 1; }
}
