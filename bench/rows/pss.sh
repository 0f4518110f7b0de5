#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Memory per sandbox: the PSS (proportional set size: each shared page divided among the
# processes that map it, /proc/PID/smaps_rollup) of warden's own processes, never the command's,
# against bubblewrap's own processes for one sandbox (`bwrap --unshare-all --ro-bind / / CMD`).
#
#   pss/embedded        one `warden run`: supervisor, keeper and init
#   pss/wardend-extra   each extra sandbox under wardend: (PSS(10) - PSS(1)) / 9 of wardend and
#                       all its descendants but the commands, with 1 and then 10 sandboxes up
#
# Every command waits on a fifo the bench controls (head -c1 FIFO), so what is measured is a
# sandbox at rest; the bench counts it up once every command is asleep in its read. Target:
# pss/wardend-extra at most 2048 kB. Figures are not times: pairs are taken in one run all the
# same, the ratio is warden's over bubblewrap's.
set -eu
bin=${BENCH_BIN:?}
tmp=${BENCH_TMP:?}
rounds=${BENCH_ROUNDS:-11}
[ "$rounds" -le 5 ] || rounds=5 # PSS barely moves between rounds; each wardend round starts 10
[ "${BENCH_QUICK:-0}" != 1 ] || rounds=1
pss=$bin/pss
[ -x "$pss" ] || { echo "pss: $pss is not built" >&2; exit 1; }
bwrap=$(command -v bwrap || true)
cmd=head # the command's name, which the sum leaves out

# warden's run directory must be outside what the sandbox may write (cli: the working and the
# temporary directory), its cgroups a group of its own
run=$(mktemp -d /run/wd-bench-pss.XXXXXX)
export WARDEN_RUN_DIR=$run WARDEN_CGROUP_GROUP=bench-pss-$$
daemon= pids=
cleanup() {
	[ -z "$pids" ] || kill $pids 2>/dev/null || true
	[ -z "$daemon" ] || { kill -TERM "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; } || true
	rm -rf "$run"
	# the group's directory, once its sandboxes are gone (rmdir refuses one still in use)
	rmdir "$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)/warden/$WARDEN_CGROUP_GROUP" \
		2>/dev/null || true
}
trap cleanup EXIT
fifo=$tmp/release
cd "$tmp"

# release: every command waiting on the fifo reads EOF and ends
release() {
	: <> "$fifo"
	rm -f "$fifo"
}

# one_embedded: PSS (kB) of one `warden run`'s own processes
one_embedded() {
	local w out
	mkfifo "$fifo"
	"$bin/warden" run --policy cli --audit /dev/null -- head -c1 "$fifo" > /dev/null 2> "$tmp/warden.err" &
	w=$!
	pids=$w
	"$pss" wait 1 "$cmd" "$w" > /dev/null || { echo "pss: the sandbox did not start: $(cat "$tmp/warden.err")" >&2; exit 1; }
	out=$("$pss" tree -x "$cmd" "$w")
	release
	wait "$w" || { echo "pss: warden run failed: $(cat "$tmp/warden.err")" >&2; exit 1; }
	pids=
	echo "${out%% *}"
}

# one_bwrap: PSS (kB) of bubblewrap's own processes for one sandbox
one_bwrap() {
	local b out
	mkfifo "$fifo"
	"$bwrap" --unshare-all --ro-bind / / head -c1 "$fifo" > /dev/null 2> "$tmp/bwrap.err" &
	b=$!
	pids=$b
	"$pss" wait 1 "$cmd" "$b" > /dev/null || { echo "pss: bwrap did not start: $(cat "$tmp/bwrap.err")" >&2; exit 1; }
	out=$("$pss" tree -x "$cmd" "$b")
	release
	wait "$b" || true
	pids=
	echo "${out%% *}"
}

# start_daemon: wardend in the background, once it listens
start_daemon() {
	"$bin/wardend" > "$tmp/wardend.log" 2>&1 &
	daemon=$!
	for _ in $(seq 600); do
		grep -q "listening on" "$tmp/wardend.log" && return 0
		kill -0 "$daemon" 2>/dev/null || break
		read -rt 0.05 <> <(:) || :
	done
	echo "pss: wardend did not start: $(cat "$tmp/wardend.log")" >&2
	exit 1
}

# daemon_run N: N more sandboxes through wardend, each waiting on the fifo
daemon_run() {
	local reply
	for _ in $(seq "$1"); do
		reply=$("$pss" ctl "$run/control.sock" "{\"op\":\"run\",\"policy\":\"cli\",\"cwd\":\"$tmp\",\"stderr\":\"$tmp/sup.err\",\"argv\":[\"head\",\"-c1\",\"$fifo\"]}")
		case $reply in *'"ok":true'*) ;; *) echo "pss: wardend refused the run: $reply $(cat "$tmp/sup.err" 2>/dev/null)" >&2; exit 1 ;; esac
	done
}

