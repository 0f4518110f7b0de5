# SPDX-License-Identifier: GPL-2.0
# Attacks on the monitor and identity escapes (DESIGN.md threat model): bpf(), ptrace and
# signals to host processes, leaving the sandbox cgroup, user namespaces, TIOCSTI. And a host
# process doing the same meanwhile is unaffected.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

test_bpf_syscall() {
	claims escape.bpf yes yes
	setup
	control "bpf()" ok "$BIN/wd-try" bpf
	expect_eq "bpf() in the sandbox" "$(inside "$BIN/wd-try" bpf)" EPERM
	expect_line "$T/audit" '"type":"syscall"' '"target":"bpf"' '"verdict":"deny"' \
		'"rule":"self-protection"' '"errno":"EPERM"'
}

test_ptrace_host_process() {
	claims escape.ptrace yes yes
	setup
	# A victim without capabilities: the sandbox has none either, so the kernel's own check
	# (the tracer's capabilities must cover the tracee's) passes and warden's rule is what
	# refuses. It has dropped them once it has written to the fifo.
	mkfifo "$T/ready"
	"$BIN/wd-privs" nocaps sh -c 'echo > "$0"; exec sleep 60' "$T/ready" &
	victim=$!
	trap 'kill $victim 2>/dev/null' EXIT
	read -r _ < "$T/ready"
	expect_eq "the victim's capabilities" "$("$BIN/wd-privs" caps-of "$victim")" "0 0 0 0 0"
	control ptrace ok "$E" ptrace "$victim"
	expect_eq "ptrace of a host process" "$(inside "$E" ptrace "$victim")" EPERM
	expect_line "$T/audit" '"type":"syscall"' '"target":"ptrace"' '"verdict":"deny"' \
		'"rule":"self-protection"'
}

test_kill_host_process() {
	claims escape.kill yes yes
	setup
	start_victim
	control "kill (signal 0)" ok "$E" kill "$victim" 0
	out=$(inside "$E" kill "$victim" 9)
	kill -0 "$victim" || fail "the host process was killed from the sandbox"
	if on_bpf_lsm; then
		expect_eq "kill of a host process" "$out" EPERM
		expect_line "$T/audit" '"type":"syscall"' '"target":"kill"' '"verdict":"deny"' \
			'"rule":"self-protection"'
	else
		# the sandbox's own pid namespace has no such process
		expect_eq "kill of a host process" "$out" ESRCH
	fi
	# its own processes it may signal
	expect_eq "kill of its own process group" "$(inside "$E" kill 0 0)" ok
}

test_cgroup_procs_write() {
	claims escape.cgroup-procs yes partly
	cg2=$(cgroup2_mount)
	setup
	control "write of cgroup.procs" ok "$E" write-str "$cg2/cgroup.procs" 0
	if on_bpf_lsm; then
		# refused even where fs.write covers cgroupfs
		setup "" "$cg2"
	fi
	out=$(inside "$E" write-str "$cg2/cgroup.procs" 0)
	expect_denied "write of cgroup.procs" "$out"
	if on_bpf_lsm; then
		expect_line "$T/audit" '"op":"open"' "\"target\":\"$cg2/cgroup.procs\"" \
			'"verdict":"deny"' '"rule":"self-protection"'
	else
		expect_line "$T/audit" '"op":"open"' "\"target\":\"$cg2/cgroup.procs\"" \
			'"verdict":"deny"'
	fi
}

test_new_user_namespace() {
	claims escape.userns yes yes
	setup
	control "unshare(CLONE_NEWUSER)" ok "$E" userns
	expect_eq "a user namespace in the sandbox" "$(inside "$E" userns)" EPERM
	expect_line "$T/audit" '"type":"syscall"' \
		"\"target\":\"$(pick userns unshare)\"" '"rule":"self-protection"'
}

test_tiocsti() {
	claims escape.tiocsti yes yes
	setup "/dev/ptmx /dev/pts" "/dev/ptmx /dev/pts"
	control TIOCSTI ok "$E" tiocsti
	out=$(inside "$E" tiocsti)
	if ! on_bpf_lsm && [ "$out" != EPERM ]; then
		# the landlock sandbox may fail earlier, at the pty itself (Landlock's device ioctl
		# right from ABI 5, the sandbox's own mounts): the attack still failed
		[ "$out" != ok ] || fail "TIOCSTI worked in the sandbox"
		return 0
	fi
	expect_eq "TIOCSTI in the sandbox" "$out" EPERM
	expect_line "$T/audit" '"type":"syscall"' '"target":"ioctl"' '"verdict":"deny"' \
		'"rule":"self-protection"'
}

