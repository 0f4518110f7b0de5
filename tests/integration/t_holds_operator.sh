# SPDX-License-Identifier: GPL-2.0
# The operator always sees every hold: listings are whole however many holds wait and however
# long their paths, what is shown to a person cannot repaint the terminal (JSON stays exact),
# and a deny has an approval's scopes, so a denied rm -rf is one question.
WHERE=any
BACKENDS="bpf-lsm landlock"
# what is shown to a person (whole listings, escaped names) is the tools' own logic: the host's
HOST_ONLY="test_listing_of_300_holds_with_long_paths_is_whole test_escape_sequences_in_a_name_are_made_visible"
. "$(dirname "${BASH_SOURCE[0]}")/../escape/lib.sh"

# op_policy FILE PROTECT_JSON [MORE_JSON]: may read and write $T, execute the usual programs.
op_policy() {
	local libs= d
	for d in $LIBDIRS; do libs="$libs,\"$d\""; done
	printf '{"schema":"warden.policy/1","fs":{"read":["/usr","/lib","/lib64","/etc","%s","%s","%s"],"write":["%s","/dev/null"],"exec":["/usr/bin","/bin","%s","%s"%s],"protect":%s}%s}\n' \
		"$BIN" "$T" "$WD_OUT" "$T" "$BIN" "$LOADER" "$libs" "$2" "${3:+,$3}" > "$1"
}

count_of() {
	grep -c "$2" "$1" || true
}

# hold_of TARGET: the hold record of TARGET (the first record naming it: its decision comes after).
hold_of() {
	wait_record "$WD_OUT/audit" "\"target\":\"$1\",\"rule\"" "$run"
}

# hold_n N: the Nth hold record of the run $run in $WD_OUT/audit (waiting for it).
hold_n() {
	wait_record "$WD_OUT/audit" "\"type\":\"hold\",\"hold\":$1," "$run"
}

tree_policy() {
	op_policy "$T/p.json" "[{\"path\":\"$T/app\",\"ops\":[\"delete\"],\"action\":\"hold\"}]" \
		"\"hold\":{\"timeout\":\"${1:-1m}\"}"
}

small_tree() {
	mkdir -p "$T/app/src" "$T/app/build"
	for f in a b c; do echo "$f" > "$T/app/src/$f"; done
	echo o > "$T/app/build/d.o"
}

# ---- 7a: every hold, however many and however long --------------------------------------

# 300 processes each held on a file whose path is about 2800 bytes: the listing (some 2 MB, far
# more than a socket takes at once) must reach `warden holds` whole, in text and in JSON.
test_listing_of_300_holds_with_long_paths_is_whole() {
	claims hold.listing yes yes
	local d="$T/app" comp i
	comp=$(printf 'p%.0s' $(seq 1 200))
	for i in $(seq 1 14); do d="$d/$comp"; done
	mkdir -p "$d"
	for i in $(seq 1 300); do : > "$d/f$i"; done
	tree_policy 10m
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"for i in \$(seq 1 300); do rm -f $d/f\$i & done; wait"
	line=$(hold_n 300)
	"$WARDEN" holds --json > "$T/holds.json"
	expect_eq "holds in the JSON listing" "$(count_of "$T/holds.json" '"token":')" 300
	expect_eq "targets, exact" "$(grep -c "\"target\":[[:space:]]*\"$d/f[0-9]*\"" "$T/holds.json")" 300
	"$WARDEN" holds > "$T/holds.txt"
	expect_eq "holds in the text listing" "$(count_of "$T/holds.txt" ' delete ')" 300
	# a person sees each path bounded
	expect_eq "bounded lines" "$(count_of "$T/holds.txt" 'bytes more)')" 300
	decide deny "$line" --all-like-this
	wait $run || true
	expect_eq "files left" "$(find "$T/app" -type f | wc -l)" 300
}

# ---- 7b: nothing shown can repaint the terminal ------------------------------------------

# A file name holding ESC [ 2 J (clear the screen) and a newline (a line of its own, which could
# pass for the prompt's): shown as \x1b[2J\x0a, never as the bytes; JSON stays exact.
test_escape_sequences_in_a_name_are_made_visible() {
	claims hold.display yes yes
	local name=$'evil\e[2J\nx'
	mkdir -p "$T/app"
	echo y > "$T/app/$name"
	tree_policy
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/app/$name"
	line=$(hold_n 1)
	sb=$(record_field "$line" sandbox)
	"$WARDEN" holds > "$T/holds.txt"
	expect_line "$T/holds.txt" "$T/app/evil\\x1b[2J\\x0ax"
	grep -q $'\e' "$T/holds.txt" && fail "an ESC byte reached the text listing"
	expect_eq "lines of the listing" "$(wc -l < "$T/holds.txt")" 1
	"$WARDEN" holds --json > "$T/holds.json"
	expect_line "$T/holds.json" "\"target\":	\"$T/app/evil\\u001b[2J\\nx\""
	printf 'i\nd\n' | "$WARDEN" prompt --sandbox "$sb" > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $run $prompt 2>/dev/null || true' EXIT
	wait $run || true
	"$BIN/wd-try" wait-line "$T/prompt.out" "decided:" "$prompt" > /dev/null ||
		fail "the prompt did not decide: $(cat "$T/prompt.out")"
	kill $prompt 2>/dev/null || true
	grep -q $'\e' "$T/prompt.out" && fail "an ESC byte reached the prompt"
	expect_line "$T/prompt.out" "op       delete $T/app/evil\\x1b[2J\\x0ax"
	expect_line "$T/prompt.out" "hold $sb/" "$T/app/evil\\x1b[2J\\x0ax"
	[ -e "$T/app/$name" ] || fail "the denied file was removed"
}

