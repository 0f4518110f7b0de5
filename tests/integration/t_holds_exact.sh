# SPDX-License-Identifier: GPL-2.0
# An approval is exactly the operation that was shown: the supervisor acts on the object it
# checked or on none (a name swapped while the call waited is not deleted or replaced in its
# place), never with more rights than the task's own open file had (a read-only or O_PATH fd
# stays refused), fallocate's destructive modes are held as a truncation is, and a protected tree
# that is also bind-mounted elsewhere is refused at start, naming the alias.
WHERE=any
BACKENDS="bpf-lsm landlock"
# the Landlock ABI of the VM's older kernel changes what an approval may reopen and carve
VM_LANDLOCK=yes
. "$(dirname "${BASH_SOURCE[0]}")/../escape/lib.sh"

H="$BIN/wd-hold"

# exact_policy FILE PROTECT_JSON [MORE_JSON]: may read and write $T, execute the usual programs
# and the test helpers (their libraries mapped for execution, which bpf-lsm checks).
exact_policy() {
	local libs= d
	for d in $LIBDIRS; do libs="$libs,\"$d\""; done
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s","%s","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s"%s],"protect":%s}%s}\n' \
		"$BIN" "$T" "$WD_OUT" "$T" "$BIN" "$LOADER" "$libs" "$2" "${3:+,$3}" > "$1"
}

# inside CMD...: as the escape suite's, but with the audit stream beside $T (its sandbox may
# write all of $T, where warden refuses to write).
inside() {
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- "$@" 2> "$T/err" || true
}

count_of() {
	grep -c "$2" "$1" || true
}

# hold_n N: the Nth hold record of the run $run in $WD_OUT/audit (waiting for it).
hold_n() {
	wait_record "$WD_OUT/audit" "\"type\":\"hold\",\"hold\":$1," "$run"
}

# ---- 6a: the object that was checked, or none ---------------------------------------------

# A held rm of a protected file; while it waits, another process of the sandbox renames a
# different file onto the held name. The approval must not delete the file swapped in.
test_approved_delete_of_a_name_swapped_while_held_deletes_nothing() {
	claims hold.exact-object partly partly
	mkdir -p "$T/prot" "$T/rw"
	echo precious > "$T/prot/keep"
	echo swapped-in > "$T/rw/other"
	# control: outside a sandbox, a delete by name after the swap removes what was swapped in
	mkdir -p "$T/copy" && echo a > "$T/copy/keep" && echo b > "$T/copy/other"
	mv -f "$T/copy/other" "$T/copy/keep" && rm -f "$T/copy/keep"
	[ ! -e "$T/copy/keep" ] || fail "control: the name was not deleted"

	exact_policy "$T/p.json" "[{\"path\":\"$T/prot\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"1m"}'
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"{ rm -f $T/prot/keep; echo rm=\$?; } & $BIN/wd-try wait-line $WD_OUT/audit '\"type\":\"hold\"' > /dev/null && mv -f $T/rw/other $T/prot/keep && echo swapped; wait"
	line=$(hold_n 1)
	expect_eq "held target" "$(record_field "$line" target)" "$T/prot/keep"
	wait_record "$T/out" swapped $run > /dev/null
	decide approve "$line"
	wait $run
	expect_eq "the file swapped in" "$(cat "$T/prot/keep" 2>&1)" swapped-in
	expect_line "$T/out" "rm=1"
	expect_line "$WD_OUT/audit" '"type":"decision"' "\"target\":\"$T/prot/keep\"" \
		'"verdict":"allow"' '"result":"ESTALE"'
}

# A held rename of a protected file to a name that was free when it was shown; while it waits,
# another process makes a file there. The approval must not replace it.
test_approved_rename_to_a_name_taken_while_held_replaces_nothing() {
	claims hold.exact-object partly partly
	mkdir -p "$T/prot" "$T/rw"
	echo precious > "$T/prot/keep"
	exact_policy "$T/p.json" "[{\"path\":\"$T/prot\",\"ops\":[\"rename\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"1m"}'
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"{ $H rename $T/prot/keep $T/rw/dest; } & $BIN/wd-try wait-line $WD_OUT/audit '\"type\":\"hold\"' > /dev/null && echo made-meanwhile > $T/rw/dest && echo made; wait"
	line=$(hold_n 1)
	expect_eq "held target" "$(record_field "$line" target)" "$T/prot/keep"
	wait_record "$T/out" made $run > /dev/null
	decide approve "$line"
	wait $run
	expect_eq "the file made meanwhile" "$(cat "$T/rw/dest" 2>&1)" made-meanwhile
	expect_eq "the protected file" "$(cat "$T/prot/keep" 2>&1)" precious
	expect_line "$T/out" ESTALE
	expect_line "$WD_OUT/audit" '"type":"decision"' '"op":"rename"' '"verdict":"allow"' \
		'"result":"ESTALE"'
}

