# SPDX-License-Identifier: GPL-2.0
# wardend: runs sandboxes asked for on its control socket; a wardend killed mid-hold leaves the
# held call held (its supervisors die with it, their keepers keep the sandboxes), and a
# restarted wardend takes the sandbox over and answers it.
WHERE=any
BACKENDS="bpf-lsm landlock"
# the control protocol's own logic (streams, stdin, terminals, reattaching, refusals): the host
# suite's; the VMs run what the kernel and the backend hold (takeovers, holds, the fifty)
HOST_ONLY="test_a_client_that_went_reattaches_and_gets_what_it_missed"
HOST_ONLY+=" test_a_pty_run_streams_on_after_its_supervisor_and_its_wardend_die"
HOST_ONLY+=" test_a_run_reads_a_streamed_stdin test_a_run_request_gives_stdin_env_and_a_timeout"
HOST_ONLY+=" test_a_run_that_asked_ends_with_its_client test_a_run_with_a_pty_gets_a_terminal_and_streams_it"
HOST_ONLY+=" test_a_run_with_an_inline_policy_and_wait_gets_its_report_on_the_connection"
HOST_ONLY+=" test_a_run_with_hold_events_is_decided_by_a_resume_elsewhere"
HOST_ONLY+=" test_a_run_whose_holds_return_is_resumed_on_another_connection"
HOST_ONLY+=" test_a_slow_stream_client_loses_only_what_is_counted"
HOST_ONLY+=" test_a_streamed_run_sends_its_output_as_events_then_its_exit"
HOST_ONLY+=" test_a_streamed_run_taken_over_after_a_crash_streams_on"
HOST_ONLY+=" test_wardend_echoes_ids_and_refuses_unknown_keys_and_bad_policies_up_front"
HOST_ONLY+=" test_wardend_refuses_bad_requests_and_a_second_daemon"

ctl() {
	"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$1"
}

# run_held: ask wardend to run rm -rf of $T/app, which the policy holds; sets $sb once held.
# With WAIT=1 the request waits for the run's end, on $client (see inside).
run_held() {
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	echo b > "$T/app/b"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s","%s"],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}\n' \
		"$T" "$T" "$BIN" "$LOADER" "$T" > "$T/p.json"
	touch "$WD_OUT/audit"
	req="{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"audit\":\"$WD_OUT/audit\",\"stderr\":\"$T/sup.err\",\"argv\":[\"sh\",\"-c\",\"rm -rf $T/app; echo \$? > $T/rm.rc\"]${WAIT:+,\"wait\":true}}"
	if [ -n "${WAIT:-}" ]; then
		# a client that waits for the end: its reply, then the exit event, in $T/client.out
		# (written when both came); the sandbox from the start record, its supervisor listed
		"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$req" 2 > "$T/client.out" &
		client=$!
		wait_record "$WD_OUT/audit" '"type":"hold"' "$daemon" > /dev/null
		sb=$(record_field "$(line_with_all "$WD_OUT/audit" '"type":"start"')" sandbox)
		supervisor=$(ctl '{"op":"list"}' | grep -o "\"sandbox\":\"$sb\",\"supervisor\":[0-9]*" |
			sed 's/.*://')
		[ -n "$supervisor" ] || fail "wardend does not list $sb"
		return
	fi
	reply=$(ctl "$req")
	case $reply in *'"ok":true'*) ;; *) fail "run refused: $reply" ;; esac
	sb=$(record_field "$reply" sandbox)
	supervisor=$(record_field "$reply" supervisor)
	wait_record "$WD_OUT/audit" '"type":"hold"' "$daemon" > /dev/null
}

# held_again: the hold record a successor made, after its adopt record (same seq + 1).
held_again() {
	local adopt seq
	adopt=$(wait_record "$WD_OUT/audit" '"type":"adopt"' "$daemon")
	seq=$(record_field "$adopt" seq)
	wait_record "$WD_OUT/audit" "\"seq\":$((seq + 1)),\"sandbox\":\"$sb\",\"type\":\"hold\"" "$daemon"
}

test_a_wardend_killed_mid_hold_leaves_the_call_held_and_a_restarted_one_answers_it() {
	start_daemon "$T/d1.log"
	run_held
	expect_eq "list" "$(ctl '{"op":"list"}' | grep -c "\"sandbox\":\"$sb\",\"supervisor\":$supervisor,\"how\":\"run\"")" 1
	kill -KILL "$daemon"
	wait "$daemon" 2>/dev/null || true
	# its supervisor died with it; the keeper keeps the sandbox
	timeout 60 "$BIN/wd-try" wait-exit "$supervisor" > /dev/null ||
		fail "the run's supervisor outlived wardend"
	[ -e "$T/app/src/a" ] && [ -e "$T/app/b" ] || fail "a held delete ran after wardend died"
	[ ! -e "$T/rm.rc" ] || fail "rm went on after wardend died: $(cat "$T/rm.rc")"
	start_daemon "$T/d2.log"
	line=$(held_again)
	expect_line "$T/d2.log" "taking $sb over"
	decide approve "$line" --scope sandbox --subtree "$T/app" > /dev/null || fail "approve failed"
	wait_record "$WD_OUT/audit" '"type":"exit"' "$daemon" > /dev/null
	[ ! -e "$T/app" ] || fail "the approved rm -rf left $(ls -R "$T/app")"
	expect_eq "rm" "$(cat "$T/rm.rc")" 0
	stop_daemon
}

# A client waiting for the run (wait) is told its end by the successor, with the report the
# successor wrote into the run's report file.
test_a_crashed_supervisor_of_wardend_is_taken_over_by_wardend() {
	local ev
	start_daemon "$T/d.log"
	WAIT=1 run_held
	kill -KILL "$supervisor"
	line=$(held_again)
	decide deny "$line" > /dev/null || fail "deny failed"
	[ -e "$T/app/b" ] && [ -e "$T/app/src/a" ] || fail "a denied delete ran"
	# a plain deny covers the process under the tree: the rest of rm -rf is refused unasked,
	# and rm ends by itself
	wait_record "$WD_OUT/audit" '"type":"exit"' "$daemon" > /dev/null
	[ -e "$T/app/src/a" ] || fail "a delete under the denied tree ran"
	timeout 120 "$BIN/wd-try" wait-exit "$client" > /dev/null || fail "the waiting client stayed"
	ev=$(sed -n 2p "$T/client.out")
	case $ev in '{"event":"exit","sandbox":"'"$sb"'"'*'"taken_over":true,"report":{'*'"writer":"adopt"'*'"sandbox":"'"$sb"'"'*) ;;
	*) fail "exit event after the take-over: $ev" ;;
	esac
	stop_daemon
}

