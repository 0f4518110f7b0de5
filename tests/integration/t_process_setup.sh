# SPDX-License-Identifier: GPL-2.0
# Process set-up from the policy (issue #5): env built from env.pass and env.set, the user dropped
# to, and the namespaces (private /tmp, read-only binds, pid, uts, ipc, net "none"), on every
# backend.
WHERE=any

# setup_policy FILE EXTRA: the suite's policy (reading $T and the shell, writing $T) with the JSON
# members EXTRA added.
setup_policy() {
	policy "$1.base" "$T /bin /usr/bin /proc" "$T" "/bin /usr/bin"
	sed "s|}}\$|},$2}|" "$1.base" > "$1"
}

# The test directory is the runner's (mode 0700): another user must reach what is in it.
open_t() {
	chmod 755 "$T"
	cd "$T" || fail "cd $T"
}

test_env_from_pass_and_set() {
	setup_policy "$T/p.json" '"env":{"pass":["WDT_PASS_*"],"set":{"WDT_SET":"x y","WDT_PASS_B":"over"}}'
	WDT_PASS_A=1 WDT_PASS_B=2 WDT_SECRET=hunter2 wrun --policy "$T/p.json" -- "$BIN/wd-try" env \
		> "$T/out" 2> "$T/err" || fail "run failed: $(cat "$T/err")"
	expect_eq "environment" "$(grep '^WDT_' "$T/out" | sort | tr '\n' ' ')" \
		"WDT_PASS_A=1 WDT_PASS_B=over WDT_SET=x y "
	# the base list comes with it; warden's PATH does not
	expect_line "$T/out" "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	# without env, a clean environment: the secret stays out (issue #12)
	policy "$T/q.json" "" "" ""
	WDT_SECRET=hunter2 wrun --policy "$T/q.json" -- "$BIN/wd-try" env > "$T/out" 2> "$T/err" ||
		fail "run failed: $(cat "$T/err")"
	if grep -q WDT_SECRET "$T/out"; then
		fail "warden's environment reached the command: $(cat "$T/out")"
	fi
	expect_line "$T/out" "HOME=/root"
}

test_user_drop() {
	local uid gid
	open_t
	uid=$(id -u nobody) gid=$(id -g nobody)
	echo root > "$T/root-only"
	chmod 644 "$T/root-only"
	setup_policy "$T/p.json" '"user":"nobody"'
	wrun --policy "$T/p.json" -- "$BIN/wd-try" ids > "$T/out" 2> "$T/err" ||
		fail "run failed: $(cat "$T/err")"
	expect_eq "ids" "$(cut -d' ' -f1,2 "$T/out")" "$uid $gid"
	rc=0
	wrun --policy "$T/p.json" -- "$BIN/wd-try" write "$T/root-only" > "$T/out" 2> "$T/err" ||
		rc=$?
	expect_eq "write to a file only root may write" "$(cat "$T/out")" EACCES
	expect_eq "its content" "$(cat "$T/root-only")" root
	# uid:gid needs no user database; the group named is the only one
	setup_policy "$T/q.json" '"user":"54321:54322"'
	wrun --policy "$T/q.json" -- "$BIN/wd-try" ids > "$T/out" 2> "$T/err" ||
		fail "run failed: $(cat "$T/err")"
	expect_eq "ids" "$(cat "$T/out")" "54321 54322 54322"
}

test_unknown_user_refused() {
	setup_policy "$T/p.json" '"user":"wd-no-such-user"'
	rc=0
	wrun --policy "$T/p.json" -- "$BIN/wd-try" write "$T/marker" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" "/user: no user \"wd-no-such-user\""
	[ ! -e "$T/marker" ] || fail "the command ran"
	setup_policy "$T/q.json" '"user":"nobody:wd-no-such-group"'
	rc=0
	wrun --policy "$T/q.json" -- "$BIN/wd-try" write "$T/marker" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" "/user: no group \"wd-no-such-group\""
	[ ! -e "$T/marker" ] || fail "the command ran"
}

test_private_tmp() {
	local made=/tmp/wd-private-tmp.$$
	# Written by hand: a private /tmp hides the host's, and the suite's own paths ($T, and $BIN
	# when the checkout is under /tmp) with it, so this policy names nothing under /tmp.
	printf '{"schema":"warden.policy/1","fs":{"read":["/bin","/usr","/lib","/lib64","/etc"],"write":["/tmp","/dev/null"],"exec":["/bin","/usr/bin","/lib","/lib64","/usr/lib"]},"namespaces":{"tmp":"private"}}\n' \
		> "$T/p.json"
	rm -f "$made"
	wrun --policy "$T/p.json" -- /bin/sh -c "ls -A /tmp; echo x > $made && echo made" \
		> "$T/out" 2> "$T/err" || fail "run failed: $(cat "$T/err")"
	expect_eq "what the sandbox saw and did" "$(cat "$T/out")" made
	[ ! -e "$made" ] || { rm -f "$made"; fail "$made reached the host's /tmp"; }
	[ -d "$T" ] || fail "the host's /tmp lost $T"
	# set up this way (on bpf-lsm: joining the sandbox's cgroup after the mounts), the command
	# is still confined
	rc=0
	wrun --policy "$T/p.json" -- /bin/sh -c "echo x > /wd-denied.$$" > "$T/out" 2> "$T/err" ||
		rc=$?
	[ ! -e "/wd-denied.$$" ] || { rm -f "/wd-denied.$$"; fail "a write outside fs.write worked"; }
	expect_line "$T/err" "$DENY_TEXT"
}

