# SPDX-License-Identifier: GPL-2.0
# `warden run` and the policy layer: what is not enforced is refused (never ignored), bad derived
# flags are refused; both before anything runs, on any host.
WHERE=any

test_unenforced_part_refused() {
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr"]},\n"limits":{"memory":"1GiB"},"exec":{"allow":["/usr/bin"]}}\n' \
		> "$T/p.json"
	rc=0
	# exec.allow: landlock's EXECUTE cannot enforce it (bpf-lsm does: t_exec_rules.sh)
	"$WARDEN" run --backend landlock --policy "$T/p.json" --report "$T/r.json" \
		-- "$BIN/wd-try" write "$T/marker" 2> "$T/err" > "$T/out" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_eq "stderr lines" "$(wc -l < "$T/err")" 1
	expect_line "$T/err" "$T/p.json: /exec/allow/0: exec.allow" "is not enforced" \
		"(backend landlock)"
	[ ! -e "$T/marker" ] || fail "the command ran"
	[ ! -e "$T/r.json" ] || expect_eq status "$(report_field "$T/r.json" status)" failed_to_start
}

test_unenforced_template_refused() {
	rc=0
	# exec.allow on top of a template: refused by landlock (docs/policy.md says why)
	printf '{"schema":"warden.policy/1","extends":"cli","exec":{"allow":["/usr/bin"]}}\n' > "$T/a.json"
	"$WARDEN" run --backend landlock --policy "$T/a.json" -- "$BIN/wd-try" write "$T/marker" \
		2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" "$T/a.json: /exec/allow/0: exec.allow" "not enforced" \
		"refused rather than run without it"
	[ ! -e "$T/marker" ] || fail "the command ran"
}

test_bad_derived_flag_refused() {
	rc=0
	"$WARDEN" run --policy cli --allow-read relative/path \
		-- "$BIN/wd-try" write "$T/marker" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_eq "stderr lines" "$(wc -l < "$T/err")" 1
	expect_line "$T/err" "--allow-read relative/path: expected an absolute path"
	rc=0
	"$WARDEN" run --policy cli --mode lax -- "$BIN/wd-try" write "$T/marker" 2> "$T/err" ||
		rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" '--mode lax: expected "enforce" or "audit", got "lax"'
	[ ! -e "$T/marker" ] || fail "the command ran"
}

test_unknown_template_refused() {
	rc=0
	"$WARDEN" run --policy clii -- "$BIN/wd-try" write "$T/marker" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/err" 'template clii: no template "clii"'
	[ ! -e "$T/marker" ] || fail "the command ran"
}

test_error_has_line_and_column() {
	printf '{\n  "schema": "warden.policy/1",\n  "fs": {"read": ["/usr", 5]}\n}\n' > "$T/p.json"
	rc=0
	"$WARDEN" run --policy "$T/p.json" -- "$BIN/wd-try" write "$T/marker" 2> "$T/err" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_eq "stderr lines" "$(wc -l < "$T/err")" 1
	expect_line "$T/err" "$T/p.json: /fs/read/1: expected an absolute path string, got a number" \
		"(line 3, column 27)"
}
