#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libhwsight's ABI as a distribution sees it: the SONAME, exactly the
# symbols lib/libhwsight.map lists (nm -D), the same list as the headers
# declare with HWS_EXPORT, every public header compiling alone in C11 and
# C++, and a C++ program using the kernel-style macros, linked against
# libhwsight.so and run.
#
# test-abi.sh LIBRARY MAP SRC_INCLUDE GEN_INCLUDE CC CXX
. "$(dirname "$0")/../tap.sh"

[ $# -eq 6 ] || die "usage: test-abi.sh LIBRARY MAP SRC_INCLUDE GEN_INCLUDE CC CXX"
lib=$1 map=$2 inc=$3 gen=$4 cc=$5 cxx=$6
for tool in nm readelf perl "$cc" "$cxx"; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hwsight-abi.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
headers=$(cd "$inc" && ls hwsight/*.h; cd "$gen" && ls hwsight/*.h)

expect_eq "the SONAME is libhwsight.so.0" "libhwsight.so.0" \
	"$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"

# symbol@@NODE for each name in a node's global: list, as nm -D shows it.
versioned=$("$(dirname "$map")/map-symbols" "$map" | awk '{ print $1 "@@" $2 }' | sort)
listed=$(sed 's/@.*//' <<<"$versioned" | sort)
exported=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sort)
declared=$(for h in $headers; do cat "$inc/$h" 2>/dev/null || cat "$gen/$h"; done |
	perl -0777 -ne 'while (/^HWS_EXPORT\s+[^;(]*?\b(\w+)\s*\(/mg) { print "$1\n" }' | sort -u)
[ -n "$listed" ] || die "no symbol in $map"
expect_same "libhwsight.so exports exactly what the map lists, each in its version node" \
	"$versioned" "$exported"
expect_same "the map lists exactly what the headers declare HWS_EXPORT" "$declared" "$listed"

for h in $headers; do
	printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >"$TMP/alone.c"
	for lang in c11 c++11 c++20; do
		case $lang in
		c11) compiler=$cc flags="-std=c11" ;;
		*) compiler=$cxx flags="-std=$lang -x c++" ;;
		esac
		# shellcheck disable=SC2086 # flags are words
		if out=$("$compiler" $flags -Wall -Wextra -Werror -pedantic -fsyntax-only \
			-I"$inc" -I"$gen" "$TMP/alone.c" 2>&1); then
			ok "<$h> compiles alone as $lang"
		else
			not_ok "<$h> compiles alone as $lang" "$out"
		fi
	done
done

# Kernel-style code in C++: a static item, a delayed one on a queue of
# its own, container_of back to the caller's struct, the version.
cat >"$TMP/wq.cpp" <<'CPP'
#include <cstdio>
#include <cstring>
#include <hwsight/version.h>
#include <hwsight/workqueue.h>

struct job {
	int runs;
	struct delayed_work dwork;
};

static int static_runs;
static void static_fn(struct work_struct *) { static_runs++; }
static DECLARE_WORK(static_work, static_fn);

static void job_fn(struct work_struct *work)
{
	struct job *j = container_of(work, struct job, dwork.work);
	j->runs++;
}

int main()
{
	struct job j = {};
	struct workqueue_struct *wq = create_singlethread_workqueue("abi-cxx");

	if (!wq)
		return 2;
	INIT_DELAYED_WORK(&j.dwork, job_fn);
	queue_delayed_work(wq, &j.dwork, msecs_to_jiffies(10));
	schedule_work(&static_work);
	flush_scheduled_work();
	cancel_delayed_work_sync(&j.dwork) || (flush_workqueue(wq), true);
	destroy_workqueue(wq);
	std::printf("%s %s %d %d\n", hws_version(), HWS_VERSION_STRING, static_runs,
		    j.runs + (HWS_VERSION_CHECK(0, 0, 0) ? 0 : 100));
	return std::strcmp(hws_version(), HWS_VERSION_STRING) != 0;
}
CPP
libdir=$(dirname "$lib")
if out=$("$cxx" -std=c++20 -Wall -Wextra -Werror -I"$inc" -I"$gen" "$TMP/wq.cpp" \
	-L"$libdir" -Wl,-rpath,"$libdir" -lhwsight -o "$TMP/wq" 2>&1); then
	ok "a C++ program with the workqueue macros builds against libhwsight.so"
	got=$("$TMP/wq")
	version=$(sed -n 's/^#define HWS_VERSION_STRING "\(.*\)"$/\1/p' "$gen/hwsight/version.h")
	expect_line "... runs: hws_version() is the headers' version, the static item ran once" \
		"^$version $version 1 [01]\$" "$got"
	expect_eq "... and it links to libhwsight.so.0" 1 \
		"$(readelf -d "$TMP/wq" | grep -c 'NEEDED.*\[libhwsight\.so\.0\]')"
else
	not_ok "a C++ program with the workqueue macros builds against libhwsight.so" "$out"
fi
summary
