# SPDX-License-Identifier: GPL-2.0
# Network modes (docs/network.md, "veth"): namespaces.net "veth" gives the sandbox a network
# namespace of its own with a veth pair to the host (a /30 of 10.243.0.0/16), its net rules still
# applied; the pair goes when the sandbox ends, also when its warden is killed. And the DNS
# forwarder answers only its own sandbox, on loopback and over the pair. Test hosts live in
# network namespaces of the test's own; everything is removed on every path.
WHERE=any
BACKENDS="bpf-lsm landlock"
# the forwarder's own checks of who asks: the host suite's
HOST_ONLY="test_the_loopback_forwarder_answers_only_its_sandbox test_the_forwarder_over_the_pair_answers_only_its_sandbox"

# The test network (lib.sh, testnet_up): h1 (10.199.1.2: DNS server, TCP echo) behind a pair
# whose host end, 10.199.1.1, is one of the host's own addresses (a host-side server listens
# there), its default route back via the host.
net_up() {
	testnet_up wdm
	ip -n "$NS1" route add default via 10.199.1.1 || fail "test host's route"
	echo "nameserver 10.199.1.2" > "$T/resolv.conf"
	export WARDEN_DNS_RESOLV=$T/resolv.conf
}

dns_up() {
	net_up
	testnet_dns "$NS1" 10.199.1.2 60 api.test=10.199.1.2 evil.test=10.199.1.2 own.test=10.199.1.3
	testnet_serve "$NS1" "$BIN/wd-net" serve tcp 10.199.1.2 80
}

# netmode_policy FILE MODE NET_JSON: the suite's file rules, namespaces.net MODE, this net.
netmode_policy() {
	policy "$1" "/bin /usr/bin /proc $T" "" "/bin /usr/bin"
	sed -i "s|}\$|,\"namespaces\":{\"net\":\"$2\"},\"net\":$3}|" "$1"
}

# in_bg NAME POLICY SCRIPT: sh -c SCRIPT in a sandbox in the background; $bg its warden's pid,
# its audit in $T/NAME.audit, its output in $T/NAME.out and .err.
in_bg() {
	local name=$1 p=$2
	: > "$T/$name.out"
	: > "$T/$name.audit"
	wrun --policy "$p" --audit "$T/$name.audit" -- /bin/sh -c "$3" > "$T/$name.out" \
		2> "$T/$name.err" &
	bg=$!
	PIDS="$PIDS $bg"
}

# wait_out NAME TEXT PID: block until $T/NAME.out has a line holding TEXT (PID alive).
wait_out() {
	"$BIN/wd-try" wait-line "$T/$1.out" "$2" "$3" > /dev/null ||
		fail "$1: no \"$2\": $(cat "$T/$1.out" "$T/$1.err")"
}

# addr_of NAME: the sandbox end's address (eth0 A.B.C.D/30) of a `wd-try addrs` output.
addr_of() {
	sed -n 's|^eth0 \([0-9.]*\)/30$|\1|p' "$T/$1.out"
}

gw_of() {
	sed -n 's|^via ||p' "$T/$1.out"
}

# host_if_of ADDR: the host's interface carrying ADDR.
host_if_of() {
	ip -4 -o addr show | awk -v a="$1" '{ split($4, p, "/"); if (p[1] == a) { sub("@.*", "", $2); print $2 } }'
}

