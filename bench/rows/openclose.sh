#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench row openclose: what a sandbox costs each syscall. bench/openclose times N open()+close()
# of one file.
#   outside-1, outside-10: a process outside any sandbox, while 1 and 10 sandboxes run (each a
#     `warden run --policy cli` whose command waits on a pipe of ours), against none running. A
#     round measures 0, 1, 10 sandboxes (or 10, 1, 0: every other round backwards), starting or
#     ending the sandboxes between; pairs are taken within the round.
#   floor: no sandbox, but empty programs on the recorder's tracepoints (bench/tp_floor): what
#     any syscall-tracepoint recorder costs a process outside, against nothing attached.
#   inside-R: the same loop inside a sandbox whose policy has R fs.read rules (10, 100, 1000;
#     BENCH_OPENCLOSE_RULES), against outside, interleaved.
# The figure is the loop's instruction count (perf stat) where the machine has a counter, else
# the looping thread's own CPU time (it leaves out waiting for a core on a loaded machine; what
# the kernel runs for the syscall, hooks and tracepoint programs included, is in it).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_LIB"
bench_warden_env
mkdir -p "$BENCH_TMP/rules"
# REPS loops of N, the fastest counts (openclose.c says why)
n=${BENCH_OPENCLOSE_N:-40000}
reps=${BENCH_OPENCLOSE_REPS:-5}
[ "$BENCH_QUICK" != 1 ] || reps=2
target=$BENCH_TMP/target
: >"$target"
oc=$BENCH_BIN/openclose

# the gates: fifos the sandboxes' commands read until EOF. We hold each open read-write (so
# opening never blocks); closing it ends every sandbox reading it. Should this script die
# however it dies, the gates close with it and the sandboxes end; the exit trap kills our
# wardens too.
mkfifo "$BENCH_TMP/gate1" "$BENCH_TMP/gate9" "$BENCH_TMP/ready"
exec {ready}<>"$BENCH_TMP/ready"
g1='' g9=''
pids1='' pids9='' started=''
# shellcheck disable=SC2317 # called via bench_warden_env's trap
bench_on_exit() {
	[ -z "$g1" ] || exec {g1}>&-
	[ -z "$g9" ] || exec {g9}>&-
	g1='' g9=''
}

# start COUNT GATE: COUNT sandboxes reading GATE; returns once each command has said it runs.
# Their pids are in $started.
start() {
	local count=$1 gate=$2 i
	started=''
	for i in $(seq 1 "$count"); do
		(
			exec <"$BENCH_TMP/$gate" >"$BENCH_TMP/ready" 2>>"$BENCH_TMP/warden.log"
			# the sandboxes hold no end of our gates but the one they read
			exec {ready}>&-
			[ -z "$g1" ] || exec {g1}>&-
			[ -z "$g9" ] || exec {g9}>&-
			exec "$BENCH_BIN/warden" run --policy cli --audit /dev/null -- \
				/bin/sh -c 'echo ready; read x'
		) &
		started="$started $!"
	done
	# shellcheck disable=SC2086 # a list of pids
	bench_track $started
	for i in $(seq 1 "$count"); do
		read -r -t 120 -u "$ready" _ || { cat "$BENCH_TMP/warden.log" >&2; return 1; }
	done
}
# stop GATE PIDS: close the gate (1 or 9) and wait for the sandboxes reading it to end
stop() {
	local p
	if [ "$1" = 1 ]; then exec {g1}>&-; g1=''; else exec {g9}>&-; g9=''; fi
	for p in $2; do wait "$p" || true; done
}
open_gates() {
	exec {g1}<>"$BENCH_TMP/gate1"
	exec {g9}<>"$BENCH_TMP/gate9"
}

field=2
[ "${BENCH_OPENCLOSE_CLOCK:-cpu}" != wall ] || field=1
# the figure of one loop outside: instructions per iteration where perf counts them, else CPU ns
if bench_instructions /bin/true >/dev/null; then
	how=instructions
	outside() {
		local i
		i=$(bench_instructions "$oc" "$target" "$n" "$reps") || return 1
		awk -v i="$i" -v n=$((n * reps)) 'BEGIN { printf "%.1f\n", i / n }'
	}