test_wardend_refuses_bad_requests_and_a_second_daemon() {
	start_daemon "$T/d.log"
	expect_eq "unknown op" "$(ctl '{"op":"explode"}')" \
		'{"ok":false,"error":"unknown op explode (run, resume, attach, stdin, create, exec, put, get, inspect, destroy, list, kill, status, holds, subscribe, approve, deny)","code":"bad_request","v":1}'
	expect_eq "no argv" "$(ctl '{"op":"run","policy":"/x.json"}')" \
		'{"ok":false,"error":"run: \"argv\" must be a non-empty array of strings","code":"bad_request","v":1}'
	expect_eq "relative audit" "$(ctl '{"op":"run","policy":"/x.json","audit":"a.log","argv":["true"]}')" \
		'{"ok":false,"error":"run: \"audit\" must be an absolute path","code":"bad_request","v":1}'
	expect_eq "kill of nothing" "$(ctl '{"op":"kill","sandbox":"sb-00000000"}')" \
		'{"ok":false,"error":"kill: this daemon supervises no sandbox sb-00000000","code":"not_found","v":1}'
	case $(ctl '{"op":"run","policy":"/nonexistent.json","argv":["true"]}') in
	*'"ok":false'*'"code":"bad_policy"'*) ;;
	*) fail "a run of a missing policy was not refused as a bad policy" ;;
	esac
	if "$BIN/wardend" > "$T/d2.log" 2>&1; then
		fail "a second wardend started on the same run directory"
	fi
	expect_line "$T/d2.log" "another wardend answers on $WARDEN_RUN_DIR/control.sock"
	stop_daemon
}

# rings_in_use: how many audit rings the wd_rings of the backend's sets hold (the other
# backend's set may be another suite's, beside this one)
rings_in_use() {
	local n=0 m
	for m in /sys/fs/bpf/warden/"$([ "$EXPECT_BACKEND" = bpf-lsm ] && echo lsm || echo rec)"-*/wd_rings; do
		[ -e "$m" ] || continue
		n=$((n + $("$BIN/bpftool" -j map dump pinned "$m" | grep -o '"key"' | wc -l)))
	done
	echo "$n"
}

# run_denied NAME: a run through wardend of cat on a file the policy does not let it read, its
# records in $WD_OUT/NAME.audit; waits for its exit record and sets $sb.
run_denied() {
	echo secret > "$T/$1.secret"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc"],"exec":["/usr/bin","/bin","%s"]}}\n' \
		"$LOADER" > "$T/deny.json"
	touch "$WD_OUT/$1.audit"
	reply=$(ctl "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/deny.json\",\"audit\":\"$WD_OUT/$1.audit\",\"stderr\":\"$T/$1.err\",\"argv\":[\"cat\",\"$T/$1.secret\"]}")
	case $reply in *'"ok":true'*) ;; *) fail "run $1 refused: $reply" ;; esac
	sb=$(record_field "$reply" sandbox)
	wait_record "$WD_OUT/$1.audit" '"type":"exit"' "$daemon" > /dev/null
}

# wardend lends each supervisor one of its rings and takes it back when the run ends in order,
# so runs one after another add no ring once its pool's are made (each change of wd_rings waits an RCU grace period) and
# each run's audit stream holds its own sandbox's records, none of the run before on that ring.
# A ring whose supervisor crashed stays with that sandbox: the next run gets another.
test_runs_through_wardend_reuse_rings_and_keep_their_records_apart() {
	local n sbs=() i
	start_daemon "$T/d.log"
	for i in 1 2 3 4 5 6; do
		run_denied "r$i"
		sbs+=("$sb")
		grep -q "\"sandbox\":\"$sb\",\"type\":\"file\".*\"target\":\"$T/r$i.secret\",\"verdict\":\"deny\"" \
			"$WD_OUT/r$i.audit" || fail "run $i has no record of its denied read: $(cat "$WD_OUT/r$i.audit")"
		[ "$(grep -vc "\"sandbox\":\"$sb\"" "$WD_OUT/r$i.audit")" = 0 ] ||
			fail "run $i's audit holds another sandbox's records: $(grep -v "\"sandbox\":\"$sb\"" "$WD_OUT/r$i.audit")"
	done
	# as many rings as its pool has cgroups (4 by default), made ahead while it waited, and
	# each in the set's wd_rings. (Not a count of wd_rings before and after: it also holds
	# the rings of a wardend killed earlier, which the set empties in the background once it
	# idles, whenever that is: a count taken meanwhile could say anything.)
	n=$(record_field "$(ctl '{"op":"status"}')" made)
	[ -n "$n" ] && [ "$n" -ge 1 ] && [ "$n" -le 4 ] ||
		fail "six runs one after another left ${n:-no} rings, not 1 to 4"
	[ "$(rings_in_use)" -ge "$n" ] ||
		fail "wardend's $n rings are not all in wd_rings: $(rings_in_use) there"
	# a crashed supervisor's ring is its sandbox's: the run after it is on another ring
	run_held
	held=$sb
	kill -KILL "$supervisor"
	line=$(held_again)
	run_denied after_crash
	[ "$(grep -c "\"sandbox\":\"$held\"" "$WD_OUT/after_crash.audit")" = 0 ] ||
		fail "the run after a crash got the crashed run's records"
	decide deny "$line" > /dev/null || fail "deny failed"
	wait_record "$WD_OUT/audit" "\"sandbox\":\"$held\",\"type\":\"exit\"" "$daemon" > /dev/null
	[ "$(grep -c "\"sandbox\":\"$sb\"" "$WD_OUT/audit")" = 0 ] ||
		fail "the taken-over sandbox's stream got the next run's records"
	stop_daemon
}

