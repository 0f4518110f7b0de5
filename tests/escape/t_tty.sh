# SPDX-License-Identifier: GPL-2.0
# Attacks on the caller's terminal (docs/threat-model.md, "The terminal is warden's"): typing
# into it, taking it over, hanging it up, changing its modes, by fd and by name. Each runs
# first as a plain process on a terminal of tests/helpers/wd-pty (the control: it works
# there), then in a sandbox run on such a terminal; wd-pty then says what became of it.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

P="$BIN/wd-pty"

# drive STEPS... -- CMD...: wd-pty on a fresh terminal; its printout in $T/drv.
drive() {
	"$P" -t 120 "$@" > "$T/drv" 2> "$T/drv.err" || fail "wd-pty: $(cat "$T/drv.err")"
}

# drv KEY: the values of the driver's "KEY: ..." lines, one per line.
drv() {
	sed -n "s/^$1: //p" "$T/drv"
}

# tty_inside STEPS... -- ARGS...: drive warden run of wd-pty attack ARGS in the sandbox.
tty_inside() {
	local steps=()
	while [ "$1" != -- ]; do steps+=("$1"); shift; done
	shift
	drive "${steps[@]}" -- "$WARDEN" run --backend "$BACKEND" --policy "$T/p.json" \
		--audit "$T/audit" -- "$P" attack "$@"
}

test_tiocsti_does_not_reach_the_callers_terminal() {
	claims escape.tiocsti yes yes
	setup
	drive expect=ok wait inq -- "$P" attack sti INJECTED
	[ "$(drv inq)" -gt 0 ] || fail "control: TIOCSTI left no input on the terminal: $(cat "$T/drv")"
	tty_inside wait inq -- sti INJECTED
	expect_eq "input typed into the caller's terminal from the sandbox" "$(drv inq)" 0
}

test_caller_terminal_cannot_be_stolen() {
	claims escape.terminal yes yes
	setup
	# a process of another session takes the terminal over (TIOCSCTTY, force): root may
	drive ctty expect=ok ctty wait -- "$P" attack steal
	expect_eq "control: the terminal's session after a steal" "$(drv ctty | tr '\n' ' ')" \
		"ours other "
	tty_inside ctty expect=ready ctty 'send=\r' wait -- steal wait
	expect_eq "the caller's terminal's session while the sandbox ran" \
		"$(drv ctty | tr '\n' ' ')" "ours ours "
}

test_caller_terminal_cannot_be_hung_up() {
	claims escape.terminal yes yes
	setup
	drive wait alive -- "$P" attack hangup
	expect_eq "control: vhangup after a steal" "$(drv tty)" "hung up"
	tty_inside wait alive -- hangup
	expect_eq "the caller's terminal after vhangup in the sandbox" "$(drv tty)" alive
}

test_caller_terminal_modes_are_not_changed() {
	claims escape.terminal yes yes
	setup
	drive modes0 expect=ready modes 'send=\r' wait -- "$P" attack raw wait
	[ "$(drv modes | head -n1)" != "$(drv modes | tail -n1)" ] ||
		fail "control: tcsetattr did not change the terminal's modes"
	tty_inside modes0 expect=ready 'send=\r' wait modes -- raw wait
	expect_eq "the caller's modes after the sandbox set raw -echo" \
		"$(drv modes | tail -n1)" "$(drv modes | head -n1)"
}

# By name, the fd is not needed: /dev/pts/N of the caller, where fs.read covers /dev/pts. Only
# Landlock's IOCTL_DEV right (ABI 5) refuses the ioctls on it; the table says so.
test_caller_terminal_by_name() {
	claims escape.terminal-name no partly
	# the worst case: the policy reads all of /dev
	setup /dev
	drive modes0 expect=ready 'send=\r' wait modes -- "$P" attack open @TTY@ wait
	[ "$(drv modes | head -n1)" != "$(drv modes | tail -n1)" ] ||
		fail "control: opening the terminal by name did not let its modes change"
	drive modes0 expect=ready 'send=\r' wait show -- "$WARDEN" run --backend "$BACKEND" \
		--policy "$T/p.json" --audit "$T/audit" -- "$P" attack open @TTY@ wait
	out=$(sed -n '/^exit: /,$p' "$T/drv" | sed -n 2p)
	abi=$(landlock_abi)
	if ! on_bpf_lsm && [ "${abi:-0}" -ge 5 ]; then
		expect_denied "setting the caller's terminal raw by its name" "$out"
	else
		# no IOCTL_DEV (bpf-lsm, Landlock before ABI 5): the table says no / partly
		expect_eq "setting the caller's terminal raw by its name" "$out" ok
	fi
}

test_signals_to_warden_restore_the_callers_modes() {
	claims escape.terminal yes yes
	setup
	for sig in TERM INT HUP QUIT; do
		tty_inside modes0 expect=ready kill=$sig wait modes -- raw wait
		expect_eq "the caller's modes after SIG$sig to warden mid-run" \
			"$(drv modes | tail -n1)" "$(drv modes | head -n1)"
	done
}
