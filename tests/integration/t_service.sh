# SPDX-License-Identifier: GPL-2.0
# wardend as a service: its configuration file (-n checks it, SIGHUP reloads it), sd_notify
# readiness and stopping, who may do what on control.sock (root everything, approver_group list,
# status, holds, subscribe, approve and deny, anyone else nothing), status, and on_stop "end".
# Approvers and outsiders are uids and groups no account has (wd-try as), as in t_holds_edge.
# wardend's own logic, which no kernel or backend changes: the host suite's alone
WHERE=host

sock() {
	echo "$WARDEN_RUN_DIR/control.sock"
}

ctl() {
	"$BIN/wd-try" ctl "$(sock)" "$1"
}

# ctl_as UID GID GROUPS LINE [N]: a request from another user
ctl_as() {
	"$BIN/wd-try" as "$1" "$2" "$3" "$BIN/wd-try" ctl "$(sock)" "$4" "${5:-1}"
}

stop_daemon() {
	kill -TERM "$daemon" 2>/dev/null || true
	wait "$daemon" 2>/dev/null || true
}

# A policy that lets a command run (the system's programs and the test binaries) and read the
# system, and write $T.
simple_policy() {
	policy "$T/p.json" "/etc $T" "$T" "/usr/bin /bin"
}

test_check_accepts_a_good_file_and_refuses_a_bad_one_naming_the_key() {
	printf '{"survive":60,"pool":2,"backend":"auto","approver_group":"4242","on_stop":"end"}\n' \
		> "$T/good.json"
	"$BIN/wardend" -n --config "$T/good.json" --pool 1 > "$T/out" || fail "-n refused a good file"
	expect_line "$T/out" "approver_group  4242 (gid 4242)"
	expect_line "$T/out" "on_stop         end"
	# the command line over the file
	expect_line "$T/out" "pool            1 (command line)"
	expect_line "$T/out" "survive         60 s"
	printf '{"pool":2,"aprover_group":"4242"}\n' > "$T/bad.json"
	rc=0
	"$BIN/wardend" -n --config "$T/bad.json" > /dev/null 2> "$T/err" || rc=$?
	expect_eq "bad file" "$rc" 1
	expect_line "$T/err" "$T/bad.json: unknown key \"aprover_group\""
	printf '{"pool":9}\n' > "$T/bad2.json"
	rc=0
	"$BIN/wardend" -n --config "$T/bad2.json" > /dev/null 2> "$T/err" || rc=$?
	expect_eq "bad pool" "$rc" 1
	expect_line "$T/err" "$T/bad2.json: pool: wants 0 to 8"
	# a file named on the command line must be there; a usage error is 2
	rc=0
	"$BIN/wardend" -n --config "$T/missing.json" 2> /dev/null || rc=$?
	expect_eq "missing file" "$rc" 1
	rc=0
	"$BIN/wardend" -n --bogus 2> /dev/null || rc=$?
	expect_eq "usage" "$rc" 2
}

