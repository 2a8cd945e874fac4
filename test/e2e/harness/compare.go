package harness

import (
	"regexp"
	"strings"
	"testing"
)

// Side by side: run the real kubectl and minictl with the same arguments
// against the same server and compare what they print.
//
// Both tools read the same server state, so names, uids and
// resourceVersions agree between the two runs of one comparison; what can
// differ is time (AGE cells, timestamps) and anything recorded at another
// moment. Mask and Table take those out.

// Both runs kubectl, then minictl, with args and stdin.
func (s *Server) Both(stdin string, args ...string) (kubectl, minictl Result) {
	s.t.Helper()
	return s.Run("kubectl", stdin, args...), s.Run("minictl", stdin, args...)
}

// ExpectSame runs both tools and fails the test unless stdout, stderr and
// the exit code are byte for byte the same (after replacing "minictl" by
// "kubectl" in minictl's output, for usage hints). It returns kubectl's
// result.
func (s *Server) ExpectSame(t testing.TB, args ...string) Result {
	t.Helper()
	k, m := s.Both("", args...)
	SameResult(t, args, k, m)
	return k
}

// SameResult fails the test unless two results print the same.
func SameResult(t testing.TB, args []string, kubectl, minictl Result) {
	t.Helper()
	m := minictl
	m.Stdout = strings.ReplaceAll(m.Stdout, "minictl", "kubectl")
	m.Stderr = strings.ReplaceAll(m.Stderr, "minictl", "kubectl")
	if kubectl.Stdout != m.Stdout || kubectl.Stderr != m.Stderr || kubectl.ExitCode != m.ExitCode {
		t.Errorf("%v: outputs differ\n=== kubectl %s\n=== minictl %s", args, kubectl, minictl)
	}
}

// ExpectSameTable runs both tools and fails the test unless they exit
// alike, print the same stderr, and print tables with the same headers,
// columns and cells, AGE values aside. It returns kubectl's result.
func (s *Server) ExpectSameTable(t testing.TB, args ...string) Result {
	t.Helper()
	k, m := s.Both("", args...)
	SameTable(t, args, k, m)
	return k
}

// SameTable compares two results whose stdout is kubectl-style tables.
func SameTable(t testing.TB, args []string, kubectl, minictl Result) {
	t.Helper()
	kt, mt := Table(kubectl.Stdout), Table(minictl.Stdout)
	if kubectl.ExitCode != minictl.ExitCode || kubectl.Stderr != minictl.Stderr || !equalTables(kt, mt) {
		t.Errorf("%v: tables differ\n=== kubectl %s\n=== minictl %s", args, kubectl, minictl)
	}
}

// Table parses kubectl table output into blocks (separated by blank
// lines) of rows of cells. Column boundaries come from the header line:
// a column starts where a word follows three or more spaces. Cells of
// columns named AGE are replaced by "<age>".
func Table(out string) [][][]string {
	var blocks [][][]string
	for _, block := range strings.Split(strings.TrimRight(out, "\n"), "\n\n") {
		lines := strings.Split(block, "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		starts := columnStarts(lines[0])
		var rows [][]string
		for _, l := range lines {
			rows = append(rows, cutColumns(l, starts))
		}
		for i, h := range rows[0] {
			if h != "AGE" {
				continue
			}
			for _, r := range rows[1:] {
				if i < len(r) {
					r[i] = "<age>"
				}
			}
		}
		blocks = append(blocks, rows)
	}
	return blocks
}

func columnStarts(header string) []int {
	starts := []int{0}
	spaces := 0
	for i, c := range header {
		if c == ' ' {
			spaces++
			continue
		}
		if spaces >= 3 {
			starts = append(starts, i)
		}
		spaces = 0
	}
	return starts
}

func cutColumns(line string, starts []int) []string {
	cells := make([]string, len(starts))
	for i, s := range starts {
		if s >= len(line) {
			continue
		}
		end := len(line)
		if i+1 < len(starts) && starts[i+1] < end {
			end = starts[i+1]
		}
		cells[i] = strings.TrimSpace(line[s:end])
	}
	return cells
}

func equalTables(a, b [][][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if strings.Join(a[i][j], "\x00") != strings.Join(b[i][j], "\x00") {
				return false
			}
		}
	}
	return true
}

var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	// uids
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uid>"},
	// RFC 3339 timestamps
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), "<time>"},
	// resourceVersion in JSON and YAML
	{regexp.MustCompile(`("resourceVersion": ?)"\d+"`), `$1"<rv>"`},
	{regexp.MustCompile(`(resourceVersion: )"\d+"`), `$1"<rv>"`},
	// pod names: NAME-<pod-template-hash>-<5 random characters>
	{regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}\b`), "-<hash>-<sfx>"},
	// pod-template-hash values and ReplicaSet names
	{regexp.MustCompile(`(pod-template-hash[=:] ?"?)[bcdfghjklmnpqrstvwxz2456789]{6,10}`), "$1<hash>"},
	{regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{8,10}\b`), "-<hash>"},
}

// Mask replaces what changes from run to run — uids, timestamps,
// resourceVersions, pod-template hashes and random pod-name suffixes —
// with placeholders, so that outputs taken at different moments compare.
// AGE cells are handled by Table.
func Mask(s string) string {
	for _, m := range masks {
		s = m.re.ReplaceAllString(s, m.with)
	}
	return s
}