# The request envelope: an id echoed in the reply, a key no operation has refused by name, a
# relative policy path refused, and a bad policy refused before anything starts, with the
# field's JSON pointer in the reply rather than in a stderr file.
test_wardend_echoes_ids_and_refuses_unknown_keys_and_bad_policies_up_front() {
	start_daemon "$T/d.log"
	expect_eq "status id" "$(ctl '{"op":"status","id":"s1","extra":1}')" \
		'{"ok":false,"error":"status: unknown key \"extra\"","code":"unknown_key","key":"extra","id":"s1","v":1}'
	case $(ctl '{"op":"list","id":7}') in
	'{"sandboxes":[],"ok":true,"id":7,"v":1}') ;;
	*) fail "list did not echo its id: $(ctl '{"op":"list","id":7}')" ;;
	esac
	case $(ctl '{"op":"run","id":"r1","policy":"cli","argv":["true"],"stdni":"x"}') in
	*'"code":"unknown_key","key":"stdni","id":"r1"'*) ;;
	*) fail "an unknown run key was not refused by name" ;;
	esac
	case $(ctl '{"op":"run","policy":"policies/p.json","argv":["true"]}') in
	*'must be a policy (a JSON object), a template name or a policy file'*'"code":"bad_request"'*) ;;
	*) fail "a relative policy path was not refused" ;;
	esac
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr"],"exec":[5]}}\n' > "$T/bad.json"
	reply=$(ctl "{\"op\":\"run\",\"id\":\"b\",\"policy\":\"$T/bad.json\",\"argv\":[\"true\"]}")
	case $reply in
	*'"code":"bad_policy"'*'"pointer":"/fs/exec/0"'*'"id":"b"'*) ;;
	*) fail "a bad policy's field was not named: $reply" ;;
	esac
	expect_eq "supervisors after refusals" "$(ctl '{"op":"status"}' | grep -o '"supervisors":[0-9]*')" '"supervisors":0'
	stop_daemon
}

# "wait": the run's end comes on the same connection, after its "ok", as an exit event with the
# run report; an inline policy (a JSON object) needs no file the daemon can read.
test_a_run_with_an_inline_policy_and_wait_gets_its_report_on_the_connection() {
	local pol lines ok ev
	start_daemon "$T/d.log"
	echo secret > "$T/secret"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc"],"exec":["/usr/bin","/bin","%s"]}}' "$LOADER")
	lines=$(timeout 120 "$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" \
		"{\"op\":\"run\",\"id\":42,\"wait\":true,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"cat $T/secret; exit 3\"]}" 2) ||
		fail "no reply"
	ok=$(echo "$lines" | sed -n 1p)
	ev=$(echo "$lines" | sed -n 2p)
	case $ok in '{"ok":true,"sandbox":"sb-'*'"id":42,"v":1}') ;; *) fail "first line: $ok" ;; esac
	case $ev in '{"event":"exit","sandbox":"sb-'*'"code":3,"report":{'*'"status":"completed"'*'"exit_code":3'*'"id":42,"v":1}') ;;
	*) fail "exit event: $ev" ;;
	esac
	case $ev in *'"denials":0'*) fail "the denied read is not in the report: $ev" ;; esac
	# the inline policy and the daemon's own report file are gone with the run
	[ -z "$(find "$WARDEN_RUN_DIR/policies" "$WARDEN_RUN_DIR/reports" -type f 2>/dev/null)" ] ||
		fail "left behind: $(find "$WARDEN_RUN_DIR/policies" "$WARDEN_RUN_DIR/reports" -type f)"
	stop_daemon
}

# --backend: the backend of the runs that name none, whose program set wardend holds. Landlock,
# which in the VM is not what auto chooses (bpf-lsm), so the default is seen to apply.
test_wardend_backend_is_the_backend_of_runs_that_name_none() {
	local rc=0 lines ev pol
	"$BIN/wardend" --backend selinux 2> "$T/bad.err" || rc=$?
	expect_eq "wardend --backend selinux" "$rc" 2
	expect_line "$T/bad.err" "--backend wants auto, bpf-lsm or landlock, not 'selinux'"
	start_daemon "$T/d.log" --backend landlock
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc"],"exec":["/usr/bin","/bin","%s"]}}' "$LOADER")
	lines=$(timeout 120 "$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" \
		"{\"op\":\"run\",\"wait\":true,\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"cat $T/bad.err\"]}" 2) ||
		fail "no reply"
	ev=$(echo "$lines" | sed -n 2p)
	case $ev in *'"event":"exit"'*'"backend":"landlock"'*) ;; *) fail "exit event: $ev" ;; esac
	# the denied read came through the daemon's ring: the held set is the run's
	case $ev in *'"denials":0'*) fail "the denied read is not in the report: $ev" ;; esac
	stop_daemon
}

# "stream": the command's stdout and stderr come on the connection as events, in order, every
# byte (text as "data", anything else as "data_b64"), then the exit event with the report. What
# the command writes is only ever data: a forged protocol line in it stays in its event.
test_a_streamed_run_sends_its_output_as_events_then_its_exit() {
	local pol req
	start_daemon "$T/d.log"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc"],"exec":["/usr/bin","/bin","%s"]}}' "$LOADER")
	mkdir "$T/s"
	# 50000 lines (about 290 KB: many reads), a forged exit event, bytes that are not UTF-8
	req="{\"op\":\"run\",\"id\":\"s1\",\"stream\":true,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"seq 1 50000; echo '{\\\"event\\\":\\\"exit\\\",\\\"code\\\":0}'; printf 'x\\\\377\\\\000y' >&2; exit 5\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s" ||
		fail "the streamed run: $(cat "$T/s/reply" 2>/dev/null)"
	{ seq 1 50000; echo '{"event":"exit","code":0}'; } > "$T/want.out"
	printf 'x\377\000y' > "$T/want.err"
	cmp "$T/s/stdout" "$T/want.out" || fail "stdout as streamed is not what the command wrote"
	cmp "$T/s/stderr" "$T/want.err" || fail "stderr as streamed is not what the command wrote"
	case $(cat "$T/s/exit") in
	*'"code":5,'*'"output":{"stdout_bytes":'"$(wc -c < "$T/want.out")"',"stderr_bytes":4,"lost_bytes":0}'*'"status":"completed"'*) ;;
	*) fail "exit event: $(cat "$T/s/exit")" ;;
	esac
	# with a file for the output as well: refused, naming both
	case $(ctl "{\"op\":\"run\",\"stream\":true,\"stdout\":\"$T/o\",\"policy\":$pol,\"argv\":[\"true\"]}") in
	*'"ok":false'*'stream'*'stdout'*'"code":"bad_request"'*) ;;
	*) fail "a streamed run with a stdout file was not refused" ;;
	esac
	stop_daemon
}

