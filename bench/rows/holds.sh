#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Bench rows for the holds' waiting room (make bench runs it; it also runs alone):
#   holds/unlink, holds/unlinkat  an unlink (or rm -r's unlinkat(dirfd, name)) that no hold rule
#                       matches, in a sandbox whose policy holds deletes elsewhere, so each call
#                       goes to the supervisor and back (CONTINUE), against the same sandbox
#                       without hold rules. Target: the added median under 15 us.
#   holds/unlink-survive  the same with --survive (the keeper holds the page calls land in).
#   holds/notify-floor  the bare mechanism (bench/notify_floor: a 4-instruction filter and a
#                       listener answering CONTINUE, no sandbox, no warden) against the same
#                       unlinks without the filter: what any seccomp-notify supervisor pays here.
#   holds/syscalls-unlink, holds/syscalls-unlinkat  the syscalls the supervisor makes per call,
#                       counted with strace -c -f attached to it for a run of unlink_lat.
# Ratios are taken pair by pair, each round running both sides back to back; "abs" has the
# medians over rounds of each side's per-round median and the median of the per-pair added us.
#
# Env: BENCH_BIN (warden, warden-init, unlink_lat, notify_floor), BENCH_TMP (scratch),
# BENCH_ROUNDS (default 11), BENCH_QUICK=1 (3 rounds of fewer calls). JSON rows on stdout only.
set -eu
bin=${BENCH_BIN:?BENCH_BIN is required}
tmp=${BENCH_TMP:?BENCH_TMP is required}
rounds=${BENCH_ROUNDS:-11}
n=5000
if [ "${BENCH_QUICK:-}" = 1 ]; then
	rounds=3
	n=1000
fi
for b in warden warden-init unlink_lat notify_floor; do
	[ -x "$bin/$b" ] || { echo "holds: $bin/$b missing" >&2; exit 1; }
done
dir=$(mktemp -d "$tmp/holds.XXXXXX")
# warden's run directory must lie outside every tree the sandbox may write (it is refused there)
rundir=$(mktemp -d "$tmp/holds-run.XXXXXX")
# the group of sandbox cgroups too, once its sandboxes are gone (never another's)
trap 'rm -rf "$dir" "$rundir"; cg=$(awk '\''$3 == "cgroup2" { print $2; exit }'\'' /proc/self/mounts);
	[ -z "$cg" ] || rmdir "$cg/warden/$WARDEN_CGROUP_GROUP" 2>/dev/null || true' EXIT
mkdir -p "$dir/work" "$dir/protected" "$dir/floor"
export WARDEN_RUN_DIR="$rundir"
export WARDEN_CGROUP_GROUP=${WARDEN_CGROUP_GROUP:-bench-holds}

policy() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["%s","/lib64/ld-linux-x86-64.so.2"]%s}}\n' \
		"$bin" "$dir" "$bin" "$1" > "$2"
}
policy "" "$dir/plain.json"
policy ",\"protect\":[{\"path\":\"$dir/protected\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
	"$dir/held.json"

# run POLICY [at] [--survive S]: the median ns of one run of unlink_lat under warden
run() {
	local pol=$1 at=${2:-} out
	shift 2 || shift $#
	out=$("$bin/warden" run "$@" --policy "$pol" --audit /dev/null -- \
		"$bin/unlink_lat" "$dir/work" "$n" $at) || { echo "holds: warden run failed" >&2; return 1; }
	[ -n "$out" ] || { echo "holds: unlink_lat printed nothing" >&2; return 1; }
	echo "${out%% *}"
}

