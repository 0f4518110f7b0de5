#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench/run.sh: make bench. Runs every executable bench/rows/*.sh (sorted), each with a scratch
# dir of its own, collects the JSON rows they print, then (optionally) the VM's rows on bpf-lsm,
# prints one table and writes results.json. A row script that fails is shown as failed and makes
# the run exit 1, after all the others ran. docs/performance.md says how to read the table.
#
#   bench/run.sh --bin DIR [--out FILE] [--rows DIR] [--only NAME,...] [--vm CACHE]
#                [--vm-rows NAME,...] [--lines]
#
#   --bin DIR     warden, wardend, warden-init (warden-keeper) and the bench/*.c programs
#   --out FILE    results.json to write (default bench/results.json)
#   --rows DIR    the row scripts (default bench/rows)
#   --only LIST   run only these row scripts (names without .sh)
#   --vm CACHE    then boot the 6.1 VM (tests/vm/run.sh, kernel cache CACHE) and run --vm-rows
#                 there on bpf-lsm; its rows get "where":"vm-6.1"
#   --vm-rows L   the row scripts the VM runs (default openclose,forkexec)
#   --lines       print the rows as "BENCH_ROW {json}" lines, no table, no results.json (what
#                 the VM does: the host reads them off its console)
#
# Environment: BENCH_ROUNDS (default 11), BENCH_QUICK=1 (3 rounds), BENCH_VM_ROUNDS (default 3),
# BENCH_VM_TIMEOUT (seconds, default 900: a bound for a hung VM, not its expected time).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
bin='' out=$here/results.json rowdir=$here/rows only='' vm='' vm_rows=openclose,forkexec lines=''
while [ $# -gt 0 ]; do
	case $1 in
	--bin) bin=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--rows) rowdir=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--vm) vm=$2; shift 2 ;;
	--vm-rows) vm_rows=$2; shift 2 ;;
	--lines) lines=1; shift ;;
	*) echo "bench: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$bin" ] || { echo "bench: --bin DIR is required" >&2; exit 2; }
[ -n "$lines" ] || command -v jq >/dev/null || { echo "bench: jq is needed (make deps)" >&2; exit 2; }

scratch=$(mktemp -d /tmp/wd-bench.XXXXXX)
cur=''
# shellcheck disable=SC2317 # called via trap
cleanup() {
	# a row script interrupted with us: its own traps clean up what it started
	[ -z "$cur" ] || { kill -TERM "$cur" 2>/dev/null; wait "$cur" 2>/dev/null; }
	# the idle program set the rows' runs left (`warden unload`): nothing stays pinned
	[ -z "$bin" ] || "$bin/warden" unload > /dev/null 2>&1
	rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

rows=$scratch/rows.jsonl
: >"$rows"
failed=0

# record NAME STATUS: the rows NAME printed (checked: one JSON object each, with a "row"), or a
# failed row when it exited nonzero or printed nothing usable
record() {
	local name=$1 rc=$2 file=$scratch/$1.out good=0 line
	while IFS= read -r line; do
		if [ -n "$lines" ]; then
			case $line in
			'{"row":'*'}') echo "$line" >>"$rows"; good=$((good + 1)) ;;
			*) echo "bench: $name printed a line that is not a row: $line" >&2; rc=1 ;;
			esac
		elif printf '%s\n' "$line" | jq -e 'type == "object" and has("row")' >/dev/null 2>&1
		then
			printf '%s\n' "$line" | jq -c --arg w "${BENCH_WHERE:-host}" \
				'if has("where") then . else . + {where: $w} end' >>"$rows"
			good=$((good + 1))
		else
			echo "bench: $name printed a line that is not a row: $line" >&2
			rc=1
		fi
	done <"$file"
	if [ "$rc" != 0 ] || [ "$good" = 0 ]; then
		failed=1
		printf '{"row":"%s","failed":true,"status":%d,"where":"%s"}\n' "$name" "$rc" \
			"${BENCH_WHERE:-host}" >>"$rows"
	fi
}

selected() { # selected NAME LIST
	[ -z "$2" ] || case ",$2," in *",$1,"*) ;; *) return 1 ;; esac
}

