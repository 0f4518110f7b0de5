# SPDX-License-Identifier: GPL-2.0
# wardend's spares (docs/design.md#spares): after a run, the sandbox for the next run like it is
# made ahead, up to its command's exec. The next run of that shape claims it and gets its own
# command, files, stdin and report; a spare serves one run (nothing of the run before it is
# there); a changed policy file or another working directory is never served by a spare made
# for the old one; a root process in another sandbox cannot reach a waiting spare; wardend's
# stop ends its spares and leaves no cgroup; "spares": 0 makes none.
WHERE=any
BACKENDS="bpf-lsm landlock"
# the claim's stream and stdin plumbing: the host suite's
HOST_ONLY="test_a_streamed_run_claims_a_spare_and_streams_its_output"

ctl() {
	"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$1"
}

# ctl_wait REQUEST OUT: a request that waits, its reply and its exit event in OUT
ctl_wait() {
	timeout 120 "$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$1" 2 > "$2" ||
		fail "request $1: $(cat "$2")"
}

# spare_policy: $T/p.json, reading and writing $T, with a protected tree $T/keep (deletes held)
spare_policy() {
	mkdir -p "$T/w" "$T/keep"
	echo k > "$T/keep/k"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","/proc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s","%s"],"protect":[{"path":"%s/keep","ops":["delete"],"action":"hold"}]}}\n' \
		"$T" "$T" "$BIN" "$LOADER" "$T" > "$T/p.json"
}

# run_wait N ARGV_JSON [MORE_FIELDS]: a run of $T/p.json in $T/w through wardend, waited for:
# its audit in $T/aN, stdout $T/oN, stderr $T/eN, its reply and exit event in $T/cN
run_wait() {
	local n=$1 argv=$2 more=${3:-}
	: > "$WD_OUT/a$n"
	timeout 120 "$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" \
		"{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"cwd\":\"$T/w\",\"audit\":\"$WD_OUT/a$n\",\"stdout\":\"$T/o$n\",\"stderr\":\"$T/e$n\",\"argv\":$argv,\"wait\":true$more}" \
		2 > "$T/c$n" || fail "run $n: $(cat "$T/c$n")"
	expect_line "$T/c$n" '"ok":true'
	expect_line "$T/c$n" '"event":"exit"'
}

# spare_ready N: wardend's log says its Nth spare is ready
spare_ready() {
	timeout 60 "$BIN/wd-try" wait-line "$T/d.log" "spare #$1 (supervisor" "$daemon" > /dev/null ||
		fail "spare #$1 never became ready: $(cat "$T/d.log")"
	expect_line "$T/d.log" "spare #$1 (supervisor" "is ready"
}

# The spare's supervisor's pid, and its sandbox, from its ready line
spare_pid() {
	line_with_all "$T/d.log" "spare #$1 (supervisor" | sed 's/.*(supervisor \([0-9]*\)).*/\1/'
}
spare_sandbox() {
	line_with_all "$T/d.log" "spare #$1 (supervisor" | sed 's/.*the last: \(sb-[0-9a-f]*\) .*/\1/'
}

test_a_run_like_the_last_claims_a_spare_and_gets_its_own_command_files_and_report() {
	spare_policy
	start_daemon "$T/d.log"
	run_wait 1 '["sh","-c","echo one; pwd"]'
	case $(cat "$T/c1") in *'"spare":true'*) fail "the first run claimed a spare: $(cat "$T/c1")" ;; esac
	sb1=$(record_field "$(head -1 "$T/c1")" sandbox)
	spare_ready 1
	sup=$(spare_pid 1)
	run_wait 2 '["sh","-c","echo two; pwd; cat; echo err >&2; exit 3"]' ',"stdin":"in two\n"'
	expect_line "$T/c2" '"ok":true' '"spare":true' "\"supervisor\":$sup"
	sb2=$(record_field "$(head -1 "$T/c2")" sandbox)
	[ "$sb1" != "$sb2" ] || fail "the spare ran in the first run's sandbox $sb1"
	expect_eq "its output" "$(cat "$T/o2")" "two
$T/w
in two"
	expect_eq "its stderr" "$(cat "$T/e2")" "err"
	# its own audit: the start record names its own command, then its exit
	start=$(line_with_all "$WD_OUT/a2" '"type":"start"') || fail "no start record in $(cat "$WD_OUT/a2")"
	expect_eq "start record's sandbox" "$(record_field "$start" sandbox)" "$sb2"
	case $start in *'"argv":["sh","-c","echo two;'*) ;; *) fail "start record's argv: $start" ;; esac
	expect_line "$WD_OUT/a2" '"type":"exit"' '"exit_code":3'
	expect_line "$T/c2" '"event":"exit"' '"exit_code":3'
	# nothing of the second run went to the first's files
	expect_eq "first run's output" "$(cat "$T/o1")" "one
