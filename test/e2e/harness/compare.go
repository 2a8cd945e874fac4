package harness

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
	mErr := strings.ReplaceAll(minictl.Stderr, "minictl", "kubectl")
	if kubectl.ExitCode != minictl.ExitCode || kubectl.Stderr != mErr || !equalTables(kt, mt) {
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
		if lines[0] != strings.ToUpper(lines[0]) { // --no-headers
			blocks = append(blocks, headerlessRows(lines))
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

var (
	wideGap = regexp.MustCompile(`\s{3,}`)
	ageCell = regexp.MustCompile(`^(\d+[smhdy])+$`)
)

// headerlessRows splits rows printed with --no-headers at runs of three or
// more spaces and masks cells that look like ages.
func headerlessRows(lines []string) [][]string {
	var rows [][]string
	for _, l := range lines {
		cells := wideGap.Split(strings.TrimSpace(l), -1)
		for i, c := range cells {
			if ageCell.MatchString(c) {
				cells[i] = "<age>"
			}
		}
		rows = append(rows, cells)
	}
	return rows
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

// Proc is a tool running in the background (a watch), with its output
// readable while it runs.
type Proc struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	err  *syncBuffer
	done chan error
}

// StartTool starts bin/<tool> with args against the server, like Run, but
// returns at once. env entries are added to the environment (they win over
// the defaults). The process is killed when the test ends.
func (s *Server) StartTool(t testing.TB, tool string, env []string, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(Binary(t, tool), args...)
	cmd.Env = s.toolEnv(tool, env)
	p := &Proc{cmd: cmd, out: &syncBuffer{}, err: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.out, p.err
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s %v: %v", tool, args, err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

// RunEnv is Run with extra environment entries (for example KUBECONFIG).
func (s *Server) RunEnv(tool string, env []string, args ...string) Result {
	s.t.Helper()
	p := s.StartTool(s.t, tool, env, args...)
	return p.Wait(s.t, 2*time.Minute)
}

func (s *Server) toolEnv(tool string, extra []string) []string {
	home := filepath.Join(filepath.Dir(s.DataDir), "home-"+tool)
	_ = os.MkdirAll(home, 0o755)
	env := append(os.Environ(), "KUBECONFIG="+s.Kubeconfig, "HOME="+home)
	return append(env, extra...)
}

// Stdout is what the process has printed so far.
func (p *Proc) Stdout() string { return p.out.String() }

// WaitForOutput waits until stdout contains want; it fails the test after
// timeout.
func (p *Proc) WaitForOutput(t testing.TB, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in output within %s; stdout:\n%s\nstderr:\n%s", want, timeout, p.out.String(), p.err.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Interrupt sends SIGINT (Ctrl-C) and waits for the process to exit.
func (p *Proc) Interrupt(t testing.TB) Result {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	return p.Wait(t, 10*time.Second)
}

// Wait waits for the process to exit and returns what it printed.
func (p *Proc) Wait(t testing.TB, timeout time.Duration) Result {
	t.Helper()
	select {
	case err := <-p.done:
		res := Result{Stdout: p.out.String(), Stderr: p.err.String()}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			res.ExitCode = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("waiting for %v: %v", p.cmd.Args, err)
		}
		return res
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		t.Fatalf("%v did not exit within %s; stdout:\n%s", p.cmd.Args, timeout, p.out.String())
		return Result{}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
