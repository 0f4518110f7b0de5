# SPDX-License-Identifier: GPL-2.0
# limits.output (supervisor/run/output.c): the command's stdout and stderr go through warden,
# passed on live up to the cap (both together), the rest read, dropped and counted in the report
# and one `limit` audit record; the command is never blocked by the cap nor by a caller who does
# not read. The http-client and web-service templates, which set it, run.
WHERE=any

# opolicy LIMITS: a policy that runs the shell tools, reads /dev/zero, with "limits": LIMITS.
opolicy() {
	policy "$T/p.json" "/proc /dev/zero" "" "/bin /usr/bin"
	sed -i "s|}}\$|},\"limits\":$1}|" "$T/p.json"
}

expect_valid_report() {
	"$BIN/wd-schemack" "$BIN/report.schema.json" "$1" 2> "$T/schemack" ||
		fail "report $1 fails docs/report.schema.json: $(cat "$T/schemack")"
}

# limit_field FILE LIMIT KEY: KEY of the report's entry for LIMIT among "limits".
limit_field() {
	sed -n "/\"limits\":/,/^	}/p" "$1" | sed -n "/\"$2\":[[:space:]]*{/,/}/p" > "$T/entry"
	report_field "$T/entry" "$3"
}

# output_field FILE KEY: KEY of the report's "output" object.
output_field() {
	sed -n "/^	\"output\":[[:space:]]*{/,/}/p" "$1" > "$T/oentry"
	report_field "$T/oentry" "$2"
}

# count CHAR FILE: how many bytes of FILE are CHAR.
count() {
	tr -cd "$1" < "$2" | wc -c
}

test_output_flood_is_cut_at_the_cap() {
	opolicy '{"output":"100KB"}'
	rc=0
	# 3 MB through a pipe of warden's: the cap never blocks it, it ends on its own
	wrun --policy "$T/p.json" --audit "$T/audit" --report "$T/r.json" \
		-- /bin/sh -c 'head -c 3000000 /dev/zero | tr "\0" x; echo done >&2' \
		> "$T/out" 2> "$T/err" || rc=$?
	expect_eq "exit" "$rc" 0
	expect_eq "status" "$(report_field "$T/r.json" status)" completed
	# a regular file never blocks: exactly the cap reaches it
	expect_eq "bytes on warden's stdout" "$(wc -c < "$T/out")" 100000
	expect_eq "x on stdout" "$(count x "$T/out")" 100000
	expect_eq "limit_bytes" "$(output_field "$T/r.json" limit_bytes)" 100000
	expect_eq "passed_bytes" "$(output_field "$T/r.json" passed_bytes)" 100000
	# the cap is spent: stderr's "done\n" is dropped too
	expect_eq "dropped_bytes" "$(output_field "$T/r.json" dropped_bytes)" 2900005
	expect_eq "dropped_blocked_bytes" "$(output_field "$T/r.json" dropped_blocked_bytes)" 0
	expect_eq "cut" "$(output_field "$T/r.json" cut)" true
	expect_eq "output hit" "$(limit_field "$T/r.json" output hit)" true
	expect_eq "output figure" "$(limit_field "$T/r.json" output figure)" 2900005
	expect_eq "output figure unit" "$(limit_field "$T/r.json" output figure_unit)" \
		dropped_bytes
	expect_valid_report "$T/r.json"
	expect_line "$T/audit" '"type":"limit"' '"op":"output"' '"rule":"/limits/output"' \
		'"limit_bytes":100000' '"dropped_bytes":2900005'
	expect_eq "limit records" "$(grep -c '"type":"limit"' "$T/audit")" 1
}

test_output_stdout_and_stderr_share_the_cap() {
	opolicy '{"output":"100KB"}'
	wrun --policy "$T/p.json" --audit "$T/audit" --report "$T/r.json" \
		-- /bin/sh -c 'head -c 60000 /dev/zero | tr "\0" a;
			       head -c 60000 /dev/zero | tr "\0" b >&2' \
		> "$T/out" 2> "$T/err" || fail "the run failed: $(cat "$T/err")"
	expect_eq "a on stdout" "$(count a "$T/out")" 60000
	# stdout came first, whole; stderr got the rest of the cap, and nothing of stdout
	expect_eq "b on stderr" "$(count b "$T/err")" 40000
	expect_eq "a on stderr" "$(count a "$T/err")" 0
	expect_eq "passed_bytes" "$(output_field "$T/r.json" passed_bytes)" 100000
	expect_eq "dropped_bytes" "$(output_field "$T/r.json" dropped_bytes)" 20000
	expect_eq "cut" "$(output_field "$T/r.json" cut)" true
	expect_valid_report "$T/r.json"
}

