# SPDX-License-Identifier: GPL-2.0
# Names in net rules (docs/network.md, "Names"): the sandbox's DNS, whatever server it asks, is
# answered by its supervisor's forwarder, which asks the test's own DNS server (Debian's
# dnsmasq in a test network namespace, lib.sh testnet_dns; tests/helpers/wd-dns asks) and opens
# each address of an allowed answer until its TTL plus the grace lapses. Cleans up (namespaces, links, servers) on every path.
WHERE=any
# the forwarder's and the flags' own logic (the expiry the kernel checks is the same program
# the other tests load): the host suite's
HOST_ONLY="test_closed_after_ttl test_allow_host_flags test_other_server_still_forwarded"

# The test network (lib.sh, testnet_up): h1 (10.199.1.2, fd99:1::2: DNS server and TCP echo)
# and h2 (10.199.2.2).
net_up() {
	testnet_up wdd
	echo "nameserver 10.199.1.2" > "$T/resolv.conf"
	export WARDEN_DNS_RESOLV=$T/resolv.conf
}

# The test names: TTL 2 s.
dns_up() {
	net_up
	testnet_dns "$NS1" 10.199.1.2 2 api.test=10.199.1.2,fd99:1::2 www.wild.test=10.199.1.2 \
		evil.test=10.199.1.2 h2.test=10.199.2.2 alias.test=@h2.test
	testnet_serve "$NS1" "$BIN/wd-net" serve tcp :: 80
	testnet_serve "$NS2" "$BIN/wd-net" serve tcp 10.199.2.2 80
	"$BIN/wd-dns" query udp 10.199.1.2 api.test > "$T/direct" || fail "test DNS server: $(cat "$T/direct")"
	expect_eq "test DNS server, from the host" "$(head -1 "$T/direct")" 10.199.1.2
}

POLICY_DNS='{"default":"deny","allow":["tcp:api.test:80","tcp:*.wild.test:80"]}'

dns_policy() {
	policy "$1" "/bin /usr/bin" "" "/bin /usr/bin"
	sed -i "s|}\$|,\"net\":$2}|" "$1"
}

# in_sandbox POLICY SCRIPT: run sh -c SCRIPT ($BIN in it replaced) in a sandbox, with the
# wrun flags $EXTRA; its output.
in_sandbox() {
	rm -f "$T/audit"
	# shellcheck disable=SC2086 # EXTRA: more wrun flags, split
	wrun --policy "$1" ${EXTRA:-} --audit "$T/audit" -- /bin/sh -c "${2//\$BIN/$BIN}" 2> "$T/err"
	[ -s "$T/err" ] && sed 's/^/      err: /' "$T/err" >&2
	true
}

