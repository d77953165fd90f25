#!/usr/bin/env bash
# The man page cannot drift from the program: every option that a
# command's --help lists is in doc/dmlscope.1, and every option the man
# page names is one that some command accepts.
set -u
man="$SRCDIR/doc/dmlscope.1"
fail=0
all=""
for cmd in analyze compare fit predict generate watch; do
	opts=$("$DMLSCOPE" "$cmd" --help | grep -oE -- "--[a-z][a-z-]+" | sort -u | tr "\n" " ")
	all="$all $opts"
	for o in $opts; do
		m=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$m" "$man" || { echo "FAIL: '$cmd $o' is not in the man page"; fail=1; }
	done
done
for o in $(grep -oE '\\-\\-[a-z][a-z\\-]*[a-z]' "$man" | sed 's/\\//g' | sort -u); do
	case " $all " in *" $o "*) ;; *) echo "FAIL: the man page names $o, which no command takes"; fail=1 ;; esac
done
[ $fail = 0 ] && echo "man_options: every --help option in the man page and back"
exit $fail