test_a_veth_sandbox_has_lo_and_its_end_with_a_pool_address_and_the_host_end_goes_after() {
	local a gw hif v6
	net_up
	netmode_policy "$T/p.json" veth '{"default":"deny"}'
	mkfifo "$T/go"
	in_bg a "$T/p.json" "$BIN/wd-try ifaces; $BIN/wd-try addrs; echo ready; read x < $T/go"
	wait_out a ready "$bg"
	expect_eq "interfaces" "$(grep ' up$\| down$' "$T/a.out" | tr '\n' ' ')" "lo up eth0 up "
	expect_line "$T/a.out" "lo 127.0.0.1/8"
	a=$(addr_of a)
	gw=$(gw_of a)
	case $a in 10.243.*) ;; *) fail "sandbox end's address: '$a' ($(cat "$T/a.out"))" ;; esac
	# the /30: host end .1 mod 4, sandbox end the next one, the default route via the host end
	expect_eq "default route" "$gw" "${a%.*}.$((${a##*.} - 1))"
	expect_eq "sandbox end in its /30" "$(((${a##*.} & 3)))" 2
	hif=$(host_if_of "$gw")
	case $hif in wd[0-9]*) ;; *) fail "host end of $gw: '$hif' ($(ip -4 -o addr show))" ;; esac
	ip link show dev "$hif" > /dev/null 2>&1 || fail "no link $hif on the host"
	# IPv6 (the host has it): the slot's /64 of fd77:6172:6465::/48, the sandbox end ::2, its
	# default route via the host end's ::1; neither end has any other IPv6 address (no fe80::,
	# which no rule could name)
	v6=$(printf 'fd77:6172:6465:%x' "${hif#wd}")
	expect_eq "the sandbox end's IPv6 addresses" \
		"$(grep '^eth0 .*:' "$T/a.out" | tr '\n' ' ')" "eth0 $v6::2/64 "
	expect_line "$T/a.out" "via6 $v6::1"
	expect_eq "the host end's IPv6 addresses" \
		"$(ip -6 -o addr show dev "$hif" | awk '{ print $4 }' | tr '\n' ' ')" "$v6::1/64 "
	echo go > "$T/go"
	wait "$bg" || fail "run failed: $(cat "$T/a.err")"
	! ip link show dev "$hif" > /dev/null 2>&1 || fail "link $hif stayed after the run"
	[ -z "$(host_if_of "$gw")" ] || fail "the host end's address $gw stayed"
}

test_a_veth_sandbox_reaches_an_allowed_host_server_and_not_a_denied_one() {
	net_up
	testnet_serve - "$BIN/wd-net" serve tcp 10.199.1.1 80
	testnet_serve - "$BIN/wd-net" serve tcp 10.199.1.1 81
	netmode_policy "$T/p.json" veth '{"default":"allow","allow":["tcp:10.199.1.1:80"]}'
	in_bg a "$T/p.json" "$BIN/wd-net connect tcp 10.199.1.1 80; $BIN/wd-net connect tcp 10.199.1.1 81
		gw=\$($BIN/wd-try addrs | sed -n 's/^via //p'); echo gw \$gw
		$BIN/wd-net connect tcp \$gw 81"
	wait "$bg" || true
	expect_eq "allowed host server, refused one, the host end (host addresses, default allow)" \
		"$(grep -v '^gw' "$T/a.out" | tr '\n' ' ')" "ok EPERM EPERM "
	expect_line "$T/a.audit" '"type":"net"' '"target":"10.199.1.1:81"' '"rule":"host-address"' \
		'"errno":"EPERM"'
	# the refused one is there: the host reaches it
	expect_eq "from the host" "$("$BIN/wd-net" connect tcp 10.199.1.1 81)" ok
}

# The same over IPv6: the host server the policy names is reached through the pair, another
# port of it and the host end's own address are refused (host addresses).
test_a_veth_sandbox_reaches_an_allowed_host_server_over_ipv6_and_not_a_denied_one() {
	net_up
	testnet_serve - "$BIN/wd-net" serve tcp :: 80
	testnet_serve - "$BIN/wd-net" serve tcp :: 81
	netmode_policy "$T/p.json" veth '{"default":"allow","allow":["tcp:[fd99:1::1]:80"]}'
	in_bg a "$T/p.json" "$BIN/wd-net connect tcp fd99:1::1 80; $BIN/wd-net connect tcp fd99:1::1 81
		gw=\$($BIN/wd-try addrs | sed -n 's/^via6 //p'); echo gw \$gw
		$BIN/wd-net connect tcp \$gw 80"
	wait "$bg" || true
	expect_eq "allowed host server, refused one, the host end (host addresses, default allow)" \
		"$(grep -v '^gw' "$T/a.out" | tr '\n' ' ')" "ok EPERM EPERM "
	expect_line "$T/a.audit" '"type":"net"' '"target":"[fd99:1::1]:81"' '"rule":"host-address"' \
		'"family":"inet6"'
	expect_line "$T/a.out" "gw fd77:6172:6465:"
	expect_eq "from the host" "$("$BIN/wd-net" connect tcp fd99:1::1 81)" ok
}