else
	# wall where the CPU clock is coarse: a VM under TCG, whose unstable TSC leaves the
	# scheduler's clock on jiffies (BENCH_OPENCLOSE_CLOCK=wall)
	how=${BENCH_OPENCLOSE_CLOCK:-cpu}
	outside() { "$oc" "$target" "$n" "$reps" | awk -v f="$field" '{ print $f }'; }
fi
rounds=$(bench_rounds)
bench_say "$rounds rounds of the best of $reps x $n open+close, 0/1/10 sandboxes outside ($how)"
: >"$BENCH_TMP/p1"
: >"$BENCH_TMP/p10"
# odd rounds go up (0, start 1, 1, start 9, 10), even rounds come down (10, stop 9, 1, stop 1,
# 0): the sandboxes are started once every two rounds
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then
		open_gates
		m0=$(outside)
		start 1 gate1
		pids1=$started
		m1=$(outside)
		start 9 gate9
		pids9=$started
		m10=$(outside)
		[ "$r" != "$rounds" ] || { stop 9 "$pids9"; stop 1 "$pids1"; }
	else
		m10=$(outside)
		stop 9 "$pids9"
		m1=$(outside)
		stop 1 "$pids1"
		m0=$(outside)
	fi
	for m in "$m0" "$m1" "$m10"; do bench_num "$m" || bench_fail "round $r: no figure"; done
	echo "$m1 $m0" >>"$BENCH_TMP/p1"
	echo "$m10 $m0" >>"$BENCH_TMP/p10"
done
unit=ns
[ "$how" != instructions ] || unit=instructions
for c in 1 10; do
	bench_pair_row "openclose/outside-$c" "no sandbox" "$how" "$unit" \
		"a process outside any sandbox, $c running; per open+close, best of $reps loops" \
		<"$BENCH_TMP/p$c"
done

# the floor: no sandbox, but bench/tp_floor's empty programs on the two syscall tracepoints the
# recorder uses. Any recorder on those tracepoints costs a process outside at least this (the
# kernel sends every syscall of every task through its slow path while one is attached), so
# outside-1 and outside-10 read against this row, not against 1.00.
mkfifo "$BENCH_TMP/floorgate"
floor() {
	local p fg m
	"$BENCH_BIN/tp_floor" <"$BENCH_TMP/floorgate" >"$BENCH_TMP/ready" 2>>"$BENCH_TMP/warden.log" &
	p=$!
	bench_track "$p"
	exec {fg}>"$BENCH_TMP/floorgate"
	read -r -t 60 -u "$ready" _ || { exec {fg}>&-; cat "$BENCH_TMP/warden.log" >&2; return 1; }
	m=$(outside)
	exec {fg}>&-
	wait "$p" || return 1
	echo "$m"
}
bench_say "the floor: empty programs on sys_enter and sys_exit"
bench_compare "openclose/floor" "no sandbox" "$how" "$unit" \
	"a process outside, empty programs on the recorder's two syscall tracepoints; per open+close" \
	floor outside

# inside: a policy of R fs.read rules (directories of their own) beside what the loop needs;
# the figure is the loop's CPU time (perf cannot count inside the sandbox)
policy() { # policy R FILE
	local i
	{
		printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/bin","/etc",'
		printf '"%s","%s"' "$BENCH_BIN" "$target"
		for i in $(seq 1 "$1"); do
			mkdir -p "$BENCH_TMP/rules/d$i"
			printf ',"%s/rules/d%d"' "$BENCH_TMP" "$i"
		done
		printf '],"exec":["%s","/usr/lib","/lib","/lib64"]}}\n' "$BENCH_BIN"
	} >"$2"
}
outside_cpu() { "$oc" "$target" "$n" "$reps" | awk -v f="$field" '{ print $f }'; }
inside() {
	"$BENCH_BIN/warden" run --policy "$BENCH_TMP/rules$rules.json" --audit /dev/null -- \
		"$oc" "$target" "$n" "$reps" | awk -v f="$field" '{ print $f }'
}
for rules in ${BENCH_OPENCLOSE_RULES:-10 100 1000}; do
	policy "$rules" "$BENCH_TMP/rules$rules.json"
	bench_say "inside, $rules rules"
	bench_compare "openclose/inside-$rules" outside "${BENCH_OPENCLOSE_CLOCK:-cpu}" ns \
		"the loop inside a sandbox of $rules fs.read rules; per open+close, best of $reps loops" \
		inside outside_cpu
done
