# SPDX-License-Identifier: GPL-2.0
# Changes to the tree (create, delete, rename, link, truncate, attributes) only under fs.write,
# and destructive equivalents of `rm -rf` on a read-only tree.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Each operation on a read-only tree, tried outside first (on a copy) and then in the sandbox.
test_tree_changes_need_fs_write() {
	claims fs.write.tree yes yes
	setup
	mkdir "$T/allowed/dir"
	cp -a "$T/allowed" "$T/copy"
	control create ok "$E" create "$T/copy/new"
	control mkdir ok "$E" mkdir "$T/copy/newdir"
	control rmdir ok "$E" rmdir "$T/copy/dir"
	control symlink ok "$E" symlink /etc/passwd "$T/copy/ln"
	control unlink ok "$E" unlink "$T/copy/file"
	for op in "create $T/allowed/new" "mkdir $T/allowed/newdir" "rmdir $T/allowed/dir" \
		"symlink /etc/passwd $T/allowed/ln" "unlink $T/allowed/file"; do
		# shellcheck disable=SC2086 # the operation and its arguments
		out=$(inside "$E" $op)
		expect_denied "$op" "$out"
	done
	[ ! -e "$T/allowed/new" ] || fail "O_CREAT made a file in a read-only tree"
	[ -d "$T/allowed/dir" ] && [ -e "$T/allowed/file" ] && [ ! -e "$T/allowed/newdir" ] ||
		fail "the read-only tree changed"
	expect_line "$T/audit" '"op":"unlink"' "\"target\":\"$T/allowed/file\"" '"verdict":"deny"'
	expect_line "$T/audit" '"op":"rmdir"' "\"target\":\"$T/allowed/dir\"" '"verdict":"deny"'
	expect_line "$T/audit" '"op":"mkdir"' "\"target\":\"$T/allowed/newdir\"" '"verdict":"deny"'
	if on_bpf_lsm; then
		expect_line "$T/audit" '"op":"create"' "\"target\":\"$T/allowed/new\"" \
			'"verdict":"deny"' '"access":["write"]' '"errno":"EPERM"'
		expect_line "$T/audit" '"op":"symlink"' "\"target\":\"$T/allowed/ln\"" \
			'"verdict":"deny"'
	fi
	# and under fs.write they all work
	for op in "create $T/rw/new" "mkdir $T/rw/d" "rmdir $T/rw/d" "unlink $T/rw/new"; do
		# shellcheck disable=SC2086
		expect_eq "$op under fs.write" "$(inside "$E" $op)" ok
	done
}

test_truncate_needs_fs_write() {
	claims fs.write.truncate yes partly
	setup
	echo data > "$T/copy"
	control truncate ok "$E" truncate "$T/copy"
	out=$(inside "$E" truncate "$T/allowed/file")
	abi=$(landlock_abi)
	if on_bpf_lsm || [ "${abi:-0}" -ge 3 ]; then
		expect_denied "truncate(2) of a read-only file" "$out"
		expect_eq "content" "$(cat "$T/allowed/file")" hello
		expect_line "$T/audit" '"op":"truncate"' "\"target\":\"$T/allowed/file\"" \
			'"verdict":"deny"'
	else
		# Landlock ABI 2 (Linux 6.1) has no truncate right: the table says partly
		expect_eq "truncate(2) before Landlock ABI 3" "$out" ok
	fi
}

test_chmod_needs_fs_write() {
	claims fs.write.attr yes no
	setup
	control chmod ok "$E" chmod "$T/secret"
	chmod 644 "$T/secret"
	out=$(inside "$E" chmod "$T/allowed/file")
	if on_bpf_lsm; then
		expect_denied "chmod of a read-only file" "$out"
		expect_eq "mode" "$(stat -c %a "$T/allowed/file")" 644
		expect_line "$T/audit" '"op":"setattr"' "\"target\":\"$T/allowed/file\"" \
			'"verdict":"deny"'
	else
		# not covered by Landlock: the table says no
		expect_eq "chmod under landlock" "$out" ok
	fi
}

# utimensat(2) reaches no path hook: inode_setattr finds the object's name through its mounts.
test_utimes_needs_fs_write() {
	claims fs.write.attr yes no
	setup
	echo x > "$T/copy"
	control utimes ok "$E" utimes "$T/copy"
	touch -d @1000000000 "$T/allowed/file"
	out=$(inside "$E" utimes "$T/allowed/file")
	if on_bpf_lsm; then
		expect_denied "utimes of a read-only file" "$out"
		expect_eq "mtime" "$(stat -c %Y "$T/allowed/file")" 1000000000
		expect_line "$T/audit" '"op":"setattr"' "\"target\":\"$T/allowed/file\"" \
			'"verdict":"deny"' '"errno":"EPERM"'
	else
		# not covered by Landlock: the table says no
		expect_eq "utimes under landlock" "$out" ok
	fi
	expect_eq "utimes under fs.write" "$(echo x > "$T/rw/f"; inside "$E" utimes "$T/rw/f")" ok
}

# An access ACL: an attribute root may set on the files it owns without any capability (the
# sandbox has none, so trusted.* would be refused by the kernel before warden's hooks).
test_xattr_needs_fs_write() {
	claims fs.write.xattr yes no
	setup
	echo x > "$T/copy"
	control setxattr ok "$E" setacl "$T/copy"
	control removexattr ok "$E" removeacl "$T/copy"
	"$E" setacl "$T/allowed/file" > /dev/null || fail "cannot set an ACL on $T/allowed/file"
	out_set=$(inside "$E" setacl "$T/secret")
	out_rm=$(inside "$E" removeacl "$T/allowed/file")
	# trusted.* needs CAP_SYS_ADMIN, which the sandbox does not have
	expect_eq "setxattr trusted.* in the sandbox" "$(inside "$E" setxattr "$T/rw")" EPERM
	if on_bpf_lsm; then
		expect_denied "setxattr of a file outside fs.write" "$out_set"
		expect_denied "removexattr of a read-only file" "$out_rm"
		expect_eq "xattr kept" "$("$E" removeacl "$T/allowed/file")" ok
		expect_line "$T/audit" '"op":"xattr"' "\"target\":\"$T/secret\"" \
			'"verdict":"deny"' '"errno":"EPERM"'
		expect_line "$T/audit" '"op":"xattr"' "\"target\":\"$T/allowed/file\"" \
			'"verdict":"deny"'
	else
		# not covered by Landlock: the table says no
		expect_eq "setxattr under landlock" "$out_set" ok
		expect_eq "removexattr under landlock" "$out_rm" ok
	fi
	echo x > "$T/rw/f"
	expect_eq "setxattr under fs.write" "$(inside "$E" setacl "$T/rw/f")" ok
}
