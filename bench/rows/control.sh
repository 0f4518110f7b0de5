#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench rows control/list-p50, control/list-p99: the latency of a `list` request on wardend's
# control socket (write to whole reply line, 400 in turn on one connection, bench/ctl_latency)
# while 50 persistent sandboxes run, against a wardend of its own with none, round by round.
# Both wardends are this script's own (their run dirs and cgroup groups).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_LIB"
bench_warden_env

rounds=$(bench_rounds)
busy=$WARDEN_RUN_DIR
idle=$BENCH_TMP/idle-run
mkdir -p "$idle"
chmod 700 "$idle"
"$BENCH_BIN/wardend" --pool 0 >"$BENCH_TMP/busy.log" 2>&1 &
d1=$!
WARDEN_RUN_DIR=$idle "$BENCH_BIN/wardend" --pool 0 >"$BENCH_TMP/idle.log" 2>&1 &
d2=$!
bench_track "$d1" "$d2"
bench_on_exit() {
	kill -TERM "$d1" "$d2" 2>/dev/null || true
	wait "$d1" "$d2" 2>/dev/null || true
}
"$BENCH_BIN/wd-try" wait-line "$BENCH_TMP/busy.log" "listening on" "$d1" >/dev/null &&
	"$BENCH_BIN/wd-try" wait-line "$BENCH_TMP/idle.log" "listening on" "$d2" >/dev/null ||
	{ cat "$BENCH_TMP"/*.log >&2; bench_fail "a wardend did not listen"; }
bench_say "50 persistent sandboxes"
for i in $(seq 1 50); do
	r=$("$BENCH_BIN/wd-try" ctl "$busy/control.sock" "{\"op\":\"create\",\"policy\":\"cli\",\"idle_timeout_s\":0,\"name\":\"b$i\"}")
	case $r in *'"ok":true'*) ;; *) bench_fail "create $i: $r" ;; esac
done
req='{"op":"list"}'
: >"$BENCH_TMP/pairs"
for _ in $(seq 1 "$rounds"); do
	a=$("$BENCH_BIN/ctl_latency" "$busy/control.sock" 400 "$req") || bench_fail "the busy wardend"
	b=$("$BENCH_BIN/ctl_latency" "$idle/control.sock" 400 "$req") || bench_fail "the idle wardend"
	echo "$a $b" >>"$BENCH_TMP/pairs"
done
awk '{ print $1, $3 }' "$BENCH_TMP/pairs" |
	bench_pair_row control/list-p50 "no sandbox" wall us "list on control.sock with 50 sandboxes running, p50 of 400"
awk '{ print $2, $4 }' "$BENCH_TMP/pairs" |
	bench_pair_row control/list-p99 "no sandbox" wall us "list on control.sock with 50 sandboxes running, p99 of 400"