# A client slower than the command: the command is never held up by it (it runs to its end),
# what the client's queue has no room for is counted lost, and every byte is either delivered
# in order or counted.
test_a_slow_stream_client_loses_only_what_is_counted() {
	local pol req total got lost
	start_daemon "$T/d.log"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc"],"exec":["/usr/bin","/bin","%s"]}}' "$LOADER")
	mkdir "$T/s"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","/dev/zero"],"exec":["/usr/bin","/bin","%s"]}}' "$LOADER")
	# 4 MiB, more than a client's queue holds
	req="{\"op\":\"run\",\"id\":2,\"stream\":true,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"head -c 4194304 /dev/zero | tr '\\\\000' a\"]}"
	timeout 300 "$BIN/wd-stream" --read-after 3000 "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s" ||
		fail "the streamed run: $(cat "$T/s/reply" 2>/dev/null)"
	got=$(sed -n 's/.*"stdout_bytes":\([0-9]*\).*/\1/p' "$T/s/exit")
	lost=$(sed -n 's/.*"lost_bytes":\([0-9]*\).*/\1/p' "$T/s/exit")
	expect_eq "bytes delivered and counted lost" "$((got + lost))" 4194304
	expect_eq "bytes the client has" "$(wc -c < "$T/s/stdout")" "$got"
	[ -z "$(tr -d a < "$T/s/stdout")" ] || fail "bytes the command did not write came"
	case $(cat "$T/s/exit") in *'"status":"completed"'*) ;; *) fail "exit event: $(cat "$T/s/exit")" ;; esac
	stop_daemon
}

# A streamed run whose supervisor crashes: wardend takes the sandbox over and the output the
# command writes after the crash still comes to the same client, then the exit event.
test_a_streamed_run_taken_over_after_a_crash_streams_on() {
	local pol req sup
	start_daemon "$T/d.log"
	mkdir "$T/s" "$T/w"
	mkfifo "$T/w/ready" "$T/w/go"
	touch "$T/s/reply"
	# wd-try is linked dynamically: its libraries are mapped for execution (fs.exec on bpf-lsm)
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s/w"],"exec":["/usr/bin","/bin","%s","%s","%s"]}}' "$BIN" "$T" "$BIN" "$LOADER" "${LIBDIRS// /\",\"}")
	req="{\"op\":\"run\",\"id\":3,\"stream\":true,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"echo before; $BIN/wd-try gate $T/w/ready $T/w/go; echo after\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s" 2> "$T/sw.err" &
	sw=$!
	trap 'kill -KILL $daemon $sw 2>/dev/null || true' EXIT
	# opened read-write, so a command that never gets there cannot block the open itself
	read -r -t 120 _ <> "$T/w/ready" ||
		fail "the command never reached its gate: $(cat "$T/sw.err" "$T/s/stdout" "$T/s/stderr" 2>&1)"
	"$BIN/wd-try" wait-line "$T/s/reply" '"ok":true' "$sw" > /dev/null || fail "no reply: $(cat "$T/sw.err")"
	sup=$(record_field "$(cat "$T/s/reply")" supervisor)
	kill -KILL "$sup"
	"$BIN/wd-try" wait-line "$T/d.log" "taking sb-" "$daemon" > /dev/null || fail "not taken over"
	: > "$T/w/go"
	wait "$sw" || fail "the stream did not end with its exit event: $(cat "$T/sw.err")"
	expect_eq "stdout streamed over the crash" "$(cat "$T/s/stdout")" "before
ok
after"
	case $(cat "$T/s/exit") in *'"taken_over":true'*'"lost_bytes":0'*) ;; *) fail "exit event: $(cat "$T/s/exit")" ;; esac
	stop_daemon
}

# "holds":"return": a hold ends the run's request with {"status":"held","token":T,...} while the
# process waits in the kernel; a resume with T, on another connection, decides it, and the run
# goes on there: its output, then its exit. Nothing ran twice: the delete happened once, after
# the approval. A token that is no hold's, or one used already, is refused.
test_a_run_whose_holds_return_is_resumed_on_another_connection() {
	local pol req token res
	start_daemon "$T/d.log"
	mkdir -p "$T/app/src" "$T/s1" "$T/s2" "$T/s3"
	echo a > "$T/app/src/a"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s"],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}' "$T" "$T" "$LOADER" "$T")
	req="{\"op\":\"run\",\"id\":1,\"stream\":true,\"holds\":\"return\",\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"echo start; rm -rf $T/app; echo rm=\$?; exit 6\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s1" ||
		fail "the run: $(cat "$T/s1/reply" 2>/dev/null)"
	case $(cat "$T/s1/held") in
	'{"status":"held","sandbox":"sb-'*'"token":"'*'"hold":{'*'"op":"'*'"id":1,"v":1}') ;;
	*) fail "the request did not end held: $(cat "$T/s1/held")" ;;
	esac
	token=$(sed -n 's/.*"status":"held","sandbox":"[^"]*","token":"\([^"]*\)".*/\1/p' "$T/s1/held")
	[ -n "$token" ] || fail "no token in $(cat "$T/s1/held")"
	expect_eq "stdout before the hold" "$(cat "$T/s1/stdout")" "start"
	[ -e "$T/app/src/a" ] || fail "the held delete ran before anyone decided"
	# a token that is no hold's
	case $(ctl '{"op":"resume","token":"forged","resolution":"approve"}') in
	*'"ok":false'*'"code":"not_found"'*) ;; *) fail "a forged token was not refused" ;;
	esac
	case $(ctl "{\"op\":\"resume\",\"token\":\"$token\",\"resolution\":\"maybe\"}") in
	*'"ok":false'*'resolution'*'"code":"bad_request"'*) ;; *) fail "a bad resolution was not refused" ;;
	esac
	[ -e "$T/app/src/a" ] || fail "a refused resume let the delete run"
	res="{\"op\":\"resume\",\"id\":\"r\",\"token\":\"$token\",\"resolution\":\"approve\",\"scope\":\"sandbox\",\"subtree\":\"$T/app\"}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$res" "$T/s2" ||
		fail "the resume: $(cat "$T/s2/reply" 2>/dev/null)"
	case $(cat "$T/s2/reply") in '{"ok":true,"sandbox":"sb-'*'"id":"r","v":1}') ;; *) fail "resume reply: $(cat "$T/s2/reply")" ;; esac
	expect_eq "stdout after the resume" "$(cat "$T/s2/stdout")" "rm=0"
	case $(cat "$T/s2/exit") in *'"code":6,'*'"status":"completed"'*) ;; *) fail "exit event: $(cat "$T/s2/exit")" ;; esac
	[ ! -e "$T/app" ] || fail "the approved delete did not happen"
	# used once: the same token again finds nothing
	case $(ctl "{\"op\":\"resume\",\"token\":\"$token\",\"resolution\":\"approve\"}") in
	*'"ok":false'*'"code":"not_found"'*) ;; *) fail "a used token was accepted again" ;;
	esac
	stop_daemon
}

