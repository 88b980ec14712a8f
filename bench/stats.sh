# shellcheck shell=bash
# stats.sh - the arithmetic every bench script shares (sourced, from the
# repository's root): medians and formatted figures.

# median: the median of the numbers on stdin, one a line; "nan" for none.
median() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# med COL FILE: the median of column COL of FILE; "nan" when it is empty.
med() { [ -s "$2" ] && awk -v c="$1" '{ print $c }' "$2" | median || echo nan; }

# calc FORMAT EXPR: the awk expression EXPR formatted with printf FORMAT;
# "n/a" when a value is missing or the expression fails.
calc() {
	case "$2" in *nan* | *n/a*) echo "n/a"; return ;; esac
	awk -v fmt="$1" "BEGIN { printf fmt, ($2) }" 2>/dev/null || echo "n/a"
}
