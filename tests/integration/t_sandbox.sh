# SPDX-License-Identifier: GPL-2.0
# Persistent sandboxes (docs/control.md#persistent-sandboxes): create, exec, inspect, destroy on
# wardend's control.sock; an idle one ended after its timeout. Each exec runs in the sandbox its
# first command would have run in (its cgroup, mount view, pid namespace, rules), so state and
# background processes stay between execs, and nothing of it outlives destroy.
WHERE=any
BACKENDS="bpf-lsm landlock"

ctl() {
	"$BIN/wd-try" ctl "$WARDEN_RUN_DIR/control.sock" "$@"
}

# answers REQUEST PATTERN WHAT: wardend's reply to REQUEST (left in $r) matches the grep PATTERN
answers() {
	r=$(ctl "$1")
	printf '%s' "$r" | grep -q "$2" || fail "$3: $r"
}

# exec_in SB ARGV-JSON [EXTRA]: one exec, its lines (reply, output events, exit) in $T/x.out
exec_in() {
	ctl "{\"op\":\"exec\",\"id\":\"x\",\"sandbox\":\"$1\",\"argv\":$2${3:+,$3}}" \
		'until="event":"exit"' > "$T/x.out" || fail "exec in $1: no answer"
}

# x_code: the exit event's code; x_stdout: the data of its stdout events, concatenated
x_code() {
	record_field "$(grep '"event":"exit"' "$T/x.out")" code
}
x_stdout() {
	grep '"event":"stdout"' "$T/x.out" | sed 's/.*"data":"\(.*\)","id".*/\1/' | tr -d '\n'
}

sandbox_policy() {
	local libs= d
	for d in $LIBDIRS; do libs="$libs,\"$d\""; done
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","/proc","%s","%s"%s],"write":["%s","/dev/null"],"deny":["%s/secret"],"exec":["/usr/bin","/bin","%s","%s"%s]}}\n' \
		"$BIN" "$T" "$libs" "$T" "$T" "$BIN" "$LOADER" "$libs" > "$T/p.json"
	echo s3cret > "$T/secret"
	# the work tree (landlock carves the write rule around the denied file: $T's own entries
	# are what its rules name, so new files go below)
	mkdir -p "$T/w"
}

# create [EXTRA]: a persistent sandbox of $T/p.json; sets $sb
create() {
	local r
	r=$(ctl "{\"op\":\"create\",\"id\":1,\"backend\":\"$BACKEND\",\"policy\":\"$T/p.json\",\"audit\":\"$WD_OUT/audit\",\"cwd\":\"$T/w\"${1:+,$1}}")
	sb=$(record_field "$r" sandbox)
	[ -n "$sb" ] && printf '%s' "$r" | grep -q '"ok":true' || fail "create: $r"
}