# READY=1 only once control.sock serves (the receiver connects to it the moment READY=1
# arrives), RELOADING=1 then READY=1 around SIGHUP, STOPPING=1 on SIGTERM; and NOTIFY_SOCKET
# is not passed on to a sandbox.
test_sd_notify_says_ready_once_serving_and_stopping_on_sigterm() {
	"$BIN/wd-try" notify-recv "$T/notify" "$T/notes" "$(sock)" &
	recv=$!
	trap 'kill $recv 2>/dev/null || true; kill -KILL $daemon 2>/dev/null || true' EXIT
	touch "$T/notes"
	timeout 30 "$BIN/wd-try" wait-line "$T/notes" bound "$recv" > /dev/null
	NOTIFY_SOCKET="$T/notify" "$BIN/wardend" --pool 0 > "$T/d.log" 2>&1 &
	daemon=$!
	timeout 60 "$BIN/wd-try" wait-line "$T/notes" "READY=1" "$recv" > /dev/null ||
		fail "no READY=1: $(cat "$T/d.log")"
	expect_eq "first notes" "$(sed -n 2p "$T/notes")" "connect ok"
	expect_eq "then" "$(sed -n 3p "$T/notes")" "READY=1"
	case $(ctl '{"op":"status"}') in *'"ok":true'*) ;; *) fail "not served after READY=1" ;; esac
	simple_policy
	"$BIN/wd-try" ctl "$(sock)" "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"stdout\":\"$T/env.out\",\"wait\":true,\"argv\":[\"env\"]}" 2 > "$T/run.out"
	expect_line "$T/run.out" '"event":"exit"'
	expect_line "$T/env.out" "PATH="
	! grep -q NOTIFY_SOCKET "$T/env.out" || fail "a sandbox inherited NOTIFY_SOCKET"
	kill -HUP "$daemon"
	timeout 60 "$BIN/wd-try" wait-line "$T/notes" "RELOADING=1" "$recv" > /dev/null
	timeout 60 "$BIN/wd-try" wait-line "$T/d.log" "reloaded" "$daemon" > /dev/null
	expect_eq "ready again" "$(grep -c '^READY=1' "$T/notes")" 2
	kill -TERM "$daemon"
	wait "$daemon" || fail "wardend did not end cleanly on SIGTERM (exit $?)"
	timeout 30 "$BIN/wd-try" wait-exit "$recv" > /dev/null
	expect_line "$T/notes" "STOPPING=1"
	[ ! -e "$(sock)" ] || fail "control.sock outlived wardend"
}

# An abstract NOTIFY_SOCKET ("@name"), as systemd may give.
test_sd_notify_reaches_an_abstract_socket() {
	name="@wd-notify-$$-$RANDOM"
	"$BIN/wd-try" notify-recv "$name" "$T/notes" &
	recv=$!
	trap 'kill $recv 2>/dev/null || true; kill -KILL $daemon 2>/dev/null || true' EXIT
	touch "$T/notes"
	timeout 30 "$BIN/wd-try" wait-line "$T/notes" bound "$recv" > /dev/null
	NOTIFY_SOCKET="$name" "$BIN/wardend" --pool 0 > "$T/d.log" 2>&1 &
	daemon=$!
	timeout 60 "$BIN/wd-try" wait-line "$T/notes" "READY=1" "$recv" > /dev/null ||
		fail "no READY=1: $(cat "$T/d.log")"
	stop_daemon
	timeout 30 "$BIN/wd-try" wait-exit "$recv" > /dev/null
	expect_line "$T/notes" "STOPPING=1"
}

