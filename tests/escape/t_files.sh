# SPDX-License-Identifier: GPL-2.0
# Files warden writes as root, and the audit stream (issue 12, principles 3 and 4): a sandbox
# that may write a tree must not choose, replace or forge what warden writes (the run report, the
# audit file, the keeper's exit record), nor print records into the audit stream.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# refused WHAT RC: the run exited RC, said why naming the path and the rule, and never ran.
refused() {
	expect_eq "$1: exit status" "$rc" "$2"
	[ ! -e "$T/rw/ran" ] || fail "$1: the command ran although warden refused its run"
}

# run_marking ARGS...: a run (warden's own pid in $run once started) whose command makes
# $T/rw/ran; its exit status in $rc, its standard error in $T/err.
run_marking() {
	rc=0
	wrun --policy "$T/p.json" "$@" -- "$BIN/wd-try" write "$T/rw/ran" > "$T/run.out" \
		2> "$T/err" || rc=$?
}

# A link planted where warden writes the report: by the sandbox during the run (the old report
# was written to "PATH.tmp.PID", a name a root process inside can guess and plant), or by an
# earlier sandbox in a parent directory.
test_report_path_a_sandbox_may_plant_a_link_in() {
	claims files.report-path yes yes
	setup /bin "" "/bin /usr/bin"
	echo original > "$T/victim"
	# control: inside, the sandbox plants a link in its tree, where a report would be written
	expect_eq "control: a link planted from inside" \
		"$(inside "$E" symlink "$T/victim" "$T/rw/r.json.tmp.1")" ok
	rm -f "$T/rw/r.json.tmp.1"
	# the attack: the same, on a run whose report is in that tree (warden's pid is known here)
	mkfifo "$T/rw/go2"
	rc=0
	"$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" --report "$T/rw/r.json" -- /bin/sh -c \
		"read pid < $T/rw/go2; ln -s $T/victim $T/rw/r.json.tmp.\$pid; echo x > $T/rw/ran" \
		> "$T/run.out" 2> "$T/err" &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	# a refused run never reads the fifo: open it without blocking (fd 8 read-write)
	exec 8<> "$T/rw/go2"
	echo "$run" >&8
	wait "$run" || rc=$?
	exec 8>&-
	expect_eq "the file the link names" "$(cat "$T/victim")" original
	refused "a report in a tree the sandbox writes" 2
	expect_line "$T/err" "report: $T/rw/r.json is refused" "$T/rw" "/fs/write/0"
	[ ! -e "$T/rw/r.json" ] || fail "a report was written in the sandbox's tree"

	# A link left in a parent by an earlier sandbox that could write there, to a tree this
	# sandbox writes: each directory the path passes is checked, links walked.
	mkdir -p "$T/old"
	policy "$T/old.json" "" "$T/old" ""
	expect_eq "control: a link made by an earlier sandbox" \
		"$(wrun --policy "$T/old.json" --audit "$T/audit" -- "$E" symlink "$T/rw" "$T/old/out")" ok
	[ -L "$T/old/out" ] || fail "control: no link left by the earlier sandbox"
	run_marking --report "$T/old/out/r.json"
	expect_eq "the file the link names" "$(cat "$T/victim")" original
	refused "a report reached through a link into the sandbox's tree" 2
	expect_line "$T/err" "report: $T/old/out/r.json is refused" "may write $T/rw" "/fs/write/0"

	# A link at the report's own name, outside this sandbox's reach: refused, never replaced.
	mkdir -p "$T/out"
	ln -s "$T/victim" "$T/out/r.json"
	run_marking --report "$T/out/r.json"
	refused "a report path that is a link" 2
	expect_line "$T/err" "report: $T/out/r.json exists and is not a regular file" \
		"a symbolic link"
	expect_eq "the file the link names" "$(cat "$T/victim")" original
	rm "$T/out/r.json"

	# Out of the sandbox's reach, a root process inside cannot plant one at all.
	control "a link in the report's directory, outside" ok "$E" symlink "$T/victim" "$T/out/x"
	rm "$T/out/x"
	rc=0
	wrun --policy "$T/p.json" --report "$T/out/r.json" --audit "$T/audit" \
		-- "$E" symlink "$T/victim" "$T/out/r.json" > "$T/out.txt" 2> "$T/err" || rc=$?
	expect_denied "a link at the report's name from inside" "$(cat "$T/out.txt")"
	if [ ! -f "$T/out/r.json" ] || [ -L "$T/out/r.json" ]; then
		fail "no plain report at $T/out/r.json"
	fi
	expect_eq "report status" "$(report_field "$T/out/r.json" status)" completed
	expect_eq "the file the link names" "$(cat "$T/victim")" original
}