test_sandbox_twenty_execs_share_its_state_and_rules() {
	sandbox_policy
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	create '"name":"box1","labels":{"job":"t"}'
	# by name as by id; each exec adds a line to a file of the work tree
	for i in $(seq 1 20); do
		exec_in box1 "[\"sh\",\"-c\",\"echo $i >> n; wc -l < n\"]"
		expect_eq "exec $i's exit: $(cat "$T/x.out")" "$(x_code)" 0
		expect_eq "exec $i's output" "$(x_stdout)" "$i\\n"
	done
	expect_eq "lines in the work tree" "$(wc -l < "$T/w/n")" 20
	# a background process of one exec is there for the next (same pid namespace)
	exec_in "$sb" '["sh","-c","sleep 300 > /dev/null 2>&1 & echo $!"]'
	bg=$(x_stdout | tr -d '\\n')
	[ -n "$bg" ] || fail "no pid of the background sleep: $(cat "$T/x.out")"
	exec_in "$sb" "[\"sh\",\"-c\",\"cat /proc/$bg/comm\"]"
	expect_eq "the next exec sees it" "$(x_stdout)" 'sleep\n'
	# the rules hold for every exec: the denied file stays unread, the exit code says so
	exec_in "$sb" "[\"cat\",\"$T/secret\"]"
	[ "$(x_code)" != 0 ] || fail "an exec read a denied file: $(cat "$T/x.out")"
	grep -q s3cret "$T/x.out" && fail "the denied file's content came out"
	# env, stdin and cwd per exec
	exec_in "$sb" '["sh","-c","read l; echo $l-$V-$(pwd)"]' '"stdin":"in\n","env":{"V":"v1"},"cwd":"/tmp"'
	expect_eq "stdin, env and cwd" "$(x_stdout)" 'in-v1-/tmp\n'
	# inspect: its processes (the sleep among them), its name and labels
	answers "{\"op\":\"inspect\",\"sandbox\":\"$sb\"}" '"name":"box1"' "inspect"
	printf '%s' "$r" | grep -q '"labels":{"job":"t"}' || fail "inspect: $r"
	printf '%s' "$r" | grep -q '"execs":24' || fail "inspect counts 24 execs: $r"
	printf '%s' "$r" | grep -q '"processes":\[[0-9]' || fail "inspect: no process: $r"
	ctl '{"op":"list"}' | grep -q "\"sandbox\":\"$sb\".*\"persistent\":true" ||
		fail "list does not show it: $(ctl '{"op":"list"}')"
	# destroy: everything in it ends, its cgroup goes, the report says destroyed
	answers "{\"op\":\"destroy\",\"id\":\"d\",\"sandbox\":\"$sb\"}" '"ok":true' "destroy"
	printf '%s' "$r" | grep -q '"status":"destroyed"' || fail "destroy's report: $r"
	# its cgroup is gone: no process is left in it (a populated cgroup cannot be removed)
	left=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "$sb" 2>/dev/null)
	[ -z "$left" ] || fail "destroy left the cgroup $left"
	expect_line "$WD_OUT/audit" '"type":"exit"' '"status":"destroyed"'
	answers "{\"op\":\"exec\",\"sandbox\":\"$sb\",\"argv\":[\"true\"]}" '"code":"not_found"' "exec after destroy"
	stop_daemon
}

test_sandbox_idle_one_is_ended_with_a_record() {
	sandbox_policy
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	# (no exec first: on a loaded host a second may pass before it comes, and the sandbox
	# would rightly be gone; the clock starts again after each exec, as execs.c arms it)
	create '"idle_timeout_s":1'
	# a second with nothing running: the exit record, and it is gone from the list
	timeout 60 "$BIN/wd-try" wait-line "$T/d.log" "of $sb ended" "$daemon" \
		> /dev/null || fail "the idle sandbox was not ended: $(cat "$T/d.log")"
	expect_line "$WD_OUT/audit" '"type":"exit"' '"status":"idle"'
	ctl '{"op":"list"}' | grep -q "$sb" && fail "an idle sandbox is still listed"
	stop_daemon
}

test_sandbox_exec_answers_and_refusals() {
	sandbox_policy
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	create '"name":"box2"'
	# a command that does not exist: start_failed, and the sandbox takes the next
	answers "{\"op\":\"exec\",\"sandbox\":\"box2\",\"argv\":[\"/nonexistent\"]}" '"code":"start_failed"' "exec of nothing"
	exec_in box2 '["sh","-c","exit 7"]'
	expect_eq "its code" "$(x_code)" 7
	# a timeout kills the exec's command, not the sandbox
	exec_in box2 '["sleep","30"]' '"timeout_ms":100'
	expect_eq "timed out" "$(record_field "$(grep '"event":"exit"' "$T/x.out")" status)" timeout
	exec_in box2 '["true"]'
	expect_eq "the sandbox lives on" "$(x_code)" 0
	# a second name is refused, and so are unknown keys and a malformed name
	answers "{\"op\":\"create\",\"policy\":\"$T/p.json\",\"name\":\"box2\"}" '"code":"busy"' "a second box2"
	answers "{\"op\":\"exec\",\"sandbox\":\"box2\",\"argv\":[\"true\"],\"wiat\":1}" '"key":"wiat"' "an unknown key"
	answers "{\"op\":\"create\",\"policy\":\"$T/p.json\",\"name\":\"sb-1\"}" '"code":"bad_request"' "a name like an id"
	# a run's sandbox takes no exec
	r=$(ctl "{\"op\":\"run\",\"policy\":\"$T/p.json\",\"argv\":[\"sleep\",\"30\"]}")
	rs=$(record_field "$r" sandbox)
	answers "{\"op\":\"exec\",\"sandbox\":\"$rs\",\"argv\":[\"true\"]}" '"code":"not_found"' "exec into a run's sandbox"
	ctl "{\"op\":\"kill\",\"sandbox\":\"$rs\"}" > /dev/null
	ctl '{"op":"destroy","sandbox":"box2"}' > /dev/null
	stop_daemon
}

