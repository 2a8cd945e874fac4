package cli

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// kubectl lays tables out with a tab writer of minimum cell width 6 and
// padding 3, padded with spaces, that remembers column widths across
// flushes so that rows printed later by a watch stay aligned with the
// header printed first.
const (
	tabMinWidth = 6
	tabPadding  = 3
)

// tabWriter buffers tab-separated lines and aligns them into columns on
// Flush, like text/tabwriter, but keeps the widest width it has seen for
// each column until ResetWidths.
type tabWriter struct {
	out    io.Writer
	buf    bytes.Buffer
	widths []int
}

func newTabWriter(out io.Writer) *tabWriter { return &tabWriter{out: out} }

// Write buffers p; nothing reaches the output before Flush.
func (t *tabWriter) Write(p []byte) (int, error) { return t.buf.Write(p) }

// ResetWidths forgets the remembered column widths (a new table begins).
func (t *tabWriter) ResetWidths() { t.widths = nil }

// Flush aligns and writes every complete line buffered so far.
func (t *tabWriter) Flush() error {
	text := t.buf.String()
	t.buf.Reset()
	if text == "" {
		return nil
	}
	trailing := ""
	if !strings.HasSuffix(text, "\n") {
		i := strings.LastIndexByte(text, '\n')
		trailing, text = text[i+1:], text[:i+1]
	}
	var lines [][]string
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(line, "\n"), "\t"))
	}
	for _, cells := range lines {
		for i := 0; i < len(cells)-1; i++ { // the last cell is not aligned
			w := utf8.RuneCountInString(cells[i]) + tabPadding
			if w < tabMinWidth {
				w = tabMinWidth
			}
			if i >= len(t.widths) {
				t.widths = append(t.widths, w)
			} else if w > t.widths[i] {
				t.widths[i] = w
			}
		}
	}
	var out bytes.Buffer
	for _, cells := range lines {
		for i, c := range cells {
			out.WriteString(c)
			if i < len(cells)-1 {
				out.WriteString(strings.Repeat(" ", t.widths[i]-utf8.RuneCountInString(c)))
			}
		}
		out.WriteByte('\n')
	}
	if trailing != "" {
		out.WriteString(trailing)
	}
	_, err := t.out.Write(out.Bytes())
	return err
}
