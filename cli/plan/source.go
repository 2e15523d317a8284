/*
Copyright 2026 The Spillway Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package plan

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Side is one side of a plan on disk, and how to clean it up.
type Side struct {
	// Dir is the fleet directory of this side.
	Dir string
	// Cleanup removes what was extracted; a no-op for a directory ref.
	Cleanup func()
}

// Resolve turns a ref into a fleet directory. An existing directory is taken
// as the fleet directory itself. Anything else is a git commit-ish of the
// repository holding fleetDir: that commit's tree is extracted with git
// archive into a temporary directory (the work tree and the repository are
// left alone), and the fleet directory is found at the same path inside it.
func Resolve(ref, fleetDir string) (Side, error) {
	if st, err := os.Stat(ref); err == nil && st.IsDir() {
		return Side{Dir: ref, Cleanup: func() {}}, nil
	}
	abs, err := filepath.Abs(fleetDir)
	if err != nil {
		return Side{}, err
	}
	top, err := git(abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return Side{}, fmt.Errorf("%q is neither a directory nor a git ref: %s is not in a git repository (%w)", ref, fleetDir, err)
	}
	top = strings.TrimSpace(top)
	// Both through EvalSymlinks: git reports the real path.
	realFleet, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Side{}, err
	}
	prefix, err := filepath.Rel(top, realFleet)
	if err != nil || strings.HasPrefix(prefix, "..") {
		return Side{}, fmt.Errorf("%s is outside its repository %s", fleetDir, top)
	}
	commit, err := git(top, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return Side{}, fmt.Errorf("%q is neither a directory nor a commit of %s", ref, top)
	}
	tmp, err := os.MkdirTemp("", "spillway-plan-")
	if err != nil {
		return Side{}, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	cmd := exec.Command("git", "-C", top, "archive", "--format=tar", strings.TrimSpace(commit))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cleanup()
		return Side{}, err
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		return Side{}, err
	}
	xerr := extract(out, tmp)
	_, _ = io.Copy(io.Discard, out)
	if err := errors.Join(xerr, cmd.Wait()); err != nil {
		cleanup()
		return Side{}, fmt.Errorf("git archive %s: %w %s", ref, err, strings.TrimSpace(stderr.String()))
	}
	return Side{Dir: filepath.Join(tmp, prefix), Cleanup: cleanup}, nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// extract writes a tar stream under dir, refusing paths that leave it.
func extract(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if p != dir && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return fmt.Errorf("archive entry %q leaves the target directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
		}
	}
}
