# SPDX-License-Identifier: GPL-2.0
# Network rules in the kernel (docs/network.md): test hosts in network namespaces of the test's
# own behind veth pairs, real servers there (tests/helpers/wd-net), and a sandbox on the host's
# network that may reach exactly what its policy lists. Each refusal fails with EPERM and leaves
# one net record. Cleans up (namespaces, links, servers) on every path.
WHERE=any

# The test network (lib.sh, testnet_up): h1 (10.199.1.2, fd99:1::2) and h2 (10.199.2.2), each
# behind a veth pair whose host end (10.199.1.1, 10.199.2.1) is one of the host's own addresses.
net_up() {
	testnet_up wdn
}

# serve NS|- PROTO ADDR PORT: a server (in namespace NS, or on the host for -), ready on return.
serve() {
	local f=$T/serve.$RANDOM pid
	: > "$f"
	if [ "$1" = - ]; then
		"$BIN/wd-net" serve "$2" "$3" "$4" > "$f" 2>&1 &
	else
		ip netns exec "$1" "$BIN/wd-net" serve "$2" "$3" "$4" > "$f" 2>&1 &
	fi
	pid=$!
	PIDS="$PIDS $pid"
	"$BIN/wd-try" wait-line "$f" ready "$pid" > /dev/null || fail "server $*: $(cat "$f")"
}

# net_policy FILE NET_JSON: the suite's file rules and this net section.
net_policy() {
	policy "$1" "" "" ""
	sed -i "s|}\$|,\"net\":$2}|" "$1"
}

# in_sandbox POLICY WD-NET-ARGS...: run wd-net once in a sandbox; its answer on stdout.
in_sandbox() {
	local p=$1
	shift
	rm -f "$T/audit"
	wrun --policy "$p" --audit "$T/audit" -- "$BIN/wd-net" "$@" 2> "$T/err"
	true
}

# expect_net WHAT ANSWER WANT [TARGET]: the answer; for a refusal, exactly one net record of
# TARGET in this run's audit.
expect_net() {
	local n
	expect_eq "$1" "$2" "$3"
	[ -n "${4:-}" ] || return 0
	n=$(grep '"type":"net"' "$T/audit" | grep -cF "\"target\":\"$4\"" || true)
	expect_eq "$1: net records of $4" "$n" 1
	expect_line "$T/audit" '"type":"net"' "\"target\":\"$4\"" '"verdict":"deny"' \
		'"errno":"EPERM"' '"source":"cgroup"'
}

POLICY_NET='{"default":"deny","allow":["tcp:10.199.0.0/16:80","udp:10.199.1.2:5353","tcp:[fd99:1::2]:80"],"deny":["tcp:10.199.2.0/24:*"],"listen":["tcp:9100-9109"]}'

test_allowed_host_and_port() {
	net_up
	serve "$NS1" tcp 10.199.1.2 80
	net_policy "$T/p.json" "$POLICY_NET"
	expect_net "allowed host:port" "$(in_sandbox "$T/p.json" connect tcp 10.199.1.2 80)" ok
	# the host reaches the port the sandbox may not
	serve "$NS1" tcp 10.199.1.2 81
	expect_eq "from the host" "$("$BIN/wd-net" connect tcp 10.199.1.2 81)" ok
	expect_net "another port" "$(in_sandbox "$T/p.json" connect tcp 10.199.1.2 81)" EPERM \
		10.199.1.2:81
	expect_line "$T/audit" '"target":"10.199.1.2:81"' '"rule":"default"' '"protocol":"tcp"' \
		'"family":"inet"' '"op":"connect"'
}

test_deny_beats_allow() {
	net_up
	serve "$NS2" tcp 10.199.2.2 80
	net_policy "$T/p.json" "$POLICY_NET"
	expect_net "denied host inside an allowed block" \
		"$(in_sandbox "$T/p.json" connect tcp 10.199.2.2 80)" EPERM 10.199.2.2:80
	expect_line "$T/audit" '"target":"10.199.2.2:80"' '"rule":"/net/deny/0"'
}