export BENCH_BIN=$bin BENCH_ROUNDS=${BENCH_ROUNDS:-11} BENCH_QUICK=${BENCH_QUICK:-0}
export BENCH_LIB=$here/lib.sh
for script in "$rowdir"/*.sh; do
	[ -x "$script" ] || continue
	name=$(basename "$script" .sh)
	selected "$name" "$only" || continue
	mkdir -p "$scratch/tmp/$name"
	echo "bench: $name ..." >&2
	start=$(date +%s)
	BENCH_TMP=$scratch/tmp/$name BENCH_ROW_NAME=$name "$script" >"$scratch/$name.out" &
	cur=$!
	wait "$cur"
	rc=$?
	cur=''
	echo "bench: $name: exit $rc, $(($(date +%s) - start)) s" >&2
	rm -rf "$scratch/tmp/$name"
	record "$name" "$rc"
done

if [ -n "$vm" ]; then
	# the VM's stage: the same programs and the bench scripts, run there with --lines
	stage=$scratch/vmstage
	mkdir -p "$stage/bin" "$stage/bench"
	cp -a "$bin/." "$stage/bin/"
	cp -a "$here/run.sh" "$here/lib.sh" "$here/rows" "$stage/bench/"
	echo "bench: vm-6.1: $vm_rows on bpf-lsm ..." >&2
	# fewer rounds and shorter loops there: TCG runs everything many times slower
	vm_env="BENCH_WHERE=vm-6.1 BENCH_ROUNDS=${BENCH_VM_ROUNDS:-3}"
	# and openclose on the wall clock: TCG's unstable TSC leaves the VM's CPU clock on jiffies
	vm_env="$vm_env BENCH_OPENCLOSE_N=5000 BENCH_OPENCLOSE_REPS=7 BENCH_OPENCLOSE_CLOCK=wall"
	vm_env="$vm_env BENCH_OPENCLOSE_RULES='10 1000' BENCH_FORKEXEC_N=50"
	start=$(date +%s)
	"$top/tests/vm/run.sh" --cache "$vm" --stage "$stage" --timeout "${BENCH_VM_TIMEOUT:-900}" \
		--cmd "$vm_env bench/run.sh --lines --bin /warden/bin --only $vm_rows" \
		>"$scratch/vm.log" 2>&1
	rc=$?
	echo "bench: vm-6.1: exit $rc, $(($(date +%s) - start)) s" >&2
	sed -n 's/^.*BENCH_ROW //p' "$scratch/vm.log" >"$scratch/vm.out"
	if [ ! -s "$scratch/vm.out" ]; then
		tail -n 30 "$scratch/vm.log" >&2
		[ "$rc" != 0 ] || rc=1
	fi
	BENCH_WHERE=vm-6.1 record vm "$rc"
fi

if [ -n "$lines" ]; then
	sed 's/^/BENCH_ROW /' "$rows"
	exit "$failed"
fi

# the table: row (@where when not the host), vs, median [min-max], how, abs (warden's median vs
# the baseline's), note
jq -r 'def n: if type != "number" then "-" elif fabs >= 100 then round | tostring
		else (. * 100 | round) / 100 | tostring end;
	def abs: if (.abs | type) != "object" then "" else
		(.abs | to_entries) as $e | ($e[0].key | sub("^(vs_)?median_"; "")) as $u |
		($e | map(.value | n) | join(" vs ")) + " " + $u end;
	[.row + (if .where != "host" then " @" + .where else "" end),
	(if .failed then "-" else (.vs // "-") end),
	(if .failed then "FAILED (exit \(.status))"
	 else "\(.median | n) [\(.min | n)-\(.max | n)]" +
		(if .unit != "ratio" then " " + .unit else "" end) end),
	(.how // "-"), (if .failed then "" else abs end), (.note // "")] | @tsv' \
	"$rows" >"$scratch/table.tsv"
awk -F'\t' 'BEGIN { split("row vs median_[min-max] how abs note", h, " "); h[3] = "median [min-max]"
		for (i = 1; i <= 6; i++) w[i] = length(h[i]) }
	{ for (i = 1; i <= 6; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
	END { for (r = 0; r <= NR; r++) { l = ""
			for (i = 1; i <= 6; i++) {
				v = r ? c[r, i] : h[i]
				l = l (i < 6 ? sprintf("%-" w[i] "s  ", v) : v)
			}
			print l } }' "$scratch/table.tsv"

backend=$("$bin/warden" doctor --json 2>/dev/null | jq -r '.backend // empty' 2>/dev/null)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null)
git -C "$top" diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
jq -s --arg kernel "$(uname -r)" --argjson cores "$(nproc)" --arg backend "${backend:-unknown}" \
	--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg commit "${commit:-unknown}" \
	--argjson rounds "$BENCH_ROUNDS" --argjson quick "$([ "$BENCH_QUICK" = 1 ] && echo true || echo false)" \
	'{schema: "warden.bench/1", machine: {kernel: $kernel, cores: $cores, backend: $backend,
	  date: $date, commit: $commit}, rounds: $rounds, quick: $quick, rows: .}' \
	"$rows" >"$out.tmp" && mv "$out.tmp" "$out"
echo "bench: wrote $out" >&2
[ "$failed" = 0 ] || echo "bench: some rows failed (see above)" >&2
exit "$failed"