test_two_concurrent_veth_sandboxes_get_different_addresses() {
	local a b
	net_up
	netmode_policy "$T/p.json" veth '{"default":"deny"}'
	mkfifo "$T/go"
	in_bg a "$T/p.json" "$BIN/wd-try addrs; echo ready; read x < $T/go"
	wait_out a ready "$bg"
	first=$bg
	in_bg b "$T/p.json" "$BIN/wd-try addrs; echo ready"
	wait "$bg" || fail "second run: $(cat "$T/b.err")"
	a=$(addr_of a)
	b=$(addr_of b)
	[ -n "$a" ] && [ -n "$b" ] || fail "addresses: '$a' '$b'"
	[ "${a%.*}.$((${a##*.} & ~3))" != "${b%.*}.$((${b##*.} & ~3))" ] ||
		fail "both sandboxes got the /30 of $a ($b)"
	echo go > "$T/go"
	wait "$first" || fail "first run: $(cat "$T/a.err")"
}

# keeper_of WARDEN_PID: the pid of that run's keeper (a child named warden-keeper).
keeper_of() {
	for c in $(cat "/proc/$1/task/$1/children"); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = warden-keeper ] && { echo "$c"; return; }
	done
	fail "run $1 has no keeper"
}

test_a_killed_surviving_veth_run_leaves_no_link_once_the_keeper_ends_it() {
	local gw hif keeper mon
	net_up
	netmode_policy "$T/p.json" veth '{"default":"deny"}'
	: > "$T/a.out"
	"$WARDEN" run --backend "$BACKEND" --survive 1 --policy "$T/p.json" -- /bin/sh -c \
		"$BIN/wd-try addrs; echo ready; exec sleep 1000" > "$T/a.out" 2> "$T/a.err" &
	run=$!
	PIDS="$PIDS $run"
	wait_out a ready "$run"
	gw=$(gw_of a)
	hif=$(host_if_of "$gw")
	[ -n "$hif" ] || fail "no host end for $gw"
	keeper=$(keeper_of "$run") || exit 1
	# the link's deletion is an event: watched from before the kill
	: > "$T/mon"
	ip monitor link > "$T/mon" 2>&1 &
	mon=$!
	PIDS="$PIDS $mon"
	ip link show dev "$hif" > /dev/null 2>&1 || fail "no link $hif before the kill"
	kill -KILL "$run"
	wait "$run" 2> /dev/null || true
	timeout 60 "$BIN/wd-try" wait-exit "$keeper" > /dev/null ||
		fail "the keeper ($keeper) did not end the sandbox within 60 s"
	expect_line "$T/a.err" "keeper: warden ended while sandbox" "killing the sandbox"
	# the namespace goes once its last process has (the kernel frees it in the background)
	if ip link show dev "$hif" > /dev/null 2>&1; then
		timeout 60 sh -c "tail -n +1 -f '$T/mon' | grep -q -m1 'Deleted.* $hif@'" ||
			fail "link $hif stayed 60 s after the sandbox ended: $(cat "$T/mon")"
	fi
	! ip link show dev "$hif" > /dev/null 2>&1 || fail "link $hif stayed"
	[ -z "$(ip -o link show | grep -F " $hif@")" ] || fail "link $hif listed"
}

test_names_over_the_pair() {
	local r
	dns_up
	netmode_policy "$T/p.json" veth '{"default":"deny","allow":["tcp:api.test:80"]}'
	in_bg a "$T/p.json" "$BIN/wd-dns query udp 10.199.1.2 api.test; $BIN/wd-dns query tcp 10.199.1.2 api.test
		$BIN/wd-dns query udpu 10.199.1.2 api.test; $BIN/wd-dns query udp 10.199.1.2 evil.test
		$BIN/wd-dns peer 9.9.9.9"
	wait "$bg" || true
	expect_eq "answers" "$(head -4 "$T/a.out" | tr '\n' ' ')" \
		"10.199.1.2 10.199.1.2 10.199.1.2 REFUSED "
	r=$(sed -n 5p "$T/a.out")
	case $r in 10.243.*) ;; *) fail "the redirect target is not the pair's host end: '$r'" ;; esac
	expect_line "$T/a.audit" '"type":"dns"' '"name":"api.test"' '"verdict":"allow"'
	expect_line "$T/a.audit" '"type":"dns"' '"name":"evil.test"' '"verdict":"deny"'
}

