#!/usr/bin/env bash
# core_cxx.sh - C++: demangled names exactly (namespaces, constructor and
# destructor, overloads, const and static methods, template instances) with
# --demangle=full, and the short names every view shows by default, and
# an exception thrown through three instrumented frames and caught leaves a
# tree in which every frame, and every destructor run by the unwinding, ends
# where it should.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_cxx cxx "$PROGRAMS/cxx.cpp"
run_plain cxx "$WORK/cxx"
record cxx "$WORK/cxx"
same_as_plain cxx
to_json cxx --demangle=full
check_tree schema "$WORK/cxx.json" --command "$WORK/cxx" --total --files
expect_trees cxx <<'TREES'
== process 1 main
main
  use_widget()
    shapes::Widget::Widget(int)
    shapes::Widget::run(int)
    shapes::Widget::run(double)
    shapes::Widget::size() const
    shapes::Widget::count()
    shapes::Widget::~Widget()
  use_templates()
    int shapes::twice<int>(int)
    double shapes::twice<double>(double)
    shapes::detail::label(char const*)
  try_dive()
    shapes::dive(int)
      shapes::Widget::Widget(int)
      shapes::dive(int)
        shapes::Widget::Widget(int)
        shapes::dive(int)
          shapes::Widget::Widget(int)
          shapes::fail_now(int)
          shapes::Widget::~Widget()
        shapes::Widget::~Widget()
      shapes::Widget::~Widget()
    after_catch(int)
  shapes::Widget::count()
TREES
check_tree lines "$WORK/cxx.json" "$WORK/cxx" --demangle
expect_replay cxx --demangle=full
# the default: scope and name alone
ct json -o "$WORK/cxx_short.json" "$WORK/cxx.trace"
check_tree render "$WORK/cxx_short.json" | sed -n '2,14p' >"$WORK/cxx_short.got"
cat >"$WORK/cxx_short.want" <<'TREES'
main
  use_widget
    shapes::Widget::Widget
    shapes::Widget::run [x2]
    shapes::Widget::size
    shapes::Widget::count
    shapes::Widget::~Widget
  use_templates
    shapes::twice [x2]
    shapes::detail::label
  try_dive
    shapes::dive
      shapes::Widget::Widget
TREES
expect_text "short names of cxx" "$WORK/cxx_short.want" "$WORK/cxx_short.got"
ct replay "$WORK/cxx.trace" >"$WORK/cxx_short.replay"
check_tree replay-order "$WORK/cxx_short.replay" "$WORK/cxx_short.json"
pass
