# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/lib.sh: helpers for the row scripts of bench/rows/ (sourced). A row script prints one
# JSON object per line on stdout and nothing else; progress goes to stderr (bench_say). Only sh,
# awk and sort are used here, so the same helpers run in the test VM (busybox) as on the host.
#
#   bench_rounds                  rounds to interleave: $BENCH_ROUNDS (11), 3 with BENCH_QUICK=1
#   bench_interleave N FA FB      N rounds of the shell functions FA and FB, each printing one
#                                 number; "a b" per round, in the order A B, B A, A B, ... (so
#                                 neither always runs right after the other)
#   bench_stats                   numbers on stdin: "median min max"
#   bench_ratios                  "a b" lines on stdin: a/b per line
#   bench_pair_row ROW VS HOW UNIT NOTE
#                                 "a b" lines on stdin (a: warden's figure, b: the baseline's):
#                                 one ratio row, pair by pair; abs medians as median_UNIT
#   bench_compare ROW VS HOW UNIT NOTE FA FB
#                                 bench_interleave of FA (warden) and FB (the baseline) for
#                                 bench_rounds, then bench_pair_row; fails whole if a round did
#   bench_value_row ROW UNIT HOW NOTE
#                                 numbers on stdin: a row of the figure itself (not a ratio)
#   bench_instructions CMD...     instructions the command ran (perf stat, user space and
#                                 kernel: bench_instr_events says which), or fails where the
#                                 machine has no counter (virtual machines often have none)
#   bench_warden_env              for rows that run warden: its run dir, $TMPDIR and the working
#                                 dir (which a policy's $TMPDIR and $WORKDIR let the sandbox write)
#                                 apart under BENCH_TMP, cgroups in a group of this script's own
#                                 (removed at exit), and the exit trap: it calls the script's
#                                 bench_on_exit if defined, then kills what bench_track tracked
#   bench_track PID...            pids to kill (only these) when the script ends, however it ends
#   bench_fail MESSAGE            say why on stderr and exit 1: the row is shown as failed

bench_say() { echo "bench: ${BENCH_ROW_NAME:-row}: $*" >&2; }
bench_fail() { bench_say "$*"; exit 1; }

bench_warden_env() {
	export WARDEN_RUN_DIR=$BENCH_TMP/run WARDEN_CGROUP_GROUP=bench-$$
	export TMPDIR=$BENCH_TMP/tmp
	mkdir -p "$WARDEN_RUN_DIR" "$TMPDIR" "$BENCH_TMP/work"
	cd "$BENCH_TMP/work" || exit 1
	trap bench_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
}

# shellcheck disable=SC2317 # called via trap
bench_exit() {
	local rc=$? cg
	! command -v bench_on_exit >/dev/null || bench_on_exit
	bench_reap
	# our group of sandbox cgroups, once warden removed the sandboxes in it (never another's)
	cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -z "$cg" ] || [ ! -d "$cg/warden/$WARDEN_CGROUP_GROUP" ] ||
		rmdir "$cg/warden/$WARDEN_CGROUP_GROUP" 2>/dev/null ||
		bench_say "$cg/warden/$WARDEN_CGROUP_GROUP is left: a sandbox in it did not end"
	exit "$rc"
}

bench_rounds() {
	if [ "${BENCH_QUICK:-0}" = 1 ]; then echo 3; else echo "${BENCH_ROUNDS:-11}"; fi
}

# a number or fail: what a measuring function printed is checked before it becomes a figure
bench_num() {
	case $1 in
	'' | *[!0-9.]* | *.*.*) return 1 ;;
	esac
	return 0
}

bench_interleave() {
	local n=$1 fa=$2 fb=$3 i a b
	for i in $(seq 1 "$n"); do
		if [ $((i % 2)) = 1 ]; then
			a=$($fa) || return 1
			b=$($fb) || return 1
		else
			b=$($fb) || return 1
			a=$($fa) || return 1
		fi
		if ! bench_num "$a" || ! bench_num "$b"; then
			bench_say "not a number: '$a' '$b'"
			return 1
		fi
		echo "$a $b"
	done
}

bench_stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.6g %.6g %.6g\n", m, v[1], v[NR] }'
}

bench_ratios() {
	awk 'NF >= 2 { if ($2 <= 0) exit 1; printf "%.6f\n", $1 / $2 }'
}

