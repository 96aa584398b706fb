#!/bin/bash
# batch.sh CHECK... - run lab checks one after the other in a single boot.
# Each check NAME is checks/NAME.sh, run in its own process with a time limit
# (HWS_LAB_CHECK_TIMEOUT, default 120 s, or more where the check asks for
# it with a "# lab-check-timeout: SECONDS" line); its output is streamed and kept in
# $HWS_LAB_RESULTS/NAME.log, its exit status in NAME.status, for
# tests/vm/result to report on the host.  The batch itself exits 0 when
# every check ran, whatever they returned: the per-check results say that.

dir=$(dirname "${BASH_SOURCE[0]}")
out=${HWS_LAB_RESULTS:?not inside the lab}
limit=${HWS_LAB_CHECK_TIMEOUT:-120}

if [ $# -eq 0 ]; then
	for f in "$dir"/*.sh; do
		case ${f##*/} in lib.sh|batch.sh) continue ;; esac
		set -- "$@" "$(basename "$f" .sh)"
	done
fi
for name; do
	rm -f "$out/$name.log" "$out/$name.status"
done

failed=0
for name; do
	echo "=== $name"
	start=$(date +%s.%N)
	own=$(sed -n 's/^# lab-check-timeout: *\([0-9][0-9]*\).*/\1/p' "$dir/$name.sh" | head -n 1)
	this=$limit
	[ -n "$own" ] && [ "$own" -gt "$limit" ] && this=$own
	timeout -k 5 "$this" "$dir/$name.sh" 2>&1 | tee "$out/$name.log"
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 124 ] && echo "check $name timed out after $this s" | tee -a "$out/$name.log"
	echo "$rc" >"$out/$name.status"
	echo "=== $name: exit $rc in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
	[ "$rc" -eq 0 ] || failed=$((failed + 1))
done
echo "=== $# checks, $failed failed"
exit 0
