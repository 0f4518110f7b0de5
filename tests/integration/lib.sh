# SPDX-License-Identifier: GPL-2.0
# Helpers for the integration tests (bash). Sourced by run.sh; every test runs in its own
# subshell with $T, a fresh directory it may use, removed afterwards by the runner.

# Set by run.sh: WARDEN (the binary), BIN (directory of warden and test helpers), WD_WHERE
# (host or vm; a test file's own WHERE= line says where it may run),
# BACKEND (what --backend says), EXPECT_BACKEND (what the run must use), DENY_ERRNO and DENY_TEXT
# (what a denied task sees: EPERM from BPF-LSM, EACCES from Landlock).

# wrun ARGS...: warden run with the suite's backend.
wrun() {
	"$WARDEN" run --backend "$BACKEND" "$@"
}

# fail MESSAGE: end this test as failed.
fail() {
	echo "    $*" >&2
	exit 1
}

# skip REASON: the kernel lacks what this test needs (exit 77).
skip() {
	echo "    skip: $*" >&2
	exit 77
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# line_with_all FILE PATTERN...: print the first line of FILE holding every fixed-string pattern.
line_with_all() {
	local file=$1 line
	shift
	while IFS= read -r line; do
		local ok=1 p
		for p in "$@"; do
			case $line in *"$p"*) ;; *) ok=0; break ;; esac
		done
		[ $ok = 1 ] && { printf '%s\n' "$line"; return 0; }
	done < "$file"
	return 1
}

# expect_line FILE PATTERN...: some line holds every pattern.
expect_line() {
	local file=$1
	line_with_all "$@" > /dev/null && return 0
	shift
	echo "    no line of $file holds all of: $*" >&2
	echo "    $file:" >&2
	sed 's/^/      /' "$file" >&2
	exit 1
}

# report_field FILE KEY: the scalar value of KEY in a warden.report/2 file (strings unquoted).
report_field() {
	sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" "$1"
}

# The ELF interpreter: executing a dynamically linked program executes it too.
LOADER=/lib64/ld-linux-x86-64.so.2
# Where the shared libraries are: the loader maps them PROT_EXEC, which needs fs.exec on bpf-lsm.
LIBDIRS="/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu"

# policy FILE READ WRITE EXEC [MODE]: write a policy; each set is a space-separated path list.
# Every policy also reads what the test binaries need to load (libraries, the loader cache) and
# may execute the test binaries, the loader and the libraries (mapped for execution).
policy() {
	local file=$1 read=$2 write=$3 exec=$4 mode=${5:-enforce}
	json_list() {
		local out= p
		for p in $1; do out="$out${out:+,}\"$p\""; done
		printf '[%s]' "$out"
	}
	printf '{"schema":"warden.policy/1","mode":"%s","fs":{"read":%s,"write":%s,"exec":%s}}\n' \
		"$mode" "$(json_list "/lib /lib64 /usr /etc/ld.so.cache $BIN $read")" \
		"$(json_list "$write")" "$(json_list "$BIN $LOADER $LIBDIRS $exec")" > "$file"
}

# The cgroup2 mount and warden's subtree in it.
cgroup2_mount() {
	awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo 2>/dev/null ||
		sed -n 's/.* - cgroup2 .*//p' /proc/self/mountinfo
}

# table_says ID BACKEND: what the guarantee table (warden doctor --table) claims: yes, partly, no.
table_says() {
	"$WARDEN" doctor --table | awk -F' [|] ' -v id="\`$1\`" -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ col) c = i }
		index($1, id) { split($c, w, "[*][*]"); print w[2] }'
}

# expect_table ID BACKEND CLAIM: the test below proves this claim of the table.
expect_table() {
	expect_eq "guarantee table: $1 on $2" "$(table_says "$1" "$2")" "$3"
}

# wait_record FILE PATTERN PID: block until a line holding PATTERN is in FILE (a run flushes each
# hold and decision record as it is made) and print it; fail if the run (PID) ends first, or
# after 120 s, so a run that neither holds nor ends fails the test instead of hanging it.
wait_record() {
	touch "$1"
	timeout 120 "$BIN/wd-try" wait-line "$1" "$2" "$3" ||
		fail "no line holding $2 in $1 while run $3 lived (or within 120 s)"
}

