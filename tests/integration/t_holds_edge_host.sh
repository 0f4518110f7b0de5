# SPDX-License-Identifier: GPL-2.0
# Holds at their edges, the part that needs Python (the VM has none): shutil.rmtree of a
# protected tree, which deletes through directory fds (unlinkat(dirfd, name)), held once and
# approved for a subtree; a delete outside that subtree is asked about again.
WHERE=host
BACKENDS="bpf-lsm landlock"

PY=/usr/bin/python3

test_python_rmtree_held_and_approved_for_a_subtree() {
	[ -x "$PY" ] || fail "$PY is needed for this test (the development host has it)"
	mkdir -p "$T/data/app/src/deep" "$T/data/app/build" "$T/data/keep"
	for f in a b c; do echo "$f" > "$T/data/app/src/$f"; echo "$f" > "$T/data/app/build/$f.o"; done
	echo deep > "$T/data/app/src/deep/x"
	echo keep > "$T/data/keep/k"
	cat > "$T/rm.py" <<-'EOF'
	import os, shutil, sys
	shutil.rmtree(sys.argv[1])
	print("rmtree: ok", flush=True)
	try:
	    os.unlink(sys.argv[2])
	except PermissionError:
	    print("keep: EPERM")
	    sys.exit(3)
	EOF
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","/usr/lib","/lib","%s","%s"],"protect":[{"path":"%s","ops":["delete"],"action":"hold"}]}}\n' \
		"$BIN" "$T" "$BIN" "$LOADER" "$T/data" > "$T/p.json"
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- \
		"$PY" "$T/rm.py" "$T/data/app" "$T/data/keep/k" > "$T/out" 2>&1 &
	run=$!
	trap 'kill $run 2>/dev/null || true' EXIT
	touch "$WD_OUT/audit"
	line=$(timeout 120 "$BIN/wd-try" wait-line "$WD_OUT/audit" '"type":"hold"' $run) ||
		fail "no hold while the run lived"
	sb=$(printf '%s\n' "$line" | sed -n 's/.*"sandbox":"\([^"]*\)".*/\1/p')
	id=$(printf '%s\n' "$line" | sed -n 's/.*"hold":\([0-9]*\).*/\1/p')
	"$WARDEN" approve --scope sandbox --subtree "$T/data/app" "$sb/$id"
	line=$(timeout 120 "$BIN/wd-try" wait-line "$WD_OUT/audit" "\"target\":\"$T/data/keep/k\"" $run) ||
		fail "the delete outside the approved subtree was not held"
	id=$(printf '%s\n' "$line" | sed -n 's/.*"hold":\([0-9]*\).*/\1/p')
	"$WARDEN" deny "$sb/$id"
	rc=0
	wait $run || rc=$?
	expect_eq "python exit status" "$rc" 3
	expect_line "$T/out" "rmtree: ok"
	expect_line "$T/out" "keep: EPERM"
	[ ! -e "$T/data/app" ] || fail "the approved subtree is still there: $(find "$T/data/app")"
	expect_eq "kept" "$(cat "$T/data/keep/k")" keep
	expect_eq "hold records" "$(grep -c '"type":"hold"' "$WD_OUT/audit")" 2
	# 7 files and 4 directories under the subtree: one asked, ten answered by the grant
	expect_eq "by grant" "$(grep -c '"by":"grant"' "$WD_OUT/audit")" 10
}