# hold_token N: the token of the Nth hold (by name) that box3's holds socket lists, through wardend
hold_token() {
	ctl '{"op":"holds","sandbox":"box3"}' | tr '{' '\n' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p' | sed -n "${1}p"
}

# Holds in a persistent sandbox: an exec's delete under a protected tree waits in the kernel for
# the operator (asked by the sandbox's name through control.sock, told on the exec's own request
# with "holds":"events", or as that request's end with "holds":"return"), runs once when
# approved; a process an earlier exec left behind is held too, after its exec has ended, never
# let through.
test_sandbox_holds_an_execs_delete_until_approved() {
	sandbox_policy
	mkdir -p "$T/w/app/src" "$T/w/keep/src"
	echo a > "$T/w/app/src/a"; echo k > "$T/w/keep/src/k"
	sed 's|"fs":{|"fs":{"protect":[{"path":"'"$T"'/w","ops":["delete"],"action":"hold"}],|' \
		"$T/p.json" > "$T/ph.json"
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	r=$(ctl "{\"op\":\"create\",\"id\":1,\"backend\":\"$BACKEND\",\"policy\":\"$T/ph.json\",\"audit\":\"$WD_OUT/audit\",\"cwd\":\"$T/w\",\"name\":\"box3\"}")
	printf '%s' "$r" | grep -q '"ok":true' || fail "create with holds: $r"
	sup=$(record_field "$r" supervisor)
	sbid=$(record_field "$r" sandbox)
	# exec 1 leaves a process that deletes keep/ once told (the file go appears), then ends
	exec_in box3 "[\"sh\",\"-c\",\"(while [ ! -e go ]; do sleep 0.05; done; rm -rf keep; echo \$? > bg.rc) > /dev/null 2>&1 & echo left\"]"
	expect_eq "exec 1" "$(x_code)" 0
	# a "holds" that is neither events nor return is refused, naming the key
	answers '{"op":"exec","sandbox":"box3","holds":"later","argv":["true"]}' \
		'"ok":false,"error":"exec: \\"holds\\" must be \\"events\\"' "exec with holds later"
	# exec 2 deletes app/: held, and told on its own request ("holds":"events")
	ctl '{"op":"exec","id":"x2","sandbox":"box3","holds":"events","argv":["sh","-c","rm -rf app; echo rm=$?"]}' \
		'until="event":"exit"' > "$T/x2.out" &
	x2=$!
	line=$(wait_record "$T/x2.out" '"event":"hold"' $x2)
	case $line in *"$T/w/app"*'"id":"x2"'*) ;; *) fail "exec 2's hold event is not app's: $line" ;; esac
	wait_record "$WD_OUT/audit" '"type":"hold"' $x2 > /dev/null
	[ -e "$T/w/app/src/a" ] || fail "the held delete ran before anyone decided"
	# inspect lists it among the sandbox's pending holds
	answers '{"op":"inspect","sandbox":"box3"}' "\"holds\":\[{\"id\":[0-9]*,.*\"$T/w/app/src/a\"" "inspect's holds"
	tok=$(record_field "$line" token)
	expect_eq "the hold event's token is the listed one" "$tok" "$(hold_token 1)"
	hid=$(ctl '{"op":"holds","sandbox":"box3"}' | sed -n 's/.*"holds":\[{"id":\([0-9]*\).*/\1/p')
	answers "{\"op\":\"approve\",\"sandbox\":\"box3\",\"hold\":$hid,\"token\":\"$tok\",\"scope\":\"sandbox\",\"subtree\":\"$T/w/app\"}" '"ok":true' "approve by name"
	wait $x2 || fail "exec 2's request failed"
	grep -q '"event":"decision".*"id":"x2"' "$T/x2.out" || fail "no decision event on exec 2: $(cat "$T/x2.out")"
	cp "$T/x2.out" "$T/x.out"
	expect_eq "exec 2's delete went on" "$(x_stdout)" 'rm=0\n'
	[ ! -e "$T/w/app" ] || fail "the approved delete did not happen"
	# exec 1's process, its exec long over, is held too; denied, keep/ stays
	: > "$T/w/go"
	line=$(wait_record "$WD_OUT/audit" "\"op\":\"delete\",\"target\":\"$T/w/keep/" $$)
	case $line in *'"type":"hold"'*) ;; *) fail "keep's delete was not held: $line" ;; esac
	[ -e "$T/w/keep/src/k" ] || fail "a left-behind process's delete was let through"
	# an exec asking for holds events is told first of the one pending from before it
	ctl '{"op":"exec","id":"x3","sandbox":"box3","holds":"events","argv":["true"]}' \
		'until="event":"exit"' > "$T/x3.out" || fail "exec 3: $(cat "$T/x3.out")"
	grep -q "\"event\":\"hold\".*\"$T/w/keep/.*\"token\":\"$(record_field "$line" token)\".*\"id\":\"x3\"" "$T/x3.out" ||
		fail "exec 3 was not told of the pending hold: $(cat "$T/x3.out")"
	# denied by its token alone (resume), as a run's hold is
	tok=$(record_field "$line" token)
	r=$(ctl "{\"op\":\"resume\",\"id\":\"r\",\"token\":\"$tok\",\"resolution\":\"deny\"}")
	printf '%s' "$r" | grep -q '"ok":true' || fail "resume of a persistent sandbox's hold: $r"
	rc=$(wait_record "$T/w/bg.rc" '' $$)
	[ "$rc" != 0 ] || fail "the denied rm -rf succeeded"
	[ -e "$T/w/keep/src/k" ] || fail "the denied delete happened"
	# "holds":"return": exec 4's first hold is its request's end, with the token; a resume on
	# another connection approves it and carries the exec on there, to its output and exit
	mkdir -p "$T/w/app2/src"; echo b > "$T/w/app2/src/b"
	ctl '{"op":"exec","id":"x4","sandbox":"box3","holds":"return","argv":["sh","-c","rm -rf app2; echo rm=$?; exit 5"]}' \
		'until="status":"held"' > "$T/x4.out" || fail "exec 4: $(cat "$T/x4.out")"
	line=$(grep '"status":"held"' "$T/x4.out") || fail "exec 4 did not end held: $(cat "$T/x4.out")"
	case $line in '{"status":"held","sandbox":"'"$sbid"'","token":"'*"$T/w/app2/"*'"id":"x4"'*) ;;
	*) fail "exec 4's held result: $line" ;; esac
	[ -e "$T/w/app2/src/b" ] || fail "exec 4's held delete ran before anyone decided"
	tok=$(record_field "$line" token)
	ctl "{\"op\":\"resume\",\"id\":\"r4\",\"token\":\"$tok\",\"resolution\":\"approve\",\"scope\":\"sandbox\",\"subtree\":\"$T/w/app2\"}" \
		'until="event":"exit"' > "$T/x.out" || fail "exec 4's resume: $(cat "$T/x.out")"
	grep -q "^{\"ok\":true,\"sandbox\":\"$sbid\",\"id\":\"r4\"" "$T/x.out" || fail "exec 4's resume reply: $(cat "$T/x.out")"
	expect_eq "exec 4's output, on the resume's connection" "$(x_stdout)" 'rm=0\n'
	expect_eq "exec 4's exit, on the resume's connection" "$(x_code)" 5
	[ ! -e "$T/w/app2" ] || fail "exec 4's approved delete did not happen"
	# kill takes the name too; its supervisor ends
	answers '{"op":"kill","sandbox":"box3"}' '"ok":true' "kill by name"
	timeout 60 "$BIN/wd-try" wait-exit "$sup" > /dev/null || fail "box3's supervisor outlived its kill"
	stop_daemon
}

