#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench/rows/audit.sh: what the audit stream keeps up with (rows of the shared format, COMMON).
#
#   audit/consumer  records/s the supervisor's record path formats and writes on one core
#                   (bench/audit_replay: the run's own callback fed from memory, a flush per 256
#                   records as after a ring drain), per CPU second: no kernel producer limits it
#   audit/flood     records/s warden wrote while a sandbox made denied opens as fast as it could
#                   (bench/audit_flood in AUDIT_PROCS processes, records in the audit file / wall time), the
#                   records lost (the "lost" record's count; the row fails unless written + lost
#                   is exactly the denials made) and the bytes a record takes
#
# With BENCH_AUDIT_BASE=DIR (a warden and an audit_replay of another build, such as main's), each
# row also runs that build interleaved with this one and says the ratio, pair by pair.
# Env: BENCH_BIN, BENCH_TMP, BENCH_ROUNDS, BENCH_QUICK (COMMON); AUDIT_N (flood calls per
# process), AUDIT_PROCS (flooding processes, 2 by default: one per core of the 2-core target).
set -u
say() { echo "bench: audit: $*" >&2; }
fail() { say "$*"; exit 1; }
[ -n "${BENCH_BIN:-}" ] && [ -n "${BENCH_TMP:-}" ] || fail "BENCH_BIN and BENCH_TMP are required"
bin=$(cd "$BENCH_BIN" && pwd) || fail "no $BENCH_BIN"
base=${BENCH_AUDIT_BASE:+$(cd "$BENCH_AUDIT_BASE" && pwd)}
for p in warden audit_flood audit_replay; do
	[ -x "$bin/$p" ] || fail "$bin/$p is missing"
done
for p in ${base:+warden audit_replay}; do
	[ -x "$base/$p" ] || fail "BENCH_AUDIT_BASE has no $p"
done
if [ "${BENCH_QUICK:-0}" = 1 ]; then rounds=3; n=${AUDIT_N:-20000}; else
	rounds=${BENCH_ROUNDS:-11}; n=${AUDIT_N:-40000}; fi
procs=${AUDIT_PROCS:-2}
tmp=$(cd "$BENCH_TMP" && pwd)
export WARDEN_RUN_DIR=$tmp/run WARDEN_CGROUP_GROUP=${WARDEN_CGROUP_GROUP:-bench-audit-$$}
# the group the runs make their cgroups in goes with the script (a run that ended left it empty)
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
trap '[ -z "$cg2" ] || rmdir "$cg2/warden/$WARDEN_CGROUP_GROUP" 2>/dev/null || true' EXIT
mkdir -p "$WARDEN_RUN_DIR" "$tmp/denied" "$tmp/fbin"
echo x > "$tmp/denied/f"
# the flood runs from a directory of its own: the policy lets it exec that and nothing it writes
cp "$bin/audit_flood" "$tmp/fbin/"
printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"exec":["%s","/lib64/ld-linux-x86-64.so.2"]}}\n' \
	"$tmp/fbin" "$tmp/fbin" > "$tmp/policy.json"

# consumer BINDIR: records per CPU second
consumer() {
	local out
	out=$("$1/audit_replay" "$tmp/replay.jsonl" $((n * 5)) 256) || return 1
	rm -f "$tmp/replay.jsonl"
	echo "$out" | awk '{ printf "%.0f %.1f\n", $1 / ($2 / 1e9), $3 / $1 }'
}

# flood BINDIR: "records/s lost bytes_per_record", checked for exactness
flood() {
	local out made denied ns audit=$tmp/flood.jsonl
	rm -f "$audit"
	out=$("$1/warden" run --policy "$tmp/policy.json" --audit "$audit" -- \
		"$tmp/fbin/audit_flood" "$tmp/denied/f" "$n" "$procs" 2>/dev/null) || { say "warden run failed"; return 1; }
	read -r made denied ns <<< "$out"
	awk -v denied="$denied" -v ns="$ns" '
		/"type":"file"/ { recs++; bytes += length($0) + 1 }
		/"type":"lost"/ { match($0, /"count":[0-9]+/); lost += substr($0, RSTART + 8, RLENGTH - 8) }
		END {
			if (recs + lost != denied) {
				printf "written %d + lost %d is not the %d denials\n", recs, lost, denied > "/dev/stderr"
				exit 1
			}
			printf "%.0f %d %.1f\n", recs / (ns / 1e9), lost, recs ? bytes / recs : 0
		}' "$audit" || return 1
	rm -f "$audit"
}