test_output_under_the_cap_passes_whole_and_in_order() {
	opolicy '{"output":"1MiB"}'
	seq 1 20000 > "$T/want"
	printf 'e1\ne2\n' > "$T/want_err"
	wrun --policy "$T/p.json" --audit "$T/audit" --report "$T/r.json" \
		-- /bin/sh -c 'seq 1 20000; echo e1 >&2; echo e2 >&2' > "$T/out" 2> "$T/err" ||
		fail "the run failed: $(cat "$T/err")"
	cmp -s "$T/want" "$T/out" || fail "stdout is not seq 1 20000: $(head -c 200 "$T/out")"
	# warden says nothing on stderr itself here (audit to a file): the command's alone
	cmp -s "$T/want_err" "$T/err" || fail "stderr is not e1 e2: $(cat "$T/err")"
	size=$(( $(wc -c < "$T/want") + 6 ))
	expect_eq "passed_bytes" "$(output_field "$T/r.json" passed_bytes)" "$size"
	expect_eq "dropped_bytes" "$(output_field "$T/r.json" dropped_bytes)" 0
	expect_eq "cut" "$(output_field "$T/r.json" cut)" false
	expect_eq "output hit" "$(limit_field "$T/r.json" output hit)" false
	expect_valid_report "$T/r.json"
	if grep -q '"type":"limit"' "$T/audit"; then
		fail "a limit record for output under the cap"
	fi
}

test_output_a_caller_who_does_not_read_blocks_nothing() {
	opolicy '{"output":"10MiB"}'
	mkfifo "$T/fifo"
	# the reader end held open (read-write) and never read: warden's stdout fills at once
	exec 3<> "$T/fifo"
	rc=0
	timeout 120 "$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" --audit "$T/audit" \
		--report "$T/r.json" -- /bin/sh -c 'head -c 3000000 /dev/zero' \
		> "$T/fifo" 2> "$T/err" || rc=$?
	exec 3<&-
	expect_eq "exit (124: warden or the command was blocked)" "$rc" 0
	passed=$(output_field "$T/r.json" passed_bytes)
	dropped=$(output_field "$T/r.json" dropped_bytes)
	blocked=$(output_field "$T/r.json" dropped_blocked_bytes)
	expect_eq "passed + dropped" "$((passed + dropped))" 3000000
	expect_eq "all dropped was the caller's" "$blocked" "$dropped"
	[ "$blocked" -gt 0 ] || fail "nothing counted as not taken by the caller"
	# at most the fifo's own buffer: nobody read it
	[ "$passed" -le $((1 << 20)) ] || fail "passed $passed bytes into a fifo nobody reads"
	expect_eq "cut" "$(output_field "$T/r.json" cut)" false
	expect_valid_report "$T/r.json"
}

# A caller that closed its end (| head): warden neither dies of SIGPIPE nor stops the command.
test_output_a_caller_who_closed_its_end_kills_nothing() {
	opolicy '{"output":"10MiB"}'
	set +o pipefail
	timeout 120 "$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" --audit "$T/audit" \
		--report "$T/r.json" -- /bin/sh -c 'head -c 3000000 /dev/zero | tr "\0" x' \
		2> "$T/err" | head -c 10 > "$T/out"
	rc=${PIPESTATUS[0]}
	expect_eq "warden's exit" "$rc" 0
	expect_eq "status" "$(report_field "$T/r.json" status)" completed
	expect_eq "head got" "$(count x "$T/out")" 10
	passed=$(output_field "$T/r.json" passed_bytes)
	dropped=$(output_field "$T/r.json" dropped_bytes)
	expect_eq "passed + dropped" "$((passed + dropped))" 3000000
	expect_eq "all dropped was the caller's" \
		"$(output_field "$T/r.json" dropped_blocked_bytes)" "$dropped"
	[ "$dropped" -gt 0 ] || fail "nothing dropped after head closed"
	expect_valid_report "$T/r.json"
}

