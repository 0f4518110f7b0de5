#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench row net: what warden's network programs cost traffic, and how closely net.egress_rate
# holds its rate. Loopback TCP between tests/helpers/wd-rate's sender and its receiver (the
# receiver always outside); each round measures both sides of a pair, interleaved.
#   net/throughput: a 1 s bulk transfer from a cgroup of ours under warden's subtree with the
#     egress program (build/bpf/wd_rate.bpf.o, loaded with bpftool) attached to it and no rate
#     entry (what every sandbox's packet meets), against the same cgroup with nothing attached;
#     the receiver's bytes a second after its first 100 ms, attached over not.
#   net/throughput-rate: the same with a rate entry far above loopback's speed (every packet
#     takes the rate's whole path: lookup, lock, schedule) against nothing attached.
#   net/connect: connect()+close() a second to a listener on loopback (BENCH_NET_CONNECTS of
#     them) from that cgroup, program attached against not.
#   net/connect-rules-1: connect()+close() from a sandbox whose net.allow lists the listener alone
#     (127.0.0.1:PORT; the connect4 program decides each), against the same loop outside.
#   net/connect-rules-100: the same from a sandbox with 100 net.allow rules (99 other hosts and
#     ports, then the listener) against the one with 1: what the rule count costs a connect.
#   net/throughput-sandbox: the transfer from a `warden run --policy cli` sandbox against the
#     same sender outside: the whole sandbox (seccomp, the recorders, the programs).
#   net/egress-accuracy: the receiver's measured rate over the configured 2 MiB/s of a 5 s
#     transfer from a sandbox (from a second after the first byte to the last), per round.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_LIB"
bench_warden_env
wr=$BENCH_BIN/wd-rate
[ -x "$wr" ] || bench_fail "$wr is not built"
connects=${BENCH_NET_CONNECTS:-2000}
[ "$BENCH_QUICK" != 1 ] || connects=500

printf '{"schema":"warden.policy/1","extends":"cli","fs":{"read":["%s"],"exec":["%s"]}}\n' \
	"$BENCH_BIN" "$BENCH_BIN" >"$BENCH_TMP/cli.json"
# rate_policy FILE RATE
rate_policy() {
	printf '{"schema":"warden.policy/1","extends":"cli","fs":{"read":["%s"],"exec":["%s"]},%s}\n' \
		"$BENCH_BIN" "$BENCH_BIN" "\"net\":{\"egress_rate\":\"$2\"}" >"$1"
}
rate_policy "$BENCH_TMP/2m.json" 2MiB/s

sandboxed() {
	"$BENCH_BIN/warden" run --policy "$1" --audit /dev/null -- "${@:2}" 2>>"$BENCH_TMP/warden.log"
}

# transfer SECONDS SKIP_MS [POLICY [WRAP]]: the receiver's rate of one transfer (in a sandbox of
# POLICY, or run by WRAP)
transfer() {
	local secs=$1 skip=$2 p=${3:-} w=${4:-} port srv
	rm -f "$BENCH_TMP/port"
	"$wr" serve "$BENCH_TMP/port" "$skip" >"$BENCH_TMP/serve.out" &
	srv=$!
	while [ ! -s "$BENCH_TMP/port" ]; do
		kill -0 "$srv" 2>/dev/null || return 1
		read -rt 0.02 <> <(:) || :
	done
	port=$(cat "$BENCH_TMP/port")
	if [ -n "$p" ]; then
		sandboxed "$p" "$wr" send "$port" "$secs" >/dev/null || return 1
	elif [ -n "$w" ]; then
		$w "$wr" send "$port" "$secs" >/dev/null || return 1
	else
		"$wr" send "$port" "$secs" >/dev/null || return 1
	fi
	wait "$srv" || return 1
	sed -n 's/.*"rate":\([0-9]*\).*/\1/p' "$BENCH_TMP/serve.out"
}

# the listener of the connect rows, started here: one started inside a round's $(...) would
# hold its output open
rm -f "$BENCH_TMP/cport"
"$wr" connects "$BENCH_TMP/cport" >/dev/null &
bench_track $!
while [ ! -s "$BENCH_TMP/cport" ]; do read -rt 0.02 <> <(:) || :; done
cport=$(cat "$BENCH_TMP/cport")


