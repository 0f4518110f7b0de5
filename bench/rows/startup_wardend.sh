#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench rows startup/wardend and startup/wardend-cold: a run of /bin/true through wardend
# (request on its control socket to the end of the run: command, init and supervisor gone;
# bench/wardend_run) against bubblewrap with every namespace and a bare fork+exec of /bin/true.
# bench/spawn_time times each from C, interleaved round by round.
#   startup/wardend       wardend as configured by default (spares 1): each run after the first
#                         claims the spare made after the run before it (docs/design.md#spares)
#   startup/wardend-cold  a wardend with "spares": 0: every run is set up when it is asked for
#                         (what the first run of a policy, or one no spare fits, costs)
# After every command, timed or not, spawn_time runs `wardend_run --settle` untimed: it returns
# once a spare is ready, so wardend's making of it falls on no command's figure (the peers'
# included). Each wardend is this script's own (its run dir and cgroup group), started here and
# stopped however the script ends.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_LIB"
bench_warden_env

rounds=$(($(bench_rounds) * 2 - 1))
sock=$WARDEN_RUN_DIR/control.sock
daemon=
bench_on_exit() {
	# TERM: it empties its pool of cgroups and ends its spares before it ends
	[ -z "$daemon" ] || kill -TERM "$daemon" 2>/dev/null || true
	[ -z "$daemon" ] || wait "$daemon" 2>/dev/null || true
}
# start_wardend SPARES: a wardend of this script's with that many spares, listening
start_wardend() {
	printf '{"spares":%s}\n' "$1" >"$BENCH_TMP/wardend.json"
	"$BENCH_BIN/wardend" --config "$BENCH_TMP/wardend.json" >"$BENCH_TMP/wardend.log" 2>&1 &
	daemon=$!
	bench_track "$daemon"
	for _ in $(seq 1 100); do
		[ -S "$sock" ] && break
		kill -0 "$daemon" 2>/dev/null || { cat "$BENCH_TMP/wardend.log" >&2; bench_fail "wardend ended"; }
		sleep 0.1
	done
	[ -S "$sock" ] || bench_fail "wardend did not listen on $sock"
	# one run first: wardend's pool filled, its first request's page faults not in a round
	"$BENCH_BIN/wardend_run" "$sock" cli /bin/true >/dev/null 2>"$BENCH_TMP/log" ||
		{ cat "$BENCH_TMP/log" "$BENCH_TMP/wardend.log" >&2; bench_fail "a run through wardend failed"; }
}
stop_wardend() {
	bench_on_exit
	daemon=
}
printf '#!/bin/sh\nexec "%s/wardend_run" --settle "%s"\n' "$BENCH_BIN" "$sock" >"$BENCH_TMP/settle"
chmod +x "$BENCH_TMP/settle"
export SPAWN_SETTLE=$BENCH_TMP/settle

start_wardend 1
cmds=("$BENCH_BIN/wardend_run" "$sock" cli /bin/true)
names=()
missing=''
bench_peer bubblewrap "$(command -v bwrap || echo bwrap)" --unshare-all --ro-bind / / /bin/true
bench_peer fork+exec /bin/true
bench_peer_rows startup/wardend "a wardend request to run /bin/true under --policy cli, to the run's end; each run claims a spare" \
	"$BENCH_TMP/wardend.log"
claimed=$(grep -c 'a spare made ahead)' "$BENCH_TMP/wardend.log" || true)
bench_say "$claimed of $rounds runs claimed a spare"
[ "$claimed" -ge "$rounds" ] || bench_fail "only $claimed of $rounds runs claimed a spare"
stop_wardend

start_wardend 0
cmds=("$BENCH_BIN/wardend_run" "$sock" cli /bin/true)
names=()
bench_peer bubblewrap "$(command -v bwrap || echo bwrap)" --unshare-all --ro-bind / / /bin/true
bench_peer fork+exec /bin/true
bench_peer_rows startup/wardend-cold "the same with \"spares\": 0: each run set up when asked for" \
	"$BENCH_TMP/wardend.log"
stop_wardend
