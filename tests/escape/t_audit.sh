# SPDX-License-Identifier: GPL-2.0
# The audit stream tells the truth whatever the sandbox does (issue 12, principle 4): names that
# are no UTF-8 still give lines a strict parser takes, and a thread moving the shared cwd cannot
# make a denial name another file.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

A="$BIN/wd-auditck"

# b64 STRING: its bytes in base64, one line.
b64() {
	printf '%s' "$1" | base64 -w0
}

test_invalid_utf8_target() {
	claims audit.utf8 yes yes
	setup
	local bad
	# an invalid byte, an overlong "/", a lone surrogate, a four-byte sequence cut short
	for bad in $'secret\xff' $'secret\xc0\xaf' $'secret\xed\xa0\x80' $'secret\xf0\x9f\x98'; do
		echo secret > "$T/$bad"
		control "read $(b64 "$bad")" secret "$E" cat "$T/$bad"
		expect_denied "read of a file named $(b64 "$bad")" "$(inside "$E" cat "$T/$bad")"
		expect_line "$T/audit" '"verdict":"deny"' "\"target_b64\":\"$(b64 "$T/$bad")\""
	done
	# and a comm that is no UTF-8, the task's own to set
	cp "$E" "$T/bin/"$'wd\xffx'
	expect_denied "read under a bad comm" "$(inside "$T/bin/"$'wd\xffx' cat "$T/secret")"
	expect_line "$T/audit" '"verdict":"deny"' "\"comm_b64\":\"$(b64 $'wd\xffx')\""
	out=$("$A" lines "$T/audit") || fail "the audit stream is not strict JSON lines: $out"
}

# One thread opens a denied file by a relative name while another moves the cwd they share to a
# directory where the name is missing and back: every denial happened in the real directory, so
# a record naming the other one (or nothing absolute) would be a lie.
test_cwd_moved_by_another_thread() {
	claims audit.cwd yes yes
	setup
	local n=200 out denied named unknown wrong
	# control: outside, the racing opens are refused by nothing, so they all succeed or miss
	out=$("$A" race-cwd "$T" "$T/allowed" secret 1)
	expect_eq "control: opens outside a sandbox" "$out" "denied 0 other 10000"
	# a relative name and a still cwd: the record names the file
	expect_denied "relative read" "$(cd "$T/allowed" && inside "$E" cat ../secret)"
	# (bpf-lsm: the object's resolved path; landlock: the base the call had, then the name)
	expect_line "$T/audit" '"op":"open"' \
		"\"target\":\"$(pick "$T/secret" "$T/allowed/../secret")\"" '"verdict":"deny"'
	: > "$T/audit"
	out=$(inside "$A" race-cwd "$T" "$T/allowed" secret $n)
	denied=${out#denied }
	denied=${denied%% *}
	[ "${denied:-0}" -gt 0 ] 2>/dev/null || fail "no open was denied: '$out' ($(cat "$T/err"))"
	grep -q '"type":"lost"' "$T/audit" && fail "records were lost: the count cannot be checked"
	named=$(grep '"op":"open"' "$T/audit" | grep '"verdict":"deny"' |
		grep -c "\"target\":\"$T/secret\"" || true)
	unknown=$(grep '"op":"open"' "$T/audit" | grep '"verdict":"deny"' |
		grep -c '"target":null,"name":"secret","base":"cwd changed during the call"' || true)
	wrong=$(grep '"op":"open"' "$T/audit" | grep '"verdict":"deny"' |
		grep -v "\"target\":\"$T/secret\"" | grep -vc '"base":"cwd changed during the call"' || true)
	[ "$wrong" -eq 0 ] || fail "$wrong of $denied denials name another file: $(grep '"op":"open"' \
		"$T/audit" | grep -v "\"target\":\"$T/secret\"" | grep -v 'cwd changed' | head -n3)"
	expect_eq "records of the denials" "$((named + unknown))" "$denied"
}

# A listener on an abstract unix socket outside the sandbox: its pid in $listener, killed by the
# test's EXIT trap (that pid only).
start_listener() {
	"$A" unix-listen "$1" > "$T/listener" 2>&1 &
	listener=$!
	trap 'kill $listener 2>/dev/null' EXIT
	timeout 60 "$BIN/wd-try" wait-line "$T/listener" listening "$listener" > /dev/null ||
		fail "the listener did not start: $(cat "$T/listener")"
}

