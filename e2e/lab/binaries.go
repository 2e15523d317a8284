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

package lab

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Environment variables that point the lab at prebuilt binaries; the Makefile sets them.
const (
	EnvKubeBin    = "SPILLWAY_KUBEBIN"
	EnvKwok       = "SPILLWAY_KWOK"
	EnvKwokStages = "SPILLWAY_KWOK_STAGES"
	// EnvLab points at a built spillway-lab, which runs the peer links.
	EnvLab = "SPILLWAY_LAB"
)

// ResolveBinaries finds the lab's binaries from the environment, or builds
// them with the repository's hack scripts (cached under ~/.cache/spillway).
func ResolveBinaries(progress io.Writer) (Binaries, error) {
	b := Binaries{KubeDir: os.Getenv(EnvKubeBin), Kwok: os.Getenv(EnvKwok), KwokStages: os.Getenv(EnvKwokStages)}
	root, rootErr := RepoRoot()
	run := func(script string, args ...string) (string, error) {
		if rootErr != nil {
			return "", rootErr
		}
		cmd := exec.Command(filepath.Join(root, "hack", script), args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, progress
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("hack/%s %s failed: %w", script, strings.Join(args, " "), err)
		}
		return strings.TrimSpace(out.String()), nil
	}
	var err error
	if b.KubeDir == "" {
		if b.KubeDir, err = run("kubebin.sh"); err != nil {
			return b, err
		}
	}
	if b.Kwok == "" {
		if b.Kwok, err = run("tools.sh", "kwok"); err != nil {
			return b, err
		}
	}
	if b.KwokStages == "" {
		if b.KwokStages, err = run("tools.sh", "kwok-stages"); err != nil {
			return b, err
		}
	}
	if b.Lab, err = LabBinary(progress); err != nil {
		return b, err
	}
	for _, f := range []string{filepath.Join(b.KubeDir, "kube-apiserver"), filepath.Join(b.KubeDir, "etcd"), b.Kwok, b.KwokStages} {
		if _, err := os.Stat(f); err != nil {
			return b, fmt.Errorf("lab binary %s is missing (%w): unset %s/%s/%s or run hack/kubebin.sh and hack/tools.sh kwok", f, err, EnvKubeBin, EnvKwok, EnvKwokStages)
		}
	}
	return b, nil
}

// LabBinary returns $SPILLWAY_LAB, or builds spillway-lab into
// <repo>/bin/lab: the lab runs it as every cluster's peer link, from a path
// that outlives `go run` and the test binary that started the lab.
func LabBinary(progress io.Writer) (string, error) {
	if p := os.Getenv(EnvLab); p != "" {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(root, "bin", "lab", "spillway-lab")
	cmd := exec.Command("go", "build", "-o", out, "./e2e/lab/cmd/spillway-lab")
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, progress, progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building spillway-lab (the lab's peer link) into %s: %w", out, err)
	}
	return out, nil
}

// Tool returns the path hack/tools.sh prints for name (a binary or a directory
// of CRDs, cached under ~/.cache/spillway by version; the first call may build
// it for minutes, with progress on progress).
func Tool(name string, progress io.Writer) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(filepath.Join(root, "hack", "tools.sh"), name)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("hack/tools.sh %s failed: %w", name, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// RepoRoot walks up from the working directory to the main module's go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(data, []byte("module github.com/spillway-dev/spillway\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the spillway repository (no go.mod of github.com/spillway-dev/spillway above the working directory)")
		}
		dir = parent
	}
}
