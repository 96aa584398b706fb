#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fuzz/run-target.sh TARGET CORPUS ARTIFACTS SECONDS [DICT]: run one
# libFuzzer target for SECONDS on a copy of its seed corpus, so that the
# repository's corpus never changes under a test run. Fails on anything the
# target or the sanitizers report: a crash, a leak, undefined behaviour, a
# timeout of one input (10 s) or memory over 2 GiB. What made it fail is
# kept in ARTIFACTS; fuzz/README.md says what to do with it.

set -u

target=${1:-}
corpus=${2:-}
artifacts=${3:-}
seconds=${4:-}
dict=${5:-}
if ! [ -x "$target" ] || ! [ -d "$corpus" ] || [ -z "$artifacts" ] || [ -z "$seconds" ]; then
	echo "usage: $0 TARGET CORPUS ARTIFACTS SECONDS [DICT]" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/hwsight-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$artifacts" || exit 2
cp -R "$corpus"/. "$work/corpus/" || exit 2

# Undefined behaviour stops the run (the code is also built with
# -fno-sanitize-recover); leaks are checked after every input.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

set -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$artifacts/"
if [ -n "$dict" ]; then
	set -- "$@" -dict="$dict"
fi
"$target" "$@" "$work/corpus"
status=$?
if [ $status -ne 0 ]; then
	echo "$(basename "$target"): failed (exit $status); the input is in $artifacts/:"
	ls -l "$artifacts"
	echo "reproduce with: $target $artifacts/<file>"
fi
exit $status
