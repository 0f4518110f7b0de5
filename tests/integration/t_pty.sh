# SPDX-License-Identifier: GPL-2.0
# warden run on a terminal: the command gets a pseudo-terminal of its own, relayed by warden
# (supervisor/run/pty.c). Driven by tests/helpers/wd-pty, which is the caller's terminal: it waits
# for output, never for time.
WHERE=any
BACKENDS="bpf-lsm landlock"

P="$BIN/wd-pty"

# pty_policy: read the system, write $T, run what a shell needs (and map its libraries).
pty_policy() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","/proc","%s","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s","/lib/x86_64-linux-gnu","/usr/lib/x86_64-linux-gnu"]}}\n' \
		"$BIN" "$T" "$T" "$BIN" "$LOADER" > "$T/p.json"
}

# ptyrun STEPS... -- CMD...: wd-pty STEPS around warden run of CMD; its printout in $T/drv.
ptyrun() {
	local steps=() a
	while [ $# -gt 0 ] && [ "$1" != -- ]; do steps+=("$1"); shift; done
	shift
	"$P" -t 120 "${steps[@]}" -- "$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" \
		--audit "$WD_OUT/audit" -- "$@" > "$T/drv" 2> "$T/drv.err" ||
		fail "wd-pty: $(cat "$T/drv.err")"
}

# drv KEY: the value of "KEY: ..." lines of the driver's printout, one per line.
drv() {
	sed -n "s/^$1: //p" "$T/drv"
}

test_pty_the_command_has_a_terminal_of_its_own() {
	pty_policy
	ptyrun modes0 wait modes eof show -- sh -c 'test -t 0 && test -t 1 && test -t 2 &&
		echo all-tty; tty; ls -l /proc/self/fd/0 | grep -c pts'
	grep -q all-tty "$T/drv" || fail "fds 0-2 are not terminals inside: $(cat "$T/drv")"
	grep -q '^/dev/pts/' "$T/drv" || fail "tty names no pts: $(cat "$T/drv")"
	expect_eq "exit" "$(drv exit)" 0
	# the caller's terminal is left as it was found
	expect_eq "modes after the run" "$(drv modes | tail -n1)" "$(drv modes | head -n1)"
}

test_pty_job_control_in_bash() {
	pty_policy
	# "st''arted" is echoed as typed: only the running command prints "started", and bash
	# has given it the terminal by then
	ptyrun 'expect=$ ' "send=sh -c 'echo st''arted; exec sleep 100'\r" expect=started \
		'send=\x03' 'send=echo after-int $?\r' 'expect=after-int 130' \
		"send=sh -c 'echo st''opme; exec sleep 200'\r" expect=stopme 'send=\x1a' \
		expect=Stopped 'send=jobs\r' 'expect=Stopped' 'send=kill -9 %1\r' \
		"send=fg %1 >/dev/null 2>&1; echo still''-here\r" 'expect=still-here' 'send=exit 7\r' wait \
		-- env PS1='$ ' bash --norc --noprofile -i
	# `wait` returns at once for a job that is stopped, so bash may not have reaped the killed
	# one by `exit` ("There are stopped jobs."); `fg` continues it and blocks until it is gone
	# (or finds it already reaped): either way no stopped job is left.
	# ^C and ^Z went to the job inside, not to warden: bash went on and chose the exit status
	expect_eq "exit" "$(drv exit)" 7
}

test_pty_window_size_follows() {
	pty_policy
	# the trap is set before the first line: the resize cannot come before it
	ptyrun -s 30x100 expect=first:30x100 resize=50x132 expect=resized:50x132 wait size -- \
		bash -c 'trap "echo resized:\$(stty size | tr \" \" x); exit 0" WINCH
			echo "first:$(stty size | tr " " x)"
			sleep 100 & wait'
	expect_eq "exit" "$(drv exit)" 0
	expect_eq "caller's size" "$(drv size)" 50x132
}

test_pty_output_complete_after_exit() {
	pty_policy
	# far more than the pty buffers hold, and the command ends at once after writing it
	ptyrun wait eof 'expect=49999\r\n50000\r\nEND' -- sh -c 'seq 1 50000; echo END'
	expect_eq "exit" "$(drv exit)" 0
}

test_pty_exit_status_passed_through() {
	pty_policy
	ptyrun wait -- sh -c 'exit 42'
	expect_eq "exit" "$(drv exit)" 42
	ptyrun wait -- sh -c 'kill -TERM $$'
	expect_eq "exit of a killed command" "$(drv exit)" 143
}

test_pty_no_terminal_no_pty() {
	pty_policy
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		'test -t 0 || echo in-plain; test -t 1 || echo out-plain; test -t 2 || echo err-plain' \
		< /dev/null > "$T/out" 2> "$T/err"
	expect_eq "stdio without a terminal" "$(tr '\n' ' ' < "$T/out")" \
		"in-plain out-plain err-plain "
}

test_pty_only_the_terminal_fds_get_it() {
	pty_policy
	# `warden run ... | less`: stdout stays the pipe, byte for byte; stdin and stderr are the pty
	"$P" -o expect=in-tty,err-tty wait pipe=out-plain -- "$WARDEN" run --backend "$BACKEND" \
		--policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		'test -t 1 || echo out-plain; test -t 0 && test -t 2 && echo in-tty,err-tty >&2' \
		> "$T/drv" 2> "$T/drv.err" || fail "wd-pty -o: $(cat "$T/drv.err")"
	# `warden run ... < /dev/null`: stdin stays /dev/null
	"$P" -n expect=in-plain,out-tty wait -- "$WARDEN" run --backend "$BACKEND" \
		--policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		'test -t 0 || { test -t 1 && echo in-plain,out-tty; }' \
		> "$T/drv" 2> "$T/drv.err" || fail "wd-pty -n: $(cat "$T/drv.err")"
}

test_pty_prompt_owns_the_terminal_while_it_asks() {
	mkdir -p "$T/app"
	echo x > "$T/app/f"
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s","/lib/x86_64-linux-gnu","/usr/lib/x86_64-linux-gnu"],"protect":[{"path":"%s/app","ops":["delete"],"action":"hold"}]}}\n' \
		"$BIN" "$T" "$T" "$BIN" "$LOADER" "$T" > "$T/p.json"
	# The answer key goes to the prompt, not to the command (which would echo it: its
	# terminal is in the caller's modes); then the relay goes on and the command reads "go".
	"$P" -t 120 modes0 'expect=[a]pprove once' send=a 'expect=removed' 'send=go\r' \
		'expect=read:[go]' wait modes -- "$WARDEN" run --backend "$BACKEND" --prompt \
		--policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		'rm '"$T"'/app/f && echo removed; read x; echo "read:[$x]"' \
		> "$T/drv" 2> "$T/drv.err" || fail "wd-pty --prompt: $(cat "$T/drv.err")"
	[ ! -e "$T/app/f" ] || fail "the approved delete did not happen"
	expect_eq "exit" "$(drv exit)" 0
	expect_eq "modes after the run" "$(drv modes | tail -n1)" "$(drv modes | head -n1)"
}

# keeper_of SANDBOX: the pid of the warden-keeper of SANDBOX (its argv names the cgroup)
keeper_of() {
	local f
	for f in /proc/[0-9]*/cmdline; do
		if tr '\0' ' ' < "$f" 2>/dev/null | grep -q "^warden-keeper .* $1 "; then
			f=${f%/cmdline}
			echo "${f#/proc/}"
			return
		fi
	done
}

test_pty_survive_keeps_the_terminal_for_adopt() {
	pty_policy
	# warden dies (SIGKILL: nothing restores the modes); the keeper's copy of the master keeps
	# the command's terminal from hanging up, and `warden adopt` relays it on its own terminal
	"$P" -t 120 expect=started kill=KILL wait -- "$WARDEN" run --backend "$BACKEND" \
		--survive 120 --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		'echo st""arted; read x; echo "got:[$x]"; exit 5' > "$T/drv" 2> "$T/drv.err" ||
		fail "wd-pty run --survive: $(cat "$T/drv.err")"
	expect_eq "warden" "$(drv signal)" 9
	sb=$(record_field "$(line_with_all "$WD_OUT/audit" '"type":"start"')" sandbox)
	[ -n "$sb" ] || fail "no start record in $WD_OUT/audit"
	# the keeper was never in warden's session: the hang-up of its terminal's foreground group
	# (warden led that session) was not for it (it once died of it, when still starting)
	kp=$(keeper_of "$sb")
	[ -n "$kp" ] || fail "no keeper of $sb after warden died"
	expect_eq "the keeper's session" "$(awk '{print $6}' "/proc/$kp/stat")" "$kp"
	"$P" -t 120 'send=go\r' 'expect=got:[go]' wait -- "$WARDEN" adopt --audit "$WD_OUT/audit2" \
		--wait 60 "$sb" > "$T/drv" 2> "$T/drv.err" ||
		fail "wd-pty adopt: $(cat "$T/drv.err")"
	# the command's status where the sandbox has an init (landlock); "ended" on bpf-lsm
	if [ "$EXPECT_BACKEND" = bpf-lsm ]; then
		expect_line "$WD_OUT/audit2" '"type":"exit"' '"status":"ended"'
	else
		expect_line "$WD_OUT/audit2" '"type":"exit"' '"exit_code":5'
	fi
}

# The live status line: on the caller's terminal, at most once a second, only where the command's
# output left the cursor at a line's start, and wiped (\r, erase line) before any more of it: it
# never mixes with the command's output. --quiet: none.
test_pty_status_line_stays_apart_from_the_output() {
	local esc
	esc=$(printf '\033')
	pty_policy
	ptyrun expect=line-one expect=elapsed 'send=go\r' 'expect=line-two go' wait eof show -- \
		sh -c 'echo line-one; read x; echo line-two $x'
	expect_eq "exit" "$(drv exit)" 0
	# drawn after a wipe, and wiped again before what was typed was echoed
	grep -a -q "${esc}\[Kwarden: 0:0[0-9] elapsed.*, 0 denials${esc}\[Kgo" "$T/drv" ||
		fail "no status line, or not kept apart: $(cat -v "$T/drv")"
	# no line of the command's holds any of it
	if grep -a 'line-one\|line-two' "$T/drv" | grep -a -q 'elapsed'; then
		fail "the status line mixed with the command's output: $(cat -v "$T/drv")"
	fi
	"$P" -t 120 expect=line-one 'send=go\r' 'expect=line-two go' wait eof show -- \
		"$WARDEN" run --quiet --backend "$BACKEND" --policy "$T/p.json" \
		--audit "$WD_OUT/audit" -- sh -c 'echo line-one; read x; echo line-two $x' \
		> "$T/drv" 2> "$T/drv.err" || fail "wd-pty: $(cat "$T/drv.err")"
	if grep -a -q 'elapsed' "$T/drv"; then
		fail "--quiet drew a status line: $(cat -v "$T/drv")"
	fi
}