# approver_group 4242: the socket is its (mode 0660); a member may list and status, not run
# nor kill; a uid in no such group cannot connect, and where the mode would let it (made 0666
# here, as a mistake might), is refused "forbidden" by the daemon all the same, and logged.
test_an_approver_may_list_but_not_run_and_an_outsider_is_forbidden() {
	start_daemon "$T/d.log" --pool 0 --approver-group 4242
	expect_eq "mode" "$(stat -c '%a %u %g' "$(sock)")" "660 0 4242"
	reply=$(ctl_as 65533 65533 4242 '{"op":"list","id":7}')
	expect_eq "a member's list" "$reply" '{"sandboxes":[],"ok":true,"id":7,"v":1}'

	case $(ctl_as 65533 65533 4242 '{"op":"status"}') in
	*'"ok":true'*) ;; *) fail "a member could not status" ;;
	esac
	simple_policy
	reply=$(ctl_as 65533 65533 4242 "{\"op\":\"run\",\"id\":\"r\",\"policy\":\"$T/p.json\",\"argv\":[\"true\"]}")
	case $reply in
	'{"ok":false,"error":"uid 65533 (?) may not run '*'"code":"forbidden","id":"r","v":1}') ;;
	*) fail "a member was not refused run: $reply" ;;
	esac
	case $(ctl_as 65533 65533 4242 '{"op":"kill","sandbox":"sb-1"}') in
	*'"code":"forbidden"'*) ;; *) fail "a member was not refused kill" ;;
	esac
	# nor any op that makes, feeds or reads a sandbox: each refused before it is looked at
	for req in "{\"op\":\"create\",\"policy\":\"$T/p.json\"}" \
		'{"op":"exec","sandbox":"b","argv":["true"]}' \
		'{"op":"put","sandbox":"b","path":"/x","data":"x"}' \
		'{"op":"get","sandbox":"b","path":"/etc/shadow"}' '{"op":"destroy","sandbox":"b"}' \
		'{"op":"attach","sandbox":"b"}' '{"op":"stdin","sandbox":"b","data":"x"}'; do
		case $(ctl_as 65533 65533 4242 "$req") in
		*'"code":"forbidden"'*) ;; *) fail "a member was not refused $req" ;;
		esac
	done
	expect_line "$T/d.log" "control: refused run to uid 65533 (?): forbidden"
	expect_eq "supervisors" "$(ctl '{"op":"status"}' | grep -o '"supervisors":[0-9]*')" '"supervisors":0'
	# the primary group counts as a supplementary one does
	case $(ctl_as 65533 4242 - '{"op":"list"}') in
	*'"ok":true'*) ;; *) fail "a member by its primary group could not list" ;;
	esac
	# an outsider: the mode keeps it out...
	rc=0
	ctl_as 65532 65532 - '{"op":"list"}' > "$T/err" || rc=$?
	[ "$rc" != 0 ] || fail "an outsider connected to a 0660 socket"
	expect_line "$T/err" "EACCES"
	# ...and the daemon's own check, should the mode let it in
	chmod 0666 "$(sock)"
	case $(ctl_as 65532 65532 - '{"op":"list"}') in
	'{"ok":false,"error":"uid 65532 (?) may not use wardend '*'"code":"forbidden","v":1}') ;;
	*) fail "an outsider was not refused forbidden" ;;
	esac
	expect_line "$T/d.log" "control: refused use wardend to uid 65532 (?): forbidden"
	stop_daemon
}

# SIGHUP: approver_group changes at once (the socket's group, and who may ask); a bad file is
# refused and the configuration kept; what needs a restart is said.
test_sighup_changes_approver_group_live_and_keeps_it_on_a_bad_file() {
	printf '{"approver_group":"4242"}\n' > "$T/w.json"
	start_daemon "$T/d.log" --pool 0 --config "$T/w.json"
	case $(ctl_as 65533 65533 4242 '{"op":"list"}') in
	*'"ok":true'*) ;; *) fail "a member of 4242 could not list" ;;
	esac
	printf '{"approver_group":"4243","backend":"%s"}\n' \
		"$([ "$EXPECT_BACKEND" = landlock ] && echo bpf-lsm || echo landlock)" > "$T/w.json"
	kill -HUP "$daemon"
	timeout 60 "$BIN/wd-try" wait-line "$T/d.log" "reloaded" "$daemon" > /dev/null
	expect_line "$T/d.log" "reload: approver_group 4243 (was 4242)"
	expect_line "$T/d.log" "needs a restart"
	expect_eq "group" "$(stat -c '%a %g' "$(sock)")" "660 4243"
	case $(ctl_as 65533 65533 4243 '{"op":"list"}') in
	*'"ok":true'*) ;; *) fail "a member of 4243 could not list after the reload" ;;
	esac
	# 4242 no more: kept out by the mode, and by the daemon past it
	! ctl_as 65533 65533 4242 '{"op":"list"}' > /dev/null || fail "4242 still connects"
	chmod 0666 "$(sock)"
	case $(ctl_as 65533 65533 4242 '{"op":"list"}') in
	*'"code":"forbidden"'*) ;; *) fail "4242 was not refused after the reload" ;;
	esac
	case $(ctl '{"op":"status"}') in
	*"\"backend\":\"$BACKEND\""*'"approver_group":"4243"'*) ;;
	*) fail "status after the reload: $(ctl '{"op":"status"}')" ;;
	esac
	# a bad file: refused, the configuration as it was
	printf '{"approver_group":"4244","extra":1}\n' > "$T/w.json"
	kill -HUP "$daemon"
	timeout 60 "$BIN/wd-try" wait-line "$T/d.log" "keeping the configuration" "$daemon" > /dev/null
	expect_line "$T/d.log" "unknown key \"extra\""
	case $(ctl_as 65533 65533 4243 '{"op":"list"}') in
	*'"ok":true'*) ;; *) fail "a bad file changed the approvers" ;;
	esac
	# no group: root's alone again
	printf '{"approver_group":null}\n' > "$T/w.json"
	kill -HUP "$daemon"
	timeout 60 "$BIN/wd-try" wait-line "$T/d.log" "approver_group none (was 4243)" "$daemon" > /dev/null
	timeout 60 "$BIN/wd-try" wait-line "$T/d.log" "reloaded" "$daemon" > /dev/null
	expect_eq "root's" "$(stat -c '%a %g' "$(sock)")" "600 0"
	stop_daemon
}

