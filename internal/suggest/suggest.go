// Package suggest finds, for a word that is not one of the words a place
// accepts, the accepted word it was most likely meant to be: the "did you
// mean" of an error message.
package suggest

import (
	"fmt"
	"strings"
)

// Closest returns the option nearest to word by edit distance (insertions,
// deletions, substitutions and swaps of two neighbouring letters), if one
// is near enough to be a slip: at most one edit for a word of up to four
// letters, two up to eight, three beyond. Ties go to the earlier option.
func Closest(word string, options []string) (string, bool) {
	best, bestDist := "", maxDistance(word)+1
	for _, o := range options {
		if d := distance(word, o); d < bestDist {
			best, bestDist = o, d
		}
	}
	return best, best != ""
}

// DidYouMean is ` (did you mean "option"?)` for the closest option to
// word, or "" when none is near: the end of an "unknown ..." error.
func DidYouMean(word string, options []string) string {
	if o, ok := Closest(word, options); ok {
		return fmt.Sprintf(" (did you mean %q?)", o)
	}
	return ""
}

// List writes words as a sentence lists them: "a", "a and b", "a, b and
// c"; the accepted words of an "unknown ..." error, from the same slice as
// its DidYouMean.
func List(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// maxDistance is how many edits still read as a slip for word.
func maxDistance(word string) int {
	switch n := len([]rune(word)); {
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// distance is the optimal string alignment distance between a and b:
// Levenshtein's, where swapping two neighbouring letters is one edit.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// d[i][j] is the distance between x[:i] and y[:j]; three rows are kept.
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