# one_daemon: (PSS(10) - PSS(1)) / 9 in kB, and PSS(1), under the running wardend
one_daemon() {
	local p1 p10
	mkfifo "$fifo"
	daemon_run 1
	"$pss" wait 1 "$cmd" "$daemon" > /dev/null || { echo "pss: the sandbox did not start" >&2; exit 1; }
	p1=$("$pss" tree -x "$cmd" "$daemon")
	daemon_run 9
	"$pss" wait 10 "$cmd" "$daemon" > /dev/null || { echo "pss: the 10 sandboxes did not start" >&2; exit 1; }
	p10=$("$pss" tree -x "$cmd" "$daemon")
	release
	# the supervisors end with their commands: then the next round starts from wardend alone
	for _ in $(seq 1200); do
		[ "$("$pss" tree "$daemon" | cut -d' ' -f3)" = 1 ] && break
		read -rt 0.05 <> <(:) || :
	done
	echo "$(((${p10%% *} - ${p1%% *}) / 9)) ${p1%% *}"
}

# stats COLUMN: "median min max" of the numbers on stdin
stats() {
	sort -n | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'
}

# row NAME FILE NOTE: FILE holds "warden_kb bwrap_kb" pairs; one JSON line
row() {
	local w b r lo hi
	if [ -z "$bwrap" ]; then
		read -r w lo hi <<< "$(cut -d' ' -f1 "$2" | stats)"
		printf '{"row":"%s","vs":null,"median":%.0f,"min":%.0f,"max":%.0f,"unit":"kB","how":"bytes","note":"%s (bubblewrap not installed)"}\n' \
			"$1" "$w" "$lo" "$hi" "$3"
		return
	fi
	read -r w _ <<< "$(cut -d' ' -f1 "$2" | stats)"
	read -r b _ <<< "$(cut -d' ' -f2 "$2" | stats)"
	read -r r lo hi <<< "$(awk '{ printf "%.4f\n", $1 / $2 }' "$2" | stats)"
	printf '{"row":"%s","vs":"bubblewrap","median":%s,"min":%s,"max":%s,"unit":"ratio","how":"bytes","abs":{"median_kb":%.0f,"vs_median_kb":%.0f},"note":"%s"}\n' \
		"$1" "$r" "$lo" "$hi" "$w" "$b" "$3"
}

: > "$tmp/embedded" && : > "$tmp/daemon"
for i in $(seq "$rounds"); do
	e=$(one_embedded)
	b=${bwrap:+$(one_bwrap)}
	echo "pss: round $i: embedded $e kB, bubblewrap ${b:-?} kB" >&2
	echo "$e ${b:-0}" >> "$tmp/embedded"
done
start_daemon
for i in $(seq "$rounds"); do
	read -r extra first <<< "$(one_daemon)"
	b=${bwrap:+$(one_bwrap)}
	echo "pss: round $i: wardend, each extra sandbox $extra kB (the first with wardend: $first kB), bubblewrap ${b:-?} kB" >&2
	echo "$extra ${b:-0}" >> "$tmp/daemon"
done
row pss/embedded "$tmp/embedded" "PSS of supervisor, keeper and init of one warden run, from smaps_rollup"
row pss/wardend-extra "$tmp/daemon" "each extra sandbox under wardend, (PSS(10)-PSS(1))/9 of wardend and its descendants but the commands; target 2048 kB"