# Held as a result, then wardend dies (SIGKILL: its supervisors die with it, the keeper keeps
# the sandbox and the read ends of the command's output). The token it gave out resumes the
# run on the next wardend: the successor signs the call it asks again with the run's own key,
# and hands over the output pipes and the report file. A resume sent at once waits for the
# take-over. The rest of the output and the exit come on the resume's connection; the delete
# happened once; the token is used up.
test_a_run_held_as_a_result_is_resumed_after_a_wardend_restart() {
	local pol req token res supervisor sb
	start_daemon "$T/d1.log"
	mkdir -p "$T/app/src" "$T/s1" "$T/s2"
	echo a > "$T/app/src/a"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s"],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}' "$T" "$T" "$LOADER" "$T")
	req="{\"op\":\"run\",\"id\":1,\"stream\":true,\"holds\":\"return\",\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"echo start; rm -rf $T/app; echo rm=\$?; echo done >&2; exit 6\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s1" ||
		fail "the run: $(cat "$T/s1/reply" 2>/dev/null)"
	token=$(sed -n 's/.*"status":"held","sandbox":"[^"]*","token":"\([^"]*\)".*/\1/p' "$T/s1/held")
	sb=$(sed -n 's/.*"status":"held","sandbox":"\([^"]*\)".*/\1/p' "$T/s1/held")
	[ -n "$token" ] && [ -n "$sb" ] || fail "not held: $(cat "$T/s1/held")"
	supervisor=$(ctl '{"op":"list"}' | grep -o "\"sandbox\":\"$sb\",\"supervisor\":[0-9]*" |
		sed 's/.*://')
	[ -n "$supervisor" ] || fail "wardend does not list $sb"
	kill -KILL "$daemon"
	wait "$daemon" 2>/dev/null || true
	timeout 60 "$BIN/wd-try" wait-exit "$supervisor" > /dev/null ||
		fail "the run's supervisor outlived wardend"
	[ -e "$T/app/src/a" ] || fail "the held delete ran after wardend died"
	start_daemon "$T/d2.log"
	res="{\"op\":\"resume\",\"id\":\"r\",\"token\":\"$token\",\"resolution\":\"approve\",\"scope\":\"sandbox\",\"subtree\":\"$T/app\"}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$res" "$T/s2" ||
		fail "the resume after the restart: $(cat "$T/s2/reply" 2>/dev/null)"
	case $(cat "$T/s2/reply") in '{"ok":true,"sandbox":"'"$sb"'","id":"r","v":1}') ;; *) fail "resume reply: $(cat "$T/s2/reply")" ;; esac
	expect_line "$T/d2.log" "taking $sb over"
	expect_eq "stdout after the resume" "$(cat "$T/s2/stdout")" "rm=0"
	expect_eq "stderr after the resume" "$(cat "$T/s2/stderr")" "done"
	case $(cat "$T/s2/exit") in
	*'"taken_over":true'*'"report":{'*'"writer":"adopt"'*'"sandbox":"'"$sb"'"'*) ;;
	*) fail "exit event after the restart: $(cat "$T/s2/exit")" ;;
	esac
	[ ! -e "$T/app" ] || fail "the approved delete did not happen"
	case $(ctl "{\"op\":\"resume\",\"token\":\"$token\",\"resolution\":\"approve\"}") in
	*'"ok":false'*'"code":"not_found"'*) ;; *) fail "a used token was accepted again" ;;
	esac
	stop_daemon
}

# Attack: the sandbox rewrites the held call's path in its own memory (another thread) before
# wardend dies. The successor reads the call again and sees the new path: the token the old
# wardend gave out for the old path does not approve it; the new path is asked about anew.
test_a_token_given_before_a_restart_does_not_approve_a_call_rewritten_meanwhile() {
	local pol req token res sb supervisor holds tok2 libs= dir
	# a helper: its libraries are mapped for execution, which bpf-lsm checks against fs.exec
	for dir in $LIBDIRS; do libs="$libs,\"$dir\""; done
	start_daemon "$T/d1.log"
	mkdir -p "$T/app" "$T/s1" "$T/s2"
	echo 1 > "$T/app/x1"
	echo 2 > "$T/app/x2"
	mkfifo "$T/go" "$T/ack"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s","%s"%s],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}' "$T" "$BIN" "$T" "$BIN" "$LOADER" "$libs" "$T")
	req="{\"op\":\"run\",\"id\":2,\"stream\":true,\"holds\":\"return\",\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"$BIN/wd-hold\",\"unlink-swap\",\"$T/app/x1\",\"$T/app/x2\",\"$T/go\",\"$T/ack\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s1" ||
		fail "the run: $(cat "$T/s1/reply" 2>/dev/null)"
	case $(cat "$T/s1/held" 2>/dev/null) in *'"target":"'"$T/app/x1"'"'*) ;; *) fail "not held on x1: $(cat "$T/s1/"* 2>&1)" ;; esac
	token=$(sed -n 's/.*"status":"held","sandbox":"[^"]*","token":"\([^"]*\)".*/\1/p' "$T/s1/held")
	sb=$(sed -n 's/.*"status":"held","sandbox":"\([^"]*\)".*/\1/p' "$T/s1/held")
	supervisor=$(ctl '{"op":"list"}' | grep -o "\"sandbox\":\"$sb\",\"supervisor\":[0-9]*" |
		sed 's/.*://')
	echo go > "$T/go"
	expect_eq "the sandbox rewrote the path" "$(cat "$T/ack")" "swapped"
	kill -KILL "$daemon"
	wait "$daemon" 2>/dev/null || true
	timeout 60 "$BIN/wd-try" wait-exit "$supervisor" > /dev/null ||
		fail "the run's supervisor outlived wardend"
	start_daemon "$T/d2.log"
	case $(ctl "{\"op\":\"resume\",\"token\":\"$token\",\"resolution\":\"approve\"}") in
	*'"ok":false'*'"code":"not_found"'*) ;; *) fail "the old token approved the rewritten call" ;;
	esac
	[ -e "$T/app/x1" ] && [ -e "$T/app/x2" ] || fail "a delete ran on the old token"
	holds=$(ctl "{\"op\":\"holds\",\"sandbox\":\"$sb\"}")
	case $holds in *'"target":"'"$T/app/x2"'"'*) ;; *) fail "the rewritten call is not held anew: $holds" ;; esac
	tok2=$(printf '%s' "$holds" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
	[ -n "$tok2" ] && [ "$tok2" != "$token" ] || fail "no new token: $holds"
	res="{\"op\":\"resume\",\"id\":3,\"token\":\"$tok2\",\"resolution\":\"approve\"}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$res" "$T/s2" ||
		fail "the resume of the new hold: $(cat "$T/s2/reply" 2>/dev/null)"
	expect_eq "the unlink" "$(cat "$T/s2/stdout")" "ok"
	[ -e "$T/app/x1" ] || fail "x1 was deleted: the call asked about was x2"
	[ ! -e "$T/app/x2" ] || fail "the approved delete of x2 did not happen"
	stop_daemon
}

