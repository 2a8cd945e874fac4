package history

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// valuedChanges: up to this many changes are shown with their old
	// and new values; more are shown as paths alone.
	valuedChanges = 4
	// listedChanges caps the paths shown; the rest are counted.
	listedChanges = 8
	// valueWidth caps a shown value, in characters.
	valueWidth = 40
)

// Summarize words changes for a reader, short enough for one table cell:
// "spec.replicas: 3 → 5" for a few changes; for more, their paths alone,
// each list element named once (status.conditions[type=Available] for
// its status, reason and message).
func Summarize(changes []Change) []string {
	if len(changes) <= valuedChanges {
		out := make([]string, 0, len(changes))
		for _, c := range changes {
			out = append(out, c.Path+": "+Value(c.Old)+" → "+Value(c.New))
		}
		return out
	}
	var paths []string
	seen := map[string]bool{}
	for _, c := range changes {
		p := c.Path
		if c.Element != "" {
			p = c.Element
		}
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	if len(paths) > listedChanges {
		paths = append(paths[:listedChanges], fmt.Sprintf("…%d more", len(paths)-listedChanges))
	}
	return paths
}

// Value shows one field's value in a few characters: "<none>" when absent,
// strings bare when they are one plain word and quoted otherwise, objects
// and lists as compact JSON when short and as {…} or […] when not.
func Value(v any) string {
	switch v := v.(type) {
	case nil:
		return "<none>"
	case string:
		if plainValue(v) {
			return v
		}
		return clip(strconv.Quote(v))
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case map[string]any, []any:
		b, err := json.Marshal(v)
		if err == nil && utf8.RuneCount(b) <= valueWidth {
			return string(b)
		}
		if _, ok := v.(map[string]any); ok {
			return "{…}"
		}
		return "[…]"
	}
	return clip(fmt.Sprint(v))
}

// plainValue: a non-empty, short string without spaces, commas, quotes
// or arrows reads unambiguously without quotes.
func plainValue(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > valueWidth {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(`,"'→<>`, r)
	})
}

func clip(s string) string {
	if utf8.RuneCountInString(s) <= valueWidth {
		return s
	}
	r := []rune(s)
	return string(r[:valueWidth-1]) + "…"
}
