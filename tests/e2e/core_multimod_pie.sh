#!/usr/bin/env bash
# core_multimod_pie.sh - tests/programs/multimod built as a PIE executable:
# exact call trees of every process and thread (static lib, shared lib, a
# plugin unloaded with dlclose, exit() and _exit() children, two threads),
# file:line of every call as addr2line says, output and exit code unchanged.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
multimod_test pie
pass
