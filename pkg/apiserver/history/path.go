package history

import "slices"

// path is where a field is, as Change reports it.
type path struct {
	text   string
	fields []string
	// element is text up to the first list element the path went
	// through, "" before one; fields stops growing there.
	element string
}

func (p path) field(k string) path {
	q := path{text: p.text + fieldText(k, p.text == ""), fields: p.fields, element: p.element}
	if p.element == "" {
		q.fields = append(slices.Clip(p.fields), k)
	}
	return q
}

func (p path) elem(label string) path {
	q := path{text: p.text + "[" + label + "]", fields: p.fields, element: p.element}
	if q.element == "" {
		q.element = q.text
	}
	return q
}

func (p path) ignored() bool {
	if p.element != "" {
		return false
	}
	for _, f := range ignored {
		if slices.Equal(p.fields, f) {
			return true
		}
	}
	return false
}

// fieldText is how a field name joins a path: ".replicas", or
// "[app.kubernetes.io/name]" for a key that is not a plain word.
func fieldText(k string, first bool) string {
	if !plainWord(k) {
		return "[" + k + "]"
	}
	if first {
		return k
	}
	return "." + k
}

func plainWord(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