# wrun_bg OUT ARGS...: wrun ARGS in the background, its output (both streams) in OUT; $run is
# its pid, which the test kills if it ends first.
wrun_bg() {
	local out=$1
	shift
	wrun "$@" > "$out" 2>&1 &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
}

# decide approve|deny LINE [OPTION...]: answer the hold that LINE (a "hold" record) names.
decide() {
	local verb=$1 line=$2
	shift 2
	"$WARDEN" "$verb" "$@" "$(record_field "$line" sandbox)/$(record_field "$line" hold)"
}

# deny_held AUDIT TARGET: wait for the hold record of the run $run in AUDIT, check that it holds
# TARGET, and deny it; the record stays in $line.
deny_held() {
	line=$(wait_record "$1" '"type":"hold"' "$run")
	expect_eq "held target" "$(record_field "$line" target)" "$2"
	decide deny "$line"
}

# record_field LINE KEY: a scalar field of one JSON record line.
record_field() {
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^\",}]*\)\"\{0,1\}[,}].*/\1/p"
}

# start_daemon LOG: wardend in the background ($daemon, its output in LOG), once it listens.
start_daemon() {
	local log=$1
	shift
	touch "$log"
	"$BIN/wardend" "$@" > "$log" 2>&1 &
	daemon=$!
	# a failed test ends its daemon too (by pid): TERM first, so that it empties its pool of
	# cgroups as it stops (its sandboxes the runner reaps), KILL if it has not ended in 30 s
	trap 'kill -TERM $daemon 2>/dev/null && { timeout 30 "$BIN/wd-try" wait-exit $daemon > /dev/null ||
		kill -KILL $daemon 2>/dev/null; }; true' EXIT
	timeout 60 "$BIN/wd-try" wait-line "$log" "listening on" "$daemon" > /dev/null ||
		fail "wardend did not start: $(cat "$log")"
}

# stop_daemon: the wardend of start_daemon ends (TERM), and is waited for.
stop_daemon() {
	kill -TERM "$daemon" 2>/dev/null || true
	wait "$daemon" 2>/dev/null || true
}

# The client examples (t_examples.sh, t_examples_host.sh), run against a wardend of the test's.
# harness_policy: a policy that holds deletes under $T/app
harness_policy() {
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s"],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}\n' \
		"$T" "$T" "$LOADER" "$T" > "$T/p.json"
}

# harness_approves HARNESS...: the harness runs rm -rf under the protected tree, approving
harness_approves() {
	local rc=0
	start_daemon "$T/d.log"
	harness_policy
	APPROVE=y timeout 120 "$@" "$WARDEN_RUN_DIR/control.sock" \
		"$T/p.json" -- sh -c "echo before; rm -rf $T/app; echo rm=\$?; exit 3" \
		> "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" = 3 ] || fail "harness exit $rc, want the command's 3: $(cat "$T/err")"
	expect_eq "the command's output, streamed" "$(cat "$T/out")" "before
rm=0"
	# one hold for each of rm -rf's three deletes (a, src, app): each approved once
	expect_line "$T/err" "harness: completed, exit 3, 0 denied, 3 held"
	[ ! -e "$T/app" ] || fail "the approved rm -rf left $T/app"
	stop_daemon
}

# harness_denies HARNESS...: the same, denying
harness_denies() {
	local rc=0
	start_daemon "$T/d.log"
	harness_policy
	APPROVE=n timeout 120 "$@" "$WARDEN_RUN_DIR/control.sock" \
		"$T/p.json" -- sh -c "rm -rf $T/app; echo rm=\$?" > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" = 0 ] || fail "harness exit $rc, want 0: $(cat "$T/err")"
	case $(cat "$T/out") in rm=0) fail "rm says it deleted a denied tree" ;; esac
	[ -e "$T/app/src/a" ] || fail "a denied delete ran"
	expect_line "$T/err" "harness: completed"
	stop_daemon
}