# ---- 6b: never more than the task's own open file -----------------------------------------

# ftruncate of an fd opened read-only (or O_PATH) fails in the kernel (EINVAL, EBADF). Held and
# approved, the supervisor must not reopen the file for writing: the call gets the kernel's answer
# at once, nothing held. (on_timeout allow: an old warden that held it would truncate the file.)
test_truncation_of_a_read_only_fd_stays_refused() {
	claims hold.fd-rights yes yes
	mkdir -p "$T/prot" "$T/copy"
	echo precious > "$T/prot/keep"
	echo x > "$T/copy/f"
	control "ftruncate of a read-only fd" EINVAL "$H" ftruncate ro "$T/copy/f"
	control "ftruncate of an O_PATH fd" EBADF "$H" ftruncate path "$T/copy/f"
	control "fallocate of a read-only fd" EBADF "$H" fallocate-ro punch "$T/copy/f"
	exact_policy "$T/p.json" "[{\"path\":\"$T/prot\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"2s","on_timeout":"allow"}'
	expect_eq "read-only" "$(inside "$H" ftruncate ro "$T/prot/keep")" EINVAL
	expect_eq "O_PATH" "$(inside "$H" ftruncate path "$T/prot/keep")" EBADF
	expect_eq "fallocate, read-only" "$(inside "$H" fallocate-ro punch "$T/prot/keep")" EBADF
	expect_eq "the protected file" "$(cat "$T/prot/keep")" precious
	expect_eq "hold records" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 0
	# a writable fd is held, and its approval truncates the very file (no timeout to race)
	exact_policy "$T/p.json" "[{\"path\":\"$T/prot\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"5m"}'
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit2" -- "$H" ftruncate rw "$T/prot/keep"
	line=$(wait_record "$WD_OUT/audit2" '"type":"hold"' $run)
	expect_eq "held target" "$(record_field "$line" target)" "$T/prot/keep"
	decide approve "$line"
	wait $run
	expect_eq "result" "$(cat "$T/out")" ok
	expect_eq "size after the approved truncation" "$(stat -c %s "$T/prot/keep")" 0
}

# ---- 6c: fallocate, copy_file_range, splice -----------------------------------------------

# PUNCH_HOLE, COLLAPSE_RANGE, ZERO_RANGE and INSERT_RANGE destroy or move a file's bytes as a
# truncation does: each is held (denied here) and the file keeps every byte. Allocating
# (mode 0, KEEP_SIZE) changes none and is not held.
test_fallocate_that_destroys_data_is_held() {
	claims hold.fallocate partly partly
	mkdir -p "$T/prot" "$T/copy"
	head -c 16384 /dev/urandom > "$T/prot/keep"
	sum=$(md5sum < "$T/prot/keep")
	# control: outside, each mode works where the file system has it (punching a hole always)
	for m in punch collapse zero insert; do
		head -c 16384 /dev/urandom > "$T/copy/f"
		out=$("$H" fallocate $m "$T/copy/f" 2>&1) || true
		case $out in ok | EOPNOTSUPP) ;; *) fail "control: fallocate $m: $out" ;; esac
	done
	head -c 16384 /dev/urandom > "$T/copy/f"
	control "punch a hole" ok "$H" fallocate punch "$T/copy/f"
	exact_policy "$T/p.json" "[{\"path\":\"$T/prot\",\"ops\":[\"truncate\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"1m"}'
	n=0
	for m in punch collapse zero insert; do
		n=$((n + 1))
		wrun_bg "$T/out.$m" --policy "$T/p.json" --audit "$WD_OUT/audit" -- \
			"$H" fallocate $m "$T/prot/keep"
		line=$(wait_record "$WD_OUT/audit" "\"hold\":1,\"pid\"" $run)
		expect_line "$WD_OUT/audit" '"type":"hold"' '"op":"fallocate"' \
			"\"target\":\"$T/prot/keep\"" '"rule":"/fs/protect/0"'
		decide deny "$line"
		wait $run || true
		expect_eq "fallocate $m" "$(cat "$T/out.$m")" EPERM
		expect_eq "content after fallocate $m" "$(md5sum < "$T/prot/keep")" "$sum"
		mv "$WD_OUT/audit" "$WD_OUT/audit.$m"
	done
	for m in alloc keep; do
		expect_eq "fallocate $m" "$(inside "$H" fallocate $m "$T/prot/keep")" ok
	done
	expect_eq "hold records for allocating" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 0
	expect_eq "content after allocating" "$(md5sum < "$T/prot/keep")" "$sum"
	# approved, the hole is punched in the very file
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit3" -- \
		"$H" fallocate punch "$T/prot/keep"
	line=$(wait_record "$WD_OUT/audit3" '"type":"hold"' $run)
	decide approve "$line"
	wait $run
	expect_eq "approved punch" "$(cat "$T/out")" ok
	expect_eq "the punched block" "$(dd if="$T/prot/keep" bs=4096 skip=1 count=1 2>/dev/null |
		tr -d '\0' | wc -c)" 0
}

