#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what warden's mechanisms cost, each against a baseline measured in the same run.
#
#   hold waiting room: unlink of files that no hold rule matches, in a sandbox whose policy holds
#   deletes elsewhere (each call goes to the supervisor and back, answered CONTINUE), against the
#   same sandbox without hold rules. Target: the added median under 15 us.
#   The bare mechanism (notify_floor: a filter and a listener answering CONTINUE, nothing else)
#   is measured beside them, so what is warden's and what is the kernel's can be told apart.
#
#   run.sh --bin DIR (warden and unlink_lat)
set -eu
bin=
while [ $# -gt 0 ]; do
	case $1 in
	--bin) bin=$(cd "$2" && pwd); shift 2 ;;
	*) echo "bench: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$bin" ] || { echo "bench: --bin DIR is required" >&2; exit 2; }
n=${BENCH_N:-20000}
dir=$(mktemp -d /tmp/wd-bench.XXXXXX)
# warden's run directory must lie outside every tree the sandbox may write (it is refused there)
rundir=$(mktemp -d /tmp/wd-bench-run.XXXXXX)
trap 'rm -rf "$dir" "$rundir"' EXIT
mkdir -p "$dir/work" "$dir/protected"
export WARDEN_RUN_DIR="$rundir"

policy() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["%s","/lib64/ld-linux-x86-64.so.2"]%s}}\n' \
		"$bin" "$dir" "$bin" "$1" > "$2"
}
policy "" "$dir/plain.json"
policy ",\"protect\":[{\"path\":\"$dir/protected\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
	"$dir/held.json"

# measure POLICY [at]: "median p90" in ns; a run that fails ends the bench (set -e does not
# reach into $(...) under read). $survive adds warden's --survive (the keeper's journal).
measure() {
	local out
	out=$("$bin/warden" run ${survive:+--survive "$survive"} --policy "$1" --audit /dev/null -- \
		"$bin/unlink_lat" "$dir/work" "$n" ${2:+"$2"}) || { echo "bench: warden run failed" >&2; exit 1; }
	[ -n "$out" ] || { echo "bench: unlink_lat printed nothing" >&2; exit 1; }
	echo "$out"
}
survive=
read -r base_med base_p90 <<< "$(measure "$dir/plain.json")"
read -r hold_med hold_p90 <<< "$(measure "$dir/held.json")"
# rm -r's shape: unlinkat(dirfd, name), the directory's path read from /proc
read -r at_base_med at_base_p90 <<< "$(measure "$dir/plain.json" at)"
read -r at_hold_med at_hold_p90 <<< "$(measure "$dir/held.json" at)"
# with --survive: the keeper holds the page calls are received into (what a successor reads)
survive=60
read -r sv_hold_med sv_hold_p90 <<< "$(measure "$dir/held.json")"
survive=
# the mechanism alone, no sandbox and no warden: what any seccomp-notify supervisor pays here
mkdir -p "$dir/floor"
read -r floor_med floor_p90 bare_med bare_p90 <<< "$("$bin/notify_floor" "$dir/floor" "$n")"
echo "bench: unlink, $n calls, $("$bin/warden" doctor --json | sed -n 's/.*"backend":[^"]*"\([^"]*\)".*/\1/p') backend"
printf 'bench: baseline (no hold rules)   median %6.1f us  p90 %6.1f us\n' \
	"$(echo "$base_med / 1000" | bc -l)" "$(echo "$base_p90 / 1000" | bc -l)"
printf 'bench: through the waiting room   median %6.1f us  p90 %6.1f us\n' \
	"$(echo "$hold_med / 1000" | bc -l)" "$(echo "$hold_p90 / 1000" | bc -l)"
printf 'bench: bare notify+CONTINUE      median %6.1f us  p90 %6.1f us  (no sandbox, no warden)\n' \
	"$(echo "$floor_med / 1000" | bc -l)" "$(echo "$floor_p90 / 1000" | bc -l)"
printf 'bench: the same unlink, no filter median %6.1f us  p90 %6.1f us\n' \
	"$(echo "$bare_med / 1000" | bc -l)" "$(echo "$bare_p90 / 1000" | bc -l)"
printf 'bench: the mechanism alone adds   median %6.1f us\n' \
	"$(echo "($floor_med - $bare_med) / 1000" | bc -l)"
added=$(echo "($hold_med - $base_med) / 1000" | bc -l)
printf 'bench: added median %.1f us (target < 15 us), ratio %.2fx\n' "$added" \
	"$(echo "$hold_med / $base_med" | bc -l)"
printf 'bench: with --survive             median %6.1f us  p90 %6.1f us  (added %.1f us)\n' \
	"$(echo "$sv_hold_med / 1000" | bc -l)" "$(echo "$sv_hold_p90 / 1000" | bc -l)" \
	"$(echo "($sv_hold_med - $base_med) / 1000" | bc -l)"
printf 'bench: warden over the bare mechanism: median %+.1f us\n' \
	"$(echo "($hold_med - $floor_med) / 1000" | bc -l)"
echo "bench: unlinkat(dirfd, name), as rm -r calls it, $n calls"
printf 'bench: baseline (no hold rules)   median %6.1f us  p90 %6.1f us\n' \
	"$(echo "$at_base_med / 1000" | bc -l)" "$(echo "$at_base_p90 / 1000" | bc -l)"
printf 'bench: through the waiting room   median %6.1f us  p90 %6.1f us\n' \
	"$(echo "$at_hold_med / 1000" | bc -l)" "$(echo "$at_hold_p90 / 1000" | bc -l)"
printf 'bench: added median %.1f us, ratio %.2fx\n' \
	"$(echo "($at_hold_med - $at_base_med) / 1000" | bc -l)" \
	"$(echo "$at_hold_med / $at_base_med" | bc -l)"