# testnet_up PREFIX: the network tests' test network (t_net.sh, t_dns.sh): test hosts h1
# (10.199.1.2, fd99:1::2) and h2 (10.199.2.2) in namespaces $NS1 and $NS2 (PREFIX1-..., PREFIX2-...)
# behind veth pairs $V1 and $V2 whose host ends (10.199.1.1, fd99:1::1, 10.199.2.1) are host
# addresses. Servers started later add their pids to $PIDS; testnet_down (on EXIT) kills them and
# removes the pairs and namespaces.
testnet_up() {
	command -v ip > /dev/null || skip "no ip(8) to make the test network"
	NS1=${1}1-$BASHPID NS2=${1}2-$BASHPID V1=${1}v1-$BASHPID V2=${1}v2-$BASHPID
	PIDS=
	trap testnet_down EXIT
	ip netns add "$NS1" && ip netns add "$NS2" || skip "cannot make network namespaces"
	ip link add "$V1" type veth peer name eth0 netns "$NS1" ||
		skip "cannot make a veth pair (no veth module?)"
	ip link add "$V2" type veth peer name eth0 netns "$NS2" || fail "second veth pair"
	ip addr add 10.199.1.1/24 dev "$V1" && ip addr add 10.199.2.1/24 dev "$V2" &&
		ip -6 addr add fd99:1::1/64 dev "$V1" nodad && ip link set "$V1" up &&
		ip link set "$V2" up || fail "host ends"
	ip -n "$NS1" addr add 10.199.1.2/24 dev eth0 && ip -n "$NS1" -6 addr add fd99:1::2/64 \
		dev eth0 nodad && ip -n "$NS1" link set eth0 up && ip -n "$NS1" link set lo up &&
		ip -n "$NS2" addr add 10.199.2.2/24 dev eth0 && ip -n "$NS2" link set eth0 up ||
		fail "test host ends"
}

# testnet_serve NS|- CMD...: a server on the test network, in namespace NS (- : on the host),
# ready on return (it prints "ready"); its pid joins $PIDS for testnet_down.
testnet_serve() {
	local ns=$1 f=$T/serve.$RANDOM pid
	shift
	: > "$f"
	if [ "$ns" = - ]; then
		"$@" > "$f" 2>&1 &
	else
		ip netns exec "$ns" "$@" > "$f" 2>&1 &
	fi
	pid=$!
	PIDS="$PIDS $pid"
	"$BIN/wd-try" wait-line "$f" ready "$pid" > /dev/null || fail "server $*: $(cat "$f")"
}

# testnet_dns NS ADDR TTL NAME=A[,A]...|NAME=@TARGET...: Debian's dnsmasq as the test network's
# DNS server, in namespace NS on ADDR:53 (UDP and TCP), answering each NAME's A and AAAA records
# (or a CNAME to TARGET, a NAME of its own) with TTL and
# NXDOMAIN for every other name under .test; nothing of the host's (no resolv.conf, no hosts
# file, no upstream). Ready on return (its sockets are bound before it logs "started"); its pid
# joins $PIDS for testnet_down.
testnet_dns() {
	local ns=$1 addr=$2 ttl=$3 f=$T/dnsmasq.$RANDOM pid dnsmasq rec
	local -a records=()
	shift 3
	dnsmasq=$(command -v dnsmasq || true)
	[ -x "$BIN/dnsmasq" ] && dnsmasq=$BIN/dnsmasq
	[ -n "$dnsmasq" ] || fail "no dnsmasq (make deps installs dnsmasq-base)"
	for rec in "$@"; do
		case ${rec#*=} in
		@*) records+=("--cname=${rec%%=*},${rec#*=@},$ttl") ;;
		*) records+=("--host-record=${rec%%=*},${rec#*=}") ;;
		esac
	done
	: > "$f"
	ip netns exec "$ns" "$dnsmasq" --keep-in-foreground --log-facility=- --conf-file=/dev/null \
		--user=root --group=root --pid-file= --no-resolv --no-hosts --no-poll \
		--bind-interfaces --listen-address="$addr" --port=53 --local=/test/ \
		--local-ttl="$ttl" "${records[@]}" > "$f" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	"$BIN/wd-try" wait-line "$f" "started, version" "$pid" > /dev/null ||
		fail "dnsmasq: $(cat "$f")"
}

testnet_down() {
	local p
	set +e
	for p in $PIDS; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
	ip link del "$V1" 2> /dev/null
	ip link del "$V2" 2> /dev/null
	ip netns del "$NS1" 2> /dev/null
	ip netns del "$NS2" 2> /dev/null
	true
}