# "pty": the command's stdin, stdout and stderr are a terminal of the size asked; what it writes
# comes as stdout events (the terminal's echo of its input too), and stdin requests type into it.
# TIOCSTI from inside is refused. A pty with an output file, or a bad size, is refused naming
# the key.
test_a_run_with_a_pty_gets_a_terminal_and_streams_it() {
	local pol req sb stream
	start_daemon "$T/d.log"
	mkdir -p "$T/s"
	touch "$T/s/reply"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s","%s","%s"]}}' "$T" "$BIN" "$T" "$BIN" "$LOADER" "${LIBDIRS// /\",\"}")
	case $(ctl "{\"op\":\"run\",\"pty\":true,\"stdout\":\"$T/o\",\"policy\":$pol,\"argv\":[\"true\"]}") in
	*'"ok":false'*'with \"pty\"'*'no \"stdout\"'*) ;; *) fail "a pty with an output file was not refused" ;;
	esac
	case $(ctl "{\"op\":\"run\",\"pty\":{\"rows\":0},\"policy\":$pol,\"argv\":[\"true\"]}") in
	*'"ok":false'*'"code":"bad_request"'*) ;; *) fail "a pty of 0 rows was not refused" ;;
	esac
	req="{\"op\":\"run\",\"id\":5,\"pty\":{\"rows\":30,\"cols\":100},\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"test -t 0 && test -t 1 && test -t 2 && echo tty-yes; stty size; echo sti=\$($BIN/wd-pty attack sti INJECTED); read l; echo got-\$l; exit 4\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s" 2> "$T/s.err" &
	stream=$!
	timeout 60 "$BIN/wd-try" wait-line "$T/s/reply" '"ok":true' $stream > /dev/null ||
		fail "the run: $(cat "$T/s/reply" "$T/s.err" 2>/dev/null)"
	sb=$(record_field "$(cat "$T/s/reply")" sandbox)
	case $(ctl "{\"op\":\"stdin\",\"sandbox\":\"$sb\",\"data\":\"hello\\n\"}") in
	*'"ok":true'*) ;; *) fail "stdin into the terminal was refused" ;;
	esac
	wait $stream || fail "the stream: $(cat "$T/s/reply")"
	grep -q 'tty-yes' "$T/s/stdout" || fail "stdin, stdout and stderr are not a terminal: $(cat "$T/s/stdout")"
	grep -q '^30 100' "$T/s/stdout" || fail "the terminal's size: $(cat "$T/s/stdout")"
	grep -q 'got-hello' "$T/s/stdout" || fail "the typed line: $(cat "$T/s/stdout")"
	# the attack: typing into its terminal from inside (TIOCSTI) is refused, as on warden run's
	grep -q 'sti=E' "$T/s/stdout" || fail "TIOCSTI from inside the sandbox: $(cat "$T/s/stdout")"
	grep -q 'INJECTED' "$T/s/stdout" && fail "TIOCSTI typed into the terminal: $(cat "$T/s/stdout")"
	case $(cat "$T/s/exit") in *'"code":4,'*) ;; *) fail "exit event: $(cat "$T/s/exit")" ;; esac
	stop_daemon
}

# A "pty" run outlives its supervisor and its wardend: the successor relays the command's own
# terminal (the keeper kept its master) into a pipe that wardend reads as the run's stdout, so
# the output goes on streaming, on the run's connection after a supervisor's crash and to an
# attach after wardend's restart; none of it reaches wardend's own log.
test_a_pty_run_streams_on_after_its_supervisor_and_its_wardend_die() {
	local pol req sup sb
	start_daemon "$T/d1.log"
	mkdir "$T/s1" "$T/s2" "$T/w"
	mkfifo "$T/w/r1" "$T/w/g1" "$T/w/r2" "$T/w/g2"
	touch "$T/s1/reply" "$T/s2/reply"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s/w"],"exec":["/usr/bin","/bin","%s","%s","%s"]}}' "$BIN" "$T" "$BIN" "$LOADER" "${LIBDIRS// /\",\"}")
	req="{\"op\":\"run\",\"id\":7,\"pty\":true,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"echo before-crash; $BIN/wd-try gate $T/w/r1 $T/w/g1; echo after-crash; $BIN/wd-try gate $T/w/r2 $T/w/g2; echo after-restart; exit 4\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s1" 2> "$T/s1.err" &
	local sw=$!
	trap 'kill -KILL $daemon $sw 2>/dev/null || true' EXIT
	read -r -t 120 _ <> "$T/w/r1" || fail "the command never reached its first gate: $(cat "$T/s1.err")"
	"$BIN/wd-try" wait-line "$T/s1/reply" '"ok":true' "$sw" > /dev/null || fail "no reply: $(cat "$T/s1.err")"
	sup=$(record_field "$(cat "$T/s1/reply")" supervisor)
	sb=$(record_field "$(cat "$T/s1/reply")" sandbox)
	kill -KILL "$sup"
	"$BIN/wd-try" wait-line "$T/d1.log" "taking $sb over" "$daemon" > /dev/null || fail "not taken over"
	: > "$T/w/g1"
	read -r -t 120 _ <> "$T/w/r2" || fail "the command never reached its second gate"
	"$BIN/wd-try" wait-line "$T/s1/stdout" 'after-crash' "$sw" > /dev/null ||
		fail "the terminal's output did not go on after the supervisor's crash: $(cat "$T/s1/stdout" "$T/s1.err")"
	grep -q 'before-crash' "$T/s1/stdout" || fail "lost what came before the crash: $(cat "$T/s1/stdout")"
	kill -KILL "$daemon"
	wait "$daemon" 2>/dev/null || true
	wait "$sw" 2>/dev/null && fail "the stream ended as if the run had"
	start_daemon "$T/d2.log"
	"$BIN/wd-try" wait-line "$T/d2.log" "taking $sb over" "$daemon" > /dev/null || fail "not taken over again"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "{\"op\":\"attach\",\"id\":8,\"sandbox\":\"$sb\"}" "$T/s2" 2> "$T/s2.err" &
	sw=$!
	"$BIN/wd-try" wait-line "$T/s2/reply" '"ok":true' "$sw" > /dev/null || fail "attach: $(cat "$T/s2/reply" "$T/s2.err")"
	: > "$T/w/g2"
	wait "$sw" || fail "the attach did not end with the exit event: $(cat "$T/s2.err")"
	grep -q 'after-restart' "$T/s2/stdout" || fail "the terminal's output did not go on after wardend's restart: $(cat "$T/s2/stdout")"
	# the run's own code, as its report has it (4, or unknown where the sandbox had no init)
	case $(cat "$T/s2/exit") in
	*'"code":4,"taken_over":true'*'"exit_code":4,'*) ;;
	*'"code":0,"taken_over":true'*'"exit_code":0,'*'"unknown":["status","exit_code"'*) ;;
	*) fail "exit event: $(cat "$T/s2/exit")" ;;
	esac
	! grep -q 'after-\|before-crash' "$T/d1.log" "$T/d2.log" || fail "the command's terminal reached wardend's log"
	stop_daemon
}

