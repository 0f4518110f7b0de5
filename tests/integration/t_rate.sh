# SPDX-License-Identifier: GPL-2.0
# net.egress_rate: a sandbox's TCP egress over loopback held to its rate by the cgroup_skb
# program (bpf/wd_rate.bpf.c), whatever the sandbox does to get around it; the run report and
# the audit stream say what passed and what was dropped.
WHERE=any
BACKENDS="bpf-lsm landlock"

RATE=2MiB/s
RATE_BYTES=2097152
SECONDS_SENT=5

# rate_policy FILE RATE PORT: the test binaries' policy, plus the rate and loopback PORT allowed.
rate_policy() {
	policy "$1.base" "" "" ""
	sed "s|}}\$|},\"net\":{\"egress_rate\":\"$2\"}}|" "$1.base" > "$1"
	# with address rules enforced, loopback is denied unless listed: list the server's port
	sed "s|}}\$|,\"allow\":[\"tcp:127.0.0.1:$3\"]}}|" "$1" > "$1.allow"
}

# start_server PORTFILE CONNS: the receiver, outside the sandbox; its pid in $server.
start_server() {
	"$BIN/wd-rate" serve "$1" 1000 "$2" > "$T/serve.out" &
	server=$!
	trap 'kill "$server" 2>/dev/null || :' EXIT
	# the port file appears whole (renamed into place) once the socket listens
	for _ in $(seq 200); do
		[ -s "$1" ] && return 0
		kill -0 "$server" 2>/dev/null || fail "the receiver did not start"
		read -rt 0.05 <> <(:) || :
	done
	fail "the receiver did not listen"
}

# send_sandboxed POLICY CONNS: the sender in a sandbox, for $SECONDS_SENT s on CONNS connections.
# A warden without address rules refuses net.allow: the rate alone is what is tested then.
send_sandboxed() {
	local p=$1.allow rc=0
	wrun --policy "$p" --audit "$T.o/audit" --report "$T.o/r.json" -- "$BIN/wd-rate" send \
		"$(cat "$T/port")" "$SECONDS_SENT" "$2" > "$T/send.out" 2> "$T/err" || rc=$?
	if [ $rc = 2 ] && grep -q '/net/allow/0: net (egress rules) is not enforced' "$T/err"; then
		rc=0
		wrun --policy "$1" --audit "$T.o/audit" --report "$T.o/r.json" -- "$BIN/wd-rate" \
			send "$(cat "$T/port")" "$SECONDS_SENT" "$2" > "$T/send.out" 2> "$T/err" ||
			rc=$?
	fi
	[ $rc = 0 ] || { cat "$T/err" >&2; fail "the sandboxed sender exited $rc"; }
}

# within_10pct GOT WANT: |GOT - WANT| <= WANT / 10.
within_10pct() {
	awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d * 10 <= w) }'
}

# check_rate: the receiver's measured rate is the configured one within 10%, and the report
# and audit say what the program let through and dropped.
check_rate() {
	wait "$server" || fail "the receiver failed"
	local got sent
	got=$(sed -n 's/.*"rate":\([0-9]*\).*/\1/p' "$T/serve.out")
	sent=$(cat "$T/send.out")
	echo "    receiver: $(cat "$T/serve.out"), sender wrote $sent" >&2
	[ -n "$got" ] && [ "$got" -gt 0 ] || fail "the receiver measured nothing"
	expect_eq "bytes received" "$(sed -n 's/.*"bytes":\([0-9]*\).*/\1/p' "$T/serve.out")" "$sent"
	within_10pct "$got" "$RATE_BYTES" ||
		fail "egress at $got bytes/s, not within 10% of $RATE_BYTES"
	expect_eq status "$(report_field "$T.o/r.json" status)" completed
	expect_eq egress_rate "$(report_field "$T.o/r.json" egress_rate)" "$RATE_BYTES"
	local passed dropped packets
	passed=$(report_field "$T.o/r.json" egress_bytes)
	dropped=$(report_field "$T.o/r.json" egress_dropped_bytes)
	packets=$(report_field "$T.o/r.json" egress_dropped_packets)
	# headers included, what passed is at least what the sender wrote
	[ "$passed" -ge "$sent" ] || fail "the report says $passed bytes passed of $sent written"
	# a sender that writes as fast as it can meets the limit
	[ "$packets" -gt 0 ] && [ "$dropped" -gt 0 ] ||
		fail "no drops reported ($packets packets, $dropped bytes)"
	expect_eq "limit records" "$(grep -c '"type":"limit"' "$T.o/audit")" 1
	expect_line "$T.o/audit" '"type":"limit"' '"op":"egress_rate"' '"rule":"/net/egress_rate"' \
		"\"rate\":$RATE_BYTES" "\"dropped_packets\":$packets" "\"dropped_bytes\":$dropped"
}

test_egress_rate_held_over_5s() {
	rate_policy "$T/p.json" "$RATE" 0
	start_server "$T/port" 1
	rate_policy "$T/p.json" "$RATE" "$(cat "$T/port")"
	send_sandboxed "$T/p.json" 1
	check_rate
}

# The attack: many connections from many processes of the sandbox, to multiply a per-socket
# limit. The rate is the sandbox's, so together they get the one rate.
test_egress_rate_is_per_sandbox_not_per_socket() {
	rate_policy "$T/p.json" "$RATE" 0
	start_server "$T/port" 8
	rate_policy "$T/p.json" "$RATE" "$(cat "$T/port")"
	send_sandboxed "$T/p.json" 8
	check_rate
}

# No rate: no entry, the program passes at once, and the report has no net object.
test_no_rate_no_limit() {
	policy "$T/p.json" "" "" ""
	start_server "$T/port" 1
	local rc=0
	wrun --policy "$T/p.json" --audit "$T.o/audit" --report "$T.o/r.json" -- "$BIN/wd-rate" \
		send "$(cat "$T/port")" 1 > "$T/send.out" 2> "$T/err" || rc=$?
	[ $rc = 0 ] || { cat "$T/err" >&2; fail "the sandboxed sender exited $rc"; }
	wait "$server" || fail "the receiver failed"
	expect_eq "bytes received" "$(sed -n 's/.*"bytes":\([0-9]*\).*/\1/p' "$T/serve.out")" \
		"$(cat "$T/send.out")"
	! grep -q '"egress_rate"' "$T.o/r.json" || fail "a report without a rate has a net object"
	! grep -q '"type":"limit"' "$T.o/audit" || fail "a limit record without a rate"
}
