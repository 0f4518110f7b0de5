#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench row startup: an embedded `warden run --policy cli -- /bin/true` against the peers a user
# would pick instead (bubblewrap with every namespace, firejail without a profile) and a bare
# fork+exec of /bin/true. bench/spawn_time times each command from C, interleaved round by
# round, so neither a shell's start-up nor a burst of load on the machine lands on one side.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_LIB"
bench_warden_env

rounds=$(($(bench_rounds) * 2 - 1))
cmds=("$BENCH_BIN/warden" run --policy cli -- /bin/true)
names=()
missing=''
bench_peer bubblewrap "$(command -v bwrap || echo bwrap)" --unshare-all --ro-bind / / /bin/true
bench_peer firejail "$(command -v firejail || echo firejail)" --quiet --noprofile /bin/true
bench_peer fork+exec /bin/true
bench_peer_rows startup/embedded "warden run --policy cli -- /bin/true, from fork to exit status"