# connect to a host's abstract socket (X11, D-Bus, systemd's): Landlock's scope (ABI 6) refuses
# it, and the refusal is recorded with the name it tried.
test_abstract_unix_connect() {
	claims audit.unix-connect no partly
	setup
	local name="@wd-audit-$$-$RANDOM" out
	start_listener "$name"
	control "connect to $name" ok "$A" unix-connect "$name"
	out=$(inside "$A" unix-connect "$name")
	if on_bpf_lsm; then
		# not refused (the table says why): nothing to record
		expect_eq "connect in the sandbox" "$out" ok
		return 0
	fi
	abi=$(landlock_abi)
	[ "${abi:-0}" -ge 6 ] || skip "Landlock ABI ${abi:-0} has no abstract-socket scope (ABI 6)"
	expect_eq "connect in the sandbox" "$out" EPERM
	expect_line "$T/audit" '"type":"net"' '"op":"connect"' '"family":"unix"' \
		"\"target\":\"$name\"" '"verdict":"deny"' '"errno":"EPERM"'
}

# bind of a unix socket in a tree that is only readable: Landlock (MAKE_SOCK) and bpf-lsm
# (path_mknod) refuse it; both record the path.
test_unix_bind_readonly_tree() {
	claims audit.unix-bind yes yes
	setup
	control "bind a socket" ok "$A" unix-bind "$T/allowed/control.sock"
	rm -f "$T/allowed/control.sock"
	expect_denied "bind in the sandbox" "$(inside "$A" unix-bind "$T/allowed/s.sock")"
	[ ! -e "$T/allowed/s.sock" ] || fail "the socket was made"
	expect_line "$T/audit" "\"op\":\"$(pick create bind)\"" "\"target\":\"$T/allowed/s.sock\"" \
		'"verdict":"deny"'
}

# an ioctl on a device opened for reading (TCGETS on /dev/null: ENOTTY once allowed, so harmless):
# Landlock refuses device ioctls outside writable trees (IOCTL_DEV, ABI 5), and records it.
test_device_ioctl() {
	claims audit.ioctl-dev no partly
	setup /dev/null
	control "ioctl on /dev/null" ENOTTY "$A" ioctl /dev/null 0x5401
	out=$(inside "$A" ioctl /dev/null 0x5401)
	if on_bpf_lsm; then
		expect_eq "ioctl in the sandbox" "$out" ENOTTY
		return 0
	fi
	abi=$(landlock_abi)
	[ "${abi:-0}" -ge 5 ] || skip "Landlock ABI ${abi:-0} does not govern device ioctls (ABI 5)"
	expect_eq "ioctl in the sandbox" "$out" EACCES
	expect_line "$T/audit" '"op":"ioctl"' '"target":"/dev/null"' '"request":"0x5401"' \
		'"verdict":"deny"' '"errno":"EACCES"'
	out=$("$A" lines "$T/audit") || fail "the audit stream is not strict JSON lines: $out"
}

# A relative exec whose program moves its cwd at once: the exec record names the file executed,
# resolved as the kernel resolved it (against the cwd the execve had, not the one the program
# moved to), on both backends.
test_exec_relative_then_chdir() {
	claims audit.cwd yes yes
	setup "" "" "$(readlink -f /bin/sh)"
	cp "$A" "$T/bin/"
	control "chdir, then exec" / "$A" chdir-exec / /bin/pwd
	# the audit file is readable inside, so the program can wait for its own exec record
	(cd "$T/bin" && wrun --policy "$T/p.json" --audit "$T/allowed/audit" -- sh -c \
		"exec ./wd-auditck chdir-exec / $BIN/wd-try wait-line $T/allowed/audit \
		'wd-auditck\",\"verdict\"'" > /dev/null 2> "$T/err") || fail "run: $(cat "$T/err")"
	expect_line "$T/allowed/audit" '"type":"exec"' \
		"\"target\":\"$T/bin/wd-auditck\""
}
