#!/usr/bin/env bash
# views_seq.sh - `calltrace seq` on multimod: seqdiag and PlantUML text
# render with the real tools, Mermaid and js-sequence-diagrams text name the
# modules and the calls between them, our own SVG parses as XML; sections
# per thread; --by file/function; --max-calls leaves a note; a program of
# one source file gets functions as lifelines; a process is shown from main
# unless --from-start.
source "$(dirname "$0")/lib.sh"
setup
check() { python3 "$ROOT/tests/e2e/check_views.py" "$@" 2>"$WORK/check.err" || fail "check_views $1: $(tail -n 1 "$WORK/check.err")" >&2; }

build_multimod "$WORK/mm" pie
record mm "$WORK/mm/multimod" "$WORK/mm/plugin.so"
T=$WORK/mm.trace

# Mermaid: modules as participants, calls between them, balanced activations.
ct seq --format mermaid "$T" >"$WORK/mm.mmd"
check mermaid "$WORK/mm.mmd" >"$WORK/mm.msgs"
for msg in "start -> multimod: main()" "multimod -> libshared.so: sh_scale()" \
	"libshared.so -> libshared.so: sh_clamp()" "multimod -> plugin.so: pl_entry()" \
	"plugin.so -> plugin.so: pl_double()" "plugin.so --> multimod" "start -> multimod: thread_a_main()"; do
	grep -qxF "$msg" "$WORK/mm.msgs" || fail "mermaid has no message '$msg'"
done
[ "$(grep -c -- ' -> ' "$WORK/mm.msgs")" = 27 ] || fail "mermaid: $(grep -c -- ' -> ' "$WORK/mm.msgs") calls, 27 expected"
[ "$(grep -c -- ' --> ' "$WORK/mm.msgs")" = 27 ] || fail "mermaid: not a return for every call"
[ "$(grep -c '^  rect ' "$WORK/mm.mmd")" = 5 ] || fail "mermaid: not one section per thread"
grep -qx '  title lifelines: modules (the calls ran in several), from main' "$WORK/mm.mmd" ||
	fail "mermaid: the default lifelines of multimod are not its modules, or the title does not say so"
ct seq --format mermaid --by file "$T" >"$WORK/mm.file.mmd"
grep -qx '  title lifelines: source files, from main' "$WORK/mm.file.mmd" || fail "mermaid --by file: the title does not say so"
grep -Eq '^  Note over P0,P[0-9]+: pid [0-9]+ tid [0-9]+ multimod$' "$WORK/mm.mmd" || fail "mermaid: no thread note"

# js-sequence-diagrams: the same messages.
ct seq -f diagrams "$T" >"$WORK/mm.jsd"
check diagrams "$WORK/mm.jsd" >"$WORK/mm.jsd.msgs"
grep -qxF "multimod -> libshared.so: sh_scale()" "$WORK/mm.jsd.msgs" || fail "diagrams: no sh_scale() call"
[ "$(grep -c -- ' -> ' "$WORK/mm.jsd.msgs")" = 27 ] || fail "diagrams: not 27 calls"

# A program of one source file: functions as lifelines; each process's main
# thread from main, the calls before it (constructors, C++ static
# initialisers) left out and counted in the title, unless --from-start.
cat >"$WORK/init.c" <<'C'
static int table[4];
int square(int i) { return i * i; }
__attribute__((constructor)) static void fill_table(void)
{
	for (int i = 0; i < 4; i++)
		table[i] = square(i);
}
int helper(int v) { return square(v) - 16; }
int main(void) { return helper(table[2]); }
C
build_c init "$WORK/init.c"
record init "$WORK/init"
ct seq -f mermaid "$WORK/init.trace" >"$WORK/init.mmd"
grep -qxF '  title lifelines: functions (every call ran in one source file, init.c), from main (1 call before it left out: --from-start shows them)' "$WORK/init.mmd" ||
	fail "seq of one source file: title $(grep title "$WORK/init.mmd")"