# JSON string of $1 (quotes and backslashes escaped; notes are ours, no control characters)
bench_json_str() {
	printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

# the optional "where" of rows measured elsewhere than the host (the VM sets BENCH_WHERE)
bench_where() {
	[ -z "${BENCH_WHERE:-}" ] || printf ',"where":%s' "$(bench_json_str "$BENCH_WHERE")"
}

bench_pair_row() {
	local row=$1 vs=$2 how=$3 unit=$4 note=$5 pairs r a b
	pairs=$(cat)
	[ -n "$pairs" ] || bench_fail "no pairs for $row"
	r=$(printf '%s\n' "$pairs" | bench_ratios | bench_stats) || bench_fail "no ratios for $row"
	a=$(printf '%s\n' "$pairs" | awk '{ print $1 }' | bench_stats | awk '{ print $1 }')
	b=$(printf '%s\n' "$pairs" | awk '{ print $2 }' | bench_stats | awk '{ print $1 }')
	# shellcheck disable=SC2086 # three numbers
	set -- $r
	printf '{"row":%s,"vs":%s,"median":%.3f,"min":%.3f,"max":%.3f,"unit":"ratio","how":%s,' \
		"$(bench_json_str "$row")" "$(bench_json_str "$vs")" "$1" "$2" "$3" \
		"$(bench_json_str "$how")"
	printf '"abs":{"median_%s":%s,"vs_median_%s":%s},"rounds":%d,"note":%s%s}\n' \
		"$unit" "$a" "$unit" "$b" "$(printf '%s\n' "$pairs" | wc -l)" \
		"$(bench_json_str "$note")" "$(bench_where)"
}

bench_compare() {
	local pairs
	pairs=$(bench_interleave "$(bench_rounds)" "$6" "$7") || bench_fail "$1: a round failed"
	printf '%s\n' "$pairs" | bench_pair_row "$1" "$2" "$3" "$4" "$5"
}

bench_value_row() {
	local row=$1 unit=$2 how=$3 note=$4 s
	s=$(bench_stats) || bench_fail "no figures for $row"
	# shellcheck disable=SC2086 # three numbers
	set -- $s
	printf '{"row":%s,"vs":null,"median":%s,"min":%s,"max":%s,"unit":%s,"how":%s,"note":%s%s}\n' \
		"$(bench_json_str "$row")" "$1" "$2" "$3" "$(bench_json_str "$unit")" \
		"$(bench_json_str "$how")" "$(bench_json_str "$note")" "$(bench_where)"
}

# perf stat counts the kernel's instructions too when run as root (or with
# kernel.perf_event_paranoid <= 1); user space only otherwise
bench_instr_events() {
	if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" -le 1 ]
	then
		echo instructions
	else
		echo instructions:u
	fi
}

bench_instructions() {
	local out
	command -v perf >/dev/null 2>&1 || return 1
	out=$(perf stat -x, -e "$(bench_instr_events)" -- "$@" 2>&1 >/dev/null) || return 1
	out=$(printf '%s\n' "$out" | awk -F, '$3 ~ /^instructions/ { print $1 }' | tail -n 1)
	bench_num "$out" || return 1
	echo "$out"
}

BENCH_PIDS=
bench_track() { BENCH_PIDS="$BENCH_PIDS $*"; }
# only those still our unwaited jobs: a pid once waited for may be another process's by now
bench_reap() {
	local p live
	live=" $(jobs -p | tr '\n' ' ') "
	for p in $BENCH_PIDS; do
		case $live in *" $p "*) kill -TERM "$p" 2>/dev/null || true ;; esac
	done
	for p in $BENCH_PIDS; do
		case $live in *" $p "*) wait "$p" 2>/dev/null || true ;; esac
	done
	BENCH_PIDS=
}

# bench_peer NAME CMD...: add a peer to the caller's spawn_time command list (the arrays cmds and
# names, the string missing): one that is not installed or does not run here is named in missing
# and becomes a failed row, never a made-up figure.
bench_peer() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then
		cmds+=(:: "$@")
		names+=("$name")
	else
		bench_say "$name does not run here ($*): make deps installs it"
		missing="$missing $name"
	fi
}

# bench_peer_rows ROW NOTE [LOG...]: spawn_time's interleaved rounds of the caller's cmds (the
# command measured first, then each peer bench_peer added), one ratio row per peer; LOGs are
# shown if it fails. Fails the script if a peer could not be measured.
bench_peer_rows() {
	local row=$1 note=$2 i
	shift 2
	bench_say "${#names[@]} baselines, $rounds rounds"
	"$BENCH_BIN/spawn_time" "$rounds" "${cmds[@]}" >"$BENCH_TMP/times" 2>"$BENCH_TMP/log" ||
		{ cat "$BENCH_TMP/log" "$@" >&2; bench_fail "spawn_time failed"; }
	for i in "${!names[@]}"; do
		awk -v c=$((i + 2)) '{ print $1, $c }' "$BENCH_TMP/times" |
			bench_pair_row "$row" "${names[$i]}" wall us "$note"
	done
	[ -z "$missing" ] || bench_fail "not measured against:$missing"
}