# A process inside a persistent sandbox cannot drive wardend: not even exec into its own sandbox.
test_sandbox_a_command_inside_cannot_exec_through_wardend() {
	sandbox_policy
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	create '"name":"box3"'
	exec_in box3 "[\"$BIN/wd-try\",\"ctl\",\"$WARDEN_RUN_DIR/control.sock\",\"{\\\"op\\\":\\\"exec\\\",\\\"sandbox\\\":\\\"box3\\\",\\\"argv\\\":[\\\"touch\\\",\\\"$T/pwned\\\"]}\"]"
	[ ! -e "$T/pwned" ] || fail "a sandboxed process ran an exec through wardend"
	# wardend answered it as it answers any process inside a sandbox
	grep '"event":"stdout"' "$T/x.out" | grep -q 'forbidden' ||
		fail "no refusal: $(cat "$T/x.out")"
	ctl '{"op":"destroy","sandbox":"box3"}' > /dev/null
	stop_daemon
}

# inspect names the policy a sandbox runs by its SHA-256 (of the effective policy): the same for
# two sandboxes of one policy, another for a policy that allows one more path.
test_sandbox_inspect_names_its_policy_by_hash() {
	local h1 h2 h3 s1 s2
	sandbox_policy
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	create; s1=$sb
	create; s2=$sb
	answers "{\"op\":\"inspect\",\"sandbox\":\"$s1\"}" '"policy_sha256":"[0-9a-f]\{64\}"' "inspect"
	h1=$(record_field "$r" policy_sha256)
	answers "{\"op\":\"inspect\",\"sandbox\":\"$s2\"}" '"policy_sha256"' "inspect"
	h2=$(record_field "$r" policy_sha256)
	expect_eq "one policy, one hash" "$h2" "$h1"
	sed -i 's|"read":\[|"read":["/srv",|' "$T/p.json"
	create
	answers "{\"op\":\"inspect\",\"sandbox\":\"$sb\"}" '"policy_sha256"' "inspect"
	h3=$(record_field "$r" policy_sha256)
	[ -n "$h3" ] && [ "$h3" != "$h1" ] || fail "a policy allowing one more path has the same hash: $h3"
	for x in "$s1" "$s2" "$sb"; do
		answers "{\"op\":\"destroy\",\"sandbox\":\"$x\"}" '"ok":true' "destroy $x"
	done
	stop_daemon
}