# With a private /tmp, a rule naming a path under the host's /tmp could never be met: refused
# before anything runs, naming the rule.
test_a_rule_under_a_private_tmp_is_refused() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/bin","/usr","/lib","/lib64","/etc","/tmp/wd-host-file"],"exec":["/bin","/usr/bin","/lib","/lib64","/usr/lib"]},"namespaces":{"tmp":"private"}}\n' \
		> "$T/p.json"
	rc=0
	wrun --policy "$T/p.json" -- /bin/true 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" "/fs/read/5" "/tmp/wd-host-file" "makes private"
}

test_read_only_bind() {
	mkdir "$T/ro"
	echo data > "$T/ro/file"
	setup_policy "$T/p.json" "\"namespaces\":{\"bind_ro\":[\"$T/ro\"]}"
	wrun --policy "$T/p.json" -- "$BIN/wd-try" read "$T/ro/file" > "$T/out" 2> "$T/err" ||
		fail "read: $(cat "$T/out" "$T/err")"
	rc=0
	wrun --policy "$T/p.json" -- "$BIN/wd-try" write "$T/ro/file" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "write under the bind" "$(cat "$T/out")" EROFS
	rc=0
	wrun --policy "$T/p.json" -- "$BIN/wd-try" write "$T/ro/new" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "create under the bind" "$(cat "$T/out")" EROFS
	expect_eq "the file" "$(cat "$T/ro/file")" data
	wrun --policy "$T/p.json" -- "$BIN/wd-try" write "$T/rw" > "$T/out" 2> "$T/err" ||
		fail "write beside the bind: $(cat "$T/out" "$T/err")"
	# the host's view is untouched: still writable there
	echo more >> "$T/ro/file" || fail "the bind reached the host"
	# a path that is not there is refused before anything runs
	setup_policy "$T/q.json" "\"namespaces\":{\"bind_ro\":[\"$T/missing\"]}"
	rc=0
	wrun --policy "$T/q.json" -- "$BIN/wd-try" write "$T/marker" > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" "/namespaces/bind_ro/0: cannot bind $T/missing"
	[ ! -e "$T/marker" ] || fail "the command ran"
}

test_private_pid() {
	setup_policy "$T/p.json" '"namespaces":{"pid":"private"}'
	wrun --policy "$T/p.json" -- /bin/sh -c 'echo $$ /proc/[0-9]*' \
		> "$T/out" 2> "$T/err" || fail "run failed: $(cat "$T/err")"
	# pid 1 is warden's small init, the command pid 2, and nothing else is there
	expect_eq "pids" "$(cat "$T/out")" "2 /proc/1 /proc/2"
}

test_private_uts() {
	local before
	before=$(hostname)
	setup_policy "$T/p.json" '"namespaces":{"uts":"private"}'
	wrun --policy "$T/p.json" --report "$WD_OUT/r.json" -- "$BIN/wd-try" hostname > "$T/out" \
		2> "$T/err" || fail "run failed: $(cat "$T/err")"
	expect_eq "host name inside" "$(cat "$T/out")" "$(report_field "$WD_OUT/r.json" sandbox)"
	expect_eq "the host's" "$(hostname)" "$before"
}

test_private_ipc() {
	# not local: the EXIT trap runs after the function has returned
	key=$((0x57440000 + $$ % 65536))
	"$BIN/wd-try" shm "$key" create > /dev/null || fail "cannot make a shared memory segment"
	trap '"$BIN/wd-try" shm "$key" remove > /dev/null' EXIT
	setup_policy "$T/p.json" '"namespaces":{"ipc":"private"}'
	rc=0
	wrun --policy "$T/p.json" -- "$BIN/wd-try" shm "$key" find > "$T/out" 2> "$T/err" || rc=$?
	expect_eq "the host's segment, from inside" "$(cat "$T/out")" ENOENT
	# proof that the lookup itself works: with the host's ipc it is found
	setup_policy "$T/q.json" '"namespaces":{"ipc":"host"}'
	wrun --policy "$T/q.json" -- "$BIN/wd-try" shm "$key" find > "$T/out" 2> "$T/err" ||
		fail "host ipc: $(cat "$T/out" "$T/err")"
}

test_net_none() {
	local port
	# the file exists before wait-line watches it (the redirection below is the child's)
	: > "$T/listen"
	"$BIN/wd-try" listen 127.0.0.1 0 > "$T/listen" &
	listener=$!
	trap 'kill $listener 2> /dev/null; wait $listener 2> /dev/null || true' EXIT
	port=$("$BIN/wd-try" wait-line "$T/listen" listening "$listener") ||
		fail "no listener: $(cat "$T/listen")"
	port=${port#listening }
	setup_policy "$T/p.json" '"namespaces":{"net":"none"}'
	wrun --policy "$T/p.json" -- "$BIN/wd-try" ifaces > "$T/out" 2> "$T/err" ||
		fail "run failed: $(cat "$T/err")"
	expect_eq "interfaces" "$(tr '\n' ' ' < "$T/out")" "lo up "
	rc=0
	wrun --policy "$T/p.json" -- "$BIN/wd-try" connect 127.0.0.1 "$port" > "$T/out" \
		2> "$T/err" || rc=$?
	expect_eq "connect to the host's loopback listener" "$(cat "$T/out")" ECONNREFUSED
	# the listener is there for the host
	expect_eq "from the host" "$("$BIN/wd-try" connect 127.0.0.1 "$port")" ok
}