test_allowed_name_reachable_at_its_address() {
	dns_up
	dns_policy "$T/p.json" "$POLICY_DNS"
	# before any answer, the address is closed; after it, open on the rule's port only
	out=$(in_sandbox "$T/p.json" '
		echo "before $($BIN/wd-net connect tcp 10.199.1.2 80)"
		echo "dns $($BIN/wd-dns query udp 10.199.1.2 api.test | tr "\n" " ")"
		echo "after $($BIN/wd-net connect tcp 10.199.1.2 80)"
		echo "port81 $($BIN/wd-net connect tcp 10.199.1.2 81)"
		echo "h2 $($BIN/wd-net connect tcp 10.199.2.2 80)"')
	expect_eq "before the answer" "$(echo "$out" | sed -n 's/^before //p')" EPERM
	expect_eq "the answer, through the forwarder" "$(echo "$out" | sed -n 's/^dns //p')" \
		"10.199.1.2 "
	expect_eq "the resolved address" "$(echo "$out" | sed -n 's/^after //p')" ok
	expect_eq "another port of it" "$(echo "$out" | sed -n 's/^port81 //p')" EPERM
	expect_eq "an address no answer gave" "$(echo "$out" | sed -n 's/^h2 //p')" EPERM
	expect_line "$T/audit" '"type":"dns"' '"name":"api.test"' '"verdict":"allow"' \
		'"addr":"10.199.1.2"' '"rule":"/net/allow/0"' '"ttl":2}'
	expect_line "$T/audit" '"type":"net"' '"target":"10.199.2.2:80"' '"verdict":"deny"'
}

test_wildcard_and_tcp_query() {
	dns_up
	dns_policy "$T/p.json" "$POLICY_DNS"
	out=$(in_sandbox "$T/p.json" '
		echo "dns $($BIN/wd-dns query tcp 10.199.1.2 www.wild.test | tr "\n" " ")"
		echo "after $($BIN/wd-net connect tcp 10.199.1.2 80)"')
	expect_eq "a name under the wildcard, over TCP" "$(echo "$out" | sed -n 's/^dns //p')" \
		"10.199.1.2 "
	expect_eq "its address" "$(echo "$out" | sed -n 's/^after //p')" ok
	expect_line "$T/audit" '"type":"dns"' '"name":"www.wild.test"' '"verdict":"allow"' \
		'"tcp":true'
}

test_other_name_refused() {
	dns_up
	dns_policy "$T/p.json" "$POLICY_DNS"
	out=$(in_sandbox "$T/p.json" '
		echo "dns $($BIN/wd-dns query udp 10.199.1.2 evil.test | tr "\n" " ")"
		echo "after $($BIN/wd-net connect tcp 10.199.1.2 80)"')
	expect_eq "a name no rule allows" "$(echo "$out" | sed -n 's/^dns //p')" "REFUSED "
	expect_eq "its address stays closed" "$(echo "$out" | sed -n 's/^after //p')" EPERM
	expect_line "$T/audit" '"type":"dns"' '"name":"evil.test"' '"verdict":"deny"' \
		'"rule":"default"' '"why":"name"'
}

# A name the policy allows whose answer is a CNAME chain (alias.test -> h2.test, a name no rule
# names): the chain's end address opens for the rule that allowed the name asked.
test_cname_chain_opens_its_end_address() {
	dns_up
	dns_policy "$T/p.json" '{"default":"deny","allow":["tcp:alias.test:80"]}'
	out=$(in_sandbox "$T/p.json" '
		echo "before $($BIN/wd-net connect tcp 10.199.2.2 80)"
		echo "dns $($BIN/wd-dns query udp 10.199.1.2 alias.test | tr "\n" " ")"
		echo "after $($BIN/wd-net connect tcp 10.199.2.2 80)"
		echo "h2 $($BIN/wd-dns query udp 10.199.1.2 h2.test | tr "\n" " ")"')
	expect_eq "before the answer" "$(echo "$out" | sed -n 's/^before //p')" EPERM
	expect_eq "the chain's end, through the forwarder" "$(echo "$out" | sed -n 's/^dns //p')" \
		"10.199.2.2 "
	expect_eq "its address" "$(echo "$out" | sed -n 's/^after //p')" ok
	expect_eq "the chain's end asked by its own name" "$(echo "$out" | sed -n 's/^h2 //p')" \
		"REFUSED "
	expect_line "$T/audit" '"type":"dns"' '"name":"alias.test"' '"addr":"10.199.2.2"' \
		'"rule":"/net/allow/0"'
}

test_ipv6_aaaa() {
	dns_up
	dns_policy "$T/p.json" "$POLICY_DNS"
	out=$(in_sandbox "$T/p.json" '
		echo "before $($BIN/wd-net connect tcp fd99:1::2 80)"
		echo "dns $($BIN/wd-dns query udp 10.199.1.2 api.test AAAA | tr "\n" " ")"
		echo "after $($BIN/wd-net connect tcp fd99:1::2 80)"')
	expect_eq "AAAA before" "$(echo "$out" | sed -n 's/^before //p')" EPERM
	expect_eq "AAAA answer" "$(echo "$out" | sed -n 's/^dns //p')" "fd99:1::2 "
	expect_eq "AAAA address" "$(echo "$out" | sed -n 's/^after //p')" ok
}

# The answer's TTL is 2 s, the grace 30 s: within a deadline the address closes again.
test_closed_after_ttl() {
	dns_up
	dns_policy "$T/p.json" "$POLICY_DNS"
	out=$(in_sandbox "$T/p.json" '
		a=$($BIN/wd-dns query udp 10.199.1.2 api.test)
		echo "first $($BIN/wd-net connect tcp 10.199.1.2 80)"
		i=0
		while [ $i -lt 90 ]; do
			r=$($BIN/wd-net connect tcp 10.199.1.2 80)
			[ "$r" = ok ] || break
			i=$((i + 1))
			sleep 1
		done
		echo "later $r"')
	expect_eq "while the TTL lasts" "$(echo "$out" | sed -n 's/^first //p')" ok
	expect_eq "after TTL and grace" "$(echo "$out" | sed -n 's/^later //p')" EPERM
}

# --allow-host and --deny-host add name rules to the policy they derive from.
test_allow_host_flags() {
	dns_up
	dns_policy "$T/p.json" '{"default":"deny","allow":["tcp:*.wild.test:80"]}'
	EXTRA="--allow-host api.test:80 --deny-host www.wild.test:*"
	out=$(in_sandbox "$T/p.json" '
		echo "api $($BIN/wd-dns query udp 10.199.1.2 api.test | tr "\n" " ")"
		echo "conn $($BIN/wd-net connect tcp 10.199.1.2 80)"
		echo "www $($BIN/wd-dns query udp 10.199.1.2 www.wild.test | tr "\n" " ")"')
	expect_eq "--allow-host name" "$(echo "$out" | sed -n 's/^api //p')" "10.199.1.2 "
	expect_eq "its address" "$(echo "$out" | sed -n 's/^conn //p')" ok
	expect_eq "--deny-host name" "$(echo "$out" | sed -n 's/^www //p')" "REFUSED "
	expect_line "$T/audit" '"type":"dns"' '"name":"www.wild.test"' '"verdict":"deny"' \
		'"rule":"/net/deny/0"'
}

# Attack from inside: asking another server (here an address with none), unconnected UDP, or
# the real server on another port does not get around the forwarder.
test_other_server_still_forwarded() {
	dns_up
	dns_policy "$T/p.json" "$POLICY_DNS"
	out=$(in_sandbox "$T/p.json" '
		echo "elsewhere $($BIN/wd-dns query udp 10.199.2.2 evil.test | tr "\n" " ")"
		echo "unconnected $($BIN/wd-dns query udpu 10.199.1.2 api.test | tr "\n" " ")"
		echo "port5353 $($BIN/wd-net sendto 10.199.1.2 5353)"')
	expect_eq "a server of the sandbox's choosing" \
		"$(echo "$out" | sed -n 's/^elsewhere //p')" "REFUSED "
	expect_eq "unconnected UDP, the reply from the server asked" \
		"$(echo "$out" | sed -n 's/^unconnected //p')" "10.199.1.2 "
	expect_eq "DNS on another port" "$(echo "$out" | sed -n 's/^port5353 //p')" EPERM
}