# row NAME VS FILE NOTE: FILE has one "warden_ns baseline_ns" pair a line
row() {
	awk -v name="$1" -v vs="$2" -v note="$4" '
	function med(a, k,   i, j, t) {
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	{ k++; r[k] = $1 / $2; w[k] = $1; b[k] = $2; d[k] = $1 - $2 }
	END {
		if (!k) exit 1
		m = med(r, k); lo = r[1]; hi = r[k]
		printf "{\"row\":\"%s\",\"vs\":\"%s\",\"median\":%.3f,\"min\":%.3f,\"max\":%.3f,", name, vs, m, lo, hi
		printf "\"unit\":\"ratio\",\"how\":\"wall\",\"abs\":{\"median_us\":%.2f,\"vs_median_us\":%.2f,", med(w, k) / 1000, med(b, k) / 1000
		printf "\"added_us\":%.2f},\"note\":\"%s\"}\n", med(d, k) / 1000, note
	}' "$3"
}

: > "$dir/unlink"; : > "$dir/unlinkat"; : > "$dir/survive"; : > "$dir/floor.txt"
for ((i = 0; i < rounds; i++)); do
	echo "holds: round $((i + 1))/$rounds" >&2
	# each pair back to back, the order alternating so drift falls on both sides alike
	if ((i % 2)); then
		h=$(run "$dir/held.json") p=$(run "$dir/plain.json")
	else
		p=$(run "$dir/plain.json") h=$(run "$dir/held.json")
	fi
	s=$(run "$dir/held.json" "" --survive 60)
	echo "$h $p" >> "$dir/unlink"
	echo "$s $p" >> "$dir/survive"
	if ((i % 2)); then
		h=$(run "$dir/held.json" at) p=$(run "$dir/plain.json" at)
	else
		p=$(run "$dir/plain.json" at) h=$(run "$dir/held.json" at)
	fi
	echo "$h $p" >> "$dir/unlinkat"
	# notify_floor times the same unlinks without and then with the filter, in one process
	read -r fm _ bm _ <<< "$("$bin/notify_floor" "$dir/floor" "$n")"
	[ -n "${bm:-}" ] || { echo "holds: notify_floor failed" >&2; exit 1; }
	echo "$fm $bm" >> "$dir/floor.txt"
done
backend=$("$bin/warden" doctor --json 2>/dev/null | sed -n 's/.*"backend":[^"]*"\([^"]*\)".*/\1/p')
row holds/unlink "same sandbox, no hold rules" "$dir/unlink" \
	"unlink(abs path) no hold rule matches, $n calls a run, $backend backend; target added < 15 us"
row holds/unlinkat "same sandbox, no hold rules" "$dir/unlinkat" \
	"unlinkat(dirfd, name) as rm -r, $n calls a run, $backend backend"
row holds/unlink-survive "same sandbox, no hold rules, no --survive" "$dir/survive" \
	"unlink with --survive 60 (received page in the keeper's memfd), $backend backend"
row holds/notify-floor "the same unlink, no filter" "$dir/floor.txt" \
	"bare seccomp notify + CONTINUE, no sandbox, no warden (sync wake-up where the kernel has it)"

# The supervisor's syscalls per call: strace -c -f attached to it while unlink_lat runs (the
# FIFO holds the unlinks back until strace is attached); counts over the run divided by the calls,
# listing each syscall made at least once per two calls (the main loop's rare ones are left out).
count() {
	local at=$1 m=2000 wpid spid
	rm -f "$dir/go" "$dir/strace.$at" "$dir/strace.err"
	mkfifo "$dir/go"
	"$bin/warden" run --policy "$dir/held.json" --audit /dev/null -- \
		"$bin/unlink_lat" --go "$dir/go" "$dir/work" "$m" $at > /dev/null &
	wpid=$!
	# attach only once the sandbox runs unlink_lat (its last file made, held at the FIFO):
	# attached earlier, strace -f would follow the sandbox's own process as warden forks it
	while [ ! -e "$dir/work/f$((m - 1))" ]; do
		kill -0 "$wpid" 2> /dev/null || { wait "$wpid" || true; return 1; }
		sleep 0.05
	done
	strace -f -c -o "$dir/strace.$at" -p "$wpid" 2> "$dir/strace.err" &
	spid=$!
	# attached once strace says so for the supervisor's threads
	while ! grep -q attached "$dir/strace.err" 2> /dev/null; do
		kill -0 "$spid" 2> /dev/null || { wait "$wpid" || true; return 1; }
		sleep 0.05
	done
	echo x > "$dir/go"
	wait "$wpid" || return 1
	wait "$spid" || true
	awk -v m="$m" -v name="holds/syscalls-unlink$at" '
	$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" {
		c = $4
		if (c >= m / 2) { per += c / m; list = list sprintf("%s%s %.2f", list ? ", " : "", $NF, c / m) }
	}
	END {
		if (per == 0) exit 1
		printf "{\"row\":\"%s\",\"vs\":null,\"median\":%.2f,\"min\":%.2f,\"max\":%.2f,", name, per, per, per
		printf "\"unit\":\"syscalls/call\",\"how\":\"strace -c -f -p supervisor\",\"abs\":null,"
		printf "\"note\":\"the supervisor'"'"'s syscalls made at least once per 2 calls, per call: %s\"}\n", list
	}' "$dir/strace.$at"
}
if command -v strace > /dev/null; then
	count "" || { echo "holds: counting syscalls failed" >&2; exit 1; }
	count at || { echo "holds: counting syscalls failed" >&2; exit 1; }
else
	echo "holds: no strace: the syscall count rows are left out" >&2
fi