# column N of lines on stdin: "median min max"
stats() {
	awk -v c="$1" '{ print $c }' | sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) exit 1; printf "%s %s %s\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# run FN for this build (and the base, interleaved): lines "this base" of FN's output
rounds_of() {
	local i a b
	for i in $(seq 1 "$rounds"); do
		if [ -n "$base" ] && [ $((i % 2)) = 0 ]; then b=$($1 "$base") || return 1; fi
		a=$($1 "$bin") || return 1
		if [ -n "$base" ] && [ $((i % 2)) = 1 ]; then b=$($1 "$base") || return 1; fi
		echo "$a|${b:-}"
	done
}

say "consumer: $rounds rounds of $((n * 5)) records${base:+, against $base}"
c=$(rounds_of consumer) || fail "the consumer could not be measured"
read -r cmed cmin cmax <<< "$(echo "$c" | cut -d'|' -f1 | stats 1)"
read -r cbytes _ <<< "$(echo "$c" | cut -d'|' -f1 | stats 2)"
say "flood: $rounds rounds of $n denied opens in each of $procs processes"
f=$(rounds_of flood) || fail "the flood could not be measured"
read -r fmed fmin fmax <<< "$(echo "$f" | cut -d'|' -f1 | stats 1)"
read -r lmed lmin lmax <<< "$(echo "$f" | cut -d'|' -f1 | stats 2)"
read -r bmed _ <<< "$(echo "$f" | cut -d'|' -f1 | stats 3)"
note="landlock recorder; records/s per CPU second of the supervisor's record path alone"
if [ -z "$base" ]; then
	printf '{"row":"audit/consumer","vs":null,"median":%s,"min":%s,"max":%s,"unit":"records/s","how":"records/s","abs":{"bytes_per_record":%s},"note":"%s"}\n' \
		"$cmed" "$cmin" "$cmax" "$cbytes" "$note"
	printf '{"row":"audit/flood","vs":null,"median":%s,"min":%s,"max":%s,"unit":"records/s","how":"records/s","abs":{"lost_median":%s,"lost_max":%s,"bytes_per_record":%s,"calls":%s,"procs":%s},"note":"records in the audit file / wall time of the flood; written + lost checked to equal the denials"}\n' \
		"$fmed" "$fmin" "$fmax" "$lmed" "$lmax" "$bmed" "$((n * procs))" "$procs"
	exit 0
fi
# against the base build: ratios pair by pair (this / base), and both medians
ratios() { awk -F'|' -v c="$1" '{ split($1, a, " "); split($2, b, " "); printf "%.3f\n", a[c] / b[c] }'; }
read -r crm crn crx <<< "$(echo "$c" | ratios 1 | stats 1)"
read -r bcm _ <<< "$(echo "$c" | cut -d'|' -f2 | stats 1)"
read -r frm frn frx <<< "$(echo "$f" | ratios 1 | stats 1)"
read -r bfm _ <<< "$(echo "$f" | cut -d'|' -f2 | stats 1)"
read -r blm _ blx <<< "$(echo "$f" | cut -d'|' -f2 | stats 2)"
read -r bbm _ <<< "$(echo "$f" | cut -d'|' -f2 | stats 3)"
printf '{"row":"audit/consumer","vs":"base","median":%s,"min":%s,"max":%s,"unit":"ratio","how":"records/s","abs":{"median_records_s":%s,"vs_median_records_s":%s,"bytes_per_record":%s},"note":"%s"}\n' \
	"$crm" "$crn" "$crx" "$cmed" "$bcm" "$cbytes" "$note"
printf '{"row":"audit/flood","vs":"base","median":%s,"min":%s,"max":%s,"unit":"ratio","how":"records/s","abs":{"median_records_s":%s,"vs_median_records_s":%s,"lost_median":%s,"lost_max":%s,"vs_lost_median":%s,"vs_lost_max":%s,"bytes_per_record":%s,"vs_bytes_per_record":%s,"calls":%s,"procs":%s},"note":"records in the audit file / wall time of the flood; written + lost checked to equal the denials"}\n' \
	"$frm" "$frn" "$frx" "$fmed" "$bfm" "$lmed" "$lmax" "$blm" "$blx" "$bmed" "$bbm" "$((n * procs))" "$procs"
