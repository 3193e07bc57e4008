#!/usr/bin/env bash
# The variables given on make's command line, against the ones this
# project's Makefile reads (the top Makefile calls this as it starts):
#   scripts/check-make-vars.sh "KNOWN ..." GIVEN...
# A given name that is not known but close to one that is (the same letters
# in another case, one or two letters off, or the same first three letters
# and at most two more or fewer) is refused, naming the one meant: exit 2 with the message on stdout. Another unknown name is only
# named (exit 0 with the message): make ignores it.
set -uo pipefail
known=$1
shift
status=0
msgs=()
for given in "$@"; do
	[[ " $known " == *" $given "* ]] && continue
	near=$(awk -v g="$given" -v k="$known" '
	# Levenshtein distance between a and b.
	function dist(a, b,    i, j, la, lb, d, c, x) {
		la = length(a); lb = length(b)
		for (i = 0; i <= la; i++) d[i, 0] = i
		for (j = 0; j <= lb; j++) d[0, j] = j
		for (i = 1; i <= la; i++)
			for (j = 1; j <= lb; j++) {
				c = substr(a, i, 1) != substr(b, j, 1) ? 1 : 0
				x = d[i - 1, j] + 1
				if (d[i, j - 1] + 1 < x) x = d[i, j - 1] + 1
				if (d[i - 1, j - 1] + c < x) x = d[i - 1, j - 1] + c
				d[i, j] = x
			}
		return d[la, lb]
	}
	BEGIN {
		n = split(k, names, " ")
		best = ""; bestd = 99
		for (i = 1; i <= n; i++) {
			u = toupper(g)
			d = dist(u, names[i])
			# Short names allow one letter off, longer ones two.
			lim = length(names[i]) <= 4 ? 1 : 2
			if (d > lim && length(u) >= 3 &&
			    substr(u, 1, 3) == substr(names[i], 1, 3) &&
			    (length(u) - length(names[i]))^2 <= 4)
				d = lim
			if (d <= lim && d < bestd) { best = names[i]; bestd = d }
			else if (d <= lim && d == bestd) best = best " or " names[i]
		}
		print best
	}')
	if [[ -n $near ]]; then
		msgs+=("$given is not a variable of this Makefile: did you mean $near? (docs/running.md lists them)")
		status=2
	else
		msgs+=("note: $given is not a variable of this Makefile; it changes nothing")
	fi
done
if ((${#msgs[@]})); then
	printf '%s; ' "${msgs[@]}" | sed 's/; $//'
fi
exit $status