test_report_and_audit_in_a_writable_tree_are_refused_before_the_command_runs() {
	claims files.report-path yes yes
	setup "" "$T/rw2"
	mkdir -p "$T/rw2"
	# control: what the sandbox may write, it may replace: a report or audit file there could
	# be forged after the run
	echo real > "$T/rw/r.json"
	echo forged > "$T/rw/new"
	expect_eq "control: the sandbox renames over a file in its tree" \
		"$(inside "$E" rename "$T/rw/new" "$T/rw/r.json")" ok
	expect_eq "control: the file in its tree" "$(cat "$T/rw/r.json")" forged
	rm -f "$T/rw/r.json"
	run_marking --report "$T/rw/r.json"
	refused "--report in fs.write" 2
	expect_line "$T/err" "report: $T/rw/r.json is refused" "policy rule /fs/write/0"
	run_marking --audit "$T/rw2/sub/../a.jsonl"
	refused "--audit in fs.write" 2
	expect_line "$T/err" "audit: $T/rw2/sub/../a.jsonl is refused" "may write $T/rw2" \
		"policy rule /fs/write/1"
	[ ! -e "$T/rw2/a.jsonl" ] || fail "an audit file was made in the sandbox's tree"
	# a report that cannot be written: the run does not happen either
	run_marking --report "$T/no-such-dir/r.json"
	refused "--report in a directory that does not exist" 125
	expect_line "$T/err" "report: cannot open the directory of $T/no-such-dir/r.json"
	run_marking --audit "$T/allowed"
	refused "--audit naming a directory" 2
	# the run directory (holds, --survive) likewise
	rc=0
	WARDEN_RUN_DIR="$T/rw/run" wrun --policy "$T/p.json" --survive 5 --audit "$T/audit" \
		-- "$BIN/wd-try" write "$T/rw/ran" > "$T/run.out" 2> "$T/err" || rc=$?
	refused "a run directory in fs.write" 2
	expect_line "$T/err" "run directory: $T/rw/run is refused" "/fs/write/0"
}

test_audit_file_and_report_are_mode_0600() {
	claims files.audit-mode yes yes
	setup
	# control: a file made the ordinary way is readable by everyone
	(umask 022 && touch "$T/plain")
	expect_eq "control: mode of an ordinary new file" "$(stat -c %a "$T/plain")" 644
	mkdir -p "$T/out"
	run_marking --report "$T/out/r.json" --audit "$T/out/a.jsonl"
	expect_eq "exit status" "$rc" 0
	expect_eq "audit file mode" "$(stat -c %a "$T/out/a.jsonl")" 600
	expect_eq "report mode" "$(stat -c %a "$T/out/r.json")" 600
	# an existing audit file is appended to, and made 0600
	(umask 022 && touch "$T/out/b.jsonl")
	run_marking --audit "$T/out/b.jsonl"
	expect_eq "exit status" "$rc" 0
	expect_eq "existing audit file mode" "$(stat -c %a "$T/out/b.jsonl")" 600
	expect_line "$T/out/b.jsonl" '"type":"exit"'
	# one with a second name (a hard link to another file) is refused
	echo secret > "$T/out/other"
	ln "$T/out/other" "$T/out/c.jsonl"
	rm -f "$T/rw/ran"
	run_marking --audit "$T/out/c.jsonl"
	refused "an audit file with two names" 2
	expect_line "$T/err" "audit: $T/out/c.jsonl exists but has more than one name"
	expect_eq "the other name's file" "$(cat "$T/out/other")" secret
}

# The command prints records of its own on its standard error, which is warden's: without
# --audit they must not be in the audit stream.
test_forged_record_on_stderr_is_not_in_the_audit_stream() {
	claims audit.sink yes yes
	setup /bin "" "/bin /usr/bin"
	forged='{"schema":"warden.audit/1","seq":1,"type":"file","op":"open","target":"/etc/shadow","verdict":"allow","forged":true}'
	# control: the command's standard error is warden's own stream
	rc=0
	wrun --policy "$T/p.json" -- /bin/sh -c "echo '$forged' >&2" > "$T/run.out" 2> "$T/err" ||
		rc=$?
	expect_eq "exit status" "$rc" 0
	expect_line "$T/err" '"forged":true'
	# so the records are elsewhere, and warden's first line says where
	first=$(head -n1 "$T/err")
	case $first in
	"warden: audit records of sandbox sb-"*" go to $WARDEN_RUN_DIR/audit/sb-"*.jsonl) ;;
	*) fail "first line on stderr: got '$first', want where the audit records go" ;;
	esac
	sink=${first##* go to }
	[ -f "$sink" ] || fail "no audit file $sink"
	expect_eq "audit file mode" "$(stat -c %a "$sink")" 600
	expect_line "$sink" '"type":"start"'
	expect_line "$sink" '"type":"exit"' '"status":"completed"'
	# (the start record's argv holds the text, as a string: a record of its own is a line)
	if grep -qxF "$forged" "$sink"; then
		fail "the command's forged record is in the audit stream: $(cat "$sink")"
	fi
	if grep '"schema":"warden.audit/1"' "$T/err" | grep -qvxF "$forged"; then
		fail "warden's own records went to the stream the command writes"
	fi
}

