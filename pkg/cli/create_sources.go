package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The sources of `create configmap` and `create secret generic`:
// --from-literal=KEY=VALUE, --from-file=[KEY=]PATH and --from-env-file=PATH,
// read and checked as kubectl reads them.

// parseLiteralSource splits KEY=VALUE at the first "="; the value may hold
// more of them, the key may not be empty.
func parseLiteralSource(source string) (key, value string, err error) {
	key, value, ok := strings.Cut(source, "=")
	if !ok || key == "" {
		return "", "", fmt.Errorf("invalid literal source %v, expected key=value", source)
	}
	return key, value, nil
}

// parseFileSource splits [KEY=]PATH; without a key, the key is the path's
// last element.
func parseFileSource(source string) (key, filePath string, err error) {
	switch n := strings.Count(source, "="); {
	case n == 0:
		return path.Base(filepath.ToSlash(source)), source, nil
	case n == 1 && strings.HasPrefix(source, "="):
		return "", "", fmt.Errorf("key name for file path %v missing", strings.TrimPrefix(source, "="))
	case n == 1 && strings.HasSuffix(source, "="):
		return "", "", fmt.Errorf("file path for key name %v missing", strings.TrimSuffix(source, "="))
	case n > 1:
		return "", "", errors.New("key names or file paths cannot contain '='")
	}
	key, filePath, _ = strings.Cut(source, "=")
	return key, filePath, nil
}

// fileEntry is one key read from a --from-file source.
type fileEntry struct {
	Key  string
	Data []byte
}

// readFileSource reads one --from-file source: a file gives one key, a
// directory one key per regular file in it (no key name may be given).
func readFileSource(source string) ([]fileEntry, error) {
	key, filePath, err := parseFileSource(source)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(filePath)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("error reading %s: %v", filePath, pe.Err)
		}
		return nil, fmt.Errorf("error reading %s: %v", filePath, err)
	}
	if !info.IsDir() {
		data, err := os.ReadFile(filePath)
		if err != nil {
			return nil, err
		}
		return []fileEntry{{Key: key, Data: data}}, nil
	}
	if strings.Contains(source, "=") {
		return nil, fmt.Errorf("cannot give a key name for a directory path")
	}
	items, err := os.ReadDir(filePath)
	if err != nil {
		return nil, fmt.Errorf("error listing files in %s: %v", filePath, err)
	}
	var out []fileEntry
	for _, item := range items {
		if !item.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(filePath, item.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, fileEntry{Key: item.Name(), Data: data})
	}
	return out, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// readEnvFile calls add for each KEY=VALUE line of an env file. Blank lines
// and "#" comments are skipped; a line with a key only takes the value
// from minictl's environment. what ("config", "secret") names the file in
// kubectl's message for a directory.
func readEnvFile(filePath, what string, add func(key, value string) error) error {
	info, err := os.Stat(filePath)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("error reading %s: %v", filePath, pe.Err)
		}
		return fmt.Errorf("error reading %s: %v", filePath, err)
	}
	if info.IsDir() {
		return fmt.Errorf("env %s file cannot be a directory", what)
	}
	f, err := os.Open(filePath)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 0; sc.Scan(); n++ {
		key, value, err := envFileLine(sc.Bytes(), filePath, n)
		if err != nil {
			return err
		}
		if key == "" {
			continue
		}
		if err := add(key, value); err != nil {
			return err
		}
	}
	return sc.Err()
}

// envFileLine reads line n (from 0) of an env file; an empty key means the
// line holds nothing.
func envFileLine(line []byte, filePath string, n int) (key, value string, err error) {
	if !utf8.Valid(line) {
		return "", "", fmt.Errorf("env file %s contains invalid utf8 bytes at line %d: %v", filePath, n+1, line)
	}
	if n == 0 {
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	line = bytes.TrimLeftFunc(line, unicode.IsSpace)
	if len(line) == 0 || line[0] == '#' {
		return "", "", nil
	}
	key, value, hasValue := strings.Cut(string(line), "=")
	if errs := validation.IsEnvVarName(key); len(errs) != 0 {
		return "", "", fmt.Errorf("%q is not a valid key name: %s", key, strings.Join(errs, ";"))
	}
	if !hasValue {
		value = os.Getenv(key)
	}
	return key, value, nil
}
