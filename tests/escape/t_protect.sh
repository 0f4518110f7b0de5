# SPDX-License-Identifier: GPL-2.0
# fs.protect has the kernel's last word: a delete, rename or truncation under a protected tree
# that the seccomp waiting room answered CONTINUE (a path it could not read, a path swapped after
# it looked) still meets the rule in the LSM hooks on bpf-lsm. On landlock it does only where the
# removal and truncation rights could be carved out exactly (a protected tree with no writable
# tree above it), and the guarantee table says so: inside a writable tree the same attacks are
# asserted to work there.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# protect_policy ACTION OPS TREE WRITE...: the policy, TREE protected with OPS and ACTION, the
# WRITE paths writable. Holds time out after 2 s (denied), so a held call never hangs a test.
# IO_URING=allow lets io_uring through (hold.io_uring): its operations never pass the waiting
# room, so they meet only the kernel's rules.
protect_policy() {
	local action=$1 ops=$2 tree=$3 write= p
	shift 3
	for p in "$@"; do write="$write${write:+,}\"$p\""; done
	printf '{"schema":"warden.policy/1","fs":{"read":["/lib","/lib64","/usr","/etc/ld.so.cache","%s"],"write":[%s],"exec":["%s","%s","%s"],"protect":[{"path":"%s","ops":%s,"action":"%s"}]},"hold":{"timeout":"2s","io_uring":"%s"}}\n' \
		"$BIN" "$write" "$BIN" "$LOADER" "${LIBDIRS// /\",\"}" "$tree" "$ops" "$action" \
		"${IO_URING:-refuse}" > "$T/p.json"
}

# protect_setup ACTION OPS: $T/prot (protected, writable, holding "keep" and "sub/deep") and
# $T/rw (writable, not protected).
protect_setup() {
	mkdir -p "$T/prot/sub" "$T/rw"
	echo precious > "$T/prot/keep"
	echo precious > "$T/prot/sub/deep"
	protect_policy "$1" "$2" "$T/prot" "$T/prot" "$T/rw"
}

intact() {
	expect_eq "$1: $T/prot/keep" "$(cat "$T/prot/keep" 2>&1)" precious
	expect_eq "$1: $T/prot/sub/deep" "$(cat "$T/prot/sub/deep" 2>&1)" precious
}

# Every operation through io_uring, which the policy allows (hold.io_uring): the waiting room never
# sees them, so only the kernel decides. (io_uring has no truncate before 6.9: O_TRUNC stands in.)
test_protect_io_uring_meets_the_kernel() {
	claims fs.protect.kernel yes partly
	claims hold.protect yes partly
	# control: outside a sandbox each attack works (on a copy)
	mkdir -p "$T/copy/sub"
	for f in a b c d e; do echo x > "$T/copy/$f"; done
	control unlink ok "$E" uring-unlink "$T/copy/a"
	control otrunc ok "$E" uring-otrunc "$T/copy/c"
	control rename-away ok "$E" uring-rename "$T/copy/d" "$T/copy/moved"
	control rename-over ok "$E" uring-rename "$T/copy/e" "$T/copy/moved"
	[ ! -e "$T/copy/a" ] && [ ! -s "$T/copy/c" ] && [ ! -e "$T/copy/d" ] ||
		fail "control: the attacks did not change the copy"

	IO_URING=allow protect_setup hold '["delete","rename","truncate"]'
	echo other > "$T/rw/over"
	out_unlink=$(inside "$E" uring-unlink "$T/prot/keep")
	out_otrunc=$(inside "$E" uring-otrunc "$T/prot/keep")
	out_away=$(inside "$E" uring-rename "$T/prot/keep" "$T/rw/stolen")
	out_over=$(inside "$E" uring-rename "$T/rw/over" "$T/prot/keep")
	out_sub=$(inside "$E" uring-rename "$T/prot/sub" "$T/rw/sub")
	# none of them was held: io_uring does not pass the waiting room
	expect_eq "hold records" "$(grep -c '"type":"hold"' "$T/audit")" 0
	if on_bpf_lsm; then
		for o in unlink:$out_unlink otrunc:$out_otrunc \
			rename-away:$out_away rename-over:$out_over rename-dir:$out_sub; do
			expect_eq "${o%%:*} under the protected tree" "${o#*:}" EPERM
		done
		intact "after the attacks"
		[ ! -e "$T/rw/stolen" ] && [ -e "$T/rw/over" ] || fail "a rename went through"
		expect_line "$T/audit" '"type":"file"' '"op":"unlink"' \
			"\"target\":\"$T/prot/keep\"" '"verdict":"deny"' '"rule":"/fs/protect/0"' \
			'"errno":"EPERM"'
		expect_line "$T/audit" '"op":"truncate"' "\"target\":\"$T/prot/keep\"" \
			'"rule":"/fs/protect/0"'
		expect_line "$T/audit" '"op":"rename"' "\"target\":\"$T/prot/keep\"" \
			'"rule":"/fs/protect/0"'
		expect_line "$T/audit" '"op":"rename"' "\"target\":\"$T/prot/sub\"" \
			'"rule":"/fs/protect/0"'
	else
		# landlock refuses io_uring whatever the policy says (its denials could not be
		# recorded): the way around the waiting room is closed before the carve is needed
		for o in unlink:$out_unlink otrunc:$out_otrunc rename-away:$out_away \
			rename-over:$out_over rename-dir:$out_sub; do
			expect_eq "${o%%:*} through io_uring on landlock" "${o#*:}" EPERM
		done
		intact "after the attacks"
	fi
}