test_ipv6_and_mapped() {
	net_up
	serve "$NS1" tcp :: 80
	net_policy "$T/p.json" "$POLICY_NET"
	expect_net "IPv6 allowed" "$(in_sandbox "$T/p.json" connect tcp fd99:1::2 80)" ok
	expect_net "IPv6 another port" "$(in_sandbox "$T/p.json" connect tcp fd99:1::2 81)" EPERM \
		"[fd99:1::2]:81"
	expect_net "v4-mapped, decided as IPv4" \
		"$(in_sandbox "$T/p.json" connect tcp ::ffff:10.199.1.2 80)" ok
	expect_net "v4-mapped denied as its IPv4 is" \
		"$(in_sandbox "$T/p.json" connect tcp ::ffff:10.199.2.2 80)" EPERM \
		"[::ffff:10.199.2.2]:80"
	expect_line "$T/audit" '"target":"[::ffff:10.199.2.2]:80"' '"rule":"/net/deny/0"'
}

test_unconnected_udp() {
	net_up
	serve "$NS1" udp 10.199.1.2 5353
	net_policy "$T/p.json" "$POLICY_NET"
	expect_net "allowed datagram" "$(in_sandbox "$T/p.json" sendto 10.199.1.2 5353)" ok
	expect_net "denied datagram" "$(in_sandbox "$T/p.json" sendto 10.199.1.2 5354)" EPERM \
		10.199.1.2:5354
	expect_line "$T/audit" '"target":"10.199.1.2:5354"' '"op":"sendmsg"' '"protocol":"udp"'
	expect_net "udp connect elsewhere" "$(in_sandbox "$T/p.json" connect udp 10.199.2.2 53)" \
		EPERM 10.199.2.2:53
}

test_host_loopback_and_own_address() {
	net_up
	serve - tcp 127.0.0.1 9180
	serve - tcp 10.199.1.1 9181
	expect_eq "the host reaches its loopback" "$("$BIN/wd-net" connect tcp 127.0.0.1 9180)" ok
	# "*" opens every address but the host's own
	net_policy "$T/p.json" '{"default":"deny","allow":["tcp:*:*"]}'
	serve "$NS1" tcp 10.199.1.2 80
	expect_net "any address" "$(in_sandbox "$T/p.json" connect tcp 10.199.1.2 80)" ok
	expect_net "host loopback under *" \
		"$(in_sandbox "$T/p.json" connect tcp 127.0.0.1 9180)" EPERM 127.0.0.1:9180
	expect_line "$T/audit" '"target":"127.0.0.1:9180"' '"rule":"host-address"'
	expect_net "another loopback address" \
		"$(in_sandbox "$T/p.json" connect tcp 127.0.0.2 9180)" EPERM 127.0.0.2:9180
	expect_net "0.0.0.0 (the host itself)" \
		"$(in_sandbox "$T/p.json" connect tcp 0.0.0.0 9180)" EPERM 0.0.0.0:9180
	expect_net "::1" "$(in_sandbox "$T/p.json" connect tcp ::1 9180)" EPERM "[::1]:9180"
	expect_net "mapped loopback" \
		"$(in_sandbox "$T/p.json" connect tcp ::ffff:127.0.0.1 9180)" EPERM \
		"[::ffff:127.0.0.1]:9180"
	expect_net "the host's own LAN address" \
		"$(in_sandbox "$T/p.json" connect tcp 10.199.1.1 9181)" EPERM 10.199.1.1:9181
	# the same, under the block that holds it and default allow
	net_policy "$T/q.json" '{"default":"allow","allow":["tcp:10.199.1.0/24:*"]}'
	expect_net "own address under its block, default allow" \
		"$(in_sandbox "$T/q.json" connect tcp 10.199.1.1 9181)" EPERM 10.199.1.1:9181
	# a rule naming it opens it
	net_policy "$T/r.json" '{"default":"deny","allow":["tcp:127.0.0.1:9180"]}'
	expect_net "listed loopback service" \
		"$(in_sandbox "$T/r.json" connect tcp 127.0.0.1 9180)" ok
}

