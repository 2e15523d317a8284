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

package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Who the images run as: the uid distroless calls nonroot, which the
// manager's Deployment also sets (runAsUser: 65532).
const (
	nonRootUID = 65532
	binDir     = "/usr/local/bin"
)

// Platform is the one platform the images are built for.
var Platform = v1.Platform{OS: "linux", Architecture: "amd64"}

// epoch stamps every file and the config, so the same sources give the
// same image digest.
var epoch = time.Unix(0, 0).UTC()

// Spec is one image: its binaries (the first is the entrypoint), where they
// come from, and the tag it is published under.
type Spec struct {
	// Ref is the full reference, e.g. ghcr.io/spillway-dev/spillway-controller:v0.1.0.
	Ref string
	// Binaries maps a file name in binDir to the binary on disk.
	Binaries []Binary
	// CABundle, when set, is installed as /etc/ssl/certs/ca-certificates.crt.
	CABundle string
	Version  string
}

// Binary is one executable of an image.
type Binary struct{ Name, Path string }

// Compile builds a Go package as a static linux/amd64 binary (no cgo, so it
// runs on an image without a libc).
func Compile(repoRoot, pkg, out string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+Platform.OS, "GOARCH="+Platform.Architecture)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// Build assembles the image: a base layer with what a scratch image lacks
// (users, CA certificates, /tmp), and a layer with the binaries.
func Build(s Spec) (v1.Image, error) {
	if len(s.Binaries) == 0 {
		return nil, fmt.Errorf("image %s: no binaries", s.Ref)
	}
	base, err := baseLayer(s.CABundle)
	if err != nil {
		return nil, err
	}
	bins, err := binariesLayer(s.Binaries)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, base, bins)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = Platform.OS, Platform.Architecture
	cf.Created = v1.Time{Time: epoch}
	cf.Config = v1.Config{
		Entrypoint: []string{path.Join(binDir, s.Binaries[0].Name)},
		User:       fmt.Sprintf("%d:%d", nonRootUID, nonRootUID),
		WorkingDir: "/",
		Env:        []string{"PATH=" + binDir + ":/usr/bin:/bin"},
		Labels: map[string]string{
			"org.opencontainers.image.source":  "https://github.com/spillway-dev/spillway",
			"org.opencontainers.image.title":   s.Binaries[0].Name,
			"org.opencontainers.image.version": s.Version,
		},
	}
	return mutate.ConfigFile(img, cf)
}

// Write stores the image as an OCI layout directory (for crane, skopeo,
// podman, containerd's ctr import) and as a docker-archive tarball (for
// docker load and kind load image-archive).
func Write(img v1.Image, ref, layoutDir, tarPath string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image reference %q: %w", ref, err)
	}
	if err := os.RemoveAll(layoutDir); err != nil {
		return err
	}
	p, err := layout.Write(layoutDir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithPlatform(Platform), layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag.String(),
	})); err != nil {
		return err
	}
	return tarball.WriteToFile(tarPath, tag, img)
}

// tarEntry is one file or directory of a layer.
type tarEntry struct {
	name string
	mode int64
	uid  int
	data []byte // nil for a directory
}

func layerOf(entries []tarEntry) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: epoch, Format: tar.FormatPAX}
		if e.data == nil {
			h.Typeflag, h.Name = tar.TypeDir, e.name+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// baseLayer holds what a distroless static image would: the nonroot user,
// CA certificates for TLS to public endpoints, and writable /tmp.
func baseLayer(caBundle string) (v1.Layer, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonRootUID, nonRootUID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonRootUID)
	entries := []tarEntry{
		{name: "etc", mode: 0o755},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "home", mode: 0o755},
		{name: "home/nonroot", mode: 0o700, uid: nonRootUID},
		{name: "tmp", mode: 0o1777},
	}
	if caBundle != "" {
		ca, err := os.ReadFile(caBundle)
		if err != nil {
			return nil, fmt.Errorf("CA bundle: %w", err)
		}
		entries = append(entries,
			tarEntry{name: "etc/ssl", mode: 0o755},
			tarEntry{name: "etc/ssl/certs", mode: 0o755},
			tarEntry{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: ca})
	}
	return layerOf(entries)
}

func binariesLayer(bins []Binary) (v1.Layer, error) {
	entries := []tarEntry{{name: "usr", mode: 0o755}, {name: "usr/local", mode: 0o755}, {name: "usr/local/bin", mode: 0o755}}
	for _, b := range bins {
		data, err := os.ReadFile(b.Path)
		if err != nil {
			return nil, err
		}
		entries = append(entries, tarEntry{name: filepath.ToSlash(path.Join("usr/local/bin", b.Name)), mode: 0o755, data: data})
	}
	return layerOf(entries)
}