# Our cgroup under warden's subtree (in this script's group), and the program, pinned under
# names of our own; both removed at exit.
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
netcg=$cg2/warden/$WARDEN_CGROUP_GROUP/netbench
obj=$BENCH_BIN/wd_rate.bpf.o
pin=/sys/fs/bpf/wd_bench_rate_$$
maps=/sys/fs/bpf/wd_bench_rate_maps_$$
command -v bpftool >/dev/null || bench_fail "bpftool is not installed"
[ -f "$obj" ] || bench_fail "$obj is not staged"
# shellcheck disable=SC2317 # called via bench_warden_env's trap
bench_on_exit() {
	bpftool cgroup detach "$netcg" egress pinned "$pin" 2>/dev/null || :
	rm -f "$pin" "$maps/wd_rate"
	rmdir "$maps" "$netcg" 2>/dev/null || :
}
mkdir -p "$netcg" "$maps"
bpftool prog load "$obj" "$pin" pinmaps "$maps" || bench_fail "cannot load $obj"
le64() { printf '%016x' "$1" | sed 's/../& /g' | awk '{ for (i = 8; i >= 1; i--) printf "%s ", $i }'; }
key=$(le64 "$(stat -c %i "$netcg")")
# struct wd_rate: lock and padding, rate (100 GiB/s), burst_ns (1 s), tat and counters
rate_val="00 00 00 00 00 00 00 00 $(le64 107374182400) $(le64 1000000000) $(le64 0) $(le64 0) $(le64 0) $(le64 0)"

# in_cg CMD...: CMD in our cgroup
in_cg() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$netcg" "$@"; }
attached() {
	bpftool cgroup attach "$netcg" egress pinned "$pin" || return 1
	"$@"
	local rc=$?
	bpftool cgroup detach "$netcg" egress pinned "$pin" || return 1
	return $rc
}
no_entry() { bpftool map delete pinned "$maps/wd_rate" key hex $key 2>/dev/null || :; }
# shellcheck disable=SC2086 # hex bytes
with_entry() { bpftool map update pinned "$maps/wd_rate" key hex $key value hex $rate_val; }

transfer_cg() { transfer 1 100 "" in_cg; }
bare() { no_entry; transfer_cg; }
prog() { no_entry; attached transfer_cg; }
prog_rate() { with_entry && attached transfer_cg; }
c_bare() { in_cg "$wr" connect "$cport" "$connects"; }
# net_policy FILE N: N net.allow rules, the listener's last (the others 10.N.0.1:PORTS)
net_policy() {
	local rules= i
	for i in $(seq 1 $(($2 - 1))); do rules="$rules\"tcp:10.$((i % 250)).$((i / 250)).1:$((1000 + i))\","; done
	printf '{"schema":"warden.policy/1","extends":"cli","fs":{"read":["%s"],"exec":["%s"]},"net":{"default":"deny","allow":[%s"tcp:127.0.0.1:%s"]}}\n' \
		"$BENCH_BIN" "$BENCH_BIN" "$rules" "$cport" >"$1"
}
net_policy "$BENCH_TMP/net1.json" 1
net_policy "$BENCH_TMP/net100.json" 100
c_outside() { "$wr" connect "$cport" "$connects"; }
c_rules1() { sandboxed "$BENCH_TMP/net1.json" "$wr" connect "$cport" "$connects"; }
c_rules100() { sandboxed "$BENCH_TMP/net100.json" "$wr" connect "$cport" "$connects"; }
c_prog() { no_entry; attached c_bare; }
outside() { transfer 1 100; }
inside() { transfer 1 100 "$BENCH_TMP/cli.json"; }

note="loopback TCP, 1 s bulk transfer per round, receiver's bytes/s after its first 100 ms"
bench_compare net/throughput bare rate bytes_per_s \
	"$note, egress program attached (no rate entry) against none" prog bare
bench_compare net/throughput-rate bare rate bytes_per_s \
	"$note, egress program with a 100GiB/s rate entry against none" prog_rate bare
bench_compare net/connect bare rate per_s \
	"$connects connect()+close() to a loopback listener per round, program attached against none" \
	c_prog c_bare
bench_compare net/connect-rules-1 outside rate per_s \
	"$connects connect()+close() to a loopback listener per round, from a sandbox allowing it alone against outside" \
	c_rules1 c_outside
bench_compare net/connect-rules-100 rules-1 rate per_s \
	"$connects connect()+close() to a loopback listener per round, a sandbox with 100 net.allow rules against one with 1" \
	c_rules100 c_rules1
bench_compare net/throughput-sandbox outside rate bytes_per_s "$note, warden --policy cli" \
	inside outside
# the rate's accuracy: 5 s at 2 MiB/s, a few rounds (each drains its send buffer at the rate)
n=3
[ "$BENCH_QUICK" != 1 ] || n=1
for _ in $(seq 1 "$n"); do
	r=$(transfer 5 1000 "$BENCH_TMP/2m.json") || bench_fail "a rate round failed"
	awk -v r="$r" 'BEGIN { printf "%.4f\n", r / 2097152 }'
done | bench_value_row net/egress-accuracy ratio \
	"measured/configured" "egress_rate 2MiB/s, 5 s loopback TCP transfer, receiver's rate from 1 s after its first byte"