check mermaid "$WORK/init.mmd" >"$WORK/init.msgs"
printf '%s\n' "start -> main: main()" "main -> helper: helper()" "helper -> square: square()" \
	"square --> helper" "helper --> main" "main --> start" >"$WORK/init.expected"
expect_text "seq of one source file, from main" "$WORK/init.expected" "$WORK/init.msgs"
ct seq -f mermaid --from-start "$WORK/init.trace" >"$WORK/init.all.mmd"
grep -qxF '  title lifelines: functions (every call ran in one source file, init.c)' "$WORK/init.all.mmd" ||
	fail "seq --from-start: title $(grep title "$WORK/init.all.mmd")"
check mermaid "$WORK/init.all.mmd" >"$WORK/init.all.msgs"
[ "$(head -n 2 "$WORK/init.all.msgs" | tr '\n' '|')" = "start -> fill_table: fill_table()|fill_table -> square: square()|" ] ||
	fail "seq --from-start: $(head -n 2 "$WORK/init.all.msgs")"

# seqdiag renders to SVG with Debian's seqdiag.
seqdiag=$(command -v seqdiag || command -v seqdiag3 || true)
[ -n "$seqdiag" ] || skip "seqdiag is not installed"
ct seq "$T" -o "$WORK/mm.diag"
"$seqdiag" -Tsvg -o "$WORK/mm.diag.svg" "$WORK/mm.diag" 2>"$WORK/seqdiag.err" ||
	fail "seqdiag cannot render it: $(tail -n 1 "$WORK/seqdiag.err")"
check xml "$WORK/mm.diag.svg" "libshared.so" "plugin.so" "sh_scale()" "pl_double()"
[ "$(grep -c '^  === pid' "$WORK/mm.diag")" = 5 ] || fail "seqdiag: not one separator per thread"

# PlantUML renders to SVG without a syntax error.
need_cmd plantuml java
ct seq -f plantuml --by file "$T" -o "$WORK/mm.puml"
plantuml -tsvg "$WORK/mm.puml" >"$WORK/plantuml.out" 2>&1 || fail "plantuml failed: $(tail -n 1 "$WORK/plantuml.out")"
check xml "$WORK/mm.svg" "main.c" "static.c" "shared.c" "plugin.c" "st_square()" "pl_entry()"
! grep -q "Syntax Error" "$WORK/mm.svg" || fail "plantuml reports a syntax error"
[ "$(grep -c '^== pid' "$WORK/mm.puml")" = 5 ] || fail "plantuml: not one divider per thread"

# Our own SVG, by function, cut by --max-calls.
ct seq -f svg --by function --max-calls 4 -o "$WORK/seq.svg" "$T"
check xml "$WORK/seq.svg" "use_static" "sh_clamp" "11 more calls of this thread not shown (--max-calls 4) after call #4 at " \
	"see them with --max-calls 0" "lifelines: functions"
ct seq -f seqdiag --max-calls 4 -o "$WORK/cut.diag" "$T"
grep -q '^  \.\.\. 11 more calls of this thread not shown' "$WORK/cut.diag" || fail "seqdiag: no cut note"
"$seqdiag" -Tsvg -o "$WORK/cut.svg" "$WORK/cut.diag" 2>"$WORK/seqdiag.err" || fail "seqdiag cannot render the cut diagram"
ct seq -f mermaid -F '^thread_b_main$' "$T" >"$WORK/b.mmd"
check mermaid "$WORK/b.mmd" >"$WORK/b.msgs"
[ "$(grep -c -- ' -> ' "$WORK/b.msgs")" = 3 ] || fail "seq -F thread_b_main: not its 3 calls"

! "$CALLTRACE" seq --format nope "$T" >/dev/null 2>"$WORK/err" && grep -q "unknown format" "$WORK/err" ||
	fail "seq --format nope does not fail with a message"
! "$CALLTRACE" seq --by nope "$T" >/dev/null 2>&1 || fail "seq --by nope does not fail"
pass