test_status_carries_versions_kernel_cgroups_sandboxes_and_rings() {
	start_daemon "$T/d.log" --pool 1
	simple_policy
	reply=$(ctl "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"argv\":[\"sleep\",\"1000\"]}")
	sb=$(record_field "$reply" sandbox)
	[ -n "$sb" ] || fail "run refused: $reply"
	s=$(ctl '{"op":"status"}')
	for f in '"version":"0.1.0"' '"protocol":1' '"libbpf":"v' "\"kernel\":\"$(uname -r)\"" \
		'"uptime_s":' '"backend":"auto"' '"held_set":' '"cgroups":{"layout":"' \
		'"controllers":{' "\"sandboxes\":{\"names\":[\"$sb\"],\"count\":1}" \
		'"rings":{"made":' '"lost":' '"on_stop":"keep"' '"supervisors":1'; do
		case $s in *"$f"*) ;; *) fail "status has no $f: $s" ;; esac
	done
	ctl "{\"op\":\"kill\",\"sandbox\":\"$sb\"}" > /dev/null
	# its supervisor ends the sandbox and removes it: waited for, so stopping wardend (whose
	# supervisors die with it) leaves nothing half-removed
	timeout 60 "$BIN/wd-try" wait-exit "$(record_field "$reply" supervisor)" > /dev/null ||
		fail "the killed run's supervisor did not end"
	stop_daemon
}

# on_stop "end": SIGTERM ends the daemon's sandboxes, each with its exit record, and waits
# for them; nothing is left for a successor.
test_on_stop_end_ends_its_sandboxes_with_exit_records() {
	printf '{"on_stop":"end","pool":0}\n' > "$T/w.json"
	start_daemon "$T/d.log" --config "$T/w.json"
	simple_policy
	for i in 1 2; do
		touch "$WD_OUT/a$i"
		reply=$(ctl "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"audit\":\"$WD_OUT/a$i\",\"argv\":[\"sh\",\"-c\",\"echo \$\$ > $T/pid$i; exec sleep 1000\"]}")
		case $reply in *'"ok":true'*) ;; *) fail "run $i refused: $reply" ;; esac
		touch "$T/pid$i"
		timeout 60 "$BIN/wd-try" wait-line "$T/pid$i" "" "$daemon" > /dev/null
		# the command's pid as the host sees it (in the sandbox it is its namespace's)
		sb=$(record_field "$reply" sandbox)
		cat "$WD_SANDBOX_GROUP/$sb/cgroup.procs" > "$T/pid$i"
		[ -s "$T/pid$i" ] || fail "no task in $sb"
	done
	kill -TERM "$daemon"
	wait "$daemon" || fail "wardend did not end cleanly (exit $?)"
	expect_line "$T/d.log" "on_stop end"
	for i in 1 2; do
		expect_line "$WD_OUT/a$i" '"type":"exit"'
		for pid in $(cat "$T/pid$i"); do
			! kill -0 "$pid" 2>/dev/null || fail "sandbox $i's task $pid outlived wardend"
		done
	done
	! ls "$WARDEN_RUN_DIR"/keep-*.sock 2>/dev/null || fail "a keeper waits for a successor"
}