# The command line: warden sandbox create, exec (its output and exit status as the command's),
# list, inspect and destroy.
test_sandbox_command_line() {
	sandbox_policy
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	(cd "$T/w" && "$WARDEN" sandbox create --policy "$T/p.json" --name cli1 --label k=v \
		--backend "$BACKEND" --audit "$WD_OUT/audit") > "$T/id" || fail "create: $(cat "$T/id")"
	sb=$(cat "$T/id")
	case $sb in sb-*) ;; *) fail "create printed $sb, not an id" ;; esac
	rc=0
	"$WARDEN" sandbox exec cli1 -- sh -c 'echo out; echo err >&2; pwd; exit 3' \
		> "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exec's status" "$rc" 3
	expect_eq "exec's stdout" "$(cat "$T/out")" "out
$T/w"
	expect_eq "exec's stderr" "$(cat "$T/err")" err
	# --stdin: this process's stdin, to its end, bytes exactly; 3 MB to a command that reads
	# only after a second is more than wardend queues (1 MiB), so its "busy" is met and the
	# chunk sent again (the result is the same however fast the reader); without --stdin the
	# command reads none
	expect_eq "exec --stdin" "$(printf 'l1\nl2\n' | "$WARDEN" sandbox exec --stdin cli1 -- sh -c 'cat; echo end')" "l1
l2
end"
	head -c 3000000 /dev/urandom > "$T/big"
	expect_eq "exec --stdin of 3 MB" "$("$WARDEN" sandbox exec --stdin cli1 -- sh -c 'sleep 1; exec md5sum' < "$T/big")" \
		"$(md5sum < "$T/big")"
	expect_eq "exec without --stdin" "$("$WARDEN" sandbox exec cli1 -- wc -c < "$T/big")" 0
	rc=0
	"$WARDEN" sandbox exec --env V=1 cli1 /nonexistent 2> "$T/err" || rc=$?
	expect_eq "a command not found" "$rc" 127
	"$WARDEN" sandbox list | grep -q "\"sandbox\":\"$sb\".*\"name\":\"cli1\".*\"labels\":{\"k\":\"v\"}" ||
		fail "list: $("$WARDEN" sandbox list)"
	# a command that did not start is no exec
	"$WARDEN" sandbox inspect "$sb" | grep -q '"execs":	4' || fail "inspect: $("$WARDEN" sandbox inspect "$sb")"
	# put and get: bytes in and back out exactly
	printf 'a\000b\377' > "$T/blob"
	"$WARDEN" sandbox put cli1 "$T/w/blob" --mode 600 < "$T/blob" || fail "put"
	"$WARDEN" sandbox get cli1 "$T/w/blob" > "$T/back" || fail "get"
	cmp "$T/blob" "$T/back" || fail "get did not give back what put wrote"
	expect_eq "put's mode" "$(stat -c %a "$T/w/blob")" 600
	rc=0
	"$WARDEN" sandbox get cli1 "$T/secret" > "$T/back" 2> "$T/err" || rc=$?
	expect_eq "a denied get" "$rc" 1
	[ ! -s "$T/back" ] || fail "a denied get printed something"
	expect_eq "destroy" "$("$WARDEN" sandbox destroy cli1)" destroyed
	rc=0
	"$WARDEN" sandbox exec cli1 -- true 2> "$T/err" || rc=$?
	expect_eq "exec after destroy" "$rc" 2
	expect_line "$T/err" "no sandbox cli1 here"
	stop_daemon
}