$T/w"
	[ "$(grep -c '"type":"start"' "$WD_OUT/a1")" = 1 ] || fail "the first audit got a second start"
}

test_a_held_delete_in_a_claimed_spare_is_held_then_approved() {
	spare_policy
	start_daemon "$T/d.log"
	run_wait 1 '["true"]'
	spare_ready 1
	: > "$WD_OUT/a2"
	timeout 120 "$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" \
		"{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"cwd\":\"$T/w\",\"audit\":\"$WD_OUT/a2\",\"stdout\":\"$T/o2\",\"argv\":[\"sh\",\"-c\",\"rm -rf $T/keep; echo rm=\$?\"],\"wait\":true}" \
		2 > "$T/c2" &
	client=$!
	line=$(wait_record "$WD_OUT/a2" '"type":"hold"' "$daemon")
	[ -e "$T/keep/k" ] || fail "the held delete ran before it was decided"
	decide approve "$line" --scope sandbox --subtree "$T/keep" > /dev/null || fail "approve failed"
	wait "$client" || fail "the run's client: $(cat "$T/c2")"
	expect_line "$T/c2" '"spare":true'
	expect_eq "rm" "$(cat "$T/o2")" "rm=0"
	[ ! -e "$T/keep" ] || fail "the approved delete left $T/keep"
}

test_a_spare_serves_one_run_and_nothing_of_the_run_before_is_in_it() {
	spare_policy
	start_daemon "$T/d.log"
	# the first run leaves a process behind
	run_wait 1 '["sh","-c","(sleep 600 &) ; echo started"]'
	spare_ready 1
	[ "$(spare_sandbox 1)" != "$(record_field "$(head -1 "$T/c1")" sandbox)" ] ||
		fail "the spare is the first run's sandbox"
	# every command line it can see (its own pid namespace on landlock, the host's on bpf-lsm)
	run_wait 2 '["sh","-c","for p in /proc/[0-9]*; do tr \"\\\\0\" \" \" < $p/cmdline 2>/dev/null; echo; done | grep -c \"^sleep 600\""]'
	expect_line "$T/c2" '"spare":true' "\"sandbox\":\"$(spare_sandbox 1)\""
	# the first run's sleep ended with its sandbox: nothing of it is left to see
	expect_eq "the first run's processes the second sees" "$(cat "$T/o2")" 0
	# and the spare that served it is gone with its run: the third run gets the next one
	spare_ready 2
	run_wait 3 '["true"]'
	expect_line "$T/c3" '"spare":true'
	sb2=$(record_field "$(head -1 "$T/c2")" sandbox)
	sb3=$(record_field "$(head -1 "$T/c3")" sandbox)
	[ "$sb2" != "$sb3" ] || fail "two runs were served by one sandbox $sb2"
}

test_a_changed_policy_file_is_never_served_by_a_spare_made_for_the_old_one() {
	spare_policy
	echo secret > "$T/secret"
	start_daemon "$T/d.log"
	run_wait 1 '["cat","'"$T"'/secret"]'
	expect_eq "first run" "$(cat "$T/o1")" "secret"
	spare_ready 1
	# the operator narrows the policy: $T/secret is no longer readable
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s/w"],"write":["%s/w"],"exec":["/usr/bin","/bin","%s","%s"]}}\n' \
		"$T" "$T" "$BIN" "$LOADER" > "$T/p.json"
	run_wait 2 '["sh","-c","cat '"$T"'/secret || echo denied"]'
	case $(cat "$T/c2") in *'"spare":true'*) fail "a spare of the old policy served it: $(cat "$T/c2")" ;; esac
	expect_line "$T/o2" "denied"
	case $(cat "$T/o2") in *secret*) fail "the narrowed policy let it read: $(cat "$T/o2")" ;; esac
	expect_line "$T/d.log" "its policy or working directory changed"
}

test_another_directory_or_env_gets_no_spare_of_this_shape() {
	spare_policy
	mkdir -p "$T/w2"
	start_daemon "$T/d.log"
	run_wait 1 '["true"]'
	spare_ready 1
	: > "$WD_OUT/a2"
	ctl_wait "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"cwd\":\"$T/w2\",\"audit\":\"$WD_OUT/a2\",\"stdout\":\"$T/o2\",\"argv\":[\"pwd\"],\"wait\":true}" "$T/c2"
	case $(cat "$T/c2") in *'"spare":true'*) fail "a spare made in $T/w served a run in $T/w2" ;; esac
	expect_eq "its directory" "$(cat "$T/o2")" "$T/w2"
	run_wait 3 '["sh","-c","echo $WHO"]' ',"env":{"WHO":"three"}'
	case $(cat "$T/c3") in *'"spare":true'*) fail "a spare without its env served it" ;; esac
	expect_eq "its env" "$(cat "$T/o3")" "three"
}