test_an_opened_name_is_reached_through_the_host_routing_for_the_pair() {
	local hif
	dns_up
	netmode_policy "$T/p.json" veth '{"default":"deny","allow":["tcp:api.test:80"]}'
	mkfifo "$T/go"
	# without a query first the address is closed; after it, the rules let it through
	in_bg a "$T/p.json" "$BIN/wd-net connect tcp 10.199.1.2 80; $BIN/wd-try addrs
		$BIN/wd-dns query udp 10.199.1.2 api.test; echo asked; read x < $T/go
		$BIN/wd-net connect tcp 10.199.1.2 80"
	wait_out a asked "$bg"
	first=$bg
	expect_eq "before the query" "$(sed -n 1p "$T/a.out")" EPERM
	# routing only: the host forwards for the pair once the operator says so (here: only
	# between the sandbox's host end and the test host's, no global switch)
	hif=$(host_if_of "$(gw_of a)")
	[ -n "$hif" ] || fail "no host end: $(cat "$T/a.out")"
	echo 1 > "/proc/sys/net/ipv4/conf/$hif/forwarding" &&
		echo 1 > "/proc/sys/net/ipv4/conf/$V1/forwarding" || fail "cannot forward for $hif"
	echo go > "$T/go"
	wait "$first" || true
	expect_eq "after the query, through the host" "$(tail -1 "$T/a.out")" ok
}

# forwarder_attack MODE: sandbox A (names, namespaces.net MODE) learns its forwarder's address
# and is answered itself (own.test); a host process and a second sandbox B allowed to reach that
# address ask it for A's other name; neither gets an answer, and that name's address stays
# closed in A.
forwarder_attack() {
	local fwd host out
	dns_up
	netmode_policy "$T/a.json" "$1" '{"default":"deny","allow":["tcp:api.test:80","tcp:own.test:80"]}'
	mkfifo "$T/go"
	in_bg a "$T/a.json" "$BIN/wd-dns peer 10.199.1.2; $BIN/wd-dns query udp 10.199.1.2 own.test
		echo ready; read x < $T/go; $BIN/wd-net connect tcp 10.199.1.2 80"
	wait_out a ready "$bg"
	first=$bg
	expect_eq "A's own query" "$(sed -n 2p "$T/a.out")" 10.199.1.3
	fwd=$(head -1 "$T/a.out")
	host=${fwd%:*}
	case $fwd in *:[0-9]*) ;; *) fail "no forwarder address: '$fwd'" ;; esac
	# straight to it from the host, both protocols
	out=$("$BIN/wd-dns" query udp "$host#${fwd##*:}" api.test) || true
	case $out in *10.199.1.2*) fail "the forwarder answered a host process over UDP: $out" ;; esac
	out=$("$BIN/wd-dns" query tcp "$host#${fwd##*:}" api.test) || true
	case $out in *10.199.1.2*) fail "the forwarder answered a host process over TCP: $out" ;; esac
	# from a second sandbox whose rules name the forwarder's address and port
	netmode_policy "$T/b.json" host \
		"{\"default\":\"deny\",\"allow\":[\"udp:$host:${fwd##*:}\",\"tcp:$host:${fwd##*:}\"]}"
	in_bg b "$T/b.json" "$BIN/wd-dns query udp $host#${fwd##*:} api.test
		$BIN/wd-dns query tcp $host#${fwd##*:} api.test"
	wait "$bg" || true
	case $(cat "$T/b.out") in *10.199.1.2*) fail "the forwarder answered sandbox B: $(cat "$T/b.out")" ;; esac
	[ -s "$T/b.out" ] || fail "sandbox B printed nothing: $(cat "$T/b.err")"
	# nothing was opened in A: its connect to the name's address is still refused
	echo go > "$T/go"
	wait "$first" || true
	expect_eq "A's connect after the attacks" "$(sed -n 4p "$T/a.out")" EPERM
	! grep '"type":"dns"' "$T/a.audit" | grep -q '"name":"api.test"' ||
		fail "A's forwarder took a query for api.test: $(grep dns "$T/a.audit")"
}

test_the_loopback_forwarder_answers_only_its_sandbox() {
	forwarder_attack host
}

test_the_forwarder_over_the_pair_answers_only_its_sandbox() {
	forwarder_attack veth
}