# put and get: files in and out of the work tree, copied by a confined process of the sandbox's
# own, so the policy decides each path as it decides its commands' (and a symlink the sandbox
# planted leads nowhere it could not write itself).
test_sandbox_put_and_get_are_held_to_the_policy() {
	sandbox_policy
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	create '"name":"box4"'
	answers "{\"op\":\"put\",\"id\":\"p\",\"sandbox\":\"box4\",\"path\":\"$T/w/in.txt\",\"data\":\"hello\\n\",\"mode\":384}" '"ok":true.*"bytes":6' "put"
	expect_eq "the file put" "$(cat "$T/w/in.txt")" hello
	expect_eq "its mode" "$(stat -c %a "$T/w/in.txt")" 600
	exec_in box4 '["cat","in.txt"]'
	expect_eq "an exec reads it" "$(x_stdout)" 'hello\n'
	# bytes that are no text, both ways
	answers "{\"op\":\"put\",\"sandbox\":\"box4\",\"path\":\"$T/w/bin\",\"data_b64\":\"AAECAwD/\"}" '"ok":true' "put b64"
	answers "{\"op\":\"get\",\"sandbox\":\"box4\",\"path\":\"$T/w/bin\"}" '"bytes":6,"data_b64":"AAECAwD/"' "get"
	# what the policy refuses: the denied file, a tree it may not write
	answers "{\"op\":\"get\",\"sandbox\":\"box4\",\"path\":\"$T/secret\"}" '"code":"transfer_failed"' "get of a denied file"
	printf '%s' "$r" | grep -q s3cret && fail "a denied file came out"
	answers "{\"op\":\"put\",\"sandbox\":\"box4\",\"path\":\"$T/secret\",\"data\":\"x\"}" '"code":"transfer_failed"' "put over a denied file"
	expect_eq "the denied file" "$(cat "$T/secret")" s3cret
	# the attack: the sandbox plants symlinks out of its tree, then waits for a put through them
	exec_in box4 "[\"sh\",\"-c\",\"ln -s /etc $T/w/up; ln -s $T/secret $T/w/sec\"]"
	r=$(ctl "{\"op\":\"put\",\"sandbox\":\"box4\",\"path\":\"$T/w/up/wd-planted-$$\",\"data\":\"x\"}")
	if [ -e "/etc/wd-planted-$$" ]; then
		rm -f "/etc/wd-planted-$$"
		fail "a put went through the sandbox's symlink into /etc"
	fi
	printf '%s' "$r" | grep -q '"code":"transfer_failed"' || fail "put through a planted link: $r"
	answers "{\"op\":\"put\",\"sandbox\":\"box4\",\"path\":\"$T/w/sec\",\"data\":\"x\"}" '"code":"transfer_failed"' "put onto a planted link"
	expect_eq "the denied file" "$(cat "$T/secret")" s3cret
	answers "{\"op\":\"put\",\"sandbox\":\"box4\",\"path\":\"w/rel\",\"data\":\"x\"}" '"code":"bad_request"' "a relative path"
	# a FIFO the sandbox made where a get or put will look: refused at once, not waited on
	exec_in box4 "[\"mkfifo\",\"$T/w/fifo\"]"
	answers "{\"op\":\"get\",\"sandbox\":\"box4\",\"path\":\"$T/w/fifo\"}" '"code":"transfer_failed".*"errno":22' "get of a FIFO"
	answers "{\"op\":\"put\",\"sandbox\":\"box4\",\"path\":\"$T/w/fifo\",\"data\":\"x\"}" '"code":"transfer_failed"' "put into a FIFO"
	# a file it refused to write over is left as it was: not truncated first
	echo keep > "$T/w/kept"
	exec_in box4 "[\"sh\",\"-c\",\"chmod 444 $T/w/kept\"]"
	answers "{\"op\":\"put\",\"sandbox\":\"box4\",\"path\":\"$T/w/kept\",\"data\":\"x\"}" '"code":"transfer_failed"' "put over a read-only file (no capabilities)"
	expect_eq "the read-only file" "$(cat "$T/w/kept")" keep
	ctl '{"op":"destroy","sandbox":"box4"}' > /dev/null
	stop_daemon
}

