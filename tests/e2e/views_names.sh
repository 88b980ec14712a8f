#!/usr/bin/env bash
# views_names.sh - the names the views show: short by default (scope and
# name, no parameters, template arguments, return type or ABI tags),
# --demangle=full and --demangle=no as uftrace spells them, in replay,
# report, json and flame; overloads told apart in report by their
# parameter list, two C files' same-named statics by their file (in report
# and in the flame views: folded, merged, ordered); -F and -N
# with a name copied from report select exactly those calls (counted).
source "$(dirname "$0")/lib.sh"
setup
P=$ROOT/tests/programs/names
build_cxx names "$P/names.cpp"
record names "$WORK/names"
build_c statics "$P/static_a.c" "$P/static_b.c"
record statics "$WORK/statics"

# ours: the program's own lines of a replay, without durations and tids
ours() {
	grep -E '(shapes|helper|lambda|main|_ZZ4main)' |
		grep -v '@' | sed -E 's/^ *//'
}
replay_ours() {
	ct replay --no-duration --no-tid "$@" "$WORK/names.trace" | grep -v '^#' | ours
}

replay_ours >"$WORK/simple.got"
cat >"$WORK/simple.want" <<'T'
| main() {
|   shapes::area();
|   shapes::area();
|   shapes::area();
|   shapes::describe() {
|   } /* shapes::describe */
|   shapes::Box::operator+();
|   shapes::Box::get();
|   main::{lambda#1}::operator()() {
|     (anonymous namespace)::helper();
|   } /* main::{lambda#1}::operator() */
| } /* main */
T
expect_text "replay, short names" "$WORK/simple.want" "$WORK/simple.got"
replay_ours --demangle=simple >"$WORK/simple2.got"
expect_text "replay --demangle=simple" "$WORK/simple.want" "$WORK/simple2.got"

replay_ours --demangle=full >"$WORK/full.got"
cat >"$WORK/full.want" <<'T'
| main() {
|   shapes::area(double);
|   shapes::area(double);
|   shapes::area(double, double);
|   shapes::describe(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) {
|   } /* shapes::describe(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) */
|   shapes::Box<int>::operator+(shapes::Box<int> const&) const;
|   shapes::Box<int>::get() const;
|   main::{lambda(int)#1}::operator()(int) const {
|     (anonymous namespace)::helper(int);
|   } /* main::{lambda(int)#1}::operator()(int) const */
| } /* main */
T
expect_text "replay --demangle=full" "$WORK/full.want" "$WORK/full.got"

replay_ours --demangle=no >"$WORK/no.got"
cat >"$WORK/no.want" <<'T'
| main() {
|   _ZN6shapes4areaEd();
|   _ZN6shapes4areaEd();
|   _ZN6shapes4areaEdd();
|   _ZN6shapes8describeERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE() {
|   } /* _ZN6shapes8describeERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE */
|   _ZNK6shapes3BoxIiEplERKS1_();
|   _ZNK6shapes3BoxIiE3getEv();
|   _ZZ4mainENKUliE_clEi() {
|     _ZN12_GLOBAL__N_16helperEi();
|   } /* _ZZ4mainENKUliE_clEi */
| } /* main */
T
expect_text "replay --demangle=no" "$WORK/no.want" "$WORK/no.got"

# report: the overloads told apart, the std::string operator short
ct report "$WORK/names.trace" >"$WORK/names.report"
row() { awk -v n="$2" 'index($0, "  " n) && substr($0, length($0) - length(n) + 1) == n {print substr($0, 27, 10) + 0}' "$1"; }
[ "$(row "$WORK/names.report" "shapes::area(double)")" = 2 ] ||
	fail "report: shapes::area(double) not 2 calls: $(grep area "$WORK/names.report")"
[ "$(row "$WORK/names.report" "shapes::area(double, double)")" = 1 ] ||
	fail "report: shapes::area(double, double) not 1 call"
for n in shapes::describe std::operator+ shapes::Box::operator+ "main::{lambda#1}::operator()" \
	"(anonymous namespace)::helper"; do
	[ "$(row "$WORK/names.report" "$n")" = 1 ] || fail "report: no row '$n' of 1 call"
done
grep -q "basic_string<" "$WORK/names.report" && fail "report: a template argument is shown"
ct report --demangle=full "$WORK/names.trace" >"$WORK/names.full"
[ "$(row "$WORK/names.full" "shapes::Box<int>::operator+(shapes::Box<int> const&) const")" = 1 ] ||
	fail "report --demangle=full: no full operator+ row"

# -F and -N with names copied from report: exactly those calls
count() { ct replay --no-duration --no-tid "$@" | grep -vc '^#'; }
[ "$(count -F 'shapes::area(double)' "$WORK/names.trace")" = 2 ] || fail "-F 'shapes::area(double)'"
[ "$(count -F 'shapes::area(double, double)' "$WORK/names.trace")" = 1 ] ||
	fail "-F 'shapes::area(double, double)'"
