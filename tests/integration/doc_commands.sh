#!/usr/bin/env bash
# Every example command line of README.md and of the man page's EXAMPLES
# runs as written (from the repository's root, on the shipped samples) and
# exits 0: documentation that cannot drift from the program.  Synopsis
# lines ("...", "[--", "a|b", PLACEHOLDERS) are not examples and are left out.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/root"
ln -s "$SRCDIR/samples" "$tmp/root/samples"
/usr/bin/python3 - "$SRCDIR/README.md" "$SRCDIR/doc/dmlscope.1" >"$tmp/commands" <<'PY'
import re, sys
out = []
def take(lines):
    cmd = ""
    for line in lines:
        line = line.rstrip()
        if cmd:
            cmd += " " + line.strip()
        elif line.startswith("dmlscope "):
            cmd = line
        else:
            continue
        if cmd.endswith("\\"):
            cmd = cmd[:-1].rstrip()
            continue
        cmd = re.sub(r"\s+#\s.*$", "", cmd)      # a trailing comment
        bare = re.sub(r"'[^']*'|\"[^\"]*\"", "", cmd)  # outside quotes:
        synopsis = ("..." in bare or "[--" in bare or "|" in bare
                    or re.search(r"\b[A-Z][A-Z_]+\b", bare))   # OPTION placeholders
        if not synopsis:
            out.append(cmd)
        cmd = ""
readme = open(sys.argv[1]).read().split("\n")
block, inside = [], False
for line in readme:
    if line.startswith("```"):
        if inside:
            take(block)
        block, inside = [], not inside
    elif inside:
        block.append(line)
man = open(sys.argv[2]).read()
m = re.search(r"^\.SH EXAMPLES\n\.nf\n(.*?)^\.fi", man, re.S | re.M)
if m:
    text = m.group(1).replace("\\-", "-").replace("\\e", "\\")
    take(text.split("\n"))
print("\n".join(out))
PY
n=$(wc -l <"$tmp/commands")
[ "$n" -ge 8 ] || { echo "FAIL: only $n example commands found"; exit 1; }
fail=0
cd "$tmp/root" || exit 1
while IFS= read -r cmd; do
	run="\"\$DMLSCOPE\"${cmd#dmlscope}"
	if ! (eval "$run") >"$tmp/out" 2>"$tmp/err" </dev/null; then
		echo "FAIL: $cmd"; sed 's/^/    /' "$tmp/err" | head -3; fail=1
	else
		echo "ok   $cmd"
	fi
done <"$tmp/commands"
exit $fail