# "holds":"events": the run's connection gets each hold as an event and goes on waiting; a
# resume from another connection decides it, and the first connection gets the decision, the
# rest of the output and the exit (the resuming one only its answer).
test_a_run_with_hold_events_is_decided_by_a_resume_elsewhere() {
	local pol req sw token
	start_daemon "$T/d.log"
	mkdir -p "$T/app" "$T/s"
	echo a > "$T/app/a"
	touch "$T/s/holds"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s"],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}' "$T" "$T" "$LOADER" "$T")
	req="{\"op\":\"run\",\"id\":5,\"stream\":true,\"holds\":\"events\",\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"rm $T/app/a; echo rm=\$?\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s" 2> "$T/sw.err" &
	streamer=$!
	trap 'kill -KILL $daemon $streamer 2>/dev/null || true' EXIT
	"$BIN/wd-try" wait-line "$T/s/holds" '"event":"hold"' "$streamer" > /dev/null ||
		fail "no hold event: $(cat "$T/sw.err")"
	token=$(sed -n 's/.*"token":"\([^"]*\)".*/\1/p' "$T/s/holds" | head -n1)
	reply=$(ctl "{\"op\":\"resume\",\"id\":6,\"token\":\"$token\",\"resolution\":\"deny\"}")
	case $reply in '{"ok":true,"sandbox":"sb-'*'"id":6,"v":1}') ;; *) fail "resume: $reply" ;; esac
	wait "$streamer" || fail "the run's connection did not end with its exit: $(cat "$T/sw.err")"
	expect_line "$T/s/holds" '"event":"decision"' '"allow":false'
	case $(cat "$T/s/stdout") in rm=0) fail "rm says it deleted a denied file" ;; rm=*) ;; *) fail "stdout: $(cat "$T/s/stdout")" ;; esac
	[ -e "$T/app/a" ] || fail "the denied delete ran"
	[ -s "$T/s/exit" ] || fail "no exit event on the run's connection"
	stop_daemon
}

# A run request's "stdin" (what the command reads, then end of file), "env" (variables set for
# it, over the policy's) and "timeout_ms" (its wall time): as warden run's --env and --limit.
test_a_run_request_gives_stdin_env_and_a_timeout() {
	local pol req
	start_daemon "$T/d.log"
	mkdir "$T/s" "$T/s2"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc"],"exec":["/usr/bin","/bin","%s"]}}' "$LOADER")
	req="{\"op\":\"run\",\"id\":1,\"stream\":true,\"stdin\":\"from the harness\\nsecond\\n\",\"env\":{\"GREETING\":\"hi there\"},\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"read x; echo \\\"\$GREETING: \$x\\\"; cat; echo eof\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s" ||
		fail "the run: $(cat "$T/s/reply" 2>/dev/null)"
	expect_eq "what the command read, and its variable" "$(cat "$T/s/stdout")" "hi there: from the harness
second
eof"
	req="{\"op\":\"run\",\"id\":2,\"stream\":true,\"timeout_ms\":1000,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sleep\",\"600\"]}"
	timeout 120 "$BIN/wd-stream" "$WARDEN_RUN_DIR/control.sock" "$req" "$T/s2" ||
		fail "the run: $(cat "$T/s2/reply" 2>/dev/null)"
	case $(cat "$T/s2/exit") in *'"status":"timeout"'*) ;; *) fail "exit event: $(cat "$T/s2/exit")" ;; esac
	case $(ctl "{\"op\":\"run\",\"env\":{\"A\":1},\"policy\":$pol,\"argv\":[\"true\"]}") in
	*'"ok":false'*'env'*'"code":"bad_request"'*) ;; *) fail "a number in env was not refused" ;;
	esac
	case $(ctl "{\"op\":\"run\",\"timeout_ms\":0.5,\"policy\":$pol,\"argv\":[\"true\"]}") in
	*'"ok":false'*'timeout_ms'*'"code":"bad_request"'*) ;; *) fail "a timeout of 0.5 ms was not refused" ;;
	esac
	stop_daemon
}