# While a sandbox runs (held at a gate), a host process does what the sandbox may not.
test_host_process_unaffected() {
	setup
	start_victim
	mkfifo "$T/rw/ready" "$T/rw/go"
	wrun --policy "$T/p.json" --audit "$T/audit" \
		-- "$BIN/wd-try" gate "$T/rw/ready" "$T/rw/go" > "$T/gate.out" &
	wpid=$!
	trap 'kill $victim $wpid 2>/dev/null' EXIT
	read -r line < "$T/rw/ready"
	expect_eq gate "$line" ready
	cp "$BIN/wd-try" "$T/allowed/payload"
	for op in "create $T/allowed/new" "mkdir $T/allowed/d" "rmdir $T/allowed/d" \
		"link $T/secret $T/allowed/alias" "rename $T/allowed/alias $T/allowed/moved" \
		"unlink $T/allowed/moved" "symlink $T/secret $T/allowed/ln" "truncate $T/allowed/new" \
		"chmod $T/allowed/file" "mmap-exec $T/allowed/file" "mprotect-exec $T/allowed/file" \
		"ptrace $victim" "kill $victim 0" "userns" "uring-cat $T/secret"; do
		# shellcheck disable=SC2086
		out=$("$E" $op)
		case $op in uring-cat*) want=secret ;; *) want=ok ;; esac
		expect_eq "host: $op" "$out" "$want"
	done
	expect_eq "host: bpf()" "$("$BIN/wd-try" bpf)" ok
	expect_eq "host: ld.so BINARY" "$("$LOADER" "$T/allowed/payload" read "$T/secret")" ok
	exec 9> "$T/rw/go"
	exec 9>&-
	wait $wpid
	expect_eq "sandbox result" "$(cat "$T/gate.out")" ok
}

# A root process in the sandbox reaches the run's holds socket (neither backend decides a
# connect to a unix socket by its path): it must not answer its own held delete.
test_approve_own_hold_from_inside() {
	claims escape.self-approve yes yes
	# the strongest attacker: the run directory is readable, so the CLI finds the socket
	mkdir -p -m 700 "$WARDEN_RUN_DIR"
	setup "/dev/null $WARDEN_RUN_DIR" "" "/usr/bin /bin"
	mkdir -p "$T/rw/app"
	echo a > "$T/rw/app/f"
	mkfifo "$T/rw/go"
	touch "$T/rw/approve.rc"
	sed -i "s|\"fs\":{|\"fs\":{\"protect\":[{\"path\":\"$T/rw/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}],|" \
		"$T/p.json"
	touch "$T/audit"
	wrun --policy "$T/p.json" --audit "$T/audit" -- sh -c "
		(rm -rf $T/rw/app; echo \$? > $T/rw/rm.rc) &
		read x < $T/rw/go
		WARDEN_RUN_DIR=$WARDEN_RUN_DIR $WARDEN approve --scope sandbox 1 > $T/rw/approve.out 2>&1
		echo \$? > $T/rw/approve.rc; wait" > "$T/out" 2> "$T/err" &
	run=$!
	line=$(wait_record "$T/audit" '"type":"hold"' "$run") || fail "$(cat "$T/err")"
	# control: the same approval from outside the sandbox is heard (checked, not sent, here)
	"$WARDEN" holds > "$T/holds" || fail "warden holds outside the sandbox failed"
	expect_line "$T/holds" "$T/rw/app"
	echo go > "$T/rw/go"
	timeout 120 "$BIN/wd-try" wait-line "$T/rw/approve.rc" "" "$run" > /dev/null ||
		fail "the approval inside never ended: $(cat "$T/err")"
	[ "$(cat "$T/rw/approve.rc")" != 0 ] ||
		fail "a process inside the sandbox approved its own hold: $(cat "$T/rw/approve.out")"
	expect_line "$T/rw/approve.out" "may not list or decide the holds" "from outside every sandbox"
	[ -e "$T/rw/app/f" ] || fail "the held delete ran on the sandbox's own approval"
	decide deny "$line" > /dev/null || fail "the hold was not pending any more"
	wait "$run" || true
	[ -e "$T/rw/app/f" ] || fail "a denied delete ran"
}