[ "$(count -F 'shapes::area' "$WORK/names.trace")" = 3 ] || fail "-F shapes::area: both overloads"
[ "$(count --demangle=full -F 'shapes::Box::get' "$WORK/names.trace")" = 1 ] ||
	fail "-F with a short name under --demangle=full"
[ "$(count -F '_ZN6shapes4areaEdd' "$WORK/names.trace")" = 1 ] || fail "-F with a mangled name"
[ "$(count -F 'main::{lambda#1}::operator()' "$WORK/names.trace")" = 3 ] ||
	fail "-F with a lambda's short name: the call and its callee"
replay_ours -N 'shapes::area(double)' >"$WORK/hidden.got"
[ "$(grep -c 'shapes::area' "$WORK/hidden.got")" = 1 ] || fail "-N 'shapes::area(double)' hides 2 calls"

# two C files' static scale(): report tells them apart, -F/-N pick one
ct report "$WORK/statics.trace" >"$WORK/statics.report"
[ "$(row "$WORK/statics.report" "scale (static_a.c)")" = 2 ] || fail "report: scale (static_a.c)"
[ "$(row "$WORK/statics.report" "scale (static_b.c)")" = 1 ] || fail "report: scale (static_b.c)"
[ "$(count -F 'scale (static_a.c)' "$WORK/statics.trace")" = 2 ] || fail "-F 'scale (static_a.c)'"
[ "$(count -F 'scale (static_b.c)' "$WORK/statics.trace")" = 1 ] || fail "-F 'scale (static_b.c)'"
ct replay --no-duration --no-tid -N 'scale (static_a.c)' "$WORK/statics.trace" >"$WORK/n.got"
[ "$(grep -c 'scale()' "$WORK/n.got")" = 1 ] && grep -q 'use_a()' "$WORK/n.got" ||
	fail "-N 'scale (static_a.c)' leaves use_a and the other scale: $(cat "$WORK/n.got")"

# The flame views tell the two apart as report does: folded stacks, the
# merged flame graph and the ordered flame chart (frames and names table).
ct flame --folded "$WORK/statics.trace" >"$WORK/statics.folded"
expect_text "folded stacks of the statics" - "$WORK/statics.folded" <<'FOLDED'
main 1
main;scale (static_b.c) 1
main;use_a 1
main;use_a;scale (static_a.c) 2
FOLDED
for mode in merged ordered; do
	opts=()
	[ "$mode" = merged ] && opts=(--merged)
	ct flame "${opts[@]}" -o "$WORK/statics.$mode.svg" "$WORK/statics.trace"
	# The flame chart draws use_a's two calls of scale as one frame (×2)
	# or as two, as their widths (the run's real durations) fall: only
	# the names are the same whatever the machine's speed.
	if [ "$mode" = merged ]; then
		grep -o '<title>scale[^<]*' "$WORK/statics.$mode.svg" | sort
	else
		grep -o '<title>scale[^<]*' "$WORK/statics.$mode.svg" | sed 's/ ×[0-9]*$//' | sort -u
	fi >"$WORK/statics.$mode.titles"
	if [ "$mode" = merged ]; then
		printf '%s\n' '<title>scale (static_a.c) ×2' '<title>scale (static_b.c)'
	else
		printf '%s\n' '<title>scale (static_a.c)' '<title>scale (static_b.c)'
	fi | expect_text "$mode flame frames of the statics" - "$WORK/statics.$mode.titles"
	grep -o '"scale[^"]*"' "$WORK/statics.$mode.svg" | grep -vx '"scale (static_[ab].c)"' &&
		fail "$mode flame: a scale not told apart in the names table"
done
[ "$(grep -c '"scale (static_[ab].c)"' "$WORK/statics.merged.svg")" = 1 ] &&
	grep -q '"scale (static_b.c)","use_a","scale (static_a.c)"' "$WORK/statics.merged.svg" ||
	fail "merged flame: the names table does not tell the two scale apart"

# json and flame name the same way
ct json -o "$WORK/names.json" "$WORK/names.trace"
grep -q '"shapes::describe"' "$WORK/names.json" || fail "json: no short name"
ct json --demangle=full -o "$WORK/names.full.json" "$WORK/names.trace"
grep -q '"shapes::area(double, double)"' "$WORK/names.full.json" || fail "json --demangle=full"
ct flame -o "$WORK/names.svg" "$WORK/names.trace" 2>/dev/null
grep -q '<title>shapes::describe' "$WORK/names.svg" || fail "flame: no short name"
grep -q 'basic_string&lt;' "$WORK/names.svg" && fail "flame: a template argument is shown"

# a bad mode is a clear error
rc=0
"$CALLTRACE" replay --demangle=short "$WORK/names.trace" >/dev/null 2>"$WORK/bad.err" || rc=$?
[ "$rc" != 0 ] && grep -q "bad --demangle 'short'" "$WORK/bad.err" || fail "--demangle=short accepted"
pass