# io_uring's connect (IORING_OP_CONNECT) meets the same connect hooks as connect(2): on bpf-lsm,
# where a sandbox may make a ring, the allowed address is reached through it and the other one
# refused with its one net record; on landlock the ring itself is refused (self-protection), so
# no connect gets through either way.
test_io_uring_connect() {
	net_up
	serve "$NS1" tcp 10.199.1.2 80
	serve "$NS1" tcp 10.199.1.2 81
	net_policy "$T/p.json" "$POLICY_NET"
	expect_eq "io_uring connect from the host" "$("$BIN/wd-net" uring-connect tcp 10.199.1.2 81)" ok
	if [ "$EXPECT_BACKEND" = bpf-lsm ]; then
		expect_net "io_uring connect, allowed" \
			"$(in_sandbox "$T/p.json" uring-connect tcp 10.199.1.2 80)" ok
		expect_net "io_uring connect, another port" \
			"$(in_sandbox "$T/p.json" uring-connect tcp 10.199.1.2 81)" EPERM 10.199.1.2:81
		expect_net "io_uring udp connect elsewhere" \
			"$(in_sandbox "$T/p.json" uring-connect udp 10.199.2.2 53)" EPERM 10.199.2.2:53
	else
		expect_eq "io_uring in a landlock sandbox" \
			"$(in_sandbox "$T/p.json" uring-connect tcp 10.199.1.2 81)" EPERM
		expect_line "$T/audit" '"type":"syscall"' '"target":"io_uring_setup"' \
			'"rule":"self-protection"'
	fi
}