# keeper_of WARDEN_PID: that run's keeper (a child named warden-keeper).
keeper_of() {
	for c in $(cat "/proc/$1/task/$1/children"); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = warden-keeper ] && { echo "$c"; return; }
	done
	fail "run $1 has no keeper"
}

# warden dies; meanwhile the audit file's name is swapped for a link to another file, and the
# report's name (not there yet) made a link too. The keeper writes the exit record (and a
# successor its records) to the file the run opened, and the report into the file the run made,
# renamed over the link, never through it.
test_keeper_and_adopt_write_to_the_file_opened_not_the_name() {
	claims files.keeper-reopen yes yes
	setup
	echo original > "$T/victim"
	mkdir -p "$T/out"
	# control: reopening the name after the swap reaches the other file
	echo kept > "$T/out/x"
	mv "$T/out/x" "$T/out/x.old" && ln -s "$T/victim" "$T/out/x"
	echo appended >> "$T/out/x"
	expect_eq "control: a reopened name" "$(tail -n1 "$T/victim")" appended
	echo original > "$T/victim"
	rm "$T/out/x" "$T/out/x.old"
	for how in keeper adopt; do
		rm -f "$T/rw/ready" "$T/rw/go" "$T/out/a.jsonl" "$T/out/a.jsonl.old" "$T/out/r.json"
		mkfifo "$T/rw/ready" "$T/rw/go"
		survive=
		[ $how = adopt ] && survive="--survive 120"
		# shellcheck disable=SC2086
		"$WARDEN" run --backend "$BACKEND" $survive --policy "$T/p.json" \
			--audit "$T/out/a.jsonl" --report "$T/out/r.json" -- "$BIN/wd-try" gate "$T/rw/ready" "$T/rw/go" \
			> "$T/out.txt" 2> "$T/err" &
		run=$!
		trap 'kill $run 2>/dev/null || true' EXIT
		read -r line < "$T/rw/ready"
		expect_eq gate "$line" ready
		sb=$(record_field "$(line_with_all "$T/out/a.jsonl" '"type":"start"')" sandbox)
		keeper=$(keeper_of "$run") || exit 1
		# the keeper has the audit file once warden gave it over (after the command started:
		# under load the gate can say ready first)
		for _ in $(seq 1 200); do
			ls -l "/proc/$keeper/fd" 2>/dev/null | grep -q "$T/out/a.jsonl" && break
			sleep 0.05
		done
		# swapped while warden lives, so the keeper (or successor) comes to it after
		mv "$T/out/a.jsonl" "$T/out/a.jsonl.old"
		ln -s "$T/victim" "$T/out/a.jsonl"
		ln -s "$T/victim" "$T/out/r.json"
		kill -KILL "$run"
		wait "$run" 2>/dev/null || true
		if [ $how = adopt ]; then
			timeout 60 "$BIN/wd-try" wait-line "$T/err" "waits up to 120 s for" > /dev/null ||
				fail "the keeper did not wait for a successor: $(cat "$T/err")"
			"$WARDEN" adopt --wait 60 "$sb" > "$T/adopt.out" 2>&1 &
			adopter=$!
			timeout 120 "$BIN/wd-try" wait-line "$T/out/a.jsonl.old" '"type":"adopt"' \
				"$adopter" > /dev/null ||
				fail "the successor wrote no adopt record to the run's file: $(cat "$T/adopt.out")"
			exec 9> "$T/rw/go"
			exec 9>&-
			timeout 120 "$BIN/wd-try" wait-exit "$adopter" > /dev/null ||
				fail "the successor did not end with the sandbox"
		fi
		# (embedded: the keeper kills the sandbox, and writes its exit record)
		timeout 60 "$BIN/wd-try" wait-exit "$keeper" > /dev/null ||
			fail "the keeper ($keeper) did not end within 60 s"
		expect_eq "$how: the file the swapped name links to" "$(cat "$T/victim")" original
		expect_line "$T/out/a.jsonl.old" '"type":"exit"' "\"sandbox\":\"$sb\""
		[ -f "$T/out/r.json" ] && [ ! -L "$T/out/r.json" ] ||
			fail "$how: the report was not renamed over the link at its name"
		expect_eq "$how: the report's writer" "$(report_field "$T/out/r.json" writer)" "$how"
		rm -f "$T/out/a.jsonl"
	done
}
