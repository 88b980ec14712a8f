#!/usr/bin/env bash
# install_docs.sh - the man pages and the bash completion that make install
# puts in place: every command of `calltrace --help` has a man page that
# names every option of its --help and renders without a warning (man -l
# and groff), calltrace.1 names every command; the completion offers the
# commands, each command's options and the values of --engine, --format,
# --by and --sort, and trace files to the reading commands.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd man groff
MAN=$ROOT/docs/man
COMPLETION=$ROOT/packaging/calltrace.bash-completion

commands=$("$CALLTRACE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$(printf '%s\n' "$commands" | wc -l)" -ge 13 ] || fail "calltrace --help lists too few commands"

# The options a --help text names: long ones, and short ones at a line's start.
options_of() {
	{
		grep -oE -- '--[a-z][-a-z]*' || true
	} <<<"$1" | sort -u
	grep -oE -- '^ +-[A-Za-z],' <<<"$1" | tr -d ' ,' | sort -u
}
# A man page as plain text: roff escapes and font changes taken out.
man_text() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' "$1"
}
renders_clean() { # PAGE: man -l and groff render it with no warning
	local err
	err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$1" 2>&1 >"$WORK/page.txt") ||
		fail "man -l $(basename "$1") failed: $err"
	[ -z "$err" ] || fail "man -l $(basename "$1") warns: $err"
	err=$(groff -man -Tutf8 -ww -z "$1" 2>&1) || fail "groff failed on $(basename "$1"): $err"
	[ -z "$err" ] || fail "groff warns on $(basename "$1"): $err"
	[ -s "$WORK/page.txt" ] || fail "man -l $(basename "$1") rendered nothing"
}

renders_clean "$MAN/calltrace.1"
for c in $commands; do
	page=$MAN/calltrace-$c.1
	[ -f "$page" ] || fail "no man page for 'calltrace $c' (docs/man/calltrace-$c.1)"
	renders_clean "$page"
	summary=$("$CALLTRACE" --help | awk -v c="$c" '$1 == c { $1 = ""; sub(/^ +/, ""); print }')
	grep -qF "calltrace-$c - $summary" <(man_text "$page") ||
		fail "calltrace-$c.1: its NAME line is not '$summary' as in calltrace --help"
	help=$("$CALLTRACE" "$c" --help)
	for opt in $(options_of "$help"); do
		grep -qF -- "$opt" <(man_text "$page") ||
			fail "calltrace-$c.1 does not document $opt from 'calltrace $c --help'"
	done
	grep -qF "calltrace-$c(1)" <(LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$MAN/calltrace.1" 2>/dev/null) ||
		fail "calltrace.1 does not list calltrace-$c(1)"
done
for page in "$MAN"/calltrace-*.1; do
	c=$(basename "$page" .1)
	c=${c#calltrace-}
	grep -qx "$c" <<<"$commands" || fail "man page $(basename "$page") for a command calltrace does not have"
done

# complete WORD...: what the completion offers for the last word, sorted.
complete_words() {
	(
		cd "$WORK/cwd"
		# shellcheck source=packaging/calltrace.bash-completion
		source "$COMPLETION"
		COMP_WORDS=("$CALLTRACE" "$@")
		COMP_CWORD=$#
		_calltrace
		printf '%s\n' "${COMPREPLY[@]}" | sort
	)
}
mkdir -p "$WORK/cwd/sub"
touch "$WORK/cwd/a.trace" "$WORK/cwd/notes.txt"
got=$(complete_words "")
want=$(printf '%s\n' "$commands" --help --version | sort)
[ "$got" = "$want" ] || fail "completion of the command offers '${got//$'\n'/ }', not '${want//$'\n'/ }'"
[ "$(complete_words rep)" = "$(printf '%s\n' replay report)" ] || fail "completion of 'rep': $(complete_words rep)"
for c in $commands; do
	got=$(complete_words "$c" -)
	for opt in $(options_of "$("$CALLTRACE" "$c" --help)"); do
		grep -qx -- "$opt" <<<"$got" || fail "completion of 'calltrace $c -' lacks $opt"
	done
done
[ "$(complete_words record --engine "")" = "$(printf '%s\n' patch ptrace runtime)" ] || fail "completion of --engine"
[ "$(complete_words seq --format "")" = "$(printf '%s\n' diagrams mermaid plantuml seqdiag svg)" ] || fail "completion of seq --format"
[ "$(complete_words graph -f "")" = "$(printf '%s\n' dot svg text)" ] || fail "completion of graph -f"
[ "$(complete_words chrome --format "")" = "$(printf '%s\n' json proto)" ] || fail "completion of chrome --format"
[ "$(complete_words diff -f "")" = "$(printf '%s\n' json text)" ] || fail "completion of diff -f"
[ "$(complete_words replay --kind "")" = "$(printf '%s\n' -function -library -offcpu -syscall function kernel library offcpu syscall | sort)" ] || fail "completion of --kind"
[ "$(complete_words report --sort "")" = "$(printf '%s\n' avg calls max min name oncpu self total)" ] || fail "completion of --sort"
[ "$(complete_words replay "")" = "$(printf '%s\n' a.trace sub)" ] || fail "completion of a trace: $(complete_words replay "")"
[ "$(complete_words record -o x.trace ./prog "")" = "$(printf '%s\n' a.trace notes.txt sub)" ] ||
	fail "completion after record's program: $(complete_words record -o x.trace ./prog "")"
pass