# ---- 7c: a deny has an approval's scopes -------------------------------------------------

# A denied rm -rf of a 50-file protected tree: one question (the prompt's [d]: this process,
# under the tree), and every delete under it fails with EPERM, each on record.
test_denied_rm_rf_of_50_files_asks_once() {
	claims hold.deny-scope yes yes
	local i
	mkdir -p "$T/app/a" "$T/app/b"
	for i in $(seq 1 25); do echo $i > "$T/app/a/f$i"; echo $i > "$T/app/b/f$i"; done
	tree_policy 3s
	printf 'd\n' | "$WARDEN" prompt > "$T/prompt.out" 2>&1 &
	prompt=$!
	trap 'kill $prompt 2>/dev/null || true' EXIT
	rc=0
	wrun --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -rf "$T/app" 2> "$T/err" || rc=$?
	kill $prompt 2>/dev/null || true
	[ "$rc" != 0 ] || fail "rm -rf succeeded"
	expect_eq "files left" "$(find "$T/app" -type f | wc -l)" 50
	expect_eq "questions" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 1
	expect_line "$WD_OUT/audit" '"type":"decision"' '"verdict":"deny"' '"by":"uid 0 (root)"'
	expect_eq "file deletes refused, each on record" \
		"$(grep '"type":"decision"' "$WD_OUT/audit" | grep '"op":"delete"' | grep -c '"verdict":"deny"')" 50
	expect_eq "refused by the deny's grant" \
		"$(grep '"type":"decision"' "$WD_OUT/audit" | grep -c '"by":"grant"')" \
		"$(( $(count_of "$WD_OUT/audit" '"type":"decision"') - 1 ))"
	[ "$(grep -c 'Operation not permitted' "$T/err")" -ge 50 ] ||
		fail "rm saw fewer than 50 refusals: $(cat "$T/err")"
	[ -z "$(grep '"type":"timeout"\|"by":"timeout"' "$WD_OUT/audit")" ] || fail "a hold timed out"
}

# warden deny without --scope: this process, under the protected tree. Another process asks
# again.
test_deny_default_covers_the_process_under_the_tree() {
	claims hold.deny-scope yes yes
	small_tree
	tree_policy
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"rm -f $T/app/src/a $T/app/src/b $T/app/build/d.o; rm -f $T/app/src/c"
	decide deny "$(hold_n 1)"
	line=$(hold_of "$T/app/src/c")
	expect_eq "second question" "$(record_field "$line" type)" hold
	decide deny "$line" --scope once
	wait $run || true
	expect_eq "questions" "$(count_of "$WD_OUT/audit" '"type":"hold"')" 2
	expect_eq "answered by the deny" "$(count_of "$WD_OUT/audit" '"by":"grant"')" 2
	expect_eq "files left" "$(find "$T/app" -type f | wc -l)" 4
}

# --scope once: the next delete of the same process is asked about again.
test_deny_once_asks_again() {
	claims hold.deny-scope yes yes
	small_tree
	tree_policy
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- rm -f "$T/app/src/a" "$T/app/src/b"
	decide deny "$(hold_n 1)" --scope once
	line=$(hold_of "$T/app/src/b")
	expect_eq "second question" "$(record_field "$line" type)" hold
	decide deny "$line" --scope once
	wait $run || true
	expect_eq "answered by a grant" "$(count_of "$WD_OUT/audit" '"by":"grant"')" 0
	expect_eq "files left" "$(find "$T/app" -type f | wc -l)" 4
}

# --scope sandbox --subtree: every process's deletes under the subtree; outside it, asked.
test_deny_sandbox_subtree_covers_other_processes() {
	claims hold.deny-scope yes yes
	small_tree
	tree_policy
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- sh -c \
		"rm -f $T/app/src/a $T/app/src/b; rm -f $T/app/src/c; rm -f $T/app/build/d.o"
	decide deny "$(hold_n 1)" --scope sandbox --subtree "$T/app/src"
	line=$(hold_of "$T/app/build/d.o")
	expect_eq "outside the subtree, asked" "$(record_field "$line" type)" hold
	decide approve "$line"
	wait $run || true
	expect_eq "answered by the deny" "$(count_of "$WD_OUT/audit" '"by":"grant"')" 2
	expect_eq "files left under the subtree" "$(find "$T/app/src" -type f | wc -l)" 3
	[ ! -e "$T/app/build/d.o" ] || fail "the approved delete did not happen"
}

# --scope process --count 1: one more delete denied unasked, then asked again.
test_deny_process_count_is_spent() {
	claims hold.deny-scope yes yes
	small_tree
	tree_policy
	wrun_bg "$T/out" --policy "$T/p.json" --audit "$WD_OUT/audit" -- \
		rm -f "$T/app/src/a" "$T/app/src/b" "$T/app/src/c"
	decide deny "$(hold_n 1)" --scope process --count 1
	line=$(hold_of "$T/app/src/c")
	expect_eq "asked once the count is spent" "$(record_field "$line" type)" hold
	decide deny "$line" --scope once
	wait $run || true
	expect_eq "answered by the deny" "$(count_of "$WD_OUT/audit" '"by":"grant"')" 1
	expect_eq "files left" "$(find "$T/app" -type f | wc -l)" 4
}
