# SPDX-License-Identifier: GPL-2.0
# `warden policy init|check|explain`: nothing here needs the kernel, so it runs on this host,
# where the source tree (the templates, the malformed-policy corpus) is at hand.
WHERE=host

corpus="$here/../policy"

test_templates_pass_check() {
	names=$("$WARDEN" policy init --list | awk '{ print $1 }')
	expect_eq "templates" "$(echo $names)" \
		"cli fs-tool http-client postgres-client sqlite-app web-service worker worker-parallel"
	rc=0
	# shellcheck disable=SC2086
	"$WARDEN" policy check $names > "$T/out" 2>&1 || rc=$?
	expect_eq "exit status" "$rc" 0
	for n in $names; do
		expect_line "$T/out" "template $n: ok"
	done
	# the same bodies, as files
	rc=0
	"$WARDEN" policy check "$here"/../../policy/templates/*.json > "$T/out" 2>&1 || rc=$?
	expect_eq "exit status (files)" "$rc" 0
	if grep -q '(line' "$T/out"; then fail "errors in the template files: $(cat "$T/out")"; fi
}

# Each malformed policy fails with exit 2 and one error at the right pointer, line and column.
test_malformed_corpus_fails_with_pointer() {
	[ -f "$corpus/malformed.tsv" ] || skip "no corpus at $corpus"
	n=0
	# (cut, not read: read would merge the two tabs around an empty pointer)
	while IFS= read -r row; do
		case $row in '#'* | '') continue ;; esac
		file=$(printf '%s\n' "$row" | cut -f1)
		pointer=$(printf '%s\n' "$row" | cut -f2)
		line=$(printf '%s\n' "$row" | cut -f3)
		col=$(printf '%s\n' "$row" | cut -f4)
		words=$(printf '%s\n' "$row" | cut -f5)
		rc=0
		"$WARDEN" policy check "$corpus/malformed/$file" > "$T/out" 2>&1 || rc=$?
		expect_eq "$file: exit status" "$rc" 2
		expect_eq "$file: error lines" "$(wc -l < "$T/out")" 1
		if [ -n "$pointer" ]; then
			expect_line "$T/out" "$corpus/malformed/$file: $pointer: " "$words" \
				"(line $line, column $col)"
		else
			expect_line "$T/out" "$corpus/malformed/$file: " "$words"
		fi
		n=$((n + 1))
	done < "$corpus/malformed.tsv"
	[ "$n" -ge 40 ] || fail "only $n malformed policies in the corpus"
}

test_check_lists_every_error_and_exit_codes() {
	cat > "$T/p.json" <<-'JSON'
	{
	  "schema": "warden.policy/1",
	  "fs": { "read": ["/usr", "lib"], "raed": [] },
	  "limits": { "memory": "256M" }
	}
	JSON
	rc=0
	"$WARDEN" policy check "$T/p.json" "$corpus/valid/minimal.json" > "$T/out" || rc=$?
	expect_eq "exit status" "$rc" 2
	expect_line "$T/out" "$T/p.json: /fs/read/1: expected an absolute path" "(line 3, column 28)"
	expect_line "$T/out" "$T/p.json: /fs/raed: unknown key \"raed\" (did you mean \"read\"?)" \
		"(line 3, column 36)"
	expect_line "$T/out" "$T/p.json: /limits/memory: unknown unit \"M\"" "(line 4, column 25)"
	expect_line "$T/out" "$corpus/valid/minimal.json: ok"
	expect_eq "lines" "$(wc -l < "$T/out")" 4
	rc=0
	"$WARDEN" policy check > /dev/null 2>&1 || rc=$?
	expect_eq "no policy: exit status" "$rc" 2
	rc=0
	"$WARDEN" policy check --json "$T/p.json" > "$T/out.json" || rc=$?
	expect_eq "--json exit status" "$rc" 2
	if command -v jq > /dev/null; then
		expect_eq "json errors" "$(jq '.policies[0].errors | length' "$T/out.json")" 3
		expect_eq "json pointer" "$(jq -r '.policies[0].errors[1].pointer' "$T/out.json")" \
			/fs/raed
		expect_eq "json line" "$(jq '.policies[0].errors[1].line' "$T/out.json")" 3
	fi
}

test_check_notes_what_run_refuses() {
	printf '{"schema":"warden.policy/1","extends":"cli","exec":{"allow":["/usr/bin"]}}\n' > "$T/a.json"
	"$WARDEN" policy check "$T/a.json" > "$T/out"
	expect_line "$T/out" "$T/a.json: ok"
	# enforced on bpf-lsm: the note names the backend that refuses it
	expect_line "$T/out" "$T/a.json: note: the landlock backend refuses it: /exec/allow/0:" \
		"use --backend bpf-lsm"
}

test_init_writes_template() {
	"$WARDEN" policy init --template http-client > "$T/stdout.json"
	cmp -s "$T/stdout.json" "$here/../../policy/templates/http-client.json" ||
		fail "init wrote something other than the template"
	"$WARDEN" policy init --template cli -o "$T/p.json"
	cmp -s "$T/p.json" "$here/../../policy/templates/cli.json" || fail "-o FILE differs"
	rc=0
	"$WARDEN" policy init --template worker -o "$T/p.json" 2> "$T/err" || rc=$?
	expect_eq "overwrite refused" "$rc" 2
	expect_line "$T/err" "--force replaces it"
	cmp -s "$T/p.json" "$here/../../policy/templates/cli.json" || fail "file was replaced"
	"$WARDEN" policy init --template worker -o "$T/p.json" --force
	cmp -s "$T/p.json" "$here/../../policy/templates/worker.json" || fail "--force did not"
	rc=0
	"$WARDEN" policy init --template wroker 2> "$T/err" || rc=$?
	expect_eq "unknown template" "$rc" 2
	expect_line "$T/err" 'no template "wroker"'
	expect_line "$T/err" "worker-parallel"
	# what init wrote checks, and means the template
	"$WARDEN" policy check "$T/p.json" > /dev/null
}

test_explain_each_template() {
	cd "$T"
	for n in cli fs-tool http-client postgres-client sqlite-app web-service worker \
		worker-parallel; do
		"$WARDEN" policy explain "$n" > "$T/$n.txt" || fail "explain $n failed"
		expect_line "$T/$n.txt" "policy template $n"
		expect_line "$T/$n.txt" "may read under /usr"
		expect_line "$T/$n.txt" "everything else: denied"
		expect_line "$T/$n.txt" "\$WORKDIR: the directory warden run starts in, here $T"
	done
	expect_line "$T/cli.txt" "warden run enforces all of it"
	expect_line "$T/worker.txt" "may not run /usr/bin/git with arguments push (any more)"
	expect_line "$T/worker-parallel.txt" "may have at most 1024 processes and threads at once" \
		"(template worker-parallel)"
	expect_line "$T/http-client.txt" "may connect to any host, tcp port 443"
	expect_line "$T/fs-tool.txt" "may delete, rename or truncate under \$WORKDIR/.git only when"
}

test_explain_shows_derived_flags() {
	"$WARDEN" policy explain cli --allow-read /srv/data --allow-host api.example.com:443 \
		--mode audit --limit wall_time=30s > "$T/out"
	expect_line "$T/out" "made of: template cli, --allow-read, --allow-host, --mode, --limit"
	expect_line "$T/out" "mode: audit"
	expect_line "$T/out" "may read under /srv/data" "(--allow-read)"
	expect_line "$T/out" "may connect to api.example.com, tcp and udp port 443" "(--allow-host)"
	expect_line "$T/out" "is killed after 30s of wall-clock time" "(--limit)"
	expect_line "$T/out" "warden run enforces all of it"
	rc=0
	"$WARDEN" policy explain cli --limit wal_time=30s > /dev/null 2> "$T/err" || rc=$?
	expect_eq "bad flag: exit status" "$rc" 2
	expect_line "$T/err" '--limit wal_time=30s: unknown key "wal_time" (did you mean "wall_time"?)'
}

test_explain_json() {
	command -v jq > /dev/null || skip "jq is not installed"
	"$WARDEN" policy explain --json worker-parallel > "$T/out.json"
	expect_eq schema "$(jq -r .schema "$T/out.json")" warden.explain/1
	expect_eq runnable "$(jq -r .runnable "$T/out.json")" true
	expect_eq pids "$(jq -r .effective.limits.pids "$T/out.json")" 1024
	expect_eq sources "$(jq -r '.sources | join(",")' "$T/out.json")" \
		"template worker,template worker-parallel"
	# the effective policy is itself a valid policy
	jq .effective "$T/out.json" > "$T/effective.json"
	"$WARDEN" policy check "$T/effective.json" > /dev/null
}