# On a terminal the command's own pty (supervisor/run/pty.c) carries the output: its relay
# counts against the same cap. tests/helpers/wd-pty is the caller's terminal.
test_output_the_terminal_relay_is_capped_too() {
	opolicy '{"output":"100B"}'
	"$BIN/wd-pty" -t 120 -n wait eof show -- "$WARDEN" run --backend "$BACKEND" \
		--policy "$T/p.json" --audit "$T/audit" --report "$T/r.json" \
		-- /bin/sh -c 'test -t 1 || echo NOTTY; head -c 5000 /dev/zero | tr "\0" q' \
		> "$T/drv" 2> "$T/drv.err" || fail "wd-pty: $(cat "$T/drv.err")"
	expect_eq "exit" "$(sed -n 's/^exit: //p' "$T/drv")" 0
	if grep -q NOTTY "$T/drv"; then
		fail "the command's stdout is not its terminal"
	fi
	expect_eq "q through the terminal" "$(count q "$T/drv")" 100
	expect_eq "passed_bytes" "$(output_field "$T/r.json" passed_bytes)" 100
	expect_eq "dropped_bytes" "$(output_field "$T/r.json" dropped_bytes)" 4900
	expect_eq "cut" "$(output_field "$T/r.json" cut)" true
	expect_valid_report "$T/r.json"
}

# The command in the sandbox tries to write past the cap: its fds 1 and 2 are warden's pipes, and
# warden's own stdout, through /proc/PID/fd/1 of its parent (warden), is not the sandbox's to open.
test_output_sandbox_cannot_reach_warden_stdout() {
	opolicy '{"output":"10B"}'
	wrun --policy "$T/p.json" --audit "$T/audit" --report "$T/r.json" \
		-- /bin/sh -c 'exec 2>&-; pp=$PPID
			       head -c 5000 /dev/zero | tr "\0" z > /proc/$pp/fd/1
			       echo "opened: $?" > /proc/$pp/fd/2
			       head -c 5000 /dev/zero | tr "\0" y' > "$T/out" 2> "$T/err" || true
	expect_eq "z on warden's stdout" "$(count z "$T/out")" 0
	expect_eq "y on warden's stdout" "$(count y "$T/out")" 10
	expect_eq "dropped_bytes" "$(output_field "$T/r.json" dropped_bytes)" 4990
	expect_valid_report "$T/r.json"
}

test_output_http_client_template_runs() {
	mkdir -p "$T/work" "$T/tmp"
	out=$(cd "$T/work" && TMPDIR="$T/tmp" wrun --policy http-client --report "$T/r.json" \
		--audit "$T/audit" -- /bin/echo fetched) || fail "http-client did not run: $out"
	expect_eq "http-client's command" "$out" fetched
	expect_eq "status" "$(report_field "$T/r.json" status)" completed
	expect_eq "limit_bytes" "$(output_field "$T/r.json" limit_bytes)" $((64 << 20))
	expect_eq "passed_bytes" "$(output_field "$T/r.json" passed_bytes)" 8
	expect_valid_report "$T/r.json"
}

test_output_web_service_template_runs() {
	id www-data > /dev/null 2>&1 ||
		skip "no user www-data here: the web-service template runs as it"
	mkdir -p "$T/work/data" "$T/tmp"
	chmod 755 "$T" "$T/work"
	chown www-data "$T/work/data"
	out=$(cd "$T/work" && TMPDIR="$T/tmp" wrun --policy web-service --report "$T/r.json" \
		--audit "$T/audit" -- /bin/sh -c 'id -un; echo up > data/state; cat data/state') ||
		fail "web-service did not run: $out"
	expect_eq "web-service's command" "$out" "www-data
up"
	expect_eq "status" "$(report_field "$T/r.json" status)" completed
	expect_eq "limit_bytes" "$(output_field "$T/r.json" limit_bytes)" $((256 << 20))
	expect_valid_report "$T/r.json"
}
