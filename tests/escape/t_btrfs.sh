# SPDX-License-Identifier: GPL-2.0
# A hard link made before the sandbox, on btrfs: stat(2) there reports the subvolume's anonymous
# device rather than the super block's, and inode numbers repeat from one subvolume to the next
# (docs/design.md, "In the kernel"). The same attack as t_paths.sh's test_hardlink_made_before,
# in the top-level subvolume and in a subvolume, with a twin subvolume whose files have the same
# inode numbers and must stay readable.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Unmount $F and detach the loop device of $T/btrfs.img, whatever mounted it (util-linux or
# busybox mount -o loop; only the first clears it itself).
btrfs_cleanup() {
	local b
	umount "$F" 2>/dev/null || umount -l "$F" 2>/dev/null
	for b in /sys/block/loop*/loop/backing_file; do
		[ -r "$b" ] && [ "$(cat "$b")" = "$T/btrfs.img" ] || continue
		b=${b#/sys/block/}
		losetup -d "/dev/${b%%/*}" 2>/dev/null
	done
	rm -f "$T/btrfs.img"
}

# user_dev MAJOR:MINOR: the device number as stat(2) prints it (glibc's makedev).
user_dev() {
	local ma=${1%%:*} mi=${1#*:}
	echo $(((mi & 0xff) | (ma & 0xfff) << 8 | (mi & ~0xff) << 12 | (ma & ~0xfff) << 32))
}

# btrfs_mount: a fresh btrfs on a loop device at $F=$T/fs, unmounted by the test's EXIT trap.
btrfs_mount() {
	F=$T/fs
	grep -qw btrfs /proc/filesystems || modprobe btrfs 2> /dev/null || true
	grep -qw btrfs /proc/filesystems || skip "the kernel has no btrfs"
	command -v mkfs.btrfs > /dev/null && command -v btrfs > /dev/null ||
		fail "mkfs.btrfs or btrfs not found (btrfs-progs: make deps)"
	truncate -s 128M "$T/btrfs.img"
	mkfs.btrfs -q "$T/btrfs.img" > /dev/null || fail "mkfs.btrfs failed"
	mkdir "$F"
	trap btrfs_cleanup EXIT
	mount -t btrfs -o loop "$T/btrfs.img" "$F" || fail "cannot mount the btrfs image"
}

# In the top level ($F) and in subvolume a, fs.deny on private/ and a hard link to private/key
# made before the sandbox in open/ (writable, so readable); subvolume b is a's twin (same inode
# numbers) with no rule.
test_btrfs_hardlink_made_before() {
	claims escape.hardlink-before yes no
	btrfs_mount
	btrfs subvolume create "$F/a" > /dev/null || fail "cannot create subvolume a"
	btrfs subvolume create "$F/b" > /dev/null || fail "cannot create subvolume b"
	for d in top a b; do
		[ $d = top ] && p=$F || p=$F/$d
		mkdir "$p/private" "$p/open"
		echo "secret $d" > "$p/private/key"
		echo hello > "$p/open/file"
	done
	ln "$F/private/key" "$F/open/alias"
	ln "$F/a/private/key" "$F/a/open/alias"
	# the case this test is about: same inode, other device numbers than the super block's
	sb=$(user_dev "$(awk -v m="$F" '$5 == m { print $3 }' /proc/self/mountinfo)")
	expect_eq "b/private/key has a/private/key's inode number" \
		"$(stat -c %i "$F/b/private/key")" "$(stat -c %i "$F/a/private/key")"
	for f in "$F/open/alias" "$F/a/open/alias"; do
		[ "$(stat -c %d "$f")" != "$sb" ] ||
			fail "stat reports the super block's device $sb for $f"
	done
	setup "$F" "$F/open $F/a/open $F/b/open $F/b/private"
	sed -i "s|\"fs\":{|\"fs\":{\"deny\":[\"$F/private\",\"$F/a/private\"],|" "$T/p.json"
	control "read through a hard link (top level)" "secret top" "$E" cat "$F/open/alias"
	control "read through a hard link (subvolume)" "secret a" "$E" cat "$F/a/open/alias"

	expect_denied "read under fs.deny (top level)" "$(inside "$E" cat "$F/private/key")"
	expect_denied "read under fs.deny (subvolume)" "$(inside "$E" cat "$F/a/private/key")"
	expect_eq "the twin subvolume's key" "$(inside "$E" cat "$F/b/private/key")" "secret b"
	expect_eq "the rest of the subvolume" "$(inside "$E" cat "$F/a/open/file")" hello
	top=$(inside "$E" cat "$F/open/alias")
	sub=$(inside "$E" cat "$F/a/open/alias")
	if on_bpf_lsm; then
		expect_eq "read through a link made before the sandbox (top level)" "$top" EPERM
		expect_eq "read through a link made before the sandbox (subvolume)" "$sub" EPERM
		expect_line "$T/audit" '"op":"open"' "\"target\":\"$F/open/alias\"" \
			'"verdict":"deny"' '"rule":"/fs/deny/0"'
		expect_line "$T/audit" '"op":"open"' "\"target\":\"$F/a/open/alias\"" \
			'"verdict":"deny"' '"rule":"/fs/deny/1"'
		expect_eq "another link to it" \
			"$(inside "$E" link "$F/a/open/alias" "$F/a/open/alias2")" EPERM
		expect_eq "a link to the twin's key" \
			"$(inside "$E" link "$F/b/private/key" "$F/b/open/key")" ok
	else
		# not covered (the table says why): the link's own path is writable, so readable
		expect_eq "read through a link made before the sandbox (top level)" "$top" "secret top"
		expect_eq "read through a link made before the sandbox (subvolume)" "$sub" \
			"secret a"
	fi
}
