# SPDX-License-Identifier: GPL-2.0
# Path aliasing and other ways around a path rule (DESIGN.md threat model): each attack tried
# outside any sandbox first, then inside, against what the guarantee table claims.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

test_symlink_to_denied_file() {
	claims escape.symlink yes yes
	setup
	ln -s "$T/secret" "$T/rw/outside"
	control "read through a symlink" secret "$E" cat "$T/rw/outside"
	rm "$T/rw/outside"
	# made inside the sandbox, where $T/rw is writable
	expect_eq "symlink in the sandbox" "$(inside "$E" symlink "$T/secret" "$T/rw/ln")" ok
	out=$(inside "$E" cat "$T/rw/ln")
	expect_denied "read through the symlink" "$out"
	expect_line "$T/audit" '"op":"open"' "\"target\":\"$(pick "$T/secret" "$T/rw/ln")\"" \
		'"verdict":"deny"'
}

# fs.deny inside an allowed tree, and a hard link to the denied file made before the sandbox in
# a writable tree: a second name that a path rule cannot know.
test_hardlink_made_before() {
	claims escape.hardlink-before yes no
	setup
	mkdir "$T/allowed/private"
	echo secret > "$T/allowed/private/key"
	ln "$T/allowed/private/key" "$T/rw/alias"
	sed -i "s|\"fs\":{|\"fs\":{\"deny\":[\"$T/allowed/private\"],|" "$T/p.json"
	control "read through a hard link" secret "$E" cat "$T/rw/alias"
	# fs.deny itself, on every backend
	expect_denied "read under fs.deny" "$(inside "$E" cat "$T/allowed/private/key")"
	expect_eq "the rest of the tree" "$(inside "$E" cat "$T/allowed/file")" hello
	out=$(inside "$E" cat "$T/rw/alias")
	if on_bpf_lsm; then
		expect_eq "read through a link made before the sandbox" "$out" EPERM
		expect_line "$T/audit" "\"target\":\"$T/allowed/private/key\"" '"verdict":"deny"' \
			'"rule":"/fs/deny/0"'
		expect_line "$T/audit" "\"target\":\"$T/rw/alias\"" '"verdict":"deny"' \
			'"rule":"/fs/deny/0"'
		expect_eq "another link to it" "$(inside "$E" link "$T/rw/alias" "$T/rw/alias2")" \
			EPERM
	else
		# not covered (the table says why): the link's own path is writable, so readable
		expect_eq "read through a link made before the sandbox" "$out" secret
	fi
}

test_hardlink_made_inside() {
	claims escape.hardlink-inside yes yes
	setup
	control "link" ok "$E" link "$T/secret" "$T/rw/control"
	rm "$T/rw/control"
	out=$(inside "$E" link "$T/secret" "$T/rw/alias")
	# Landlock refuses a link that would grant more than the source had with EXDEV
	case $out in EPERM | EACCES | EXDEV) ;; *) fail "link in the sandbox: got '$out'" ;; esac
	[ ! -e "$T/rw/alias" ] || fail "the link was made"
	if on_bpf_lsm; then
		expect_line "$T/audit" '"op":"link"' "\"target\":\"$T/secret\"" '"verdict":"deny"' \
			'"access":["write"]'
	elif [ "$out" != EXDEV ]; then
		expect_line "$T/audit" '"op":"link"' '"verdict":"deny"'
	fi
}

test_bind_mount_over_allowed_path() {
	claims escape.bind-mount yes yes
	setup
	mkdir "$T/hidden" && echo secret > "$T/hidden/file"
	# in a private mount namespace, so the control leaves no mount on the host
	control "bind mount" ok unshare -m "$E" bind "$T/hidden" "$T/allowed"
	out=$(inside "$E" bind "$T/hidden" "$T/allowed")
	expect_eq "bind mount in the sandbox" "$out" EPERM
	expect_eq "allowed file afterwards" "$(cat "$T/allowed/file")" hello
	expect_line "$T/audit" '"type":"syscall"' '"target":"mount"' '"verdict":"deny"' \
		'"rule":"self-protection"'
}