# A streamed run's client goes mid-run: the run goes on; a client that attaches by sandbox id
# gets what was written meanwhile (kept, up to its bound), then the rest and the exit event.
test_a_client_that_went_reattaches_and_gets_what_it_missed() {
	local pol req
	start_daemon "$T/d.log"
	mkfifo "$T/f1" "$T/f2"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s"]}}' "$T" "$T" "$LOADER")
	req="{\"op\":\"run\",\"id\":\"r\",\"stream\":true,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"echo a; read x < $T/f1; echo b; read y < $T/f2; echo c; exit 4\"]}"
	# the reply and the first line, then this client is gone
	"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$req" 2 > "$T/c1"
	grep -q '"data":"a\\n"' "$T/c1" || fail "the first client: $(cat "$T/c1")"
	sb=$(record_field "$(head -1 "$T/c1")" sandbox)
	# written while nobody listens
	echo go > "$T/f1"
	"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "{\"op\":\"attach\",\"id\":\"a\",\"sandbox\":\"$sb\"}" \
		'until="event":"exit"' > "$T/c2" &
	client=$!
	timeout 60 "$BIN/wd-try" wait-line "$T/c2" '"missed_bytes"' "$client" > /dev/null ||
		fail "no attach reply: $(cat "$T/c2")"
	echo go > "$T/f2"
	wait "$client" || fail "the attached client: $(cat "$T/c2")"
	# what it missed and what came after, in order, then the end: all with its own id
	expect_eq "the attached client's output" \
		"$(grep '"event":"stdout"' "$T/c2" | sed 's/.*"data":"\([^"]*\)".*/\1/' | tr -d '\n')" 'b\nc\n'
	grep '"event":"exit"' "$T/c2" | grep -q '"code":4.*"id":"a"' || fail "exit event: $(cat "$T/c2")"
	# an attach to no sandbox is refused
	case $(ctl '{"op":"attach","sandbox":"sb-00000000"}') in
	*'"code":"not_found"'*) ;;
	*) fail "attach to no sandbox was not refused" ;;
	esac
	stop_daemon
}

# "on_disconnect":"kill": the run ends with its client (its supervisor kills it, its records say so).
test_a_run_that_asked_ends_with_its_client() {
	local pol req
	start_daemon "$T/d.log"
	touch "$WD_OUT/audit"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc"],"exec":["/usr/bin","/bin","%s"]}}' "$LOADER")
	req="{\"op\":\"run\",\"stream\":true,\"on_disconnect\":\"kill\",\"backend\":\"$BACKEND\",\"audit\":\"$WD_OUT/audit\",\"policy\":$pol,\"argv\":[\"sleep\",\"300\"]}"
	"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$req" 1 > "$T/c1"
	wait_record "$WD_OUT/audit" '"type":"exit"' "$daemon" > /dev/null
	expect_line "$WD_OUT/audit" '"type":"exit"' '"status":"signal"'
	case $(ctl '{"op":"run","policy":"cli","argv":["true"],"on_disconnect":"later"}') in
	*'"code":"bad_request"'*'on_disconnect'*) ;;
	*'on_disconnect'*'"code":"bad_request"'*) ;;
	*) fail "a bad on_disconnect was not refused" ;;
	esac
	stop_daemon
}

# 50 sandboxes at once, each with an inline policy of its own (its own tree writable, the
# others' denied), all on one connection: each reply and exit event carries its request's id,
# and each report is its own run's (its sandbox, its exit code, its denial).
test_fifty_concurrent_sandboxes_with_their_own_policies_all_report_right() {
	local reqs= i pol
	start_daemon "$T/d.log"
	for i in $(seq 1 50); do
		mkdir -p "$T/t$i"
		pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s/t%s"],"write":["%s/t%s"],"exec":["/usr/bin","/bin","%s"]}}' "$T" "$i" "$T" "$i" "$LOADER")
		# writes its own tree, tries the next one's, exits with its number
		reqs="$reqs{\"op\":\"run\",\"id\":$i,\"wait\":true,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"echo $i > $T/t$i/out; echo x > $T/t$(( i % 50 + 1 ))/stolen; exit $i\"]}
"
	done
	timeout 300 "$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "${reqs%
}" 100 > "$T/all" || fail "no answers"
	for i in $(seq 1 50); do
		line=$(grep "\"event\":\"exit\"" "$T/all" | grep "\"id\":$i,")
		[ -n "$line" ] || fail "no exit event for run $i: $(grep "\"id\":$i," "$T/all")"
		expect_eq "run $i's code" "$(record_field "$line" code)" "$i"
		case $line in
		*'"report":{'*'"status":"completed"'*) ;;
		*) fail "run $i's report: $line" ;;
		esac
		sb=$(record_field "$(grep '"ok":true' "$T/all" | grep "\"id\":$i,")" sandbox)
		printf '%s' "$line" | grep -q "\"sandbox\":\"$sb\"" || fail "run $i's report is not its sandbox's ($sb): $line"
		printf '%s' "$line" | grep -q '"denials":[1-9]' || fail "run $i's denial is not in its report: $line"
		expect_eq "run $i's own tree" "$(cat "$T/t$i/out")" "$i"
		[ ! -e "$T/t$i/stolen" ] || fail "a run wrote into run $i's tree"
	done
	expect_eq "distinct sandboxes" "$(grep '"ok":true' "$T/all" | grep -o '"sandbox":"sb-[0-9a-f]*"' | sort -u | wc -l)" 50
	stop_daemon
}

# A run's streamed stdin: sent by stdin requests from another connection, read in order, its
# end of file at "eof"; the supervisor holds no copy of its write end (the end of file comes).
test_a_run_reads_a_streamed_stdin() {
	local pol req
	start_daemon "$T/d.log"
	pol=$(printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc"],"exec":["/usr/bin","/bin","%s"]}}' "$LOADER")
	req="{\"op\":\"run\",\"id\":\"r\",\"stream\":true,\"stdin_stream\":true,\"backend\":\"$BACKEND\",\"policy\":$pol,\"argv\":[\"sh\",\"-c\",\"read a; echo got-\$a; wc -c\"]}"
	"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$req" 'until="event":"exit"' > "$T/c" &
	client=$!
	timeout 60 "$BIN/wd-try" wait-line "$T/c" '"ok":true' "$client" > /dev/null ||
		fail "the run did not start: $(cat "$T/c")"
	sb=$(record_field "$(head -1 "$T/c")" sandbox)
	case $(ctl "{\"op\":\"stdin\",\"sandbox\":\"$sb\",\"data\":\"one\\n\"}") in
	*'"ok":true'*) ;; *) fail "stdin refused" ;; esac
	timeout 60 "$BIN/wd-try" wait-line "$T/c" 'got-one' "$client" > /dev/null ||
		fail "the command did not read it: $(cat "$T/c")"
	case $(ctl "{\"op\":\"stdin\",\"sandbox\":\"$sb\",\"data\":\"12345\",\"eof\":true}") in
	*'"ok":true'*) ;; *) fail "stdin eof refused" ;; esac
	wait "$client" || fail "the run's client: $(cat "$T/c")"
	expect_eq "what it read after the line" \
		"$(grep '"event":"stdout"' "$T/c" | sed 's/.*"data":"\([^"]*\)".*/\1/' | tr -d '\n' | tr -d ' ')" 'got-one\n5\n'
	stop_daemon
}