# copy_file_range and splice write into a file as write(2) does: they never shrink or remove it,
# so they are fs.write's, not held (docs/threat-model.md). The test shows that they cannot shrink
# a protected file.
test_copy_file_range_and_splice_cannot_shrink_a_protected_file() {
	claims hold.fallocate partly partly
	mkdir -p "$T/prot"
	head -c 8192 /dev/zero > "$T/prot/keep"
	echo abc > "$T/small"
	exact_policy "$T/p.json" "[{\"path\":\"$T/prot\",\"ops\":[\"truncate\"],\"action\":\"deny\"}]"
	out=$(inside "$H" copy-into "$T/small" "$T/prot/keep")
	expect_eq "copy_file_range" "$out" "$(printf 'ok\nsize 8192')"
	out=$(inside "$H" splice-into "$T/small" "$T/prot/keep")
	expect_eq "splice" "$out" "$(printf 'ok\nsize 8192')"
	expect_eq "size" "$(stat -c %s "$T/prot/keep")" 8192
	expect_eq "decisions" "$(count_of "$WD_OUT/audit" '"type":"decision"')" 0
}

# ---- 6d: bind-mount aliases ---------------------------------------------------------------

# in_own_mounts CMD...: run CMD in a private mount namespace of its own (its mounts vanish with it).
in_own_mounts() {
	unshare -m --propagation private "$@"
}

# A protected tree also mounted elsewhere (a bind mount of it, made before the run) would be
# deleted under the other name, which no rule names. The run is refused at start, naming the alias;
# with the alias protected too, it runs and the delete through the alias is held.
test_bind_mount_alias_of_a_protected_tree_is_refused_at_start() {
	claims hold.protect-alias yes yes
	command -v unshare > /dev/null || fail "unshare (util-linux) is needed"
	mkdir -p "$T/prot/sub" "$T/alias" "$T/sub-alias" "$T/copy" "$T/copy-alias"
	echo precious > "$T/prot/sub/keep"
	echo x > "$T/copy/f"
	# control: through a bind mount, the tree's files are deleted by the other name
	out=$(in_own_mounts sh -c "mount --bind $T/copy $T/copy-alias && rm $T/copy-alias/f && echo ok")
	expect_eq "control: delete through the alias" "$out" ok
	[ ! -e "$T/copy/f" ] || fail "control: the file is still there"

	exact_policy "$T/p.json" "[{\"path\":\"$T/prot\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"2s"}'
	rc=0
	in_own_mounts sh -c "mount --bind $T/prot $T/alias && \"$WARDEN\" run --backend $BACKEND --policy $T/p.json --audit $WD_OUT/audit -- rm -f $T/alias/sub/keep" \
		> "$T/out" 2>&1 || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/out" "/fs/protect/0" "also mounted at $T/alias"
	expect_eq "the protected file" "$(cat "$T/prot/sub/keep")" precious
	# a part of the tree mounted elsewhere is an alias too
	rc=0
	in_own_mounts sh -c "mount --bind $T/prot/sub $T/sub-alias && \"$WARDEN\" run --backend $BACKEND --policy $T/p.json --audit $WD_OUT/audit -- rm -f $T/sub-alias/keep" \
		> "$T/out" 2>&1 || rc=$?
	expect_eq "exit status (subtree)" "$rc" 2
	expect_line "$T/out" "also mounted at $T/sub-alias"
	expect_eq "the protected file" "$(cat "$T/prot/sub/keep")" precious
	# with the alias protected as strictly, it runs, and the delete through the alias is held
	exact_policy "$T/p.json" "[{\"path\":\"$T/prot\",\"ops\":[\"delete\"],\"action\":\"hold\"},{\"path\":\"$T/alias\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		'"hold":{"timeout":"2s"}'
	rc=0
	in_own_mounts sh -c "mount --bind $T/prot $T/alias && \"$WARDEN\" run --backend $BACKEND --policy $T/p.json --audit $WD_OUT/audit -- rm -f $T/alias/sub/keep" \
		> "$T/out" 2>&1 || rc=$?
	expect_eq "exit status (alias protected)" "$rc" 1
	expect_eq "the protected file" "$(cat "$T/prot/sub/keep")" precious
	expect_line "$WD_OUT/audit" '"type":"decision"' "\"target\":\"$T/alias/sub/keep\"" \
		'"verdict":"deny"' '"by":"timeout"'
}
