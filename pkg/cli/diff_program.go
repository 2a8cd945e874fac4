package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"regexp"
	"strings"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// externalDiffEnv names the user's own diff command, as in kubectl.
const externalDiffEnv = "KUBECTL_EXTERNAL_DIFF"

// externalDiffArg is what an argument given in KUBECTL_EXTERNAL_DIFF may
// consist of; kubectl drops any other argument silently (no shell quoting,
// no paths), so that the variable cannot smuggle in a shell command.
var externalDiffArg = regexp.MustCompile(`^[a-zA-Z0-9-=]+$`)

// diffCommand is the program and arguments that compare the directories
// from and to: KUBECTL_EXTERNAL_DIFF (its first word is the program, the
// arguments it allows follow the directories), else `diff -u -N`.
func diffCommand(external, from, to string) (string, []string) {
	if external == "" {
		return "diff", []string{"-u", "-N", from, to}
	}
	words := strings.Split(external, " ")
	args := []string{from, to}
	for _, w := range words[1:] {
		if externalDiffArg.MatchString(w) {
			args = append(args, w)
		}
	}
	return words[0], args
}

// runDiffProgram runs the diff program with its output on the command's
// streams. Its exit status is kubectl diff's: 0 (no difference) gives nil,
// 1 (differences) gives ErrExit; a program that cannot run or exits with
// more than 1 is an error, which diff reports with status 2.
func runDiffProgram(ctx context.Context, streams genericiooptions.IOStreams, external, from, to string) error {
	name, args := diffCommand(external, from, to)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = streams.Out, streams.ErrOut
	err := cmd.Run()
	if err == nil {
		return nil
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if exitErr.ExitCode() <= 1 {
			return ErrExit
		}
		return fmt.Errorf("failed to run %q: %v", name, err)
	}
	var pathErr *fs.PathError
	if errors.Is(err, exec.ErrNotFound) || errors.As(err, &pathErr) {
		// kubectl's exec package words every lookup failure this way.
		err = exec.ErrNotFound
	}
	return fmt.Errorf("failed to run %q: %v", name, err)
}