# Streamed stdin: an exec asks "stdin_stream", and what stdin requests send (on any connection)
# reaches the command in order, as it comes; "eof" is its end of file.
test_sandbox_exec_reads_a_streamed_stdin() {
	sandbox_policy
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	create '"name":"box5"'
	ctl '{"op":"exec","id":"x","sandbox":"box5","stdin_stream":true,"argv":["sh","-c","read a; echo got-$a; cat; echo end"]}' \
		'until="event":"exit"' > "$T/x.out" &
	client=$!
	timeout 60 "$BIN/wd-try" wait-line "$T/x.out" '"ok":true' "$client" > /dev/null ||
		fail "the exec did not start: $(cat "$T/x.out")"
	answers '{"op":"stdin","sandbox":"box5","data":"one\n"}' '"ok":true' "stdin"
	# the command answers what it read before anything more is sent
	timeout 60 "$BIN/wd-try" wait-line "$T/x.out" 'got-one' "$client" > /dev/null ||
		fail "the command did not read it: $(cat "$T/x.out")"
	answers '{"op":"stdin","sandbox":"box5","data_b64":"dHdvCg=="}' '"ok":true' "stdin b64"
	answers '{"op":"stdin","sandbox":"box5","data":"three\n","eof":true}' '"ok":true' "stdin eof"
	wait "$client" || fail "the exec's client: $(cat "$T/x.out")"
	expect_eq "what it read" "$(x_stdout)" 'got-one\ntwo\nthree\nend\n'
	expect_eq "its exit" "$(x_code)" 0
	# its end took its stdin with it; one that asked none takes none
	answers '{"op":"stdin","sandbox":"box5","data":"x"}' '"code":"not_found"' "stdin after the end"
	answers '{"op":"exec","sandbox":"box5","stdin":"a","stdin_stream":true,"argv":["true"]}' \
		'"code":"bad_request"' "stdin and stdin_stream"
	ctl '{"op":"destroy","sandbox":"box5"}' > /dev/null
	stop_daemon
}

# The attack on the rules of later execs: a rule (exec of $T/w/d/bin) lies below a tree the
# sandbox may write. One exec swaps $T/w/d for a symlink to a tree of the test's, whose bin
# holds a tool no rule lets it run; the next exec's rules must not follow the swap (landlock
# builds each exec's ruleset anew: a swapped path fails it, the exec does not start; bpf-lsm's
# rules are inodes, made once). Either way the tool never runs.
test_sandbox_a_swapped_directory_does_not_move_a_later_execs_rules() {
	local libs= d
	for d in $LIBDIRS; do libs="$libs,\"$d\""; done
	mkdir -p "$T/w/d/bin" "$T/out/bin"
	printf '#!/bin/sh\ntouch %s/ran\n' "$T/w" > "$T/out/bin/tool"
	chmod 755 "$T/out/bin/tool"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","/proc","%s","%s"%s],"write":["%s/w"],"exec":["/usr/bin","/bin","%s","%s","%s/w/d/bin"%s]}}\n' \
		"$BIN" "$T" "$libs" "$T" "$BIN" "$LOADER" "$T" "$libs" > "$T/p.json"
	touch "$WD_OUT/audit"
	start_daemon "$T/d.log"
	create
	# before the swap: the tool is not the sandbox's to run
	exec_in "$sb" "[\"$T/out/bin/tool\"]" 2> /dev/null || true
	[ ! -e "$T/w/ran" ] || fail "the tool ran before any swap"
	exec_in "$sb" "[\"sh\",\"-c\",\"mv $T/w/d $T/w/d.old && ln -s $T/out $T/w/d\"]"
	expect_eq "the swap" "$(x_code)" 0
	exec_in "$sb" "[\"$T/w/d/bin/tool\"]" 2> /dev/null || true
	[ ! -e "$T/w/ran" ] || fail "a later exec's rules followed the swapped directory: the tool ran"
	grep -q '"code":"start_failed"\|"code":126\|"code":127\|"code":13[0-9]' "$T/x.out" ||
		fail "the exec after the swap: $(cat "$T/x.out")"
	ctl "{\"op\":\"destroy\",\"sandbox\":\"$sb\"}" > /dev/null
	stop_daemon
}
