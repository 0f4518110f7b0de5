# SPDX-License-Identifier: GPL-2.0
# Nothing of warden's leaks in, and the exit status is the kernel's (issue #12, principles 2 and
# 3): warden's environment stays out of the command's, the sandbox's init (pid 1 of its pid
# namespace) holds nothing of warden's and the command cannot read or take what it holds, and a
# status the command writes where the init reports is never the one warden gives.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

L="$BIN/wd-leak"
SECRET=s3cret-wd-leak

# leak_setup: the escape policy, reading /proc too (so that what stops a read of /proc/1 is the
# init's protection, not a file rule), with its own pid namespace on every backend (bpf-lsm has
# none unless asked), so that the sandbox has an init.
leak_setup() {
	setup /proc
	sed -i 's|}}$|},"namespaces":{"pid":"private"}}|' "$T/p.json"
}

# expect_absent WHAT OUT: OUT says the text is not there, or that it could not be read.
expect_absent() {
	case $2 in
	absent | EPERM | EACCES | EIO | ESRCH) ;;
	*) fail "$1 in the sandbox: got '$2', want it absent or unreadable" ;;
	esac
}

test_env_secret_stays_out() {
	claims leak.env yes yes
	setup /proc
	control "a secret in warden's environment, seen by a plain command" found \
		env WD_TEST_SECRET="$SECRET" "$BIN/wd-leak" grep self environ "$SECRET"
	out=$(WD_TEST_SECRET="$SECRET" inside "$L" grep self environ "$SECRET")
	expect_eq "the secret in the sandbox, by default" "$out" absent
	# what the default passes is the documented list, and PATH is warden's own
	out=$(PATH="$T/bin:/usr/bin:/bin" inside "$BIN/wd-try" env)
	printf '%s\n' "$out" > "$T/env"
	expect_line "$T/env" "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	expect_line "$T/env" "HOME=/root"
	expect_line "$T/env" "USER=root"
	# env.pass names it: then it passes
	sed -i 's|}}$|},"env":{"pass":["WD_TEST_SECRET"]}}|' "$T/p.json"
	out=$(WD_TEST_SECRET="$SECRET" inside "$L" grep self environ "$SECRET")
	expect_eq "the secret in the sandbox, with env.pass naming it" "$out" found
}

test_init_unreadable() {
	claims leak.init yes yes
	leak_setup
	start_victim_env
	# control: a process of the test's own, outside, gives all of it away
	control "its environment" found "$L" grep "$victim" environ "$SECRET"
	control "its command line" found "$L" grep "$victim" cmdline "$T/p.json"
	control "its maps" found "$L" grep "$victim" maps libc
	control "its memory" ok "$L" mem "$victim"
	control "its descriptors" ok "$L" getfd "$victim"
	out=$(WD_TEST_SECRET="$SECRET" inside "$L" grep 1 environ "$SECRET")
	expect_absent "warden's environment in /proc/1/environ" "$out"
	# warden's command line (the policy's path) is not the init's
	expect_absent "warden's argv in /proc/1/cmdline" "$(inside "$L" grep 1 cmdline "$T/p.json")"
	# warden's memory is not the init's: none of warden's libraries are mapped there
	expect_absent "warden's libraries in /proc/1/maps" "$(inside "$L" grep 1 maps libbpf)"
	expect_denied "reading /proc/1/mem" "$(inside "$L" mem 1)"
	expect_denied "pidfd_getfd of the init's descriptors" "$(inside "$L" getfd 1)"
	# the caller's streams are not the init's: at most its status channel, or nothing to see
	out=$(inside "$L" fds 1)
	case $out in
	0 | 1 | EPERM | EACCES) ;;
	*) fail "the init's descriptors, listed from the sandbox: got '$out', want at most 1" ;;
	esac
}

# Without an init (bpf-lsm without namespaces.pid) the command's parent is warden itself, and on
# every backend its keeper and supervisors are outside the sandbox: none of them can be read.
test_supervisor_unreadable() {
	claims escape.ptrace yes yes
	setup /proc
	start_victim_env
	control "the environment of a process outside" found "$L" grep "$victim" environ "$SECRET"
	out=$(WD_TEST_SECRET="$SECRET" inside "$L" grep ppid environ "$SECRET")
	if on_bpf_lsm; then
		expect_denied "warden's /proc/PID/environ" "$out"
		expect_denied "warden's /proc/PID/mem" "$(inside "$L" mem ppid)"
		expect_denied "pidfd_getfd of warden's descriptors" "$(inside "$L" getfd ppid)"
	else
		# its own pid namespace: the parent is the init, warden is not there to name
		expect_absent "the parent's /proc/PID/environ" "$out"
		expect_eq "the command's parent" "$(inside "$L" grep ppid cmdline warden-init)" found
	fi
}

# A process outside with the secret in its environment and the policy's path in its argv; its
# pid in $victim (killed by the test's EXIT trap).
start_victim_env() {
	WD_TEST_SECRET="$SECRET" bash -c 'read -r _ < <(sleep 60; echo)' "$T/p.json" &
	victim=$!
	trap 'kill $victim 2>/dev/null' EXIT
	# the process is there once /proc says it runs bash (not the subshell still forking)
	for _ in $(seq 200); do
		[ "$(cat /proc/$victim/comm 2>/dev/null)" = bash ] && break
		read -rt 0.05 <> <(:) || :
	done
}

test_fake_exit_status() {
	claims trust.exit-status yes yes
	leak_setup
	# control: outside, what a process holds can be written through /proc/PID/fd
	sleep 60 < /dev/null > /dev/null 2>&1 3> "$T/sink" &
	victim=$!
	trap 'kill $victim 2>/dev/null' EXIT
	# its fd 3 is there once the shell's child has made its redirections (under load, later)
	for _ in $(seq 1 200); do
		[ "$(readlink "/proc/$victim/fd/3" 2>/dev/null)" = "$T/sink" ] && break
		sleep 0.05
	done
	out=$("$L" fake-status "$victim" 0 3)
	[ "$out" != "wrote 0" ] && [ -s "$T/sink" ] ||
		fail "control: writing through /proc/$victim/fd outside a sandbox: got '$out'"
	# inside: the command writes a fake status (42) wherever the init reports, then exits 3
	rc=0
	wrun --policy "$T/p.json" --report "$T/report.json" --audit "$T/audit" -- \
		"$L" fake-status 1 3 > "$T/out" 2> "$T/err" || rc=$?
	expect_line "$T/out" "wrote"
	expect_eq "exit status warden reports" "$rc" 3
	expect_eq "the report's exit code" "$(report_field "$T/report.json" exit_code)" 3
	expect_line "$T/audit" '"type":"exit"' '"exit_code":3'
}