# holds, subscribe, approve and deny on control.sock, passed to the sandbox's own socket: an
# approver (group 4242) lists the held rm -rf, a subscriber hears the decision, and the record
# names the approver, not wardend.
test_an_approver_answers_a_hold_through_control_sock() {
	start_daemon "$T/d.log" --pool 0 --approver-group 4242
	mkdir -p "$T/app/src"
	echo a > "$T/app/src/a"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s","%s"],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}\n' \
		"$T" "$T" "$BIN" "$LOADER" "$T" > "$T/p.json"
	touch "$WD_OUT/audit"
	reply=$(ctl "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"audit\":\"$WD_OUT/audit\",\"argv\":[\"sh\",\"-c\",\"rm -rf $T/app; echo \$? > $T/rm.rc\"]}")
	sb=$(record_field "$reply" sandbox)
	[ -n "$sb" ] || fail "run refused: $reply"
	wait_record "$WD_OUT/audit" '"type":"hold"' "$daemon" > /dev/null
	holds=$(ctl_as 65533 65533 4242 "{\"op\":\"holds\",\"id\":\"h\",\"sandbox\":\"$sb\"}")
	case $holds in
	'{"ok":true,"sandbox":"'"$sb"'","holds":[{'*'"id":"h","v":1}') ;;
	*) fail "an approver could not list the holds: $holds" ;;
	esac
	hold=$(printf '%s\n' "$holds" | sed -n 's/.*"holds":\[{"id":\([0-9]*\).*/\1/p')
	token=$(record_field "$holds" token)
	[ -n "$hold" ] && [ -n "$token" ] || fail "no hold in $holds"
	ctl_as 65533 65533 4242 "{\"op\":\"subscribe\",\"id\":\"s\",\"sandbox\":\"$sb\"}" 2 > "$T/sub" &
	sub=$!
	touch "$T/sub"
	timeout 60 "$BIN/wd-try" wait-line "$T/sub" '"ok":true' "$sub" > /dev/null
	# a wrong token decides nothing; an unknown sandbox is not found
	case $(ctl_as 65533 65533 4242 "{\"op\":\"approve\",\"sandbox\":\"$sb\",\"hold\":$hold,\"token\":\"x\"}") in
	*'"ok":false'*'token does not match'*) ;; *) fail "a wrong token was not refused" ;;
	esac
	case $(ctl_as 65533 65533 4242 '{"op":"approve","sandbox":"sb-none","hold":1,"token":"x"}') in
	*'"code":"not_found"'*) ;; *) fail "an unknown sandbox was not refused" ;;
	esac
	reply=$(ctl_as 65533 65533 4242 "{\"op\":\"approve\",\"id\":9,\"sandbox\":\"$sb\",\"hold\":$hold,\"token\":\"$token\",\"scope\":\"sandbox\",\"subtree\":\"$T/app\"}")
	expect_eq "approve" "$reply" "{\"ok\":true,\"sandbox\":\"$sb\",\"id\":9,\"v\":1}"
	timeout 60 "$BIN/wd-try" wait-exit "$sub" > /dev/null
	expect_line "$T/sub" '"event":"decision"'
	expect_line "$T/sub" '"by":"uid 65533 (?) via uid 0 (root)"'
	wait_record "$WD_OUT/audit" '"type":"exit"' "$daemon" > /dev/null
	expect_line "$WD_OUT/audit" '"by":"uid 65533 (?) via uid 0 (root)"'
	[ ! -e "$T/app" ] || fail "the approved rm -rf left $T/app"
	stop_daemon
}