test_rename_into_place() {
	claims escape.rename yes yes
	setup
	cp "$BIN/wd-try" "$T/rw/payload"
	control "rename" ok "$E" rename "$T/secret" "$T/rw/control"
	mv "$T/rw/control" "$T/secret"
	# a denied file into a writable (so readable) tree
	out1=$(inside "$E" rename "$T/secret" "$T/rw/stolen")
	# a payload the sandbox wrote into an exec tree it may not write
	out2=$(inside "$E" rename "$T/rw/payload" "$T/bin/payload")
	[ -e "$T/secret" ] && [ ! -e "$T/bin/payload" ] || fail "a rename happened"
	if on_bpf_lsm; then
		expect_eq "rename of a denied file into a writable tree" "$out1" EPERM
		expect_eq "rename of a payload into an exec tree" "$out2" EPERM
		expect_line "$T/audit" '"op":"rename"' "\"target\":\"$T/secret\"" '"verdict":"deny"'
		expect_line "$T/audit" '"op":"rename"' "\"target\":\"$T/bin/payload\"" \
			'"verdict":"deny"'
	else
		# Landlock refuses a move between trees of different rights with EXDEV (unrecorded)
		case $out1 in EACCES | EXDEV) ;; *) fail "rename of a denied file: got '$out1'" ;; esac
		case $out2 in EACCES | EXDEV) ;; *) fail "rename of a payload: got '$out2'" ;; esac
	fi
}

test_proc_self_root() {
	claims escape.proc-root yes yes
	setup
	control "read through /proc/self/root" secret "$E" cat "/proc/self/root$T/secret"
	out=$(inside "$E" cat "/proc/self/root$T/secret")
	expect_denied "read through /proc/self/root" "$out"
	expect_line "$T/audit" '"op":"open"' \
		"\"target\":\"$(pick "$T/secret" "/proc/self/root$T/secret")\"" '"verdict":"deny"'
}

test_proc_self_fd() {
	claims escape.proc-root yes yes
	setup
	control "read through /proc/self/fd/N/.." secret "$E" cat-fd "$T/allowed" ../secret
	out=$(inside "$E" cat-fd "$T/allowed" ../secret)
	expect_denied "read through /proc/self/fd/N/.." "$out"
	on_bpf_lsm || return 0
	expect_line "$T/audit" '"op":"open"' "\"target\":\"$T/secret\"" '"verdict":"deny"'
}

test_open_by_handle_at() {
	claims escape.open-by-handle yes yes
	setup
	control "open_by_handle_at" secret "$E" cat-handle "$T/secret" "$T/allowed"
	out=$(inside "$E" cat-handle "$T/secret" "$T/allowed")
	expect_eq "open_by_handle_at in the sandbox" "$out" EPERM
	# refused whole by the seccomp filter on both backends (file_open stands behind it)
	expect_line "$T/audit" '"type":"syscall"' '"target":"open_by_handle_at"' \
		'"rule":"self-protection"'
}

test_dotdot_through_dirfd() {
	claims escape.dotdot yes yes
	setup
	control "openat(dirfd, \"../secret\")" secret "$E" cat-at "$T/allowed" ../secret
	out=$(inside "$E" cat-at "$T/allowed" ../secret)
	expect_denied "openat(dirfd, \"../secret\")" "$out"
	# landlock's record has the name as passed, made absolute while the task lived
	expect_line "$T/audit" '"op":"open"' "$(pick "\"target\":\"$T/secret\"" '../secret"')" \
		'"verdict":"deny"'
}

test_io_uring_openat_and_unlinkat() {
	claims escape.io-uring yes yes
	setup
	echo x > "$T/victim"
	control "io_uring openat" secret "$E" uring-cat "$T/secret"
	control "io_uring unlinkat" ok "$E" uring-unlink "$T/victim"
	out=$(inside "$E" uring-cat "$T/secret")
	expect_eq "io_uring openat in the sandbox" "$out" EPERM
	out=$(inside "$E" uring-unlink "$T/allowed/file")
	expect_eq "io_uring unlinkat in the sandbox" "$out" EPERM
	[ -e "$T/allowed/file" ] || fail "io_uring unlinked a read-only file"
	if on_bpf_lsm; then
		expect_line "$T/audit" '"op":"open"' "\"target\":\"$T/secret\"" '"verdict":"deny"'
		expect_line "$T/audit" '"op":"unlink"' "\"target\":\"$T/allowed/file\"" \
			'"verdict":"deny"' '"rule":"default"'
	else
		expect_line "$T/audit" '"type":"syscall"' '"target":"io_uring_setup"' \
			'"rule":"self-protection"'
	fi
}