# The postgres-client template (net.allow: the local server's port, on 127.0.0.1 and ::1) runs,
# reaches that port of the host's loopback and no other.
test_postgres_client_template_reaches_the_local_server_only() {
	local f=$T/pg.out pid
	mkdir -p "$T/work" "$T/tmp"
	# a listener on 5432, unless a server is there already (then it answers the connect)
	"$BIN/wd-net" serve tcp 127.0.0.1 5432 > "$f" 2>&1 &
	pid=$!
	PIDS="${PIDS:-} $pid"
	trap 'kill $PIDS 2> /dev/null || true' EXIT
	"$BIN/wd-try" wait-line "$f" "" "$pid" > /dev/null || true
	grep -q -e ready -e EADDRINUSE "$f" || fail "no listener on 5432: $(cat "$f")"
	serve - tcp 127.0.0.1 5439
	out=$(cd "$T/work" && TMPDIR="$T/tmp" wrun --policy postgres-client --allow-exec "$BIN" \
		--allow-read "$BIN" --audit "$T/audit" -- /bin/sh -c "
		echo pg \$($BIN/wd-net connect tcp 127.0.0.1 5432)
		echo other \$($BIN/wd-net connect tcp 127.0.0.1 5439)") ||
		fail "postgres-client did not run: $out"
	expect_eq "the local server's port" "$(echo "$out" | sed -n 's/^pg //p')" ok
	expect_eq "another loopback port" "$(echo "$out" | sed -n 's/^other //p')" EPERM
	expect_line "$T/audit" '"type":"net"' '"target":"127.0.0.1:5439"' '"verdict":"deny"'
}

test_raw_packet_ping_sockets() {
	net_up
	net_policy "$T/p.json" "$POLICY_NET"
	expect_net "raw socket" "$(in_sandbox "$T/p.json" socket raw)" EPERM
	expect_net "packet socket" "$(in_sandbox "$T/p.json" socket packet)" EPERM
	# ping sockets need the group in ping_group_range: open it to root's group for this test
	# (global: the EXIT trap runs after this function has returned)
	PING_RANGE=$(cat /proc/sys/net/ipv4/ping_group_range) || skip "no ping_group_range"
	trap 'testnet_down; echo "$PING_RANGE" > /proc/sys/net/ipv4/ping_group_range' EXIT
	echo "0 0" > /proc/sys/net/ipv4/ping_group_range || skip "cannot open ping_group_range"
	expect_eq "ping socket outside a sandbox" "$("$BIN/wd-net" socket ping)" ok
	expect_net "ping socket without net.ping" "$(in_sandbox "$T/p.json" socket ping)" EPERM
	expect_line "$T/audit" '"type":"net"' '"op":"socket"' '"protocol":"icmp"' \
		'"rule":"socket-kind"'
	expect_net "ping6 socket without net.ping" "$(in_sandbox "$T/p.json" socket ping6)" EPERM
	net_policy "$T/q.json" '{"default":"deny","ping":true}'
	expect_net "ping socket with net.ping" "$(in_sandbox "$T/q.json" socket ping)" ok
}

test_listen() {
	net_up
	net_policy "$T/p.json" "$POLICY_NET"
	expect_net "listen inside net.listen" "$(in_sandbox "$T/p.json" bind tcp 0.0.0.0 9105)" ok
	expect_net "listen outside net.listen" "$(in_sandbox "$T/p.json" bind tcp 0.0.0.0 9110)" \
		EPERM 0.0.0.0:9110
	expect_line "$T/audit" '"target":"0.0.0.0:9110"' '"op":"bind"'
	expect_net "udp is not tcp" "$(in_sandbox "$T/p.json" bind udp 0.0.0.0 9105)" EPERM \
		0.0.0.0:9105
	expect_net "IPv6 listen inside" "$(in_sandbox "$T/p.json" bind tcp :: 9101)" ok
	expect_net "an ephemeral port" "$(in_sandbox "$T/p.json" bind tcp 0.0.0.0 0)" ok
	expect_net "an ephemeral udp port" "$(in_sandbox "$T/p.json" bind udp 0.0.0.0 0)" ok
}

# net.listen entries that name an address: the address up to its prefix decides, per family, and
# an IPv4-mapped IPv6 bind is decided as the IPv4 address it maps (bpf/wd_net.bpf.c, listen_takes).
test_listen_by_address() {
	net_policy "$T/p.json" \
		'{"default":"deny","listen":["tcp:127.0.0.1:9200","tcp:[::1]:9201","tcp:127.0.0.0/8:9202"]}'
	expect_net "the listed address" "$(in_sandbox "$T/p.json" bind tcp 127.0.0.1 9200)" ok
	expect_net "any address is not the listed one" \
		"$(in_sandbox "$T/p.json" bind tcp 0.0.0.0 9200)" EPERM 0.0.0.0:9200
	expect_net "another port of the listed address" \
		"$(in_sandbox "$T/p.json" bind tcp 127.0.0.1 9203)" EPERM 127.0.0.1:9203
	expect_net "inside the listed prefix" "$(in_sandbox "$T/p.json" bind tcp 127.0.0.2 9202)" ok
	expect_net "the listed IPv6 address" "$(in_sandbox "$T/p.json" bind tcp ::1 9201)" ok
	expect_net "an IPv4 address on the IPv6 entry's port" \
		"$(in_sandbox "$T/p.json" bind tcp 127.0.0.1 9201)" EPERM 127.0.0.1:9201
	expect_net "IPv6 any on the IPv6 entry's port" "$(in_sandbox "$T/p.json" bind tcp :: 9201)" \
		EPERM
	expect_net "the listed address, mapped" \
		"$(in_sandbox "$T/p.json" bind tcp ::ffff:127.0.0.1 9200)" ok
	expect_net "outside the prefix, mapped" \
		"$(in_sandbox "$T/p.json" bind tcp ::ffff:127.0.0.1 9201)" EPERM
}

test_no_net_section_keeps_the_network() {
	net_up
	serve - tcp 127.0.0.1 9182
	policy "$T/p.json" "" "" ""
	expect_net "a policy without net" "$(in_sandbox "$T/p.json" connect tcp 127.0.0.1 9182)" ok
}
