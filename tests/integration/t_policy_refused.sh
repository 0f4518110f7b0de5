# SPDX-License-Identifier: GPL-2.0
# A bad policy is refused before anything runs, on any host.
WHERE=any

test_bad_policy_exit_2_one_line() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr", "relative/path"]}}\n' > "$T/bad.json"
	rc=0
	"$WARDEN" run --policy "$T/bad.json" --report "$T/r.json" \
		-- "$BIN/wd-try" write "$T/marker" 2> "$T/err" > "$T/out" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_eq "stderr lines" "$(wc -l < "$T/err")" 1
	expect_line "$T/err" "$T/bad.json: /fs/read/1: expected an absolute path"
	[ ! -e "$T/marker" ] || fail "the command ran"
	[ ! -e "$T/r.json" ] || expect_eq status "$(report_field "$T/r.json" status)" failed_to_start
}

test_unparsable_policy() {
	printf '{"schema":"warden.policy/1",\n"fs": {\n' > "$T/bad.json"
	rc=0
	"$WARDEN" run --policy "$T/bad.json" -- "$BIN/wd-try" write "$T/marker" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_eq "stderr lines" "$(wc -l < "$T/err")" 1
	expect_line "$T/err" "$T/bad.json: not valid JSON"
	[ ! -e "$T/marker" ] || fail "the command ran"
}

test_missing_policy_file() {
	rc=0
	"$WARDEN" run --policy "$T/none.json" -- "$BIN/wd-try" write "$T/marker" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" "$T/none.json: cannot read: No such file or directory"
	[ ! -e "$T/marker" ] || fail "the command ran"
}

test_unknown_key_named() {
	printf '{"schema":"warden.policy/1","fs":{"raed":["/usr"]}}\n' > "$T/bad.json"
	rc=0
	"$WARDEN" run --policy "$T/bad.json" -- "$BIN/wd-try" write "$T/marker" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" "/fs/raed: unknown key"
}