# The attack: a root process inside a sandbox of wardend's own connects to control.sock (no
# backend decides a connect to a unix socket by its path) and asks to list, run and approve;
# every request is refused "forbidden", whatever its uid, and nothing runs.
test_a_sandboxed_root_process_is_refused_on_control_sock() {
	start_daemon "$T/d.log" --pool 0 --approver-group 4242
	simple_policy
	cat > "$T/inside.sh" <<-INSIDE
	id -u
	"$BIN/wd-try" ctl "$(sock)" '{"op":"list","id":1}'
	"$BIN/wd-try" ctl "$(sock)" '{"op":"run","policy":"cli","argv":["touch","$T/ran"]}'
	"$BIN/wd-try" ctl "$(sock)" '{"op":"approve","sandbox":"sb-1","hold":1,"token":"x"}'
	INSIDE
	"$BIN/wd-try" ctl "$(sock)" "{\"op\":\"run\",\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"stdout\":\"$T/in.out\",\"stderr\":\"$T/in.err\",\"wait\":true,\"argv\":[\"sh\",\"$T/inside.sh\"]}" 2 > "$T/run"
	expect_line "$T/run" '"event":"exit"'
	expect_eq "uid inside" "$(sed -n 1p "$T/in.out")" 0
	[ "$(wc -l < "$T/in.out")" = 4 ] ||
		fail "inside: $(cat "$T/in.out"; cat "$T/run"; cat "$T/in.err")"
	refusal='{"ok":false,"error":"no process inside a sandbox may use wardend","code":"forbidden"'
	expect_eq "list from inside" "$(sed -n 2p "$T/in.out")" "$refusal,\"id\":1,\"v\":1}"
	expect_eq "run from inside" "$(sed -n 3p "$T/in.out")" "$refusal,\"v\":1}"
	expect_eq "approve from inside" "$(sed -n 4p "$T/in.out")" "$refusal,\"v\":1}"
	[ ! -e "$T/ran" ] || fail "a sandbox ran a command through wardend"
	expect_line "$T/d.log" "control: refused uid 0 (root) inside a sandbox: forbidden"
	stop_daemon
}

# The attack on the record: wardend tells a holds socket whom it decides for ("for"), which
# names the decider in the record. A policy's approver (group 4242) that says "for" itself, to
# pass its decision off as root's, is refused and decides nothing; root's "for" is taken.
test_only_root_may_say_whom_a_decision_is_for() {
	mkdir -p "$T/app"
	echo a > "$T/app/a"
	local libs= d
	for d in $LIBDIRS; do libs="$libs,\"$d\""; done
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s"],"exec":["/usr/bin","/bin","%s","%s"%s],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]},"hold":{"approvers":["group:4242"]}}\n' \
		"$BIN" "$T" "$BIN" "$LOADER" "$libs" "$T" > "$T/p.json"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/app/a" 2> "$T/err" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	line=$(wait_record "$WD_OUT/audit" '"type":"hold"' $run)
	sb=$(record_field "$line" sandbox)
	id=$(record_field "$line" hold)
	tok=$(record_field "$line" token)
	hs="$WARDEN_RUN_DIR/run-$sb.sock"
	out=$("$BIN/wd-try" as 65533 65533 4242 "$BIN/wd-try" ctl "$hs" \
		"{\"op\":\"decide\",\"id\":$id,\"token\":\"$tok\",\"allow\":true,\"for\":\"uid 0 (root)\"}")
	expect_eq "for, from an approver" "$out" \
		'{"v":1,"ok":false,"error":"\"for\" is root'"'"'s alone (wardend'"'"'s), a string of at most 99 bytes"}'
	[ -e "$T/app/a" ] || fail "an approver's forged decision was taken"
	! grep -q '"type":"decision"' "$WD_OUT/audit" || fail "a forged decision was recorded"
	out=$("$BIN/wd-try" ctl "$hs" \
		"{\"op\":\"decide\",\"id\":$id,\"token\":\"$tok\",\"allow\":false,\"for\":\"uid 1000 (alice)\"}")
	expect_eq "for, from root" "$out" '{"v":1,"ok":true}'
	wait "$run" || true
	expect_line "$WD_OUT/audit" '"type":"decision"' '"by":"uid 1000 (alice) via uid 0 (root)"'
	[ -e "$T/app/a" ] || fail "a denied delete ran"
}