# An attack from a root process in a sandbox running beside a waiting spare: it kills every
# process it can (kill -9 -1), then the spare's supervisor and every process of the spare by
# their host pids. Out of reach (its own pid namespace on landlock, bpf-lsm's task_kill on the
# other), the spare still serves the next run.
test_a_root_process_in_another_sandbox_cannot_reach_a_waiting_spare() {
	spare_policy
	# room for a spare of each shape: the attacker's run does not push $T/w's out
	echo '{"spares":2}' > "$T/wardend.json"
	start_daemon "$T/d.log" --config "$T/wardend.json"
	run_wait 1 '["true"]'
	spare_ready 1
	sup=$(spare_pid 1)
	# a run of another shape (its own directory): no spare; the spare of $T/w waits meanwhile
	mkdir -p "$T/w2"
	: > "$WD_OUT/a2"
	victims="$sup $(pgrep -P "$sup" | tr '\n' ' ')"
	for p in $(pgrep -P "$sup"); do victims="$victims $(pgrep -P "$p" | tr '\n' ' ')"; done
	ctl_wait "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"cwd\":\"$T/w2\",\"audit\":\"$WD_OUT/a2\",\"stdout\":\"$T/o2\",\"argv\":[\"sh\",\"-c\",\"kill -9 -1; for p in $victims; do kill -9 \$p 2>/dev/null && echo killed \$p; done; echo after\"],\"wait\":true}" "$T/c2"
	expect_line "$T/o2" after
	case $(cat "$T/o2") in *killed*) fail "the attacker signalled the spare: $(cat "$T/o2")" ;; esac
	kill -0 "$sup" 2>/dev/null || fail "the spare's supervisor $sup died of the attack"
	run_wait 3 '["echo","served"]'
	expect_line "$T/c3" '"spare":true' "\"supervisor\":$sup"
	expect_eq "served" "$(cat "$T/o3")" "served"
}

test_a_streamed_run_claims_a_spare_and_streams_its_output() {
	spare_policy
	start_daemon "$T/d.log"
	run_wait 1 '["true"]'
	spare_ready 1
	timeout 120 "$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" \
		"{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"cwd\":\"$T/w\",\"argv\":[\"sh\",\"-c\",\"cat; echo out; echo err >&2\"],\"stream\":true,\"stdin\":\"fed\\n\"}" \
		until='"event":"exit"' > "$T/c2" || fail "streamed run: $(cat "$T/c2")"
	expect_line "$T/c2" '"ok":true' '"spare":true'
	expect_eq "its stdout" "$(grep '"event":"stdout"' "$T/c2" | sed 's/.*"data":"\([^"]*\)".*/\1/' | tr -d '\n')" 'fed\nout\n'
	expect_line "$T/c2" '"event":"stderr"' '"data":"err\n"'
	expect_line "$T/c2" '"event":"exit"' '"code":0' '"status":"completed"'
}

test_wardend_stop_ends_its_spare_and_leaves_no_cgroup() {
	spare_policy
	start_daemon "$T/d.log"
	run_wait 1 '["true"]'
	spare_ready 1
	sup=$(spare_pid 1)
	name=$(spare_sandbox 1)
	[ -d "$WD_SANDBOX_GROUP/$name" ] || fail "no cgroup $name for the spare"
	[ -n "$(cat "$WD_SANDBOX_GROUP/$name/cgroup.procs")" ] || fail "the spare's sandbox is empty"
	expect_eq "status" "$(ctl '{"op":"status"}' | grep -o '"spares":{"ready":1,"live":1}')" '"spares":{"ready":1,"live":1}'
	stop_daemon
	! kill -0 "$sup" 2>/dev/null || fail "the spare's supervisor $sup outlived wardend"
	expect_line "$T/d.log" "spare $sup ends: wardend stops"
	[ ! -d "$WD_SANDBOX_GROUP/$name" ] || fail "the spare's cgroup $name outlived wardend"
}

test_spares_0_makes_none() {
	spare_policy
	echo '{"spares":0}' > "$T/wardend.json"
	start_daemon "$T/d.log" --config "$T/wardend.json"
	run_wait 1 '["true"]'
	run_wait 2 '["true"]'
	case $(cat "$T/c2") in *'"spare":true'*) fail "a spare with spares 0" ;; esac
	expect_eq "status" "$(ctl '{"op":"status"}' | grep -o '"spares":{"ready":0,"live":0}')" '"spares":{"ready":0,"live":0}'
	case $(cat "$T/d.log") in *"spare #"*) fail "a spare was made: $(cat "$T/d.log")" ;; esac
}