# The protected tree's root itself, and a directory above it, inside a writable tree.
test_protect_root_and_parent_by_name() {
	claims fs.protect.kernel yes partly
	mkdir -p "$T/rw/a/prot" "$T/rw/plain"
	echo precious > "$T/rw/a/prot/keep"
	IO_URING=allow protect_policy deny '["delete","rename","truncate"]' "$T/rw/a/prot" "$T/rw"
	control "rename of a directory" ok "$E" rename "$T/rw/plain" "$T/rw/plain2"
	out_root=$(inside "$E" uring-rename "$T/rw/a/prot" "$T/rw/prot2")
	out_rmdir=$(inside "$E" uring-rename "$T/rw/plain2" "$T/rw/a/prot")
	out_parent=$(inside "$E" rename "$T/rw/a" "$T/rw/b")
	if on_bpf_lsm; then
		expect_eq "renaming the protected root away" "$out_root" EPERM
		expect_eq "renaming an empty directory over the protected root" "$out_rmdir" EPERM
		expect_eq "renaming a directory above the tree" "$out_parent" EPERM
		expect_eq "the tree" "$(cat "$T/rw/a/prot/keep" 2>&1)" precious
		expect_line "$T/audit" '"op":"rename"' "\"target\":\"$T/rw/a/prot\"" \
			'"verdict":"deny"' '"rule":"/fs/protect/0"'
		expect_line "$T/audit" '"op":"rename"' "\"target\":\"$T/rw/a\"" \
			'"verdict":"deny"' '"rule":"/fs/protect/0"'
	else
		# inside the writable $T/rw nothing is carved (the table says partly), but landlock
		# refuses io_uring itself, so the waiting room is the only door and it is watched
		expect_eq "renaming the protected root away on landlock" "$out_root" EPERM
		expect_eq "the tree" "$(cat "$T/rw/a/prot/keep" 2>&1)" precious
	fi
}

# A second thread swaps a symlink between a decoy directory and the protected tree while the
# first unlinks through it: the waiting room resolves one, the kernel may resolve the other.
test_protect_symlink_race() {
	claims fs.protect.kernel yes partly
	mkdir -p "$T/rw/decoy"
	echo precious > "$T/rw/target"
	# control: outside a sandbox the race removes the "protected" file
	mkdir -p "$T/ctl/decoy" "$T/ctl/prot"
	echo x > "$T/ctl/prot/keep"
	# (a race: on a busy machine, the VM on the other core, one round can miss; up to 50)
	for _ in $(seq 50); do
		out=$("$E" race-unlink "$T/ctl/link" "$T/ctl/decoy" "$T/ctl/prot" keep 2000)
		[ -e "$T/ctl/prot/keep" ] || break
	done
	[ ! -e "$T/ctl/prot/keep" ] || fail "control: the race never reached the tree ($out)"

	# delete and rename both: then landlock carves the removal right out too (one right)
	protect_setup deny '["delete","rename"]'
	mkdir -p "$T/rw/decoy"
	out=$(inside "$E" race-unlink "$T/rw/link" "$T/rw/decoy" "$T/prot" keep 2000)
	case $out in
	"ok "[1-9]*) ;;
	*) fail "the race did not run: '$out' ($(cat "$T/err"))" ;;
	esac
	# on landlock $T/prot (no writable tree above it) has its removal right carved out
	intact "after the race"
	n=$(grep -c '"type":"file".*"rule":"/fs/protect/0"' "$T/audit" || true)
	echo "    race: $out; kernel refusals recorded: $n" >&2
}
